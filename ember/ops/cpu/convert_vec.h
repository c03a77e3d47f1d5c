// Block conversions between the reduced-precision storage types (Half, BFloat16, complex32)
// and their compute types, vectorized with AVX-512 where this kernel file is compiled for
// it (round-to-nearest-even, NaN kept). Used by the elementwise engine's block path.
#pragma once
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>

#include "ember/ops/dispatch.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {

EMBER_HD void widen(const Half* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(out + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i))));
#endif
  for (; i < n; ++i) out[i] = float(in[i]);
}
EMBER_HD void narrow(const float* in, Half* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16)
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm512_cvtps_ph(_mm512_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  for (; i < n; ++i) out[i] = Half(in[i]);
}
EMBER_HD void widen(const BFloat16* in, float* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i)));
    _mm512_storeu_ps(out + i, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
  }
#endif
  for (; i < n; ++i) out[i] = float(in[i]);
}
EMBER_HD void narrow(const float* in, BFloat16* out, int64_t n) {
  int64_t i = 0;
#if defined(__AVX512F__)
  const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1), qnan = _mm512_set1_epi32(0x40);
  for (; i + 16 <= n; i += 16) {
    __m512 v = _mm512_loadu_ps(in + i);
    __m512i u = _mm512_castps_si512(v);
    __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), one);
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(bias, lsb)), 16);
    __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_blend_epi32(nan, r, _mm512_or_si512(_mm512_srli_epi32(u, 16), qnan));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_cvtepi32_epi16(r));
  }
#endif
  for (; i < n; ++i) out[i] = BFloat16(in[i]);
}
// complex32 is two halves per element, converted as 2n halves.
inline void widen(const ComplexHalf* in, Complex<float>* out, int64_t n) {
  widen(reinterpret_cast<const Half*>(in), reinterpret_cast<float*>(out), 2 * n);
}
inline void narrow(const Complex<float>* in, ComplexHalf* out, int64_t n) {
  narrow(reinterpret_cast<const float*>(in), reinterpret_cast<Half*>(out), 2 * n);
}

template <class T>
constexpr bool is_reduced_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_same_v<T, ComplexHalf>;

}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
