// Shape ops that copy: tril/triu, cat/stack and friends, repeat/tile/repeat_interleave,
// flip/roll/rot90, meshgrid/cartesian_prod, diag/diag_embed/diagflat, diff, cross,
// complex/polar, with their Tensor methods. Padding, one_hot and histograms: pad_ops.cpp.
#include <algorithm>

#include "ember/autograd/record.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/out_arg.h"
#include "ember/ops/type_promotion.h"
#include "ember/ops/views.h"

namespace ember {

OpDef<TriluFn> trilu_op(OpInfo{.name = "trilu"});
OpDef<FlipFn> flip_op(OpInfo{.name = "flip"});

// ---- tril / triu -----------------------------------------------------------------------------
namespace {
Tensor trilu(const Tensor& self, int64_t k, bool lower) {
  const char* op = lower ? "tril" : "triu";
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    return autograd::differentiable(
        op, {&self}, [&] { return trilu(self, k, lower); },
        [k, lower](const autograd::VjpCtx& c) { return autograd::variable_list{trilu(c.grad(), k, lower)}; },
        [&](const auto& t, const Tensor&) { return trilu(t(0), k, lower); });
  }
  EMBER_CHECK_INDEX(self.dim() >= 2, op, ": input tensor must have at least 2 dimensions, got ", self.dim());
  Tensor out = empty(self.sizes(), self.options());
  if (out.numel() == 0 || self.is_meta()) return out;
  TriluFn fn = trilu_op.kernel(self.device().type());
  EMBER_CHECK(fn != nullptr, op, ": no kernel for device ", self.device());
  fn(self, out, k, lower);
  return out;
}
}  // namespace
Tensor tril(const Tensor& self, int64_t diagonal) { return trilu(self, diagonal, true); }
Tensor triu(const Tensor& self, int64_t diagonal) { return trilu(self, diagonal, false); }
Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  return write_out(out, tril(self, diagonal), "tril_out");
}
Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  return write_out(out, triu(self, diagonal), "triu_out");
}
Tensor Tensor::tril(int64_t d) const { return ember::tril(*this, d); }
Tensor Tensor::triu(int64_t d) const { return ember::triu(*this, d); }
Tensor& Tensor::tril_(int64_t d) const { return copy_(ember::tril(self(), d)); }
Tensor& Tensor::triu_(int64_t d) const { return copy_(ember::triu(self(), d)); }

// ---- cat / stack ----------------------------------------------------------------------------------
namespace {
// PyTorch keeps 1-d tensors of size 0 in cat for backward compatibility: they are skipped.
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// All inputs in one format -> that format; otherwise contiguous (PyTorch's rule).
MemoryFormat cat_memory_format(TensorList tensors) {
  std::optional<MemoryFormat> f;
  for (const Tensor& t : tensors) {
    if (legacy_empty(t)) continue;
    MemoryFormat tf = t.suggest_memory_format();
    if (!f) f = tf;
    else if (*f != tf && *f != MemoryFormat::Contiguous) f = MemoryFormat::Contiguous;
  }
  return f.value_or(MemoryFormat::Contiguous);
}

std::vector<Tensor> atleast_nd(TensorList tensors, int n) {
  std::vector<Tensor> r;
  for (const Tensor& t : tensors) {
    if (t.dim() >= n) r.push_back(t);
    else if (t.dim() == 0) r.push_back(t.reshape(std::vector<int64_t>(n, 1)));
    else if (t.dim() == 1 && n == 2) r.push_back(t.unsqueeze(0));
    else if (t.dim() == 1) r.push_back(t.unsqueeze(0).unsqueeze(2));
    else r.push_back(t.unsqueeze(2));
  }
  return r;
}
}  // namespace

namespace {
const tracing::TracedOpDef cat_traced{{"cat", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  return {cat(in, tracing::int_attr(a, "dim", "cat"))};
}}};
}  // namespace

