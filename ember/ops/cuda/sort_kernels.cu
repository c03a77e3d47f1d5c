// CUDA kernels of sort, topk, kthvalue and searchsorted (ember/ops/index_kernels.h).
//
// Note [CUDA sort by radix keys]
// Every sortable dtype maps to an unsigned key of its size whose unsigned order is the
// dtype's order: integers flip the sign bit; floating types flip every bit of negatives and
// the sign bit of the rest, after turning every NaN into the positive quiet NaN, so that
// NaNs sort above +inf (last ascending, first descending, as on the CPU). Descending sorts
// the complement of the keys. So cub's radix sort runs on four key types (1, 2, 4, 8 bytes)
// instead of once per dtype and direction, which keeps the build small; it is stable, which
// serves stable=true and stable=false alike. The values are then gathered from the input
// by the sorted indices. One difference from the CPU's comparison sort: -0.0 orders before
// +0.0 (PyTorch's CUDA sort, also a radix sort, does the same).
// One row (a 1-d sort) takes cub::DeviceRadixSort over the whole device; several take
// cub::DeviceSegmentedSort, which gives small rows to warps and large ones to blocks.
// topk and kthvalue sort and take their slice: correct for every k, though a selection
// would be faster for small k on long rows.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

// Bool and the real types: what orders (a named constant: nvcc's host pass rejects the
// expression as a template argument in some contexts).
constexpr DtypeSet kOrderedTypes = kBoolType | kRealTypes;

template <size_t N>
struct UnsignedOf;
template <> struct UnsignedOf<1> { using type = uint8_t; static constexpr ScalarType storage = kByte; };
template <> struct UnsignedOf<2> { using type = uint16_t; static constexpr ScalarType storage = kShort; };
template <> struct UnsignedOf<4> { using type = uint32_t; static constexpr ScalarType storage = kInt; };
template <> struct UnsignedOf<8> { using type = uint64_t; static constexpr ScalarType storage = kLong; };

// The positive quiet NaN of each floating type, as bits.
template <class T>
constexpr uint64_t kQuietNan = std::is_same_v<T, Half> ? 0x7e00u
                               : std::is_same_v<T, BFloat16> ? 0x7fc0u
                               : std::is_same_v<T, float> ? 0x7fc00000u
                                                          : 0x7ff8000000000000ull;

template <class T>
__device__ __forceinline__ typename UnsignedOf<sizeof(T)>::type radix_key(T v) {
  using U = typename UnsignedOf<sizeof(T)>::type;
  constexpr U sign = U(U(1) << (8 * sizeof(T) - 1));
  U bits;
  std::memcpy(&bits, &v, sizeof(T));
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) {
    return bits;
  } else if constexpr (std::is_integral_v<T>) {
    return U(bits ^ sign);
  } else {
    using C = compute_t<T>;
    if (C(v) != C(v)) bits = U(kQuietNan<T>);
    return (bits & sign) ? U(~bits) : U(bits | sign);
  }
}

// keys[i] = key of values[i] (complemented for descending); pos[i] = i's place in its row.
template <class T>
__global__ void __launch_bounds__(kThreads)
make_keys(const T* values, typename UnsignedOf<sizeof(T)>::type* keys, int64_t* pos, int64_t n, int64_t row,
          bool descending) {
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const auto k = radix_key(values[i]);
    keys[i] = descending ? decltype(k)(~k) : k;
    pos[i] = i % row;
  }
}

// out[i] = values[row start of i + pos[i]]: the sorted values, element size T.
template <class T>
__global__ void __launch_bounds__(kThreads)
gather_rows(const T* values, const int64_t* pos, T* out, int64_t n, int64_t row) {
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    out[i] = values[i - i % row + pos[i]];
}

__global__ void __launch_bounds__(kThreads) row_offsets(int64_t* offsets, int64_t rows, int64_t row) {
  for (int64_t r = int64_t(blockIdx.x) * kThreads + threadIdx.x; r <= rows; r += int64_t(gridDim.x) * kThreads)
    offsets[r] = r * row;
}

