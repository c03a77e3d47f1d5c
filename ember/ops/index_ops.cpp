// Indexing ops along a dim or by mask: index_select, gather, scatter (src, value, add,
// reduce), index_add/copy/fill, masked_fill/select/scatter, take, put, nonzero and where,
// with their Tensor methods. Shape/dtype checks live here; loops in cpu/index_kernels.cpp.
#include <limits>

#include "ember/core/tracing_call.h"
#include "ember/autograd/record.h"
#include "ember/ops/autocast.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/out_arg.h"
#include "ember/ops/indexing.h"
#include "ember/ops/type_promotion.h"
#include "ember/ops/views.h"

namespace ember {

OpDef<ScatterGatherFn> scatter_gather_op(OpInfo{.name = "scatter_gather"});
OpDef<MaskedFillFn> masked_fill_op(OpInfo{.name = "masked_fill_"});
OpDef<WhereFn> where_op(OpInfo{.name = "where"});
OpDef<NonzeroFn> nonzero_op(OpInfo{.name = "nonzero"});

namespace {

template <class Fn>
Fn kernel_for(const OpDef<Fn>& op, Device d) {
  Fn k = op.kernel(d.type());
  EMBER_CHECK(k != nullptr, op.name, ": no kernel for device ", d);
  return k;
}

// Scatter/gather treat 0-dim tensors as 1-element vectors.
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// Validates scatter indices before anything is written (in-place ops leave self intact).
void check_scatter_indices(const char* op, const Tensor& index, int64_t dim, int64_t size) {
  check_index_range(index, 0, size, [&](int64_t v) {
    EMBER_CHECK_INDEX(false, op, "(): index ", v, " is out of bounds for dimension ", dim, " with size ", size);
  });
}

// Note [Scatter-gather iteration]: iterate over index's shape with `dim` collapsed to 1;
// the kernel walks dim itself, so each loop element owns one line of the written tensor.
DimVector collapsed_shape(const Tensor& index, int64_t dim) {
  DimVector s(index.sizes());
  s[dim] = 1;
  return s;
}

void gather_into(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  DimVector shape = collapsed_shape(index, dim);
  int64_t isz = int64_t(self.element_size());
  ScatterGatherArgs a{ScatterMode::Gather, dim, index.size(dim), self.size(dim), self.stride(dim) * isz,
                      index.stride(dim) * 8, out.stride(dim) * isz, Scalar()};
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("gather")
                          .add_output(make_view(out, shape, out.strides(), out.storage_offset()))
                          .add_input(make_view(self, shape, self.strides(), self.storage_offset()))
                          .add_input(make_view(index, shape, index.strides(), index.storage_offset()))
                          .promote_inputs_to_common_dtype(false)
                          .cast_common_dtype_to_outputs(false)
                          .declare_static_output_dtype(self.scalar_type())
                          .resize_outputs(false)
                          .build();
  kernel_for(scatter_gather_op, self.device())(it, a);
}

// self (in place) op= src along dim at index; src undefined for ScatterFill.
void scatter_into(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                  ScatterMode mode, const Scalar& value = Scalar()) {
  if (index.numel() == 0 || self.is_meta()) return;
  check_scatter_indices(op, index, dim, self.size(dim));
  DimVector shape = collapsed_shape(index, dim);
  int64_t isz = int64_t(self.element_size());
  // A src sharing memory with self would be read after being overwritten.
  Tensor s = src.defined() && src.is_alias_of(self) ? src.clone() : src;
  ScatterGatherArgs a{mode, dim, index.size(dim), self.size(dim), self.stride(dim) * isz, index.stride(dim) * 8,
                      s.defined() ? s.stride(dim) * isz : 0, value};
  TensorIteratorConfig cfg;
  cfg.set_op_name("scatter")
      .add_output(make_view(self, shape, self.strides(), self.storage_offset()))
      .add_input(make_view(index, shape, index.strides(), index.storage_offset()))
      .is_inplace(true)
      .promote_inputs_to_common_dtype(false)
      .cast_common_dtype_to_outputs(false)
      .declare_static_output_dtype(self.scalar_type())
      .resize_outputs(false);
  if (s.defined()) cfg.add_input(make_view(s, shape, s.strides(), s.storage_offset()));
  TensorIterator it = cfg.build();
  kernel_for(scatter_gather_op, self.device())(it, a);
  self.bump_version();
}

// PyTorch's scatter_shape_check / gather_shape_check.
void check_scatter_shapes(const char* op, const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  EMBER_CHECK(index.scalar_type() == kLong, op, "(): Expected dtype int64 for index");
  if (src) EMBER_CHECK(self.scalar_type() == src->scalar_type(), op, "(): Expected self.dtype to be equal to src.dtype");
  int64_t nd = std::max<int64_t>(self.dim(), 1), id = std::max<int64_t>(index.dim(), 1);
  EMBER_CHECK(id == nd, op, "(): Index tensor must have the same number of dimensions as self tensor");
  if (src) EMBER_CHECK(std::max<int64_t>(src->dim(), 1) == id,
                       op, "(): Index tensor must have the same number of dimensions as src tensor");
  Tensor s = at_least_1d(self), i = at_least_1d(index);
  bool ok = true;
  for (int64_t d = 0; d < nd; ++d) {
    if (d != dim && i.size(d) > s.size(d)) ok = false;
    if (src && i.size(d) > at_least_1d(*src).size(d)) ok = false;
  }
  if (!ok) {
    if (src)
      EMBER_ERROR(op, "(): Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                  " apart from dimension ", dim, " and to be smaller size than src ", src->sizes());
    EMBER_ERROR(op, "(): Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                " apart from dimension ", dim);
  }
}

Tensor& scatter_impl(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const char* op,
                     ScatterMode mode) {
  dim = maybe_wrap_dim(dim, self.dim(), op);
  check_scatter_shapes(op, self, dim, index, &src);
  check_no_internal_overlap(self, op);
  scatter_into(op, at_least_1d(self), dim, at_least_1d(index), at_least_1d(src), mode);
  return self;
}

// The identity of a scatter_reduce reduction, for include_self = false.
Scalar reduce_identity(std::string_view reduce, ScalarType t) {
  if (reduce == "sum" || reduce == "mean") return Scalar(int64_t(0));
  if (reduce == "prod") return Scalar(int64_t(1));
  bool mx = reduce == "amax";
  if (t == kBool) return Scalar(!mx);
  if (isFloatingType(t)) return Scalar(mx ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity());
  return visit_dtype<kIntegralTypes>(t, "scatter_reduce", [&](auto tag) -> Scalar {
    using T = typename decltype(tag)::type;
    return Scalar(int64_t(mx ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max()));
  });
}

void check_index_vector(const char* op, const Tensor& index, bool allow_int32) {
  EMBER_CHECK_INDEX(index.dim() <= 1, op, "(): Index is supposed to be a vector");
  if (allow_int32)
    EMBER_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt, op,
                "(): Expected dtype int32 or int64 for index");
}

// Checks `source` against self for index_add_/index_copy_ and returns it shaped like the
// result of indexing self along dim with `n` indices.
Tensor source_for(const char* op, const Tensor& self, int64_t dim, const Tensor& source, int64_t n) {
  int64_t src_n = source.dim() == 0 ? 1 : source.size(dim < source.dim() ? dim : 0);
  if (std::string_view(op) == "index_copy_")
    EMBER_CHECK_INDEX(src_n == n, "index_copy_(): Number of indices (", n, ") should be equal to source.size(dim) (",
                      src_n, ")");
  else
    EMBER_CHECK(src_n == n, op, "(): Number of indices (", n, ") should be equal to source.size(dim): (", src_n,
                "), for dim: ", dim);
  DimVector want(self.sizes());
  if (want.empty()) want.push_back(1);
  want[dim] = n;
  if (source.dim() == 0 || (source.dim() <= 1 && self.dim() <= 1)) return source.reshape(want);
  EMBER_CHECK(source.sizes() == IntArrayRef(want), op, "(): source of shape ", source.sizes(),
              " does not match self of shape ", self.sizes(), " outside dimension ", dim, " (expected ",
              IntArrayRef(want), ")");
  return source;
}

void check_mask_dtype(const char* what, const Tensor& mask) {
  EMBER_CHECK(mask.scalar_type() == kBool || mask.scalar_type() == kByte, what, " only supports boolean masks, but got mask with dtype ",
              mask.scalar_type());
}

void check_value_fits(const char* op, const Tensor& self, const Scalar& v) {
  EMBER_CHECK(self.is_complex() || !v.isComplex() || v.toComplexDouble().imag() == 0, op,
              ": value cannot be converted to type ", self.scalar_type(), " without overflow");
}

}  // namespace

// ---- index_select / gather / scatter ---------------------------------------------------------
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  check_defined(self, "index_select");
  check_defined(index, "index_select", "index");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    DimVector sizes(self.sizes());
    return autograd::differentiable(
        "index_select", {&self}, [&] { return index_select(self, dim, index); },
        [sizes, dim, index](const autograd::VjpCtx& c) {
          return autograd::variable_list{zeros(sizes, c.grad().options()).index_add(dim, index, c.grad())};
        },
        [&](const auto& t, const Tensor&) { return index_select(t(0), dim, index); });
  }
  check_index_vector("index_select", index, true);
  if (self.dim() == 0) {
    maybe_wrap_dim(dim, 0, "index_select");
    index_dims(self.view({1}), 0, {index.reshape({-1})}, {IndexErrorStyle::Select, "index_select"});  // validates
    return self.clone();
  }
  dim = maybe_wrap_dim(dim, self.dim(), "index_select");
  return index_dims(self, dim, {index.reshape({-1})}, {IndexErrorStyle::Select, "index_select"});
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  check_defined(self, "gather");
  check_defined(index, "gather", "index");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    DimVector sizes(self.sizes());
    return autograd::differentiable(
        "gather", {&self}, [&] { return gather(self, dim, index, sparse_grad); },
        [sizes, dim, index](const autograd::VjpCtx& c) {
          return autograd::variable_list{zeros(sizes, c.grad().options()).scatter_add(dim, index, c.grad())};
        },
        [&](const auto& t, const Tensor&) { return gather(t(0), dim, index); });
  }
  dim = maybe_wrap_dim(dim, self.dim(), "gather");
  EMBER_CHECK(index.scalar_type() == kLong, "gather(): Expected dtype int64 for index");
  int64_t nd = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == nd,
              "gather(): Index tensor must have the same number of dimensions as input tensor");
  Tensor s = at_least_1d(self), i = at_least_1d(index);
  for (int64_t d = 0; d < nd; ++d)
    EMBER_CHECK(d == dim || i.size(d) <= s.size(d), "gather(): Size does not match at dimension ", d, " expected index ",
                index.sizes(), " to be smaller than self ", self.sizes(), " apart from dimension ", dim);
  Tensor out = empty(index.sizes(), self.options());
  if (index.numel() == 0 || self.is_meta()) return out;
  Tensor o = at_least_1d(out);
  // The CPU kernel checks each index as it reads it; a device's is checked before.
  if (!self.is_cpu()) check_scatter_indices("gather", i, dim, s.size(dim));
  gather_into(o, s, dim, i);
  return out;
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, src))) {
    return autograd::differentiable(
        "scatter", {&self, &src}, [&] { return scatter(self, dim, index, src); },
        [dim, index](const autograd::VjpCtx& c) {
          return autograd::variable_list{c.needs_input_grad(0) ? c.grad().scatter(dim, index, 0) : Tensor(),
                                         c.needs_input_grad(1) ? c.grad().gather(dim, index) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          return scatter(autograd::tangent_or_zeros(t(0), r), dim, index, autograd::tangent_or_zeros(t(1), src));
        });
  }
  Tensor r = self.clone();
  return scatter_impl(r, dim, index, src, "scatter", ScatterMode::Scatter);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    return autograd::differentiable(
        "scatter", {&self}, [&] { return scatter(self, dim, index, value); },
        [dim, index](const autograd::VjpCtx& c) { return autograd::variable_list{c.grad().scatter(dim, index, 0)}; },
        [&](const auto& t, const Tensor&) { return t(0).scatter(dim, index, 0); });
  }
  Tensor r = self.clone();
  return r.scatter_(dim, index, value);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, src))) {
    return autograd::differentiable(
        "scatter_add", {&self, &src}, [&] { return scatter_add(self, dim, index, src); },
        [dim, index](const autograd::VjpCtx& c) {
          return autograd::variable_list{c.grad(), c.needs_input_grad(1) ? c.grad().gather(dim, index) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          return scatter_add(autograd::tangent_or_zeros(t(0), r), dim, index, autograd::tangent_or_zeros(t(1), src));
        });
  }
  Tensor r = self.clone();
  return scatter_impl(r, dim, index, src, "scatter_add", ScatterMode::Sum);
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, src)) && reduce == "prod") {
    // d result_p / d c = the product of the other values combined at p, exact with zeros:
    // with z_p zeros among them and P_p the product of the non-zero ones, a value v gets
    // P_p / v (z_p = 0), P_p if it is the zero (z_p = 1), else 0.
    auto others = [dim, index, include_self](const Tensor& x, const Tensor& s) {
      const ScalarType t = x.scalar_type();
      Tensor xz = x.eq(0), sz = s.eq(0);
      Tensor xs = where(xz, ones_like(x), x), ss = where(sz, ones_like(s), s);
      Tensor nz_prod = xs.scatter_reduce(dim, index, ss, "prod", include_self);
      Tensor zeros_at;
      {
        autograd::BelowAutogradGuard below;
        zeros_at = (include_self ? xz.to(t) : zeros_like(x)).scatter_add(dim, index, sz.to(t));
      }
      auto pick = [&](const Tensor& v, const Tensor& vz, const Tensor& safe, const Tensor& P, const Tensor& Z) {
        return where(Z.eq(0), P.div(safe), where(Z.eq(1).logical_and(vz), P, zeros_like(P)));
      };
      Tensor o_self = pick(x, xz, xs, nz_prod, zeros_at);
      Tensor o_src = pick(s, sz, ss, nz_prod.gather(dim, index), zeros_at.gather(dim, index));
      return std::make_pair(o_self, o_src);
    };
    return autograd::differentiable(
        "scatter_reduce", {&self, &src}, [&] { return scatter_reduce(self, dim, index, src, reduce, include_self); },
        [dim, index, include_self, others](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0), sv = c.saved_tensor(1);
          auto [o_self, o_src] = others(x, sv);
          Tensor untouched = zeros_like(x).scatter_add(dim, index, ones_like(sv)).eq(0);
          Tensor gx = include_self ? c.grad().mul(o_self.conj()) : where(untouched, c.grad(), zeros_like(x));
          return autograd::variable_list{c.needs_input_grad(0) ? gx : Tensor(),
                                         c.needs_input_grad(1) ? c.grad().gather(dim, index).mul(o_src.conj()) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor ts = autograd::tangent_or_zeros(t(0), r), tsrc = autograd::tangent_or_zeros(t(1), src);
          auto [o_self, o_src] = others(self, src);
          Tensor untouched = zeros_like(self).scatter_add(dim, index, ones_like(src)).eq(0);
          Tensor base = include_self ? ts.mul(o_self) : zeros_like(ts);
          Tensor d = base.scatter_add(dim, index, tsrc.mul(o_src));
          return include_self ? d : where(untouched, ts, d);
        },
        {{self}, {src}});
  }
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, src)) && (reduce == "amax" || reduce == "amin")) {
    // The gradient is shared evenly among the values equal to the result (self's when
    // included, and the scattered ones), as PyTorch.
    return autograd::differentiable(
        "scatter_reduce", {&self, &src}, [&] { return scatter_reduce(self, dim, index, src, reduce, include_self); },
        [dim, index, include_self](const autograd::VjpCtx& c) {
          Tensor x = c.saved_tensor(0), s = c.saved_tensor(1), r = c.saved_tensor(2);
          Tensor self_hit = include_self ? x.eq(r).to(x.scalar_type()) : zeros_like(x);
          Tensor src_hit = s.eq(r.gather(dim, index)).to(s.scalar_type());
          Tensor count = self_hit.scatter_add(dim, index, src_hit);
          Tensor untouched = zeros_like(x).scatter_add(dim, index, ones_like(s)).eq(0);  // nothing scattered here
          Tensor share = c.grad().div(where(count.eq(0), ones_like(count), count));
          Tensor gx = where(untouched, c.grad(), share.mul(self_hit));
          return autograd::variable_list{c.needs_input_grad(0) ? gx : Tensor(),
                                         c.needs_input_grad(1) ? share.gather(dim, index).mul(src_hit) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor ts = autograd::tangent_or_zeros(t(0), r), tsrc = autograd::tangent_or_zeros(t(1), src);
          Tensor self_hit = include_self ? self.eq(r).to(self.scalar_type()) : zeros_like(self);
          Tensor src_hit = src.eq(r.gather(dim, index)).to(src.scalar_type());
          Tensor count = self_hit.scatter_add(dim, index, src_hit);
          Tensor untouched = zeros_like(self).scatter_add(dim, index, ones_like(src)).eq(0);
          Tensor sum = ts.mul(self_hit).scatter_add(dim, index, tsrc.mul(src_hit));
          return where(untouched, ts, sum.div(where(count.eq(0), ones_like(count), count)));
        },
        {{self}, {src}}, /*save_result=*/true);
  }
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, src)) && (reduce == "sum" || reduce == "mean")) {
    // N: how many values each position of the result combines (self counted when included).
    const bool mean = reduce == "mean";
    Tensor n;
    {
      autograd::BelowAutogradGuard below;
      n = (include_self ? ones_like(self) : zeros_like(self)).scatter_add(dim, index, ones_like(src));
    }
    return autograd::differentiable(
        "scatter_reduce", {&self, &src}, [&] { return scatter_reduce(self, dim, index, src, reduce, include_self); },
        [dim, index, n, mean, include_self](const autograd::VjpCtx& c) {
          Tensor g = mean ? c.grad().div(n.clamp_min(1)) : c.grad();
          Tensor gs = include_self ? g : where(n.eq(0), c.grad(), zeros_like(g));
          return autograd::variable_list{c.needs_input_grad(0) ? gs : Tensor(),
                                         c.needs_input_grad(1) ? g.gather(dim, index) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor ts = autograd::tangent_or_zeros(t(0), r), tsrc = autograd::tangent_or_zeros(t(1), src);
          return scatter_reduce(ts, dim, index, tsrc, reduce, include_self);
        });
  }
  Tensor r = self.clone();
  return r.scatter_reduce_(dim, index, src, reduce, include_self);
}

Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self(), src)))
    return autograd::assign_inplace(self(), ember::scatter(self(), dim, index, src), "scatter_");
  return scatter_impl(self(), dim, index, src, "scatter", ScatterMode::Scatter);
}
Tensor& Tensor::scatter_(int64_t dim, const Tensor& index, const Scalar& value) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self())))
    return autograd::assign_inplace(self(), ember::scatter(self(), dim, index, value), "scatter_");
  dim = maybe_wrap_dim(dim, this->dim(), "scatter");
  check_scatter_shapes("scatter", self(), dim, index, nullptr);
  check_no_internal_overlap(self(), "scatter_");
  check_value_fits("scatter_", self(), value);
  scatter_into("scatter", at_least_1d(self()), dim, at_least_1d(index), Tensor(), ScatterMode::ScatterFill, value);
  return self();
}
Tensor& Tensor::scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self(), src)))
    return autograd::assign_inplace(self(), ember::scatter_add(self(), dim, index, src), "scatter_add_");
  return scatter_impl(self(), dim, index, src, "scatter_add", ScatterMode::Sum);
}
Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                                bool include_self) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self(), src)))
    return autograd::assign_inplace(self(), ember::scatter_reduce(self(), dim, index, src, reduce, include_self),
                                    "scatter_reduce_");
  EMBER_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "reduce argument must be either sum, prod, mean, amax or amin, got ", reduce);
  dim = maybe_wrap_dim(dim, this->dim(), "scatter_reduce");
  check_scatter_shapes("scatter_reduce", self(), dim, index, &src);
  check_no_internal_overlap(self(), "scatter_reduce_");
  EMBER_CHECK_TYPE(!is_complex() || reduce == "sum" || reduce == "prod" || reduce == "mean", "scatter_reduce(): ",
                   reduce, " is not supported for complex dtype ", dtype());
  Tensor self1 = at_least_1d(self()), idx1 = at_least_1d(index), src1 = at_least_1d(src);
  if (!include_self)
    scatter_into("scatter_reduce", self1, dim, idx1, Tensor(), ScatterMode::ScatterFill, reduce_identity(reduce, dtype()));
  ScatterMode mode = reduce == "prod" ? ScatterMode::Prod : reduce == "amax" ? ScatterMode::Amax
                   : reduce == "amin" ? ScatterMode::Amin : ScatterMode::Sum;
  scatter_into("scatter_reduce", self1, dim, idx1, src1, mode);
  if (reduce == "mean") {
    Tensor count = include_self ? ones_like(self()) : zeros_like(self());
    Tensor c1 = at_least_1d(count);
    scatter_into("scatter_reduce", c1, dim, idx1, at_least_1d(ones_like(src)), ScatterMode::Sum);
    count.masked_fill_(count.eq(0), 1);
    if (is_floating_point() || is_complex()) div_(count);
    else div_(count, "floor");
  }
  return self();
}

