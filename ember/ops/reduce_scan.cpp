// Scans and softmax: cumsum/cumprod (+ in-place), cummax/cummin, logcumsumexp, softmax and
// log_softmax. Inputs are made contiguous and viewed as [outer, len, inner] around the dim
// (see ScanPlan in reduce.h); the kernels live in cpu/scan_kernels.cpp and
// cpu/softmax_kernels.cpp.
#include "ember/autograd/record.h"
#include "ember/cuda/guard.h"
#include "ember/ops/functions.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/reduce.h"

namespace ember {

// (Not on PyTorch 1.13's CPU autocast lists: cumsum, cumprod, softmax.)
OpDef<ScanFn> cumsum_op(OpInfo{.name = "cumsum", .fusion = FusionClass::Opaque, .dtypes = kAllTypes});
OpDef<ScanFn> cumprod_op(OpInfo{.name = "cumprod", .fusion = FusionClass::Opaque, .dtypes = kAllTypes});
OpDef<ScanFn> cummax_op(OpInfo{.name = "cummax", .fusion = FusionClass::Opaque, .dtypes = kBoolType | kRealTypes});
OpDef<ScanFn> cummin_op(OpInfo{.name = "cummin", .fusion = FusionClass::Opaque, .dtypes = kBoolType | kRealTypes});
OpDef<ScanFn> logcumsumexp_op(OpInfo{.name = "logcumsumexp", .fusion = FusionClass::Opaque, .dtypes = kFloatingTypes});
OpDef<SoftmaxFn> softmax_op(OpInfo{.name = "softmax", .fusion = FusionClass::Reduction, .dtypes = kFloatingTypes});

namespace {
// The contiguous input and its [outer, len, inner] view around `dim` (already wrapped).
ScanPlan scan_plan(const Tensor& x, int64_t dim) {
  ScanPlan p;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < dim) p.outer *= x.size(d);
    else if (d == dim) p.len = x.size(d);
    else p.inner *= x.size(d);
  }
  p.in = static_cast<const char*>(x.unsafeGetTensorImpl()->data());
  p.in_dtype = x.scalar_type();
  return p;
}

template <class Fn>
Fn kernel_of(const OpDef<Fn>& op, const Tensor& t) {
  Fn k = op.kernel(t.device().type());
  EMBER_CHECK(k != nullptr, op.name, ": no kernel for device ", t.device());
  return k;
}

Tensor run_scan(const OpDef<ScanFn>& op, const Tensor& self, int64_t dim, ScalarType out_dtype, Tensor* indices) {
  int64_t d = maybe_wrap_dim(dim, self.dim(), op.name.data());
  Tensor x = self.contiguous();
  Tensor out = empty(x.sizes(), x.options().dtype(out_dtype));
  if (indices) *indices = empty(x.sizes(), x.options().dtype(kLong));
  if (x.numel() == 0 || x.is_meta()) return out;
  ScanPlan p = scan_plan(x, d);
  p.out = static_cast<char*>(out.unsafeGetTensorImpl()->data());
  p.out2 = indices ? static_cast<char*>(indices->unsafeGetTensorImpl()->data()) : nullptr;
  p.out_dtype = out_dtype;
  DeviceGuard guard(x.device());
  kernel_of(op, x)(p);
  return out;
}

// cumsum/cumprod: dtype= casts the input first; bool and integers accumulate in int64.
Tensor cum_sum_prod(const OpDef<ScanFn>& op, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  Tensor x = self;
  if (dtype && *dtype != self.scalar_type() &&
      !(isIntegralType(self.scalar_type(), true) && isIntegralType(*dtype, false)))
    x = self.to(*dtype);
  ScalarType natural = isIntegralType(x.scalar_type(), true) ? kLong : x.scalar_type();
  ScalarType result = dtype ? *dtype : natural;
  Tensor out = run_scan(op, x, dim, natural, nullptr);
  return out.scalar_type() == result ? out : out.to(result);
}