// Sorts the rows of a contiguous [rows, row] tensor: fills sorted (same dtype) and positions.
void sort_rows(const Tensor& v, int64_t rows, int64_t row, bool descending, Tensor& sorted, Tensor& positions) {
  const int64_t n = v.numel();
  const Device dev = v.device();
  CUDAGuard guard(dev.index());
  cudaStream_t stream = getCurrentCUDAStream(dev.index()).stream();
  const TensorOptions on_dev = TensorOptions().device(dev);
  Tensor pos_in = empty({n}, on_dev.dtype(kLong));
  positions = empty({n}, on_dev.dtype(kLong));
  sorted = empty(v.sizes(), v.options());
  visit_dtype<kOrderedTypes>(v.scalar_type(), "sort", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using U = typename UnsignedOf<sizeof(T)>::type;
    Tensor keys_in = empty({n}, on_dev.dtype(UnsignedOf<sizeof(T)>::storage));
    Tensor keys_out = empty({n}, on_dev.dtype(UnsignedOf<sizeof(T)>::storage));
    U* kin = static_cast<U*>(keys_in.data_ptr());
    U* kout = static_cast<U*>(keys_out.data_ptr());
    int64_t* pin = pos_in.data_ptr<int64_t>();
    int64_t* pout = positions.data_ptr<int64_t>();
    make_keys<T><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const T*>(v.data_ptr()), kin, pin, n, row,
                                                        descending);
    EMBER_CUDA_CHECK(cudaGetLastError());
    size_t temp_bytes = 0;
    if (rows == 1) {
      EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, kin, kout, pin, pout, n, 0,
                                                       int(8 * sizeof(U)), stream));
      Tensor temp = empty({std::max<int64_t>(1, int64_t(temp_bytes))}, on_dev.dtype(kByte));
      EMBER_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data_ptr(), temp_bytes, kin, kout, pin, pout, n, 0,
                                                       int(8 * sizeof(U)), stream));
    } else {
      Tensor offsets = empty({rows + 1}, on_dev.dtype(kLong));
      int64_t* off = offsets.data_ptr<int64_t>();
      row_offsets<<<grid_for(rows + 1), kThreads, 0, stream>>>(off, rows, row);
      EMBER_CUDA_CHECK(cudaGetLastError());
      EMBER_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(nullptr, temp_bytes, kin, kout, pin, pout, n, rows,
                                                                 off, off + 1, stream));
      Tensor temp = empty({std::max<int64_t>(1, int64_t(temp_bytes))}, on_dev.dtype(kByte));
      EMBER_CUDA_CHECK(cub::DeviceSegmentedSort::StableSortPairs(temp.data_ptr(), temp_bytes, kin, kout, pin, pout,
                                                                 n, rows, off, off + 1, stream));
    }
    using S = typename UnsignedOf<sizeof(T)>::type;  // the values move as bytes
    gather_rows<S><<<grid_for(n), kThreads, 0, stream>>>(static_cast<const S*>(v.data_ptr()), pout,
                                                          static_cast<S*>(sorted.data_ptr()), n, row);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

// Sorts self along dim into values (self's shape) and indices.
void sort_along(const Tensor& self, int64_t dim, bool descending, Tensor& values, Tensor& indices) {
  const int64_t nd = self.dim();
  const int64_t last = nd == 0 ? 0 : nd - 1;
  Tensor v = nd == 0 ? self.reshape({1}) : self.transpose(dim, last).contiguous();
  const int64_t row = v.dim() == 0 ? 1 : v.size(-1), rows = row == 0 ? 0 : v.numel() / row;
  Tensor sorted, positions;
  sort_rows(v, rows, row, descending, sorted, positions);
  if (nd == 0) {
    values.copy_(sorted.reshape({}));
    indices.copy_(positions.reshape({}));
    return;
  }
  values.transpose(dim, last).copy_(sorted.view(v.sizes()));
  indices.transpose(dim, last).copy_(positions.view(v.sizes()));
}

