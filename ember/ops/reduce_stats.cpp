// Reductions, part 3: var/std (+ mean), norm, linalg::vector_norm / matrix_norm / norm and
// logsumexp, with their Tensor methods.
#include <cmath>

#include "ember/core/tracing_call.h"
#include "ember/autograd/record.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/reduce.h"

namespace ember {

// ---- var, std, var_mean, std_mean ----------------------------------------------------------
namespace {
// Returns (var or std, mean); mean is undefined unless want_mean. Complex inputs: the
// variance is that of the real parts plus that of the imaginary parts.
std::tuple<Tensor, Tensor> var_std_impl(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                                        bool keepdim, bool take_sqrt, bool want_mean, const char* name);

// var/std (and the mean) with derivatives: d var = 2 (x - mean) / (N - correction),
// d std = d var / (2 std), d mean = 1 / N.
std::tuple<Tensor, Tensor> differentiable_var_std(const Tensor& self, OptionalIntArrayRef dim,
                                                  std::optional<int64_t> correction, bool keepdim, bool take_sqrt,
                                                  bool want_mean, const char* name) {
  autograd::Recording rec({&self});
  std::tuple<Tensor, Tensor> r;
  {
    autograd::BelowAutogradGuard below;
    r = var_std_impl(self, dim, correction, keepdim, take_sqrt, want_mean, name);
  }
  if (!rec.any()) return r;
  std::vector<int64_t> dims = autograd::reduced_dims(self.dim(), dim);
  double n = 1;
  for (int64_t d : dims) n *= double(self.size(d));
  const double denom = std::max(0.0, n - double(correction.value_or(1)));
  // Named references, not a structured binding: lambdas below capture them (clang 14).
  Tensor& v = std::get<0>(r);
  Tensor& m = std::get<1>(r);
  if (rec.forward()) {
    rec.forward_each(v, [&](const std::function<Tensor(size_t)>& t) {
      Tensor centered = self.sub(self.mean(dims, true));
      Tensor dv = real(centered.conj().mul(t(0))).sum(dims, keepdim).mul(2.0 / denom);
      return take_sqrt ? dv.div(v.mul(2)) : dv;
    });
    if (want_mean)
      rec.forward_each(m, [&](const std::function<Tensor(size_t)>& t) { return t(0).mean(dims, keepdim); });
  }
  if (rec.reverse()) {
    std::vector<Tensor> outs{v};
    if (want_mean) outs.push_back(m);
    rec.record(name, outs, [dims, keepdim, denom, n, take_sqrt, want_mean](const autograd::VjpCtx& c) {
      Tensor x = c.saved_tensor(0);
      Tensor gx;
      if (c.grads[0].defined()) {
        Tensor g = autograd::restore_reduced(c.grad(0), dims, keepdim);
        if (take_sqrt) g = g.div(autograd::restore_reduced(c.saved_tensor(1), dims, keepdim).mul(2));
        gx = g.mul(x.sub(x.mean(dims, true))).mul(2.0 / denom);
      }
      if (want_mean && c.grads.size() > 1 && c.grads[1].defined()) {
        Tensor gm = autograd::restore_reduced(c.grad(1), dims, keepdim).div(n).expand(x.sizes());
        gx = gx.defined() ? gx.add(gm) : gm;
      }
      return autograd::variable_list{gx};
    }, {{self}, {v, true}});
  }
  return r;
}

std::tuple<Tensor, Tensor> var_std_impl(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                                        bool keepdim, bool take_sqrt, bool want_mean, const char* name);

// A traced node's outputs: var or std, and the mean for the _mean forms.
std::vector<Tensor> var_std_outputs(const std::tuple<Tensor, Tensor>& r, bool want_mean) {
  return want_mean ? std::vector<Tensor>{std::get<0>(r), std::get<1>(r)} : std::vector<Tensor>{std::get<0>(r)};
}

// var, std, var_mean and std_mean as traced nodes (attributes dim, correction, keepdim).
std::vector<Tensor> run_var_std(const tracing::TracedOp& op, const std::vector<Tensor>& in, const tracing::Attrs& a) {
  std::optional<std::vector<int64_t>> dim;
  if (tracing::has_attr(a, "dim")) dim = tracing::ints_attr(a, "dim", op.name);
  const bool take_sqrt = op.name == "std" || op.name == "std_mean", mean = op.name == "var_mean" || op.name == "std_mean";
  return var_std_outputs(var_std_impl(in.at(0), dim ? OptionalIntArrayRef(*dim) : OptionalIntArrayRef(),
                                      tracing::optional_int_attr(a, "correction", op.name),
                                      tracing::bool_attr(a, "keepdim", op.name), take_sqrt, mean, std::string(op.name).c_str()),
                         mean);
}
const tracing::TracedOpDef var_traced{{"var", tracing::Fusion::Reduction, &run_var_std}};
const tracing::TracedOpDef std_traced{{"std", tracing::Fusion::Reduction, &run_var_std}};
const tracing::TracedOpDef var_mean_traced{{"var_mean", tracing::Fusion::Reduction, &run_var_std}};
const tracing::TracedOpDef std_mean_traced{{"std_mean", tracing::Fusion::Reduction, &run_var_std}};

std::tuple<Tensor, Tensor> var_std_impl(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                                        bool keepdim, bool take_sqrt, bool want_mean, const char* name) {
  if (tracing::active()) {
    const tracing::TracedOp& op = take_sqrt ? (want_mean ? std_mean_traced : std_traced) : (want_mean ? var_mean_traced : var_traced);
    tracing::Attr dims = dim ? tracing::Attr(tracing::ints(*dim)) : tracing::Attr();
    std::vector<Tensor> out = tracing::traced_call(
        op, {self}, {{"dim", dims}, {"correction", tracing::optional_int(correction)}, {"keepdim", Scalar(keepdim)}},
        [&] { return var_std_outputs(var_std_impl(self, dim, correction, keepdim, take_sqrt, want_mean, name), want_mean); });
    return {out.at(0), want_mean ? out.at(1) : Tensor()};
  }
  check_defined(self, name);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return differentiable_var_std(self, dim, correction, keepdim, take_sqrt, want_mean, name);
  EMBER_CHECK_TYPE(self.is_floating_point() || self.is_complex(),
                   name, ": std and var only support floating point and complex dtypes (got ", self.scalar_type(), ")");
  DimMask mask = make_dim_mask(dim, self.dim(), name);
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  ReduceArgs args;
  args.correction = correction.value_or(1);
  if (!self.is_complex()) {
    args.take_sqrt = take_sqrt;
    Tensor v = empty(shape, self.options());
    Tensor m = want_mean ? empty(shape, self.options()) : Tensor();
    run_reduction(var_mean_op, self, mask, keepdim, v, m, args);
    return {v, m};
  }
  ScalarType real_type = toRealValueType(self.scalar_type());
  Tensor m = want_mean ? empty(shape, self.options()) : Tensor();
  Tensor vr = empty(shape, self.options().dtype(real_type)), vi = empty(shape, self.options().dtype(real_type));
  run_reduction(var_mean_op, real(self), mask, keepdim, vr, want_mean ? real(m) : Tensor(), args);
  run_reduction(var_mean_op, imag(self), mask, keepdim, vi, want_mean ? imag(m) : Tensor(), args);
  Tensor v = add(vr, vi);
  return {take_sqrt ? sqrt(v) : v, m};
}
std::optional<int64_t> corr(bool unbiased) { return unbiased ? 1 : 0; }
}  // namespace

Tensor var(const Tensor& self, bool unbiased) {
  return std::get<0>(var_std_impl(self, std::nullopt, corr(unbiased), false, false, false, "var"));
}
Tensor var(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return std::get<0>(var_std_impl(self, dim, corr(unbiased), keepdim, false, false, "var"));
}
Tensor var(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim) {
  return std::get<0>(var_std_impl(self, dim, correction, keepdim, false, false, "var"));
}
Tensor std(const Tensor& self, bool unbiased) {
  return std::get<0>(var_std_impl(self, std::nullopt, corr(unbiased), false, true, false, "std"));
}
Tensor std(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return std::get<0>(var_std_impl(self, dim, corr(unbiased), keepdim, true, false, "std"));
}
Tensor std(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim) {
  return std::get<0>(var_std_impl(self, dim, correction, keepdim, true, false, "std"));
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased) {
  return var_std_impl(self, std::nullopt, corr(unbiased), false, false, true, "var_mean");
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return var_std_impl(self, dim, corr(unbiased), keepdim, false, true, "var_mean");
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                                    bool keepdim) {
  return var_std_impl(self, dim, correction, keepdim, false, true, "var_mean");
}
Tensor var(const Tensor& self, int dim) { return var(self, IntArrayRef{int64_t(dim)}); }
Tensor std(const Tensor& self, int dim) { return std(self, IntArrayRef{int64_t(dim)}); }
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, int dim) {
  return var_mean(self, IntArrayRef{int64_t(dim)});
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, int dim) {
  return std_mean(self, IntArrayRef{int64_t(dim)});
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased) {
  return var_std_impl(self, std::nullopt, corr(unbiased), false, true, true, "std_mean");
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, bool unbiased, bool keepdim) {
  return var_std_impl(self, dim, corr(unbiased), keepdim, true, true, "std_mean");
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                                    bool keepdim) {
  return var_std_impl(self, dim, correction, keepdim, true, true, "std_mean");
}

