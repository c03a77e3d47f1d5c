// Shape and selection ops written with ember's views and copies: the *_scatter ops (the
// functional forms of writing into a view), take_along_dim, sum_to_size, narrow_copy,
// ravel, h/v/dsplit, the unsafe_* splits, atleast_Nd, block_diag, combinations,
// tril/triu_indices, argwhere and msort. PyTorch 1.13's semantics and errors.
#include <algorithm>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember {

// A copy of self with the view given by `view_of(copy)` replaced by src (differentiable in both).
namespace {
template <class View>
Tensor scatter_into_view(const char* op, const Tensor& self, const Tensor& src, View&& view_of) {
  check_defined(self, op);
  check_defined(src, op, "src");
  Tensor out = self.clone();
  Tensor v = view_of(out);
  EMBER_CHECK(v.sizes() == src.sizes(), op, ": expected src to have a size equal to the slice of self. src size = ",
              src.sizes(), ", slice size = ", v.sizes());
  v.copy_(src);
  return out;
}
}  // namespace

Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  return scatter_into_view("slice_scatter", self, src, [&](const Tensor& t) {
    const int64_t d = maybe_wrap_dim(dim, t.dim(), "slice_scatter");
    return t.slice(d, start.value_or(0), end.value_or(std::numeric_limits<int64_t>::max()), step);
  });
}
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return scatter_into_view("select_scatter", self, src, [&](const Tensor& t) { return t.select(dim, index); });
}
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return scatter_into_view("diagonal_scatter", self, src,
                           [&](const Tensor& t) { return t.diagonal(offset, dim1, dim2); });
}

// gather along dim with indices broadcast against self (all elements, flattened, without dim).
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  check_defined(self, "take_along_dim");
  check_defined(indices, "take_along_dim", "indices");
  EMBER_CHECK_TYPE(indices.scalar_type() == kLong, "torch.take_along_dim(): dtype of indices should be Long but got ",
                   indices.scalar_type());
  if (!dim) return self.flatten().gather(0, indices.flatten());
  EMBER_CHECK(self.dim() == indices.dim(), "torch.take_along_dim(): input and indices should have the same number of "
              "dimensions, but got ", self.dim(), " dimensions for input, and ", indices.dim(),
              " dimensions for indices");
  const int64_t d = maybe_wrap_dim(*dim, self.dim(), "take_along_dim");
  std::vector<int64_t> self_shape(self.sizes().begin(), self.sizes().end()),
      idx_shape(indices.sizes().begin(), indices.sizes().end());
  self_shape[size_t(d)] = 1;
  idx_shape[size_t(d)] = 1;
  std::vector<int64_t> b = broadcast_shapes(self_shape, idx_shape);
  std::vector<int64_t> bs = b, bi = b;
  bs[size_t(d)] = self.size(d);
  bi[size_t(d)] = indices.size(d);
  return self.expand(bs).gather(d, indices.expand(bi));
}

// Sums broadcast dims away so that the result has `size` (the reverse of expand).
Tensor sum_to_size(const Tensor& self, IntArrayRef size) {
  check_defined(self, "sum_to_size");
  bool expandable = int64_t(size.size()) <= self.dim();
  for (size_t i = 1; expandable && i <= size.size(); ++i)
    expandable = size[size.size() - i] == 1 || size[size.size() - i] == self.size(-int64_t(i));
  EMBER_CHECK(expandable, "sum_to_size: size {", size, "} is not expandable to size {", self.sizes(), "}.");
  const int64_t lead = self.dim() - int64_t(size.size());
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < lead; ++i) dims.push_back(i);
  for (int64_t i = lead; i < self.dim(); ++i)
    if (size[size_t(i - lead)] == 1 && self.size(i) != 1) dims.push_back(i);
  Tensor r = dims.empty() ? self : self.sum(IntArrayRef(dims), /*keepdim=*/true);
  if (lead > 0) r = r.view(size);
  return r;
}

Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return self.narrow(dim, start, length).clone(MemoryFormat::Contiguous);
}
Tensor ravel(const Tensor& self) { return self.contiguous().view({-1}); }

namespace {
std::vector<Tensor> split_along(const char* op, const Tensor& self, int64_t dim, int64_t min_dim, int64_t sections) {
  EMBER_CHECK(self.dim() >= min_dim, "torch.", op, " requires a tensor with at least ", min_dim,
              " dimension", min_dim > 1 ? "s" : "", ", but got a tensor with ", self.dim(), " dimensions!");
  EMBER_CHECK(sections != 0 && self.size(dim) % sections == 0, "torch.", op,
              " attempted to split along dimension ", dim, ", but the size of the dimension ", self.size(dim),
              " is not divisible by the split_size ", sections, "!");
  return self.tensor_split(sections, dim);
}
}  // namespace
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  check_defined(self, "hsplit");
  return split_along("hsplit", self, self.dim() == 1 ? 0 : 1, 1, sections);
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  check_defined(self, "vsplit");
  return split_along("vsplit", self, 0, 2, sections);
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  check_defined(self, "dsplit");
  return split_along("dsplit", self, 2, 3, sections);
}
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  check_defined(self, "hsplit");
  EMBER_CHECK(self.dim() >= 1, "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor with ",
              self.dim(), " dimensions!");
  return self.tensor_split(indices, self.dim() == 1 ? 0 : 1);
}
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  check_defined(self, "vsplit");
  EMBER_CHECK(self.dim() >= 2, "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor with ",
              self.dim(), " dimensions!");
  return self.tensor_split(indices, 0);
}
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  check_defined(self, "dsplit");
  EMBER_CHECK(self.dim() >= 3, "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor with ",
              self.dim(), " dimensions!");
  return self.tensor_split(indices, 2);
}
// ATen's unsafe_* splits share their views' version counter; ember's views are safe either way.
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim) { return self.chunk(chunks, dim); }
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim) {
  return self.split(split_size, dim);
}
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return self.split_with_sizes(split_sizes, dim);
}

