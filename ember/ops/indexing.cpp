// Tensor indexing: LibTorch's TensorIndex list (integers, Slice, None, Ellipsis, bools,
// index tensors) turned into views plus one advanced-indexing step (aten::index and
// index_put_), which runs as a single TensorIterator over byte offsets.
#include "ember/autograd/record.h"
#include "ember/ops/indexing.h"

#include <ostream>

#include "ember/core/parallel.h"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/type_promotion.h"
#include "ember/ops/views.h"

namespace ember {

// Note [Indexing by byte offsets]
// Indexing dims [first, first + k) of `self` with k broadcast index tensors of shape I
// gives a result of shape before + I + after. We precompute, for each position of I, the
// byte offset sum_j idx_j * stride_j (validating and wrapping indices once, before any
// write), then iterate over the result shape with `self` restrided to stride 0 over I and
// the offsets restrided to stride 0 over before/after. One TensorIterator (coalesced,
// parallel) then does the copy in either direction.
OpDef<IndexFn> index_op(OpInfo{.name = "index"});
OpDef<IndexPutFn> index_put_op(OpInfo{.name = "index_put_"});

namespace {

template <class Fn>
Fn kernel_or_throw(const OpDef<Fn>& op, Device d) {
  Fn k = op.kernel(d.type());
  EMBER_CHECK(k != nullptr, op.name, ": no kernel for device ", d);
  return k;
}

DimVector broadcast_index_shapes(const std::vector<Tensor>& idx) {
  DimVector shape(idx[0].sizes());
  for (size_t i = 1; i < idx.size(); ++i) {
    IntArrayRef s = idx[i].sizes();
    size_t n = std::max(shape.size(), s.size());
    DimVector out(n);
    bool ok = true;
    for (size_t d = 0; d < n; ++d) {
      int64_t a = d < n - shape.size() ? 1 : shape[d - (n - shape.size())];
      int64_t b = d < n - s.size() ? 1 : s[d - (n - s.size())];
      if (a != b && a != 1 && b != 1) ok = false;
      out[d] = a == 1 ? b : a;
    }
    if (!ok) {
      std::string shapes;
      for (const Tensor& t : idx) shapes += (shapes.empty() ? "" : ", ") + ember::detail::str_cat(t.sizes());
      EMBER_CHECK_INDEX(false, "shape mismatch: indexing tensors could not be broadcast together with shapes ", shapes);
    }
    shape = out;
  }
  return shape;
}

[[noreturn]] void index_out_of_range(int64_t v, int64_t size, int64_t dim, IndexErrors errors) {
  const char* op = errors.op;
  switch (errors.style) {
    case IndexErrorStyle::Take:
      EMBER_CHECK_INDEX(false, op, "(): out of range: tried to access index ", v, " on a tensor of ", size, " elements.");
      break;
    case IndexErrorStyle::Select:
      EMBER_CHECK_INDEX(false, op, "(): index out of range in self (index ", v, ", dimension ", dim, " of size ", size,
                        ")");
      break;
    case IndexErrorStyle::IndexCopy:
      EMBER_CHECK_INDEX(false, op, "(): index ", v, " is out of bounds for dimension ", dim, " with size ", size);
      break;
    default:
      EMBER_CHECK_INDEX(false, op, ": index ", v, " is out of bounds for dimension ", dim, " with size ", size);
  }
  __builtin_unreachable();
}

bool wraps_negative(IndexErrors errors) {
  return errors.style == IndexErrorStyle::Advanced || errors.style == IndexErrorStyle::Take ||
         errors.style == IndexErrorStyle::IndexFill;
}

// Index tensors must be on the CPU or on the indexed tensor's device (PyTorch's rule).
void check_index_devices(const std::vector<Tensor>& indices, Device dev) {
  for (const Tensor& t : indices)
    EMBER_CHECK(t.is_cpu() || t.device() == dev, "indices should be either on cpu or on the same device as the "
                "indexed tensor (", dev, "), got indices on ", t.device());
}

// compute_offsets for a tensor on a device: indices (a CPU index tensor is moved there, as
// PyTorch does) are validated together (one min/max reduction each, one synchronization for
// all), then the offsets are device arithmetic.
Tensor compute_offsets_on(Device dev, const std::vector<Tensor>& indices, IntArrayRef shape, IntArrayRef dim_sizes,
                          IntArrayRef dim_strides, int64_t itemsize, IndexErrors errors,
                          const std::vector<int64_t>& err_dims) {
  const bool wrap = wraps_negative(errors);
  std::vector<Tensor> idx, bounds;
  for (const Tensor& t : indices) {
    idx.push_back(t.to(dev, kLong));
    if (idx.back().numel() > 0) bounds.push_back(stack({idx.back().min(), idx.back().max()}));
  }
  Tensor host_bounds = bounds.empty() ? Tensor() : cat(bounds).cpu();
  for (size_t k = 0, b = 0; k < idx.size(); ++k) {
    const Tensor& ik = idx[k];
    const int64_t size = dim_sizes[k], lo = wrap ? -size : 0;
    if (ik.numel() == 0) continue;
    const int64_t* mm = host_bounds.data_ptr<int64_t>() + 2 * b++;
    if (mm[0] >= lo && mm[1] < size) continue;
    check_index_range(ik, lo, size, [&](int64_t v) {  // finds the first offender (on the host)
      index_out_of_range(v, size, err_dims.empty() ? int64_t(k) : err_dims[k], errors);
    });
  }
  Tensor off;
  for (size_t k = 0; k < idx.size(); ++k) {
    const Tensor& ik = idx[k];
    const int64_t size = dim_sizes[k], stride = dim_strides[k] * itemsize;
    Tensor v = wrap && ik.numel() > 0 ? ik + ik.lt(0).to(kLong) * size : ik;
    Tensor term = v * stride;
    off = k == 0 ? term : off + term;
  }
  return off.expand(shape).contiguous();
}

// The byte offsets of Note [Indexing by byte offsets], contiguous over `shape`.
Tensor compute_offsets(const std::vector<Tensor>& indices, IntArrayRef shape, IntArrayRef dim_sizes,
                       IntArrayRef dim_strides, int64_t itemsize, IndexErrors errors,
                       const std::vector<int64_t>& err_dims, Device dev) {
  check_index_devices(indices, dev);
  if (!dev.is_cpu())
    return compute_offsets_on(dev, indices, shape, dim_sizes, dim_strides, itemsize, errors, err_dims);
  std::vector<Tensor> idx;
  idx.reserve(indices.size());
  for (const Tensor& t : indices) idx.push_back(t.to(kLong).expand(shape).contiguous());
  Tensor off = empty(shape, dtype(kLong));
  int64_t* o = off.data_ptr<int64_t>();
  const bool wrap = wraps_negative(errors);
  parallel_for(0, off.numel(), 32768, [&](int64_t b, int64_t e) {
    for (size_t k = 0; k < idx.size(); ++k) {
      const int64_t* ip = idx[k].data_ptr<int64_t>();
      const int64_t size = dim_sizes[k], stride = dim_strides[k] * itemsize;
      const int64_t lo = wrap ? -size : 0;
      for (int64_t i = b; i < e; ++i) {
        int64_t v = ip[i];
        if (EMBER_UNLIKELY(v < lo || v >= size))
          index_out_of_range(v, size, err_dims.empty() ? int64_t(k) : err_dims[k], errors);
        if (v < 0) v += size;
        o[i] = k == 0 ? v * stride : o[i] + v * stride;
      }
    }
  });
  return off;
}

// Shapes and restrided views shared by index_dims and index_put_dims.
struct IndexPlan {
  DimVector out_shape, src_strides, off_strides;
};
IndexPlan plan_index(const Tensor& self, int64_t first, size_t k, IntArrayRef ishape) {
  IndexPlan p;
  int64_t nd = self.dim();
  DimVector icontig = contiguous_strides(ishape);
  for (int64_t d = 0; d < first; ++d) {
    p.out_shape.push_back(self.size(d));
    p.src_strides.push_back(self.stride(d));
    p.off_strides.push_back(0);
  }
  for (size_t d = 0; d < ishape.size(); ++d) {
    p.out_shape.push_back(ishape[d]);
    p.src_strides.push_back(0);
    p.off_strides.push_back(icontig[d]);
  }
  for (int64_t d = first + int64_t(k); d < nd; ++d) {
    p.out_shape.push_back(self.size(d));
    p.src_strides.push_back(self.stride(d));
    p.off_strides.push_back(0);
  }
  return p;
}

void check_index_dtypes(const std::vector<Tensor>& indices) {
  for (const Tensor& t : indices)
    EMBER_CHECK_INDEX(t.scalar_type() == kLong || t.scalar_type() == kInt,
                      "tensors used as indices must be long, int, byte or bool tensors");
}

}  // namespace

Tensor index_dims(const Tensor& self, int64_t first, const std::vector<Tensor>& indices, IndexErrors errors,
                  const std::vector<int64_t>& err_dims) {
  EMBER_INTERNAL_ASSERT(!indices.empty() && first + int64_t(indices.size()) <= self.dim());
  check_index_dtypes(indices);
  DimVector ishape = broadcast_index_shapes(indices);
  IndexPlan p = plan_index(self, first, indices.size(), ishape);
  Tensor out = empty(p.out_shape, self.options());
  if (self.is_meta()) return out;
  Tensor off = compute_offsets(indices, ishape, self.sizes().slice(first, indices.size()),
                               self.strides().slice(first, indices.size()), int64_t(self.element_size()), errors,
                               err_dims, self.device());
  if (out.numel() == 0) return out;
  Tensor src_r = make_view(self, p.out_shape, p.src_strides, self.storage_offset());
  Tensor off_r = make_view(off, p.out_shape, p.off_strides, 0);
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("index")
                          .add_output(out)
                          .add_input(src_r)
                          .add_input(off_r)
                          .promote_inputs_to_common_dtype(false)
                          .cast_common_dtype_to_outputs(false)
                          .declare_static_output_dtype(self.scalar_type())
                          .resize_outputs(false)
                          .build();
  kernel_or_throw(index_op, self.device())(it);
  return out;
}

void check_index_range(const Tensor& index, int64_t lo, int64_t size, const std::function<void(int64_t)>& on_error) {
  if (index.numel() == 0 || index.is_meta()) return;
  if (!index.is_cpu()) {
    // One synchronization for both bounds; the offender is looked for only on failure.
    Tensor bounds = stack({index.min(), index.max()}).to(kCPU, kLong);
    const int64_t* b = bounds.data_ptr<int64_t>();
    if (b[0] >= lo && b[1] < size) return;
    return check_index_range(index.cpu(), lo, size, on_error);
  }
  Tensor c = index.to(kLong).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  for (int64_t i = 0, n = c.numel(); i < n; ++i)
    if (EMBER_UNLIKELY(p[i] < lo || p[i] >= size)) return on_error(p[i]);
}

void check_no_internal_overlap(const Tensor& self, const char* op) {
  if (self.is_non_overlapping_and_dense()) return;
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(!(self.stride(d) == 0 && self.size(d) > 1), op,
                ": unsupported operation: more than one element of the written-to tensor refers to a single "
                "memory location. Please clone() the tensor before performing the operation.");
}

void index_put_dims(const Tensor& self, int64_t first, const std::vector<Tensor>& indices, const Tensor& values,
                    bool accumulate, const Scalar& alpha, IndexErrors errors, const std::vector<int64_t>& err_dims) {
  EMBER_INTERNAL_ASSERT(!indices.empty() && first + int64_t(indices.size()) <= self.dim());
  EMBER_INTERNAL_ASSERT(values.scalar_type() == self.scalar_type());
  check_index_dtypes(indices);
  DimVector ishape = broadcast_index_shapes(indices);
  IndexPlan p = plan_index(self, first, indices.size(), ishape);
  IntArrayRef shape(p.out_shape);
  bool ok = values.dim() <= int64_t(shape.size());
  for (int64_t i = 1; ok && i <= values.dim(); ++i) {
    int64_t v = values.size(values.dim() - i), s = shape[shape.size() - i];
    ok = v == s || v == 1;
  }
  EMBER_CHECK(ok, errors.op, ": shape mismatch: value tensor of shape ", values.sizes(),
              " cannot be broadcast to indexing result of shape ", shape);
  if (self.is_meta()) return;
  Tensor off = compute_offsets(indices, ishape, self.sizes().slice(first, indices.size()),
                               self.strides().slice(first, indices.size()), int64_t(self.element_size()), errors,
                               err_dims, self.device());
  if (checked_numel(shape, "index_put_") == 0) return;
  // Values that alias self would be read after being overwritten; a 0-dim value elsewhere
  // (x[idx] = torch::tensor(1.0) on a GPU tensor) moves to self's device, as in PyTorch.
  Tensor v = values.is_alias_of(self) ? values.clone() : values;
  if (v.dim() == 0 && v.device() != self.device()) v = v.to(self.device());
  Tensor dst_r = make_view(self, p.out_shape, p.src_strides, self.storage_offset());
  Tensor off_r = make_view(off, p.out_shape, p.off_strides, 0);
  TensorIterator it = TensorIteratorConfig()
                          .set_op_name("index_put_")
                          .add_output(dst_r)
                          .add_input(v.expand(shape))
                          .add_input(off_r)
                          .is_inplace(true)
                          .promote_inputs_to_common_dtype(false)
                          .cast_common_dtype_to_outputs(false)
                          .declare_static_output_dtype(self.scalar_type())
                          .resize_outputs(false)
                          .build();
  kernel_or_throw(index_put_op, self.device())(it, accumulate, alpha);
  self.bump_version();
}

// ---- aten::index / index_put_ -----------------------------------------------------------
namespace {

// The index list of aten::index made ready for index_dims: masks become their nonzero
// coordinates, and non-adjacent index tensors move their dims to the front (NumPy rule).
struct PreparedIndex {
  Tensor self;
  int64_t first = 0;
  std::vector<Tensor> indices;
};

PreparedIndex prepare_index(const Tensor& self_in, ArrayRef<std::optional<Tensor>> indices, const char* op) {
  Tensor self = self_in;
  EMBER_CHECK_INDEX(int64_t(indices.size()) <= self.dim(), op, ": too many indices for tensor of dimension ", self.dim(),
                    " (got ", indices.size(), ")");
  std::vector<Tensor> list;
  for (const auto& o : indices) {
    if (!o || !o->defined()) {
      list.emplace_back();
      continue;
    }
    const Tensor& t = *o;
    ScalarType st = t.scalar_type();
    EMBER_CHECK_INDEX(st == kLong || st == kInt || st == kByte || st == kBool,
                      "tensors used as indices must be long, int, byte or bool tensors");
    if (st != kByte && st != kBool) {
      list.push_back(t);
      continue;
    }
    int64_t pos = int64_t(list.size());
    if (t.dim() == 0) {  // a 0-dim mask adds a dim of size 1 (true) or 0 (false)
      self = self.unsqueeze(pos);
      list.push_back(t.item<bool>() ? zeros({1}, dtype(kLong)) : empty({0}, dtype(kLong)));
      continue;
    }
    EMBER_CHECK_INDEX(pos + t.dim() <= self.dim(), op, ": too many indices for tensor of dimension ", self.dim());
    for (int64_t j = 0; j < t.dim(); ++j)
      EMBER_CHECK_INDEX(t.size(j) == self.size(pos + j), "The shape of the mask ", t.sizes(), " at index ", j,
                        " does not match the shape of the indexed tensor ", self.sizes(), " at index ", pos + j);
    Tensor nz = nonzero(t);
    for (int64_t j = 0; j < t.dim(); ++j) list.push_back(nz.select(1, j));
  }
  PreparedIndex p;
  std::vector<int64_t> defined_dims;
  for (size_t d = 0; d < list.size(); ++d)
    if (list[d].defined()) defined_dims.push_back(int64_t(d));
  if (defined_dims.empty()) {
    p.self = self;
    return p;
  }
  bool adjacent = defined_dims.back() - defined_dims.front() + 1 == int64_t(defined_dims.size());
  if (adjacent) {
    p.self = self;
    p.first = defined_dims.front();
  } else {
    std::vector<int64_t> order(defined_dims);
    for (int64_t d = 0; d < self.dim(); ++d)
      if (d >= int64_t(list.size()) || !list[d].defined()) order.push_back(d);
    p.self = self.permute(order);
    p.first = 0;
  }
  for (int64_t d : defined_dims) p.indices.push_back(list[d]);
  return p;
}

}  // namespace

Tensor index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  check_defined(self, "index");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self))) {
    DimVector sizes(self.sizes());
    std::vector<std::optional<Tensor>> idx(indices.begin(), indices.end());
    return autograd::differentiable(
        "index", {&self}, [&] { return index(self, indices); },
        [sizes, idx](const autograd::VjpCtx& c) {
          return autograd::variable_list{
              index_put(zeros(sizes, c.grad().options()), idx, c.grad(), /*accumulate=*/true)};
        },
        [&](const auto& t, const Tensor&) { return index(t(0), indices); });
  }
  PreparedIndex p = prepare_index(self, indices, "index");
  if (p.indices.empty()) return alias(p.self);
  return index_dims(p.self, p.first, p.indices, {IndexErrorStyle::Advanced, "index"});
}

