// Reverse and forward mode: gradients against central finite differences in double,
// graph semantics (leaves, accumulation, retain_graph, hooks, retain_grad, grad modes,
// version counters, views and in-place history) and the error cases.
#include <cmath>
#include <functional>
#include <thread>

#include "test_util.h"

namespace ember::test {
namespace {

using autograd::variable_list;
namespace fwd = autograd::forward_ad;

// d sum(f(x) * w) / dx by central differences, for a fixed random weight w.
Tensor numeric_grad(const std::function<Tensor(const Tensor&)>& f, const Tensor& x, const Tensor& w,
                    double eps = 1e-6) {
  NoGradGuard no_grad;
  Tensor g = zeros_like(x);
  Tensor xf = x.clone();
  Tensor flat = xf.view({-1});
  Tensor gflat = g.view({-1});
  for (int64_t i = 0; i < flat.numel(); ++i) {
    double v = flat[i].item<double>();
    flat[i].fill_(v + eps);
    double up = f(xf).mul(w).sum().item<double>();
    flat[i].fill_(v - eps);
    double down = f(xf).mul(w).sum().item<double>();
    flat[i].fill_(v);
    gflat[i].fill_((up - down) / (2 * eps));
  }
  return g;
}

void check_unary(const char* name, const std::function<Tensor(const Tensor&)>& f, Tensor x) {
  SCOPED_TRACE(name);
  x = x.to(kDouble);
  Tensor w = randn(f(x).sizes(), dtype(kDouble));
  Tensor leaf = x.clone().requires_grad_();
  Tensor y = f(leaf);
  ASSERT_TRUE(y.requires_grad());
  y.mul(w).sum().backward();
  ASSERT_TRUE(leaf.grad().defined());
  EXPECT_TENSOR_CLOSE(leaf.grad(), numeric_grad(f, x, w), 1e-5, 1e-6);
  // Forward mode: the jvp along a random direction matches the directional difference.
  Tensor v = randn(x.sizes(), dtype(kDouble));
  Tensor jvp;
  {
    fwd::dual_level level;
    Tensor dual = fwd::make_dual(x, v);
    jvp = fwd::unpack_dual(f(dual)).tangent;
  }
  ASSERT_TRUE(jvp.defined());
  Tensor expect;
  {
    NoGradGuard g;
    expect = f(x.add(v, 1e-6)).sub(f(x.sub(v, 1e-6))).div(2e-6);
  }
  EXPECT_TENSOR_CLOSE(jvp, expect, 1e-5, 1e-6);
}

TEST(Autograd, UnaryPointwiseMatchFiniteDifferences) {
  manual_seed(0);
  Tensor pos = rand({3, 4}, dtype(kDouble)).add(0.2);  // (0.2, 1.2)
  Tensor any = randn({3, 4}, dtype(kDouble));
  Tensor unit = rand({3, 4}, dtype(kDouble)).mul(1.6).sub(0.8);  // (-0.8, 0.8)
  check_unary("exp", [](const Tensor& t) { return t.exp(); }, any);
  check_unary("log", [](const Tensor& t) { return t.log(); }, pos);
  check_unary("sqrt", [](const Tensor& t) { return t.sqrt(); }, pos);
  check_unary("rsqrt", [](const Tensor& t) { return t.rsqrt(); }, pos);
  check_unary("sin", [](const Tensor& t) { return t.sin(); }, any);
  check_unary("cos", [](const Tensor& t) { return t.cos(); }, any);
  check_unary("tan", [](const Tensor& t) { return t.tan(); }, unit);
  check_unary("tanh", [](const Tensor& t) { return t.tanh(); }, any);
  check_unary("sigmoid", [](const Tensor& t) { return t.sigmoid(); }, any);
  check_unary("asin", [](const Tensor& t) { return t.asin(); }, unit);
  check_unary("acos", [](const Tensor& t) { return t.acos(); }, unit);
  check_unary("atan", [](const Tensor& t) { return t.atan(); }, any);
  check_unary("erf", [](const Tensor& t) { return t.erf(); }, any);
  check_unary("erfinv", [](const Tensor& t) { return t.erfinv(); }, unit);
  check_unary("lgamma", [](const Tensor& t) { return t.lgamma(); }, pos);
  check_unary("reciprocal", [](const Tensor& t) { return t.reciprocal(); }, pos);
  check_unary("square", [](const Tensor& t) { return t.square(); }, any);
  check_unary("abs", [](const Tensor& t) { return t.abs(); }, any);
  check_unary("neg", [](const Tensor& t) { return t.neg(); }, any);
  check_unary("log1p", [](const Tensor& t) { return t.log1p(); }, pos);
  check_unary("expm1", [](const Tensor& t) { return t.expm1(); }, any);
  check_unary("silu", [](const Tensor& t) { return silu(t); }, any);
  check_unary("gelu", [](const Tensor& t) { return gelu(t); }, any);
  check_unary("gelu tanh", [](const Tensor& t) { return gelu(t, "tanh"); }, any);
  check_unary("softplus", [](const Tensor& t) { return softplus(t, 2, 20); }, any);
  check_unary("elu", [](const Tensor& t) { return elu(t); }, any);
  check_unary("mish", [](const Tensor& t) { return mish(t); }, any);
  check_unary("leaky_relu", [](const Tensor& t) { return leaky_relu(t, 0.1); }, any);
  check_unary("pow scalar", [](const Tensor& t) { return t.pow(3); }, any);
  check_unary("clamp", [](const Tensor& t) { return t.clamp(-0.5, 0.5); }, any);
  check_unary("sum", [](const Tensor& t) { return t.sum(); }, any);
  check_unary("sum dim", [](const Tensor& t) { return t.sum(1); }, any);
  check_unary("mean keepdim", [](const Tensor& t) { return t.mean(0, true); }, any);
  check_unary("transpose", [](const Tensor& t) { return t.t().mul(t.t()); }, any);
  check_unary("select/slice", [](const Tensor& t) { return t.select(0, 1).mul(t.narrow(0, 0, 1).squeeze(0)); }, any);
  check_unary("expand", [](const Tensor& t) { return t.unsqueeze(0).expand({2, 3, 4}).mul(2); }, any);
  check_unary("reshape", [](const Tensor& t) { return t.reshape({4, 3}).exp(); }, any);
}

TEST(Autograd, BinaryOpsAndBroadcasting) {
  manual_seed(1);
  Tensor a = randn({3, 4}, dtype(kDouble)), b = randn({4}, dtype(kDouble)).abs().add(0.5);
  auto both = [&](const char* name, const std::function<Tensor(const Tensor&, const Tensor&)>& f) {
    check_unary(detail::str_cat(name, " lhs").c_str(), [&](const Tensor& t) { return f(t, b); }, a);
    check_unary(detail::str_cat(name, " rhs (broadcast)").c_str(), [&](const Tensor& t) { return f(a, t); }, b);
  };
  both("add", [](const Tensor& x, const Tensor& y) { return x.add(y, 2.5); });
  both("sub", [](const Tensor& x, const Tensor& y) { return x.sub(y, 0.5); });
  both("mul", [](const Tensor& x, const Tensor& y) { return x.mul(y); });
  both("div", [](const Tensor& x, const Tensor& y) { return x.div(y); });
  both("pow", [](const Tensor& x, const Tensor& y) { return x.abs().add(0.1).pow(y); });
  both("atan2", [](const Tensor& x, const Tensor& y) { return atan2(x, y); });
  both("maximum", [](const Tensor& x, const Tensor& y) { return maximum(x, y); });
  both("hypot", [](const Tensor& x, const Tensor& y) { return hypot(x, y); });
  both("mm", [](const Tensor& x, const Tensor& y) { return x.mm(y.unsqueeze(1).expand({4, 2})); });
  both("matmul batched", [](const Tensor& x, const Tensor& y) {
    return matmul(x.unsqueeze(0).expand({2, 3, 4}), y.unsqueeze(1).expand({4, 5}));
  });
}

TEST(Autograd, ReducedPrecisionGradientsMatchFloat) {
  // bf16 / half leaves get gradients of their own dtype, close to the float computation.
  manual_seed(3);
  Tensor w0 = randn({8, 8}), x0 = randn({4, 8});
  auto loss = [](const Tensor& w, const Tensor& x) { return softmax(x.mm(w).tanh(), 1).mul(x.sum(1, true)).sum(); };
  Tensor wf = w0.clone().requires_grad_();
  loss(wf, x0).backward();
  for (ScalarType dt : {kBFloat16, kHalf}) {
    SCOPED_TRACE(torch_name(dt));
    Tensor w = w0.to(dt).requires_grad_();
    loss(w, x0.to(dt)).backward();
    ASSERT_TRUE(w.grad().defined());
    EXPECT_EQ(w.grad().scalar_type(), dt);
    EXPECT_TENSOR_CLOSE(w.grad().to(kFloat), wf.grad(), 0.1, 0.05);
    // forward mode in reduced precision
    autograd::forward_ad::dual_level level;
    Tensor d = autograd::forward_ad::make_dual(x0.to(dt), ones({4, 8}, dtype(dt)));
    Tensor t = autograd::forward_ad::unpack_dual(d.exp()).tangent;
    EXPECT_EQ(t.scalar_type(), dt);
    EXPECT_TENSOR_CLOSE(t.to(kFloat), x0.exp(), 0.02, 0.02);
  }
}

TEST(Autograd, ComplexGradientsFollowPyTorchConvention) {
  // For L = sum(|z|^2 * w) (real), PyTorch's gradient is dL/dconj(z) * 2 = 2 w z.
  Tensor z0 = view_as_complex(randn({5, 2}, dtype(kDouble)));
  Tensor w = rand({5}, dtype(kDouble));
  Tensor z = z0.clone().requires_grad_();
  z.mul(z.conj()).real().mul(w).sum().backward();
  EXPECT_TENSOR_CLOSE(z.grad(), z0.mul(w).mul(2));
  // Holomorphic f = exp: grad = grad_out * conj(exp(z)).
  Tensor z2 = z0.clone().requires_grad_();
  Tensor go = view_as_complex(randn({5, 2}, dtype(kDouble)));
  z2.exp().backward(go);
  EXPECT_TENSOR_CLOSE(z2.grad(), go.mul(z0.exp().conj()));
}

TEST(Autograd, LeavesAccumulateAndGraphsAreFreed) {
  Tensor x = tensor({1.0, 2.0, 3.0}, dtype(kDouble).requires_grad(true));
  EXPECT_TRUE(x.is_leaf());
  Tensor y = x.mul(x).sum();
  EXPECT_FALSE(y.is_leaf());
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  y.backward({}, /*retain_graph=*/true);
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({2.0, 4.0, 6.0}, dtype(kDouble)));
  y.backward();  // accumulates
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({4.0, 8.0, 12.0}, dtype(kDouble)));
  EXPECT_ERROR_WITH(y.backward(), "backward through the graph a second time");
  x.mutable_grad().zero_();
  EXPECT_TENSOR_CLOSE(x.grad(), zeros({3}, dtype(kDouble)));
}

