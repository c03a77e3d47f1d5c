// Pointwise math, written once as functors on compute types (float, double, complex,
// integers, bool) and run by the CPU elementwise engine (and later by CUDA kernels).
// Each functor is constructed from the op's scalar arguments (PointwiseArgs).
#pragma once
#include <cmath>
#include <limits>
#include <type_traits>

#include "ember/core/pointwise_args.h"
#include "ember/core/scalar.h"
#include "ember/ops/dispatch.h"

namespace ember {

namespace math {

template <class T> constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T> constexpr bool is_float_v = std::is_floating_point_v<T>;

// Host only: functors read their arguments when constructed, before a kernel runs.
template <class T> inline T arg_value(const Scalar& s) {
  if constexpr (is_complex_v<T>) return T(s.toComplexDouble());
  else if constexpr (std::is_same_v<T, bool>) return s.toBool();
  else if constexpr (is_int_v<T>) return static_cast<T>(s.toLong());
  else return static_cast<T>(s.toDouble());
}

// ---- small helpers ----
template <class T> EMBER_HD T sigmoid(T x) { return T(1) / (T(1) + std::exp(-x)); }
template <class T> EMBER_HD Complex<T> sigmoid(Complex<T> x) { return Complex<T>(1) / (Complex<T>(1) + exp(-x)); }

// erfinv: Giles' single-precision approximation refined by two Newton steps.
template <class T> EMBER_HD T erfinv(T y) {
  if (y <= T(-1)) return y == T(-1) ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
  if (y >= T(1)) return y == T(1) ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::quiet_NaN();
  double w = -std::log((1.0 - double(y)) * (1.0 + double(y))), x;
  if (w < 5.0) {
    w -= 2.5;
    x = 2.81022636e-08;
    for (double c : {3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                     -0.00417768164, 0.246640727, 1.50140941})
      x = c + x * w;
  } else {
    w = std::sqrt(w) - 3.0;
    x = -0.000200214257;
    for (double c : {0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                     0.00943887047, 1.00167406, 2.83297682})
      x = c + x * w;
  }
  x *= double(y);
  const double k = 1.1283791670955126;  // 2/sqrt(pi)
  for (int i = 0; i < 2; ++i) x -= (std::erf(x) - double(y)) / (k * std::exp(-x * x));
  return T(x);
}

// digamma for x > 0: recurrence up to 10, then the asymptotic series.
EMBER_HD double digamma_positive(double xd) {
  double r = 0;
  while (xd < 10) { r -= 1 / xd; xd += 1; }
  double f = 1 / (xd * xd);
  double t = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132 + f * (691.0 / 32760))))));
  return r + std::log(xd) - 0.5 / xd + t;
}
template <class T> EMBER_HD T digamma(T x) {
  if (x == T(0)) return std::copysign(std::numeric_limits<T>::infinity(), -x);
  if (x < T(0)) {  // reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
    if (x == std::trunc(x)) return std::numeric_limits<T>::quiet_NaN();
    const double pi = 3.14159265358979323846;
    return T(digamma_positive(1.0 - double(x)) - pi / std::tan(pi * double(x)));
  }
  return T(digamma_positive(double(x)));
}

template <class T> EMBER_HD T i0(T x) {
  // Power series; converges for all x (terms (x/2)^2k / (k!)^2), good to double precision.
  double ax = std::abs(double(x));
  if (ax > 700) return std::numeric_limits<T>::infinity();
  if (ax > 30) {
    // asymptotic expansion
    double z = 1 / ax, s = 1, term = 1;
    for (int k = 1; k < 12; ++k) { term *= (2 * k - 1) * (2 * k - 1) * z / (8 * k); s += term; }
    return T(std::exp(ax) / std::sqrt(2 * 3.14159265358979323846 * ax) * s);
  }
  double q = ax * ax / 4, term = 1, s = 1;
  for (int k = 1; k < 500 && term > 1e-17 * s; ++k) { term *= q / (double(k) * k); s += term; }
  return T(s);
}

template <class T> EMBER_HD T sign(T x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else if constexpr (std::is_unsigned_v<T>) return T(x > 0);
  else if constexpr (is_float_v<T>) return T((T(0) < x) - (x < T(0)));  // sign(nan) = 0, as PyTorch
  else return T((T(0) < x) - (x < T(0)));
}

// Python-style modulo (result has the sign of the divisor).
template <class T> EMBER_HD T python_mod(T a, T b) {
  if constexpr (is_float_v<T>) {
    T m = std::fmod(a, b);
    if (m != T(0) && ((b < T(0)) != (m < T(0)))) m += b;
    return m;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a;
  } else {
    T m = a % b;
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
  }
}

template <class T> EMBER_HD T floor_div(T a, T b) {
  if constexpr (is_float_v<T>) {
    // matches Python/PyTorch: floor of the true quotient, computed stably
    if (b == T(0)) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    T fl;
    if (div != T(0)) {
      fl = std::floor(div);
      if (div - fl > T(0.5)) fl += T(1);
    } else {
      fl = std::copysign(T(0), a / b);
    }
    return fl;
  } else {
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  }
}

template <class T> EMBER_HD T int_pow(T base, T exp) {
  if constexpr (std::is_same_v<T, bool>) {
    return base || !exp;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (exp < 0) {
        if (base == 1) return 1;
        if (base == -1) return (exp & 1) ? -1 : 1;
        return 0;
      }
    }
    T r = 1;
    while (exp) {
      if (exp & 1) r = T(r * base);
      exp >>= 1;
      base = T(base * base);
    }
    return r;
  }
}

}  // namespace math
}  // namespace ember
