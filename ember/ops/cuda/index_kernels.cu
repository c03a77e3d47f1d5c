// CUDA kernels of the indexing ops (ember/ops/index_kernels.h): gather and scatter by byte
// offsets (advanced indexing, index_select, take, put_, index_add_/copy_/fill_), scatter
// and gather along a dim, masked_fill_, where, nonzero, flip and tril/triu. Pure data
// movement dispatches on element size, not dtype; accumulating writes use atomics
// (atomics.cuh). Indices are validated by the ops before these run (ops/indexing.cpp,
// index_ops.cpp: a min/max reduction on the device, one synchronization); the kernels
// still skip an index outside the tensor rather than write outside it.
#include <thrust/iterator/counting_iterator.h>

#include <cub/device/device_select.cuh>

#include "ember/ops/cuda/atomics.cuh"
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/functions.h"
#include "ember/ops/index_kernels.h"
#include "ember/ops/math.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

// `value` in dtype t, as the bits of T (the unsigned type of t's size).
template <class T>
T value_bits(ScalarType t, const Scalar& value, const char* op) {
  T bits{};
  visit_dtype<kAllTypes>(t, op, [&](auto tag) {
    using V = typename decltype(tag)::type;
    if constexpr (sizeof(V) == sizeof(T)) {
      const V v = convert<V>(value.to<compute_t<V>>());
      std::memcpy(&bits, &v, sizeof(V));
    }
  });
  return bits;
}

template <class T>
__device__ __forceinline__ T ld(const char* p) {
  return *reinterpret_cast<const T*>(p);
}
template <class T>
__device__ __forceinline__ void st(char* p, T v) {
  *reinterpret_cast<T*>(p) = v;
}

// ---- advanced indexing (Note [Indexing by byte offsets]) ----------------------------------
template <class T>
struct IndexGather {  // (out, src, offsets)
  __device__ void operator()(char* const* p) const { st<T>(p[0], ld<T>(p[1] + ld<int64_t>(p[2]))); }
};
template <class T>
struct IndexScatter {  // (dst, values, offsets)
  __device__ void operator()(char* const* p) const { st<T>(p[0] + ld<int64_t>(p[2]), ld<T>(p[1])); }
};
template <class T>
struct IndexAccumulate {  // dst += alpha * value; indices may repeat
  compute_t<T> alpha;
  bool unit;
  __device__ void operator()(char* const* p) const {
    T* dst = reinterpret_cast<T*>(p[0] + ld<int64_t>(p[2]));
    const T v = ld<T>(p[1]);
    if constexpr (std::is_same_v<T, bool>) {
      atomic_add(dst, bool(v && alpha));
    } else {
      using C = compute_t<T>;
      atomic_add(dst, unit ? v : convert<T>(C(alpha * C(v))));
    }
  }
};

void index_kernel(TensorIterator& it) {
  visit_element_size(element_size(it.dtype(0)), "index", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_for_each_offset<3>(it, IndexGather<T>{});
  });
}

void index_put_kernel(TensorIterator& it, bool accumulate, const Scalar& alpha) {
  if (!accumulate) {
    visit_element_size(element_size(it.dtype(0)), "index_put_", [&](auto tag) {
      using T = typename decltype(tag)::type;
      gpu_for_each_offset<3>(it, IndexScatter<T>{});
    });
    return;
  }
  visit_dtype<kAllTypes>(it.dtype(0), "index_put_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, ComplexHalf>) {
      EMBER_CHECK_TYPE(false, "index_put_ with accumulate=True: not implemented on CUDA for ComplexHalf");
    } else {
      gpu_for_each_offset<3>(it, IndexAccumulate<T>{math::arg_value<compute_t<T>>(alpha),
                                                     alpha.equal(Scalar(int64_t(1)))});
    }
  });
}

// ---- scatter / gather along a dim (Note [Scatter-gather iteration]) ------------------------
// Each iterator element owns a line along dim of index_dim_size entries; a thread handles
// one (element, entry) pair, entries fastest when the index is dense along dim.
template <int N, class F>
__global__ void __launch_bounds__(kThreads)
lines_kernel(int64_t m, int64_t len, bool entry_fastest, KernelPtrs<N> ptrs, OffsetCalculator<N> calc, F f) {
  const int64_t total = m * len;
  for (int64_t t = int64_t(blockIdx.x) * kThreads + threadIdx.x; t < total; t += int64_t(gridDim.x) * kThreads) {
    int64_t e, j;
    if (entry_fastest) e = t / len, j = t - e * len;
    else j = t / m, e = t - j * m;
    const auto o = calc.get(uint32_t(e));
    char* p[N];
#pragma unroll
    for (int k = 0; k < N; ++k) p[k] = ptrs.p[k] + o.v[k];
    f(p, j);
  }
}