TEST(Autograd, LeafGradNeverAliasesTheCallersGradient) {
  Tensor x = zeros({3}, dtype(kDouble).requires_grad(true));
  Tensor g = tensor({1.0, 2.0, 3.0}, dtype(kDouble));
  x.add(1).backward(g);  // add's vjp passes the caller's tensor through unchanged
  x.add(1).backward(g);  // accumulation must not write into g
  EXPECT_TENSOR_EQ(g, tensor({1.0, 2.0, 3.0}, dtype(kDouble)));
  EXPECT_TENSOR_EQ(x.grad(), tensor({2.0, 4.0, 6.0}, dtype(kDouble)));
  g.fill_(0);
  EXPECT_TENSOR_EQ(x.grad(), tensor({2.0, 4.0, 6.0}, dtype(kDouble)));
}

TEST(Autograd, AnomalyModeNamesTheForwardOp) {
  Tensor x = tensor({-1.0, 4.0}, dtype(kDouble).requires_grad(true));
  {
    autograd::DetectAnomalyGuard guard;
    Tensor y = x.sqrt().sum();  // sqrt(-1) = nan, and its gradient is nan
    EXPECT_ERROR_WITH(y.backward(), "SqrtBackward0");
  }
  x.sqrt().sum().backward();  // without anomaly mode: nan gradients, no error
  EXPECT_TRUE(x.grad()[0].isnan().item<bool>());
}

