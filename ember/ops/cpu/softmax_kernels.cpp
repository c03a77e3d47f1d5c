// CPU kernels of softmax and log_softmax: fused passes over each line (max, then exp and
// sum, then scale) with SLEEF's vector exp. The input is contiguous, viewed as
// [outer, len, inner]: with inner == 1 a line is a contiguous row; otherwise a block of
// inner columns is processed together so every pass runs along contiguous memory.
#if defined(__aarch64__)
#include <arm_neon.h>
#endif
#include <sleef.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ember/ops/cpu/reduce_loops.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);

// Vector exp at the width of vec_t.
EMBER_HD vec_t<float> vexp(vec_t<float> v) {
#if defined(__AVX512F__)
  return (vec_t<float>)Sleef_expf16_u10avx512f((__m512)v);
#elif defined(__AVX2__)
  return (vec_t<float>)Sleef_expf8_u10avx2((__m256)v);
#elif defined(__aarch64__)
  return (vec_t<float>)Sleef_expf4_u10advsimd((float32x4_t)v);
#else
  return (vec_t<float>)Sleef_expf4_u10sse2((__m128)v);
#endif
}
EMBER_HD vec_t<double> vexp(vec_t<double> v) {
#if defined(__AVX512F__)
  return (vec_t<double>)Sleef_expd8_u10avx512f((__m512d)v);
#elif defined(__AVX2__)
  return (vec_t<double>)Sleef_expd4_u10avx2((__m256d)v);
#elif defined(__aarch64__)
  return (vec_t<double>)Sleef_expd2_u10advsimd((float64x2_t)v);
#else
  return (vec_t<double>)Sleef_expd2_u10sse2((__m128d)v);
#endif
}

// out[i] = exp(x[i] - m[i or 0]); returns the sum of the results when kSum.
template <class T, bool kVecM, bool kStore>
T exp_sub(const T* x, const T* m, T* out, int64_t n) {
  using V = vec_t<T>;
  constexpr int W = kLanes<T>;
  V acc0{}, acc1{};
  V mv = V{} + m[0];
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    V e0 = vexp(vload(x + i) - (kVecM ? vload(m + i) : mv));
    V e1 = vexp(vload(x + i + W) - (kVecM ? vload(m + i + W) : mv));
    if constexpr (kStore) {
      vstore(out + i, e0);
      vstore(out + i + W, e1);
    }
    acc0 += e0;
    acc1 += e1;
  }
  if (i + W <= n) {
    V e = vexp(vload(x + i) - (kVecM ? vload(m + i) : mv));
    if constexpr (kStore) vstore(out + i, e);
    acc0 += e;
    i += W;
  }
  T s = 0;
  if (i < n) {
    // The tail goes through the vector exp too, so every element rounds alike.
    alignas(64) T xb[W] = {}, mb[W] = {}, eb[W];
    int64_t r = n - i;
    for (int64_t j = 0; j < r; ++j) {
      xb[j] = x[i + j];
      mb[j] = kVecM ? m[i + j] : m[0];
    }
    vstore(eb, vexp(vload(xb) - vload(mb)));
    for (int64_t j = 0; j < r; ++j) {
      if constexpr (kStore) out[i + j] = eb[j];
      s += eb[j];
    }
  }
  V acc = acc0 + acc1;
  for (int l = 0; l < W; ++l) s += acc[l];
  return s;
}

// One contiguous row of length n (float or double).
template <class T>
void softmax_row(const T* x, T* out, int64_t n, bool log) {
  T m = vec_minmax<true>(x, n, -std::numeric_limits<T>::infinity(), Identity{});
  if (!log) {
    T s = exp_sub<T, false, true>(x, &m, out, n);
    T inv = T(1) / s;
    for (int64_t i = 0; i < n; ++i) out[i] *= inv;
  } else {
    T s = exp_sub<T, false, false>(x, &m, nullptr, n);
    T shift = m + std::log(s);
    for (int64_t i = 0; i < n; ++i) out[i] = x[i] - shift;
  }
}