Tensor& cum_inplace(const OpDef<ScanFn>& op, Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CHECK_TYPE(!dtype || *dtype == self.scalar_type(), "Bad in-place call: input tensor dtype ", self.scalar_type(),
                   " and output tensor dtype ", *dtype, " should match");
  Tensor r = cum_sum_prod(op, self, dim, self.scalar_type());
  self.copy_(r);
  return self;
}
}  // namespace

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  check_defined(self, "cumsum");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // The gradient is the reversed cumulative sum of the output gradient.
    return autograd::differentiable(
        "cumsum", {&self}, [&] { return cumsum(self, dim, dtype); },
        [dim](const autograd::VjpCtx& c) {
          if (c.grad().dim() == 0) return autograd::variable_list{c.grad()};
          return autograd::variable_list{c.grad().flip({dim}).cumsum(dim).flip({dim})};
        },
        [&](const auto& t, const Tensor&) { return t(0).cumsum(dim, dtype); });
  }
  return cum_sum_prod(cumsum_op, self, dim, dtype);
}
namespace {
// cumprod's derivatives, exact with zeros. Before the first zero of a line, d y_k / d x_i
// = y_k / x_i; at the first zero f, d y_k / d x_f = cumprod(x with x_f := 1)_k; after it,
// zero. Written in differentiable ops.
Tensor cumprod_with_first_zero_as_one(const Tensor& x, int64_t d, Tensor& before, Tensor& first) {
  Tensor is_zero = x.eq(0);
  Tensor zeros_so_far = is_zero.to(kLong).cumsum(d);  // inclusive
  before = zeros_so_far.eq(0);
  first = is_zero.logical_and(zeros_so_far.eq(1));
  return where(first, ones_like(x), x).cumprod(d);
}
Tensor reverse_cumsum(const Tensor& t, int64_t d) { return t.flip({d}).cumsum(d).flip({d}); }
}  // namespace

Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    const int64_t d = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
    return autograd::differentiable(
        "cumprod", {&self}, [&] { return cumprod(self, dim, dtype); },
        [d](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0), y = c.saved_tensor(1), g = c.grad();
          if (x.dim() == 0) return autograd::variable_list{g};
          Tensor before, first;
          Tensor z = cumprod_with_first_zero_as_one(x, d, before, first);
          Tensor safe = where(before, x, ones_like(x));
          Tensor g_before = reverse_cumsum(g.mul(y.conj()), d).div(safe.conj());
          Tensor g_first = reverse_cumsum(g.mul(z.conj()), d);
          return autograd::variable_list{where(before, g_before, where(first, g_first, zeros_like(g_first)))};
        },
        [&](const auto& t, const Tensor& y) {
          Tensor tg = t(0);
          if (self.dim() == 0) return tg;
          Tensor before, first;
          Tensor z = cumprod_with_first_zero_as_one(self, d, before, first);
          Tensor safe = where(before, self, ones_like(self));
          Tensor t_before = y.mul(tg.div(safe).cumsum(d));
          Tensor t_first = where(first, tg, zeros_like(tg)).sum(d, true).mul(z);
          // past the first zero only the first zero's tangent contributes
          return where(before, t_before, t_first);
        },
        {{self}}, /*save_result=*/true);
  }
  return cum_sum_prod(cumprod_op, self, dim, dtype);
}

std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) return autograd::differentiable_cumulative_select("cummax", self, dim, [&] { return cummax(self, dim); });
  EMBER_CHECK_TYPE(!self.is_complex(), "cummax: not implemented for complex dtype ", self.scalar_type());
  Tensor idx;
  Tensor v = run_scan(cummax_op, self, dim, self.scalar_type(), &idx);
  return {v, idx};
}
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) return autograd::differentiable_cumulative_select("cummin", self, dim, [&] { return cummin(self, dim); });
  EMBER_CHECK_TYPE(!self.is_complex(), "cummin: not implemented for complex dtype ", self.scalar_type());
  Tensor idx;
  Tensor v = run_scan(cummin_op, self, dim, self.scalar_type(), &idx);
  return {v, idx};
}
Tensor logcumsumexp(const Tensor& self, int64_t dim) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // d y_k / d x_i = exp(x_i - y_k) for i <= k: each term is computed shifted by y_k in
    // log space (no overflow), as a logcumsumexp of the reversed sequence per sign of g.
    // (log is taken of a safe value where the other branch is chosen, so that second
    // derivatives stay finite.)
    const int64_t d = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
    return autograd::differentiable(
        "logcumsumexp", {&self}, [&] { return logcumsumexp(self, dim); },
        [d](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0), y = c.saved_tensor(1), g = c.grad();
          if (x.dim() == 0) return autograd::variable_list{g};
          y = where(y.isneginf(), zeros_like(y), y);  // an all -inf prefix contributes exp(-inf) = 0
          auto part = [&](const Tensor& w) {  // sum_{k>=i} w_k exp(x_i - y_k), w >= 0
            Tensor lw = where(w.gt(0), where(w.gt(0), w, ones_like(w)).log(), full_like(w, -INFINITY));
            Tensor s = lw.sub(y).flip({d}).logcumsumexp(d).flip({d});
            return s.add(x).exp();
          };
          return autograd::variable_list{part(g.clamp_min(0)).sub(part(g.neg().clamp_min(0)))};
        },
        [&](const auto& t, const Tensor& y) {
          // sum_{i<=k} t_i exp(x_i - y_k), per sign of t in log space
          Tensor w = t(0);
          if (self.dim() == 0) return w;
          Tensor ys = where(y.isneginf(), zeros_like(y), y);
          auto part = [&](const Tensor& v) {
            Tensor lv = where(v.gt(0), where(v.gt(0), v, ones_like(v)).log(), full_like(v, -INFINITY));
            return lv.add(self).logcumsumexp(d).sub(ys).exp();
          };
          return part(w.clamp_min(0)).sub(part(w.neg().clamp_min(0)));
        },
        {{self}}, /*save_result=*/true);
  }
  EMBER_CHECK_TYPE(self.is_floating_point(), "logcumsumexp: expected a floating point input, got ", self.scalar_type());
  return run_scan(logcumsumexp_op, self, dim, self.scalar_type(), nullptr);
}

