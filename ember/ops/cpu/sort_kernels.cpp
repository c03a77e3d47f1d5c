// CPU kernels of the ordering ops (compiled once per instruction set): sort, topk,
// kthvalue and searchsorted, over contiguous rows along a dim. NaN compares above every
// number, as in PyTorch: last when ascending, first when descending or largest.
#include <algorithm>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/convert.h"
#include "ember/ops/index_kernels.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);
constexpr DtypeSet kSortTypes = kBoolType | kRealTypes;

template <class C>
EMBER_HD bool is_nan(C v) {
  if constexpr (std::is_floating_point_v<C>) return v != v;
  else return false;
}
// a < b with NaN greatest.
template <class C>
EMBER_HD bool lt_nan_last(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) return (!is_nan(a) && is_nan(b)) || a < b;
  else return a < b;
}
// a > b with NaN greatest.
template <class C>
EMBER_HD bool gt_nan_first(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) return (is_nan(a) && !is_nan(b)) || a > b;
  else return a > b;
}

// Rows of a contiguous tensor along dim: row r starts at (r / inner) * n * inner + r % inner
// and steps by inner.
struct Rows {
  int64_t n, inner, count;
  Rows(IntArrayRef sizes, int64_t dim) {
    n = sizes.empty() ? 1 : sizes[dim];
    inner = 1;
    for (size_t d = dim + 1; d < sizes.size(); ++d) inner *= sizes[d];
    int64_t total = 1;
    for (int64_t s : sizes) total *= s;
    count = n == 0 ? 0 : total / n;
  }
  int64_t base(int64_t r, int64_t len) const { return (r / inner) * len * inner + r % inner; }
  int64_t grain() const { return std::max<int64_t>(1, 32768 / std::max<int64_t>(n, 1)); }
};

template <class C>
struct Item {
  C v;
  int64_t i;
};

void sort_kernel(Tensor& values, Tensor& indices, int64_t dim, bool descending, bool stable) {
  Rows rows(values.sizes(), dim);
  if (rows.count == 0) return;
  visit_dtype<kSortTypes>(values.scalar_type(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    T* v = static_cast<T*>(values.data_ptr());
    int64_t* ix = indices.data_ptr<int64_t>();
    parallel_for(0, rows.count, rows.grain(), [&](int64_t rb, int64_t re) {
      std::vector<Item<C>> buf(rows.n);
      for (int64_t r = rb; r < re; ++r) {
        int64_t b = rows.base(r, rows.n), s = rows.inner;
        for (int64_t j = 0; j < rows.n; ++j) buf[j] = {C(v[b + j * s]), j};
        auto asc = [](const Item<C>& a, const Item<C>& c) { return lt_nan_last(a.v, c.v); };
        auto desc = [](const Item<C>& a, const Item<C>& c) { return gt_nan_first(a.v, c.v); };
        if (stable) {
          if (descending) std::stable_sort(buf.begin(), buf.end(), desc);
          else std::stable_sort(buf.begin(), buf.end(), asc);
        } else {
          if (descending) std::sort(buf.begin(), buf.end(), desc);
          else std::sort(buf.begin(), buf.end(), asc);
        }
        for (int64_t j = 0; j < rows.n; ++j) {
          v[b + j * s] = convert<T>(buf[j].v);
          ix[b + j * s] = buf[j].i;
        }
      }
    });
  });
}

void topk_kernel(const Tensor& self, Tensor& values, Tensor& indices, int64_t k, int64_t dim, bool largest,
                 bool sorted) {
  Rows rows(self.sizes(), dim);
  if (rows.count == 0 || k == 0) return;
  visit_dtype<kSortTypes>(self.scalar_type(), "topk", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* src = static_cast<const T*>(self.data_ptr());
    T* v = static_cast<T*>(values.data_ptr());
    int64_t* ix = indices.data_ptr<int64_t>();
    auto run = [&](const auto& better) {
      parallel_for(0, rows.count, rows.grain(), [&](int64_t rb, int64_t re) {
        std::vector<Item<C>> buf(rows.n);
        for (int64_t r = rb; r < re; ++r) {
          int64_t b = rows.base(r, rows.n), s = rows.inner;
          for (int64_t j = 0; j < rows.n; ++j) buf[j] = {C(src[b + j * s]), j};
          // PyTorch's choice: a heap for small k, quickselect (then sort) otherwise.
          if (sorted && k * 64 <= rows.n) {
            std::partial_sort(buf.begin(), buf.begin() + k, buf.end(), better);
          } else {
            if (k < rows.n) std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), better);
            if (sorted) std::sort(buf.begin(), buf.begin() + k, better);
          }
          int64_t ob = rows.base(r, k);
          for (int64_t j = 0; j < k; ++j) {
            v[ob + j * s] = convert<T>(buf[j].v);
            ix[ob + j * s] = buf[j].i;
          }
        }
      });
    };
    if (largest) run([](const Item<C>& a, const Item<C>& c) { return gt_nan_first(a.v, c.v); });
    else run([](const Item<C>& a, const Item<C>& c) { return lt_nan_last(a.v, c.v); });
  });
}