template <int N, class F>
void for_each_line(TensorIterator& it, const ScatterGatherArgs& a, const F& f) {
  if (a.index_dim_size == 0) return;
  for_each_piece<N>(it, [&](cudaStream_t stream, const KernelPtrs<N>& ptrs, const OffsetCalculator<N>& calc,
                            const HostScalars& hs, int64_t m) {
    EMBER_INTERNAL_ASSERT(hs.mask == 0, it.op_name(), ": a CPU scalar operand in scatter/gather");
    lines_kernel<<<grid_for(m * a.index_dim_size), kThreads, 0, stream>>>(m, a.index_dim_size,
                                                                          a.index_dim_stride == 8, ptrs, calc, f);
  });
}

// The strides and bound every line kernel needs.
struct Line {
  int64_t self_stride, index_stride, other_stride, self_size;
  // Entry j's index, or -1 when it is outside [0, self_size).
  __device__ int64_t index_at(const char* idx, int64_t j) const {
    const int64_t k = ld<int64_t>(idx + j * index_stride);
    return k >= 0 && k < self_size ? k : -1;
  }
};

template <class T>
struct GatherLine {  // (out, self, index)
  Line l;
  __device__ void operator()(char* const* p, int64_t j) const {
    const int64_t k = l.index_at(p[2], j);
    if (k >= 0) st<T>(p[0] + j * l.other_stride, ld<T>(p[1] + k * l.self_stride));
  }
};
template <class T>
struct ScatterLine {  // (self, index, src)
  Line l;
  __device__ void operator()(char* const* p, int64_t j) const {
    const int64_t k = l.index_at(p[1], j);
    if (k >= 0) st<T>(p[0] + k * l.self_stride, ld<T>(p[2] + j * l.other_stride));
  }
};
template <class T>
struct ScatterFillLine {  // (self, index)
  Line l;
  T value;
  __device__ void operator()(char* const* p, int64_t j) const {
    const int64_t k = l.index_at(p[1], j);
    if (k >= 0) st<T>(p[0] + k * l.self_stride, value);
  }
};

template <class T>
__device__ bool is_nan_value(T v) {
  if constexpr (std::is_floating_point_v<compute_t<T>>) return compute_t<T>(v) != compute_t<T>(v);
  else return false;
}

template <class T>
struct ScatterReduceLine {  // (self, index, src): self[index] op= src
  Line l;
  ScatterMode mode;
  __device__ void operator()(char* const* p, int64_t j) const {
    const int64_t k = l.index_at(p[1], j);
    if (k < 0) return;
    T* dst = reinterpret_cast<T*>(p[0] + k * l.self_stride);
    const T v = ld<T>(p[2] + j * l.other_stride);
    using C = compute_t<T>;
    switch (mode) {
      case ScatterMode::Sum:
        atomic_add(dst, v);
        return;
      case ScatterMode::Prod:
        if constexpr (sizeof(T) <= 8) {
          atomic_update(dst, [v](T x) {
            if constexpr (std::is_same_v<C, bool>) return T(x && v);
            else return convert<T>(C(C(x) * C(v)));
          });
        }
        return;
      default:
        if constexpr (!is_complex_v<T>) {
          const bool mx = mode == ScatterMode::Amax;
          atomic_update(dst, [v, mx](T x) {
            // NaN propagates, as PyTorch's amax/amin.
            if (is_nan_value(x)) return x;
            if (is_nan_value(v)) return v;
            return mx ? (C(v) > C(x) ? v : x) : (C(v) < C(x) ? v : x);
          });
        }
        return;
    }
  }
};

