// The CUDA elementwise engine: gpu_kernel<Out, In...>(iter, f) runs a functor over a built
// TensorIterator on the current stream of the operands' device, as cpu_kernel does on the
// CPU (Note [CUDA elementwise kernels]). Included only by ember/ops/cuda/*.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstring>
#include <utility>
#include <vector>

#include "ember/cuda/check.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/stream.h"
#include "ember/ops/convert.h"
#include "ember/ops/cuda/offset_calculator.h"
#include "ember/ops/dispatch.h"

namespace ember::cuda {

// Note [CUDA elementwise kernels]
// The functors are the CPU's (ember/ops/pointwise_ops.h, EMBER_HD): a thread loads each
// input from its storage type, widens it to the compute type (Half/BFloat16 -> float,
// complex32 -> complex64), calls the functor and narrows the result to the output's type.
// * Contiguous operands (the common case) take a kernel in which each thread handles V
//   consecutive elements (V: 16 bytes of the widest operand, at most 4) with one vector load
//   and store per operand when every pointer is aligned to it, and element by element
//   otherwise (views at odd offsets, the tail). 64-bit indices: no division.
// * Other layouts (broadcasting, transposes, channels-last against contiguous) take a kernel
//   that maps each linear index to operand offsets (OffsetCalculator: 32-bit, division by
//   multiply-shift); an iteration too large for 32-bit offsets is cut into pieces that fit
//   (split_32bit), one launch each.
// * A 0-dim CPU tensor among the inputs (a scalar: `x + torch::tensor(2)`) is passed by
//   value in the launch arguments instead of being copied to the device.
// Each kernel instantiates its functor a few times at most (V lanes, kItems items), and the
// dimension loop is not unrolled: the table's ~110 ops times their dtypes make thousands of
// kernels, whose size bounds the build's time and memory.
// Type promotion happens before: TensorIterator casts inputs to the common dtype and writes
// through a temporary when the output's dtype differs, as on the CPU.

constexpr int kThreads = 128;
constexpr int kItems = 2;  // strided kernel: elements per thread
constexpr int kVecBytes = 16;

template <class T>
EMBER_HD compute_t<T> load_value(const T* p) { return static_cast<compute_t<T>>(*p); }
template <class Out, class R>
EMBER_HD Out store_value(R r) {
  if constexpr (std::is_same_v<Out, R>) return r;
  else return convert<Out>(r);
}

template <int N>
struct KernelPtrs {
  char* p[N];
};
// Values of the inputs that are 0-dim CPU tensors (bit i of mask: input i).
struct HostScalars {
  alignas(16) char bytes[kMaxIteratorOperands][16];
  uint32_t mask = 0;
  EMBER_HD bool has(int i) const { return (mask >> i) & 1u; }
};

template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};
template <class T, int K>
struct Lanes {
  compute_t<T> v[K];
};

// Elements per thread of the contiguous kernel: kVecBytes of the widest operand, 1 to 4.
template <class Out, class... In>
constexpr int vec_width() {
  constexpr size_t widest = std::max({sizeof(Out), sizeof(In)...});
  constexpr int v = int(kVecBytes / widest);
  return v < 1 ? 1 : v > 4 ? 4 : v;
}

// A thread's work for functor F over inputs In... (a __global__ template may have only one
// parameter pack, so the kernels take this as one type).
template <class Out, class F, class... In>
struct Elementwise {
  static constexpr int N = 1 + int(sizeof...(In));
  static constexpr int V = vec_width<Out, In...>();
  F f;

  // K elements; addr(k, l): operand k's element for lane l (lanes >= valid repeat lane 0 and
  // are not stored).
  template <int K, class Addr>
  __device__ __forceinline__ void run(int valid, const Addr& addr, const HostScalars& hs) const {
    run_impl<K>(valid, addr, hs, std::index_sequence_for<In...>{});
  }
  // V elements from `first` of contiguous, V-aligned operands: vector loads and stores.
  __device__ __forceinline__ void run_vec(const KernelPtrs<N>& p, int64_t first, const HostScalars& hs) const {
    run_vec_impl(p, first, hs, std::index_sequence_for<In...>{});
  }

