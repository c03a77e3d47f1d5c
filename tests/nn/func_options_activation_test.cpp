// torch::nn::functional's options call forms for the activations, against the positional calls and values.
#include <torch/torch.h>

#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "func_options_test_util.h"
#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::sample;

// ---- activations ------------------------------------------------------------------------------
TEST(FuncOptionsActivations, AgainstPositional) {
  const torch::Tensor x = sample({4, 6});
  EXPECT_TENSOR_EQ(F::relu(x), torch::relu(x));
  EXPECT_TENSOR_EQ(F::relu(x, F::ReLUFuncOptions()), torch::relu(x));
  EXPECT_TENSOR_EQ(F::relu6(x, F::ReLU6FuncOptions()), torch::relu6(x));
  EXPECT_TENSOR_EQ(F::selu(x, F::SELUFuncOptions()), torch::selu(x));
  EXPECT_TENSOR_EQ(F::elu(x, F::ELUFuncOptions().alpha(0.5)), F::elu(x, 0.5));
  EXPECT_TENSOR_EQ(F::elu(x), torch::elu(x));
  EXPECT_TENSOR_EQ(F::celu(x, F::CELUFuncOptions().alpha(2.0)), F::celu(x, 2.0));
  EXPECT_TENSOR_EQ(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), F::leaky_relu(x, 0.2));
  EXPECT_TENSOR_EQ(F::leaky_relu(x), torch::leaky_relu(x, 0.01));
  EXPECT_TENSOR_EQ(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(2.0)), F::hardtanh(x, -0.5, 2.0));
  EXPECT_TENSOR_EQ(F::hardshrink(x, F::HardshrinkFuncOptions().lambda(0.3)), F::hardshrink(x, 0.3));
  EXPECT_TENSOR_EQ(F::hardshrink(x), torch::hardshrink(x, 0.5));
  EXPECT_TENSOR_EQ(F::softshrink(x, F::SoftshrinkFuncOptions(0.3)), F::softshrink(x, 0.3));
  EXPECT_TENSOR_EQ(F::softplus(x, F::SoftplusFuncOptions().beta(2.0).threshold(1.5)), F::softplus(x, 2.0, 1.5));
  EXPECT_TENSOR_EQ(F::threshold(x, F::ThresholdFuncOptions(0.25, -3.0)), F::threshold(x, 0.25, -3.0));
  EXPECT_TENSOR_EQ(F::gelu(x, F::GELUFuncOptions().approximate("tanh")), F::gelu(x, "tanh"));
  EXPECT_TENSOR_EQ(F::gelu(x), torch::gelu(x));
  EXPECT_TENSOR_EQ(F::glu(x, F::GLUFuncOptions(0)), F::glu(x, 0));
  EXPECT_TENSOR_EQ(F::glu(x), F::glu(x, -1));
  EXPECT_TENSOR_EQ(F::softmax(x, F::SoftmaxFuncOptions(0)), F::softmax(x, 0));
  EXPECT_TENSOR_EQ(F::log_softmax(x, F::LogSoftmaxFuncOptions(1)), F::log_softmax(x, 1));
  EXPECT_TENSOR_EQ(F::softmin(x, F::SoftminFuncOptions(1)), F::softmin(x, 1));
  // the options without a LibTorch struct keep their one form
  EXPECT_TENSOR_EQ(F::silu(x), torch::silu(x));
  EXPECT_TENSOR_EQ(F::mish(x), torch::mish(x));
  EXPECT_TENSOR_CLOSE(F::logsigmoid(x), torch::softplus(x.neg()).neg());  // log sigmoid(x) = -softplus(-x)
}

