#include "ember/nn/functional/activation.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
Tensor elu(const Tensor& input, double alpha, double scale, double input_scale) {
  return ::ember::elu(input, alpha, scale, input_scale);
}
Tensor celu(const Tensor& input, double alpha) { return ::ember::celu(input, alpha); }
Tensor hardshrink(const Tensor& input, double lambda) { return ::ember::hardshrink(input, lambda); }
Tensor softshrink(const Tensor& input, double lambda) { return ::ember::softshrink(input, lambda); }
Tensor hardtanh(const Tensor& input, double min_val, double max_val) {
  return ::ember::hardtanh(input, min_val, max_val);
}
Tensor softplus(const Tensor& input, double beta, double threshold) {
  return ::ember::softplus(input, beta, threshold);
}
Tensor softsign(const Tensor& input) { return input.div(input.abs().add(1)); }

Tensor logsigmoid(const Tensor& input) {
  // min(x, 0) - log1p(exp(-|x|)), with -|x| taken through `where` so that the derivative at 0
  // is sigmoid(-0) = 1/2 (as PyTorch's log_sigmoid_backward) rather than a subgradient.
  Tensor neg = input.lt(0);
  return where(neg, input, zeros_like(input)).sub(where(neg, input, input.neg()).exp().log1p());
}
Tensor tanhshrink(const Tensor& input) { return input.sub(input.tanh()); }
Tensor softmin(const Tensor& input, int64_t dim, std::optional<Dtype> dtype) {
  return ::ember::softmax(input.neg(), dim, dtype);
}
Tensor glu(const Tensor& input, int64_t dim) {
  EMBER_CHECK(input.dim() > 0, "glu does not support scalars because halving size must be even");
  const int64_t d = dim < 0 ? dim + input.dim() : dim, n = input.size(d);
  EMBER_CHECK(n % 2 == 0, "Halving dimension must be even, but dimension ", d, " is size ", n);
  return input.narrow(d, 0, n / 2).mul(input.narrow(d, n / 2, n / 2).sigmoid());
}

Tensor prelu(const Tensor& input, const Tensor& weight) { return ember::prelu(input, weight); }

// ---- options forms ------------------------------------------------------------------------------
Tensor relu6(Tensor input, const ReLU6FuncOptions& options) {
  return options.inplace() ? ::ember::relu6_(input) : ::ember::relu6(input);
}
Tensor selu(Tensor input, const SELUFuncOptions& options) {
  return options.inplace() ? ::ember::selu_(input) : ::ember::selu(input);
}
Tensor elu(Tensor input, const ELUFuncOptions& options) {
  return options.inplace() ? ::ember::elu_(input, options.alpha()) : ::ember::elu(input, options.alpha());
}
Tensor celu(Tensor input, const CELUFuncOptions& options) {
  if (!options.inplace()) return ::ember::celu(input, options.alpha());
  // celu(x, a) = elu(x, a, 1, 1 / a), as ember::celu computes it
  EMBER_CHECK(options.alpha() != 0, "celu: ZeroDivisionError: alpha must not be 0");
  return ::ember::elu_(input, options.alpha(), 1, 1.0 / options.alpha());
}
Tensor rrelu(Tensor input, const RReLUFuncOptions& options) {
  const double lower = options.lower(), upper = options.upper();
  EMBER_CHECK(lower <= upper, "rrelu: lower bound must be less than or equal to upper bound, got ", lower, " and ",
              upper);
  if (!options.training()) {
    const double slope = (lower + upper) / 2;
    return options.inplace() ? ::ember::leaky_relu_(input, slope) : ::ember::leaky_relu(input, slope);
  }
  // x where x > 0, else x * a with a ~ U(lower, upper) drawn per element (the gradient is a there)
  Tensor factor;
  {
    NoGradGuard g;
    Tensor slopes = empty(input.sizes(), input.options().requires_grad(false)).uniform_(lower, upper);
    factor = where(input.gt(0), ones_like(slopes), slopes);
  }
  if (options.inplace()) return input.mul_(factor);
  return input.mul(factor);
}
Tensor hardtanh(Tensor input, const HardtanhFuncOptions& options) {
  return options.inplace() ? ::ember::hardtanh_(input, options.min_val(), options.max_val())
                           : ::ember::hardtanh(input, options.min_val(), options.max_val());
}
Tensor hardshrink(const Tensor& input, const HardshrinkFuncOptions& options) {
  return ::ember::hardshrink(input, options.lambda());
}
Tensor softshrink(const Tensor& input, const SoftshrinkFuncOptions& options) {
  return ::ember::softshrink(input, options.lambda());
}
Tensor softplus(const Tensor& input, const SoftplusFuncOptions& options) {
  return ::ember::softplus(input, options.beta(), options.threshold());
}
Tensor threshold(Tensor input, const ThresholdFuncOptions& options) {
  if (!options.inplace()) return ::ember::threshold(input, options.threshold(), options.value());
  Tensor mask;
  {
    NoGradGuard g;
    mask = input.le(options.threshold());  // threshold's rule: x <= threshold -> value
  }
  return input.masked_fill_(mask, options.value());
}
Tensor glu(const Tensor& input, const GLUFuncOptions& options) { return functional::glu(input, options.dim()); }
Tensor softmin(const Tensor& input, const SoftminFuncOptions& options) {
  return functional::softmin(input, options.dim(), options.dtype());
}
Tensor gumbel_softmax(const Tensor& logits, const GumbelSoftmaxFuncOptions& options) {
  Tensor gumbels;
  {
    NoGradGuard g;
    // -log(E), E ~ Exp(1), is Gumbel(0, 1)
    gumbels = empty_like(logits, logits.options().requires_grad(false), MemoryFormat::Contiguous)
                  .exponential_()
                  .log()
                  .neg();
  }
  const int64_t dim = options.dim();
  Tensor soft = ::ember::softmax(logits.add(gumbels).div(options.tau()), dim);
  if (!options.hard()) return soft;
  Tensor index = std::get<1>(soft.max(dim, /*keepdim=*/true));
  Tensor hard = zeros_like(soft, soft.options().requires_grad(false)).scatter(dim, index, 1.0);
  return hard.sub(soft.detach()).add(soft);  // straight-through
}
}  // namespace functional

Tensor functional::relu(Tensor input, const ReLUFuncOptions& options) {
  return options.inplace() ? ::ember::relu_(input) : ::ember::relu(input);
}

namespace functional {
Tensor leaky_relu(const Tensor& input, double negative_slope) { return ::ember::leaky_relu(input, negative_slope); }
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  return options.inplace() ? ::ember::leaky_relu_(input, options.negative_slope())
                           : ::ember::leaky_relu(input, options.negative_slope());
}
Tensor gelu(const Tensor& input, std::string_view approximate) { return ::ember::gelu(input, approximate); }
Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  return ::ember::gelu(input, options.approximate());
}
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ::ember::softmax(input, options.dim(), options.dtype());
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ::ember::log_softmax(input, options.dim(), options.dtype());
}
}  // namespace functional

}  // namespace ember::nn
