// Reductions, part 1: the reduction op table, dim-list parsing, the plan builder that feeds
// the CPU engine (Note [Reduction plan]), and sum/nansum/mean/nanmean/prod/all/any/
// count_nonzero with their Tensor methods.
#include "ember/autograd/record.h"
#include "ember/ops/reduce.h"

#include <algorithm>

#include "ember/cuda/guard.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/core/tracing_call.h"

namespace ember {

// Each entry's autocast policies come from ember/ops/autocast_list.h by its name.
#define EMBER_DEFINE_REDUCE_OP(var, opname, set) \
  ReduceOp var(OpInfo{.name = opname, .fusion = FusionClass::Reduction, .dtypes = set});
EMBER_DEFINE_REDUCE_OP(sum_op, "sum", kAllTypes)
EMBER_DEFINE_REDUCE_OP(nansum_op, "nansum", kBoolType | kRealTypes)
EMBER_DEFINE_REDUCE_OP(prod_op, "prod", kAllTypes)
EMBER_DEFINE_REDUCE_OP(all_op, "all", kAllTypes)
EMBER_DEFINE_REDUCE_OP(any_op, "any", kAllTypes)
EMBER_DEFINE_REDUCE_OP(count_nonzero_op, "count_nonzero", kAllTypes)
EMBER_DEFINE_REDUCE_OP(vector_norm_op, "linalg_vector_norm", kFloatingAndComplexTypes)
EMBER_DEFINE_REDUCE_OP(var_mean_op, "var_mean", kFloatingTypes)
EMBER_DEFINE_REDUCE_OP(amax_op, "amax", kBoolType | kRealTypes)
EMBER_DEFINE_REDUCE_OP(amin_op, "amin", kBoolType | kRealTypes)
EMBER_DEFINE_REDUCE_OP(aminmax_op, "aminmax", kBoolType | kRealTypes)
EMBER_DEFINE_REDUCE_OP(max_dim_op, "max_dim", kBoolType | kRealTypes)
EMBER_DEFINE_REDUCE_OP(min_dim_op, "min_dim", kBoolType | kRealTypes)
#undef EMBER_DEFINE_REDUCE_OP

// ---- dims and shapes -------------------------------------------------------------------
DimMask make_dim_mask(OptionalIntArrayRef dims, int64_t ndim, const char* op) {
  DimMask mask;
  EMBER_CHECK(ndim <= 64, op, ": tensors with more than 64 dims are not supported (got ", ndim, ")");
  if (!dims || dims->empty()) {
    for (int64_t d = 0; d < ndim; ++d) mask.set(d);
    return mask;
  }
  for (int64_t d : *dims) {
    int64_t w = maybe_wrap_dim(d, ndim, op);
    EMBER_CHECK(!mask.test(w), "dim ", w, " appears multiple times in the list of dims");
    mask.set(w);
  }
  return mask;
}

DimVector reduced_shape(IntArrayRef sizes, const DimMask& mask, bool keepdim) {
  DimVector out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!mask.test(d)) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

void check_nonempty_reduction(const Tensor& self, const DimMask& mask, const char* op) {
  if (self.numel() != 0) return;
  if (self.dim() == 0) return;
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK_INDEX(!(mask.test(d) && self.size(d) == 0), op, "(): Expected reduction dim ", d,
                      " to have non-zero size.");
}

namespace {
struct PlanDim {
  int64_t size, in, out, out2;
};

void coalesce(std::vector<PlanDim>& v, bool kept) {
  if (v.empty()) return;
  size_t w = 0;
  for (size_t i = 1; i < v.size(); ++i) {
    PlanDim& a = v[w];
    const PlanDim& b = v[i];
    bool ok = a.in * a.size == b.in && (!kept || (a.out * a.size == b.out && a.out2 * a.size == b.out2));
    if (ok) a.size *= b.size;
    else v[++w] = b;
  }
  v.resize(w + 1);
}
}  // namespace

void run_reduction(const ReduceOp& op, const Tensor& in, const DimMask& mask, bool keepdim,
                   const Tensor& out, const Tensor& out2, const ReduceArgs& args, bool preserve_order) {
  if (in.is_meta()) return;
  int64_t nd = in.dim();
  std::vector<PlanDim> kept, red;
  int64_t od = 0;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t os = 0, os2 = 0;
    if (!mask.test(d) || keepdim) {
      if (!mask.test(d)) {
        os = out.stride(od);
        os2 = out2.defined() ? out2.stride(od) : 0;
      }
      ++od;
    }
    if (in.size(d) == 1) continue;
    if (mask.test(d)) red.push_back({in.size(d), in.stride(d), 0, 0});
    else kept.push_back({in.size(d), in.stride(d), os, os2});
  }
  // innermost first
  std::reverse(red.begin(), red.end());
  std::reverse(kept.begin(), kept.end());
  auto by_stride = [](const PlanDim& a, const PlanDim& b) {
    // zero strides (expanded dims) go outermost
    if ((a.in == 0) != (b.in == 0)) return b.in == 0;
    return a.in < b.in;
  };
  if (!preserve_order) std::stable_sort(red.begin(), red.end(), by_stride);
  std::stable_sort(kept.begin(), kept.end(), by_stride);
  coalesce(red, false);
  coalesce(kept, true);
  if (red.empty()) red.push_back({1, 0, 0, 0});
  if (kept.empty()) kept.push_back({1, 0, 0, 0});
  EMBER_CHECK(int(red.size()) <= kMaxReduceDims && int(kept.size()) <= kMaxReduceDims, op.name,
              ": too many non-mergeable dims (", nd, ") for the reduction engine; make the input contiguous");
  ReducePlan p;
  p.in = static_cast<const char*>(in.unsafeGetTensorImpl()->data());
  p.out = static_cast<char*>(out.unsafeGetTensorImpl()->data());
  p.out2 = out2.defined() ? static_cast<char*>(out2.unsafeGetTensorImpl()->data()) : nullptr;
  p.in_dtype = in.scalar_type();
  p.out_dtype = out.scalar_type();
  p.out2_dtype = out2.defined() ? out2.scalar_type() : ScalarType::Undefined;
  p.nk = int(kept.size());
  p.nr = int(red.size());
  p.num_outputs = 1;
  p.reduce_numel = 1;
  for (int i = 0; i < p.nk; ++i) {
    p.ksize[i] = kept[i].size;
    p.kin[i] = kept[i].in;
    p.kout[i] = kept[i].out;
    p.kout2[i] = kept[i].out2;
    p.num_outputs *= kept[i].size;
  }
  for (int i = 0; i < p.nr; ++i) {
    p.rsize[i] = red[i].size;
    p.rin[i] = red[i].in;
    p.reduce_numel *= red[i].size;
  }
  ReduceFn k = op.kernel(in.device().type());
  EMBER_CHECK(k != nullptr, op.name, ": no kernel for device ", in.device());
  DeviceGuard guard(in.device());  // a CUDA kernel runs on the tensor's device
  k(p, args);
  out.bump_version();
  if (out2.defined()) out2.bump_version();
}