TEST(Autograd, IndependentBackwardsFromSeveralThreads) {
  Tensor w = randn({16, 16}, dtype(kDouble)).requires_grad_();
  std::vector<Tensor> results(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) {
        Tensor in = full({16}, double(t + 1), dtype(kDouble));
        Tensor loss = w.mv(in).tanh().sum();
        results[size_t(t)] = autograd::grad({loss}, {w})[0];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    Tensor in = full({16}, double(t + 1), dtype(kDouble));
    Tensor expect = outer(w.detach().mv(in).tanh().square().neg().add(1), in);
    EXPECT_TENSOR_CLOSE(results[size_t(t)], expect);
  }
  // and concurrent accumulation into the same leaf
  threads.clear();
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int k = 0; k < 25; ++k) w.sum().backward();
    });
  for (auto& th : threads) th.join();
  EXPECT_TENSOR_EQ(w.grad(), full({16, 16}, 100.0, dtype(kDouble)));
}

TEST(Autograd, GradFunctionAndAllowUnused) {
  Tensor a = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor b = tensor({3.0, 4.0}, dtype(kDouble).requires_grad(true));
  Tensor c = tensor({5.0}, dtype(kDouble).requires_grad(true));
  Tensor y = a.mul(b).sum();
  variable_list g = autograd::grad({y}, {a, b}, {}, /*retain_graph=*/true);
  EXPECT_TENSOR_CLOSE(g[0], b.detach());
  EXPECT_TENSOR_CLOSE(g[1], a.detach());
  EXPECT_FALSE(a.grad().defined());  // grad() does not accumulate
  EXPECT_ERROR_WITH(autograd::grad({y}, {c}, {}, true), "appears to not have been used in the graph");
  variable_list u = autograd::grad({y}, {a, c}, {}, true, false, /*allow_unused=*/true);
  EXPECT_TRUE(u[0].defined());
  EXPECT_FALSE(u[1].defined());
}

