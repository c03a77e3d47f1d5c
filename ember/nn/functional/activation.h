// The activation functionals (LibTorch's torch/nn/functional/activation.h), in LibTorch's
// options form (F::elu(x, F::ELUFuncOptions().alpha(2))) and the positional one
// (F::elu(x, 2.0)). Where both would take only the tensors, the options form does (the
// positional one leaves its first option without a default). Options:
// ember/nn/options/activation.h; modules: ember/nn/modules/activation.h.
#pragma once
#include <optional>
#include <string_view>

#include "ember/nn/options/activation.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
// The tensor ops of the same names (no options in LibTorch's F:: either).
using ember::hardsigmoid;
using ember::hardswish;
using ember::mish;
using ember::sigmoid;
using ember::silu;
using ember::tanh;
using ember::threshold;
// Positional forms of the activations whose options forms follow below.
Tensor elu(const Tensor& input, double alpha, double scale = 1, double input_scale = 1);
Tensor celu(const Tensor& input, double alpha);
Tensor hardshrink(const Tensor& input, double lambda);
Tensor softshrink(const Tensor& input, double lambda);
Tensor hardtanh(const Tensor& input, double min_val, double max_val = 1);
Tensor softplus(const Tensor& input, double beta, double threshold = 20);
Tensor softsign(const Tensor& input);
Tensor logsigmoid(const Tensor& input);
Tensor tanhshrink(const Tensor& input);
Tensor softmin(const Tensor& input, int64_t dim, std::optional<Dtype> dtype = std::nullopt);
// a * sigmoid(b) for the halves a, b of input along dim.
Tensor glu(const Tensor& input, int64_t dim);
Tensor prelu(const Tensor& input, const Tensor& weight);

// The activations' options forms (LibTorch's F::f(x, F::FFuncOptions()...)); the inplace
// options use the in-place ops (relu6_, elu_, hardtanh_, ...), which autograd supports.
Tensor relu6(Tensor input, const ReLU6FuncOptions& options = {});
Tensor selu(Tensor input, const SELUFuncOptions& options = {});
Tensor elu(Tensor input, const ELUFuncOptions& options = {});
Tensor celu(Tensor input, const CELUFuncOptions& options = {});
Tensor rrelu(Tensor input, const RReLUFuncOptions& options = {});
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options = {});
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options = {});
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options = {});
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options = {});
Tensor threshold(Tensor input, const ThresholdFuncOptions& options);
Tensor glu(const Tensor& input, const GLUFuncOptions& options = {});
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options);
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options = {});
// F::relu(x, F::ReLUFuncOptions().inplace(true)); in place through relu_.
Tensor relu(Tensor input, const ReLUFuncOptions& options = {});
Tensor leaky_relu(const Tensor& input, double negative_slope);
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options = {});
Tensor gelu(const Tensor& input, std::string_view approximate);
Tensor gelu(const Tensor& input, const GELUFuncOptions& options = {});
using ::ember::log_softmax;
using ::ember::softmax;
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options);
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options);
}  // namespace functional

}  // namespace ember::nn
