// CPU kernels for copy_ (every dtype pair, with a parallel memcpy and a blocked 2-d
// transpose for the common layouts) and fill_.
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstring>

#include "ember/core/parallel.h"
#include "ember/ops/cpu/loops.h"
#include "ember/ops/op_def.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);

#if defined(__AVX2__)
// 8x8 float transpose in registers: rows r[k] (8 floats each) become columns.
inline void transpose8x8(__m256 r[8]) {
  __m256 t[8], u[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 8; k += 4) {
    u[k] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
    r[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
  }
}
#endif

// A 2-d iteration where the destination is contiguous along dim 0 and the source along
// dim 1 (a transpose): copy in 32x32 tiles of 8x8 blocks (transposed in registers for
// 4-byte elements), so both sides touch whole cache lines.
template <class T>
bool try_transpose_copy(TensorIterator& it) {
  if (it.ndim() != 2) return false;
  IntArrayRef ds = it.strides(0), ss = it.strides(1);
  constexpr int64_t isz = sizeof(T);
  if (!(ds[0] == isz && ss[1] == isz && ss[0] != isz)) return false;
  int64_t n0 = it.shape()[0], n1 = it.shape()[1];
  if (n0 < 16 || n1 < 16) return false;
  constexpr int64_t kTile = 32;
  char* dst = it.data_ptr(0);
  const char* src = it.data_ptr(1);
  int64_t dst1 = ds[1], src0 = ss[0];
  int64_t tiles0 = (n0 + kTile - 1) / kTile, tiles1 = (n1 + kTile - 1) / kTile;
  parallel_for(0, tiles0 * tiles1, 8, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      int64_t i0 = (t % tiles0) * kTile, i1 = (t / tiles0) * kTile;
      int64_t r0 = std::min(kTile, n0 - i0), r1 = std::min(kTile, n1 - i1);
      for (int64_t j1 = 0; j1 < r1; j1 += 8) {
        for (int64_t j0 = 0; j0 < r0; j0 += 8) {
          int64_t m0 = std::min<int64_t>(8, r0 - j0), m1 = std::min<int64_t>(8, r1 - j1);
          const char* s0 = src + (i0 + j0) * src0 + (i1 + j1) * isz;
          char* d0 = dst + (i1 + j1) * dst1 + (i0 + j0) * isz;
#if defined(__AVX2__)
          if constexpr (isz == 4) {
            if (m0 == 8 && m1 == 8) {
              __m256 r[8];
              for (int k = 0; k < 8; ++k) r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(s0 + k * src0));
              transpose8x8(r);
              for (int k = 0; k < 8; ++k) _mm256_storeu_ps(reinterpret_cast<float*>(d0 + k * dst1), r[k]);
              continue;
            }
          }
#endif
          for (int64_t k1 = 0; k1 < m1; ++k1) {
            T* d = reinterpret_cast<T*>(d0 + k1 * dst1);
            for (int64_t k0 = 0; k0 < m0; ++k0) d[k0] = *reinterpret_cast<const T*>(s0 + k0 * src0 + k1 * isz);
          }
        }
      }
    }
  });
  return true;
}

void copy_kernel(TensorIterator& it) {
  ScalarType dst_t = it.dtype(0), src_t = it.dtype(1);
  if (dst_t == src_t) {
    size_t isz = element_size(dst_t);
    if (it.is_contiguous()) {
      char* d = it.data_ptr(0);
      const char* s = it.data_ptr(1);
      int64_t nbytes = it.numel() * isz;
      parallel_for(0, nbytes, 1 << 20, [&](int64_t b, int64_t e) { std::memcpy(d + b, s + b, e - b); });
      return;
    }
    bool done = false;
    switch (isz) {
      case 1: done = try_transpose_copy<uint8_t>(it); break;
      case 2: done = try_transpose_copy<uint16_t>(it); break;
      case 4: done = try_transpose_copy<uint32_t>(it); break;
      case 8: done = try_transpose_copy<uint64_t>(it); break;
      case 16: done = try_transpose_copy<Complex<double>>(it); break;
    }
    if (done) return;
    auto same = [&](auto tag) {
      using T = typename decltype(tag)::type;
      it.for_each([](char** data, const int64_t* st, int64_t n) {
        if (st[0] == sizeof(T) && st[1] == 0) {
          T v = *reinterpret_cast<const T*>(data[1]);
          T* o = reinterpret_cast<T*>(data[0]);
          for (int64_t i = 0; i < n; ++i) o[i] = v;
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<T*>(data[0] + i * st[0]) = *reinterpret_cast<const T*>(data[1] + i * st[1]);
      });
    };
    switch (isz) {
      case 1: same(TypeTag<uint8_t>{}); return;
      case 2: same(TypeTag<uint16_t>{}); return;
      case 4: same(TypeTag<uint32_t>{}); return;
      case 8: same(TypeTag<uint64_t>{}); return;
      case 16: same(TypeTag<Complex<double>>{}); return;
    }
  }
  visit_dtype<kAllTypes>(dst_t, "copy_", [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    visit_dtype<kAllTypes>(src_t, "copy_", [&](auto stag) {
      using S = typename decltype(stag)::type;
      it.for_each_overwrite([](char** data, const int64_t* st, int64_t n) {
        if (st[0] == sizeof(D) && st[1] == sizeof(S)) {
          D* o = reinterpret_cast<D*>(data[0]);
          const S* s = reinterpret_cast<const S*>(data[1]);
          for (int64_t i = 0; i < n; ++i) o[i] = convert<D>(s[i]);
          return;
        }
        for (int64_t i = 0; i < n; ++i)
          *reinterpret_cast<D*>(data[0] + i * st[0]) = convert<D>(*reinterpret_cast<const S*>(data[1] + i * st[1]));
      });
    });
  });
}

// fill_: the value arrives as a 0-dim tensor of the output dtype (operand 1).
void fill_kernel(TensorIterator& it) {
  size_t isz = element_size(it.dtype(0));
  auto run = [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v;
    std::memcpy(&v, it.data_ptr(1), sizeof(T));
    it.for_each([v](char** data, const int64_t* st, int64_t n) {
      if (st[0] == sizeof(T)) {
        T* o = reinterpret_cast<T*>(data[0]);
        for (int64_t i = 0; i < n; ++i) o[i] = v;
      } else {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(data[0] + i * st[0]) = v;
      }
    });
  };
  switch (isz) {
    case 1: run(TypeTag<uint8_t>{}); break;
    case 2: run(TypeTag<uint16_t>{}); break;
    case 4: run(TypeTag<uint32_t>{}); break;
    case 8: run(TypeTag<uint64_t>{}); break;
    case 16: run(TypeTag<Complex<double>>{}); break;
  }
}

using IterFn = void (*)(TensorIterator&);
const KernelRegistrar<IterFn> copy_reg("copy_", kCPU, kCap, &copy_kernel);
const KernelRegistrar<IterFn> fill_reg("fill_", kCPU, kCap, &fill_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