Tensor& index_put_(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values, bool accumulate) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, values)))
    return autograd::assign_inplace(self, index_put(self, indices, values, accumulate), "index_put_");
  EMBER_CHECK(values.scalar_type() == self.scalar_type(), "Index put requires the source and destination dtypes match, got ",
              self.scalar_type(), " for the destination and ", values.scalar_type(), " for the source.");
  check_no_internal_overlap(self, "index_put_");
  PreparedIndex p = prepare_index(self, indices, "index_put_");
  if (p.indices.empty()) {
    Tensor v = values.expand(self.sizes());
    if (accumulate) self.add_(v);
    else self.copy_(v);
    return self;
  }
  index_put_dims(p.self, p.first, p.indices, values, accumulate, 1, {IndexErrorStyle::Advanced, "index_put_"});
  return self;
}

Tensor index_put(const Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values, bool accumulate) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self, values))) {
    std::vector<std::optional<Tensor>> idx(indices.begin(), indices.end());
    return autograd::differentiable(
        "index_put", {&self, &values}, [&] { return index_put(self, indices, values, accumulate); },
        [idx, accumulate](const autograd::VjpCtx& c) {
          Tensor gs;
          if (c.needs_input_grad(0))
            gs = accumulate ? c.grad() : index_put(c.grad(), idx, zeros({}, c.grad().options()), false);
          return autograd::variable_list{gs, c.needs_input_grad(1) ? index(c.grad(), idx) : Tensor()};
        },
        [&](const auto& t, const Tensor& r) {
          Tensor tv = autograd::tangent_or_zeros(t(1), values);
          return index_put(autograd::tangent_or_zeros(t(0), r), indices, tv, accumulate);
        });
  }
  Tensor r = self.clone();
  index_put_(r, indices, values, accumulate);
  return r;
}