// ---- index_add / index_copy / index_fill ----------------------------------------------------
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self(), source)))
    return autograd::assign_inplace(self(), ember::index_add(self(), dim, index, source, alpha), "index_add_");
  dim = maybe_wrap_dim(dim, this->dim(), "index_add_");
  check_index_vector("index_add_", index, false);
  EMBER_CHECK(index.scalar_type() == kLong || index.scalar_type() == kInt,
              "index_add_(): Expected dtype int32/int64 for index");
  EMBER_CHECK(scalar_type() == source.scalar_type(), "index_add_(): self (", scalar_type(), ") and source (",
              source.scalar_type(), ") must have the same scalar type");
  check_no_internal_overlap(self(), "index_add_");
  Tensor idx = index.reshape({-1});
  Tensor src = source_for("index_add_", self(), dim, source, idx.numel());
  index_put_dims(at_least_1d(self()), dim, {idx}, src, true, alpha, {IndexErrorStyle::Select, "index_add_"});
  return self();
}
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, source))) {
    return autograd::differentiable(
        "index_add", {&self, &source}, [&] { return index_add(self, dim, index, source, alpha); },
        [dim, index, alpha](const autograd::VjpCtx& c) {
          return autograd::variable_list{c.grad(),
                                         c.needs_input_grad(1) ? c.grad().index_select(dim, index).mul(alpha) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          return index_add(autograd::tangent_or_zeros(t(0), r), dim, index, autograd::tangent_or_zeros(t(1), source),
                           alpha);
        });
  }
  return self.clone().index_add_(dim, index, source, alpha);
}

Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self(), source)))
    return autograd::assign_inplace(self(), ember::index_copy(self(), dim, index, source), "index_copy_");
  dim = maybe_wrap_dim(dim, this->dim(), "index_copy_");
  check_index_vector("index_copy_", index, false);
  EMBER_CHECK(index.scalar_type() == kLong, "index_copy_(): Expected a long tensor for index, but got ",
              index.scalar_type());
  EMBER_CHECK(scalar_type() == source.scalar_type(), "index_copy_(): self and source expected to have the same dtype, "
              "but got (self) ", scalar_type(), " and (source) ", source.scalar_type());
  check_no_internal_overlap(self(), "index_copy_");
  Tensor idx = index.reshape({-1});
  Tensor src = source_for("index_copy_", self(), dim, source, idx.numel());
  index_put_dims(at_least_1d(self()), dim, {idx}, src, false, 1, {IndexErrorStyle::IndexCopy, "index_copy_"}, {dim});
  return self();
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  EMBER_AUTOCAST(index_copy, index_copy(_ac[0], dim, index, _ac[1]), &self, &source);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, source))) {
    return autograd::differentiable(
        "index_copy", {&self, &source}, [&] { return index_copy(self, dim, index, source); },
        [dim, index](const autograd::VjpCtx& c) {
          return autograd::variable_list{c.needs_input_grad(0) ? c.grad().index_fill(dim, index, 0) : Tensor(),
                                         c.needs_input_grad(1) ? c.grad().index_select(dim, index) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          return index_copy(autograd::tangent_or_zeros(t(0), r), dim, index, autograd::tangent_or_zeros(t(1), source));
        });
  }
  return self.clone().index_copy_(dim, index, source);
}

Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self())))
    return autograd::assign_inplace(self(), ember::index_fill(self(), dim, index, value), "index_fill_");
  dim = maybe_wrap_dim(dim, this->dim(), "index_fill_");
  check_index_vector("index_fill_", index, false);
  EMBER_CHECK_INDEX(index.scalar_type() == kLong, "index_fill_(): Expected dtype int64 for index.");
  EMBER_CHECK(is_complex() || !value.isComplex(),
              "index_fill_(): Converting complex Scalar to non-complex type is not supported");
  check_no_internal_overlap(self(), "index_fill_");
  Tensor idx = index.reshape({-1});
  index_put_dims(at_least_1d(self()), dim, {idx}, scalar_tensor(value, options()), false, 1, {IndexErrorStyle::IndexFill, "index_fill_"},
                 {dim});
  return self();
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    return autograd::differentiable(
        "index_fill", {&self}, [&] { return index_fill(self, dim, index, value); },
        [dim, index](const autograd::VjpCtx& c) { return autograd::variable_list{c.grad().index_fill(dim, index, 0)}; },
        [&](const auto& t, const Tensor&) { return t(0).index_fill(dim, index, 0); });
  }
  return self.clone().index_fill_(dim, index, value);
}

