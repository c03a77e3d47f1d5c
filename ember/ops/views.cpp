// View ops: results share storage (and the version counter) with their input.
#include <algorithm>
#include <numeric>

#include "ember/core/tracing_call.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/tensor_iterator.h"
#include "ember/ops/views.h"

namespace ember {

// The traced view ops (Note [Tracing hooks]); a view made by any other function is recorded
// by make_view as an as_strided of its base, relative to the base's offset.
namespace {
using tracing::Attrs;
using tracing::int_attr;
using tracing::ints;
using tracing::ints_attr;
using TensorVec = std::vector<Tensor>;
constexpr auto kView = tracing::Fusion::View;
const tracing::TracedOpDef view_traced{{"view", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
  return {view(in.at(0), ints_attr(a, "size", "view"))};
}}};
const tracing::TracedOpDef reshape_traced{{"reshape", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
  return {reshape(in.at(0), ints_attr(a, "size", "reshape"))};
}}};
const tracing::TracedOpDef permute_traced{{"permute", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
  return {permute(in.at(0), ints_attr(a, "dims", "permute"))};
}}};
const tracing::TracedOpDef transpose_traced{
    {"transpose", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
       return {transpose(in.at(0), int_attr(a, "dim0", "transpose"), int_attr(a, "dim1", "transpose"))};
     }}};
const tracing::TracedOpDef expand_traced{{"expand", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
  return {expand(in.at(0), ints_attr(a, "size", "expand"), false)};
}}};
const tracing::TracedOpDef unsqueeze_traced{
    {"unsqueeze", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
       return {unsqueeze(in.at(0), int_attr(a, "dim", "unsqueeze"))};
     }}};
const tracing::TracedOpDef squeeze_traced{{"squeeze", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
  return {tracing::has_attr(a, "dim") ? squeeze(in.at(0), int_attr(a, "dim", "squeeze")) : squeeze(in.at(0))};
}}};
const tracing::TracedOpDef select_traced{{"select", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
  return {select(in.at(0), int_attr(a, "dim", "select"), int_attr(a, "index", "select"))};
}}};
const tracing::TracedOpDef slice_traced{{"slice", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
  return {slice(in.at(0), int_attr(a, "dim", "slice"), tracing::optional_int_attr(a, "start", "slice"),
                tracing::optional_int_attr(a, "end", "slice"), int_attr(a, "step", "slice"))};
}}};
const tracing::TracedOpDef view_as_real_traced{{"view_as_real", kView, [](auto&, const TensorVec& in, const Attrs&) -> TensorVec {
  return {view_as_real(in.at(0))};
}}};
const tracing::TracedOpDef view_as_complex_traced{{"view_as_complex", kView, [](auto&, const TensorVec& in, const Attrs&) -> TensorVec {
  return {view_as_complex(in.at(0))};
}}};
const tracing::TracedOpDef as_strided_traced{
    {"as_strided", kView, [](auto&, const TensorVec& in, const Attrs& a) -> TensorVec {
       // storage_offset relative to the base's own
       return {as_strided(in.at(0), ints_attr(a, "size", "as_strided"), ints_attr(a, "stride", "as_strided"),
                          in.at(0).storage_offset() + int_attr(a, "offset", "as_strided"))};
     }}};
}  // namespace

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::optional<ScalarType> dt) {
  if (EMBER_UNLIKELY(tracing::active()) && !dt)
    return tracing::traced_call(as_strided_traced, {base},
                                {{"size", ints(sizes)}, {"stride", ints(strides)},
                                 {"offset", Scalar(offset - base.storage_offset())}},
                                [&] { return make_view(base, sizes, strides, offset, dt); });
  auto impl = make_intrusive<TensorImpl>(base.storage(), dt.value_or(base.scalar_type()), base.device());
  impl->set_sizes_and_strides(sizes, strides);
  impl->set_storage_offset(offset);
  impl->share_version_counter(*base.unsafeGetTensorImpl());
  Tensor v(std::move(impl));
  view_hook(base, v);
  return v;
}