void scatter_gather_kernel(TensorIterator& it, const ScatterGatherArgs& a) {
  const Line l{a.self_dim_stride, a.index_dim_stride, a.other_dim_stride, a.self_dim_size};
  switch (a.mode) {
    case ScatterMode::Gather:
      visit_element_size(element_size(it.dtype(0)), "gather", [&](auto tag) {
        using T = typename decltype(tag)::type;
        for_each_line<3>(it, a, GatherLine<T>{l});
      });
      return;
    case ScatterMode::Scatter:
      visit_element_size(element_size(it.dtype(0)), "scatter", [&](auto tag) {
        using T = typename decltype(tag)::type;
        for_each_line<3>(it, a, ScatterLine<T>{l});
      });
      return;
    case ScatterMode::ScatterFill:
      visit_element_size(element_size(it.dtype(0)), "scatter", [&](auto tag) {
        using T = typename decltype(tag)::type;
        // The value in the tensor's dtype, as bytes of the element size.
        for_each_line<2>(it, a, ScatterFillLine<T>{l, value_bits<T>(it.dtype(0), a.value, "scatter")});
      });
      return;
    default: {
      const ScalarType t = it.dtype(0);
      const bool minmax = a.mode == ScatterMode::Amax || a.mode == ScatterMode::Amin;
      EMBER_CHECK_TYPE(!(isComplexType(t) && (minmax || a.mode == ScatterMode::Prod)) &&
                           !(t == kComplexHalf && a.mode == ScatterMode::Sum),
                       "scatter_reduce: reduction ", minmax ? "amax/amin" : a.mode == ScatterMode::Prod ? "prod" : "sum",
                       " is not implemented on CUDA for ", t);
      visit_dtype<kAllTypes>(t, "scatter_reduce", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!std::is_same_v<T, ComplexHalf>) for_each_line<3>(it, a, ScatterReduceLine<T>{l, a.mode});
      });
    }
  }
}

// ---- masks ----------------------------------------------------------------------------------
template <class T>
struct MaskedFill {  // (self, mask)
  T value;
  __device__ void operator()(char* const* p) const {
    if (ld<uint8_t>(p[1])) st<T>(p[0], value);
  }
};

void masked_fill_kernel(TensorIterator& it, const Scalar& value) {
  visit_element_size(element_size(it.dtype(0)), "masked_fill_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_for_each_offset<2>(it, MaskedFill<T>{value_bits<T>(it.dtype(0), value, "masked_fill_")});
  });
}

struct Select {
  template <class T>
  EMBER_HD T operator()(uint8_t c, T x, T y) const { return c ? x : y; }
};

// (out, cond, a, b): a bool or uint8 condition reads as a byte.
void where_kernel(TensorIterator& it) {
  visit_element_size(element_size(it.dtype(0)), "where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, uint8_t, T, T>(it, Select{});
  });
}

struct Identity {
  template <class T>
  EMBER_HD T operator()(T x) const { return x; }
};

// (out, src): a copy where src may run backwards.
void flip_kernel(TensorIterator& it) {
  visit_element_size(element_size(it.dtype(0)), "flip", [&](auto tag) {
    using T = typename decltype(tag)::type;
    gpu_kernel<T, T>(it, Identity{});
  });
}

// ---- nonzero -------------------------------------------------------------------------------
// Row r of out: the coordinates of linear index linear[r].
__global__ void __launch_bounds__(kThreads)
coords_kernel(const int64_t* linear, int64_t count, int ndim, const int64_t* sizes, int64_t* out) {
  for (int64_t r = int64_t(blockIdx.x) * kThreads + threadIdx.x; r < count; r += int64_t(gridDim.x) * kThreads) {
    int64_t rem = linear[r];
    for (int d = ndim - 1; d >= 0; --d) {
      const int64_t s = sizes[d];
      out[r * ndim + d] = rem % s;
      rem /= s;
    }
  }
}