TEST(FuncOptionsActivations, Values) {
  const torch::Tensor x = torch::linspace(-3, 3, 13, torch::kDouble);
  const torch::Tensor zero = torch::zeros_like(x);
  EXPECT_TENSOR_CLOSE(F::elu(x, F::ELUFuncOptions().alpha(0.5)), torch::where(x > 0, x, (x.exp() - 1) * 0.5));
  EXPECT_TENSOR_CLOSE(F::celu(x, F::CELUFuncOptions().alpha(2.0)),
                      torch::maximum(x, zero) + torch::minimum(zero, ((x / 2).exp() - 1) * 2));
  EXPECT_TENSOR_CLOSE(F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2)), torch::where(x > 0, x, x * 0.2));
  EXPECT_TENSOR_CLOSE(F::hardtanh(x, F::HardtanhFuncOptions().min_val(-0.5).max_val(2.0)), x.clamp(-0.5, 2.0));
  EXPECT_TENSOR_CLOSE(F::threshold(x, F::ThresholdFuncOptions(0.5, -2.0)),
                      torch::where(x > 0.5, x, torch::full_like(x, -2.0)));
  EXPECT_TENSOR_CLOSE(F::hardshrink(x, F::HardshrinkFuncOptions(1.5)), torch::where(x.abs() > 1.5, x, zero));
  EXPECT_TENSOR_CLOSE(F::softplus(x, F::SoftplusFuncOptions().beta(2.0)), ((x * 2).exp() + 1).log() / 2);
  const torch::Tensor m = sample({3, 5});
  EXPECT_TENSOR_CLOSE(F::softmin(m, F::SoftminFuncOptions(1)), (-m).exp() / (-m).exp().sum(1, true));
  const torch::Tensor g = sample({3, 4});
  EXPECT_TENSOR_CLOSE(F::glu(g, F::GLUFuncOptions(1)), g.slice(1, 0, 2) * g.slice(1, 2, 4).sigmoid());
}

TEST(FuncOptionsActivations, SoftmaxDtype) {
  const torch::Tensor x = sample({3, 4}).to(torch::kFloat);
  const torch::Tensor s = F::softmax(x, F::SoftmaxFuncOptions(1).dtype(torch::kDouble));
  EXPECT_EQ(s.scalar_type(), torch::kDouble);
  EXPECT_TENSOR_EQ(s, F::softmax(x, 1, torch::kDouble));
  EXPECT_TENSOR_EQ(F::log_softmax(x, F::LogSoftmaxFuncOptions(0).dtype(torch::kDouble)),
                   torch::log_softmax(x, 0, torch::kDouble));
  EXPECT_TENSOR_EQ(F::softmin(x, F::SoftminFuncOptions(1).dtype(torch::kDouble)),
                   torch::softmax(-x, 1, torch::kDouble));
}

// Each inplace option writes the result into its input (the same tensor comes back), with the
// values and input gradients of the out-of-place call.
TEST(FuncOptionsActivations, Inplace) {
  using Fn = std::function<torch::Tensor(torch::Tensor, bool)>;
  const std::vector<std::pair<std::string, Fn>> fns = {
      {"relu", [](torch::Tensor t, bool ip) { return F::relu(t, F::ReLUFuncOptions().inplace(ip)); }},
      {"relu6", [](torch::Tensor t, bool ip) { return F::relu6(t * 4, F::ReLU6FuncOptions().inplace(ip)); }},
      {"selu", [](torch::Tensor t, bool ip) { return F::selu(t, F::SELUFuncOptions(ip)); }},
      {"elu", [](torch::Tensor t, bool ip) { return F::elu(t, F::ELUFuncOptions().alpha(0.5).inplace(ip)); }},
      {"celu", [](torch::Tensor t, bool ip) { return F::celu(t, F::CELUFuncOptions().alpha(2.0).inplace(ip)); }},
      {"leaky_relu",
       [](torch::Tensor t, bool ip) {
         return F::leaky_relu(t, F::LeakyReLUFuncOptions().negative_slope(0.2).inplace(ip));
       }},
      {"hardtanh",
       [](torch::Tensor t, bool ip) {
         return F::hardtanh(t, F::HardtanhFuncOptions().min_val(-0.5).max_val(0.7).inplace(ip));
       }},
      {"threshold",
       [](torch::Tensor t, bool ip) { return F::threshold(t, F::ThresholdFuncOptions(0.1, -2.0).inplace(ip)); }},
      {"rrelu_eval",
       [](torch::Tensor t, bool ip) { return F::rrelu(t, F::RReLUFuncOptions().lower(0.1).upper(0.3).inplace(ip)); }},
  };
  for (const auto& [name, fn] : fns) {
    SCOPED_TRACE(name);
    const torch::Tensor x = sample({5, 4}, 3);
    // values: the input is the result afterwards
    torch::Tensor y = x.clone() * 1;
    torch::Tensor expect = fn(x.clone(), false);
    torch::Tensor got = fn(y, true);
    EXPECT_TENSOR_EQ(got, expect);
    if (name != "relu6") {  // relu6's input here is the temporary t * 4
      EXPECT_EQ(got.data_ptr(), y.data_ptr());
      EXPECT_TENSOR_EQ(y, expect);
    }
    // gradients through the in-place op on a non-leaf
    torch::Tensor a = x.clone().requires_grad_(), b = x.clone().requires_grad_();
    fn(a.mul(1.5), true).mul(torch::arange(20, torch::kDouble).view({5, 4})).sum().backward();
    fn(b.mul(1.5), false).mul(torch::arange(20, torch::kDouble).view({5, 4})).sum().backward();
    EXPECT_TENSOR_CLOSE(a.grad(), b.grad());
  }
}

