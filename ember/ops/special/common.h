// What the scalar special functions share: pi, NaN and infinity of T, and Cephes' polynomial and
// Chebyshev series evaluators (Note [Special functions follow PyTorch] in ember/ops/special_math.h).
#pragma once
#include <limits>

#include "ember/core/macros.h"

namespace ember::math {
namespace special_detail {

constexpr double kPi = 3.14159265358979323846;

template <class T> EMBER_HD T nan_v() { return std::numeric_limits<T>::quiet_NaN(); }
template <class T> EMBER_HD T inf_v() { return std::numeric_limits<T>::infinity(); }

// c[0] x^(n-1) + ... + c[n-1] by Horner's rule, from 0 as Cephes' polevl (0 * x + c[0] = c[0]).
template <class T> EMBER_HD T polevl(T x, const double* c, int n) {
  T r = T(0);
  for (int i = 0; i < n; ++i) r = r * x + T(c[i]);
  return r;
}

// Cephes' chbevl: the Chebyshev series sum' c[n-1-k] T_k(x / 2) by Clenshaw's recurrence.
template <class T> EMBER_HD T chbevl(T x, const double* c, int n) {
  T b0 = T(c[0]), b1 = T(0), b2 = T(0);
  for (int i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + T(c[i]);
  }
  return T(0.5) * (b0 - b2);
}

}  // namespace special_detail

}  // namespace ember::math
