// Block conversions between the reduced-precision storage types (Half, BFloat16, complex32)
// and their compute types, vectorized with AVX-512 where this kernel file is compiled for
// it, and with NEON on 64-bit Arm (FCVTL/FCVTN for Half; bfloat16 rounding with BFCVTN where
// the CPU has the BF16 extension, arm_bf16.h, else in integer lanes as the AVX-512 path):
// round-to-nearest-even, NaN kept. Used by the elementwise engine's block path.
#pragma once
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__) && !defined(__CUDACC__)
#include <arm_neon.h>

#include "ember/ops/arm_bf16.h"
#define EMBER_CONVERT_NEON 1
#endif

#include <cstdint>
#include <cstring>

#include "ember/ops/dispatch.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {

#if defined(__AVX512F__) || defined(EMBER_CONVERT_NEON)
// Runs the W-element vector conversion v(in, out) over n elements, the last n % W through
// local buffers: the tail is converted by the same instructions as the body (a NaN's payload
// too), and GCC 12 sees no scalar tail loop after a fully unrolled body (it warned of one,
// falsely, under -Waggressive-loop-optimizations in the elementwise engine's 256-element blocks).
template <int W, class From, class To, class V>
EMBER_HD void blocks(const From* in, To* out, int64_t n, V v) {
  int64_t i = 0;
  for (; i + W <= n; i += W) v(in + i, out + i);
  if (i < n) {
    From a[W] = {};
    To b[W];
    std::memcpy(a, in + i, sizeof(From) * size_t(n - i));
    v(a, b);
    std::memcpy(out + i, b, sizeof(To) * size_t(n - i));
  }
}
#endif

EMBER_HD void widen(const Half* in, float* out, int64_t n) {
#if defined(__AVX512F__)
  blocks<16>(reinterpret_cast<const uint16_t*>(in), out, n, [](const uint16_t* a, float* b) {
    _mm512_storeu_ps(b, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a))));
  });
#elif defined(EMBER_CONVERT_NEON)
  blocks<4>(reinterpret_cast<const float16_t*>(in), out, n,
            [](const float16_t* a, float* b) { vst1q_f32(b, vcvt_f32_f16(vld1_f16(a))); });
#else
  for (int64_t i = 0; i < n; ++i) out[i] = float(in[i]);
#endif
}
EMBER_HD void narrow(const float* in, Half* out, int64_t n) {
#if defined(__AVX512F__)
  blocks<16>(in, reinterpret_cast<uint16_t*>(out), n, [](const float* a, uint16_t* b) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b),
                        _mm512_cvtps_ph(_mm512_loadu_ps(a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
  });
#elif defined(EMBER_CONVERT_NEON)
  blocks<4>(in, reinterpret_cast<float16_t*>(out), n,
            [](const float* a, float16_t* b) { vst1_f16(b, vcvt_f16_f32(vld1q_f32(a))); });
#else
  for (int64_t i = 0; i < n; ++i) out[i] = Half(in[i]);
#endif
}
EMBER_HD void widen(const BFloat16* in, float* out, int64_t n) {
#if defined(__AVX512F__)
  blocks<16>(reinterpret_cast<const uint16_t*>(in), out, n, [](const uint16_t* a, float* b) {
    const __m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a)));
    _mm512_storeu_ps(b, _mm512_castsi512_ps(_mm512_slli_epi32(w, 16)));
  });
#elif defined(EMBER_CONVERT_NEON)
  blocks<8>(reinterpret_cast<const uint16_t*>(in), out, n, [](const uint16_t* a, float* b) {
    const uint16x8_t h = vld1q_u16(a);
    vst1q_f32(b, vreinterpretq_f32_u32(vshll_n_u16(vget_low_u16(h), 16)));
    vst1q_f32(b + 4, vreinterpretq_f32_u32(vshll_high_n_u16(h, 16)));
  });
#else
  for (int64_t i = 0; i < n; ++i) out[i] = float(in[i]);
#endif
}
// Rounds to nearest even in integer lanes; a NaN keeps its sign and top payload, quieted
// (detail::f32_to_bf16's results, bit for bit).
EMBER_HD void narrow(const float* in, BFloat16* out, int64_t n) {
#if defined(__AVX512F__)
  blocks<16>(in, reinterpret_cast<uint16_t*>(out), n, [](const float* a, uint16_t* b) {
    const __m512 v = _mm512_loadu_ps(a);
    const __m512i u = _mm512_castps_si512(v);
    const __m512i lsb = _mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), lsb)), 16);
    const __mmask16 nan = _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    r = _mm512_mask_blend_epi32(nan, r, _mm512_or_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(0x40)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(b), _mm512_cvtepi32_epi16(r));
  });
#elif defined(EMBER_CONVERT_NEON)
  // BFCVTN where the CPU has the BF16 extension (ops/arm_bf16.h): the same results.
  if (n >= 8 && arm::has_bf16()) return arm::narrow_bf16(in, reinterpret_cast<uint16_t*>(out), n);
  auto round4 = [](const float* p) {
    const float32x4_t v = vld1q_f32(p);
    const uint32x4_t u = vreinterpretq_u32_f32(v);
    const uint32x4_t lsb = vandq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(1));
    const uint32x4_t r = vshrq_n_u32(vaddq_u32(u, vaddq_u32(vdupq_n_u32(0x7fff), lsb)), 16);
    const uint32x4_t nan = vmvnq_u32(vceqq_f32(v, v));
    return vmovn_u32(vbslq_u32(nan, vorrq_u32(vshrq_n_u32(u, 16), vdupq_n_u32(0x40)), r));
  };
  blocks<8>(in, reinterpret_cast<uint16_t*>(out), n,
            [&](const float* a, uint16_t* b) { vst1q_u16(b, vcombine_u16(round4(a), round4(a + 4))); });
#else
  for (int64_t i = 0; i < n; ++i) out[i] = BFloat16(in[i]);
#endif
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
