// Ordering ops: sort, argsort, topk, kthvalue, unique (_unique2, unique_dim,
// unique_consecutive), searchsorted and bucketize, with their Tensor methods. Row loops
// live in cpu/sort_kernels.cpp; unique is built on the stable sort.
#include <algorithm>
#include <numeric>

#include "ember/autograd/record.h"
#include "ember/ops/device_check.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/out_arg.h"
#include "ember/ops/type_promotion.h"

namespace ember {

OpDef<SortFn> sort_op(OpInfo{.name = "sort", .dtypes = kBoolType | kRealTypes});
OpDef<TopkFn> topk_op(OpInfo{.name = "topk", .dtypes = kBoolType | kRealTypes});
OpDef<KthvalueFn> kthvalue_op(OpInfo{.name = "kthvalue", .dtypes = kBoolType | kRealTypes});
OpDef<SearchsortedFn> searchsorted_op(OpInfo{.name = "searchsorted", .dtypes = kRealTypes});

namespace {

template <class Fn>
Fn kernel_for(const OpDef<Fn>& op, Device d) {
  Fn k = op.kernel(d.type());
  EMBER_CHECK(k != nullptr, op.name, ": no kernel for device ", d);
  return k;
}

void check_sortable(const char* op, const Tensor& t) {
  EMBER_CHECK_TYPE(!t.is_complex(), op, ": not implemented for dtype ", t.scalar_type(),
                   " (complex numbers have no total order)");
}

int64_t dim_size(const Tensor& t, int64_t dim) { return t.dim() == 0 ? 1 : t.size(dim); }

DimVector with_dim_size(const Tensor& t, int64_t dim, int64_t n) {
  DimVector s(t.sizes());
  if (!s.empty()) s[dim] = n;
  return s;
}

}  // namespace

// ---- sort / argsort / topk / kthvalue ---------------------------------------------------------
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  check_defined(self, "sort");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return autograd::differentiable_select("sort", self, dim, true, [&] { return sort(self, stable, dim, descending); });
  check_sortable("sort", self);
  dim = maybe_wrap_dim(dim, self.dim(), "sort");
  Tensor values = self.clone(MemoryFormat::Contiguous);
  Tensor indices = empty(self.sizes(), self.options().dtype(kLong));
  if (self.numel() == 0 || self.is_meta()) return {values, indices};
  kernel_for(sort_op, self.device())(values, indices, dim, descending, stable.value_or(false));
  return {values, indices};
}
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return sort(self, std::optional<bool>(false), dim, descending);
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) { return std::get<1>(sort(self, false, dim, descending)); }
Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(sort(self, std::optional<bool>(stable), dim, descending));
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  check_defined(self, "topk");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return autograd::differentiable_select("topk", self, dim, true, [&] { return topk(self, k, dim, largest, sorted); });
  check_sortable("topk", self);
  dim = maybe_wrap_dim(dim, self.dim(), "topk");
  int64_t n = dim_size(self, dim);
  EMBER_CHECK(k >= 0 && k <= n, "topk(): selected index k out of range (k = ", k, ", dimension ", dim, " of input ",
              self.sizes(), " has size ", n, ")");
  DimVector shape = with_dim_size(self, dim, k);
  Tensor values = empty(shape, self.options());
  Tensor indices = empty(shape, self.options().dtype(kLong));
  if (values.numel() == 0 || self.is_meta()) return {values, indices};
  kernel_for(topk_op, self.device())(self.contiguous(), values, indices, k, dim, largest, sorted);
  return {values, indices};
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(self)))
    return autograd::differentiable_select("kthvalue", self, dim, keepdim, [&] { return kthvalue(self, k, dim, keepdim); });
  check_sortable("kthvalue", self);
  dim = maybe_wrap_dim(dim, self.dim(), "kthvalue");
  int64_t n = dim_size(self, dim);
  EMBER_CHECK(k >= 1 && k <= n, "kthvalue(): selected number k out of range for dimension ", dim, " (k = ", k,
              ", size ", n, ")");
  DimVector shape = with_dim_size(self, dim, 1);
  Tensor values = empty(shape, self.options());
  Tensor indices = empty(shape, self.options().dtype(kLong));
  if (values.numel() > 0 && !self.is_meta())
    kernel_for(kthvalue_op, self.device())(self.contiguous(), values, indices, k, dim);
  if (!keepdim && self.dim() > 0) {
    values = values.squeeze(dim);
    indices = indices.squeeze(dim);
  }
  return {values, indices};
}