namespace {
ViewHook g_view_hook = nullptr;

// Replaces a single -1 in `shape` given numel; errors like PyTorch.
DimVector infer_shape(IntArrayRef shape, int64_t numel, const char* op) {
  DimVector r(shape);
  int64_t infer = -1, prod = 1;
  for (size_t d = 0; d < r.size(); ++d) {
    if (r[d] == -1) {
      EMBER_CHECK(infer < 0, op, ": shape '", shape, "': only one dimension can be inferred");
      infer = d;
    } else {
      EMBER_CHECK(r[d] >= 0, op, ": shape '", shape, "': invalid shape dimension ", r[d]);
      prod *= r[d];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK(prod != 0 && numel % prod == 0, op, ": shape '", shape, "' is invalid for input of size ", numel);
    r[infer] = numel / prod;
  } else {
    EMBER_CHECK(prod == numel, op, ": shape '", shape, "' is invalid for input of size ", numel);
  }
  return r;
}

// Strides for viewing (old sizes, old strides) as new sizes without copying, if possible.
std::optional<DimVector> compute_view_strides(IntArrayRef old_sizes, IntArrayRef old_strides, IntArrayRef sizes) {
  DimVector st(sizes.size());
  if (old_sizes.empty()) {
    std::fill(st.begin(), st.end(), 1);
    return st;
  }
  int64_t numel = 1;
  for (int64_t s : old_sizes) numel *= s;
  if (numel == 0) {
    if (old_sizes == sizes) return DimVector(old_strides);
    return contiguous_strides(sizes);
  }
  int64_t view_d = int64_t(sizes.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t td = int64_t(old_sizes.size()) - 1; td >= 0; --td) {
    tensor_numel *= old_sizes[td];
    if (td == 0 || (old_sizes[td - 1] != 1 && old_strides[td - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
        st[view_d] = view_numel * chunk_base_stride;
        view_numel *= sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (td > 0) {
        chunk_base_stride = old_strides[td - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return st;
}
}  // namespace

void set_view_hook(ViewHook h) { g_view_hook = h; }
void view_hook(const Tensor& base, Tensor& view) {
  if (g_view_hook) g_view_hook(base, view);
}

Tensor view(const Tensor& self, IntArrayRef size) {
  if (tracing::active())
    return tracing::traced_call(view_traced, {self}, {{"size", ints(size)}}, [&] { return view(self, size); });
  check_defined(self, "view");
  DimVector shape = infer_shape(size, self.numel(), "view");
  auto st = compute_view_strides(self.sizes(), self.strides(), shape);
  EMBER_CHECK(st.has_value(), "view: view size ", IntArrayRef(shape), " is not compatible with input tensor's size ",
              self.sizes(), " and stride ", self.strides(),
              " (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *st, self.storage_offset());
}

Tensor reshape(const Tensor& self, IntArrayRef size) {
  if (tracing::active())
    return tracing::traced_call(reshape_traced, {self}, {{"size", ints(size)}}, [&] { return reshape(self, size); });
  check_defined(self, "reshape");
  DimVector shape = infer_shape(size, self.numel(), "reshape");
  if (auto st = compute_view_strides(self.sizes(), self.strides(), shape))
    return make_view(self, shape, *st, self.storage_offset());
  return view(self.clone(MemoryFormat::Contiguous), shape);
}

Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  check_defined(self, "flatten");
  int64_t nd = self.dim();
  start_dim = maybe_wrap_dim(start_dim, nd, "flatten");
  end_dim = maybe_wrap_dim(end_dim, nd, "flatten");
  EMBER_CHECK(start_dim <= end_dim, "flatten: start_dim (", start_dim, ") cannot come after end_dim (", end_dim, ")");
  if (nd == 0) return reshape(self, {1});
  if (start_dim == end_dim) return self;
  DimVector shape;
  for (int64_t d = 0; d < start_dim; ++d) shape.push_back(self.size(d));
  int64_t p = 1;
  for (int64_t d = start_dim; d <= end_dim; ++d) p *= self.size(d);
  shape.push_back(p);
  for (int64_t d = end_dim + 1; d < nd; ++d) shape.push_back(self.size(d));
  return reshape(self, shape);
}

Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  dim = maybe_wrap_dim(dim, self.dim(), "unflatten");
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  DimVector inner = infer_shape(sizes, self.size(dim), "unflatten");
  DimVector shape;
  for (int64_t d = 0; d < dim; ++d) shape.push_back(self.size(d));
  for (int64_t s : inner) shape.push_back(s);
  for (int64_t d = dim + 1; d < self.dim(); ++d) shape.push_back(self.size(d));
  return view(self, shape);
}

Tensor squeeze(const Tensor& self) {
  if (tracing::active()) return tracing::traced_call(squeeze_traced, {self}, {}, [&] { return squeeze(self); });
  check_defined(self, "squeeze");
  DimVector sz, st;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (self.size(d) != 1) { sz.push_back(self.size(d)); st.push_back(self.stride(d)); }
  return make_view(self, sz, st, self.storage_offset());
}
Tensor squeeze(const Tensor& self, int64_t dim) {
  if (tracing::active())
    return tracing::traced_call(squeeze_traced, {self}, {{"dim", Scalar(dim)}}, [&] { return squeeze(self, dim); });
  check_defined(self, "squeeze");
  dim = maybe_wrap_dim(dim, self.dim(), "squeeze");
  if (self.dim() == 0 || self.size(dim) != 1) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  DimVector sz(self.sizes()), st(self.strides());
  sz.erase(sz.begin() + dim);
  st.erase(st.begin() + dim);
  return make_view(self, sz, st, self.storage_offset());
}
Tensor unsqueeze(const Tensor& self, int64_t dim) {
  if (tracing::active())
    return tracing::traced_call(unsqueeze_traced, {self}, {{"dim", Scalar(dim)}}, [&] { return unsqueeze(self, dim); });
  check_defined(self, "unsqueeze");
  dim = maybe_wrap_dim(dim, self.dim() + 1, "unsqueeze");
  DimVector sz(self.sizes()), st(self.strides());
  int64_t s = dim >= self.dim() ? 1 : self.size(dim) * self.stride(dim);
  sz.insert(sz.begin() + dim, 1);
  st.insert(st.begin() + dim, s);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor permute(const Tensor& self, IntArrayRef dims) {
  if (tracing::active())
    return tracing::traced_call(permute_traced, {self}, {{"dims", ints(dims)}}, [&] { return permute(self, dims); });
  check_defined(self, "permute");
  int64_t nd = self.dim();
  EMBER_CHECK(int64_t(dims.size()) == nd, "permute: number of dims don't match in permute (got ", dims.size(),
              " dims ", dims, " for a tensor of ", nd, " dims)");
  DimVector sz(nd), st(nd);
  std::vector<bool> seen(nd, false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = maybe_wrap_dim(dims[i], nd, "permute");
    EMBER_CHECK(!seen[d], "permute: repeated dim ", dims[i], " in ", dims);
    seen[d] = true;
    sz[i] = self.size(d);
    st[i] = self.stride(d);
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  if (tracing::active())
    return tracing::traced_call(transpose_traced, {self}, {{"dim0", Scalar(dim0)}, {"dim1", Scalar(dim1)}},
                                [&] { return transpose(self, dim0, dim1); });
  check_defined(self, "transpose");
  int64_t nd = self.dim();
  if (nd == 0) return make_view(self, {}, {}, self.storage_offset());
  dim0 = maybe_wrap_dim(dim0, nd, "transpose");
  dim1 = maybe_wrap_dim(dim1, nd, "transpose");
  DimVector sz(self.sizes()), st(self.strides());
  std::swap(sz[dim0], sz[dim1]);
  std::swap(st[dim0], st[dim1]);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor t(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "t: expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return self.dim() < 2 ? transpose(self, 0, 0) : transpose(self, 0, 1);
}

Tensor expand(const Tensor& self, IntArrayRef size, bool) {
  if (tracing::active())
    return tracing::traced_call(expand_traced, {self}, {{"size", ints(size)}}, [&] { return expand(self, size, false); });
  check_defined(self, "expand");
  int64_t nd = size.size(), sd = self.dim();
  EMBER_CHECK(nd >= sd, "expand: the number of sizes provided (", nd,
              ") must be greater or equal to the number of dimensions in the tensor (", sd, ")");
  DimVector sz(nd), st(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t off = nd - 1 - i, d = sd - 1 - off;
    int64_t cur = d >= 0 ? self.size(d) : 1, cst = d >= 0 ? self.stride(d) : 0;
    int64_t target = size[i];
    if (target == -1) {
      EMBER_CHECK(d >= 0, "expand: -1 is not allowed in a leading, non-existing dimension ", i, " (sizes ", size, ")");
      target = cur;
    }
    EMBER_CHECK(target >= 0, "expand: invalid size ", target, " in ", size);
    if (cur == target) { sz[i] = cur; st[i] = cst; }
    else {
      EMBER_CHECK(cur == 1, "expand: the expanded size of the tensor (", target,
                  ") must match the existing size (", cur, ") at non-singleton dimension ", i,
                  ". Target sizes: ", size, ". Tensor sizes: ", self.sizes());
      sz[i] = target;
      st[i] = 0;
    }
  }
  return make_view(self, sz, st, self.storage_offset());
}

Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return expand(self, size); }
std::vector<int64_t> broadcast_shapes(IntArrayRef a, IntArrayRef b) { return infer_size(a, b, "broadcast_shapes").vec(); }
std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  DimVector shape;
  for (size_t i = 0; i < tensors.size(); ++i)
    shape = i == 0 ? DimVector(tensors[i].sizes()) : infer_size(shape, tensors[i].sizes(), "broadcast_tensors");
  std::vector<Tensor> r;
  for (const Tensor& t : tensors) r.push_back(expand(t, shape));
  return r;
}

Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  check_defined(self, "narrow");
  EMBER_CHECK(self.dim() > 0, "narrow: cannot be applied to a 0-dim tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "narrow");
  int64_t cur = self.size(dim);
  if (start < 0) start += cur;
  EMBER_CHECK_INDEX(start >= 0 && start <= cur, "narrow: start (", start, ") out of range for dimension ", dim,
                    " of size ", cur);
  EMBER_CHECK(length >= 0 && start + length <= cur, "narrow: start (", start, ") + length (", length,
              ") exceeds dimension size (", cur, ").");
  return slice(self, dim, start, start + length, 1);
}

Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  if (tracing::active())
    return tracing::traced_call(select_traced, {self}, {{"dim", Scalar(dim)}, {"index", Scalar(index)}},
                                [&] { return select(self, dim, index); });
  check_defined(self, "select");
  EMBER_CHECK_INDEX(self.dim() > 0, "select: cannot be applied to a 0-dim tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "select");
  int64_t size = self.size(dim);
  EMBER_CHECK_INDEX(index >= -size && index < size, "select: index ", index, " out of range for tensor of size ",
                    self.sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  DimVector sz(self.sizes()), st(self.strides());
  int64_t off = self.storage_offset() + index * st[dim];
  sz.erase(sz.begin() + dim);
  st.erase(st.begin() + dim);
  return make_view(self, sz, st, off);
}

Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt,
             int64_t step) {
  if (tracing::active())
    return tracing::traced_call(slice_traced, {self},
                                {{"dim", Scalar(dim)}, {"start", tracing::optional_int(start_opt)},
                                 {"end", tracing::optional_int(end_opt)}, {"step", Scalar(step)}},
                                [&] { return slice(self, dim, start_opt, end_opt, step); });
  EMBER_CHECK(self.dim() > 0, "slice: cannot be applied to a 0-dim tensor.");
  dim = maybe_wrap_dim(dim, self.dim(), "slice");
  EMBER_CHECK(step > 0, "slice: step must be positive, got ", step);
  int64_t size = self.size(dim);
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  DimVector sz(self.sizes()), st(self.strides());
  int64_t off = self.storage_offset() + start * st[dim];
  sz[dim] = (end - start + step - 1) / step;
  st[dim] *= step;
  return make_view(self, sz, st, off);
}

Tensor unfold(const Tensor& self, int64_t dim, int64_t size, int64_t step) {
  int64_t nd = self.dim();
  dim = maybe_wrap_dim(dim, nd, "unfold");
  int64_t cur = nd == 0 ? 1 : self.size(dim);
  EMBER_CHECK(size <= cur, "unfold: maximum size for tensor at dimension ", dim, " is ", cur, " but size is ", size);
  EMBER_CHECK(step > 0, "unfold: step is ", step, " but must be > 0");
  DimVector sz(self.sizes()), st(self.strides());
  if (nd == 0) { sz = {size}; st = {1}; return make_view(self, sz, st, self.storage_offset()); }
  int64_t dst = st[dim];
  sz[dim] = (cur - size) / step + 1;
  st[dim] = dst * step;
  sz.push_back(size);
  st.push_back(dst);
  return make_view(self, sz, st, self.storage_offset());
}

Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t nd = self.dim();
  EMBER_CHECK(nd >= 2, "diagonal: expected a tensor with at least 2 dimensions, got ", nd);
  dim1 = maybe_wrap_dim(dim1, nd, "diagonal");
  dim2 = maybe_wrap_dim(dim2, nd, "diagonal");
  EMBER_CHECK(dim1 != dim2, "diagonal: dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t off = self.storage_offset(), len;
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(self.size(dim1), self.size(dim2) - offset), 0);
    if (len > 0) off += offset * self.stride(dim2);
  } else {
    len = std::max<int64_t>(std::min(self.size(dim1) + offset, self.size(dim2)), 0);
    if (len > 0) off -= offset * self.stride(dim1);
  }
  DimVector sz, st;
  for (int64_t d = 0; d < nd; ++d)
    if (d != dim1 && d != dim2) { sz.push_back(self.size(d)); st.push_back(self.stride(d)); }
  sz.push_back(len);
  st.push_back(self.stride(dim1) + self.stride(dim2));
  return make_view(self, sz, st, off);
}

Tensor as_strided(const Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  EMBER_CHECK(size.size() == stride.size(), "as_strided: mismatch in length of strides and shape (", size.size(),
              " vs ", stride.size(), ")");
  int64_t off = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(off >= 0, "as_strided: negative storage offset ", off);
  int64_t extent = off + 1;
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK(size[d] >= 0 && stride[d] >= 0, "as_strided: negative size or stride in ", size, " / ", stride);
    if (size[d] == 0) { extent = 0; break; }
    extent += (size[d] - 1) * stride[d];
  }
  if (!self.is_meta())
    EMBER_CHECK(size_t(extent) * self.element_size() <= self.storage().nbytes(), "as_strided: setStorage: sizes ",
                size, ", strides ", stride, ", storage offset ", off, " and itemsize ", self.element_size(),
                " require a storage of ", size_t(extent) * self.element_size(), " bytes, but the storage has only ",
                self.storage().nbytes(), " bytes");
  return make_view(self, size, stride, off);
}

std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "split_with_sizes: expects at least a 1-dimensional tensor");
  dim = maybe_wrap_dim(dim, self.dim(), "split_with_sizes");
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes: expects split_sizes to have non-negative entries, got ", split_sizes);
    total += s;
  }
  EMBER_CHECK(total == self.size(dim), "split_with_sizes: expects split_sizes to sum exactly to ", self.size(dim),
              " (input tensor's size at dimension ", dim, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> r;
  int64_t start = 0;
  for (int64_t s : split_sizes) { r.push_back(narrow(self, dim, start, s)); start += s; }
  return r;
}

std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "split: expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "split: split_size expected to be non-negative, got ", split_size);
  dim = maybe_wrap_dim(dim, self.dim(), "split");
  int64_t size = self.size(dim);
  EMBER_CHECK(split_size > 0 || size == 0, "split: split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  std::vector<int64_t> sizes;
  if (size == 0) return {narrow(self, dim, 0, 0)};
  for (int64_t s = 0; s < size; s += split_size) sizes.push_back(std::min(split_size, size - s));
  return split_with_sizes(self, sizes, dim);
}
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return split_with_sizes(self, split_sizes, dim);
}

std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "chunk: expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk: expects `chunks` to be greater than 0, got: ", chunks);
  dim = maybe_wrap_dim(dim, self.dim(), "chunk");
  int64_t size = self.size(dim);
  int64_t split_size = (size + chunks - 1) / chunks;
  if (split_size == 0 && size == 0) {
    std::vector<int64_t> sizes(chunks, 0);
    return split_with_sizes(self, sizes, dim);
  }
  return split(self, split_size, dim);
}

