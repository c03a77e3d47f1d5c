// CPU kernel of PyTorch's AVX2 Box-Muller (normal_fill_16_AVX2): 16 uniforms in, 16 normal
// values out, with Cephes' logf and sincosf evaluated as avx_mathfun.h evaluates them on 8
// lanes, step for step, and with the multiply-adds GCC fused there (Note [Fused multiply-add in
// PyTorch's kernels]), so that the values match PyTorch's to the bit. The AVX-512 build runs 8
// lanes at once; the default build evaluates the same steps one lane at a time.
#include <bit>
#include <cmath>
#include <cstdint>

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#endif

#include "ember/ops/op_def.h"
#include "ember/ops/random_transforms.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);

// Cephes' constants as avx_mathfun.h rounds them to float.
constexpr float kMinNormPos = std::bit_cast<float>(0x00800000u);
constexpr float kSqrtHalf = 0.707106781186547524f;
constexpr float kLogP[9] = {7.0376836292E-2f,  -1.1514610310E-1f, 1.1676998740E-1f,
                            -1.2420140846E-1f, 1.4249322787E-1f,  -1.6668057665E-1f,
                            2.0000714765E-1f,  -2.4999993993E-1f, 3.3333331174E-1f};
constexpr float kLogQ1 = -2.12194440e-4f, kLogQ2 = 0.693359375f;
constexpr float kFourOverPi = 1.27323954473516f;
constexpr float kMinusDP1 = -0.78515625f, kMinusDP2 = -2.4187564849853515625e-4f,
                kMinusDP3 = -3.77489497744594108e-8f;
constexpr float kSinP0 = -1.9515295891E-4f, kSinP1 = 8.3321608736E-3f, kSinP2 = -1.6666654611E-1f;
constexpr float kCosP0 = 2.443315711809948E-005f, kCosP1 = -1.388731625493765E-003f,
                kCosP2 = 4.166664568298827E-002f;
constexpr float kTwoPi = float(2.0 * 3.14159265358979323846);