Tensor reduce_to(const ReduceOp& op, const Tensor& in, const DimMask& mask, bool keepdim,
                 ScalarType out_dtype, const ReduceArgs& args) {
  Tensor out = empty(reduced_shape(in.sizes(), mask, keepdim), in.options().dtype(out_dtype));
  run_reduction(op, in, mask, keepdim, out, Tensor(), args);
  return out;
}

// ---- sum, nansum, mean, nanmean ---------------------------------------------------------
namespace {
// The dtype the sum/prod kernels produce for an input dtype.
ScalarType natural_sum_type(ScalarType t) { return isIntegralType(t, true) ? kLong : t; }

// Sum-like reductions with PyTorch's `dtype=` rule: the input is cast to dtype first
// (integral -> wider integral needs no cast: the kernel sums in int64, which wraps alike).
Tensor sum_like(const ReduceOp& op, const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                std::optional<ScalarType> dtype, const char* name) {
  check_defined(self, name);
  DimMask mask = make_dim_mask(dim, self.dim(), name);
  Tensor in = self;
  ScalarType result = dtype ? *dtype : natural_sum_type(self.scalar_type());
  if (dtype && *dtype != self.scalar_type() &&
      !(isIntegralType(self.scalar_type(), true) && isIntegralType(*dtype, false)))
    in = self.to(*dtype);
  Tensor out = reduce_to(op, in, mask, keepdim, natural_sum_type(in.scalar_type()));
  return out.scalar_type() == result ? out : out.to(result);
}
}  // namespace