 private:
  // Operand k's value in every lane when it is a host scalar; false otherwise.
  template <class T, int K>
  __device__ __forceinline__ static bool host_scalar_lanes(int k, const HostScalars& hs, Lanes<T, K>& r) {
    if (!hs.has(k - 1)) return false;
    const compute_t<T> v = load_value(reinterpret_cast<const T*>(hs.bytes[k - 1]));
#pragma unroll
    for (int l = 0; l < K; ++l) r.v[l] = v;
    return true;
  }
  template <class T, int K, class Addr>
  __device__ __forceinline__ static Lanes<T, K> load_lanes(int k, int valid, const Addr& addr, const HostScalars& hs) {
    Lanes<T, K> r;
    if (!host_scalar_lanes(k, hs, r)) {
#pragma unroll
      for (int l = 0; l < K; ++l) r.v[l] = load_value(reinterpret_cast<const T*>(addr(k, l < valid ? l : 0)));
    }
    return r;
  }
  template <class T>
  __device__ __forceinline__ static Lanes<T, V> load_vec(const char* base, int64_t first, int k, const HostScalars& hs) {
    Lanes<T, V> r;
    if (!host_scalar_lanes(k, hs, r)) {
      const Pack<T, V> pk = reinterpret_cast<const Pack<T, V>*>(base)[first / V];
#pragma unroll
      for (int l = 0; l < V; ++l) r.v[l] = load_value(&pk.v[l]);
    }
    return r;
  }
  template <int K, class Addr, size_t... I>
  __device__ __forceinline__ void run_impl(int valid, const Addr& addr, const HostScalars& hs,
                                           std::index_sequence<I...>) const {
    [&](const Lanes<In, K>&... in) {
#pragma unroll
      for (int l = 0; l < K; ++l) {
        const Out r = store_value<Out>(f(in.v[l]...));
        if (l < valid) *reinterpret_cast<Out*>(addr(0, l)) = r;
      }
    }(load_lanes<In, K>(int(1 + I), valid, addr, hs)...);
  }
  template <size_t... I>
  __device__ __forceinline__ void run_vec_impl(const KernelPtrs<N>& p, int64_t first, const HostScalars& hs,
                                               std::index_sequence<I...>) const {
    Pack<Out, V> o;
    [&](const Lanes<In, V>&... in) {
#pragma unroll
      for (int l = 0; l < V; ++l) o.v[l] = store_value<Out>(f(in.v[l]...));
    }(load_vec<In>(p.p[1 + I], first, int(1 + I), hs)...);
    reinterpret_cast<Pack<Out, V>*>(p.p[0])[first / V] = o;
  }

 public:
  static constexpr size_t size_of(int k) {
    constexpr size_t s[N] = {sizeof(Out), sizeof(In)...};
    return s[k];
  }
};

template <class Op>
__global__ void __launch_bounds__(kThreads)
contiguous_kernel(int64_t n, Op op, KernelPtrs<Op::N> ptrs, HostScalars hs, bool aligned) {
  constexpr int V = Op::V;
  const int64_t first = (int64_t(blockIdx.x) * kThreads + threadIdx.x) * V;
  if (first >= n) return;
  if (aligned && first + V <= n) return op.run_vec(ptrs, first, hs);
  const int valid = n - first < V ? int(n - first) : V;
  op.template run<V>(valid, [&](int k, int l) { return ptrs.p[k] + (first + l) * int64_t(Op::size_of(k)); }, hs);
}

template <class Op>
__global__ void __launch_bounds__(kThreads)
strided_kernel(uint32_t n, Op op, KernelPtrs<Op::N> ptrs, OffsetCalculator<Op::N> calc, HostScalars hs) {
  const uint32_t first = blockIdx.x * uint32_t(kThreads * kItems) + threadIdx.x;
  if (first >= n) return;
  typename OffsetCalculator<Op::N>::Offsets off[kItems];
  int valid = 0;
#pragma unroll
  for (int w = 0; w < kItems; ++w) {
    const uint32_t i = first + uint32_t(w * kThreads);
    if (i < n) {
      off[w] = calc.get(i);
      valid = w + 1;
    }
  }
  op.template run<kItems>(valid, [&](int k, int l) { return ptrs.p[k] + off[l].v[k]; }, hs);
}

// How gpu_kernel launches over an iterator: everything but the functor's types, so that this
// host code is compiled once per operand count, not once per op and dtype.
template <int N>
struct LaunchPlan {
  HostScalars hs;
  KernelPtrs<N> ptrs;
  int64_t n = 0;
  bool contiguous = false, aligned = false;
  std::vector<IterDesc<N>> pieces;  // strided: pieces that fit 32-bit offsets
};

// sizes[k]: operand k's element size; vec: the contiguous kernel's elements per thread;
// strided_only: always cut into 32-bit pieces (for the offset kernels below).
template <int N>
void plan_launch(const TensorIterator& it, const size_t* sizes, int vec, LaunchPlan<N>& L, bool strided_only = false) {
  EMBER_INTERNAL_ASSERT(it.ntensors() == N && it.noutputs() == 1, it.op_name(), ": gpu_kernel expects one output and ",
                        N - 1, " inputs");
  L.n = it.numel();
  for (int i = 0; i + 1 < N; ++i) {
    if (!it.input(i).is_cpu()) continue;
    std::memcpy(L.hs.bytes[i], it.data_ptr(1 + i), sizes[1 + i]);
    L.hs.mask |= 1u << i;
  }
  // Contiguous: one dimension, every operand dense (host scalars need no stride).
  L.contiguous = !strided_only && it.ndim() <= 1;
  for (int k = 0; L.contiguous && k < N; ++k)
    L.contiguous = (k > 0 && L.hs.has(k - 1)) || L.n == 1 || it.strides(k)[0] == int64_t(sizes[k]);
  if (L.contiguous) {
    L.aligned = true;
    for (int k = 0; k < N; ++k) {
      L.ptrs.p[k] = it.data_ptr(k);
      if (!(k > 0 && L.hs.has(k - 1)) && reinterpret_cast<uintptr_t>(L.ptrs.p[k]) % (sizes[k] * vec) != 0)
        L.aligned = false;
    }
    return;
  }
  split_32bit(IterDesc<N>(it), [&](const IterDesc<N>& piece) { L.pieces.push_back(piece); });
}

