// Autograd as LibTorch 1.13 programs use it: backward and gradient accumulation, retain_graph,
// torch::autograd::grad with create_graph for higher derivatives, the grad-mode guards,
// detach, tensor hooks, custom torch::autograd::Function subclasses, the saved-tensor version
// check and anomaly mode. Expected values are what LibTorch 1.13 computes.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

using torch::autograd::AutogradContext;
using torch::autograd::Variable;
using torch::autograd::variable_list;

namespace {

// y = x^3 with a hand-written backward, saving its input.
struct Cube : public torch::autograd::Function<Cube> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    auto saved = ctx->get_saved_variables();
    auto x = saved[0];
    return {grad_outputs[0] * 3 * x * x};
  }
};

// y = a * x + b where a is a plain double kept in saved_data; returns no grad for the double.
struct Affine : public torch::autograd::Function<Affine> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, double a, torch::Tensor b) {
    ctx->saved_data["a"] = a;
    ctx->saved_data["b_shape"] = b.sizes().vec();
    return x * a + b;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grad_outputs) {
    const double a = ctx->saved_data["a"].toDouble();
    auto g = grad_outputs[0];
    return {g * a, torch::Tensor(), g};
  }
};

// Two outputs, one marked non-differentiable.
struct SortWithIndices : public torch::autograd::Function<SortWithIndices> {
  static variable_list forward(AutogradContext* ctx, torch::Tensor x) {
    auto result = x.sort();
    auto values = std::get<0>(result);
    auto indices = std::get<1>(result);
    ctx->mark_non_differentiable({indices});
    ctx->save_for_backward({indices});
    ctx->saved_data["n"] = x.size(0);
    return {values, indices};
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    auto indices = ctx->get_saved_variables()[0];
    auto grad_in = torch::zeros({ctx->saved_data["n"].toInt()}, grads[0].options());
    grad_in.index_put_({indices}, grads[0]);
    return {grad_in};
  }
};

// Scales its input in place and reports which inputs need gradients.
std::vector<bool> g_needs_input_grad;

struct ScaleInPlace : public torch::autograd::Function<ScaleInPlace> {
  static torch::Tensor forward(AutogradContext* ctx, torch::Tensor x, torch::Tensor k) {
    ctx->saved_data["k"] = k.item<double>();
    g_needs_input_grad = {ctx->needs_input_grad(0), ctx->needs_input_grad(1)};
    x.mul_(k.item<double>());
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    return {grads[0] * ctx->saved_data["k"].toDouble(), torch::Tensor()};
  }
};

}  // namespace

TEST(AutogradUsage, BackwardOnScalarLoss) {
  auto x = torch::tensor({1.0, 2.0, 3.0}, torch::requires_grad());
  auto y = (x * x).sum();
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  EXPECT_TRUE(y.grad_fn() != nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  EXPECT_TRUE(x.grad_fn() == nullptr);
  y.backward();
  EXPECT_TRUE(x.grad().allclose(torch::tensor({2.0, 4.0, 6.0})));
  EXPECT_FALSE(x.grad().requires_grad());

  // a non-scalar output needs an explicit gradient
  auto z = x * 2;
  EXPECT_THROW(z.backward(), c10::Error);
  x.grad().zero_();
  z.backward(torch::ones_like(z));
  EXPECT_TRUE(x.grad().allclose(torch::full({3}, 2.0)));
}

TEST(AutogradUsage, GradientsAccumulateUntilZeroed) {
  auto w = torch::tensor({1.0f}, torch::requires_grad());
  for (int i = 0; i < 3; ++i) {
    auto loss = (w * 5).sum();
    loss.backward();
  }
  EXPECT_FLOAT_EQ(w.grad().item<float>(), 15.0f);
  w.grad().zero_();
  (w * w).sum().backward();
  EXPECT_FLOAT_EQ(w.grad().item<float>(), 2.0f);
  w.mutable_grad().reset();
  EXPECT_FALSE(w.grad().defined());
  // grad of a non-leaf is not kept unless retain_grad
  auto h = w * 3;
  h.retain_grad();
  (h * h).sum().backward();
  EXPECT_FLOAT_EQ(h.grad().item<float>(), 6.0f);
  EXPECT_FLOAT_EQ(w.grad().item<float>(), 18.0f);
  EXPECT_TRUE(h.retains_grad());
}

TEST(AutogradUsage, RetainGraphForSecondBackward) {
  auto x = torch::tensor({2.0}, torch::requires_grad());
  auto y = x.exp() * x;  // saves tensors
  y.backward({}, /*retain_graph=*/true);
  auto first = x.grad().clone();
  y.backward();
  EXPECT_TRUE(x.grad().allclose(first * 2));
  // a third call finds the buffers freed
  EXPECT_THROW(y.backward(), c10::Error);
  try {
    auto a = torch::tensor({1.0}, torch::requires_grad());
    auto b = (a * a).sum();
    b.backward();
    b.backward();
    FAIL();
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("Trying to backward through the graph a second time"), std::string::npos);
  }
}