std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split: expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  EMBER_CHECK(sections > 0, "tensor_split: number of sections must be larger than 0, got ", sections);
  dim = maybe_wrap_dim(dim, self.dim(), "tensor_split");
  int64_t size = self.size(dim), base = size / sections, extra = size % sections;
  std::vector<Tensor> r;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    int64_t len = base + (i < extra ? 1 : 0);
    r.push_back(slice(self, dim, start, start + len));
    start += len;
  }
  return r;
}
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split: expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
  dim = maybe_wrap_dim(dim, self.dim(), "tensor_split");
  std::vector<Tensor> r;
  int64_t start = 0;
  for (int64_t idx : indices) {
    r.push_back(slice(self, dim, start, idx));
    start = idx;
  }
  r.push_back(slice(self, dim, start, std::nullopt));
  return r;
}

std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "unbind: dimension specified as 0 but tensor has no dimensions");
  dim = maybe_wrap_dim(dim, self.dim(), "unbind");
  std::vector<Tensor> r;
  for (int64_t i = 0; i < self.size(dim); ++i) r.push_back(select(self, dim, i));
  return r;
}

Tensor movedim(const Tensor& self, IntArrayRef src, IntArrayRef dst) {
  int64_t nd = self.dim();
  EMBER_CHECK(src.size() == dst.size(), "movedim: Invalid source or destination dims: source (", src,
              " dims) should contain the same number of dims as destination (", dst, " dims)");
  std::vector<int64_t> order(nd, -1);
  std::vector<bool> used_src(nd, false), used_dst(nd, false);
  for (size_t i = 0; i < src.size(); ++i) {
    int64_t s = maybe_wrap_dim(src[i], nd, "movedim"), d = maybe_wrap_dim(dst[i], nd, "movedim");
    EMBER_CHECK(!used_src[s], "movedim: repeated dim in `source` (", src, ")");
    EMBER_CHECK(!used_dst[d], "movedim: repeated dim in `destination` (", dst, ")");
    used_src[s] = used_dst[d] = true;
    order[d] = s;
  }
  int64_t next = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (order[d] != -1) continue;
    while (used_src[next]) ++next;
    order[d] = next++;
  }
  return permute(self, order);
}
Tensor movedim(const Tensor& self, int64_t src, int64_t dst) { return movedim(self, IntArrayRef(src), IntArrayRef(dst)); }