Tensor cat(TensorList tensors, int64_t dim) {
  if (tracing::active())
    return tracing::traced_call(cat_traced, std::vector<Tensor>(tensors.begin(), tensors.end()), {{"dim", Scalar(dim)}},
                                [&] { return cat(tensors, dim); });
  EMBER_CHECK(!tensors.empty(), "torch.cat(): expected a non-empty list of Tensors");
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].defined(), "torch.cat(): tensor at position ", i, " is undefined");
  // Autocast: the widest floating dtype (stack and hstack/vstack/dstack come through here).
  EMBER_AUTOCAST(cat, cat(_ac, dim), std::vector<Tensor>(tensors.begin(), tensors.end()));
  bool ad = false;
  for (const Tensor& t : tensors) ad = ad || autograd::maybe_differentiable(t);
  if (EMBER_UNLIKELY(ad)) {
    // The gradient of each input is its slice of the output gradient.
    std::vector<Tensor> list(tensors.begin(), tensors.end());
    autograd::Recording rec(list);
    Tensor r;
    {
      autograd::BelowAutogradGuard below;
      r = cat(tensors, dim);
    }
    if (!rec.any() || !(r.is_floating_point() || r.is_complex())) return r;
    const int64_t d = r.dim() == 0 ? 0 : maybe_wrap_dim(dim, r.dim());
    std::vector<int64_t> lengths;
    std::vector<DimVector> shapes;
    for (const Tensor& t : list) {
      lengths.push_back(legacy_empty(t) ? 0 : t.size(d));
      shapes.emplace_back(t.sizes());
    }
    if (rec.forward())
      rec.forward_each(r, [&](const std::function<Tensor(size_t)>& tan) {
        std::vector<Tensor> parts;
        for (size_t i = 0; i < list.size(); ++i) parts.push_back(autograd::tangent_or_zeros(tan(i), list[i]));
        return cat(parts, d);
      });
    if (rec.reverse())
      rec.record("cat", {&r}, [d, lengths, shapes](const autograd::VjpCtx& c) {
        autograd::variable_list g;
        int64_t offset = 0;
        for (size_t i = 0; i < lengths.size(); ++i) {
          if (!c.needs_input_grad(i)) {
            g.emplace_back();
          } else if (shapes[i].size() == 1 && shapes[i][0] == 0) {
            g.push_back(zeros({0}, c.grad().options()));  // a legacy empty input
          } else {
            g.push_back(c.grad().narrow(d, offset, lengths[i]));
          }
          offset += lengths[i];
        }
        return g;
      });
    return r;
  }
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), "torch.cat(): tensor at position ", i, " is undefined");
    EMBER_CHECK(tensors[i].dim() > 0, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    if (!ref && !legacy_empty(tensors[i])) ref = &tensors[i];
  }
  ScalarType out_dtype = result_type(tensors);
  Device dev = tensors[0].device();
  for (size_t i = 0; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].device() == dev, "torch.cat(): all input tensors must be on the same device. Received ",
                dev, " and ", tensors[i].device());
  if (!ref) {
    maybe_wrap_dim(dim, 1, "cat");
    return empty({0}, TensorOptions().dtype(out_dtype).device(dev));
  }
  dim = maybe_wrap_dim(dim, ref->dim(), "cat");
  DimVector shape(ref->sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_empty(t)) continue;
    EMBER_CHECK(t.dim() == ref->dim(), "torch.cat(): Tensors must have same number of dimensions: got ", ref->dim(), " and ", t.dim());
    for (int64_t d = 0; d < t.dim(); ++d)
      EMBER_CHECK(d == dim || t.size(d) == ref->size(d), "torch.cat(): Sizes of tensors must match except in dimension ", dim,
                  ". Expected size ", ref->size(d), " but got size ", t.size(d), " for tensor number ", i,
                  " in the list.");
    total += t.size(dim);
  }
  shape[dim] = total;
  Tensor out = empty(shape, TensorOptions().dtype(out_dtype).device(dev), cat_memory_format(tensors));
  if (out.is_meta()) return out;
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (legacy_empty(t)) continue;
    int64_t n = t.size(dim);
    if (n > 0 && t.numel() > 0) out.narrow(dim, offset, n).copy_(t);
    offset += n;
  }
  return out;
}
Tensor concat(TensorList tensors, int64_t dim) { return cat(tensors, dim); }
Tensor& cat_out(Tensor& out, TensorList tensors, int64_t dim) { return write_out(out, cat(tensors, dim), "cat_out"); }