// ---- vector norms ---------------------------------------------------------------------------
namespace linalg {
Tensor vector_norm(const Tensor& x, const Scalar& ord, OptionalIntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(x))) {
    // d|x|_p = sgn(x) |x|^(p-1) / |x|_p^(p-1); inf norms share among the extremal elements.
    std::vector<int64_t> dims = autograd::reduced_dims(x.dim(), dim);
    const double p = ord.toDouble();
    auto scale = [dims, keepdim, p](const Tensor& in, const Tensor& norm) {
      Tensor nk = autograd::restore_reduced(norm, dims, keepdim);
      Tensor a = in.abs();
      if (p == 0) return zeros_like(in);
      if (p == 1) return in.sgn();
      if (std::isinf(p)) {
        Tensor mask = a.eq(nk).to(a.scalar_type());
        return in.sgn().mul(mask.div(mask.sum(dims, true)));
      }
      Tensor d = p == 2 ? in.div(nk) : in.sgn().mul(a.pow(p - 1)).div(nk.pow(p - 1));
      return where(nk.eq(0), zeros_like(d), d);
    };
    return autograd::differentiable(
        "linalg_vector_norm", {&x}, [&] { return vector_norm(x, ord, dim, keepdim, dtype); },
        [dims, keepdim, scale](const autograd::VjpCtx& c) {
          Tensor in = c.saved_tensor(0), norm = c.saved_tensor(1);
          return autograd::variable_list{autograd::restore_reduced(c.grad(), dims, keepdim).mul(scale(in, norm))};
        },
        [&](const auto& t, const Tensor& norm) {
          return real(scale(x, norm).conj().mul(t(0))).sum(dims, keepdim);
        },
        {{x}}, /*save_result=*/true);
  }
  EMBER_CHECK_TYPE(x.is_floating_point() || x.is_complex(),
                   "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", x.scalar_type());
  Tensor in = x;
  if (dtype) {
    EMBER_CHECK_TYPE(isComplexType(*dtype) == x.is_complex(), "linalg.vector_norm: dtype should be ",
                     x.is_complex() ? "complex" : "real", " for ", x.is_complex() ? "complex" : "real",
                     " inputs, but got ", *dtype);
    EMBER_CHECK_TYPE(promoteTypes(x.scalar_type(), *dtype) == *dtype, "linalg.vector_norm: the dtype of the input (",
                     x.scalar_type(), ") should be convertible without narrowing to the specified dtype (", *dtype, ")");
    in = x.to(*dtype);
  }
  double p = ord.toDouble();
  DimMask mask = make_dim_mask(dim, x.dim(), "linalg.vector_norm");
  if (std::isinf(p) && x.numel() == 0) {
    bool empty_reduced = false;
    for (int64_t d = 0; d < x.dim(); ++d) empty_reduced |= mask.test(d) && x.size(d) == 0;
    EMBER_CHECK(!empty_reduced, "linalg.vector_norm cannot compute the ", p > 0 ? "" : "-",
                "inf norm on an empty tensor because the operation does not have an identity");
  }
  ReduceArgs args;
  args.p = p;
  return reduce_to(vector_norm_op, in, mask, keepdim, toRealValueType(in.scalar_type()), args);
}
}  // namespace linalg

