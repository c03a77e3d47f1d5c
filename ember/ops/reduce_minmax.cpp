// Reductions, part 2: amax/amin, max/min (full and (values, indices) along a dim), aminmax
// and argmax/argmin, with their Tensor methods. NaN propagates; ties take the first index.
#include "ember/autograd/record.h"
#include "ember/ops/functions.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/reduce.h"

namespace ember {

namespace {
void check_not_complex(const Tensor& self, const char* op) {
  EMBER_CHECK_TYPE(!self.is_complex(), op, "(): does not support complex input (got ", self.scalar_type(), ")");
}
// Reductions without an identity: all-dims reductions of an empty tensor and empty reduced
// dims are errors, worded as in PyTorch.
void check_has_elements(const Tensor& self, const DimMask& mask, bool all_dims, const char* op,
                        bool index_error = false) {
  if (self.numel() != 0) return;
  if (all_dims) {
    std::string msg = ember::detail::str_cat(op, "(): Expected reduction dim to be specified for input.numel() == 0.",
                                      index_error ? "" : " Specify the reduction dim with the 'dim' argument.");
    if (index_error) detail::throw_index_error(msg);
    EMBER_ERROR(msg);
  }
  check_nonempty_reduction(self, mask, op);
}
}  // namespace

// ---- amax, amin -----------------------------------------------------------------------------
namespace {
Tensor amax_amin(const ReduceOp& op, const Tensor& self, IntArrayRef dim, bool keepdim, const char* name) {
  check_defined(self, name);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // The gradient is shared evenly among the elements equal to the extremum (PyTorch's rule).
    std::vector<int64_t> dims = autograd::reduced_dims(self.dim(), dim);
    return autograd::differentiable(
        name, {&self}, [&] { return amax_amin(op, self, dim, keepdim, name); },
        [dims, keepdim](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0), y = c.saved_tensor(1);
          Tensor mask = x.eq(autograd::restore_reduced(y, dims, keepdim)).to(x.scalar_type());
          Tensor share = mask.div(mask.sum(dims, true));
          return autograd::variable_list{autograd::restore_reduced(c.grad(), dims, keepdim).mul(share)};
        },
        [&](const auto& t, const Tensor& y) {
          Tensor mask = self.eq(autograd::restore_reduced(y, dims, keepdim)).to(self.scalar_type());
          Tensor share = mask.div(mask.sum(dims, true));
          return t(0).mul(share).sum(dims, keepdim);
        },
        {{self}}, /*save_result=*/true);
  }
  check_not_complex(self, name);
  DimMask mask = make_dim_mask(dim, self.dim(), name);
  check_has_elements(self, mask, dim.empty(), name);
  return reduce_to(op, self, mask, keepdim, self.scalar_type());
}
}  // namespace
namespace {
std::vector<Tensor> run_amax_amin(const tracing::TracedOp& op, const std::vector<Tensor>& in, const tracing::Attrs& a) {
  const std::vector<int64_t> dim = tracing::ints_attr(a, "dim", op.name);
  const bool keepdim = tracing::bool_attr(a, "keepdim", op.name);
  return {op.name == "amax" ? amax(in.at(0), dim, keepdim) : amin(in.at(0), dim, keepdim)};
}
const tracing::TracedOpDef amax_traced{{"amax", tracing::Fusion::Reduction, &run_amax_amin}};
const tracing::TracedOpDef amin_traced{{"amin", tracing::Fusion::Reduction, &run_amax_amin}};
}  // namespace

Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  if (tracing::active())
    return tracing::traced_call(amax_traced, {self}, {{"dim", tracing::ints(dim)}, {"keepdim", Scalar(keepdim)}},
                                [&] { return amax(self, dim, keepdim); });
  return amax_amin(amax_op, self, dim, keepdim, "amax");
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  if (tracing::active())
    return tracing::traced_call(amin_traced, {self}, {{"dim", tracing::ints(dim)}, {"keepdim", Scalar(keepdim)}},
                                [&] { return amin(self, dim, keepdim); });
  return amax_amin(amin_op, self, dim, keepdim, "amin");
}

// max() and min() of every element are amax and amin over no dims (a traced program records them so).
Tensor max(const Tensor& self) {
  if (tracing::active()) return amax(self, {}, false);
  return amax_amin(amax_op, self, {}, false, "max");
}
Tensor min(const Tensor& self) {
  if (tracing::active()) return amin(self, {}, false);
  return amax_amin(amin_op, self, {}, false, "min");
}

// ---- max/min along a dim ----------------------------------------------------------------------
namespace {
std::tuple<Tensor, Tensor> minmax_dim(const ReduceOp& op, const Tensor& self, int64_t dim, bool keepdim,
                                      const char* name) {
  check_not_complex(self, name);
  DimMask mask = make_dim_mask(IntArrayRef(&dim, 1), self.dim(), name);
  check_nonempty_reduction(self, mask, name);
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  Tensor values = empty(shape, self.options());
  Tensor indices = empty(shape, self.options().dtype(kLong));
  ReduceArgs args;
  args.with_values = true;
  run_reduction(op, self, mask, keepdim, values, indices, args, /*preserve_order=*/true);
  return {values, indices};
}

Tensor arg_impl(const ReduceOp& op, const Tensor& self, std::optional<int64_t> dim, bool keepdim, const char* name) {
  check_defined(self, name);
  EMBER_CHECK_TYPE(!self.is_complex(), name, "(): not implemented for complex dtype ", self.scalar_type());
  DimMask mask = dim ? make_dim_mask(IntArrayRef(&*dim, 1), self.dim(), name)
                     : make_dim_mask(std::nullopt, self.dim(), name);
  if (self.numel() == 0) {
    EMBER_CHECK_INDEX(dim.has_value(), name, "(): Expected reduction dim to be specified for input.numel() == 0.");
    check_nonempty_reduction(self, mask, name);
  }
  ReduceArgs args;
  args.with_values = false;
  Tensor out = empty(reduced_shape(self.sizes(), mask, keepdim), self.options().dtype(kLong));
  run_reduction(op, self, mask, keepdim, out, Tensor(), args, /*preserve_order=*/true);
  return out;
}
}  // namespace