Tensor view_as_real(const Tensor& self) {
  if (tracing::active()) return tracing::traced_call(view_as_real_traced, {self}, {}, [&] { return view_as_real(self); });
  EMBER_CHECK_TYPE(self.is_complex(), "view_as_real: is only supported for complex tensors, got ", self.scalar_type());
  DimVector sz(self.sizes()), st;
  for (int64_t s : self.strides()) st.push_back(s * 2);
  sz.push_back(2);
  st.push_back(1);
  return make_view(self, sz, st, self.storage_offset() * 2, toRealValueType(self.scalar_type()));
}

Tensor view_as_complex(const Tensor& self) {
  EMBER_AUTOCAST(view_as_complex, view_as_complex(_ac[0]), &self);  // a view of the float32 copy
  if (tracing::active())
    return tracing::traced_call(view_as_complex_traced, {self}, {}, [&] { return view_as_complex(self); });
  ScalarType t = self.scalar_type();
  EMBER_CHECK_TYPE(t == kFloat || t == kDouble || t == kHalf, "view_as_complex: is only supported for half, float "
                   "and double tensors, but got a tensor of scalar type: ", t);
  EMBER_CHECK(self.dim() > 0 && self.sizes().back() == 2, "view_as_complex: Tensor must have a last dimension of size 2, got ", self.sizes());
  EMBER_CHECK(self.strides().back() == 1, "view_as_complex: Tensor must have a last dimension with stride 1");
  DimVector sz(self.sizes().slice(0, self.dim() - 1)), st;
  for (int64_t d = 0; d + 1 < self.dim(); ++d) {
    EMBER_CHECK(self.stride(d) % 2 == 0, "view_as_complex: Tensor must have a stride divisible by 2 for all but last dimension");
    st.push_back(self.stride(d) / 2);
  }
  EMBER_CHECK(self.storage_offset() % 2 == 0, "view_as_complex: Tensor must have a storage_offset divisible by 2");
  return make_view(self, sz, st, self.storage_offset() / 2, toComplexType(t));
}

Tensor real(const Tensor& self) {
  if (!self.is_complex()) return self;
  return select(view_as_real(self), -1, 0);
}
Tensor imag(const Tensor& self) {
  EMBER_CHECK_TYPE(self.is_complex(), "imag is not implemented for tensors with non-complex dtypes.");
  return select(view_as_real(self), -1, 1);
}


}  // namespace ember