namespace {
void check_indices_out(const Tensor& indices, const char* op) {
  EMBER_CHECK_TYPE(indices.defined() && indices.scalar_type() == kLong, op,
                   ": expected the indices out tensor to have dtype Long");
}
}  // namespace
std::tuple<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim,
                                      bool descending) {
  check_indices_out(indices, "sort_out");
  auto [v, i] = sort(self, dim, descending);
  write_out(values, v, "sort_out");
  write_out(indices, i, "sort_out");
  return {values, indices};
}
std::tuple<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t k, int64_t dim,
                                      bool largest, bool sorted) {
  check_indices_out(indices, "topk_out");
  auto [v, i] = topk(self, k, dim, largest, sorted);
  write_out(values, v, "topk_out");
  write_out(indices, i, "topk_out");
  return {values, indices};
}

std::tuple<Tensor, Tensor> Tensor::sort(int64_t dim, bool descending) const { return ember::sort(*this, dim, descending); }
std::tuple<Tensor, Tensor> Tensor::sort(std::optional<bool> stable, int64_t dim, bool descending) const {
  return ember::sort(*this, stable, dim, descending);
}
Tensor Tensor::argsort(int64_t dim, bool descending) const { return ember::argsort(*this, dim, descending); }
Tensor Tensor::argsort(bool stable, int64_t dim, bool descending) const {
  return ember::argsort(*this, stable, dim, descending);
}
std::tuple<Tensor, Tensor> Tensor::topk(int64_t k, int64_t dim, bool largest, bool sorted) const {
  return ember::topk(*this, k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> Tensor::kthvalue(int64_t k, int64_t dim, bool keepdim) const {
  return ember::kthvalue(*this, k, dim, keepdim);
}

// ---- unique -------------------------------------------------------------------------------------
namespace {

// Group ids of consecutive equal elements of a contiguous 1-d tensor: returns the number
// of groups; group[i] is the id of element i and first[g] the first element of group g.
int64_t consecutive_groups(const Tensor& flat, std::vector<int64_t>& group, std::vector<int64_t>& first) {
  int64_t n = flat.numel();
  group.resize(n);
  first.clear();
  if (n == 0) return 0;
  visit_dtype<kAllTypes>(flat.scalar_type(), "unique", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* p = static_cast<const T*>(flat.data_ptr());
    int64_t g = -1;
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || !(C(p[i]) == C(p[i - 1]))) {
        ++g;
        first.push_back(i);
      }
      group[i] = g;
    }
  });
  return int64_t(first.size());
}

Tensor counts_from_first(const std::vector<int64_t>& first, int64_t n) {
  int64_t g = int64_t(first.size());
  Tensor counts = empty({g}, dtype(kLong));
  int64_t* c = counts.data_ptr<int64_t>();
  for (int64_t i = 0; i < g; ++i) c[i] = (i + 1 < g ? first[i + 1] : n) - first[i];
  return counts;
}

Tensor index_tensor(const std::vector<int64_t>& v) {
  Tensor t = empty({int64_t(v.size())}, dtype(kLong));
  std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

// Rows of a contiguous [n, rest] tensor compared lexicographically.
template <class F>
void with_row_compare(const Tensor& rows, const F& f) {
  int64_t rest = rows.size(1);
  visit_dtype<kAllTypes>(rows.scalar_type(), "unique_dim", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* p = static_cast<const T*>(rows.data_ptr());
    auto less = [p, rest](int64_t a, int64_t b) {
      if constexpr (is_complex_v<C>) {
        EMBER_ERROR("unique_dim: sorting is not implemented for complex dtypes");
        return false;
      } else {
        for (int64_t j = 0; j < rest; ++j) {
          C x = C(p[a * rest + j]), y = C(p[b * rest + j]);
          if (x < y) return true;
          if (y < x) return false;
        }
        return false;
      }
    };
    auto equal = [p, rest](int64_t a, int64_t b) {
      for (int64_t j = 0; j < rest; ++j)
        if (!(C(p[a * rest + j]) == C(p[b * rest + j]))) return false;
      return true;
    };
    f(less, equal);
  });
}

