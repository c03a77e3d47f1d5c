// The orthogonal polynomials of torch::special: Chebyshev T, U, V, W and their shifted forms,
// Hermite H and He, Laguerre L, Legendre P (Note [Special functions follow PyTorch] in ember/ops/special_math.h).
//
// Note [Polynomial degree]
// The orthogonal polynomials take their degree n as a floating value, as PyTorch does, and convert it
// as PyTorch's static_cast<int64_t> compiles on x86 (cvttsd2si): toward zero, with NaN, +-inf and
// values outside [-2^63, 2^63) giving INT64_MIN, so those degrees (and every negative one) give 0.
// Where PyTorch runs the three-term recurrence n times, so do we; we stop early only once the value is
// NaN, which it then stays (NaN * q - p is NaN), so the result is unchanged. A huge n with a bounded
// value (Legendre on (-1, 1), Laguerre near 0) therefore costs O(n) steps, as in PyTorch.
#pragma once
#include <cmath>
#include <limits>

#include "ember/core/macros.h"
#include "ember/ops/special/common.h"

namespace ember::math {
namespace special_detail {

// Float to int64 as x86's cvttsd2si (Note [Polynomial degree]).
template <class T> EMBER_HD long long degree(T n) {
  if (n >= T(-9223372036854775808.0) && n < T(9223372036854775808.0)) return static_cast<long long>(n);
  return std::numeric_limits<long long>::min();
}
// 2n + 1 in int64 with wrap-around (n >= 2^62 wraps, as in PyTorch's build), as T.
template <class T> EMBER_HD T odd(long long n) {
  return T(static_cast<long long>(2ull * static_cast<unsigned long long>(n) + 1ull));
}
// r_k = two_x r_{k-1} - r_{k-2} for k = 2..n from r_0 = p, r_1 = q (n >= 2): the Chebyshev families.
template <class T> EMBER_HD T chebyshev_recurrence(T two_x, T p, T q, long long n) {
  T r = q;
  for (long long k = 2; k <= n; ++k) {
    r = two_x * q - p;
    p = q;
    q = r;
    if (r != r) break;  // NaN stays NaN (Note [Polynomial degree])
  }
  return r;
}

}  // namespace special_detail

// ---- orthogonal polynomials f(x, n), n a floating degree (Note [Polynomial degree]) ----

// Chebyshev T_n(x): cos(n acos x) inside (-1, 1) from n = 7, the recurrence otherwise.
template <class T> EMBER_HD T chebyshev_polynomial_t(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n > 6 && std::abs(x) < T(1)) return std::cos(T(n) * std::acos(x));
  if (n == 0) return T(1);
  if (n == 1) return x;
  return chebyshev_recurrence(x + x, T(1), x, n);
}