TEST(AutogradUsage, GradFunctionAndHigherOrder) {
  auto x = torch::tensor({3.0}, torch::dtype(torch::kDouble).requires_grad(true));
  auto y = x.pow(3);
  auto dy = torch::autograd::grad({y}, {x}, {torch::ones_like(y)}, /*retain_graph=*/true, /*create_graph=*/true)[0];
  EXPECT_DOUBLE_EQ(dy.item<double>(), 27.0);
  EXPECT_TRUE(dy.requires_grad());
  auto d2y = torch::autograd::grad({dy}, {x}, {}, c10::nullopt, true)[0];
  EXPECT_DOUBLE_EQ(d2y.item<double>(), 18.0);
  auto d3y = torch::autograd::grad({d2y}, {x})[0];
  EXPECT_DOUBLE_EQ(d3y.item<double>(), 6.0);
  EXPECT_FALSE(x.grad().defined());  // autograd::grad does not touch .grad()

  // gradients for several inputs, with allow_unused
  auto a = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto b = torch::tensor({3.0, 4.0}, torch::requires_grad());
  auto unused = torch::tensor({0.0}, torch::requires_grad());
  auto out = (a * b).sum();
  auto grads = torch::autograd::grad({out}, {a, b, unused}, {}, c10::nullopt, false, /*allow_unused=*/true);
  ASSERT_EQ(grads.size(), 3u);
  EXPECT_TRUE(grads[0].equal(b));
  EXPECT_TRUE(grads[1].equal(a));
  EXPECT_FALSE(grads[2].defined());
  auto out2 = (a * b).sum();
  EXPECT_THROW(torch::autograd::grad({out2}, {unused}), c10::Error);
}

TEST(AutogradUsage, GradientPenaltyStyle) {
  // the WGAN-GP pattern: the norm of input gradients becomes part of the loss
  torch::manual_seed(0);
  auto lin = torch::nn::Linear(3, 1);
  auto inp = torch::randn({4, 3}, torch::requires_grad());
  auto out = lin(inp);
  auto g = torch::autograd::grad({out}, {inp}, {torch::ones_like(out)}, true, true)[0];
  auto penalty = (g.norm(2, 1) - 1).pow(2).mean();
  penalty.backward();
  EXPECT_TRUE(lin->weight.grad().defined());
  EXPECT_EQ(lin->weight.grad().sizes(), (std::vector<int64_t>{1, 3}));
  // every row of g is the weight row
  EXPECT_TRUE(g[0].allclose(lin->weight[0]));
}

TEST(AutogradUsage, GradModeGuards) {
  auto x = torch::ones({2}, torch::requires_grad());
  {
    torch::NoGradGuard no_grad;
    EXPECT_FALSE(torch::GradMode::is_enabled());
    auto y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    x.add_(1);  // in-place on a leaf is fine without grad mode
  }
  EXPECT_TRUE(torch::GradMode::is_enabled());
  EXPECT_TRUE(x.equal(torch::full({2}, 2.0f)));
  {
    torch::AutoGradMode enable(false);
    EXPECT_FALSE((x * 2).requires_grad());
    {
      torch::AutoGradMode reenable(true);
      EXPECT_TRUE((x * 2).requires_grad());
    }
  }
  torch::GradMode::set_enabled(false);
  EXPECT_FALSE((x + 1).requires_grad());
  torch::GradMode::set_enabled(true);
  {
    c10::InferenceMode guard;
    auto y = x * 3;
    EXPECT_FALSE(y.requires_grad());
    EXPECT_TRUE(y.is_inference());
  }
  {
    c10::InferenceMode off(false);
    EXPECT_FALSE(c10::InferenceMode::is_enabled());
  }
}

TEST(AutogradUsage, DetachAndRequiresGrad) {
  auto x = torch::tensor({1.0f, 2.0f}, torch::requires_grad());
  auto y = x * 2;
  auto d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());  // shares storage
  auto z = (d * x).sum();
  z.backward();
  EXPECT_TRUE(x.grad().equal(torch::tensor({2.0f, 4.0f})));

  auto leaf = torch::zeros({2});
  EXPECT_FALSE(leaf.requires_grad());
  leaf.requires_grad_(true);
  EXPECT_TRUE(leaf.requires_grad());
  leaf.set_requires_grad(false);
  EXPECT_FALSE(leaf.requires_grad());
  EXPECT_THROW(y.requires_grad_(false), std::runtime_error);  // only leaves can change it (not a c10::Error)

  auto data = x.data();
  EXPECT_FALSE(data.requires_grad());
  auto v = y.variable_data();
  EXPECT_FALSE(v.requires_grad());
  auto det = y.detach_();
  EXPECT_FALSE(y.requires_grad());
  EXPECT_TRUE(det.is_same(y));
}