// ---- masked ops -----------------------------------------------------------------------------
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self())))
    return autograd::assign_inplace(self(), ember::masked_fill(self(), mask, value), "masked_fill_");
  check_mask_dtype("masked_fill_", mask);
  check_value_fits("masked_fill_", self(), value);
  DimVector b = infer_size(sizes(), mask.sizes(), "masked_fill_");
  EMBER_CHECK(IntArrayRef(b) == sizes(), "masked_fill_: output with shape ", sizes(),
              " doesn't match the broadcast shape ", IntArrayRef(b));
  check_no_internal_overlap(self(), "masked_fill_");
  if (numel() == 0 || is_meta()) return self();
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("masked_fill_")
                          .add_output(self())
                          .add_input(mask.expand(sizes()))
                          .is_inplace(true)
                          .promote_inputs_to_common_dtype(false)
                          .cast_common_dtype_to_outputs(false)
                          .declare_static_output_dtype(scalar_type())
                          .resize_outputs(false)
                          .build();
  kernel_for(masked_fill_op, device())(it, value);
  bump_version();
  return self();
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) const {
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill_(mask, value.item());
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_defined(self, "masked_fill");
  check_defined(mask, "masked_fill", "mask");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    return autograd::differentiable(
        "masked_fill", {&self}, [&] { return masked_fill(self, mask, value); },
        [mask](const autograd::VjpCtx& c) { return autograd::variable_list{c.grad().masked_fill(mask, 0)}; },
        [&](const auto& t, const Tensor& r) { return t(0).expand(r.sizes()).masked_fill(mask, 0); });
  }
  check_mask_dtype("masked_fill", mask);
  DimVector b = infer_size(self.sizes(), mask.sizes(), "masked_fill");
  Tensor r = IntArrayRef(b) == self.sizes() ? self.clone() : self.expand(b).clone(MemoryFormat::Contiguous);
  return r.masked_fill_(mask, value);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_defined(self, "masked_fill");
  check_defined(mask, "masked_fill", "mask");
  check_defined(value, "masked_fill", "value");
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  return masked_fill(self, mask, value.item());
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const { return ember::masked_fill(*this, mask, value); }
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const { return ember::masked_fill(*this, mask, value); }

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.scalar_type() == kBool || mask.scalar_type() == kByte,
              "masked_select: expected BoolTensor or ByteTensor for mask");
  std::vector<Tensor> b = broadcast_tensors({self, mask});
  if (b[0].dim() == 0) return index(b[0].view({1}), {std::optional<Tensor>(b[1].view({1}))});
  return index(b[0], {std::optional<Tensor>(b[1])});
}
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }

Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self(), source)))
    return autograd::assign_inplace(self(), ember::masked_scatter(self(), mask, source), "masked_scatter_");
  check_mask_dtype("masked_scatter_", mask);
  EMBER_CHECK(scalar_type() == source.scalar_type(), "masked_scatter: expected self and source to have same dtypes but got ",
              scalar_type(), " and ", source.scalar_type());
  DimVector b = infer_size(sizes(), mask.sizes(), "masked_scatter_");
  EMBER_CHECK(IntArrayRef(b) == sizes(), "masked_scatter_: output with shape ", sizes(),
              " doesn't match the broadcast shape ", IntArrayRef(b));
  check_no_internal_overlap(self(), "masked_scatter_");
  Tensor self1 = at_least_1d(self());
  Tensor nz = ember::nonzero(mask.expand(sizes()).reshape(self1.sizes()));
  int64_t count = nz.size(0);
  EMBER_CHECK(source.numel() >= count, "masked_scatter_: Number of elements of source < number of ones in mask (",
              source.numel(), " < ", count, ")");
  if (count == 0) return self();
  std::vector<Tensor> cols;
  for (int64_t d = 0; d < self1.dim(); ++d) cols.push_back(nz.select(1, d));
  index_put_dims(self1, 0, cols, source.reshape({-1}).narrow(0, 0, count), false, 1, {IndexErrorStyle::Advanced, "masked_scatter_"});
  return self();
}
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, source))) {
    DimVector source_sizes(source.sizes());
    return autograd::differentiable(
        "masked_scatter", {&self, &source}, [&] { return masked_scatter(self, mask, source); },
        [mask, source_sizes](const autograd::VjpCtx& c) {
          Tensor gs;
          if (c.needs_input_grad(1)) {
            // the masked positions' gradients, in order, then zeros for unused source elements
            Tensor sel = masked_select(c.grad(), mask);
            int64_t n = 1;
            for (int64_t s : source_sizes) n *= s;
            gs = constant_pad_nd(sel, {0, n - sel.numel()}).view(source_sizes);
          }
          return autograd::variable_list{c.needs_input_grad(0) ? c.grad().masked_fill(mask, 0) : Tensor(), gs};
        },
        [&](const auto& t, const Tensor& r) {
          return masked_scatter(autograd::tangent_or_zeros(t(0), r), mask, autograd::tangent_or_zeros(t(1), source));
        });
  }
  DimVector b = infer_size(self.sizes(), mask.sizes(), "masked_scatter");
  Tensor r = IntArrayRef(b) == self.sizes() ? self.clone() : self.expand(b).clone(MemoryFormat::Contiguous);
  return r.masked_scatter_(mask, source);
}
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}