// Chebyshev U_n(x): sin((n + 1) t) / sin t, t = acos x, inside (-1, 1) from n = 9.
template <class T> EMBER_HD T chebyshev_polynomial_u(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(n + 1) : T(-(n + 1));
  if (n > 8 && std::abs(x) < T(1)) {
    if (std::sin(std::acos(x)) != T(0)) return std::sin(T(n + 1) * std::acos(x)) / std::sin(std::acos(x));
    return T(n + 1) * std::cos(T(n + 1) * std::acos(x)) / x;
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  return chebyshev_recurrence(x + x, T(1), x + x, n);
}

// Chebyshev V_n(x): cos((n + 1/2) t) / cos(t / 2) inside (-1, 1) from n = 9.
template <class T> EMBER_HD T chebyshev_polynomial_v(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) {
    if (x > T(0)) return T(1);
    return n % 2 == 0 ? odd<T>(n) : -odd<T>(n);
  }
  if (n > 8 && std::abs(x) < T(1)) {
    if (std::sin(std::acos(x) / T(2)) != T(1)) {
      return std::cos((T(n) + T(0.5)) * std::acos(x)) / std::cos(std::acos(x) / T(2));
    }
    return n % 2 == 0 ? odd<T>(n) : -odd<T>(n);
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x - T(1);
  return chebyshev_recurrence(x + x, T(1), x + x - T(1), n);
}

// Chebyshev W_n(x): sin((n + 1/2) t) / sin(t / 2) inside (-1, 1) from n = 9.
template <class T> EMBER_HD T chebyshev_polynomial_w(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) {
    if (x > T(0)) return odd<T>(n);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n > 8 && std::abs(x) < T(1)) {
    if (std::cos(std::acos(x) / T(2)) != T(1)) {
      return std::sin((T(n) + T(0.5)) * std::acos(x)) / std::sin(std::acos(x) / T(2));
    }
    if (x > T(0)) return odd<T>(n);
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return x + x + T(1);
  return chebyshev_recurrence(x + x, T(1), x + x + T(1), n);
}

// The shifted Chebyshev polynomials are those of y = 2x - 1, with PyTorch's own edge cases (x = 0
// and x = 1) and trigonometric thresholds (n > 6, and n > 4 for W).
template <class T> EMBER_HD T shifted_chebyshev_polynomial_t(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T y = x + x - T(1);
  if (n > 6 && std::abs(y) < T(1)) return std::cos(T(n) * std::acos(y));
  if (n == 0) return T(1);
  if (n == 1) return y;
  return chebyshev_recurrence(y + y, T(1), y, n);
}

template <class T> EMBER_HD T shifted_chebyshev_polynomial_u(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (x == T(1)) return T(n + 1);
  if (x == T(0)) return n % 2 == 0 ? T(n + 1) : T(-(n + 1));
  const T y = x + x - T(1);
  if (n > 6 && std::abs(y) < T(1)) {
    if (std::sin(std::acos(y)) != T(0)) return std::sin(T(n + 1) * std::acos(y)) / std::sin(std::acos(y));
    return T(n + 1) * std::cos(T(n + 1) * std::acos(y)) / y;
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y;
  return chebyshev_recurrence(y + y, T(1), y + y, n);
}

template <class T> EMBER_HD T shifted_chebyshev_polynomial_v(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (x == T(1)) return T(1);
  if (x == T(0)) return n % 2 == 0 ? odd<T>(n) : -odd<T>(n);
  const T y = x + x - T(1);
  if (n > 6 && std::abs(y) < T(1)) {
    if (std::sin(std::acos(y) / T(2)) != T(1)) {
      return std::cos((T(n) + T(0.5)) * std::acos(y)) / std::cos(std::acos(y) / T(2));
    }
    return n % 2 == 0 ? odd<T>(n) : -odd<T>(n);
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y - T(1);
  return chebyshev_recurrence(y + y, T(1), y + y - T(1), n);
}

template <class T> EMBER_HD T shifted_chebyshev_polynomial_w(T x, T n_real) {
  using namespace special_detail;
  const long long n = degree(n_real);
  if (n < 0) return T(0);
  if (x == T(1)) return odd<T>(n);
  if (x == T(0)) return n % 2 == 0 ? T(1) : T(-1);
  const T y = x + x - T(1);
  if (n > 4 && std::abs(y) < T(1)) {
    if (std::cos(std::acos(y) / T(2)) != T(1)) {
      return std::sin((T(n) + T(0.5)) * std::acos(y)) / std::sin(std::acos(y) / T(2));
    }
    return n % 2 == 0 ? T(1) : T(-1);
  }
  if (n == 0) return T(1);
  if (n == 1) return y + y + T(1);
  return chebyshev_recurrence(y + y, T(1), y + y + T(1), n);
}

// Physicists' Hermite H_n(x): H_{k+1} = 2x H_k - 2k H_{k-1}.
template <class T> EMBER_HD T hermite_polynomial_h(T x, T n_real) {
  const long long n = special_detail::degree(n_real);
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x + x;
  T p = T(1), q = x + x, r = q;
  for (long long k = 1; k < n; ++k) {
    r = (x + x) * q - T(k + k) * p;
    p = q;
    q = r;
    if (r != r) break;  // Note [Polynomial degree]
  }
  return r;
}

// Probabilists' Hermite He_n(x): He_{k+1} = x He_k - k He_{k-1}.
template <class T> EMBER_HD T hermite_polynomial_he(T x, T n_real) {
  const long long n = special_detail::degree(n_real);
  if (n < 0) return T(0);
  if (n == 0) return T(1);
  if (n == 1) return x;
  T p = T(1), q = x, r = q;
  for (long long k = 1; k < n; ++k) {
    r = x * q - T(k) * p;
    p = q;
    q = r;
    if (r != r) break;
  }
  return r;
}

// Laguerre L_n(x): (k + 1) L_{k+1} = (2k + 1 - x) L_k - k L_{k-1}; 1 at x = 0.
template <class T> EMBER_HD T laguerre_polynomial_l(T x, T n_real) {
  const long long n = special_detail::degree(n_real);
  if (n < 0) return T(0);
  if (std::abs(x) == T(0)) return T(1);
  if (n == 0) return T(1);
  if (n == 1) return T(1) - x;
  T p = T(1), q = T(1) - x, r = q;
  for (long long k = 1; k < n; ++k) {
    r = ((T(k + k) + (T(1) - x)) * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
    if (r != r) break;
  }
  return r;
}

// Legendre P_n(x): (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}; +-1 at x = +-1.
template <class T> EMBER_HD T legendre_polynomial_p(T x, T n_real) {
  const long long n = special_detail::degree(n_real);
  if (n < 0) return T(0);
  if (std::abs(x) == T(1)) return (x > T(0) || n % 2 == 0) ? T(1) : T(-1);
  if (n == 0) return T(1);
  if (n == 1) return x;
  T p = T(1), q = x, r = q;
  for (long long k = 1; k < n; ++k) {
    r = (T(k + k + 1) * x * q - T(k) * p) / T(k + 1);
    p = q;
    q = r;
    if (r != r) break;
  }
  return r;
}

}  // namespace ember::math
