#include "ember/nn/modules/linear.h"

#include <cmath>
#include <ostream>

#include "ember/nn/init.h"
#include "ember/ops/functions.h"

namespace ember::nn {

// ---- Linear -------------------------------------------------------------------------------
LinearImpl::LinearImpl(const LinearOptions& options_) : options(options_) { reset(); }

void LinearImpl::reset() {
  EMBER_CHECK(options.in_features() >= 0 && options.out_features() >= 0, "Linear: in_features and out_features must "
              "be non-negative, got ", options.in_features(), " and ", options.out_features());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(), options.bias());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = options.in_features();
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(double(fan_in)) : 0.0;
    init::uniform_(bias, -bound, bound);
  }
}

void LinearImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Linear(in_features=" << options.in_features() << ", out_features=" << options.out_features()
         << ", bias=" << (options.bias() ? "true" : "false") << ")";
}

Tensor LinearImpl::forward(const Tensor& input) { return functional::linear(input, weight, bias); }

BilinearImpl::BilinearImpl(const BilinearOptions& options_) : options(options_) { reset(); }
void BilinearImpl::reset() {
  weight = register_parameter("weight",
                              empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor(), options.bias());
  const double bound = 1.0 / std::sqrt(double(options.in1_features()));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}
void BilinearImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Bilinear(in1_features=" << options.in1_features() << ", in2_features=" << options.in2_features()
    << ", out_features=" << options.out_features() << ", bias=" << (options.bias() ? "true" : "false") << ")";
}

// ---- small modules ----------------------------------------------------------------------------
void IdentityImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Identity()"; }

void FlattenImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::Flatten(start_dim=" << options.start_dim() << ", end_dim=" << options.end_dim() << ")";
}
Tensor FlattenImpl::forward(const Tensor& input) { return input.flatten(options.start_dim(), options.end_dim()); }
Tensor UnflattenImpl::forward(const Tensor& input) { return input.unflatten(options.dim(), options.sizes()); }
void UnflattenImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Unflatten(dim=" << options.dim() << ", unflattened_size={";
  for (size_t i = 0; i < options.sizes().size(); ++i) s << (i ? ", " : "") << options.sizes()[i];
  s << "})";
}

}  // namespace ember::nn
