// How a CUDA elementwise kernel finds its operands. An IterDesc is a built iterator's shape,
// operand strides (bytes) and data pointers; split_32bit cuts it into pieces whose element
// counts and byte offsets fit in 31 bits, and an OffsetCalculator turns a thread's linear
// index within a piece (dimension 0 fastest, as TensorIterator walks) into a byte offset per
// operand. Plain C++ usable on host and device (no CUDA headers), so the tests check it on
// the CPU against TensorIterator's own walk.
#pragma once
#include <algorithm>
#include <cstdint>

#include "ember/core/macros.h"
#include "ember/ops/tensor_iterator.h"

namespace ember::cuda {

// Iterator dimensions after coalescing that a kernel handles (TensorIterator's own limit).
constexpr int kMaxIterDims = 16;

// Division by a divisor fixed at launch, as a multiply-high, an add and a shift
// (Granlund & Montgomery, "Division by invariant integers using multiplication", 1994):
// with s = ceil(log2 d) and m = floor(2^32 (2^s - d) / d) + 1, n / d = (umulhi(n, m) + n) >> s
// for every n < 2^31 (so the sum cannot overflow) and 1 <= d < 2^31.
struct IntDivider {
  uint32_t divisor = 1, magic = 0, shift = 0;
  IntDivider() = default;
  explicit IntDivider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t(1) << shift) < d) ++shift;
    magic = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - d)) / d + 1);
  }
  EMBER_HD uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t t = __umulhi(n, magic);
#else
    const uint32_t t = uint32_t((uint64_t(n) * magic) >> 32);
#endif
    return (t + n) >> shift;
  }
};

// An iteration space of N operands (operand 0 the output).
template <int N>
struct IterDesc {
  int ndim = 0;
  int64_t shape[kMaxIterDims];
  int64_t strides[kMaxIterDims][N];  // bytes
  char* data[N];

  IterDesc() = default;
  explicit IterDesc(const TensorIterator& it) {
    ndim = it.ndim();
    EMBER_CHECK(ndim <= kMaxIterDims, it.op_name(), ": CUDA kernels take at most ", kMaxIterDims,
                " dimensions that cannot be merged, got ", ndim);
    EMBER_INTERNAL_ASSERT(it.ntensors() == N, it.op_name(), ": ", it.ntensors(), " operands, expected ", N);
    for (int d = 0; d < ndim; ++d) {
      shape[d] = it.shape()[d];
      for (int k = 0; k < N; ++k) strides[d][k] = it.strides(k)[d];
    }
    for (int k = 0; k < N; ++k) data[k] = it.data_ptr(k);
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
  // The furthest byte offset an operand reaches from its data pointer.
  int64_t extent(int k) const {
    int64_t e = 0;
    for (int d = 0; d < ndim; ++d) e += (shape[d] - 1) * (strides[d][k] < 0 ? -strides[d][k] : strides[d][k]);
    return e;
  }
  bool fits_32bit() const {
    constexpr int64_t kMax = int64_t(1) << 31;
    if (numel() >= kMax) return false;
    for (int k = 0; k < N; ++k)
      if (extent(k) + 16 >= kMax) return false;  // the last element's own bytes included
    return true;
  }
};

// Calls fn(piece) for pieces of `d` that each fit in 32 bits and together cover it once:
// the dimension reaching furthest is halved until every piece fits.
template <int N, class Fn>
void split_32bit(const IterDesc<N>& d, const Fn& fn) {
  if (d.numel() == 0) return;
  if (d.fits_32bit()) return fn(d);
  int dim = -1;
  int64_t reach = -1;
  for (int i = 0; i < d.ndim; ++i) {
    if (d.shape[i] < 2) continue;
    int64_t r = 0;
    for (int k = 0; k < N; ++k) r = std::max(r, (d.shape[i] - 1) * (d.strides[i][k] < 0 ? -d.strides[i][k] : d.strides[i][k]));
    r = std::max(r, d.shape[i]);  // a dimension of many elements with stride 0 still counts
    if (r > reach) reach = r, dim = i;
  }
  EMBER_INTERNAL_ASSERT(dim >= 0, "split_32bit: no dimension to split");
  IterDesc<N> a = d, b = d;
  a.shape[dim] = d.shape[dim] / 2;
  b.shape[dim] = d.shape[dim] - a.shape[dim];
  for (int k = 0; k < N; ++k) b.data[k] = d.data[k] + a.shape[dim] * d.strides[dim][k];
  split_32bit(a, fn);
  split_32bit(b, fn);
}

// Byte offsets of N operands for a linear index of a piece that fits in 32 bits.
template <int N>
struct OffsetCalculator {
  int dims = 0;
  uint32_t sizes[kMaxIterDims];
  IntDivider dividers[kMaxIterDims];
  int32_t strides[kMaxIterDims][N];

  OffsetCalculator() = default;
  explicit OffsetCalculator(const IterDesc<N>& d) : dims(d.ndim) {
    for (int i = 0; i < dims; ++i) {
      sizes[i] = uint32_t(d.shape[i]);
      dividers[i] = IntDivider(uint32_t(d.shape[i]));
      for (int k = 0; k < N; ++k) strides[i][k] = int32_t(d.strides[i][k]);
    }
  }

  struct Offsets {
    int32_t v[N];
  };
  EMBER_HD Offsets get(uint32_t linear) const {
    Offsets o;
    for (int k = 0; k < N; ++k) o.v[k] = 0;
    // Not unrolled: a rolled loop over the dimensions keeps each kernel small (the
    // dimensions are few; the loads, not this arithmetic, bound the kernels).
#if defined(__CUDA_ARCH__)
#pragma unroll 1
#endif
    for (int i = 0; i < dims; ++i) {
      const uint32_t q = dividers[i].div(linear);
      const int32_t idx = int32_t(linear - q * sizes[i]);
      linear = q;
      for (int k = 0; k < N; ++k) o.v[k] += idx * strides[i][k];
    }
    return o;
  }
};

}  // namespace ember::cuda