void kthvalue_kernel(const Tensor& self, Tensor& values, Tensor& indices, int64_t k, int64_t dim) {
  Rows rows(self.sizes(), dim);
  if (rows.count == 0) return;
  visit_dtype<kSortTypes>(self.scalar_type(), "kthvalue", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* src = static_cast<const T*>(self.data_ptr());
    T* v = static_cast<T*>(values.data_ptr());
    int64_t* ix = indices.data_ptr<int64_t>();
    parallel_for(0, rows.count, rows.grain(), [&](int64_t rb, int64_t re) {
      std::vector<Item<C>> buf(rows.n);
      auto asc = [](const Item<C>& a, const Item<C>& c) { return lt_nan_last(a.v, c.v); };
      for (int64_t r = rb; r < re; ++r) {
        int64_t b = rows.base(r, rows.n), s = rows.inner;
        for (int64_t j = 0; j < rows.n; ++j) buf[j] = {C(src[b + j * s]), j};
        std::nth_element(buf.begin(), buf.begin() + (k - 1), buf.end(), asc);
        int64_t ob = rows.base(r, 1);
        v[ob] = convert<T>(buf[k - 1].v);
        ix[ob] = buf[k - 1].i;
      }
    });
  });
}

// PyTorch's cus_lower_bound / cus_upper_bound: `!(mid >= val)` keeps NaN values at the end.
template <class C, class T>
int64_t bound(const T* bd, const int64_t* sorter, int64_t m, C val, bool right) {
  int64_t start = 0, end = m;
  while (start < end) {
    int64_t mid = start + ((end - start) >> 1);
    C mv = C(sorter ? bd[sorter[mid]] : bd[mid]);
    bool go_right = right ? !(mv > val) : !(mv >= val);
    if (go_right) start = mid + 1;
    else end = mid;
  }
  return start;
}

void searchsorted_kernel(const Tensor& boundaries, const Tensor& values, const Tensor* sorter, Tensor& out,
                         bool right) {
  int64_t nv = values.numel();
  if (nv == 0) return;
  int64_t m = boundaries.dim() == 0 ? 1 : boundaries.size(-1);
  int64_t per_row = boundaries.dim() <= 1 ? nv : (values.dim() == 0 ? 1 : values.size(-1));
  bool shared = boundaries.dim() <= 1;
  bool i32 = out.scalar_type() == kInt;
  visit_dtype<kRealTypes>(values.scalar_type(), "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = compute_t<T>;
    const T* bd = static_cast<const T*>(boundaries.data_ptr());
    const T* val = static_cast<const T*>(values.data_ptr());
    const int64_t* so = sorter ? sorter->data_ptr<int64_t>() : nullptr;
    void* o = out.data_ptr();
    parallel_for(0, nv, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t row = shared ? 0 : i / per_row;
        int64_t pos = bound<C>(bd + row * m, so ? so + row * m : nullptr, m, C(val[i]), right);
        if (i32) static_cast<int32_t*>(o)[i] = int32_t(pos);
        else static_cast<int64_t*>(o)[i] = pos;
      }
    });
  });
}

const KernelRegistrar<SortFn> sort_reg("sort", kCPU, kCap, &sort_kernel);
const KernelRegistrar<TopkFn> topk_reg("topk", kCPU, kCap, &topk_kernel);
const KernelRegistrar<KthvalueFn> kthvalue_reg("kthvalue", kCPU, kCap, &kthvalue_kernel);
const KernelRegistrar<SearchsortedFn> searchsorted_reg("searchsorted", kCPU, kCap, &searchsorted_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
