// PyTorch's CPU sampling transformations: how random bits become uniform, normal, exponential,
// Cauchy and geometric values, written so that ember's samplers produce PyTorch's values to
// the bit (Note [PyTorch's CPU stream], Note [Fused multiply-add in PyTorch's kernels]).
// Callers hold the generator's lock.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "ember/core/generator.h"
#include "ember/core/half.h"

namespace ember::sampling {

// Note [Fused multiply-add in PyTorch's kernels]
// Debian's PyTorch runs its CPU sampling kernels from the build for AVX2 (with FMA) when the
// processor has both, and GCC contracted `x * span + from` and Box-Muller's `r * cos(t) * std
// + mean` into fused multiply-adds there; on x86-64 without AVX2 the kernels round each step.
// On 64-bit Arm every CPU has FMA and GCC contracts by default, in PyTorch's kernels as in
// ember's: fused. ember chooses the same way at run time, so that values match to the bit on the
// machine they run on (checked against python3-torch by tests/ops/random_golden_test; on Arm
// against the values x86-64 with FMA gives).
bool fused_like_pytorch();

// The type PyTorch computes a dtype's samples in (at::dist_acctype).
template <class T> struct DistAcc { using type = float; };
template <> struct DistAcc<double> { using type = double; };
template <class T> using dist_acc_t = typename DistAcc<T>::type;

template <class T> constexpr int kDigits = std::numeric_limits<T>::digits;  // 24, 53, 11, 8

inline float madd(float a, float b, float c, bool fused) { return fused ? std::fma(a, b, c) : a * b + c; }
inline double madd(double a, double b, double c, bool fused) { return fused ? std::fma(a, b, c) : a * b + c; }

// at::uniform_real_distribution<T>(from, to): the dtype's mantissa width of random bits (one
// random64() for double, one random() otherwise), scaled into [from, to). `to - from` is
// rounded to T first, as PyTorch's operators on T do.
// uniform_from_bits is the transform alone, for samplers that draw a block of bits first.
template <class T>
dist_acc_t<T> uniform_from_bits(uint64_t bits, T from, T to, bool fused) {
  using Acc = dist_acc_t<T>;
  constexpr uint64_t kMask = (uint64_t(1) << kDigits<T>) - 1;
  constexpr Acc kScale = Acc(1) / Acc(uint64_t(1) << kDigits<T>);
  Acc x = Acc(bits & kMask) * kScale;
  const T span = T(to - from);
  return madd(x, Acc(span), Acc(from), fused);
}
template <class T>
dist_acc_t<T> uniform_real(GeneratorImpl& g, T from, T to, bool fused) {
  return uniform_from_bits<T>(std::is_same_v<T, double> ? g.random64() : g.random(), from, to, fused);
}

// A uniform double in [0, 1), the building block of the double-precision samplers.
inline double uniform01(GeneratorImpl& g) {
  return double(g.random64() & ((uint64_t(1) << 53) - 1)) * (1.0 / 9007199254740992.0);
}

// at::normal_distribution<double>: Box-Muller on two uniforms; the sine branch is kept in the
// generator and returned by the next call.
inline double normal_double(GeneratorImpl& g, double mean, double std, bool fused) {
  if (auto cached = g.next_double_normal_sample()) {
    g.set_next_double_normal_sample(std::nullopt);
    return madd(*cached, std, mean, fused);
  }
  const double u1 = uniform01(g), u2 = uniform01(g);
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * 3.14159265358979323846 * u1;
  g.set_next_double_normal_sample(r * std::sin(theta));
  return madd(r * std::cos(theta), std, mean, fused);
}

// at::exponential_distribution<double>: -1/lambda * log(1 - u).
inline double exponential(GeneratorImpl& g, double lambda) {
  const double u = uniform01(g);
  return -1.0 / lambda * std::log(1.0 - u);
}

// at::cauchy_distribution<double>: median + sigma * tan(pi * (u - 1/2)).
inline double cauchy(GeneratorImpl& g, double median, double sigma) {
  const double u = uniform01(g);
  return median + sigma * std::tan(3.14159265358979323846 * (u - 0.5));
}

// at::geometric_distribution<double>: ceil(log(u) / log(1 - p)).
inline double geometric(GeneratorImpl& g, double p) {
  const double u = uniform01(g);
  return std::ceil(std::log(u) / std::log(1.0 - p));
}

// PyTorch's 16-at-a-time Box-Muller (normal_fill): `data` holds 16 uniforms in [0, 1); the
// first 8 give radii, the last 8 angles; both halves become normal values. PyTorch's
// float path on AVX2 machines uses vector polynomials for log and sincos (avx_mathfun.h), which
// the CPU kernel "normal_fill16_avx2" reproduces (ember/ops/cpu/random_kernels.cpp) for
// `blocks` consecutive blocks; everything else uses the libm functions in T's arithmetic.
using NormalFill16Fn = void (*)(float* data, int64_t blocks, float mean, float std);
template <class T>
void normal_fill16(T* data, T mean, T std, bool fused) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;  // T's arithmetic
  for (int j = 0; j < 8; ++j) {
    const T u1 = T(C(1) - C(data[j]));
    const T u2 = data[j + 8];
    const T radius = T(std::sqrt(C(-2) * std::log(C(u1))));
    const T theta = T(2.0 * 3.14159265358979323846 * double(u2));  // 2.0f * pi<double> * u2
    data[j] = T(madd(C(radius) * std::cos(C(theta)), C(std), C(mean), fused));
    data[j + 8] = T(madd(C(radius) * std::sin(C(theta)), C(std), C(mean), fused));
  }
}

// BFloat16: c10's math functions and operators on BFloat16 round to BFloat16 after every step
// (BFloat16-math.h), so nothing fuses and every intermediate is a BFloat16.
template <>
inline void normal_fill16<BFloat16>(BFloat16* data, BFloat16 mean, BFloat16 std, bool /*fused*/) {
  using B = BFloat16;
  auto mul = [](B a, B b) { return B(float(a) * float(b)); };
  for (int j = 0; j < 8; ++j) {
    const B u1 = B(1.0f - float(data[j]));
    const B u2 = data[j + 8];
    const B radius = B(std::sqrt(float(mul(B(-2.0f), B(std::log(float(u1)))))));
    const B theta = B(float(2.0 * 3.14159265358979323846 * double(u2)));
    data[j] = B(float(mul(mul(radius, B(std::cos(float(theta)))), std)) + float(mean));
    data[j + 8] = B(float(mul(mul(radius, B(std::sin(float(theta)))), std)) + float(mean));
  }
}

}  // namespace ember::sampling