Tensor stack(TensorList tensors, int64_t dim) {
  for (size_t i = 0; i < tensors.size(); ++i) check_defined(tensors[i], "stack", "tensors");
  EMBER_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  for (size_t i = 1; i < tensors.size(); ++i)
    EMBER_CHECK(tensors[i].sizes() == tensors[0].sizes(), "stack expects each tensor to be equal size, but got ",
                tensors[0].sizes(), " at entry 0 and ", tensors[i].sizes(), " at entry ", i);
  dim = maybe_wrap_dim(dim, tensors[0].dim() + 1, "stack");
  std::vector<Tensor> u;
  for (const Tensor& t : tensors) u.push_back(t.unsqueeze(dim));
  return cat(u, dim);
}

Tensor& stack_out(Tensor& out, TensorList tensors, int64_t dim) {
  return write_out(out, stack(tensors, dim), "stack_out");
}

Tensor hstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "hstack expects a non-empty TensorList");
  std::vector<Tensor> t = atleast_nd(tensors, 1);
  return cat(t, t[0].dim() == 1 ? 0 : 1);
}
Tensor vstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "vstack expects a non-empty TensorList");
  return cat(atleast_nd(tensors, 2), 0);
}
Tensor dstack(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "dstack expects a non-empty TensorList");
  return cat(atleast_nd(tensors, 3), 2);
}

// ---- repeat / tile / repeat_interleave -------------------------------------------------------------
Tensor Tensor::repeat(IntArrayRef repeats) const {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(*this))) {
    // The gradient sums the output gradient over the repeated copies.
    DimVector reps(repeats), sizes(this->sizes());
    const Tensor& self = *this;
    return autograd::differentiable(
        "repeat", {&self}, [&] { return self.repeat(repeats); },
        [reps, sizes](const autograd::VjpCtx& c) {
          const int64_t lead = int64_t(reps.size()) - int64_t(sizes.size());
          DimVector split, sum_dims;
          for (size_t d = 0; d < reps.size(); ++d) {
            const int64_t size = int64_t(d) < lead ? 1 : sizes[d - size_t(lead)];
            split.push_back(reps[d]);
            split.push_back(size);
            sum_dims.push_back(int64_t(2 * d));
          }
          Tensor g = c.grad().reshape(split).sum(IntArrayRef(sum_dims));
          return autograd::variable_list{g.reshape(sizes)};
        },
        [&](const auto& t, const Tensor&) { return t(0).repeat(repeats); });
  }
  EMBER_CHECK(int64_t(repeats.size()) >= dim(), "Number of dimensions of repeat dims can not be smaller than number "
              "of dimensions of tensor (repeat dims ", repeats, ", tensor of shape ", sizes(), ")");
  int64_t lead = int64_t(repeats.size()) - dim();
  DimVector padded(lead, 1), target, inter_src, inter_dst;
  for (int64_t s : sizes()) padded.push_back(s);
  for (size_t d = 0; d < repeats.size(); ++d) {
    EMBER_CHECK(repeats[d] >= 0, "Trying to create tensor with negative dimension ", padded[d] * repeats[d], ": ",
                repeats);
    target.push_back(padded[d] * repeats[d]);
    inter_src.push_back(1);
    inter_src.push_back(padded[d]);
    inter_dst.push_back(repeats[d]);
    inter_dst.push_back(padded[d]);
  }
  Tensor out = empty(target, options());
  if (out.numel() == 0 || is_meta()) return out;
  out.view(inter_dst).copy_(reshape(inter_src).expand(inter_dst));
  return out;
}

Tensor tile(const Tensor& self, IntArrayRef dims) {
  DimVector reps(dims);
  while (int64_t(reps.size()) < self.dim()) reps.insert(reps.begin(), 1);
  return self.repeat(reps);
}
Tensor Tensor::tile(IntArrayRef dims) const { return ember::tile(*this, dims); }