namespace {
// sum and mean with their derivatives (mean divides by the reduced count).
Tensor differentiable_sum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                          bool is_mean, const std::function<Tensor()>& impl) {
  check_defined(self, is_mean ? "mean" : "sum");
  autograd::Recording rec({&self});
  if (EMBER_LIKELY(!rec.any())) return impl();
  Tensor r;
  {
    autograd::BelowAutogradGuard below;
    r = impl();
  }
  std::vector<int64_t> dims = autograd::reduced_dims(self.dim(), dim);
  double count = 1;
  for (int64_t d : dims) count *= double(self.size(d));
  if (rec.forward()) {
    std::vector<int64_t> dv(dims);
    rec.forward_each(r, [&](const std::function<Tensor(size_t)>& t) {
      Tensor tg = t(0);
      Tensor s = dim ? tg.sum(dv, keepdim, dtype) : tg.sum(dtype);
      return is_mean ? s.div(count) : s;
    });
  }
  if (rec.reverse()) {
    DimVector sizes(self.sizes());
    rec.record(is_mean ? "mean" : "sum", {&r}, [sizes, dims, keepdim, is_mean, count](const autograd::VjpCtx& c) {
      Tensor g = autograd::restore_reduced(c.grad(), dims, keepdim).expand(sizes);
      return autograd::variable_list{is_mean ? g.div(count) : g};
    });
  }
  return r;
}
}  // namespace