TEST(AutogradUsage, TensorHooks) {
  auto x = torch::tensor({1.0, 2.0}, torch::requires_grad());
  std::vector<double> seen;
  auto handle = x.register_hook([&](torch::Tensor grad) { seen.push_back(grad.sum().item<double>()); });
  (x * 3).sum().backward();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_DOUBLE_EQ(seen[0], 6.0);
  x.remove_hook(handle);
  (x * 3).sum().backward();
  EXPECT_EQ(seen.size(), 1u);

  // a hook that returns a tensor replaces the gradient
  auto w = torch::tensor({1.0, 1.0}, torch::requires_grad());
  w.register_hook([](torch::Tensor grad) { return grad * 10; });
  (w * torch::tensor({1.0, 2.0})).sum().backward();
  EXPECT_TRUE(w.grad().allclose(torch::tensor({10.0, 20.0})));

  // hooks on intermediate tensors
  auto a = torch::tensor({2.0}, torch::requires_grad());
  auto b = a * a;
  torch::Tensor captured;
  b.register_hook([&](torch::Tensor g) { captured = g.clone(); });
  (b * 5).backward();
  EXPECT_DOUBLE_EQ(captured.item<float>(), 5.0);
  EXPECT_DOUBLE_EQ(a.grad().item<float>(), 20.0);
  auto no_grad_tensor = torch::ones({1});
  EXPECT_THROW(no_grad_tensor.register_hook([](torch::Tensor g) {}), c10::Error);
}

TEST(AutogradUsage, CustomFunctionWithSavedTensors) {
  auto x = torch::tensor({1.0, 2.0, -3.0}, torch::dtype(torch::kDouble).requires_grad(true));
  auto y = Cube::apply(x);
  EXPECT_TRUE(y.allclose(torch::tensor({1.0, 8.0, -27.0}, torch::kDouble)));
  EXPECT_TRUE(y.requires_grad());
  EXPECT_NE(y.grad_fn()->name().find("Cube"), std::string::npos);
  y.sum().backward();
  EXPECT_TRUE(x.grad().allclose(torch::tensor({3.0, 12.0, 27.0}, torch::kDouble)));
  // matches builtin autograd
  auto x2 = x.detach().clone().requires_grad_(true);
  x2.pow(3).sum().backward();
  EXPECT_TRUE(x2.grad().allclose(x.grad()));

  // no grad tracking when the input does not require grad
  auto plain = Cube::apply(torch::tensor({2.0}));
  EXPECT_FALSE(plain.requires_grad());
}

TEST(AutogradUsage, CustomFunctionWithNonTensorArguments) {
  auto x = torch::tensor({1.0f, 2.0f}, torch::requires_grad());
  auto b = torch::tensor({0.5f, 0.5f}, torch::requires_grad());
  auto y = Affine::apply(x, 4.0, b);
  EXPECT_TRUE(y.equal(torch::tensor({4.5f, 8.5f})));
  (y * torch::tensor({1.0f, 2.0f})).sum().backward();
  EXPECT_TRUE(x.grad().equal(torch::tensor({4.0f, 8.0f})));
  EXPECT_TRUE(b.grad().equal(torch::tensor({1.0f, 2.0f})));

  auto v = torch::tensor({3.0f, 1.0f, 2.0f}, torch::requires_grad());
  auto outs = SortWithIndices::apply(v);
  ASSERT_EQ(outs.size(), 2u);
  EXPECT_TRUE(outs[0].equal(torch::tensor({1.0f, 2.0f, 3.0f})));
  EXPECT_FALSE(outs[1].requires_grad());
  (outs[0] * torch::tensor({1.0f, 10.0f, 100.0f})).sum().backward();
  EXPECT_TRUE(v.grad().equal(torch::tensor({100.0f, 1.0f, 10.0f})));
}