Tensor norm(const Tensor& self, const std::optional<Scalar>& p) { return norm(self, p, IntArrayRef(), false); }
Tensor norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  check_defined(self, "norm");
  EMBER_CHECK_TYPE(self.is_floating_point() || self.is_complex(),
                   "norm(): input dtype should be either floating point or complex. Got ", self.scalar_type(), " instead.");
  return linalg::vector_norm(self, p.value_or(Scalar(2.0)), dim, keepdim);
}

// ---- matrix norms ---------------------------------------------------------------------------
namespace linalg {
namespace {
void check_matrix_norm_input(const Tensor& A, IntArrayRef dim, int64_t& d0, int64_t& d1) {
  EMBER_CHECK(A.dim() >= 2, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EMBER_CHECK_TYPE(A.is_floating_point() || A.is_complex(),
                   "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got ", A.scalar_type());
  EMBER_CHECK(dim.size() == 2, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dim);
  d0 = maybe_wrap_dim(dim[0], A.dim(), "linalg.matrix_norm");
  d1 = maybe_wrap_dim(dim[1], A.dim(), "linalg.matrix_norm");
  EMBER_CHECK(d0 != d1, "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ", dim[1], ")");
}
// ord = 2, -2 and 'nuc': the largest or smallest singular value, or their sum, over the two
// dims (moved last for svdvals); keepdim puts the two dims back as size 1.
Tensor singular_value_norm(const Tensor& A, int64_t d0, int64_t d1, int kind, bool keepdim,
                           std::optional<ScalarType> dtype) {
  Tensor a = dtype ? A.to(*dtype) : A;
  int64_t src[2] = {d0, d1}, dst[2] = {-2, -1};
  Tensor sv = svdvals(a.movedim(IntArrayRef(src, 2), IntArrayRef(dst, 2)));
  int64_t last = -1;
  Tensor r = kind > 0 ? amax(sv, IntArrayRef(&last, 1)) : kind < 0 ? amin(sv, IntArrayRef(&last, 1))
                                                             : ember::sum(sv, IntArrayRef(&last, 1));
  if (keepdim) r = r.unsqueeze(std::min(d0, d1)).unsqueeze(std::max(d0, d1));
  return r;
}
}  // namespace

// Autocast runs the matrix norms in float32 (linalg::norm's matrix case comes through here).
Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(linalg_matrix_norm, matrix_norm(_ac[0], ord, dim, keepdim, dtype), &A);
  int64_t d0, d1;
  check_matrix_norm_input(A, dim, d0, d1);
  double o = ord.toDouble(), a = std::fabs(o);
  if (a == 2) return singular_value_norm(A, d0, d1, o > 0 ? 1 : -1, keepdim, dtype);
  EMBER_CHECK(a == 1 || std::isinf(a), "linalg.matrix_norm: Order ", ord.toDouble(), " not supported.");
  if (std::isinf(a)) std::swap(d0, d1);
  if (!keepdim && d0 < d1) --d1;
  Tensor col = vector_norm(A, 1, IntArrayRef(&d0, 1), keepdim, dtype);
  return o > 0 ? amax(col, IntArrayRef(&d1, 1), keepdim) : amin(col, IntArrayRef(&d1, 1), keepdim);
}

Tensor matrix_norm(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST(linalg_matrix_norm, matrix_norm(_ac[0], ord, dim, keepdim, dtype), &A);
  int64_t d0, d1;
  check_matrix_norm_input(A, dim, d0, d1);
  if (ord == "nuc") return singular_value_norm(A, d0, d1, 0, keepdim, dtype);
  EMBER_CHECK(ord == "fro", "linalg.matrix_norm: Order ", ord, " not supported.");
  int64_t dims[2] = {d0, d1};
  return vector_norm(A, 2, IntArrayRef(dims, 2), keepdim, dtype);
}

Tensor matrix_norm(const Tensor& A, const char* ord, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return matrix_norm(A, std::string_view(ord), dim, keepdim, dtype);
}

Tensor norm(const Tensor& A, const std::optional<Scalar>& ord, OptionalIntArrayRef dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  if (dim) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2,
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ", *dim);
  } else if (ord) {
    EMBER_CHECK(A.dim() == 1 || A.dim() == 2,
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ", A.dim(), "D.");
  }
  if (ord && ((dim && dim->size() == 2) || (!dim && A.dim() == 2))) {
    int64_t dims01[2] = {0, 1};
    IntArrayRef dims = dim ? *dim : IntArrayRef(dims01, 2);
    return matrix_norm(A, *ord, dims, keepdim, dtype);
  }
  return vector_norm(A, ord.value_or(Scalar(2.0)), dim, keepdim, dtype);
}
}  // namespace linalg

