// Half (IEEE binary16) and BFloat16 storage types. Both convert from float with
// round-to-nearest-even, keep inf and nan, and do their arithmetic in float.
// The conversions are branch-free so that loops over them vectorize.
#pragma once
#include <cstdint>
#include <cstring>
#include <iosfwd>
#include <limits>

#include "ember/core/macros.h"

namespace ember {

namespace detail {
EMBER_HD uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
EMBER_HD float f32_from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

EMBER_HD float bf16_to_f32(uint16_t b) { return f32_from_bits(uint32_t(b) << 16); }
EMBER_HD uint16_t f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  return (u & 0x7fffffffu) > 0x7f800000u ? uint16_t((u >> 16) | 0x40u) : uint16_t(rounded);
}

EMBER_HD float fp16_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  uint32_t normal = sign | ((exp + 112u) << 23) | (mant << 13);
  uint32_t infnan = sign | 0x7f800000u | (mant << 13);
  uint32_t sub = sign | f32_bits(float(mant) * 5.9604644775390625e-8f);
  return f32_from_bits(exp == 0x1f ? infnan : (exp == 0 ? sub : normal));
}
EMBER_HD uint16_t f32_to_fp16(float x) {
  uint32_t f = f32_bits(x);
  uint32_t sign = (f >> 16) & 0x8000u;
  f &= 0x7fffffffu;
  // |x| < 2^-14: adding 0.5 rounds to a multiple of 2^-24, the half subnormal step.
  uint32_t sub = f32_bits(f32_from_bits(f) + 0.5f) - 0x3f000000u;
  uint32_t normal = (f + 0xc8000fffu + ((f >> 13) & 1u)) >> 13;
  uint32_t r = f > 0x7f800000u ? 0x7e00u
             : f >= 0x477ff000u ? 0x7c00u
             : f < 0x38800000u ? sub : normal;
  return uint16_t(sign | r);
}
}  // namespace detail

struct alignas(2) Half {
  uint16_t x = 0;
  struct from_bits_t {};
  Half() = default;
  constexpr Half(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HD Half(float f) : x(detail::f32_to_fp16(f)) {}  // NOLINT: implicit like c10::Half
  EMBER_HD operator float() const { return detail::fp16_to_f32(x); }  // NOLINT
  static constexpr Half from_bits(uint16_t b) { return Half(b, from_bits_t{}); }
};

struct alignas(2) BFloat16 {
  uint16_t x = 0;
  struct from_bits_t {};
  BFloat16() = default;
  constexpr BFloat16(uint16_t bits, from_bits_t) : x(bits) {}
  EMBER_HD BFloat16(float f) : x(detail::f32_to_bf16(f)) {}  // NOLINT
  EMBER_HD operator float() const { return detail::bf16_to_f32(x); }  // NOLINT
  static constexpr BFloat16 from_bits(uint16_t b) { return BFloat16(b, from_bits_t{}); }
};

// Arithmetic on the storage types computes in float and rounds once.
#define EMBER_REDUCED_FLOAT_OPS(T)                                                   \
  EMBER_HD T operator+(T a, T b) { return T(float(a) + float(b)); }                  \
  EMBER_HD T operator-(T a, T b) { return T(float(a) - float(b)); }                  \
  EMBER_HD T operator*(T a, T b) { return T(float(a) * float(b)); }                  \
  EMBER_HD T operator/(T a, T b) { return T(float(a) / float(b)); }                  \
  EMBER_HD T operator-(T a) { return T(-float(a)); }                                 \
  EMBER_HD T& operator+=(T& a, T b) { return a = a + b; }                            \
  EMBER_HD T& operator-=(T& a, T b) { return a = a - b; }                            \
  EMBER_HD T& operator*=(T& a, T b) { return a = a * b; }                            \
  EMBER_HD T& operator/=(T& a, T b) { return a = a / b; }                            \
  EMBER_HD bool operator==(T a, T b) { return float(a) == float(b); }                \
  EMBER_HD bool operator!=(T a, T b) { return float(a) != float(b); }                \
  EMBER_HD bool operator<(T a, T b) { return float(a) < float(b); }                  \
  EMBER_HD bool operator>(T a, T b) { return float(a) > float(b); }                  \
  EMBER_HD bool operator<=(T a, T b) { return float(a) <= float(b); }                \
  EMBER_HD bool operator>=(T a, T b) { return float(a) >= float(b); }
EMBER_REDUCED_FLOAT_OPS(Half)
EMBER_REDUCED_FLOAT_OPS(BFloat16)
#undef EMBER_REDUCED_FLOAT_OPS

std::ostream& operator<<(std::ostream& os, Half h);
std::ostream& operator<<(std::ostream& os, BFloat16 h);

}  // namespace ember