// unique over slices along dim; `consecutive` keeps the input order and merges runs.
std::tuple<Tensor, Tensor, Tensor> unique_dim_impl(const Tensor& self, int64_t dim, bool consecutive,
                                                   bool return_inverse, bool return_counts, const char* op) {
  check_cpu_only(self, op);
  dim = maybe_wrap_dim(dim, self.dim(), op);
  Tensor moved = self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(dim, 0).contiguous();
  int64_t n = moved.size(0);
  Tensor rows = moved.reshape({n, n == 0 ? 0 : moved.numel() / n});
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<int64_t> firsts;  // positions (in order) starting a group
  std::vector<int64_t> inverse(n);
  with_row_compare(rows, [&](const auto& less, const auto& equal) {
    if (!consecutive) std::stable_sort(order.begin(), order.end(), less);
    int64_t g = -1;
    for (int64_t i = 0; i < n; ++i) {
      if (i == 0 || !equal(order[i], order[i - 1])) {
        ++g;
        firsts.push_back(i);
      }
      inverse[order[i]] = g;
    }
  });
  std::vector<int64_t> pick;
  for (int64_t f : firsts) pick.push_back(order[f]);
  Tensor values = moved.index_select(0, index_tensor(pick));
  if (self.dim() > 0) values = values.movedim(0, dim).contiguous();
  else values = values.reshape({});
  Tensor inv = return_inverse ? index_tensor(inverse) : empty({0}, dtype(kLong));
  Tensor counts = return_counts ? counts_from_first(firsts, n) : empty({0}, dtype(kLong));
  return {values, inv, counts};
}

// unique and unique_consecutive of a 1-d tensor on a device, from device ops: a group starts
// where an element differs from the one before it (NaNs differ from everything, as on the
// CPU); `perm` (sort's indices, or undefined for consecutive) maps positions back for the
// inverse.
std::tuple<Tensor, Tensor, Tensor> unique_flat_on_device(const Tensor& vals, const Tensor& perm, IntArrayRef shape,
                                                         bool return_inverse, bool return_counts) {
  const int64_t n = vals.numel();
  const TensorOptions longs = vals.options().dtype(kLong);
  Tensor starts = empty({n}, vals.options().dtype(kBool));
  if (n > 0) {
    starts.slice(0, 0, 1).fill_(true);
    starts.slice(0, 1).copy_(vals.slice(0, 1).ne(vals.slice(0, 0, n - 1)));
  }
  Tensor first = starts.nonzero().flatten();
  Tensor values = vals.index_select(0, first);
  Tensor inverse = empty({0}, longs);
  if (return_inverse) {
    Tensor group = starts.to(kLong).cumsum(0).sub_(1);
    inverse = empty(shape, longs);
    if (perm.defined()) inverse.view({-1}).index_put_({perm}, group);
    else inverse.view({-1}).copy_(group);
  }
  Tensor counts = empty({0}, longs);
  if (return_counts) {
    // Group g ends where group g + 1 starts; the last at n.
    Tensor ends = cat({first.slice(0, 1), full({1}, Scalar(n), longs)});
    counts = ends.sub(first);
  }
  return {values, inverse, counts};
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, bool sorted, bool return_inverse, bool return_counts) {
  autograd::check_no_derivative_needed("unique", {&self});
  // The result is always sorted (sorted=false only means the order is unspecified).
  (void)sorted;
  check_sortable("unique", self);
  Tensor flat = self.reshape({-1});
  auto [vals, perm] = sort(flat, std::optional<bool>(true), 0, false);
  if (!self.is_cpu() && !self.is_meta()) return unique_flat_on_device(vals, perm, self.sizes(), return_inverse, return_counts);
  std::vector<int64_t> group, first;
  int64_t n = flat.numel();
  consecutive_groups(vals, group, first);
  Tensor values = vals.index_select(0, index_tensor(first));
  Tensor inverse = empty({0}, dtype(kLong));
  if (return_inverse) {
    inverse = empty(self.sizes(), dtype(kLong));
    int64_t* inv = inverse.data_ptr<int64_t>();
    const int64_t* pp = perm.data_ptr<int64_t>();
    for (int64_t i = 0; i < n; ++i) inv[pp[i]] = group[i];
  }
  Tensor counts = return_counts ? counts_from_first(first, n) : empty({0}, dtype(kLong));
  return {values, inverse, counts};
}

std::tuple<Tensor, Tensor> _unique(const Tensor& self, bool sorted, bool return_inverse) {
  auto [v, inv, c] = _unique2(self, sorted, return_inverse, false);
  return {v, inv};
}

