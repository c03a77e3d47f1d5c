// The op-level fused normalization path (Note [Fused normalization on devices],
// ember/nn/functional/normalization.cpp) run here without a GPU: stand-in kernels written as
// plain double-precision loops (the contract of ember/ops/norm_device.h) replace the CUDA
// ones on CPU tensors, and layer_norm / group_norm through the fused path are compared with
// the composite path: values, mean/rstd-based gradients of input, weight and bias,
// create_graph (second derivatives), forward-mode tangents, and the cases that must stay on
// the composite (non-contiguous input, mixed dtypes). The CUDA kernels themselves are tested on
// a GPU by tests/cuda/norm_test.cpp. Likewise batch norm's device path (Note [Batch norm on
// devices]) with a stand-in DeviceBatchNorm.
#include <cmath>
#include <vector>

#include "ember/ops/batch_norm_device.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/norm_device.h"
#include "test_util.h"

namespace ember::test {
namespace fused_norm_glue {  // named: the tests build as one unity file

int forward_calls = 0, backward_calls = 0;

template <class F>
void typed(const Tensor& t, F&& f) {
  visit_dtype<DtypeSet{kFloat, kDouble}>(t.scalar_type(), "stand-in", f);
}
int64_t channel(const NormGeometry& g, int64_t r, int64_t j) {
  return (r % g.groups) * g.channels_per_group + j / g.inner;
}

void forward(const Tensor& x, const Tensor& w, const Tensor& b, const NormGeometry& g, const Tensor& y,
             const Tensor& mean, const Tensor& rstd) {
  ++forward_calls;
  ASSERT_TRUE(x.is_contiguous() && y.is_contiguous());
  ASSERT_EQ(mean.numel(), g.rows);
  typed(x, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xp = x.data_ptr<T>();
    T* yp = y.data_ptr<T>();
    auto* mp = static_cast<T*>(mean.data_ptr());  // the acc type is the input's for float / double
    auto* rp = static_cast<T*>(rstd.data_ptr());
    for (int64_t r = 0; r < g.rows; ++r) {
      double s = 0, s2 = 0;
      for (int64_t j = 0; j < g.cols; ++j) s += xp[r * g.cols + j];
      const double m = s / double(g.cols);
      for (int64_t j = 0; j < g.cols; ++j) s2 += (xp[r * g.cols + j] - m) * (xp[r * g.cols + j] - m);
      const double rs = 1 / std::sqrt(s2 / double(g.cols) + g.eps);
      mp[r] = T(m), rp[r] = T(rs);
      for (int64_t j = 0; j < g.cols; ++j) {
        double v = (xp[r * g.cols + j] - m) * rs;
        if (w.defined()) v *= w.data_ptr<T>()[channel(g, r, j)];
        if (b.defined()) v += b.data_ptr<T>()[channel(g, r, j)];
        yp[r * g.cols + j] = T(v);
      }
    }
  });
}

void backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& w,
              const NormGeometry& g, const Tensor& dx) {
  ++backward_calls;
  ASSERT_TRUE(dy.is_contiguous() && x.is_contiguous() && dx.is_contiguous());
  typed(x, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t r = 0; r < g.rows; ++r) {
      const double m = static_cast<const T*>(mean.data_ptr())[r], rs = static_cast<const T*>(rstd.data_ptr())[r];
      double a = 0, bsum = 0;
      auto gy = [&](int64_t j) {
        return double(dy.data_ptr<T>()[r * g.cols + j]) * (w.defined() ? double(w.data_ptr<T>()[channel(g, r, j)]) : 1.0);
      };
      auto xhat = [&](int64_t j) { return (double(x.data_ptr<T>()[r * g.cols + j]) - m) * rs; };
      for (int64_t j = 0; j < g.cols; ++j) a += gy(j), bsum += gy(j) * xhat(j);
      a /= double(g.cols), bsum /= double(g.cols);
      for (int64_t j = 0; j < g.cols; ++j) dx.data_ptr<T>()[r * g.cols + j] = T(rs * (gy(j) - a - xhat(j) * bsum));
    }
  });
}

using NormFn = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;

struct Grads {
  Tensor y, gx, gw, gb;
};
Grads run(const NormFn& f, const Tensor& x0, const Tensor& w0, const Tensor& b0, const Tensor& seed, bool fused) {
  std::optional<norm_detail::ScopedFusedNormForCpu> scope;
  if (fused) scope.emplace(&forward, &backward);
  Tensor x = x0.clone().requires_grad_(), w = w0.defined() ? w0.clone().requires_grad_() : Tensor(),
         b = b0.defined() ? b0.clone().requires_grad_() : Tensor();
  Tensor y = f(x, w, b);
  y.backward(seed);
  return {y.detach(), x.grad(), w.defined() ? w.grad() : Tensor(), b.defined() ? b.grad() : Tensor()};
}