TEST(Autograd, HigherOrderThroughCreateGraph) {
  Tensor x = tensor({0.5, -1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor y = x.pow(3).sum();
  Tensor g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  EXPECT_TENSOR_CLOSE(g.detach(), x.detach().square().mul(3));
  ASSERT_TRUE(g.requires_grad());
  Tensor gg = autograd::grad({g.sum()}, {x})[0];
  EXPECT_TENSOR_CLOSE(gg, x.detach().mul(6));
  // sin'' = -sin
  Tensor s = tensor({0.3, 1.1}, dtype(kDouble).requires_grad(true));
  Tensor ds = autograd::grad({s.sin().sum()}, {s}, {}, std::nullopt, true)[0];
  Tensor dds = autograd::grad({ds.sum()}, {s})[0];
  EXPECT_TENSOR_CLOSE(dds, s.detach().sin().neg());
}

TEST(Autograd, HooksAndRetainGrad) {
  Tensor x = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor h = x.mul(3);
  h.retain_grad();
  int calls = 0;
  h.register_hook([&](const Tensor& g) {
    ++calls;
    return g.mul(2);  // doubles the gradient flowing on
  });
  x.register_hook([&](Tensor) { ++calls; });
  h.sum().backward();
  EXPECT_EQ(calls, 2);
  EXPECT_TENSOR_CLOSE(h.grad(), tensor({2.0, 2.0}, dtype(kDouble)));  // retain_grad sees the hooked value
  EXPECT_TENSOR_CLOSE(x.grad(), tensor({6.0, 6.0}, dtype(kDouble)));
}

TEST(Autograd, GradModes) {
  Tensor x = ones({2}, dtype(kDouble).requires_grad(true));
  {
    NoGradGuard g;
    EXPECT_FALSE(x.mul(2).requires_grad());
  }
  {
    InferenceMode im;
    EXPECT_TRUE(InferenceMode::is_enabled());
    EXPECT_FALSE(x.exp().requires_grad());
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
  {
    AutoGradMode off(false);
    EXPECT_FALSE(x.add(1).requires_grad());
    AutoGradMode on(true);
    EXPECT_TRUE(x.add(1).requires_grad());
  }
  EXPECT_FALSE(x.detach().requires_grad());
  EXPECT_TRUE(x.mul(2).detach().is_leaf());
}

TEST(Autograd, InplaceOpsRebaseHistoryAndVersionChecks) {
  Tensor x = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  EXPECT_ERROR_WITH(x.mul_(2), "a leaf Variable that requires grad is being used in an in-place operation");
  Tensor y = x.mul(2);
  y.exp_();
  y.sum().backward();
  EXPECT_TENSOR_CLOSE(x.grad(), x.detach().mul(2).exp().mul(2));
  // A tensor saved for backward, modified in place: backward names the problem.
  Tensor a = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor b = a.mul(1);
  Tensor c = b.mul(b);  // saves b
  b.add_(1);
  EXPECT_ERROR_WITH(c.sum().backward(), "modified by an inplace operation");
  // In-place on a view of a non-leaf: the base's history goes through the view's op.
  Tensor p = tensor({1.0, 2.0, 3.0}, dtype(kDouble).requires_grad(true));
  Tensor q = p.mul(1);
  q.narrow(0, 1, 1).mul_(10);
  q.sum().backward();
  EXPECT_TENSOR_CLOSE(p.grad(), tensor({1.0, 10.0, 1.0}, dtype(kDouble)));
}

TEST(Autograd, AViewMadeALeafIsItsOwnRoot) {
  Tensor base = arange(6, dtype(kDouble));
  Tensor v = base.view({2, 3}).requires_grad_();  // a view of a plain tensor, made a leaf
  v.t().mul(2).sum().backward();                   // a view of the leaf, then ops
  EXPECT_TENSOR_EQ(v.grad(), full({2, 3}, 2.0, dtype(kDouble)));
  EXPECT_ERROR_WITH(v.mul_(2), "a leaf Variable that requires grad is being used in an in-place operation");
}

TEST(Autograd, ForwardModeBasics) {
  Tensor x = tensor({0.5, 1.5}, dtype(kDouble));
  Tensor v = tensor({1.0, -2.0}, dtype(kDouble));
  EXPECT_ERROR_WITH(fwd::make_dual(x, v), "no dual level is open");
  // unpack_dual without an open level: the tensor itself and no tangent (as PyTorch).
  auto unpacked = fwd::unpack_dual(x);
  EXPECT_TRUE(unpacked.primal.is_same(x));
  EXPECT_FALSE(unpacked.tangent.defined());
  Tensor kept;
  uint64_t old_level = 0;
  {
    fwd::dual_level level;
    old_level = level.level();
    EXPECT_ERROR_WITH(fwd::make_dual(x, ones({3}, dtype(kDouble))), "different size");
    EXPECT_ERROR_WITH(fwd::make_dual(x, ones({2}, dtype(kFloat))), "same dtype");
    Tensor d = fwd::make_dual(x, v);
    kept = d;
    EXPECT_TRUE(kept._fw_grad(old_level).defined());
    Tensor y = d.sin().mul(d);  // y' = (cos x * x + sin x) v
    auto [primal, tangent] = fwd::unpack_dual(y);
    EXPECT_TENSOR_CLOSE(primal, x.sin().mul(x));
    EXPECT_TENSOR_CLOSE(tangent, x.cos().mul(x).add(x.sin()).mul(v));
    // a view of a dual tensor is dual
    EXPECT_TENSOR_CLOSE(fwd::unpack_dual(d.narrow(0, 1, 1)).tangent, v.narrow(0, 1, 1));
    EXPECT_FALSE(fwd::unpack_dual(x.exp()).tangent.defined());
  }
  // Tangents end with their level.
  EXPECT_FALSE(kept._fw_grad(old_level).defined());
}

TEST(Autograd, NestedDualLevelsAreIndependent) {
  Tensor x = tensor({0.5, 2.0}, dtype(kDouble));
  fwd::dual_level outer;
  Tensor a = fwd::make_dual(x, ones({2}, dtype(kDouble)));
  {
    fwd::dual_level inner;
    Tensor b = fwd::make_dual(a, full({2}, 3.0, dtype(kDouble)));  // a's outer tangent stays
    Tensor y = b.exp();
    EXPECT_TENSOR_CLOSE(fwd::unpack_dual(y).tangent, x.exp().mul(3));  // innermost level
    EXPECT_TENSOR_CLOSE(fwd::unpack_dual(y, int64_t(outer.level())).tangent, x.exp());
    EXPECT_ERROR_WITH(fwd::exit_dual_level(outer.level()), "not the innermost");
  }
  // The inner level's tangents are gone with it.
  EXPECT_TENSOR_CLOSE(fwd::unpack_dual(a.exp()).tangent, x.exp());
}

TEST(Autograd, Errors) {
  Tensor x = ones({2, 2}, dtype(kDouble).requires_grad(true));
  EXPECT_ERROR_WITH(x.mul(2).backward(), "grad can be implicitly created only for scalar outputs");
  EXPECT_ERROR_WITH(x.mul(2).backward(ones({3})), "Mismatch in shape");
  EXPECT_ERROR_WITH(ones({2}).backward(), "does not require grad");
  EXPECT_ERROR_WITH(ones({2}, dtype(kLong)).requires_grad_(), "floating point");
  Tensor out = empty({2, 2}, dtype(kDouble));
  EXPECT_ERROR_WITH(mul_out(out, x, x), "don't support automatic differentiation");
}

}  // namespace
}  // namespace ember::test