// ---- TensorIndex ------------------------------------------------------------------------
namespace indexing {

TensorIndex::TensorIndex(const char* s) : type_(Type::Ellipsis) {
  EMBER_CHECK(s != nullptr && std::string_view(s) == "...",
              "TensorIndex: expected \"...\" to represent an ellipsis index, but got \"", s ? s : "(null)", "\"");
}

std::ostream& operator<<(std::ostream& os, const TensorIndex& i) {
  switch (i.type()) {
    case TensorIndex::Type::None: return os << "None";
    case TensorIndex::Type::Ellipsis: return os << "...";
    case TensorIndex::Type::Integer: return os << i.integer();
    case TensorIndex::Type::Boolean: return os << (i.boolean() ? "true" : "false");
    case TensorIndex::Type::Slice: {
      const Slice& s = i.slice();
      return os << s.start() << ":" << s.stop() << ":" << s.step();
    }
    case TensorIndex::Type::Tensor: return os << i.tensor();
  }
  return os;
}
std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices) {
  os << "(";
  for (size_t k = 0; k < indices.size(); ++k) os << (k ? ", " : "") << indices[k];
  return os << ")";
}

}  // namespace indexing

// ---- Tensor::index / index_put_ ------------------------------------------------------------
namespace {
using indexing::TensorIndex;

Tensor apply_select(const Tensor& t, int64_t dim, int64_t index, int64_t real_dim) {
  int64_t size = t.size(dim);
  EMBER_CHECK_INDEX(index >= -size && index < size, "index ", index, " is out of bounds for dimension ", real_dim,
                    " with size ", size);
  return t.select(dim, index < 0 ? index + size : index);
}

Tensor apply_slice(const Tensor& t, int64_t dim, const indexing::Slice& s) {
  if (s.step() <= 0) throw ValueError("step must be greater than zero");
  if (s.start() == 0 && s.stop() == indexing::INDEX_MAX && s.step() == 1) return t;
  return t.slice(dim, s.start(), s.stop(), s.step());
}

Tensor bool_to_index(bool b) { return b ? zeros({1}, dtype(kLong)) : empty({0}, dtype(kLong)); }

void record_index(std::vector<std::optional<Tensor>>& out, int64_t& dim, const Tensor& t) {
  out.resize(size_t(dim) + 1);
  out[dim] = t;
  ++dim;
}

// PyTorch's applySlicing: integers, slices, None, Ellipsis and bools become views;
// index tensors are collected (by the dim they apply to) for one advanced-indexing step.
Tensor apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices, std::vector<std::optional<Tensor>>& out,
                     const char* op) {
  check_defined(self, op);
  int64_t self_dim = self.dim();
  if (self_dim == 0 && indices.size() == 1 && (indices[0].is_integer() || indices[0].is_slice()))
    EMBER_CHECK_INDEX(false, op, ": invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number");
  int64_t specified = 0;
  for (const TensorIndex& i : indices) {
    if (i.is_integer() || i.is_slice()) ++specified;
    else if (i.is_tensor()) {
      EMBER_CHECK(i.tensor().defined(), op, ": an undefined tensor cannot be used as an index");
      ScalarType st = i.tensor().scalar_type();
      specified += (st == kBool || st == kByte) ? i.tensor().dim() : 1;
    }
  }
  EMBER_CHECK_INDEX(specified <= self_dim, op, ": too many indices for tensor of dimension ", self_dim);
  Tensor result = self;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    const TensorIndex& obj = indices[i];
    switch (obj.type()) {
      case TensorIndex::Type::Integer: result = apply_select(result, dim, obj.integer(), int64_t(i)); break;
      case TensorIndex::Type::Slice: result = apply_slice(result, dim, obj.slice()); ++dim; break;
      case TensorIndex::Type::Ellipsis: dim += self_dim - specified; break;
      case TensorIndex::Type::None: result = result.unsqueeze(dim); ++dim; break;
      case TensorIndex::Type::Boolean:
        result = result.unsqueeze(dim);
        record_index(out, dim, bool_to_index(obj.boolean()));
        break;
      case TensorIndex::Type::Tensor: {
        const Tensor& t = obj.tensor();
        ScalarType st = t.scalar_type();
        if (t.dim() == 0 && isIntegralType(st, true)) {
          if (st != kByte && st != kBool) {
            result = apply_select(result, dim, t.item<int64_t>(), int64_t(i));
          } else {
            result = result.unsqueeze(dim);
            record_index(out, dim, bool_to_index(t.item<bool>()));
          }
        } else {
          record_index(out, dim, t);
        }
        break;
      }
    }
  }
  return result;
}

