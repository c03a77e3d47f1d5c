#include "ember/nn/modules/normalization.h"

#include <cmath>
#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::nn {

// ---- BatchNorm / InstanceNorm --------------------------------------------------------------

template <size_t D, class Derived, class Options>
void NormImplBase<D, Derived, Options>::reset() {
  const int64_t C = options.num_features();
  weight = this->register_parameter("weight", options.affine() ? ember::empty({C}) : Tensor(), options.affine());
  bias = this->register_parameter("bias", options.affine() ? ember::empty({C}) : Tensor(), options.affine());
  const bool track = options.track_running_stats();
  running_mean = this->register_buffer("running_mean", track ? ember::zeros({C}) : Tensor());
  running_var = this->register_buffer("running_var", track ? ember::ones({C}) : Tensor());
  num_batches_tracked = this->register_buffer("num_batches_tracked", track ? ember::zeros({}, dtype(kLong)) : Tensor());
  reset_parameters();
}
template <size_t D, class Derived, class Options>
void NormImplBase<D, Derived, Options>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard g;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}
template <size_t D, class Derived, class Options>
void NormImplBase<D, Derived, Options>::reset_parameters() {
  reset_running_stats();
  if (!options.affine()) return;
  NoGradGuard g;
  weight.fill_(1);
  bias.zero_();
}

namespace {
template <class Options>
void print_norm(std::ostream& s, const char* name, size_t d, const Options& o) {
  s << "torch::nn::" << name << d << "d(" << o.num_features() << ", eps=" << o.eps()
    << ", momentum=" << o.momentum().value_or(-1) << ", affine=" << (o.affine() ? "true" : "false")
    << ", track_running_stats=" << (o.track_running_stats() ? "true" : "false") << ")";
}
}  // namespace

template <size_t D, class Derived>
BatchNormImplBase<D, Derived>::BatchNormImplBase(const BatchNormOptions& o)
    : NormImplBase<D, Derived, BatchNormOptions>(o) {
  this->reset();
}
template <size_t D, class Derived>
void BatchNormImplBase<D, Derived>::pretty_print(std::ostream& s) const {
  print_norm(s, "BatchNorm", D, this->options);
}
template <size_t D, class Derived>
Tensor BatchNormImplBase<D, Derived>::forward(const Tensor& input) {
  if constexpr (D == 1)
    EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "BatchNorm1d: expected 2D or 3D input (got ", input.dim(),
                "D input)");
  else
    EMBER_CHECK(input.dim() == int64_t(D) + 2, "BatchNorm", D, "d: expected ", D + 2, "D input (got ", input.dim(),
                "D input)");
  const auto& o = this->options;
  double momentum = o.momentum().value_or(0.0);
  const bool training = this->is_training();
  if (training && o.track_running_stats()) {
    NoGradGuard g;
    this->num_batches_tracked.add_(1);
    if (!o.momentum()) momentum = 1.0 / double(this->num_batches_tracked.template item<int64_t>());
  }
  // Batch statistics in training or without running stats; running stats are updated in training.
  const bool use_running = !training && o.track_running_stats();
  return functional::batch_norm(input, training || use_running ? this->running_mean : Tensor(),
                                training || use_running ? this->running_var : Tensor(), this->weight, this->bias,
                                !use_running, momentum, o.eps());
}