void sort_kernel(Tensor& values, Tensor& indices, int64_t dim, bool descending, bool /*stable: always*/) {
  sort_along(values, dim, descending, values, indices);  // reads values before writing them
}

void topk_kernel(const Tensor& self, Tensor& values, Tensor& indices, int64_t k, int64_t dim, bool largest,
                 bool /*sorted: always*/) {
  Tensor sv = empty(self.sizes(), self.options()), si = empty(self.sizes(), self.options().dtype(kLong));
  sort_along(self, dim, largest, sv, si);
  const int64_t d = self.dim() == 0 ? 0 : dim;
  values.copy_(self.dim() == 0 ? sv : sv.narrow(d, 0, k));
  indices.copy_(self.dim() == 0 ? si : si.narrow(d, 0, k));
}

void kthvalue_kernel(const Tensor& self, Tensor& values, Tensor& indices, int64_t k, int64_t dim) {
  Tensor sv = empty(self.sizes(), self.options()), si = empty(self.sizes(), self.options().dtype(kLong));
  sort_along(self, dim, false, sv, si);
  values.copy_(self.dim() == 0 ? sv : sv.narrow(dim, k - 1, 1));
  indices.copy_(self.dim() == 0 ? si : si.narrow(dim, k - 1, 1));
}

// ---- searchsorted (PyTorch's cus_lower_bound / cus_upper_bound: NaN values land last) ----
template <class T>
__global__ void __launch_bounds__(kThreads)
searchsorted_impl(const T* bd, const int64_t* sorter, const T* val, void* out, bool i32, int64_t nv, int64_t m,
                  int64_t per_row, bool shared, bool right) {
  using C = compute_t<T>;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < nv; i += int64_t(gridDim.x) * kThreads) {
    const int64_t row = shared ? 0 : i / per_row;
    const T* b = bd + row * m;
    const int64_t* so = sorter ? sorter + row * m : nullptr;
    const C v = C(val[i]);
    int64_t start = 0, end = m;
    while (start < end) {
      const int64_t mid = start + ((end - start) >> 1);
      const C mv = C(so ? b[so[mid]] : b[mid]);
      const bool go_right = right ? !(mv > v) : !(mv >= v);
      if (go_right) start = mid + 1;
      else end = mid;
    }
    if (i32) static_cast<int32_t*>(out)[i] = int32_t(start);
    else static_cast<int64_t*>(out)[i] = start;
  }
}

void searchsorted_kernel(const Tensor& boundaries, const Tensor& values, const Tensor* sorter, Tensor& out,
                         bool right) {
  const int64_t nv = values.numel();
  if (nv == 0) return;
  const int64_t m = boundaries.dim() == 0 ? 1 : boundaries.size(-1);
  const int64_t per_row = boundaries.dim() <= 1 ? nv : (values.dim() == 0 ? 1 : values.size(-1));
  CUDAGuard guard(values.device().index());
  cudaStream_t stream = getCurrentCUDAStream(values.device().index()).stream();
  visit_dtype<kRealTypes>(values.scalar_type(), "searchsorted", [&](auto tag) {
    using T = typename decltype(tag)::type;
    searchsorted_impl<T><<<grid_for(nv), kThreads, 0, stream>>>(
        static_cast<const T*>(boundaries.data_ptr()), sorter ? sorter->data_ptr<int64_t>() : nullptr,
        static_cast<const T*>(values.data_ptr()), out.data_ptr(), out.scalar_type() == kInt, nv, m, per_row,
        boundaries.dim() <= 1, right);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

const KernelRegistrar<SortFn> sort_reg("sort", kCUDA, CpuCapability::Default, &sort_kernel);
const KernelRegistrar<TopkFn> topk_reg("topk", kCUDA, CpuCapability::Default, &topk_kernel);
const KernelRegistrar<KthvalueFn> kthvalue_reg("kthvalue", kCUDA, CpuCapability::Default, &kthvalue_kernel);
const KernelRegistrar<SearchsortedFn> searchsorted_reg("searchsorted", kCUDA, CpuCapability::Default,
                                                       &searchsorted_kernel);

}  // namespace
}  // namespace ember::cuda
