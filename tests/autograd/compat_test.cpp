// LibTorch's C++ autograd API as typical programs use it, compiled unchanged through
// compat/torch/torch.h (the same code builds against LibTorch).
#include <torch/torch.h>

#include <gtest/gtest.h>

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// The custom-function example from LibTorch's documentation, in its shape.
class LinearFunction : public torch::autograd::Function<LinearFunction> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor input, torch::Tensor weight,
                               torch::Tensor bias = torch::Tensor()) {
    ctx->save_for_backward({input, weight, bias});
    auto output = input.mm(weight.t());
    if (bias.defined()) output += bias.unsqueeze(0).expand_as(output);
    return output;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto input = saved[0], weight = saved[1], bias = saved[2];
    auto grad_output = grad_outputs[0];
    auto grad_input = grad_output.mm(weight);
    auto grad_weight = grad_output.t().mm(input);
    auto grad_bias = torch::Tensor();
    if (bias.defined()) grad_bias = grad_output.sum(0);
    return {grad_input, grad_weight, grad_bias};
  }
};

class MulConstant : public torch::autograd::Function<MulConstant> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor tensor, double constant) {
    ctx->saved_data["constant"] = constant;
    return tensor * constant;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    return {grad_outputs[0] * ctx->saved_data["constant"].toDouble(), torch::Tensor()};
  }
};

TEST(LibTorchCompat, CustomFunctionsFromTheDocs) {
  auto x = torch::randn({2, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  auto weight = torch::randn({4, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  auto y = LinearFunction::apply(x, weight);
  y.sum().backward();
  EXPECT_TRUE(x.grad().allclose(torch::ones({2, 4}, torch::kDouble).mm(weight.detach())));
  auto z = MulConstant::apply(x, 5.5);
  z.sum().backward();
  EXPECT_TRUE(x.grad().defined());
}

TEST(LibTorchCompat, GradHooksGuardsAndModes) {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto y = x * x;
  int called = 0;
  y.register_hook([&](torch::Tensor g) {
    ++called;
    return g * 2;
  });
  auto grads = torch::autograd::grad({y.sum()}, {x}, /*grad_outputs=*/{}, /*retain_graph=*/true,
                                     /*create_graph=*/true);
  EXPECT_EQ(called, 1);
  EXPECT_TRUE(grads[0].allclose(x.detach() * 4));
  auto gg = torch::autograd::grad({grads[0].sum()}, {x});
  EXPECT_TRUE(gg[0].allclose(torch::full({2}, 4.0)));
  {
    torch::NoGradGuard no_grad;
    EXPECT_FALSE(torch::autograd::GradMode::is_enabled());
    EXPECT_FALSE((x * 2).requires_grad());
  }
  {
    c10::InferenceMode guard;
    EXPECT_FALSE((x * 2).requires_grad());
  }
  {
    at::AutoGradMode off(false);
    EXPECT_FALSE((x + 1).requires_grad());
  }
  torch::autograd::backward({(x * 3).sum()});
  EXPECT_TRUE(x.grad().allclose(torch::full({2}, 3.0)));
  EXPECT_EQ((x * 3).grad_fn()->name(), "MulBackward1");
  EXPECT_TRUE(x.is_leaf());
  x.mutable_grad().zero_();
  torch::autograd::DetectAnomalyGuard anomaly;
  (x.exp()).sum().backward();
  EXPECT_TRUE(x.grad().allclose(x.detach().exp()));
}

}  // namespace