void expect_same(const NormFn& f, const Tensor& x, const Tensor& w, const Tensor& b, double tol) {
  const Tensor seed = random_tensor(x.sizes(), x.scalar_type());
  const int fc = forward_calls, bc = backward_calls;
  const Grads fused = run(f, x, w, b, seed, true), plain = run(f, x, w, b, seed, false);
  EXPECT_GT(forward_calls, fc);
  EXPECT_GT(backward_calls, bc);
  EXPECT_TENSOR_CLOSE(fused.y, plain.y, tol, tol);
  EXPECT_TENSOR_CLOSE(fused.gx, plain.gx, tol, tol);
  if (w.defined()) EXPECT_TENSOR_CLOSE(fused.gw, plain.gw, tol, tol);
  if (b.defined()) EXPECT_TENSOR_CLOSE(fused.gb, plain.gb, tol, tol);
}

TEST(FusedNormGlue, LayerNormValuesAndGradients) {
  for (ScalarType t : {kDouble, kFloat}) {
    SCOPED_TRACE(toString(t));
    const double tol = t == kDouble ? 1e-10 : 1e-4;
    Tensor x = random_tensor({3, 5, 4, 6}, t);
    const NormFn ln = [](const Tensor& a, const Tensor& w, const Tensor& b) {
      return nn::functional::layer_norm(a, {4, 6}, w, b, 1e-5);
    };
    expect_same(ln, x, random_tensor({4, 6}, t), random_tensor({4, 6}, t), tol);
    expect_same(ln, x, Tensor(), Tensor(), tol);
    expect_same(ln, x, random_tensor({4, 6}, t), Tensor(), tol);
    expect_same([](const Tensor& a, const Tensor& w, const Tensor& b) {
      return nn::functional::layer_norm(a, {6}, w, b, 1e-3);
    }, x, random_tensor({6}, t), random_tensor({6}, t), tol);
  }
}

TEST(FusedNormGlue, GroupNormValuesAndGradients) {
  for (ScalarType t : {kDouble, kFloat}) {
    SCOPED_TRACE(toString(t));
    const double tol = t == kDouble ? 1e-10 : 1e-4;
    for (int64_t G : {1, 2, 6}) {
      const NormFn gn = [G](const Tensor& a, const Tensor& w, const Tensor& b) { return group_norm(a, G, w, b, 1e-5); };
      expect_same(gn, random_tensor({2, 6, 3, 5}, t), random_tensor({6}, t), random_tensor({6}, t), tol);
      expect_same(gn, random_tensor({4, 6}, t), Tensor(), random_tensor({6}, t), tol);  // no spatial dims
    }
  }
}

TEST(FusedNormGlue, SecondDerivativesUseTheComposite) {
  Tensor x0 = random_tensor({4, 8}, kDouble), w0 = random_tensor({8}, kDouble);
  auto second = [&](bool fused) {
    std::optional<norm_detail::ScopedFusedNormForCpu> scope;
    if (fused) scope.emplace(&forward, &backward);
    Tensor x = x0.clone().requires_grad_(), w = w0.clone().requires_grad_();
    Tensor y = nn::functional::layer_norm(x, {8}, w, Tensor(), 1e-5);
    Tensor gx = autograd::grad({y.pow(3).sum()}, {x}, {}, true, true)[0];
    gx.pow(2).sum().backward();
    return std::make_pair(x.grad(), w.grad());
  };
  auto [fx, fw] = second(true);
  auto [px, pw] = second(false);
  EXPECT_TENSOR_CLOSE(fx, px, 1e-9, 1e-9);
  EXPECT_TENSOR_CLOSE(fw, pw, 1e-9, 1e-9);
}

TEST(FusedNormGlue, ForwardModeTangents) {
  Tensor x = random_tensor({2, 6, 5}, kDouble), w = random_tensor({6}, kDouble), b = random_tensor({6}, kDouble);
  Tensor tx = random_tensor(x.sizes(), kDouble), tw = random_tensor({6}, kDouble), tb = random_tensor({6}, kDouble);
  auto jvp = [&](bool fused, bool layer) {
    std::optional<norm_detail::ScopedFusedNormForCpu> scope;
    if (fused) scope.emplace(&forward, &backward);
    namespace fwd = autograd::forward_ad;
    fwd::dual_level level;
    Tensor dx = fwd::make_dual(x, tx), dw = fwd::make_dual(layer ? w.narrow(0, 0, 5) : w, layer ? tw.narrow(0, 0, 5) : tw),
           db = fwd::make_dual(layer ? b.narrow(0, 0, 5) : b, layer ? tb.narrow(0, 0, 5) : tb);
    Tensor y = layer ? nn::functional::layer_norm(dx, {5}, dw.contiguous(), db.contiguous(), 1e-5)
                     : group_norm(dx, 3, dw, db, 1e-5);
    return fwd::unpack_dual(y).tangent;
  };
  for (bool layer : {true, false}) {
    SCOPED_TRACE(layer ? "layer_norm" : "group_norm");
    const int fc = forward_calls;
    Tensor fused = jvp(true, layer);
    EXPECT_GT(forward_calls, fc);
    EXPECT_TENSOR_CLOSE(fused, jvp(false, layer), 1e-10, 1e-10);
  }
}