// ---- take / put -----------------------------------------------------------------------------
Tensor take(const Tensor& self, const Tensor& index) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    DimVector sizes(self.sizes());
    return autograd::differentiable(
        "take", {&self}, [&] { return take(self, index); },
        [sizes, index](const autograd::VjpCtx& c) {
          int64_t n = 1;
          for (int64_t s : sizes) n *= s;
          Tensor flat = zeros({n}, c.grad().options()).index_add(0, index.reshape({-1}), c.grad().reshape({-1}));
          return autograd::variable_list{flat.view(sizes)};
        },
        [&](const auto& t, const Tensor&) { return take(t(0), index); });
  }
  EMBER_CHECK(index.scalar_type() == kLong, "take(): Expected a long tensor for index, but got ", index.scalar_type());
  return index_dims(self.reshape({-1}), 0, {index}, {IndexErrorStyle::Take, "take"});
}
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }

Tensor& Tensor::put_(const Tensor& index, const Tensor& source, bool accumulate) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self(), source)))
    return autograd::assign_inplace(self(), ember::put(self(), index, source, accumulate), "put_");
  EMBER_CHECK(index.scalar_type() == kLong, "put_(): Expected a long tensor for index, but got ", index.scalar_type());
  EMBER_CHECK(scalar_type() == source.scalar_type(), "put_(): self and source expected to have the same dtype, but got "
              "self.dtype = ", scalar_type(), " and source.dtype = ", source.scalar_type());
  EMBER_CHECK_INDEX(source.numel() == index.numel(), "put_(): Expected source and index to have the same number of "
                    "elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  check_no_internal_overlap(self(), "put_");
  if (index.numel() == 0) return self();
  if (is_contiguous()) {
    index_put_dims(view({-1}), 0, {index.reshape({-1})}, source.reshape({-1}), accumulate, 1, {IndexErrorStyle::Take, "put_"});
  } else {
    Tensor tmp = contiguous();
    index_put_dims(tmp.view({-1}), 0, {index.reshape({-1})}, source.reshape({-1}), accumulate, 1,
                   {IndexErrorStyle::Take, "put_"});
    copy_(tmp);
  }
  return self();
}
Tensor Tensor::put(const Tensor& index, const Tensor& source, bool accumulate) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(*this, source))) return ember::put(*this, index, source, accumulate);
  return clone().put_(index, source, accumulate);
}
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, source))) {
    DimVector source_sizes(source.sizes());
    return autograd::differentiable(
        "put", {&self, &source}, [&] { return self.put(index, source, accumulate); },
        [index, accumulate, source_sizes](const autograd::VjpCtx& c) {
          Tensor gs;
          if (c.needs_input_grad(0))
            gs = accumulate ? c.grad() : c.grad().put(index, zeros(source_sizes, c.grad().options()), false);
          return autograd::variable_list{gs, c.needs_input_grad(1) ? c.grad().take(index).view(source_sizes) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          return autograd::tangent_or_zeros(t(0), r).put(index, autograd::tangent_or_zeros(t(1), source), accumulate);
        });
  }
  return self.put(index, source, accumulate);
}