// ---- logsumexp ------------------------------------------------------------------------------
namespace {
const tracing::TracedOpDef logsumexp_traced{{"logsumexp", tracing::Fusion::Reduction, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  return {logsumexp(in.at(0), tracing::ints_attr(a, "dim", "logsumexp"), tracing::bool_attr(a, "keepdim", "logsumexp"))};
}}};
}  // namespace

Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  if (tracing::active())
    return tracing::traced_call(logsumexp_traced, {self}, {{"dim", tracing::ints(dim)}, {"keepdim", Scalar(keepdim)}},
                                [&] { return logsumexp(self, dim, keepdim); });
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    std::vector<int64_t> dims = autograd::reduced_dims(self.dim(), dim);
    return autograd::differentiable(
        "logsumexp", {&self}, [&] { return logsumexp(self, dim, keepdim); },
        [dims, keepdim](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0), y = autograd::restore_reduced(c.saved_tensor(1), dims, keepdim);
          return autograd::variable_list{autograd::restore_reduced(c.grad(), dims, keepdim).mul(x.sub(y).exp())};
        },
        [&](const auto& t, const Tensor& y) {
          return t(0).mul(self.sub(autograd::restore_reduced(y, dims, keepdim)).exp()).sum(dims, keepdim);
        },
        {{self}}, /*save_result=*/true);
  }
  EMBER_CHECK_TYPE(!self.is_complex(), "logsumexp(): Expected floating point type for result tensor, but got: ",
                   self.scalar_type());
  Tensor x = isIntegralType(self.scalar_type(), true) ? self.to(get_default_dtype()) : self;
  DimMask mask = make_dim_mask(dim, x.dim(), "logsumexp");
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < x.dim(); ++d) if (mask.test(d)) dims.push_back(d);
  if (x.numel() == 0) return log(sum(exp(x), IntArrayRef(dims), keepdim));
  // Shift by the (finite) max so exp cannot overflow; infinite maxes shift by 0.
  Tensor shift = nan_to_num(amax(x, dims, /*keepdim=*/true), std::nan(""), 0.0, 0.0);
  Tensor s = log(sum(exp(sub(x, shift)), IntArrayRef(dims), keepdim));
  return add(s, shift.view(s.sizes()));
}