// ---- one lane at a time ----------------------------------------------------------------------
float bits_to_float(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t float_bits(float f) { return std::bit_cast<uint32_t>(f); }

float cephes_log(float x) {
  const bool invalid = x <= 0.0f;
  x = x > kMinNormPos ? x : kMinNormPos;  // cut off denormals
  const int32_t exponent = int32_t(float_bits(x) >> 23) - 0x7f;
  x = bits_to_float((float_bits(x) & ~0x7f800000u) | float_bits(0.5f));  // mantissa in [0.5, 1)
  float e = float(exponent) + 1.0f;
  const bool below = x < kSqrtHalf;  // x < sqrt(1/2): x = 2x - 1, e -= 1
  const float extra = below ? x : 0.0f;
  x = x + -1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + extra;
  const float z = x * x;
  float y = kLogP[0];
  for (int i = 1; i < 9; ++i) y = std::fma(y, x, kLogP[i]);
  y = std::fma(x * y, z, e * kLogQ1);
  y = std::fma(-z, 0.5f, y);
  x = x + y;
  x = std::fma(e, kLogQ2, x);
  return invalid ? bits_to_float(0xffffffffu) : x;
}

void cephes_sincos(float v, float* s, float* c) {
  uint32_t sign_sin = float_bits(v) & 0x80000000u;
  float x = bits_to_float(float_bits(v) & 0x7fffffffu);
  int32_t j = int32_t(x * kFourOverPi);  // the octant, truncated, rounded up to even
  j = (j + 1) & ~1;
  const float y = float(j);
  const uint32_t swap_sin = uint32_t(j & 4) << 29;
  const bool sin_poly_is_second = (j & 2) == 0;
  x = std::fma(y, kMinusDP1, x);  // x - y * pi/4 in three parts
  x = std::fma(y, kMinusDP2, x);
  x = std::fma(y, kMinusDP3, x);
  const uint32_t sign_cos = uint32_t(~(j - 2) & 4) << 29;
  sign_sin ^= swap_sin;
  const float z = x * x;
  float yc = std::fma(kCosP0, z, kCosP1);
  yc = std::fma(yc, z, kCosP2);
  yc = std::fma(z, z * yc, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = std::fma(kSinP0, z, kSinP1);
  ys = std::fma(ys, z, kSinP2);
  ys = std::fma(x, z * ys, x);
  // The vector code selects by masking and adding, which turns -0 into +0: kept.
  const float sin_part2 = sin_poly_is_second ? ys : 0.0f, sin_part1 = sin_poly_is_second ? 0.0f : yc;
  *s = bits_to_float(float_bits(sin_part1 + sin_part2) ^ sign_sin);
  *c = bits_to_float(float_bits((yc - sin_part1) + (ys - sin_part2)) ^ sign_cos);
}

[[maybe_unused]] void fill16_lanes(float* data, float mean, float std) {
  float n1[8], n2[8];
  for (int j = 0; j < 8; ++j) {
    const float radius = std::sqrt(-2.0f * cephes_log(1.0f - data[j]));
    float s, c;
    cephes_sincos(kTwoPi * data[j + 8], &s, &c);
    n1[j] = radius * c;
    n2[j] = radius * s;
  }
  for (int j = 0; j < 8; ++j) {
    data[j] = std::fma(n1[j], std, mean);
    data[j + 8] = std::fma(n2[j], std, mean);
  }
}

#if defined(__AVX2__) && defined(__FMA__)
// ---- eight lanes at once (the same steps) ------------------------------------------------------
__m256 set(float v) { return _mm256_set1_ps(v); }
__m256i seti(int32_t v) { return _mm256_set1_epi32(v); }

__m256 log8(__m256 x) {
  const __m256 one = set(1.0f);
  const __m256 invalid = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LE_OS);
  x = _mm256_max_ps(x, set(kMinNormPos));
  __m256i exponent = _mm256_srli_epi32(_mm256_castps_si256(x), 23);
  x = _mm256_and_ps(x, _mm256_castsi256_ps(seti(~0x7f800000)));
  x = _mm256_or_ps(x, set(0.5f));
  exponent = _mm256_sub_epi32(exponent, seti(0x7f));
  __m256 e = _mm256_add_ps(_mm256_cvtepi32_ps(exponent), one);
  const __m256 below = _mm256_cmp_ps(x, set(kSqrtHalf), _CMP_LT_OS);
  const __m256 extra = _mm256_and_ps(x, below);
  x = _mm256_sub_ps(x, one);
  e = _mm256_sub_ps(e, _mm256_and_ps(one, below));
  x = _mm256_add_ps(x, extra);
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 y = set(kLogP[0]);
  for (int i = 1; i < 9; ++i) y = _mm256_fmadd_ps(y, x, set(kLogP[i]));
  y = _mm256_fmadd_ps(_mm256_mul_ps(x, y), z, _mm256_mul_ps(e, set(kLogQ1)));
  y = _mm256_fnmadd_ps(z, set(0.5f), y);
  x = _mm256_add_ps(x, y);
  x = _mm256_fmadd_ps(e, set(kLogQ2), x);
  return _mm256_or_ps(x, invalid);
}

void sincos8(__m256 v, __m256* s, __m256* c) {
  const __m256 sign_mask = _mm256_castsi256_ps(seti(int32_t(0x80000000u)));
  __m256 sign_sin = _mm256_and_ps(v, sign_mask);
  __m256 x = _mm256_andnot_ps(sign_mask, v);
  __m256i j = _mm256_cvttps_epi32(_mm256_mul_ps(x, set(kFourOverPi)));
  j = _mm256_and_si256(_mm256_add_epi32(j, seti(1)), seti(~1));
  const __m256 y = _mm256_cvtepi32_ps(j);
  const __m256 swap_sin = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(j, seti(4)), 29));
  const __m256 second = _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_and_si256(j, seti(2)), seti(0)));
  x = _mm256_fmadd_ps(y, set(kMinusDP1), x);
  x = _mm256_fmadd_ps(y, set(kMinusDP2), x);
  x = _mm256_fmadd_ps(y, set(kMinusDP3), x);
  const __m256 sign_cos =
      _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_andnot_si256(_mm256_sub_epi32(j, seti(2)), seti(4)), 29));
  sign_sin = _mm256_xor_ps(sign_sin, swap_sin);
  const __m256 z = _mm256_mul_ps(x, x);
  __m256 yc = _mm256_fmadd_ps(set(kCosP0), z, set(kCosP1));
  yc = _mm256_fmadd_ps(yc, z, set(kCosP2));
  yc = _mm256_fmsub_ps(z, _mm256_mul_ps(z, yc), _mm256_mul_ps(z, set(0.5f)));
  yc = _mm256_add_ps(yc, set(1.0f));
  __m256 ys = _mm256_fmadd_ps(set(kSinP0), z, set(kSinP1));
  ys = _mm256_fmadd_ps(ys, z, set(kSinP2));
  ys = _mm256_fmadd_ps(x, _mm256_mul_ps(z, ys), x);
  const __m256 sin_part2 = _mm256_and_ps(second, ys), sin_part1 = _mm256_andnot_ps(second, yc);
  *s = _mm256_xor_ps(_mm256_add_ps(sin_part1, sin_part2), sign_sin);
  *c = _mm256_xor_ps(_mm256_add_ps(_mm256_sub_ps(yc, sin_part1), _mm256_sub_ps(ys, sin_part2)), sign_cos);
}

void fill16(float* data, float mean, float std) {
  const __m256 u1 = _mm256_sub_ps(set(1.0f), _mm256_loadu_ps(data));
  const __m256 u2 = _mm256_loadu_ps(data + 8);
  const __m256 radius = _mm256_sqrt_ps(_mm256_mul_ps(set(-2.0f), log8(u1)));
  __m256 s, c;
  sincos8(_mm256_mul_ps(set(kTwoPi), u2), &s, &c);
  _mm256_storeu_ps(data, _mm256_fmadd_ps(_mm256_mul_ps(radius, c), set(std), set(mean)));
  _mm256_storeu_ps(data + 8, _mm256_fmadd_ps(_mm256_mul_ps(radius, s), set(std), set(mean)));
}
#else
void fill16(float* data, float mean, float std) { fill16_lanes(data, mean, std); }
#endif

// Transforms `blocks` consecutive blocks of 16 uniforms in place.
void normal_fill16_avx2_kernel(float* data, int64_t blocks, float mean, float std) {
  for (int64_t b = 0; b < blocks; ++b) fill16(data + 16 * b, mean, std);
}

const KernelRegistrar<sampling::NormalFill16Fn> r_normal_fill16("normal_fill16_avx2", kCPU, kCap,
                                                               &normal_fill16_avx2_kernel);

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