Tensor repeat_interleave(const Tensor& repeats) {
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK_TYPE(repeats.scalar_type() == kLong || repeats.scalar_type() == kInt,
                   "repeat_interleave: repeats has to be Long or Int tensor, got ", repeats.scalar_type());
  // The result's length depends on the values: counted on the host (a device's repeats are
  // copied back, one synchronization, as PyTorch does without output_size).
  Tensor r = repeats.reshape({-1}).to(kCPU, kLong).contiguous();
  const int64_t* p = r.data_ptr<int64_t>();
  int64_t total = 0;
  for (int64_t i = 0; i < r.numel(); ++i) {
    EMBER_CHECK(p[i] >= 0, "repeats can not be negative");
    total += p[i];
  }
  Tensor out = empty({total}, dtype(kLong));
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0, k = 0; i < r.numel(); ++i)
    for (int64_t j = 0; j < p[i]; ++j) o[k++] = i;
  return out.to(repeats.device(), repeats.scalar_type());
}

Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim) {
  Tensor input = dim ? self : self.reshape({-1});
  int64_t d = dim ? maybe_wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  EMBER_CHECK(repeats.dim() <= 1, "repeat_interleave only accept 1D vector as repeat");
  int64_t n = input.dim() == 0 ? 1 : input.size(d);
  Tensor reps = repeats.reshape({-1});
  if (reps.numel() == 1) reps = reps.expand({n});
  EMBER_CHECK(reps.size(0) == n, "repeats must have the same size as input along dim (got ", reps.size(0),
              " repeats for size ", n, ")");
  if (input.dim() == 0) input = input.reshape({1});
  return input.index_select(d, repeat_interleave(reps).to(input.device()));
}
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim) {
  EMBER_CHECK(repeats >= 0, "repeats can not be negative");
  return repeat_interleave(self, full({1}, repeats, dtype(kLong)), dim);
}
Tensor Tensor::repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim) const {
  return ember::repeat_interleave(*this, repeats, dim);
}
Tensor Tensor::repeat_interleave(int64_t repeats, std::optional<int64_t> dim) const {
  return ember::repeat_interleave(*this, repeats, dim);
}