TEST(AutogradUsage, InPlaceModificationOfSavedTensorIsDetected) {
  auto a = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto b = a * 2;
  auto c = b.sigmoid();  // sigmoid saves its output
  EXPECT_EQ(c._version(), 0u);
  c.mul_(2);
  EXPECT_EQ(c._version(), 1u);
  try {
    c.sum().backward();
    FAIL() << "expected a version counter error";
  } catch (const c10::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("one of the variables needed for gradient computation has been modified by an inplace operation"),
              std::string::npos);
  }
  // in-place on a leaf that requires grad is refused outright
  EXPECT_THROW(a.add_(1), c10::Error);
  // but in-place ops on intermediates that are not saved are fine
  auto d = a * 3;
  d.add_(1);
  d.sum().backward();
  EXPECT_TRUE(a.grad().equal(torch::tensor({3.0f, 3.0f})));
}

TEST(AutogradUsage, AnomalyModeAndVariables) {
  EXPECT_FALSE(torch::autograd::AnomalyMode::is_enabled());
  {
    torch::autograd::DetectAnomalyGuard guard;
    EXPECT_TRUE(torch::autograd::AnomalyMode::is_enabled());
    auto x = torch::tensor({-1.0}, torch::requires_grad());
    auto y = x.sqrt();  // nan
    try {
      y.backward();
      FAIL() << "anomaly mode should reject the nan gradient";
    } catch (const std::exception& e) {
      EXPECT_EQ(std::string(e.what()), "Function 'SqrtBackward0' returned nan values in its 0th output.");
    }
  }
  EXPECT_FALSE(torch::autograd::AnomalyMode::is_enabled());

  Variable v = torch::randn({2, 2}).set_requires_grad(true);
  torch::Tensor t = v;  // Variable is just Tensor
  EXPECT_TRUE(t.requires_grad());
  variable_list vars{v, v * 2};
  EXPECT_EQ(vars.size(), 2u);
  EXPECT_TRUE(vars[1].grad_fn() != nullptr);
  auto edges = vars[1].grad_fn()->next_edges();
  EXPECT_EQ(edges.size(), 1u);  // multiplying by a Scalar has one input edge
  EXPECT_EQ(vars[1].grad_fn()->name(), "MulBackward1");
  auto prod = v * v;
  EXPECT_EQ(prod.grad_fn()->name(), "MulBackward0");
  EXPECT_EQ(prod.grad_fn()->next_edges().size(), 2u);
  // Scalar overloads have their own node names and one edge, as LibTorch records them.
  const std::vector<std::pair<torch::Tensor, std::string>> named = {
      {v + 2, "AddBackward1"}, {v - 2, "SubBackward1"}, {torch::rsub(v, 2), "RsubBackward1"},
      {v / 2, "DivBackward1"}, {v.pow(2), "PowBackward0"}, {v.clamp(0), "ClampBackward1"}};
  for (const auto& [r, name] : named) {
    EXPECT_EQ(r.grad_fn()->name(), name);
    EXPECT_EQ(r.grad_fn()->next_edges().size(), 1u) << name;
  }
  auto u = torch::ones({3}, torch::requires_grad());
  torch::rsub(u, 2, /*alpha=*/3).sum().backward();  // 2 - 3u
  EXPECT_TRUE(u.grad().allclose(torch::full({3}, -3.0)));
  // 2 - v wraps the 2 in a tensor: a Tensor-Tensor subtraction.
  EXPECT_EQ((2 - v).grad_fn()->name(), "SubBackward0");
  EXPECT_EQ((2 - v).grad_fn()->next_edges().size(), 2u);
}

TEST(AutogradUsage, BackwardWithInputsArgument) {
  auto a = torch::tensor({1.0}, torch::requires_grad());
  auto b = torch::tensor({2.0}, torch::requires_grad());
  auto out = (a * b).sum();
  out.backward({}, /*retain_graph=*/c10::nullopt, /*create_graph=*/false, /*inputs=*/{a});
  EXPECT_TRUE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
  torch::autograd::backward({(a * b * b).sum()});
  EXPECT_FLOAT_EQ(a.grad().item<float>(), 2.0f + 4.0f);
  EXPECT_FLOAT_EQ(b.grad().item<float>(), 4.0f);
}

TEST(AutogradUsage, CustomInPlaceFunctionMarksDirty) {
  auto leaf = torch::tensor({1.0, 2.0}, torch::requires_grad());
  auto x = leaf * 1;  // a non-leaf that may be modified in place
  auto k = torch::tensor(3.0);
  auto y = ScaleInPlace::apply(x, k);
  EXPECT_TRUE(y.is_same(x));
  EXPECT_EQ(g_needs_input_grad, (std::vector<bool>{true, false}));
  EXPECT_TRUE(x.equal(torch::tensor({3.0f, 6.0f})));
  EXPECT_GE(x._version(), 1u);
  y.sum().backward();
  EXPECT_TRUE(leaf.grad().equal(torch::tensor({3.0f, 3.0f})));
  EXPECT_NE(y.grad_fn()->name().find("ScaleInPlace"), std::string::npos);
}