// ---- Tensor methods ---------------------------------------------------------------------------
Tensor Tensor::var(bool unbiased) const { return ember::var(*this, unbiased); }
Tensor Tensor::var(OptionalIntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::var(*this, dim, unbiased, keepdim);
}
Tensor Tensor::var(OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim) const {
  return ember::var(*this, dim, correction, keepdim);
}
Tensor Tensor::var(int dim) const { return ember::var(*this, IntArrayRef{int64_t(dim)}); }
Tensor Tensor::std(int dim) const { return ember::std(*this, IntArrayRef{int64_t(dim)}); }
Tensor Tensor::std(bool unbiased) const { return ember::std(*this, unbiased); }
Tensor Tensor::std(OptionalIntArrayRef dim, bool unbiased, bool keepdim) const {
  return ember::std(*this, dim, unbiased, keepdim);
}
Tensor Tensor::std(OptionalIntArrayRef dim, std::optional<int64_t> correction, bool keepdim) const {
  return ember::std(*this, dim, correction, keepdim);
}
Tensor Tensor::norm(const std::optional<Scalar>& p) const { return ember::norm(*this, p); }
Tensor Tensor::norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) const {
  return ember::norm(*this, p, dim, keepdim);
}
Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const { return ember::logsumexp(*this, dim, keepdim); }

}  // namespace ember
