#include "ember/nn/modules/dropout.h"

#include <ostream>

#include "ember/ops/functions.h"

namespace ember::nn {

// ---- Dropout ---------------------------------------------------------------------------------
DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) { reset(); }
void DropoutImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void DropoutImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Dropout(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
}
Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(input, options.p(), is_training(), options.inplace());
}
Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) { reset(); }
void Dropout2dImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void Dropout2dImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Dropout2d(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
}
Tensor Dropout2dImpl::forward(const Tensor& input) {
  return functional::dropout2d(input, options.p(), is_training(), options.inplace());
}
Dropout3dImpl::Dropout3dImpl(const Dropout3dOptions& options_) : options(options_) { reset(); }
void Dropout3dImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void Dropout3dImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Dropout3d(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
}
Tensor Dropout3dImpl::forward(const Tensor& input) {
  return functional::dropout3d(input, options.p(), is_training(), options.inplace());
}

AlphaDropoutImpl::AlphaDropoutImpl(const AlphaDropoutOptions& o) : options(o) { reset(); }
void AlphaDropoutImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void AlphaDropoutImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::AlphaDropout(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
}
Tensor AlphaDropoutImpl::forward(const Tensor& input) {
  return functional::alpha_dropout(input, options.p(), is_training(), options.inplace());
}
FeatureAlphaDropoutImpl::FeatureAlphaDropoutImpl(const FeatureAlphaDropoutOptions& o) : options(o) { reset(); }
void FeatureAlphaDropoutImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void FeatureAlphaDropoutImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::FeatureAlphaDropout(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false")
    << ")";
}
Tensor FeatureAlphaDropoutImpl::forward(const Tensor& input) {
  return functional::feature_alpha_dropout(input, options.p(), is_training(), options.inplace());
}

}  // namespace ember::nn