TEST(FusedNormGlue, OtherCasesStayOnTheComposite) {
  norm_detail::ScopedFusedNormForCpu scope(&forward, &backward);
  const int fc = forward_calls;
  Tensor x = random_tensor({4, 6, 3}, kDouble);
  nn::functional::layer_norm(x.transpose(0, 2), {4}, Tensor(), Tensor(), 1e-5);                 // non-contiguous
  nn::functional::layer_norm(x, {3}, random_tensor({3}, kFloat), Tensor(), 1e-5);                // mixed dtypes
  group_norm(x.transpose(1, 2).contiguous().transpose(1, 2), 2, Tensor(), Tensor(), 1e-5, true);  // strided
  EXPECT_EQ(forward_calls, fc);
}

// ---- batch norm -------------------------------------------------------------------------------

int bn_calls = 0;

// Per channel c: the elements of x (any layout) as a (C, count) double matrix.
Tensor channel_rows(const Tensor& x) { return x.transpose(0, 1).reshape({x.size(1), -1}).to(kDouble); }
Tensor channel_view(const Tensor& t, const Tensor& like) {
  std::vector<int64_t> shape(size_t(like.dim()), 1);
  shape[1] = like.size(1);
  return t.view(shape);
}

bool bn_supports(const Tensor&, bool) { return true; }
void bn_forward_training(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& rm, const Tensor& rv,
                         double momentum, double eps, const Tensor& y, const Tensor& save_mean, const Tensor& save_invstd) {
  ++bn_calls;
  ASSERT_TRUE(x.is_contiguous(x.suggest_memory_format()) && y.is_contiguous(x.suggest_memory_format()));
  ASSERT_TRUE(w.defined() && b.defined());
  const Tensor r = channel_rows(x);
  const Tensor mean = r.mean(1), var = r.var(1, /*unbiased=*/false);
  const Tensor invstd = var.add(eps).rsqrt();
  save_mean.copy_(mean), save_invstd.copy_(invstd);
  if (rm.defined()) {
    const double n = double(r.size(1));
    rm.copy_(rm.mul(1 - momentum).add(mean.mul(momentum)));
    rv.copy_(rv.mul(1 - momentum).add(var.mul(n / (n - 1)).mul(momentum)));
  }
  y.copy_(x.to(kDouble).sub(channel_view(mean, x)).mul(channel_view(invstd.mul(w.to(kDouble)), x)).add(channel_view(b.to(kDouble), x)));
}
void bn_forward_inference(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& rm, const Tensor& rv,
                          double eps, const Tensor& y) {
  ++bn_calls;
  const Tensor scale = rv.to(kDouble).add(eps).rsqrt().mul(w.to(kDouble));
  y.copy_(x.to(kDouble).sub(channel_view(rm.to(kDouble), x)).mul(channel_view(scale, x)).add(channel_view(b.to(kDouble), x)));
}
void bn_backward(const Tensor& dy, const Tensor& x, const Tensor& w, const Tensor& save_mean, const Tensor& save_invstd,
                 double, const Tensor& dx, const Tensor& dw, const Tensor& db) {
  ++bn_calls;
  const Tensor m = channel_view(save_mean.to(kDouble), x), is = channel_view(save_invstd.to(kDouble), x);
  const Tensor xhat = x.to(kDouble).sub(m).mul(is), g = dy.to(kDouble);
  std::vector<int64_t> reduce = {0};
  for (int64_t d = 2; d < x.dim(); ++d) reduce.push_back(d);
  const Tensor gsum = g.sum(reduce, true), gxsum = g.mul(xhat).sum(reduce, true);
  const double n = double(x.numel() / x.size(1));
  dx.copy_(g.sub(gsum.div(n)).sub(xhat.mul(gxsum.div(n))).mul(is).mul(channel_view(w.to(kDouble), x)));
  dw.copy_(gxsum.flatten()), db.copy_(gsum.flatten());
}
const DeviceBatchNorm kBnStandIn{&bn_supports, &bn_forward_training, &bn_forward_inference, &bn_backward};

