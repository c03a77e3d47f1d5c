// Atomic read-modify-write of any element type, for kernels whose writes may collide
// (index_put_ with accumulate, index_add_, scatter_add_, scatter_reduce). Included only by
// ember/ops/cuda/*.cu.
//
// float, double, int32 and int64 sums use the hardware's atomicAdd; everything else is a
// compare-and-swap loop on the 32- or 64-bit word that holds the element (1- and 2-byte
// types share their word with neighbours, which the loop leaves as it found them). A
// complex<double> sum adds its two parts separately. As in PyTorch, the order in which
// colliding updates land is not defined: floating sums may differ in the last bits from run
// to run.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ember/core/complex.h"
#include "ember/ops/convert.h"
#include "ember/ops/dispatch.h"

namespace ember::cuda {

// *addr = f(*addr), atomically; T of 1, 2, 4 or 8 bytes.
template <class T, class F>
__device__ __forceinline__ void atomic_update(T* addr, const F& f) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "atomic_update: element size");
  if constexpr (sizeof(T) >= 4) {
    using W = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;
    W* word = reinterpret_cast<W*>(addr);
    W old = *word, assumed;
    do {
      assumed = old;
      T cur;
      std::memcpy(&cur, &assumed, sizeof(T));
      const T next = f(cur);
      W bits;
      std::memcpy(&bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, bits);
    } while (assumed != old);
  } else {
    using U = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;
    const uintptr_t a = reinterpret_cast<uintptr_t>(addr);
    unsigned int* word = reinterpret_cast<unsigned int*>(a & ~uintptr_t(3));
    const unsigned shift = unsigned(a & 3) * 8;
    const unsigned mask = unsigned((1u << (8 * sizeof(T))) - 1) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const U cur_bits = U((assumed & mask) >> shift);
      T cur;
      std::memcpy(&cur, &cur_bits, sizeof(T));
      const T next = f(cur);
      U next_bits;
      std::memcpy(&next_bits, &next, sizeof(T));
      old = atomicCAS(word, assumed, (assumed & ~mask) | (unsigned(next_bits) << shift));
    } while (assumed != old);
  }
}

// *addr += v (for bool: *addr ||= v), atomically.
template <class T>
__device__ __forceinline__ void atomic_add(T* addr, T v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t>) {
    atomicAdd(addr, v);
  } else if constexpr (std::is_same_v<T, int64_t>) {
    // Two's complement: the unsigned sum has the signed sum's bits.
    atomicAdd(reinterpret_cast<unsigned long long*>(addr), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_same_v<T, Complex<double>>) {
    double* parts = reinterpret_cast<double*>(addr);
    atomicAdd(parts, v.real());
    atomicAdd(parts + 1, v.imag());
  } else if constexpr (std::is_same_v<T, bool>) {
    if (v) atomic_update(addr, [](bool) { return true; });
  } else {
    atomic_update(addr, [v](T cur) {
      using C = compute_t<T>;
      return convert<T>(C(C(cur) + C(v)));
    });
  }
}

}  // namespace ember::cuda