namespace {
// Traced ops (Note [Tracing hooks]): dim absent (all) or a list.
OptionalIntArrayRef dims_of(const tracing::Attrs& a, const std::vector<int64_t>& storage) {
  return tracing::has_attr(a, "dim") ? OptionalIntArrayRef(IntArrayRef(storage)) : OptionalIntArrayRef(std::nullopt);
}
const tracing::TracedOpDef sum_traced{{"sum", tracing::Fusion::Reduction, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  const std::vector<int64_t> d = tracing::has_attr(a, "dim") ? tracing::ints_attr(a, "dim", "sum") : std::vector<int64_t>{};
  return {sum(in.at(0), dims_of(a, d), tracing::bool_attr(a, "keepdim", "sum"), tracing::optional_dtype_attr(a, "dtype", "sum"))};
}}};
const tracing::TracedOpDef mean_traced{{"mean", tracing::Fusion::Reduction, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  const std::vector<int64_t> d = tracing::has_attr(a, "dim") ? tracing::ints_attr(a, "dim", "mean") : std::vector<int64_t>{};
  return {mean(in.at(0), dims_of(a, d), tracing::bool_attr(a, "keepdim", "mean"), tracing::optional_dtype_attr(a, "dtype", "mean"))};
}}};
tracing::Attr dims_attr(OptionalIntArrayRef dim) { return dim.has_value() ? tracing::Attr(tracing::ints(*dim)) : tracing::Attr(); }
}  // namespace

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  if (tracing::active())
    return tracing::traced_call(sum_traced, {self}, {{"dim", tracing::Attr()}, {"keepdim", Scalar(false)}, {"dtype", tracing::optional_dtype(dtype)}},
                                [&] { return sum(self, dtype); });
  return differentiable_sum(self, std::nullopt, false, dtype, false,
                            [&] { return sum_like(sum_op, self, std::nullopt, false, dtype, "sum"); });
}
Tensor sum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (tracing::active())
    return tracing::traced_call(sum_traced, {self}, {{"dim", dims_attr(dim)}, {"keepdim", Scalar(keepdim)}, {"dtype", tracing::optional_dtype(dtype)}},
                                [&] { return sum(self, dim, keepdim, dtype); });
  return differentiable_sum(self, dim, keepdim, dtype, false,
                            [&] { return sum_like(sum_op, self, dim, keepdim, dtype, "sum"); });
}
Tensor nansum(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // the sum of the non-NaN elements: their gradient passes, NaNs get zero
    std::vector<int64_t> dims = autograd::reduced_dims(self.dim(), dim);
    DimVector sizes(self.sizes());
    return autograd::differentiable(
        "nansum", {&self}, [&] { return nansum(self, dim, keepdim, dtype); },
        [dims, keepdim, sizes](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0);
          Tensor g = autograd::restore_reduced(c.grad(), dims, keepdim).expand(sizes);
          return autograd::variable_list{where(x.isnan(), zeros_like(g), g)};
        },
        [&](const auto& t, const Tensor&) {
          return where(self.isnan(), zeros_like(t(0)), t(0)).sum(IntArrayRef(dims), keepdim);
        },
        {{self}});
  }
  EMBER_CHECK_TYPE(!self.is_complex() && !(dtype && isComplexType(*dtype)), "nansum does not support complex inputs");
  return sum_like(nansum_op, self, dim, keepdim, dtype, "nansum");
}

Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) { return mean(self, std::nullopt, false, dtype); }
Tensor mean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (tracing::active())
    return tracing::traced_call(mean_traced, {self}, {{"dim", dims_attr(dim)}, {"keepdim", Scalar(keepdim)}, {"dtype", tracing::optional_dtype(dtype)}},
                                [&] { return mean(self, dim, keepdim, dtype); });
  check_defined(self, "mean");
  if (EMBER_UNLIKELY(self.unsafeGetTensorImpl()->autograd_meta() != nullptr)) {
    autograd::Recording rec({&self});
    if (rec.any())
      return differentiable_sum(self, dim, keepdim, dtype, true, [&] { return mean(self, dim, keepdim, dtype); });
  }
  ScalarType result = dtype ? *dtype : self.scalar_type();
  EMBER_CHECK_TYPE(isFloatingType(result) || isComplexType(result),
                   "mean(): could not infer output dtype. ", dtype ? "Optional" : "Input",
                   " dtype must be either a floating point or complex dtype. Got: ", result);
  DimMask mask = make_dim_mask(dim, self.dim(), "mean");
  Tensor in = self.to(result);
  int64_t n = 1;
  for (int64_t d = 0; d < self.dim(); ++d) if (mask.test(d)) n *= self.size(d);
  ReduceArgs args;
  args.mean = true;
  args.p = double(n);
  return reduce_to(sum_op, in, mask, keepdim, result, args);
}

Tensor nanmean(const Tensor& self, OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK_TYPE(self.is_floating_point(), "nanmean(): expected input to have floating point dtype but got ",
                   self.scalar_type());
  Tensor count = sum(logical_not(isnan(self)), dim, keepdim);
  return div(nansum(self, dim, keepdim, dtype), count);
}