// Copies value into dst with PyTorch's setitem broadcasting (leading 1-dims of value dropped).
void copy_to(Tensor dst, const Tensor& src) {
  if (dst.sizes() == src.sizes() || src.dim() == 0) {
    dst.copy_(src);
    return;
  }
  int64_t lead = 0;
  while (lead < src.dim() && src.size(lead) == 1) ++lead;
  Tensor s = src.reshape(src.sizes().slice(lead));
  dst.copy_(s.expand(dst.sizes()));
}

Tensor strip_leading_ones(const Tensor& v) {
  int64_t lead = 0;
  while (lead < v.dim() && v.size(lead) == 1) ++lead;
  return lead == 0 ? v : v.reshape(v.sizes().slice(lead));
}
}  // namespace

Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const {
  EMBER_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index() is not valid syntax");
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor sliced = apply_slicing(*this, indices, tensor_indices, "index");
  if (tensor_indices.empty()) return sliced.is_same(*this) ? ember::alias(sliced) : sliced;
  return ember::index(sliced, tensor_indices);
}

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const {
  EMBER_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor sliced = apply_slicing(self(), indices, tensor_indices, "index_put_");
  if (tensor_indices.empty()) {
    copy_to(sliced, rhs);
    return self();
  }
  ember::index_put_(sliced, tensor_indices, strip_leading_ones(rhs), false);
  return self();
}

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const {
  EMBER_CHECK(!indices.empty(), "Passing an empty index list to Tensor::index_put_() is not valid syntax");
  std::vector<std::optional<Tensor>> tensor_indices;
  Tensor sliced = apply_slicing(self(), indices, tensor_indices, "index_put_");
  if (tensor_indices.empty()) {
    sliced.fill_(v);
    return self();
  }
  ember::index_put_(sliced, tensor_indices, scalar_tensor(v, options()), false);
  return self();
}

}  // namespace ember