// A [len, w] block of columns (row stride `inner`), w <= kCols.
constexpr int64_t kCols = 512;
template <class T>
void softmax_cols(const T* x, T* out, int64_t len, int64_t inner, int64_t w, bool log) {
  alignas(64) T m[kCols], s[kCols];
  for (int64_t j = 0; j < w; ++j) m[j] = -std::numeric_limits<T>::infinity();
  for (int64_t i = 0; i < len; ++i) {
    const T* r = x + i * inner;
    for (int64_t j = 0; j < w; ++j) m[j] = pick<true>(m[j], r[j]);
  }
  for (int64_t j = 0; j < w; ++j) s[j] = 0;
  alignas(64) T e[kCols];
  for (int64_t i = 0; i < len; ++i) {
    T* dst = log ? e : out + i * inner;
    exp_sub<T, true, true>(x + i * inner, m, dst, w);
    for (int64_t j = 0; j < w; ++j) s[j] += dst[j];
  }
  if (!log) {
    for (int64_t j = 0; j < w; ++j) s[j] = T(1) / s[j];
    for (int64_t i = 0; i < len; ++i) {
      T* r = out + i * inner;
      for (int64_t j = 0; j < w; ++j) r[j] *= s[j];
    }
  } else {
    for (int64_t j = 0; j < w; ++j) s[j] = m[j] + std::log(s[j]);
    for (int64_t i = 0; i < len; ++i) {
      const T* xr = x + i * inner;
      T* r = out + i * inner;
      for (int64_t j = 0; j < w; ++j) r[j] = xr[j] - s[j];
    }
  }
}

template <class S>
void softmax_typed(const ScanPlan& p, bool log) {
  using T = std::conditional_t<std::is_same_v<S, double>, double, float>;
  const S* in = reinterpret_cast<const S*>(p.in);
  S* out = reinterpret_cast<S*>(p.out);
  int64_t outer = p.outer, len = p.len, inner = p.inner;
  if (outer * len * inner == 0) return;
  if (inner == 1) {
    parallel_for(0, outer, std::max<int64_t>(1, kReduceGrain / len), [&](int64_t b, int64_t e) {
      if constexpr (std::is_same_v<S, T>) {
        for (int64_t o = b; o < e; ++o) softmax_row<T>(in + o * len, out + o * len, len, log);
      } else {
        std::vector<T> xb(len), ob(len);
        for (int64_t o = b; o < e; ++o) {
          load_block<true>(xb.data(), in + o * len, len, 1, [](S v) { return T(v); });
          softmax_row<T>(xb.data(), ob.data(), len, log);
          for (int64_t i = 0; i < len; ++i) out[o * len + i] = S(ob[i]);
        }
      }
    });
    return;
  }
  if constexpr (std::is_same_v<S, T>) {
    int64_t nchunk = (inner + kCols - 1) / kCols;
    int64_t grain = std::max<int64_t>(1, kReduceGrain / (len * std::min(inner, kCols)));
    parallel_for(0, outer * nchunk, grain, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        int64_t o = u / nchunk, c0 = (u % nchunk) * kCols, w = std::min(kCols, inner - c0);
        int64_t base = o * len * inner + c0;
        softmax_cols<T>(in + base, out + base, len, inner, w, log);
      }
    });
  } else {
    EMBER_INTERNAL_ASSERT(false, "softmax: reduced-precision inputs along a non-last dim are computed in float by the caller");
  }
}

void softmax_kernel(const ScanPlan& p, bool log) {
  visit_dtype<kFloatingTypes>(p.in_dtype, log ? "log_softmax" : "softmax", [&](auto tag) {
    using S = typename decltype(tag)::type;
    softmax_typed<S>(p, log);
  });
}

const KernelRegistrar<SoftmaxFn> r_softmax("softmax", kCPU, kCap, &softmax_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