TEST(FusedNormGlue, BatchNormTrainingMatchesTheComposite) {
  for (ScalarType t : {kDouble, kFloat}) {
    for (bool cl : {false, true}) {
      SCOPED_TRACE(std::string(toString(t)) + (cl ? " channels-last" : ""));
      const double tol = t == kDouble ? 1e-10 : 1e-4;
      Tensor x = random_tensor({4, 6, 5, 3}, t);
      if (cl) x = x.contiguous(MemoryFormat::ChannelsLast);
      const Tensor w = random_tensor({6}, t), b = random_tensor({6}, t), seed = random_tensor(x.sizes(), t);
      auto train = [&](bool device) {
        std::optional<norm_detail::ScopedDeviceBatchNormForCpu> scope;
        if (device) scope.emplace(&kBnStandIn);
        Tensor rm = zeros({6}, t), rv = ones({6}, t);
        Tensor xl = x.clone().requires_grad_(), wl = w.clone().requires_grad_(), bl = b.clone().requires_grad_();
        Tensor y = nn::functional::batch_norm(xl, rm, rv, wl, bl, /*training=*/true, 0.1, 1e-5);
        y.backward(seed);
        return std::vector<Tensor>{y.detach(), xl.grad(), wl.grad(), bl.grad(), rm, rv};
      };
      const int before = bn_calls;
      const auto dev = train(true), ref = train(false);
      EXPECT_GE(bn_calls, before + 2);  // forward and backward
      const char* names[] = {"y", "dx", "dw", "db", "running_mean", "running_var"};
      for (size_t i = 0; i < dev.size(); ++i) {
        SCOPED_TRACE(names[i]);
        EXPECT_TENSOR_CLOSE(dev[i], ref[i], tol, tol);
      }
    }
  }
}

TEST(FusedNormGlue, BatchNormInferenceSecondDerivativesAndTangents) {
  Tensor x = random_tensor({5, 4}, kDouble), w = random_tensor({4}, kDouble), b = random_tensor({4}, kDouble);
  const Tensor rm = random_tensor({4}, kDouble), rv = random_tensor({4}, kDouble).abs().add(0.5);
  int before = bn_calls;
  Tensor eval_dev;
  {
    norm_detail::ScopedDeviceBatchNormForCpu scope(&kBnStandIn);
    eval_dev = nn::functional::batch_norm(x, rm, rv, w, b, /*training=*/false, 0.1, 1e-5);
  }
  EXPECT_GT(bn_calls, before);
  EXPECT_TENSOR_CLOSE(eval_dev, nn::functional::batch_norm(x, rm, rv, w, b, false, 0.1, 1e-5), 1e-12, 1e-12);
  // create_graph: the gradient of a gradient.
  auto second = [&](bool device) {
    std::optional<norm_detail::ScopedDeviceBatchNormForCpu> scope;
    if (device) scope.emplace(&kBnStandIn);
    Tensor xl = x.clone().requires_grad_(), wl = w.clone().requires_grad_();
    Tensor y = nn::functional::batch_norm(xl, Tensor(), Tensor(), wl, b, true, 0.1, 1e-5);
    Tensor gx = autograd::grad({y.pow(3).sum()}, {xl}, {}, true, true)[0];
    gx.pow(2).sum().backward();
    return std::make_pair(xl.grad(), wl.grad());
  };
  auto [dx2, dw2] = second(true);
  auto [rx2, rw2] = second(false);
  EXPECT_TENSOR_CLOSE(dx2, rx2, 1e-9, 1e-9);
  EXPECT_TENSOR_CLOSE(dw2, rw2, 1e-9, 1e-9);
  // Forward mode.
  Tensor x4 = random_tensor({3, 4, 2, 2}, kDouble), tx = random_tensor(x4.sizes(), kDouble);
  Tensor tw = random_tensor({4}, kDouble), tb = random_tensor({4}, kDouble);
  auto jvp = [&](bool device) {
    std::optional<norm_detail::ScopedDeviceBatchNormForCpu> scope;
    if (device) scope.emplace(&kBnStandIn);
    namespace fwd = autograd::forward_ad;
    fwd::dual_level level;
    Tensor y = nn::functional::batch_norm(fwd::make_dual(x4, tx), Tensor(), Tensor(), fwd::make_dual(w, tw),
                                          fwd::make_dual(b, tb), true, 0.1, 1e-5);
    return fwd::unpack_dual(y).tangent;
  };
  before = bn_calls;
  const Tensor jd = jvp(true);
  EXPECT_GT(bn_calls, before);
  EXPECT_TENSOR_CLOSE(jd, jvp(false), 1e-10, 1e-10);
}

}  // namespace fused_norm_glue
}  // namespace ember::test