Tensor atleast_1d(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }
Tensor atleast_2d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  return self.dim() == 1 ? self.unsqueeze(0) : self;
}
Tensor atleast_3d(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1, 1});
  if (self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
  return self.dim() == 2 ? self.unsqueeze(-1) : self;
}
std::vector<Tensor> atleast_1d(TensorList tensors) {
  std::vector<Tensor> r;
  for (const Tensor& t : tensors) r.push_back(atleast_1d(t));
  return r;
}
std::vector<Tensor> atleast_2d(TensorList tensors) {
  std::vector<Tensor> r;
  for (const Tensor& t : tensors) r.push_back(atleast_2d(t));
  return r;
}
std::vector<Tensor> atleast_3d(TensorList tensors) {
  std::vector<Tensor> r;
  for (const Tensor& t : tensors) r.push_back(atleast_3d(t));
  return r;
}

// The tensors (0-, 1- or 2-d) on the diagonal of one matrix, in their promoted dtype.
Tensor block_diag(TensorList tensors) {
  int64_t rows = 0, cols = 0;
  ScalarType t = kBool;
  bool first = true;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& m = tensors[i];
    check_defined(m, "block_diag", "tensors");
    EMBER_CHECK(m.dim() <= 2, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input ", i, " has ",
                m.dim(), " dimensions");
    const Tensor m2 = atleast_2d(m);
    rows += m2.size(0);
    cols += m2.size(1);
    t = first ? m.scalar_type() : promote_types(t, m.scalar_type());
    first = false;
  }
  Tensor out = zeros({rows, cols}, TensorOptions().dtype(first ? kFloat : t));
  int64_t r = 0, c = 0;
  for (const Tensor& m : tensors) {
    const Tensor m2 = atleast_2d(m);
    out.slice(0, r, r + m2.size(0)).slice(1, c, c + m2.size(1)).copy_(m2);
    r += m2.size(0);
    c += m2.size(1);
  }
  return out;
}

// Length-r combinations of a 1-d tensor's elements, in lexicographic index order.
Tensor combinations(const Tensor& self, int64_t r, bool with_replacement) {
  check_defined(self, "combinations");
  EMBER_CHECK(self.dim() == 1, "Expect a 1D vector, but got shape ", self.sizes());
  EMBER_CHECK(r >= 0, "Expect a non-negative number, but got ", r);
  if (r == 0) return empty({0}, self.options());
  const int64_t n = self.size(0);
  std::vector<int64_t> flat;
  std::vector<int64_t> idx(size_t(r), 0);
  if (!with_replacement)
    for (int64_t i = 0; i < r; ++i) idx[size_t(i)] = i;
  auto valid = [&] { return with_replacement ? (n > 0) : (r <= n); };
  if (valid()) {
    while (true) {
      flat.insert(flat.end(), idx.begin(), idx.end());
      int64_t i = r - 1;
      const int64_t limit = with_replacement ? n - 1 : n - r;
      while (i >= 0 && idx[size_t(i)] == (with_replacement ? limit : limit + i)) --i;
      if (i < 0) break;
      ++idx[size_t(i)];
      for (int64_t j = i + 1; j < r; ++j) idx[size_t(j)] = with_replacement ? idx[size_t(i)] : idx[size_t(j - 1)] + 1;
    }
  }
  const int64_t count = int64_t(flat.size()) / r;
  const Tensor index = from_blob(flat.data(), {count * r}, dtype(kLong)).clone();
  return self.index_select(0, index).view({count, r});
}

namespace {
// Row and column indices of the lower (upper) triangle of a row x col matrix, row-major.
Tensor triangle_indices(int64_t row, int64_t col, int64_t offset, bool lower, const TensorOptions& o) {
  EMBER_CHECK(row >= 0, lower ? "tril_indices" : "triu_indices", ": row must be non-negative, got", row);
  EMBER_CHECK(col >= 0, lower ? "tril_indices" : "triu_indices", ": col must be non-negative, got", col);
  std::vector<int64_t> rs, cs;
  for (int64_t i = 0; i < row; ++i)
    for (int64_t j = 0; j < col; ++j)
      if (lower ? j - i <= offset : j - i >= offset) {
        rs.push_back(i);
        cs.push_back(j);
      }
  const int64_t n = int64_t(rs.size());
  rs.insert(rs.end(), cs.begin(), cs.end());
  return from_blob(rs.data(), {2, n}, dtype(kLong)).clone().to(o.dtype_opt().value_or(kLong));
}
}  // namespace
Tensor tril_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, true, options);
}
Tensor triu_indices(int64_t row, int64_t col, int64_t offset, const TensorOptions& options) {
  return triangle_indices(row, col, offset, false, options);
}

Tensor argwhere(const Tensor& self) {
  check_defined(self, "argwhere");
  return self.nonzero();
}
Tensor msort(const Tensor& self) {
  check_defined(self, "msort");
  return std::get<0>(self.sort(0));
}

}  // namespace ember