template <size_t D, class Derived>
InstanceNormImpl<D, Derived>::InstanceNormImpl(const InstanceNormOptions& o)
    : NormImplBase<D, Derived, InstanceNormOptions>(o) {
  this->reset();
}
template <size_t D, class Derived>
void InstanceNormImpl<D, Derived>::pretty_print(std::ostream& s) const {
  print_norm(s, "InstanceNorm", D, this->options);
}
template <size_t D, class Derived>
Tensor InstanceNormImpl<D, Derived>::forward(const Tensor& input) {
  const int64_t unbatched = int64_t(D) + 1;
  EMBER_CHECK(input.dim() == unbatched || input.dim() == unbatched + 1, "InstanceNorm", D, "d: expected ", unbatched,
              "D or ", unbatched + 1, "D input (got ", input.dim(), "D input)");
  const auto& o = this->options;
  const int64_t feature_dim = input.dim() - unbatched;
  EMBER_CHECK(!o.affine() || input.size(feature_dim) == o.num_features(), "expected input's size at dim=",
              feature_dim, " to match num_features (", o.num_features(), "), but got: ", input.size(feature_dim), ".");
  const Tensor x = input.dim() == unbatched ? input.unsqueeze(0) : input;
  Tensor out = ::ember::instance_norm(x, this->weight, this->bias, this->running_mean, this->running_var,
                                      this->is_training() || !o.track_running_stats(), o.momentum().value_or(0.1),
                                      o.eps());
  return input.dim() == unbatched ? out.squeeze(0) : out;
}

template class NormImplBase<1, BatchNorm1dImpl, BatchNormOptions>;
template class NormImplBase<2, BatchNorm2dImpl, BatchNormOptions>;
template class NormImplBase<3, BatchNorm3dImpl, BatchNormOptions>;
template class NormImplBase<1, InstanceNorm1dImpl, InstanceNormOptions>;
template class NormImplBase<2, InstanceNorm2dImpl, InstanceNormOptions>;
template class NormImplBase<3, InstanceNorm3dImpl, InstanceNormOptions>;
template class BatchNormImplBase<1, BatchNorm1dImpl>;
template class BatchNormImplBase<2, BatchNorm2dImpl>;
template class BatchNormImplBase<3, BatchNorm3dImpl>;
template class InstanceNormImpl<1, InstanceNorm1dImpl>;
template class InstanceNormImpl<2, InstanceNorm2dImpl>;
template class InstanceNormImpl<3, InstanceNorm3dImpl>;

// ---- GroupNorm / LocalResponseNorm ---------------------------------------------------------

GroupNormImpl::GroupNormImpl(const GroupNormOptions& o) : options(o) { reset(); }
void GroupNormImpl::reset() {
  EMBER_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0,
              "num_channels must be divisible by num_groups");
  const int64_t C = options.num_channels();
  weight = register_parameter("weight", options.affine() ? ember::empty({C}) : Tensor(), options.affine());
  bias = register_parameter("bias", options.affine() ? ember::empty({C}) : Tensor(), options.affine());
  reset_parameters();
}
void GroupNormImpl::reset_parameters() {
  if (!options.affine()) return;
  NoGradGuard g;
  weight.fill_(1);
  bias.zero_();
}
void GroupNormImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::GroupNorm(" << options.num_groups() << ", " << options.num_channels() << ", eps=" << options.eps()
    << ", affine=" << (options.affine() ? "true" : "false") << ")";
}
Tensor GroupNormImpl::forward(const Tensor& input) {
  return ::ember::group_norm(input, options.num_groups(), weight, bias, options.eps());
}

void LocalResponseNormImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::LocalResponseNorm(" << options.size() << ", alpha=" << options.alpha() << ", beta=" << options.beta()
    << ", k=" << options.k() << ")";
}
Tensor LocalResponseNormImpl::forward(const Tensor& input) {
  return functional::local_response_norm(input, options);
}

// ---- LayerNorm -----------------------------------------------------------------------------
LayerNormImpl::LayerNormImpl(LayerNormOptions options_) : options(std::move(options_)) { reset(); }
void LayerNormImpl::reset() {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ones(options.normalized_shape()));
    bias = register_parameter("bias", zeros(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
}
void LayerNormImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::LayerNorm([";
  for (size_t i = 0; i < options.normalized_shape().size(); ++i) s << (i ? ", " : "") << options.normalized_shape()[i];
  s << "], eps=" << options.eps() << ", elementwise_affine=" << (options.elementwise_affine() ? "true" : "false") << ")";
}
Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

}  // namespace ember::nn