// ---- nonzero / where ------------------------------------------------------------------------
Tensor nonzero(const Tensor& self) {
  if (self.is_meta()) EMBER_ERROR("nonzero: the result size depends on the data, which meta tensors do not have");
  return kernel_for(nonzero_op, self.device())(self.contiguous());
}
std::vector<Tensor> nonzero_numpy(const Tensor& self) {
  Tensor nz = nonzero(self.dim() == 0 ? self.unsqueeze(0) : self);
  std::vector<Tensor> r;
  for (int64_t d = 0; d < nz.size(1); ++d) r.push_back(nz.select(1, d));
  return r;
}
Tensor Tensor::nonzero() const { return ember::nonzero(*this); }
std::vector<Tensor> Tensor::nonzero_numpy() const { return ember::nonzero_numpy(*this); }

namespace {
// Traced (Note [Tracing hooks]): a pointwise node the fuser may take.
const tracing::TracedOpDef where_traced{{"where", tracing::Fusion::Pointwise,
    [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs&) -> std::vector<Tensor> {
      EMBER_CHECK(in.size() == 3, "where: expected 3 inputs (condition, input, other), got ", in.size());
      return {where(in[0], in[1], in[2])};
    }}};
}  // namespace

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  check_defined(condition, "where", "condition");
  check_defined(self, "where", "input");
  check_defined(other, "where", "other");
  if (tracing::active())
    return tracing::traced_call(where_traced, {condition, self, other}, {}, [&] { return where(condition, self, other); });
  if (EMBER_UNLIKELY(self.unsafeGetTensorImpl()->autograd_meta() || other.unsafeGetTensorImpl()->autograd_meta())) {
    autograd::Recording rec({&self, &other});
    if (rec.any()) {
      Tensor r;
      {
        autograd::BelowAutogradGuard below;
        r = where(condition, self, other);
      }
      if (rec.forward())
        rec.forward_each(r, [&](const std::function<Tensor(size_t)>& t) {
          Tensor ta = t(0), tb = t(1);
          return where(condition, ta.defined() ? ta : zeros_like(r), tb.defined() ? tb : zeros_like(r));
        });
      if (rec.reverse())
        rec.record("where", {&r}, [condition](const autograd::VjpCtx& c) {
          Tensor zero = zeros_like(c.grad());
          return autograd::variable_list{c.needs_input_grad(0) ? where(condition, c.grad(), zero) : Tensor(),
                                         c.needs_input_grad(1) ? where(condition, zero, c.grad()) : Tensor()};
        });
      return r;
    }
  }
  EMBER_CHECK(condition.scalar_type() == kBool || condition.scalar_type() == kByte,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ", condition.scalar_type());
  ScalarType t = result_type(self, other);
  Tensor a = self.to(t), b = other.to(t);
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("where")
                          .add_output(Tensor())
                          .add_input(condition)
                          .add_input(a)
                          .add_input(b)
                          .promote_inputs_to_common_dtype(false)
                          .declare_static_output_dtype(t)
                          .build();
  Tensor out = it.output(0);
  if (it.numel() > 0 && !out.is_meta()) kernel_for(where_op, out.device())(it);
  return out;
}
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return where(condition, scalar_to_tensor(self, other.device()), other);
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return where(condition, self, scalar_to_tensor(other, self.device()));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return where(condition, scalar_to_tensor(self, condition.device()), scalar_to_tensor(other, condition.device()));
}
std::vector<Tensor> where(const Tensor& condition) { return nonzero_numpy(condition); }