template <class Out, class... In, class F>
void gpu_kernel(TensorIterator& it, const F& f) {
  using Op = Elementwise<Out, F, In...>;
  constexpr int N = Op::N;
  if (it.numel() == 0) return;
  const Device dev = it.output(0).device();
  EMBER_INTERNAL_ASSERT(dev.is_cuda(), it.op_name(), ": gpu_kernel on ", dev);
  CUDAGuard guard(dev.index());
  cudaStream_t stream = getCurrentCUDAStream(dev.index()).stream();
  size_t sizes[N];
  for (int k = 0; k < N; ++k) sizes[k] = Op::size_of(k);
  LaunchPlan<N> L;
  plan_launch<N>(it, sizes, Op::V, L);
  const Op op{f};
  if (L.contiguous) {
    const int64_t per_block = int64_t(kThreads) * Op::V;
    contiguous_kernel<<<unsigned((L.n + per_block - 1) / per_block), kThreads, 0, stream>>>(L.n, op, L.ptrs, L.hs,
                                                                                              L.aligned);
    EMBER_CUDA_CHECK(cudaGetLastError());
    return;
  }
  for (const IterDesc<N>& piece : L.pieces) {
    KernelPtrs<N> ptrs;
    for (int k = 0; k < N; ++k) ptrs.p[k] = piece.data[k];
    const int64_t m = piece.numel(), per_block = int64_t(kThreads) * kItems;
    strided_kernel<<<unsigned((m + per_block - 1) / per_block), kThreads, 0, stream>>>(uint32_t(m), op, ptrs,
                                                                                       OffsetCalculator<N>(piece), L.hs);
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
}

// ---- raw offset loops -----------------------------------------------------------------
// For kernels that move bytes or update in place rather than map values (indexing, scatter,
// masked_fill): f(p) gets the address of each operand's element (p[0] the output; an input
// that is a 0-dim CPU tensor points at its value, carried in the launch arguments). One
// element per thread over 32-bit pieces of the iteration.
template <int N, class F>
__global__ void __launch_bounds__(kThreads)
offsets_kernel(uint32_t n, KernelPtrs<N> ptrs, OffsetCalculator<N> calc, const __grid_constant__ HostScalars hs, F f) {
  // __grid_constant__: the host scalars' address is taken without a per-thread copy.
  const uint32_t i = blockIdx.x * uint32_t(kThreads) + threadIdx.x;
  if (i >= n) return;
  const auto o = calc.get(i);
  char* p[N];
#pragma unroll
  for (int k = 0; k < N; ++k)
    p[k] = k > 0 && hs.has(k - 1) ? const_cast<char*>(hs.bytes[k - 1]) : ptrs.p[k] + o.v[k];  // inputs: read only
  f(p);
}

// The raw loops' shared setup: the output device's guard and current stream, the host
// scalars, the 32-bit pieces; launch(stream, ptrs, calc, host_scalars, numel) per piece.
template <int N, class Launch>
void for_each_piece(TensorIterator& it, const Launch& launch) {
  if (it.numel() == 0) return;
  const Device dev = it.output(0).device();
  EMBER_INTERNAL_ASSERT(dev.is_cuda(), it.op_name(), ": a CUDA loop on ", dev);
  CUDAGuard guard(dev.index());
  cudaStream_t stream = getCurrentCUDAStream(dev.index()).stream();
  size_t sizes[N];
  for (int k = 0; k < N; ++k) sizes[k] = element_size(it.dtype(k));
  LaunchPlan<N> L;
  plan_launch<N>(it, sizes, 1, L, /*strided_only=*/true);
  for (const IterDesc<N>& piece : L.pieces) {
    KernelPtrs<N> ptrs;
    for (int k = 0; k < N; ++k) ptrs.p[k] = piece.data[k];
    launch(stream, ptrs, OffsetCalculator<N>(piece), L.hs, piece.numel());
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
}

template <int N, class F>
void gpu_for_each_offset(TensorIterator& it, const F& f) {
  for_each_piece<N>(it, [&](cudaStream_t stream, const KernelPtrs<N>& ptrs, const OffsetCalculator<N>& calc,
                            const HostScalars& hs, int64_t m) {
    offsets_kernel<<<unsigned((m + kThreads - 1) / kThreads), kThreads, 0, stream>>>(uint32_t(m), ptrs, calc, hs, f);
  });
}

// Blocks for a grid-stride loop over `total` items: enough to fill the device, no more.
inline unsigned grid_for(int64_t total) {
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  return unsigned(blocks < 1 ? 1 : blocks > (int64_t(1) << 16) ? (int64_t(1) << 16) : blocks);
}

}  // namespace ember::cuda
