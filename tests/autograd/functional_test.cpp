// Custom autograd functions, the functional transforms and gradcheck itself (it must
// catch a wrong derivative, not only pass right ones).
#include <cmath>

#include "test_util.h"

namespace ember::test {
namespace {

using autograd::AutogradContext;
using autograd::variable_list;
namespace F = autograd::functional;

// y = x * k, with a deliberately checkable backward and jvp.
struct Scale : autograd::Function<Scale> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x, double k) {
    ctx->saved_data["k"] = k;
    ctx->save_for_backward({x});
    return x.mul(k);
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    EXPECT_EQ(ctx->get_saved_variables().size(), 1u);
    return {g[0].mul(ctx->saved_data["k"].toDouble()), Tensor()};
  }
  static variable_list jvp(AutogradContext* ctx, variable_list t) { return {t[0].mul(ctx->saved_data["k"].toDouble())}; }
};

// Two outputs, one non-differentiable; saves an output.
struct ExpAndSign : autograd::Function<ExpAndSign> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x) {
    Tensor e = x.exp();
    Tensor s = x.sign();
    ctx->save_for_backward({e});
    ctx->mark_non_differentiable({s});
    return {e, s};
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0].mul(ctx->get_saved_variables()[0])};
  }
};

// Modifies its input in place.
struct DoubleInplace : autograd::Function<DoubleInplace> {
  static Tensor forward(AutogradContext* ctx, Tensor x) {
    x.mul_(2);
    ctx->mark_dirty({x});
    return x;
  }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0].mul(2)}; }
};

// A wrong derivative, for gradcheck to catch.
struct BadSquare : autograd::Function<BadSquare> {
  static Tensor forward(AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x.square();
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    return {g[0].mul(ctx->get_saved_variables()[0]).mul(2.01)};
  }
};

TEST(CustomFunction, BackwardJvpAndSavedData) {
  Tensor x = randn({3}, dtype(kDouble)).requires_grad_();
  Tensor y = Scale::apply(x, 3.0);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_NE(y.grad_fn()->name().find("Scale"), std::string::npos);
  y.sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), full({3}, 3.0, dtype(kDouble)));
  {
    autograd::forward_ad::dual_level level;
    Tensor d = autograd::forward_ad::make_dual(x.detach(), ones({3}, dtype(kDouble)));
    EXPECT_TENSOR_CLOSE(autograd::forward_ad::unpack_dual(Scale::apply(d, 3.0)).tangent, full({3}, 3.0, dtype(kDouble)));
    // A function without jvp says so.
    EXPECT_ERROR_WITH(ExpAndSign::apply(d), "not implemented the jvp function");
  }
}

TEST(CustomFunction, OutputsNonDifferentiableAndDirty) {
  Tensor x = randn({4}, dtype(kDouble)).requires_grad_();
  variable_list r = ExpAndSign::apply(x);
  EXPECT_TRUE(r[0].requires_grad());
  EXPECT_FALSE(r[1].requires_grad());
  r[0].sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), x.detach().exp());
  Tensor a = randn({3}, dtype(kDouble)).requires_grad_();
  Tensor b = a.mul(1);
  Tensor c = DoubleInplace::apply(b);
  EXPECT_TRUE(c.is_same(b));
  c.sum().backward();
  EXPECT_TENSOR_CLOSE(a.grad(), full({3}, 2.0, dtype(kDouble)));
  EXPECT_TRUE(autograd::gradcheck([](const variable_list& v) { return ExpAndSign::apply(v[0]); },
                                  {randn({3}, dtype(kDouble)).requires_grad_()}));
}

// Two outputs; backward sees undefined gradients for unused outputs when materialization
// is off.
struct TwoOut : autograd::Function<TwoOut> {
  static variable_list forward(AutogradContext* ctx, const Tensor& x) {
    ctx->set_materialize_grads(false);
    return {x.mul(2), x.mul(3)};
  }
  static variable_list backward(AutogradContext*, variable_list g) {
    EXPECT_TRUE(g[0].defined());
    EXPECT_FALSE(g[1].defined());  // output 1 was not used
    return {g[0].mul(2)};
  }
};
struct WrongCount : autograd::Function<WrongCount> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return x.mul(1); }
  static variable_list backward(AutogradContext*, variable_list g) { return {g[0], g[0]}; }
};

TEST(CustomFunction, MaterializeGradsAndGradientCount) {
  Tensor x = randn({3}, dtype(kDouble)).requires_grad_();
  TwoOut::apply(x)[0].sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), full({3}, 2.0, dtype(kDouble)));
  EXPECT_ERROR_WITH(WrongCount::apply(x).sum().backward(), "returned an incorrect number of gradients (expected 1, got 2)");
}