// ---- prod ---------------------------------------------------------------------------------
namespace {
// For each element, the product of the other elements along dim d (keepdim layout), exact
// with zeros: no zero -> prod / x; one zero -> the product of the rest at the zero, 0
// elsewhere; more -> 0. Written with differentiable ops (x is never divided by 0).
Tensor prod_of_others(const Tensor& x, int64_t d) {
  Tensor is_zero = x.eq(0);
  Tensor zeros_along = is_zero.sum(d, true);
  Tensor safe = where(is_zero, ones_like(x), x);
  Tensor prod_nonzero = safe.prod(d, true);
  Tensor one_zero = where(is_zero, prod_nonzero.expand(x.sizes()), zeros_like(x));
  return where(zeros_along.eq(0), prod_nonzero.div(safe), where(zeros_along.eq(1), one_zero, zeros_like(x)));
}
Tensor differentiable_prod(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                           const std::function<Tensor()>& impl) {
  const bool all = !dim;
  const int64_t d = all ? 0 : maybe_wrap_dim(*dim, std::max<int64_t>(self.dim(), 1));
  DimVector sizes(self.sizes());
  auto others_of = [all, d](const Tensor& x) { return all ? prod_of_others(x.reshape({-1}), 0) : prod_of_others(x, d); };
  auto restore = [all, d, keepdim](const Tensor& g, IntArrayRef shape) {
    if (all) return g.reshape({1}).expand({g.numel() ? 1 : 1});
    return keepdim || shape.empty() ? g : g.unsqueeze(d);
  };
  return autograd::differentiable(
      "prod", {&self}, impl,
      [sizes, others_of, restore, all](const autograd::VjpCtx& c) {
        Tensor x = c.saved_tensor(0);
        Tensor others = others_of(x).conj();
        Tensor g = restore(c.grad(), sizes);
        Tensor r = all ? g.mul(others).view(sizes) : g.mul(others);
        return autograd::variable_list{r};
      },
      [&](const auto& t, const Tensor&) {
        Tensor others = others_of(self);
        if (all) return t(0).reshape({-1}).mul(others).sum();
        return t(0).mul(others).sum(d, keepdim);
      },
      {{self}});
}
}  // namespace

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_ENTRY(prod_op, prod(_ac[0], dtype), &self);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return differentiable_prod(self, std::nullopt, false, [&] { return prod(self, dtype); });
  return sum_like(prod_op, self, std::nullopt, false, dtype, "prod");
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_AUTOCAST_ENTRY(prod_op, prod(_ac[0], dim, keepdim, dtype), &self);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return differentiable_prod(self, dim, keepdim, [&] { return prod(self, dim, keepdim, dtype); });
  int64_t d = dim;
  return sum_like(prod_op, self, IntArrayRef(&d, 1), keepdim, dtype, "prod");
}

// ---- all, any, count_nonzero ----------------------------------------------------------------
namespace {
Tensor all_any(const ReduceOp& op, const Tensor& self, OptionalIntArrayRef dim, bool keepdim, const char* name) {
  check_defined(self, name);
  DimMask mask = make_dim_mask(dim, self.dim(), name);
  ScalarType out = self.scalar_type() == kByte ? kByte : kBool;
  return reduce_to(op, self, mask, keepdim, out);
}
}  // namespace
Tensor all(const Tensor& self) { return all_any(all_op, self, std::nullopt, false, "all"); }
Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  return all_any(all_op, self, IntArrayRef(&dim, 1), keepdim, "all");
}
Tensor any(const Tensor& self) { return all_any(any_op, self, std::nullopt, false, "any"); }
Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  return all_any(any_op, self, IntArrayRef(&dim, 1), keepdim, "any");
}

Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  DimMask mask = make_dim_mask(dim, self.dim(), "count_nonzero");
  return reduce_to(count_nonzero_op, self, mask, false, kLong);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  if (!dim) return count_nonzero(self, IntArrayRef());
  int64_t d = *dim;
  return count_nonzero(self, IntArrayRef(&d, 1));
}

// ---- Tensor methods -------------------------------------------------------------------------
Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::nansum(OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nansum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dim, keepdim, dtype);
}
Tensor Tensor::nanmean(OptionalIntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::nanmean(*this, dim, keepdim, dtype);
}
Tensor Tensor::prod(std::optional<ScalarType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return ember::all(*this, dim, keepdim); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return ember::any(*this, dim, keepdim); }
Tensor Tensor::count_nonzero(std::optional<int64_t> dim) const { return ember::count_nonzero(*this, dim); }
Tensor Tensor::count_nonzero(IntArrayRef dim) const { return ember::count_nonzero(*this, dim); }

}  // namespace ember