namespace {
// max/min along a dim (values and indices) and argmax/argmin, as traced nodes (opaque: they run
// op by op in a traced program).
std::vector<Tensor> run_select_dim(const tracing::TracedOp& op, const std::vector<Tensor>& in, const tracing::Attrs& a) {
  const int64_t dim = tracing::int_attr(a, "dim", op.name);
  const bool keepdim = tracing::bool_attr(a, "keepdim", op.name);
  if (op.name == "max_dim") return tracing::as_outputs(max(in.at(0), dim, keepdim));
  return tracing::as_outputs(min(in.at(0), dim, keepdim));
}
std::vector<Tensor> run_arg(const tracing::TracedOp& op, const std::vector<Tensor>& in, const tracing::Attrs& a) {
  const std::optional<int64_t> dim = tracing::optional_int_attr(a, "dim", op.name);
  const bool keepdim = tracing::bool_attr(a, "keepdim", op.name);
  return {op.name == "argmax" ? argmax(in.at(0), dim, keepdim) : argmin(in.at(0), dim, keepdim)};
}
const tracing::TracedOpDef max_dim_traced{{"max_dim", tracing::Fusion::Opaque, &run_select_dim}};
const tracing::TracedOpDef min_dim_traced{{"min_dim", tracing::Fusion::Opaque, &run_select_dim}};
const tracing::TracedOpDef argmax_traced{{"argmax", tracing::Fusion::Opaque, &run_arg}};
const tracing::TracedOpDef argmin_traced{{"argmin", tracing::Fusion::Opaque, &run_arg}};
}  // namespace

std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  if (tracing::active())
    return tracing::traced_call(max_dim_traced, {self}, {{"dim", Scalar(dim)}, {"keepdim", Scalar(keepdim)}},
                                [&] { return max(self, dim, keepdim); });
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return autograd::differentiable_select("max", self, dim, keepdim, [&] { return max(self, dim, keepdim); });
  return minmax_dim(max_dim_op, self, dim, keepdim, "max");
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  if (tracing::active())
    return tracing::traced_call(min_dim_traced, {self}, {{"dim", Scalar(dim)}, {"keepdim", Scalar(keepdim)}},
                                [&] { return min(self, dim, keepdim); });
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return autograd::differentiable_select("min", self, dim, keepdim, [&] { return min(self, dim, keepdim); });
  return minmax_dim(min_dim_op, self, dim, keepdim, "min");
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (tracing::active())
    return tracing::traced_call(argmax_traced, {self}, {{"dim", tracing::optional_int(dim)}, {"keepdim", Scalar(keepdim)}},
                                [&] { return argmax(self, dim, keepdim); });
  return arg_impl(max_dim_op, self, dim, keepdim, "argmax");
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (tracing::active())
    return tracing::traced_call(argmin_traced, {self}, {{"dim", tracing::optional_int(dim)}, {"keepdim", Scalar(keepdim)}},
                                [&] { return argmin(self, dim, keepdim); });
  return arg_impl(min_dim_op, self, dim, keepdim, "argmin");
}

// ---- aminmax ----------------------------------------------------------------------------------
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    // the two extrema, each with amin/amax's derivative
    if (dim) return {amin(self, IntArrayRef(&*dim, 1), keepdim), amax(self, IntArrayRef(&*dim, 1), keepdim)};
    return {amin(self, {}, keepdim), amax(self, {}, keepdim)};
  }
  check_not_complex(self, "aminmax");
  DimMask mask = dim ? make_dim_mask(IntArrayRef(&*dim, 1), self.dim(), "aminmax")
                     : make_dim_mask(std::nullopt, self.dim(), "aminmax");
  bool empty_reduction = self.numel() == 0 && (!dim || self.dim() == 0 || self.size(maybe_wrap_dim(*dim, self.dim())) == 0);
  EMBER_CHECK(!empty_reduction,
              "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  DimVector shape = reduced_shape(self.sizes(), mask, keepdim);
  Tensor lo = empty(shape, self.options()), hi = empty(shape, self.options());
  run_reduction(aminmax_op, self, mask, keepdim, lo, hi, {});
  return {lo, hi};
}

// ---- Tensor methods ---------------------------------------------------------------------------
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const { return ember::amax(*this, dim, keepdim); }
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const { return ember::amin(*this, dim, keepdim); }
Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return ember::max(*this, dim, keepdim); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return ember::min(*this, dim, keepdim); }
std::tuple<Tensor, Tensor> Tensor::aminmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::aminmax(*this, dim, keepdim);
}
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const { return ember::argmax(*this, dim, keepdim); }
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const { return ember::argmin(*this, dim, keepdim); }

}  // namespace ember