// ---- out= variants ----------------------------------------------------------------------------
Tensor& write_out(Tensor& out, const Tensor& result, const char* op) {
  EMBER_CHECK(out.defined(), op, ": the out tensor is undefined");
  EMBER_CHECK_TYPE(canCast(result.scalar_type(), out.scalar_type()), op, ": result type ", result.scalar_type(),
                   " can't be cast to the desired output type ", out.scalar_type());
  EMBER_CHECK(out.device() == result.device(), op, ": expected the out tensor on ", result.device(), " but got ",
              out.device());
  if (out.sizes() != result.sizes()) out.resize_(result.sizes());
  out.copy_(result);
  return out;
}
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  return write_out(out, index_select(self, dim, index), "index_select_out");
}
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  return write_out(out, gather(self, dim, index, sparse_grad), "gather_out");
}
Tensor& masked_select_out(Tensor& out, const Tensor& self, const Tensor& mask) {
  return write_out(out, masked_select(self, mask), "masked_select_out");
}
Tensor& take_out(Tensor& out, const Tensor& self, const Tensor& index) {
  return write_out(out, take(self, index), "take_out");
}
Tensor& nonzero_out(Tensor& out, const Tensor& self) {
  EMBER_CHECK_TYPE(out.scalar_type() == kLong, "nonzero_out: expected the out tensor to have dtype Long, got ",
                   out.scalar_type());
  return write_out(out, nonzero(self), "nonzero_out");
}
Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self, const Tensor& other) {
  return write_out(out, where(condition, self, other), "where_out");
}

}  // namespace ember