namespace std {
template <>
class numeric_limits<ember::Half> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false,
                        has_infinity = true, has_quiet_NaN = true, has_signaling_NaN = true, is_iec559 = true,
                        is_bounded = true, is_modulo = false;
  static constexpr auto has_denorm = numeric_limits<float>::has_denorm;
  static constexpr auto has_denorm_loss = numeric_limits<float>::has_denorm_loss;
  static constexpr auto round_style = numeric_limits<float>::round_style;
  static constexpr auto traps = numeric_limits<float>::traps;
  static constexpr auto tinyness_before = numeric_limits<float>::tinyness_before;
  static constexpr int digits = 11, digits10 = 3, max_digits10 = 5, radix = 2;
  static constexpr int min_exponent = -13, min_exponent10 = -4, max_exponent = 16,
                       max_exponent10 = 4;
  static constexpr ember::Half round_error() { return ember::Half::from_bits(0x3800); }
  static constexpr ember::Half signaling_NaN() { return ember::Half::from_bits(0x7d00); }
  static constexpr ember::Half min() { return ember::Half::from_bits(0x0400); }
  static constexpr ember::Half lowest() { return ember::Half::from_bits(0xfbff); }
  static constexpr ember::Half max() { return ember::Half::from_bits(0x7bff); }
  static constexpr ember::Half epsilon() { return ember::Half::from_bits(0x1400); }
  static constexpr ember::Half infinity() { return ember::Half::from_bits(0x7c00); }
  static constexpr ember::Half quiet_NaN() { return ember::Half::from_bits(0x7e00); }
  static constexpr ember::Half denorm_min() { return ember::Half::from_bits(0x0001); }
};
template <>
class numeric_limits<ember::BFloat16> {
 public:
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false,
                        has_infinity = true, has_quiet_NaN = true, has_signaling_NaN = true, is_iec559 = true,
                        is_bounded = true, is_modulo = false;
  static constexpr auto has_denorm = numeric_limits<float>::has_denorm;
  static constexpr auto has_denorm_loss = numeric_limits<float>::has_denorm_loss;
  static constexpr auto round_style = numeric_limits<float>::round_style;
  static constexpr auto traps = numeric_limits<float>::traps;
  static constexpr auto tinyness_before = numeric_limits<float>::tinyness_before;
  static constexpr int digits = 8, digits10 = 2, max_digits10 = 4, radix = 2;
  static constexpr int min_exponent = -125, min_exponent10 = -37, max_exponent = 128,
                       max_exponent10 = 38;
  static constexpr ember::BFloat16 round_error() { return ember::BFloat16::from_bits(0x3f00); }
  static constexpr ember::BFloat16 signaling_NaN() { return ember::BFloat16::from_bits(0x7f80); }
  static constexpr ember::BFloat16 min() { return ember::BFloat16::from_bits(0x0080); }
  static constexpr ember::BFloat16 lowest() { return ember::BFloat16::from_bits(0xff7f); }
  static constexpr ember::BFloat16 max() { return ember::BFloat16::from_bits(0x7f7f); }
  static constexpr ember::BFloat16 epsilon() { return ember::BFloat16::from_bits(0x3c00); }
  static constexpr ember::BFloat16 infinity() { return ember::BFloat16::from_bits(0x7f80); }
  static constexpr ember::BFloat16 quiet_NaN() { return ember::BFloat16::from_bits(0x7fc0); }
  static constexpr ember::BFloat16 denorm_min() { return ember::BFloat16::from_bits(0x0001); }
};
}  // namespace std