// ---- flip / roll / rot90 ------------------------------------------------------------------------------
Tensor flip(const Tensor& self, IntArrayRef dims) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    DimVector dv(dims);
    return autograd::differentiable(
        "flip", {&self}, [&] { return flip(self, dims); },
        [dv](const autograd::VjpCtx& c) { return autograd::variable_list{c.grad().flip(dv)}; },
        [&](const auto& t, const Tensor&) { return t(0).flip(dims); });
  }
  int64_t nd = self.dim();
  std::vector<bool> flipped(std::max<int64_t>(nd, 1), false);
  for (int64_t d : dims) {
    int64_t w = maybe_wrap_dim(d, nd, "flip");
    EMBER_CHECK(!flipped[w], "flip: dim ", w, " appears multiple times in the list of dims");
    flipped[w] = true;
  }
  Tensor out = empty_like(self);
  if (out.numel() == 0 || self.is_meta()) return out;
  // A view walking the flipped dims backwards (negative strides, internal only).
  DimVector st(self.strides());
  int64_t off = self.storage_offset();
  for (int64_t d = 0; d < nd; ++d) {
    if (!flipped[d]) continue;
    off += (self.size(d) - 1) * st[d];
    st[d] = -st[d];
  }
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("flip")
                          .add_output(out)
                          .add_input(make_view(self, self.sizes(), st, off))
                          .promote_inputs_to_common_dtype(false)
                          .cast_common_dtype_to_outputs(false)
                          .declare_static_output_dtype(self.scalar_type())
                          .resize_outputs(false)
                          .build();
  FlipFn fn = flip_op.kernel(self.device().type());
  EMBER_CHECK(fn != nullptr, "flip: no kernel for device ", self.device());
  fn(it);
  return out;
}
Tensor fliplr(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "fliplr: Input must be >= 2-d, got a tensor of shape ", self.sizes());
  return flip(self, {1});
}
Tensor flipud(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, "flipud: Input must be >= 1-d.");
  return flip(self, {0});
}
Tensor Tensor::flip(IntArrayRef dims) const { return ember::flip(*this, dims); }
Tensor Tensor::fliplr() const { return ember::fliplr(*this); }
Tensor Tensor::flipud() const { return ember::flipud(*this); }

Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    DimVector back, dv(dims);
    for (int64_t s : shifts) back.push_back(-s);
    return autograd::differentiable(
        "roll", {&self}, [&] { return roll(self, shifts, dims); },
        [back, dv](const autograd::VjpCtx& c) { return autograd::variable_list{c.grad().roll(back, dv)}; },
        [&](const auto& t, const Tensor&) { return t(0).roll(shifts, dims); });
  }
  if (dims.empty()) {
    EMBER_CHECK(shifts.size() == 1, "roll: shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", 0);
    return roll(self.reshape({-1}), shifts, {0}).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), "roll: shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  int64_t d = maybe_wrap_dim(dims[0], self.dim(), "roll");
  Tensor out;
  int64_t n = self.dim() == 0 ? 1 : self.size(d);
  if (self.numel() == 0 || n == 0) {
    out = self.clone();
  } else {
    int64_t s = ((shifts[0] % n) + n) % n;
    out = empty_like(self);
    if (s == 0) {
      out.copy_(self);
    } else {
      out.narrow(d, s, n - s).copy_(self.narrow(d, 0, n - s));
      out.narrow(d, 0, s).copy_(self.narrow(d, n - s, s));
    }
  }
  if (dims.size() > 1) return roll(out, shifts.slice(1), dims.slice(1));
  return out;
}
Tensor Tensor::roll(IntArrayRef shifts, IntArrayRef dims) const { return ember::roll(*this, shifts, dims); }

Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  EMBER_CHECK(dims.size() == 2, "rot90: expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(self.dim() >= 2, "rot90: expected total dims >= 2, but got total dims = ", self.dim());
  int64_t d0 = maybe_wrap_dim(dims[0], self.dim(), "rot90"), d1 = maybe_wrap_dim(dims[1], self.dim(), "rot90");
  EMBER_CHECK(d0 != d1, "rot90: expected rotation dims to be different, but got dim0 = ", d0, " and dim1 = ", d1);
  k = ((k % 4) + 4) % 4;
  switch (k) {
    case 1: return flip(self, {d1}).transpose(d0, d1);
    case 2: return flip(self, {d0, d1});
    case 3: return flip(self, {d0}).transpose(d0, d1);
    default: return self.clone(MemoryFormat::Contiguous);
  }
}
Tensor Tensor::rot90(int64_t k, IntArrayRef dims) const { return ember::rot90(*this, k, dims); }

// ---- meshgrid / cartesian_prod ----------------------------------------------------------------------
std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing) {
  EMBER_CHECK(indexing == "ij" || indexing == "xy", "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
              "received: ", indexing);
  EMBER_CHECK(!tensors.empty(), "torch.meshgrid: expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dim() <= 1, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor "
                "of shape ", tensors[i].sizes(), " at position ", i);
    EMBER_CHECK(tensors[i].scalar_type() == tensors[0].scalar_type(),
                "torch.meshgrid: expects all tensors to have the same dtype (got ", tensors[0].scalar_type(), " and ",
                tensors[i].scalar_type(), ")");
    EMBER_CHECK(tensors[i].device() == tensors[0].device(), "torch.meshgrid: expects all tensors to have the same device");
  }
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  bool swap = indexing == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  DimVector shape;
  for (const Tensor& t : in) shape.push_back(t.numel());
  std::vector<Tensor> grids;
  for (size_t i = 0; i < in.size(); ++i) {
    DimVector v(in.size(), 1);
    v[i] = -1;
    grids.push_back(in[i].view(v).expand(shape));
  }
  if (swap) std::swap(grids[0], grids[1]);
  return grids;
}