std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, int64_t dim, bool sorted, bool return_inverse,
                                              bool return_counts) {
  (void)sorted;
  return unique_dim_impl(self, dim, false, return_inverse, return_counts, "unique_dim");
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  if (dim && self.dim() > 0)
    return unique_dim_impl(self, *dim, true, return_inverse, return_counts, "unique_consecutive");
  Tensor flat = self.reshape({-1}).contiguous();
  if (!self.is_cpu() && !self.is_meta())
    return unique_flat_on_device(flat, Tensor(), self.sizes(), return_inverse, return_counts);
  std::vector<int64_t> group, first;
  int64_t n = flat.numel();
  consecutive_groups(flat, group, first);
  Tensor values = flat.index_select(0, index_tensor(first));
  Tensor inverse = empty({0}, dtype(kLong));
  if (return_inverse) {
    inverse = empty(self.sizes(), dtype(kLong));
    std::copy(group.begin(), group.end(), inverse.data_ptr<int64_t>());
  }
  Tensor counts = return_counts ? counts_from_first(first, n) : empty({0}, dtype(kLong));
  return {values, inverse, counts};
}

// ---- searchsorted / bucketize --------------------------------------------------------------------
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right", "torch.searchsorted(): side can only be 'left' or 'right' but got ",
                *side);
    EMBER_CHECK(!(*side == "left" && right), "torch.searchsorted(): side and right can't be set to opposites, got side "
                "of left while right was True");
    right = *side == "right";
  }
  const Tensor& bd = sorted_sequence;
  EMBER_CHECK(bd.device() == self.device(), "torch.searchsorted(): expected the boundaries and the input on the same "
              "device, got ", bd.device(), " and ", self.device());
  EMBER_CHECK(bd.dim() > 0, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  bool ok = bd.dim() == 1 || (self.dim() == bd.dim() && self.sizes().slice(0, bd.dim() - 1) == bd.sizes().slice(0, bd.dim() - 1));
  EMBER_CHECK(ok, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
              "boundaries tensor and input value tensor must match, but we got boundaries tensor ", bd.sizes(),
              " and input value tensor ", self.sizes());
  Tensor so;
  if (sorter && sorter->defined()) {
    EMBER_CHECK(sorter->scalar_type() == kLong, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                sorter->scalar_type());
    EMBER_CHECK(sorter->sizes() == bd.sizes(), "torch.searchsorted(): boundary and sorter must have the same size, but got "
                "boundary tensor ", bd.sizes(), " and got sorter tensor ", sorter->sizes());
    EMBER_CHECK(sorter->device() == bd.device(), "torch.searchsorted(): expected the sorter on ", bd.device(),
                ", got ", sorter->device());
    so = sorter->contiguous();
    check_index_range(so, 0, bd.size(-1),
                      [](int64_t) { EMBER_ERROR("torch.searchsorted(): sorter index out of range"); });
  }
  EMBER_CHECK_TYPE(!bd.is_complex() && !self.is_complex(), "torch.searchsorted(): complex dtypes are not supported (got ",
                   bd.scalar_type(), " and ", self.scalar_type(), ")");
  ScalarType t = promoteTypes(bd.scalar_type(), self.scalar_type());
  EMBER_CHECK_TYPE(t != kBool, "torch.searchsorted(): bool tensors are not supported");
  Tensor b = bd.to(t).contiguous(), v = self.to(t).contiguous();
  Tensor out = empty(self.sizes(), self.options().dtype(out_int32 ? kInt : kLong));
  if (out.numel() == 0 || self.is_meta()) return out;
  if (b.size(-1) == 0) return out.zero_();
  kernel_for(searchsorted_op, self.device())(b, v, so.defined() ? &so : nullptr, out, right);
  return out;
}
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(sorted_sequence.dim() == 1, "torch.searchsorted(): input value can be a scalar only when boundaries "
              "tensor dimension is 1, but we got boundaries tensor dim(", sorted_sequence.dim(), ")");
  return searchsorted(sorted_sequence, scalar_to_tensor(self, sorted_sequence.device()), out_int32, right, side, sorter);
}

Tensor& searchsorted_out(Tensor& out, const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK_TYPE(out.scalar_type() == (out_int32 ? kInt : kLong), "torch.searchsorted(): output tensor's dtype is wrong, it "
                   "can only be Int(int32) or Long(int64) depending on whether out_int32 flag is True, but we got output "
                   "tensor's dtype ", out.scalar_type(), " and out_int32 flag is ", out_int32 ? "True" : "False");
  return write_out(out, searchsorted(sorted_sequence, self, out_int32, right, side, sorter), "searchsorted_out");
}

Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "bucketize: boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return searchsorted(boundaries, self, out_int32, right);
}

}  // namespace ember