TEST(FuncOptionsActivations, RReLU) {
  const torch::Tensor x = sample({200});
  // evaluation: the mean slope
  EXPECT_TENSOR_CLOSE(F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3)), F::leaky_relu(x, 0.2));
  EXPECT_TENSOR_CLOSE(F::rrelu(x), F::leaky_relu(x, (1.0 / 8 + 1.0 / 3) / 2));
  // training: positives kept, each negative scaled by its own slope in [lower, upper]
  const torch::Tensor y = F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.3).training(true));
  EXPECT_TENSOR_EQ(torch::where(x > 0, y, zeros_like(y)), torch::where(x > 0, x, zeros_like(x)));
  const torch::Tensor ratio = y.masked_select(x < 0) / x.masked_select(x < 0);
  EXPECT_GE(ratio.min().item<double>(), 0.1);
  EXPECT_LE(ratio.max().item<double>(), 0.3);
  EXPECT_GT(ratio.std().item<double>(), 0.01);  // not one slope
  // its gradient is the slope drawn
  torch::Tensor a = x.clone().requires_grad_();
  torch::Tensor out = F::rrelu(a, F::RReLUFuncOptions().training(true));
  out.sum().backward();
  EXPECT_TENSOR_CLOSE(a.grad(), torch::where(x > 0, torch::ones_like(x), out.detach() / x));
  EXPECT_ERROR_WITH(F::rrelu(x, F::RReLUFuncOptions().lower(0.5).upper(0.1)), "lower bound");
}

TEST(FuncOptionsActivations, GumbelSoftmax) {
  const torch::Tensor logits = sample({4, 5});
  torch::manual_seed(7);
  const torch::Tensor e = torch::empty_like(logits).exponential_();
  const torch::Tensor expect = torch::softmax((logits - e.log()) / 0.5, 1);
  torch::manual_seed(7);
  const torch::Tensor soft = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().tau(0.5).dim(1));
  EXPECT_TENSOR_CLOSE(soft, expect);
  torch::manual_seed(7);
  torch::Tensor l = logits.clone().requires_grad_();
  const torch::Tensor hard = F::gumbel_softmax(l, F::GumbelSoftmaxFuncOptions().tau(0.5).hard(true));
  const torch::Tensor one_hot =
      torch::zeros_like(expect).scatter(1, std::get<1>(expect.max(1, true)), 1.0);
  EXPECT_TENSOR_CLOSE(hard, one_hot);
  // straight-through: the gradient is the soft sample's
  hard.mul(torch::arange(20, torch::kDouble).view({4, 5})).sum().backward();
  torch::Tensor l2 = logits.clone().requires_grad_();
  torch::softmax((l2 - e.log()) / 0.5, 1).mul(torch::arange(20, torch::kDouble).view({4, 5})).sum().backward();
  EXPECT_TENSOR_CLOSE(l.grad(), l2.grad());
}

}  // namespace