Tensor cartesian_prod(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), "cartesian_prod: expects a non-empty TensorList");
  for (const Tensor& t : tensors)
    EMBER_CHECK(t.dim() == 1, "cartesian_prod: Expect a 1D vector, but got shape ", t.sizes());
  if (tensors.size() == 1) return tensors[0];
  std::vector<Tensor> grids = meshgrid(tensors, "ij");
  for (Tensor& g : grids) g = g.flatten();
  return stack(grids, 1);
}

// ---- diag / diag_embed / diagflat ----------------------------------------------------------------------
Tensor diag(const Tensor& self, int64_t diagonal) {
  if (self.dim() == 1 && EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    return autograd::differentiable(
        "diag", {&self}, [&] { return diag(self, diagonal); },
        [diagonal](const autograd::VjpCtx& c) { return autograd::variable_list{c.grad().diagonal(diagonal)}; },
        [&](const auto& t, const Tensor&) { return diag(t(0), diagonal); });
  }
  if (self.dim() == 1) {
    int64_t n = self.size(0) + std::abs(diagonal);
    Tensor out = zeros({n, n}, self.options());
    if (self.numel() > 0 && !self.is_meta()) out.diagonal(diagonal).copy_(self);
    return out;
  }
  EMBER_CHECK(self.dim() == 2, "diag: matrix or a vector expected, got a tensor with ", self.dim(), " dimensions");
  return self.diagonal(diagonal).clone(MemoryFormat::Contiguous);
}
Tensor diagflat(const Tensor& self, int64_t offset) { return diag(self.reshape({-1}), offset); }
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    return autograd::differentiable(
        "diag_embed", {&self}, [&] { return diag_embed(self, offset, dim1, dim2); },
        [offset, dim1, dim2](const autograd::VjpCtx& c) {
          return autograd::variable_list{c.grad().diagonal(offset, dim1, dim2)};
        },
        [&](const auto& t, const Tensor&) { return diag_embed(t(0), offset, dim1, dim2); });
  }
  EMBER_CHECK(self.dim() >= 1, "diag_embed: expected a tensor with at least 1 dimension");
  int64_t nd = self.dim() + 1;
  dim1 = maybe_wrap_dim(dim1, nd, "diag_embed");
  dim2 = maybe_wrap_dim(dim2, nd, "diag_embed");
  EMBER_CHECK(dim1 != dim2, "diag_embed: diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t n = self.size(-1) + std::abs(offset);
  DimVector shape(self.sizes().slice(0, self.dim() - 1));
  int64_t lo = std::min(dim1, dim2), hi = std::max(dim1, dim2);
  shape.insert(shape.begin() + lo, n);
  shape.insert(shape.begin() + hi, n);
  Tensor out = zeros(shape, self.options());
  if (self.numel() > 0 && !self.is_meta()) out.diagonal(offset, dim1, dim2).copy_(self);
  return out;
}
Tensor Tensor::diag(int64_t d) const { return ember::diag(*this, d); }
Tensor Tensor::diag_embed(int64_t o, int64_t d1, int64_t d2) const { return ember::diag_embed(*this, o, d1, d2); }

// ---- diff ----------------------------------------------------------------------------------------------
Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() >= 1, "diff expects input to be at least one-dimensional");
  EMBER_CHECK(n >= 0, "diff: order must be non-negative but got ", n);
  dim = maybe_wrap_dim(dim, self.dim(), "diff");
  Tensor x = self;
  bool pre = prepend && prepend->defined(), app = append && append->defined();
  if (pre || app) {
    std::vector<Tensor> parts;
    if (pre) {
      EMBER_CHECK(prepend->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
      parts.push_back(*prepend);
    }
    parts.push_back(self);
    if (app) {
      EMBER_CHECK(append->dim() == self.dim(), "diff expects prepend or append to be the same dimension as input");
      parts.push_back(*append);
    }
    x = cat(parts, dim);
  }
  for (int64_t i = 0; i < n; ++i) {
    int64_t len = x.size(dim);
    if (len == 0) break;
    Tensor hi = x.narrow(dim, 1, len - 1), lo = x.narrow(dim, 0, len - 1);
    x = x.scalar_type() == kBool ? logical_xor(hi, lo) : sub(hi, lo);
  }
  return x;
}
Tensor Tensor::diff(int64_t n, int64_t dim, const std::optional<Tensor>& prepend, const std::optional<Tensor>& append) const {
  return ember::diff(*this, n, dim, prepend, append);
}

