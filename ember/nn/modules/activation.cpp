#include "ember/nn/modules/activation.h"

#include <ostream>

#include "ember/ops/functions.h"

namespace ember::nn {

Tensor ELUImpl::forward(Tensor input) { return functional::elu(std::move(input), options); }
Tensor CELUImpl::forward(Tensor input) { return functional::celu(std::move(input), options); }
Tensor HardtanhImpl::forward(Tensor input) { return functional::hardtanh(std::move(input), options); }
Tensor SoftplusImpl::forward(const Tensor& input) { return functional::softplus(input, options); }
Tensor ThresholdImpl::forward(Tensor input) { return functional::threshold(std::move(input), options); }
Tensor ReLU6Impl::forward(Tensor input) { return functional::relu6(std::move(input), options); }
Tensor SELUImpl::forward(Tensor input) { return functional::selu(std::move(input), options); }
RReLUImpl::RReLUImpl(const RReLUOptions& options_) : options(options_) { reset(); }
void RReLUImpl::reset() {
  EMBER_CHECK(options.lower() <= options.upper(), "RReLU: lower bound must be less than or equal to upper bound");
}
Tensor RReLUImpl::forward(Tensor input) {
  return functional::rrelu(std::move(input), functional::RReLUFuncOptions()
                                                 .lower(options.lower())
                                                 .upper(options.upper())
                                                 .training(is_training())
                                                 .inplace(options.inplace()));
}
Tensor MishImpl::forward(const Tensor& input) { return mish(input); }
Tensor HardswishImpl::forward(const Tensor& input) { return hardswish(input); }
Tensor HardsigmoidImpl::forward(const Tensor& input) { return hardsigmoid(input); }
Tensor SoftsignImpl::forward(const Tensor& input) { return functional::softsign(input); }
Tensor PReLUImpl::forward(const Tensor& input) { return functional::prelu(input, weight); }
Tensor LogSigmoidImpl::forward(const Tensor& input) { return functional::logsigmoid(input); }
Tensor TanhshrinkImpl::forward(const Tensor& input) { return functional::tanhshrink(input); }
Tensor Softmax2dImpl::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "Softmax2d: expected input to be 3D or 4D, got ", input.dim(),
              "D instead");
  return softmax(input, -3);
}
Tensor HardshrinkImpl::forward(const Tensor& input) { return functional::hardshrink(input, options); }
Tensor SoftshrinkImpl::forward(const Tensor& input) { return functional::softshrink(input, options); }
Tensor GLUImpl::forward(const Tensor& input) { return functional::glu(input, options.dim()); }
Tensor SoftminImpl::forward(const Tensor& input) { return functional::softmin(input, options.dim()); }

void ReLU6Impl::pretty_print(std::ostream& s) const {
  s << "torch::nn::ReLU6(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void SELUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::SELU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
void RReLUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::RReLU(lower=" << options.lower() << ", upper=" << options.upper();
  if (options.inplace()) s << ", inplace=true";
  s << ")";
}
void MishImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Mish()"; }
void HardswishImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Hardswish()"; }
void HardsigmoidImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Hardsigmoid()"; }
void SoftsignImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softsign()"; }
void LogSigmoidImpl::pretty_print(std::ostream& s) const { s << "torch::nn::LogSigmoid()"; }
void TanhshrinkImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Tanhshrink()"; }
void Softmax2dImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softmax2d()"; }
void HardshrinkImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Hardshrink(" << options.lambda() << ")"; }
void SoftshrinkImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softshrink(" << options.lambda() << ")"; }
void GLUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::GLU(dim=" << options.dim() << ")"; }
void SoftminImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softmin(dim=" << options.dim() << ")"; }
void ELUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::ELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}
void CELUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::CELU(alpha=" << options.alpha() << (options.inplace() ? ", inplace=true" : "") << ")";
}
HardtanhImpl::HardtanhImpl(const HardtanhOptions& options_) : options(options_) { reset(); }
void HardtanhImpl::reset() {
  EMBER_CHECK(options.max_val() > options.min_val(), "max_val must be greater than min_val");
}
void HardtanhImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Hardtanh(min_val=" << options.min_val() << ", max_val=" << options.max_val()
    << (options.inplace() ? ", inplace=true" : "") << ")";
}
void SoftplusImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Softplus(beta=" << options.beta() << ", threshold=" << options.threshold() << ")";
}
void ThresholdImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Threshold(threshold=" << options.threshold() << ", value=" << options.value()
    << (options.inplace() ? ", inplace=true" : "") << ")";
}
PReLUImpl::PReLUImpl(const PReLUOptions& options_) : options(options_) { reset(); }
void PReLUImpl::reset() {
  weight = register_parameter("weight", full({options.num_parameters()}, options.init()));
}
void PReLUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PReLU(num_parameters=" << options.num_parameters() << ")";
}

void ReLUImpl::pretty_print(std::ostream& stream) const {
  stream << "torch::nn::ReLU(" << (options.inplace() ? "inplace=true" : "") << ")";
}
Tensor ReLUImpl::forward(Tensor input) { return functional::relu(std::move(input), options); }

void TanhImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Tanh()"; }
Tensor TanhImpl::forward(const Tensor& input) { return tanh(input); }

void SigmoidImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::Sigmoid()"; }
Tensor SigmoidImpl::forward(const Tensor& input) { return sigmoid(input); }

// ---- activations ---------------------------------------------------------------------------
void LeakyReLUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) s << ", inplace=true";
  s << ")";
}
Tensor LeakyReLUImpl::forward(Tensor input) { return functional::leaky_relu(std::move(input), options); }
void GELUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::GELU()"; }  // as LibTorch (no options)
Tensor GELUImpl::forward(const Tensor& input) { return functional::gelu(input, options); }
void SiLUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::SiLU()"; }
Tensor SiLUImpl::forward(const Tensor& input) { return silu(input); }
void SoftmaxImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softmax(dim=" << options.dim() << ")"; }
Tensor SoftmaxImpl::forward(const Tensor& input) { return softmax(input, options.dim()); }
void LogSoftmaxImpl::pretty_print(std::ostream& s) const { s << "torch::nn::LogSoftmax(dim=" << options.dim() << ")"; }
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return log_softmax(input, options.dim()); }

}  // namespace ember::nn
