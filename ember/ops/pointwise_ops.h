// The pointwise ops' math: one functor per row of the op table (ember/ops/pointwise_table.h).
// Note [Op definitions]: a functor F<T> is built from the op's PointwiseArgs and called on
// compute-type values (T = float for Half/BFloat16, Complex<float> for complex32).
#pragma once
#include <tuple>
#include <utility>

#include "ember/ops/math.h"
#include "ember/ops/pointwise_table.h"
#include "ember/ops/special_math.h"

namespace ember {

#define EMBER_PW_FUNCTOR_ARGS(F) \
  explicit F(const PointwiseArgs&) {}

// ---- unary ------------------------------------------------------------------------
#define EMBER_SIMPLE_UNARY(F, expr)                            \
  template <class T> struct F {                                \
    EMBER_PW_FUNCTOR_ARGS(F)                                   \
    EMBER_HD auto operator()(T x) const { return expr; }       \
  };
namespace fn {
using std::exp; using std::log; using std::sqrt; using std::sin; using std::cos; using std::tan;
using std::asin; using std::acos; using std::atan; using std::sinh; using std::cosh; using std::tanh;
using std::asinh; using std::acosh; using std::atanh; using std::log10; using std::abs;
using ember::exp; using ember::log; using ember::sqrt; using ember::sin; using ember::cos; using ember::tan;
using ember::asin; using ember::acos; using ember::atan; using ember::sinh; using ember::cosh; using ember::tanh;
using ember::asinh; using ember::acosh; using ember::atanh; using ember::log10; using ember::abs;

EMBER_SIMPLE_UNARY(Neg, T(-x))
EMBER_SIMPLE_UNARY(Abs, abs(x))
EMBER_SIMPLE_UNARY(Sign, math::sign(x))
template <class T> struct Sgn {
  EMBER_PW_FUNCTOR_ARGS(Sgn)
  EMBER_HD T operator()(T x) const {
    if constexpr (is_complex_v<T>) {
      auto a = abs(x);
      return a == 0 ? T(0) : T(x.real() / a, x.imag() / a);
    } else {
      return math::sign(x);
    }
  }
};
EMBER_SIMPLE_UNARY(Exp, exp(x))
template <class T> struct Exp2 {
  EMBER_PW_FUNCTOR_ARGS(Exp2)
  EMBER_HD T operator()(T x) const {
    if constexpr (is_complex_v<T>) return exp(x * T(0.69314718055994530942));
    else return std::exp2(x);
  }
};
template <class T> struct Expm1 {
  EMBER_PW_FUNCTOR_ARGS(Expm1)
  EMBER_HD T operator()(T x) const {
    if constexpr (is_complex_v<T>) return exp(x) - T(1);
    else return std::expm1(x);
  }
};
EMBER_SIMPLE_UNARY(Log, log(x))
template <class T> struct Log2 {
  EMBER_PW_FUNCTOR_ARGS(Log2)
  EMBER_HD T operator()(T x) const {
    if constexpr (is_complex_v<T>) return log(x) / T(0.69314718055994530942);
    else return std::log2(x);
  }
};
EMBER_SIMPLE_UNARY(Log10, log10(x))
template <class T> struct Log1p {
  EMBER_PW_FUNCTOR_ARGS(Log1p)
  EMBER_HD T operator()(T x) const {
    if constexpr (is_complex_v<T>) return log(x + T(1));
    else return std::log1p(x);
  }
};
EMBER_SIMPLE_UNARY(Sqrt, sqrt(x))
EMBER_SIMPLE_UNARY(Rsqrt, T(1) / sqrt(x))
EMBER_SIMPLE_UNARY(Sin, sin(x))
EMBER_SIMPLE_UNARY(Cos, cos(x))
EMBER_SIMPLE_UNARY(Tan, tan(x))
EMBER_SIMPLE_UNARY(Asin, asin(x))
EMBER_SIMPLE_UNARY(Acos, acos(x))
EMBER_SIMPLE_UNARY(Atan, atan(x))
EMBER_SIMPLE_UNARY(Sinh, sinh(x))
EMBER_SIMPLE_UNARY(Cosh, cosh(x))
EMBER_SIMPLE_UNARY(Tanh, tanh(x))
EMBER_SIMPLE_UNARY(Asinh, asinh(x))
EMBER_SIMPLE_UNARY(Acosh, acosh(x))
EMBER_SIMPLE_UNARY(Atanh, atanh(x))
EMBER_SIMPLE_UNARY(Sigmoid, math::sigmoid(x))
EMBER_SIMPLE_UNARY(Erf, std::erf(x))
EMBER_SIMPLE_UNARY(Erfc, std::erfc(x))
EMBER_SIMPLE_UNARY(Erfinv, math::erfinv(x))
EMBER_SIMPLE_UNARY(Lgamma, std::lgamma(x))
EMBER_SIMPLE_UNARY(Digamma, math::digamma(x))
EMBER_SIMPLE_UNARY(I0, math::i0(x))
EMBER_SIMPLE_UNARY(Reciprocal, T(1) / x)
template <class T> struct Floor {
  EMBER_PW_FUNCTOR_ARGS(Floor)
  EMBER_HD T operator()(T x) const { if constexpr (math::is_float_v<T>) return std::floor(x); else return x; }
};
template <class T> struct Ceil {
  EMBER_PW_FUNCTOR_ARGS(Ceil)
  EMBER_HD T operator()(T x) const { if constexpr (math::is_float_v<T>) return std::ceil(x); else return x; }
};
template <class T> struct Trunc {
  EMBER_PW_FUNCTOR_ARGS(Trunc)
  EMBER_HD T operator()(T x) const { if constexpr (math::is_float_v<T>) return std::trunc(x); else return x; }
};
EMBER_SIMPLE_UNARY(Frac, x - std::trunc(x))
template <class T> struct Relu {
  EMBER_PW_FUNCTOR_ARGS(Relu)
  EMBER_HD T operator()(T x) const {
    if constexpr (math::is_float_v<T>) return std::isnan(x) ? x : (x > T(0) ? x : T(0));
    else return x > T(0) ? x : T(0);
  }
};
EMBER_SIMPLE_UNARY(Square, T(x * x))
template <class T> struct LogicalNot {
  EMBER_PW_FUNCTOR_ARGS(LogicalNot)
  EMBER_HD bool operator()(T x) const { if constexpr (is_complex_v<T>) return x == T(0); else return !x; }
};
template <class T> struct BitwiseNot {
  EMBER_PW_FUNCTOR_ARGS(BitwiseNot)
  EMBER_HD T operator()(T x) const { if constexpr (std::is_same_v<T, bool>) return !x; else return T(~x); }
};
template <class T> struct Sinc {
  EMBER_PW_FUNCTOR_ARGS(Sinc)
  EMBER_HD T operator()(T x) const {
    if (x == T(0)) return T(1);
    T px = x * T(3.14159265358979323846);
    return sin(px) / px;
  }
};
EMBER_SIMPLE_UNARY(Deg2rad, x * T(3.14159265358979323846 / 180.0))
EMBER_SIMPLE_UNARY(Rad2deg, x * T(180.0 / 3.14159265358979323846))
template <class T> struct IsNan {
  EMBER_PW_FUNCTOR_ARGS(IsNan)
  EMBER_HD bool operator()(T x) const {
    if constexpr (is_complex_v<T>) return std::isnan(x.real()) || std::isnan(x.imag());
    else if constexpr (math::is_float_v<T>) return std::isnan(x);
    else return false;
  }
};
template <class T> struct IsInf {
  EMBER_PW_FUNCTOR_ARGS(IsInf)
  EMBER_HD bool operator()(T x) const {
    if constexpr (is_complex_v<T>) return std::isinf(x.real()) || std::isinf(x.imag());
    else if constexpr (math::is_float_v<T>) return std::isinf(x);
    else return false;
  }
};
template <class T> struct IsPosInf {
  EMBER_PW_FUNCTOR_ARGS(IsPosInf)
  EMBER_HD bool operator()(T x) const {
    if constexpr (math::is_float_v<T>) return x == std::numeric_limits<T>::infinity(); else return false;
  }
};
template <class T> struct IsNegInf {
  EMBER_PW_FUNCTOR_ARGS(IsNegInf)
  EMBER_HD bool operator()(T x) const {
    if constexpr (math::is_float_v<T>) return x == -std::numeric_limits<T>::infinity(); else return false;
  }
};
template <class T> struct IsFinite {
  EMBER_PW_FUNCTOR_ARGS(IsFinite)
  EMBER_HD bool operator()(T x) const {
    if constexpr (is_complex_v<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
    else if constexpr (math::is_float_v<T>) return std::isfinite(x);
    else return true;
  }
};
template <class T> struct SignBit {
  EMBER_PW_FUNCTOR_ARGS(SignBit)
  EMBER_HD bool operator()(T x) const {
    if constexpr (math::is_float_v<T>) return std::copysign(T(1), x) < T(0);  // (std::signbit ICEs GCC 12 when vectorized)
    else if constexpr (std::is_signed_v<T>) return x < 0;
    else return false;
  }
};
template <class T> struct Angle {
  EMBER_PW_FUNCTOR_ARGS(Angle)
  EMBER_HD auto operator()(T x) const {
    if constexpr (is_complex_v<T>) return arg(x);
    else return std::isnan(x) ? x : (x < T(0) ? T(3.14159265358979323846) : T(0));
  }
};
template <class T> struct Conj {
  EMBER_PW_FUNCTOR_ARGS(Conj)
  EMBER_HD T operator()(T x) const { if constexpr (is_complex_v<T>) return conj(x); else return x; }
};
template <class T> struct Silu {
  EMBER_PW_FUNCTOR_ARGS(Silu)
  EMBER_HD T operator()(T x) const { return x / (T(1) + exp(-x)); }
};
template <class T> struct Mish {
  EMBER_PW_FUNCTOR_ARGS(Mish)
  EMBER_HD T operator()(T x) const { return x * std::tanh(std::log1p(std::exp(x))); }
};
template <class T> struct Hardsigmoid {
  EMBER_PW_FUNCTOR_ARGS(Hardsigmoid)
  EMBER_HD T operator()(T x) const { return std::min(std::max(x + T(3), T(0)), T(6)) / T(6); }
};
template <class T> struct Hardswish {
  EMBER_PW_FUNCTOR_ARGS(Hardswish)
  EMBER_HD T operator()(T x) const { return x * std::min(std::max(x + T(3), T(0)), T(6)) / T(6); }
};
template <class T> struct Selu {
  EMBER_PW_FUNCTOR_ARGS(Selu)
  EMBER_HD T operator()(T x) const {
    const T alpha = T(1.6732632423543772848170429916717), scale = T(1.0507009873554804934193349852946);
    return x > T(0) ? scale * x : scale * alpha * std::expm1(x);
  }
};

// ---- unary with scalar arguments ----------------------------------------------------
template <class T> struct Round {  // args: decimals
  int64_t decimals;
  explicit Round(const PointwiseArgs& a) : decimals(a.n ? a.s[0].toLong() : 0) {}
  EMBER_HD T operator()(T x) const {
    if constexpr (math::is_float_v<T>) {
      if (decimals == 0) return std::nearbyint(x);
      bool neg = decimals < 0;
      T ten = T(10), f = std::pow(ten, T(neg ? -decimals : decimals));
      return neg ? std::nearbyint(x / f) * f : std::nearbyint(x * f) / f;
    } else {
      return x;
    }
  }
};
template <class T> struct NanToNum {  // args: nan, posinf, neginf
  T nan, posinf, neginf;
  explicit NanToNum(const PointwiseArgs& a)
      : nan(T(a.s[0].toDouble())), posinf(T(a.s[1].toDouble())), neginf(T(a.s[2].toDouble())) {}
  EMBER_HD T operator()(T x) const {
    if constexpr (math::is_float_v<T>) {
      return std::isnan(x) ? nan : x == std::numeric_limits<T>::infinity() ? posinf
             : x == -std::numeric_limits<T>::infinity() ? neginf : x;
    } else {
      return x;
    }
  }
};
template <class T> struct Logit {  // args: eps (< 0 means none)
  T eps;
  explicit Logit(const PointwiseArgs& a) : eps(T(a.s[0].toDouble())) {}
  EMBER_HD T operator()(T x) const {
    if (eps >= T(0)) x = x < eps ? eps : (x > T(1) - eps ? T(1) - eps : x);
    return std::log(x / (T(1) - x));
  }
};
template <class T> struct Gelu {  // args: approximate (0 none, 1 tanh)
  bool tanh_approx;
  explicit Gelu(const PointwiseArgs& a) : tanh_approx(a.s[0].toLong() == 1) {}
  EMBER_HD T operator()(T x) const {
    if (tanh_approx) {
      const T k = T(0.7978845608028654), c = T(0.044715);
      return T(0.5) * x * (T(1) + std::tanh(k * (x + c * x * x * x)));
    }
    return x * T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
  }
};
template <class T> struct Softplus {  // args: beta, threshold
  T beta, threshold;
  explicit Softplus(const PointwiseArgs& a) : beta(T(a.s[0].toDouble())), threshold(T(a.s[1].toDouble())) {}
  EMBER_HD T operator()(T x) const {
    return x * beta > threshold ? x : std::log1p(std::exp(x * beta)) / beta;
  }
};
template <class T> struct Hardtanh {  // args: min, max
  T lo, hi;
  explicit Hardtanh(const PointwiseArgs& a) : lo(math::arg_value<T>(a.s[0])), hi(math::arg_value<T>(a.s[1])) {}
  EMBER_HD T operator()(T x) const {
    if constexpr (math::is_float_v<T>) if (std::isnan(x)) return x;
    return x < lo ? lo : (x > hi ? hi : x);
  }
};
template <class T> struct LeakyRelu {  // args: negative_slope
  T slope;
  explicit LeakyRelu(const PointwiseArgs& a) : slope(T(a.s[0].toDouble())) {}
  EMBER_HD T operator()(T x) const { return x > T(0) ? x : x * slope; }
};
template <class T> struct Elu {  // args: alpha, scale, input_scale
  T alpha, scale, input_scale;
  explicit Elu(const PointwiseArgs& a)
      : alpha(T(a.s[0].toDouble())), scale(T(a.s[1].toDouble())), input_scale(T(a.s[2].toDouble())) {}
  EMBER_HD T operator()(T x) const {
    return x > T(0) ? x * scale : alpha * scale * std::expm1(x * input_scale);
  }
};
template <class T> struct Softshrink {  // args: lambda
  T l;
  explicit Softshrink(const PointwiseArgs& a) : l(T(a.s[0].toDouble())) {}
  EMBER_HD T operator()(T x) const { return x > l ? x - l : (x < -l ? x + l : T(0)); }
};
template <class T> struct Hardshrink {  // args: lambda
  T l;
  explicit Hardshrink(const PointwiseArgs& a) : l(T(a.s[0].toDouble())) {}
  EMBER_HD T operator()(T x) const { return (x >= -l && x <= l) ? T(0) : x; }
};
template <class T> struct Threshold {  // args: threshold, value
  T th, value;
  explicit Threshold(const PointwiseArgs& a) : th(math::arg_value<T>(a.s[0])), value(math::arg_value<T>(a.s[1])) {}
  EMBER_HD T operator()(T x) const { return x <= th ? value : x; }
};
template <class T> struct ClampScalar {  // args: min, max, has_min (bool), has_max (bool)
  T lo, hi;
  bool has_lo, has_hi;
  explicit ClampScalar(const PointwiseArgs& a)
      : lo(math::arg_value<T>(a.s[0])), hi(math::arg_value<T>(a.s[1])), has_lo(a.s[2].toBool()), has_hi(a.s[3].toBool()) {}
  EMBER_HD T operator()(T x) const {
    if constexpr (math::is_float_v<T>) if (std::isnan(x)) return x;
    if (has_lo && x < lo) x = lo;
    if (has_hi && x > hi) x = hi;
    return x;
  }
};
// torch::special's functions (ember/ops/special_math.h), on float and double.
EMBER_SIMPLE_UNARY(BesselJ0, math::bessel_j0(x))
EMBER_SIMPLE_UNARY(BesselJ1, math::bessel_j1(x))
EMBER_SIMPLE_UNARY(BesselY0, math::bessel_y0(x))
EMBER_SIMPLE_UNARY(BesselY1, math::bessel_y1(x))
EMBER_SIMPLE_UNARY(ModifiedBesselI0, math::modified_bessel_i0(x))
EMBER_SIMPLE_UNARY(ModifiedBesselI1, math::modified_bessel_i1(x))
EMBER_SIMPLE_UNARY(ModifiedBesselK0, math::modified_bessel_k0(x))
EMBER_SIMPLE_UNARY(ModifiedBesselK1, math::modified_bessel_k1(x))
EMBER_SIMPLE_UNARY(ScaledModifiedBesselK0, math::scaled_modified_bessel_k0(x))
EMBER_SIMPLE_UNARY(ScaledModifiedBesselK1, math::scaled_modified_bessel_k1(x))
EMBER_SIMPLE_UNARY(I0e, math::i0e(x))
EMBER_SIMPLE_UNARY(I1, math::i1(x))
EMBER_SIMPLE_UNARY(I1e, math::i1e(x))
EMBER_SIMPLE_UNARY(AiryAi, math::airy_ai(x))
EMBER_SIMPLE_UNARY(SphericalBesselJ0, math::spherical_bessel_j0(x))
EMBER_SIMPLE_UNARY(Erfcx, math::erfcx(x))
EMBER_SIMPLE_UNARY(LogNdtr, math::log_ndtr(x))
EMBER_SIMPLE_UNARY(Ndtri, math::ndtri(x))
template <class T> struct Entr {  // -x log(x); 0 at 0, -inf below
  EMBER_PW_FUNCTOR_ARGS(Entr)
  EMBER_HD T operator()(T x) const {
    if (x > T(0)) return -x * std::log(x);
    if (x == T(0)) return T(0);
    return x < T(0) ? -std::numeric_limits<T>::infinity() : x;  // NaN stays NaN
  }
};
template <class T> struct Polygamma {  // args: n (>= 0, checked by polygamma())
  long long n;
  explicit Polygamma(const PointwiseArgs& a) : n(a.s[0].toLong()) {}
  EMBER_HD T operator()(T x) const { return math::polygamma(n, x); }
};
}  // namespace fn

// ---- binary -----------------------------------------------------------------------
namespace fn {
template <class T> struct Add {  // args: alpha
  T alpha;
  explicit Add(const PointwiseArgs& a) : alpha(math::arg_value<T>(a.s[0])) {}
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a || (alpha && b);
    else return T(a + alpha * b);
  }
};
template <class T> struct Sub {  // args: alpha
  T alpha;
  explicit Sub(const PointwiseArgs& a) : alpha(math::arg_value<T>(a.s[0])) {}
  EMBER_HD T operator()(T a, T b) const { return T(a - alpha * b); }
};
template <class T> struct Mul {
  EMBER_PW_FUNCTOR_ARGS(Mul)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) return a && b;
    else return T(a * b);
  }
};
template <class T> struct Div {
  EMBER_PW_FUNCTOR_ARGS(Div)
  EMBER_HD T operator()(T a, T b) const { return a / b; }
};
template <class T> struct DivTrunc {
  EMBER_PW_FUNCTOR_ARGS(DivTrunc)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (math::is_float_v<T>) return std::trunc(a / b);
    else return T(a / b);
  }
};
template <class T> struct DivFloor {
  EMBER_PW_FUNCTOR_ARGS(DivFloor)
  EMBER_HD T operator()(T a, T b) const { return math::floor_div(a, b); }
};
template <class T> struct Remainder {
  EMBER_PW_FUNCTOR_ARGS(Remainder)
  EMBER_HD T operator()(T a, T b) const { return math::python_mod(a, b); }
};
template <class T> struct Fmod {
  EMBER_PW_FUNCTOR_ARGS(Fmod)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (math::is_float_v<T>) return std::fmod(a, b);
    else return T(a % b);
  }
};
template <class T> struct Pow {
  EMBER_PW_FUNCTOR_ARGS(Pow)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (is_complex_v<T>) return pow(a, b);
    else if constexpr (math::is_float_v<T>) return std::pow(a, b);
    else return math::int_pow(a, b);
  }
};
template <class T> struct Atan2 {
  EMBER_PW_FUNCTOR_ARGS(Atan2)
  EMBER_HD T operator()(T a, T b) const { return std::atan2(a, b); }
};
template <class T> struct Hypot {
  EMBER_PW_FUNCTOR_ARGS(Hypot)
  EMBER_HD T operator()(T a, T b) const { return std::hypot(a, b); }
};
template <class T> struct Copysign {
  EMBER_PW_FUNCTOR_ARGS(Copysign)
  EMBER_HD T operator()(T a, T b) const { return std::copysign(a, b); }
};
template <class T> struct Nextafter {
  EMBER_PW_FUNCTOR_ARGS(Nextafter)
  EMBER_HD T operator()(T a, T b) const { return std::nextafter(a, b); }
};
template <class T> struct Xlogy {
  EMBER_PW_FUNCTOR_ARGS(Xlogy)
  EMBER_HD T operator()(T a, T b) const {
    if (std::isnan(b)) return b;
    if (a == T(0)) return T(0);
    return a * std::log(b);
  }
};
template <class T> struct Maximum {
  EMBER_PW_FUNCTOR_ARGS(Maximum)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (math::is_float_v<T>) if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
    return a > b ? a : b;
  }
};
template <class T> struct Minimum {
  EMBER_PW_FUNCTOR_ARGS(Minimum)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (math::is_float_v<T>) if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
    return a < b ? a : b;
  }
};
template <class T> struct Fmax {
  EMBER_PW_FUNCTOR_ARGS(Fmax)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (math::is_float_v<T>) return std::fmax(a, b); else return a > b ? a : b;
  }
};
template <class T> struct Fmin {
  EMBER_PW_FUNCTOR_ARGS(Fmin)
  EMBER_HD T operator()(T a, T b) const {
    if constexpr (math::is_float_v<T>) return std::fmin(a, b); else return a < b ? a : b;
  }
};
#define EMBER_CMP_FUNCTOR(F, op)                                   \
  template <class T> struct F {                                    \
    EMBER_PW_FUNCTOR_ARGS(F)                                       \
    EMBER_HD bool operator()(T a, T b) const { return a op b; }    \
  };