// ---- cross ----------------------------------------------------------------------------------------------
Tensor linalg::cross(const Tensor& a, const Tensor& b, int64_t dim) {
  EMBER_CHECK(a.dim() == b.dim(), "linalg.cross: inputs must have the same number of dimensions.");
  EMBER_CHECK_TYPE(a.scalar_type() == b.scalar_type(), "linalg.cross: expected both inputs to have the same dtype, got ",
                   a.scalar_type(), " and ", b.scalar_type());
  int64_t d = maybe_wrap_dim(dim, a.dim(), "linalg.cross");
  EMBER_CHECK(a.size(d) == 3 && b.size(d) == 3, "linalg.cross: inputs dimension ", dim, " must have length 3. Got ",
              a.size(d), " and ", b.size(d));
  std::vector<Tensor> ab = broadcast_tensors({a, b});
  auto c = [&](const Tensor& t, int64_t i) { return t.select(d, i); };
  const Tensor &x = ab[0], &y = ab[1];
  Tensor r0 = c(x, 1) * c(y, 2) - c(x, 2) * c(y, 1);
  Tensor r1 = c(x, 2) * c(y, 0) - c(x, 0) * c(y, 2);
  Tensor r2 = c(x, 0) * c(y, 1) - c(x, 1) * c(y, 0);
  return stack({r0, r1, r2}, d);
}
Tensor cross(const Tensor& self, const Tensor& other, std::optional<int64_t> dim) {
  if (dim) return linalg::cross(self, other, *dim);
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.size(d) == 3) return linalg::cross(self, other, d);
  EMBER_ERROR("cross: no dimension of size 3 in input of shape ", self.sizes());
}
Tensor Tensor::cross(const Tensor& other, std::optional<int64_t> dim) const { return ember::cross(*this, other, dim); }

// ---- complex / polar --------------------------------------------------------------------------------------
namespace {
void check_complex_parts(const Tensor& a, const Tensor& b, const char* op) {
  ScalarType ta = a.scalar_type(), tb = b.scalar_type();
  EMBER_CHECK_TYPE((ta == kHalf || ta == kFloat || ta == kDouble) && (tb == kHalf || tb == kFloat || tb == kDouble), op,
                   ": Expected both inputs to be Half, Float or Double tensors but got ", ta, " and ", tb);
  EMBER_CHECK_TYPE(ta == tb, op, ": Expected object of scalar type ", ta, " but got scalar type ", tb,
                   " for second argument");
}
}  // namespace
Tensor complex(const Tensor& real, const Tensor& imag) {
  check_complex_parts(real, imag, "complex");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(real, imag))) {
    return autograd::differentiable(
        "complex", {&real, &imag}, [&] { return complex(real, imag); },
        [](const autograd::VjpCtx& c) {
          return autograd::variable_list{ember::real(c.grad()), ember::imag(c.grad())};
        },
        [&](const auto& t, const Tensor&) {
          return complex(autograd::tangent_or_zeros(t(0), real), autograd::tangent_or_zeros(t(1), imag));
        });
  }
  DimVector shape = infer_size(real.sizes(), imag.sizes(), "complex");
  Tensor out = empty(shape, real.options().dtype(toComplexType(real.scalar_type())));
  if (out.numel() == 0 || out.is_meta()) return out;
  Tensor parts = view_as_real(out);
  parts.select(-1, 0).copy_(real.expand(shape));
  parts.select(-1, 1).copy_(imag.expand(shape));
  return out;
}
Tensor polar(const Tensor& abs, const Tensor& angle) {
  EMBER_AUTOCAST(polar, polar(_ac[0], _ac[1]), &abs, &angle);
  check_complex_parts(abs, angle, "polar");
  return complex(abs * ember::cos(angle), abs * ember::sin(angle));
}

}  // namespace ember