// Every flagged position in order (cub::DeviceSelect over the linear indices), then the
// coordinates. One synchronization: the count sizes the result.
Tensor nonzero_kernel(const Tensor& self) {
  const int64_t n = self.numel(), nd = self.dim();
  const Device dev = self.device();
  CUDAGuard guard(dev.index());
  cudaStream_t stream = getCurrentCUDAStream(dev.index()).stream();
  const TensorOptions on_dev = TensorOptions().device(dev);
  if (n == 0) return empty({0, nd}, on_dev.dtype(kLong));
  EMBER_CHECK(n < (int64_t(1) << 31) * 2, "nonzero: CUDA tensors of 2^32 or more elements are not supported (",
              n, " elements)");
  Tensor flags = self.ne(0);  // complex: either part non-zero
  const int64_t count = flags.sum(kLong).item<int64_t>();
  Tensor out = empty({count, nd}, on_dev.dtype(kLong));
  if (count == 0) return out;
  Tensor linear = empty({count}, on_dev.dtype(kLong));
  Tensor selected = empty({1}, on_dev.dtype(kLong));
  using Counting = thrust::counting_iterator<int64_t>;
  size_t temp_bytes = 0;
  EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, temp_bytes, Counting(0), flags.data_ptr<bool>(),
                                              linear.data_ptr<int64_t>(), selected.data_ptr<int64_t>(), n, stream));
  Tensor temp = empty({std::max<int64_t>(1, int64_t(temp_bytes))}, on_dev.dtype(kByte));
  EMBER_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.data_ptr(), temp_bytes, Counting(0), flags.data_ptr<bool>(),
                                              linear.data_ptr<int64_t>(), selected.data_ptr<int64_t>(), n, stream));
  if (nd == 0) return out;  // [1, 0]: nothing to write
  Tensor sizes = empty({nd}, TensorOptions().dtype(kLong));
  std::copy(self.sizes().begin(), self.sizes().end(), sizes.data_ptr<int64_t>());
  sizes = sizes.to(dev);
  coords_kernel<<<grid_for(count), kThreads, 0, stream>>>(linear.data_ptr<int64_t>(), count, int(nd),
                                                          sizes.data_ptr<int64_t>(), out.data_ptr<int64_t>());
  EMBER_CUDA_CHECK(cudaGetLastError());
  return out;
}

// ---- tril / triu ---------------------------------------------------------------------------
template <class T>
__global__ void __launch_bounds__(kThreads)
trilu_kernel_impl(const char* src, char* dst, int64_t total, int64_t R, int64_t C, int64_t k, bool lower) {
  for (int64_t t = int64_t(blockIdx.x) * kThreads + threadIdx.x; t < total; t += int64_t(gridDim.x) * kThreads) {
    const int64_t j = t % C, i = (t / C) % R;
    const bool keep = lower ? j - i <= k : j - i >= k;
    reinterpret_cast<T*>(dst)[t] = keep ? reinterpret_cast<const T*>(src)[t] : T{};
  }
}

// Batches of matrices: self read through a contiguous copy when it is not one already.
void trilu_kernel(const Tensor& self, Tensor& out, int64_t k, bool lower) {
  const int64_t nd = self.dim(), R = self.size(nd - 2), C = self.size(nd - 1);
  const int64_t total = self.numel();
  if (total == 0) return;
  Tensor src = self.contiguous();
  EMBER_INTERNAL_ASSERT(out.is_contiguous(), lower ? "tril" : "triu", ": expected a contiguous output");
  CUDAGuard guard(self.device().index());
  cudaStream_t stream = getCurrentCUDAStream(self.device().index()).stream();
  visit_element_size(self.element_size(), lower ? "tril" : "triu", [&](auto tag) {
    using T = typename decltype(tag)::type;
    trilu_kernel_impl<T><<<grid_for(total), kThreads, 0, stream>>>(static_cast<const char*>(src.data_ptr()),
                                                                    static_cast<char*>(out.data_ptr()), total, R, C, k,
                                                                    lower);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

const KernelRegistrar<IndexFn> index_reg("index", kCUDA, CpuCapability::Default, &index_kernel);
const KernelRegistrar<IndexPutFn> index_put_reg("index_put_", kCUDA, CpuCapability::Default, &index_put_kernel);
const KernelRegistrar<ScatterGatherFn> scatter_gather_reg("scatter_gather", kCUDA, CpuCapability::Default,
                                                          &scatter_gather_kernel);
const KernelRegistrar<MaskedFillFn> masked_fill_reg("masked_fill_", kCUDA, CpuCapability::Default, &masked_fill_kernel);
const KernelRegistrar<WhereFn> where_reg("where", kCUDA, CpuCapability::Default, &where_kernel);
const KernelRegistrar<NonzeroFn> nonzero_reg("nonzero", kCUDA, CpuCapability::Default, &nonzero_kernel);
const KernelRegistrar<FlipFn> flip_reg("flip", kCUDA, CpuCapability::Default, &flip_kernel);
const KernelRegistrar<TriluFn> trilu_reg("trilu", kCUDA, CpuCapability::Default, &trilu_kernel);

}  // namespace
}  // namespace ember::cuda