EMBER_CMP_FUNCTOR(Eq, ==) EMBER_CMP_FUNCTOR(Ne, !=) EMBER_CMP_FUNCTOR(Lt, <)
EMBER_CMP_FUNCTOR(Le, <=) EMBER_CMP_FUNCTOR(Gt, >) EMBER_CMP_FUNCTOR(Ge, >=)
#undef EMBER_CMP_FUNCTOR
template <class T> EMBER_HD bool truthy(T v) {
  if constexpr (is_complex_v<T>) return v != T(0); else return v != T(0);
}
template <class T> struct LogicalAnd {
  EMBER_PW_FUNCTOR_ARGS(LogicalAnd)
  EMBER_HD bool operator()(T a, T b) const { return truthy(a) && truthy(b); }
};
template <class T> struct LogicalOr {
  EMBER_PW_FUNCTOR_ARGS(LogicalOr)
  EMBER_HD bool operator()(T a, T b) const { return truthy(a) || truthy(b); }
};
template <class T> struct LogicalXor {
  EMBER_PW_FUNCTOR_ARGS(LogicalXor)
  EMBER_HD bool operator()(T a, T b) const { return truthy(a) != truthy(b); }
};
template <class T> struct BitwiseAnd {
  EMBER_PW_FUNCTOR_ARGS(BitwiseAnd)
  EMBER_HD T operator()(T a, T b) const { return T(a & b); }
};
template <class T> struct BitwiseOr {
  EMBER_PW_FUNCTOR_ARGS(BitwiseOr)
  EMBER_HD T operator()(T a, T b) const { return T(a | b); }
};
template <class T> struct BitwiseXor {
  EMBER_PW_FUNCTOR_ARGS(BitwiseXor)
  EMBER_HD T operator()(T a, T b) const { return T(a ^ b); }
};
// Shifts by >= the bit width give 0 (or -1 for negative right shifts), as PyTorch.
template <class T> struct LeftShift {
  EMBER_PW_FUNCTOR_ARGS(LeftShift)
  EMBER_HD T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    if (b < 0 || b >= T(sizeof(T) * 8)) return 0;
    return T(U(a) << b);
  }
};
template <class T> struct RightShift {
  EMBER_PW_FUNCTOR_ARGS(RightShift)
  EMBER_HD T operator()(T a, T b) const {
    if (b < 0 || b >= T(sizeof(T) * 8)) return std::is_signed_v<T> && a < 0 ? T(-1) : T(0);
    return T(a >> b);
  }
};
// ---- ternary ----
template <class T> struct LerpScalar {  // args: weight
  T w;
  explicit LerpScalar(const PointwiseArgs& a) : w(math::arg_value<T>(a.s[0])) {}
  EMBER_HD T operator()(T a, T b) const {
    return abs(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (T(1) - w);
  }
};
template <class T> struct LerpTensor {
  EMBER_PW_FUNCTOR_ARGS(LerpTensor)
  EMBER_HD T operator()(T a, T b, T w) const {
    return abs(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (T(1) - w);
  }
};
template <class T> struct Addcmul {  // args: value
  T v;
  explicit Addcmul(const PointwiseArgs& a) : v(math::arg_value<T>(a.s[0])) {}
  EMBER_HD T operator()(T s, T a, T b) const { return T(s + v * a * b); }
};
template <class T> struct Addcdiv {  // args: value
  T v;
  explicit Addcdiv(const PointwiseArgs& a) : v(math::arg_value<T>(a.s[0])) {}
  EMBER_HD T operator()(T s, T a, T b) const { return T(s + v * (a / b)); }
};
template <class T> struct ClampTensor {  // x, lo, hi; args: has_lo, has_hi (a missing bound's input is ignored)
  bool has_lo, has_hi;
  explicit ClampTensor(const PointwiseArgs& a) : has_lo(a.s[0].toBool()), has_hi(a.s[1].toBool()) {}
  EMBER_HD T operator()(T x, T lo, T hi) const {
    if constexpr (math::is_float_v<T>) {
      if (std::isnan(x)) return x;
      if (has_lo && std::isnan(lo)) return lo;
      if (has_hi && std::isnan(hi)) return hi;
    }
    if (has_lo && x < lo) x = lo;  // min(max(x, lo), hi): hi wins when lo > hi
    if (has_hi && x > hi) x = hi;
    return x;
  }
};
// torch::special's functions of two arguments: orthogonal polynomials f(x, n) (n taken as a
// real number, as PyTorch takes it), the regularized incomplete gamma functions and zeta.
#define EMBER_SIMPLE_BINARY(F, expr)                        \
  template <class T> struct F {                             \
    EMBER_PW_FUNCTOR_ARGS(F)                                \
    EMBER_HD T operator()(T a, T b) const { return expr; }  \
  };
EMBER_SIMPLE_BINARY(ChebyshevT, math::chebyshev_polynomial_t(a, b))
EMBER_SIMPLE_BINARY(ChebyshevU, math::chebyshev_polynomial_u(a, b))
EMBER_SIMPLE_BINARY(ChebyshevV, math::chebyshev_polynomial_v(a, b))
EMBER_SIMPLE_BINARY(ChebyshevW, math::chebyshev_polynomial_w(a, b))
EMBER_SIMPLE_BINARY(ShiftedChebyshevT, math::shifted_chebyshev_polynomial_t(a, b))
EMBER_SIMPLE_BINARY(ShiftedChebyshevU, math::shifted_chebyshev_polynomial_u(a, b))
EMBER_SIMPLE_BINARY(ShiftedChebyshevV, math::shifted_chebyshev_polynomial_v(a, b))
EMBER_SIMPLE_BINARY(ShiftedChebyshevW, math::shifted_chebyshev_polynomial_w(a, b))
EMBER_SIMPLE_BINARY(HermiteH, math::hermite_polynomial_h(a, b))
EMBER_SIMPLE_BINARY(HermiteHe, math::hermite_polynomial_he(a, b))
EMBER_SIMPLE_BINARY(LaguerreL, math::laguerre_polynomial_l(a, b))
EMBER_SIMPLE_BINARY(LegendreP, math::legendre_polynomial_p(a, b))
EMBER_SIMPLE_BINARY(Igamma, math::gammainc(a, b))
EMBER_SIMPLE_BINARY(Igammac, math::gammaincc(a, b))
EMBER_SIMPLE_BINARY(Zeta, math::zeta(a, b))
#undef EMBER_SIMPLE_BINARY
}  // namespace fn

// The output storage type of functor F applied to inputs of storage types T... (the CPU and
// CUDA kernels of the table use it to instantiate their loops).
template <template <class> class F, class... T>
struct PwTypes {
  using First = std::tuple_element_t<0, std::tuple<T...>>;
  using R = decltype(std::declval<F<compute_t<First>>>()(std::declval<compute_t<T>>()...));
  using Out = std::conditional_t<std::is_same_v<R, bool>, bool,
              std::conditional_t<is_complex_v<First> && !is_complex_v<R>, real_t<First>, First>>;
};

}  // namespace ember
