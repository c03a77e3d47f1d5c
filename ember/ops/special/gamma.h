// The gamma function family: digamma (Cephes), trigamma, the Hurwitz zeta and polygamma, as
// PyTorch (Note [Special functions follow PyTorch] in ember/ops/special_math.h).
#pragma once
#include <cmath>

#include "ember/core/macros.h"
#include "ember/ops/special/common.h"

namespace ember::math {
namespace special_detail {

// psi(x), Cephes' digamma as PyTorch's calc_digamma (math.h's digamma is a different algorithm).
template <class T> EMBER_HD T digamma_cephes(T x) {
  if (x == T(0)) return std::copysign(inf_v<T>(), -x);
  T reflection = T(0);
  bool reflect = false;
  if (x < T(0)) {
    if (x == std::trunc(x)) return nan_v<T>();
    // psi(x) = psi(1 - x) - pi / tan(pi x), with tan of the fractional part (double, as PyTorch).
    double whole;
    const double r = std::modf(double(x), &whole);
    reflection = T(kPi / std::tan(kPi * r));
    reflect = true;
    x = T(1) - x;
  }
  T result = T(0);
  while (x < T(10)) {
    result -= T(1) / x;
    x += T(1);
  }
  T psi;
  if (x == T(10)) {
    psi = result + T(2.25175258906672110764);  // psi(10)
  } else {
    static constexpr double kA[] = {
        8.333333333333333e-02, -2.1092796092796094e-02, 7.575757575757576e-03, -4.166666666666667e-03,
        3.968253968253968e-03, -8.333333333333333e-03, 8.333333333333333e-02,
    };
    T y = T(0);
    if (x < T(1.0e17)) {
      const T z = T(1) / (x * x);
      y = z * polevl(z, kA, 7);
    }
    psi = result + std::log(x) - (T(0.5) / x) - y;
  }
  return reflect ? psi - reflection : psi;
}

// psi'(x): reflection below 1/2, six steps of recurrence, then the asymptotic series.
template <class T> EMBER_HD T trigamma(T x) {
  T sign = T(1), result = T(0);
  if (x < T(0.5)) {
    sign = T(-1);
    const T s = std::sin(T(kPi) * x);
    result -= T(kPi) * T(kPi) / (s * s);
    x = T(1) - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += T(1) / (x * x);
    x += T(1);
  }
  const T ixx = T(1) / (x * x);
  result += (T(1) + T(1) / (T(2) * x) + ixx * (T(1) / T(6) - ixx * (T(1) / T(30) - ixx * (T(1) / T(42))))) / x;
  return sign * result;
}

}  // namespace special_detail

// Hurwitz zeta sum_k (k + q)^-x (Cephes, Euler-Maclaurin), computed in double for float too (PyTorch's
// accumulate type): +inf at x = 1 and at q a non-positive integer, NaN for x < 1 and for q <= 0 with
// x not an integer. (Like PyTorch, a very negative q walks up to 9 one step at a time.)
template <class T> EMBER_HD T zeta(T x_arg, T q_arg) {
  static constexpr double kA[] = {  // (2k)! / B_2k
      1.2e+01, -7.2e+02, 3.024e+04, -1.2096e+06,
      4.790016e+07, -1.8924375803183792e+09, 7.47242496e+10, -2.950130727918164e+12,
      1.1646782814350067e+14, -4.597978722407473e+15, 1.8152105401943546e+17, -7.166165256175667e+18,
  };
  constexpr double kMachEp = 1.11022302462515654042e-16;
  const double x = double(x_arg), q = double(q_arg);
  if (x == 1.0) return special_detail::inf_v<T>();
  if (x < 1.0) return special_detail::nan_v<T>();
  if (q <= 0.0) {
    if (q == std::floor(q)) return special_detail::inf_v<T>();
    if (x != std::floor(x)) return special_detail::nan_v<T>();  // q^-x would be complex
  }
  double s = std::pow(q, -x), a = q, b = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1.0;
    b = std::pow(a, -x);
    s += b;
    if (-kMachEp * s < b && b < kMachEp * s) return T(s);
  }
  const double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  double fa = 1.0, k = 0.0;
  for (int j = 0; j < 12; ++j) {
    fa *= x + k;
    b /= w;
    double t = fa * b / kA[j];
    s = s + t;
    t = std::fabs(t / s);
    if (t < kMachEp) return T(s);
    k += 1.0;
    fa *= x + k;
    b /= w;
    k += 1.0;
  }
  return T(s);
}

// psi^(n)(x), the n-th derivative of digamma: digamma (Cephes) for n = 0, trigamma for n = 1,
// (-1)^(n+1) n! zeta(n + 1, x) above. PyTorch rejects n < 0 before its kernel; here it gives NaN.
template <class T> EMBER_HD T polygamma(long long n, T x) {
  if (n < 0) return special_detail::nan_v<T>();
  if (n == 0) return special_detail::digamma_cephes(x);
  if (n == 1) return special_detail::trigamma(x);
  const int m = static_cast<int>(n);  // PyTorch's kernel passes n as int
  // (-1)^(n+1) n! (double, as PyTorch's ::exp(::lgamma())) times zeta (computed in double, returned as T).
  const double sign = (m % 2) ? 1.0 : -1.0;
  const double factorial = std::exp(std::lgamma(double(T(m) + T(1))));
  return T(sign * factorial * double(zeta(T(static_cast<long long>(m) + 1), x)));
}

}  // namespace ember::math