TEST(Functional, CreateGraphKeepsTheResultDifferentiable) {
  Tensor x = tensor({0.5, 1.5}, dtype(kDouble)).requires_grad_();
  auto f = [](const variable_list& v) { return variable_list{v[0].pow(3)}; };
  auto [out, g] = F::vjp(f, {x}, {ones({2}, dtype(kDouble))}, /*create_graph=*/true);
  ASSERT_TRUE(g[0].requires_grad());  // 3 x^2, still a function of x
  Tensor gg = autograd::grad({g[0].sum()}, {x})[0];
  EXPECT_TENSOR_CLOSE(gg, x.detach().mul(6));
}

TEST(Gradcheck, CatchesAWrongDerivativeAndPassesRightOnes) {
  Tensor x = randn({4}, dtype(kDouble)).requires_grad_();
  autograd::GradcheckOptions quiet;
  quiet.raise_exception = false;
  EXPECT_FALSE(autograd::gradcheck([](const variable_list& v) { return variable_list{BadSquare::apply(v[0])}; }, {x},
                                   quiet));
  quiet.fast_mode = true;
  EXPECT_FALSE(autograd::gradcheck([](const variable_list& v) { return variable_list{BadSquare::apply(v[0])}; }, {x},
                                   quiet));
  EXPECT_ERROR_WITH(
      autograd::gradcheck([](const variable_list& v) { return variable_list{BadSquare::apply(v[0])}; }, {x}),
      "Jacobian mismatch");
  autograd::GradcheckOptions both;
  both.check_forward_ad = true;
  auto f = [](const variable_list& v) { return variable_list{v[0].mul(v[1]).sin().add(v[1].exp()), v[0].tanh()}; };
  Tensor a = randn({2, 3}, dtype(kDouble)).requires_grad_(), b = randn({3}, dtype(kDouble)).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(f, {a, b}, both));
  both.fast_mode = true;
  EXPECT_TRUE(autograd::gradcheck(f, {a, b}, both));
  EXPECT_TRUE(autograd::gradgradcheck(f, {a, b}));
  // complex inputs and outputs
  Tensor z = view_as_complex(randn({3, 2}, dtype(kDouble))).requires_grad_();
  auto g = [](const variable_list& v) { return variable_list{v[0].mul(v[0]).exp(), v[0].abs()}; };
  autograd::GradcheckOptions fw;
  fw.check_forward_ad = true;
  EXPECT_TRUE(autograd::gradcheck(g, {z}, fw));
  EXPECT_TRUE(autograd::gradgradcheck(g, {z}));
  EXPECT_ERROR_WITH(autograd::gradcheck(g, {randn({2}, dtype(kDouble))}), "requires_grad=True");
}

TEST(Functional, VjpJvpJacobianHessian) {
  Tensor x = tensor({0.5, -1.0, 2.0}, dtype(kDouble));
  auto f = [](const variable_list& v) { return variable_list{v[0].square().mul(v[0].sin())}; };
  // f'(x) = 2x sin x + x^2 cos x, elementwise
  Tensor d = x.mul(2).mul(x.sin()).add(x.square().mul(x.cos()));
  auto [out, vj] = F::vjp(f, {x}, {ones({3}, dtype(kDouble))});
  EXPECT_TENSOR_CLOSE(out[0], x.square().mul(x.sin()));
  EXPECT_TENSOR_CLOSE(vj[0], d);
  EXPECT_FALSE(vj[0].requires_grad());
  Tensor v = tensor({1.0, 2.0, -1.0}, dtype(kDouble));
  EXPECT_TENSOR_CLOSE(F::jvp(f, {x}, {v}).second[0], d.mul(v));
  for (const char* strategy : {"reverse-mode", "forward-mode"}) {
    SCOPED_TRACE(strategy);
    auto J = F::jacobian(f, {x}, false, false, strategy);
    EXPECT_TENSOR_CLOSE(J[0][0], diag(d));
  }
  EXPECT_ERROR_WITH(F::jacobian(f, {x}, false, false, "sideways"), "strategy");
  // Hessian of sum(x^3) + x0 x1
  auto s = [](const variable_list& v) { return v[0].pow(3).sum().add(v[0][0].mul(v[0][1])); };
  Tensor H = F::hessian(s, {x})[0][0];
  Tensor expect = diag(x.mul(6));
  expect[0][1].fill_(1);
  expect[1][0].fill_(1);
  EXPECT_TENSOR_CLOSE(H, expect);
  EXPECT_TENSOR_CLOSE(F::hvp(s, {x}, {v}).second[0], expect.mv(v));
  EXPECT_TENSOR_CLOSE(F::vhp(s, {x}, {v}).second[0], expect.mv(v));
  EXPECT_TENSOR_CLOSE(F::hessian(s, {x}, false, false, "forward-mode")[0][0], expect);
  // strict mode: an output independent of an input
  auto g = [](const variable_list& v) { return variable_list{v[0].mul(2)}; };
  EXPECT_ERROR_WITH(F::vjp(g, {x, x}, {ones({3}, dtype(kDouble))}, false, true), "independent of input 1");
  EXPECT_TENSOR_EQ(F::vjp(g, {x, x}, {ones({3}, dtype(kDouble))}).second[1], zeros({3}, dtype(kDouble)));
}

}  // namespace
}  // namespace ember::test