// ---- softmax, log_softmax -------------------------------------------------------------------
namespace {
Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // softmax: y (g - sum(g y)); log_softmax: g - exp(y) sum(g).
    return autograd::differentiable(
        log ? "log_softmax" : "softmax", {&self}, [&] { return softmax_impl(self, dim, dtype, log); },
        [dim, log](const autograd::VjpCtx& c) {
          Tensor y = c.saved_tensor(0), g = c.grad();
          if (log) return autograd::variable_list{g.sub(y.exp().mul(g.sum(dim, true)))};
          return autograd::variable_list{y.mul(g.sub(g.mul(y).sum(dim, true)))};
        },
        [&](const auto& t, const Tensor& y) {
          Tensor tg = t(0).to(y.scalar_type());
          if (log) return tg.sub(y.exp().mul(tg).sum(dim, true));
          return y.mul(tg.sub(tg.mul(y).sum(dim, true)));
        },
        {}, /*save_result=*/true);
  }
  const char* name = log ? "log_softmax" : "softmax";
  Tensor x = dtype ? self.to(*dtype) : self;
  EMBER_CHECK_TYPE(x.is_floating_point(), name, ": expected a floating point input (or a floating dtype= argument), got ",
                   x.scalar_type());
  int64_t d = maybe_wrap_dim(dim, x.dim(), name);
  x = x.contiguous();
  ScanPlan p = scan_plan(x, d);
  if (isReducedFloatingType(x.scalar_type()) && p.inner != 1) {
    // Reduced precision along a non-last dim: computed in float.
    return softmax_impl(x.to(kFloat), d, std::nullopt, log).to(x.scalar_type());
  }
  Tensor out = empty(x.sizes(), x.options());
  if (x.numel() == 0 || x.is_meta()) return out;
  p.out = static_cast<char*>(out.unsafeGetTensorImpl()->data());
  p.out_dtype = x.scalar_type();
  DeviceGuard guard(x.device());  // a CUDA kernel runs on the tensor's device
  kernel_of(softmax_op, x)(p, log);
  return out;
}
}  // namespace

namespace {
const tracing::TracedOpDef softmax_traced{{"softmax", tracing::Fusion::Reduction, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  return {softmax(in.at(0), tracing::int_attr(a, "dim", "softmax"), tracing::optional_dtype_attr(a, "dtype", "softmax"))};
}}};
const tracing::TracedOpDef log_softmax_traced{{"log_softmax", tracing::Fusion::Reduction, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  return {log_softmax(in.at(0), tracing::int_attr(a, "dim", "log_softmax"), tracing::optional_dtype_attr(a, "dtype", "log_softmax"))};
}}};
}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  if (tracing::active())
    return tracing::traced_call(softmax_traced, {self}, {{"dim", Scalar(dim)}, {"dtype", tracing::optional_dtype(dtype)}},
                                [&] { return softmax(self, dim, dtype); });
  check_defined(self, "softmax");
  return softmax_impl(self, dim, dtype, false);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  if (tracing::active())
    return tracing::traced_call(log_softmax_traced, {self}, {{"dim", Scalar(dim)}, {"dtype", tracing::optional_dtype(dtype)}},
                                [&] { return log_softmax(self, dim, dtype); });
  check_defined(self, "log_softmax");
  return softmax_impl(self, dim, dtype, true);
}

// ---- Tensor methods ---------------------------------------------------------------------------
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const { return ember::cumsum(*this, dim, dtype); }
Tensor& Tensor::cumsum_(int64_t dim, std::optional<ScalarType> dtype) const { return cum_inplace(cumsum_op, self(), dim, dtype); }
Tensor Tensor::cumprod(int64_t dim, std::optional<ScalarType> dtype) const { return ember::cumprod(*this, dim, dtype); }
Tensor& Tensor::cumprod_(int64_t dim, std::optional<ScalarType> dtype) const {
  return cum_inplace(cumprod_op, self(), dim, dtype);
}
std::tuple<Tensor, Tensor> Tensor::cummax(int64_t dim) const { return ember::cummax(*this, dim); }
std::tuple<Tensor, Tensor> Tensor::cummin(int64_t dim) const { return ember::cummin(*this, dim); }
Tensor Tensor::logcumsumexp(int64_t dim) const { return ember::logcumsumexp(*this, dim); }
Tensor Tensor::softmax(int64_t dim, std::optional<ScalarType> dtype) const { return ember::softmax(*this, dim, dtype); }
Tensor Tensor::log_softmax(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::log_softmax(*this, dim, dtype);
}

}  // namespace ember
