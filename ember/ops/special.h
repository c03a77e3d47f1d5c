// torch::special: PyTorch's special-function namespace, and ATen's flat names for the same
// functions (torch::special_bessel_j0, torch::igamma, torch::polygamma...). The Bessel, Airy,
// orthogonal-polynomial, incomplete-gamma, zeta and polygamma functions are pointwise-table
// ops (ember/ops/special_math.h is their math, PyTorch's algorithms); the others are ember's
// ops under their scipy-style names (expit is sigmoid, gammaln lgamma, psi digamma) or
// compositions of ops (entr, ndtr, xlog1py, multigammaln).
#pragma once
#include <optional>

#include "ember/ops/functions.h"

namespace ember {

// ---- ATen's names ------------------------------------------------------------------------
#define EMBER_SPECIAL_UNARY(name)   \
  Tensor name(const Tensor& self); \
  Tensor& name##_out(Tensor& out, const Tensor& self);
EMBER_SPECIAL_UNARY(special_bessel_j0) EMBER_SPECIAL_UNARY(special_bessel_j1)
EMBER_SPECIAL_UNARY(special_bessel_y0) EMBER_SPECIAL_UNARY(special_bessel_y1)
EMBER_SPECIAL_UNARY(special_modified_bessel_i0) EMBER_SPECIAL_UNARY(special_modified_bessel_i1)
EMBER_SPECIAL_UNARY(special_modified_bessel_k0) EMBER_SPECIAL_UNARY(special_modified_bessel_k1)
EMBER_SPECIAL_UNARY(special_scaled_modified_bessel_k0) EMBER_SPECIAL_UNARY(special_scaled_modified_bessel_k1)
EMBER_SPECIAL_UNARY(special_i0e) EMBER_SPECIAL_UNARY(special_i1) EMBER_SPECIAL_UNARY(special_i1e)
EMBER_SPECIAL_UNARY(special_airy_ai) EMBER_SPECIAL_UNARY(special_spherical_bessel_j0)
EMBER_SPECIAL_UNARY(special_erfcx) EMBER_SPECIAL_UNARY(special_log_ndtr) EMBER_SPECIAL_UNARY(special_ndtri)
#undef EMBER_SPECIAL_UNARY

// f(x, n) with a tensor or a number on either side.
#define EMBER_SPECIAL_BINARY(name)                                   \
  Tensor name(const Tensor& x, const Tensor& n);                     \
  Tensor name(const Scalar& x, const Tensor& n);                     \
  Tensor name(const Tensor& x, const Scalar& n);                     \
  Tensor& name##_out(Tensor& out, const Tensor& x, const Tensor& n);
EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_t) EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_u)
EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_v) EMBER_SPECIAL_BINARY(special_chebyshev_polynomial_w)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_t)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_v)
EMBER_SPECIAL_BINARY(special_shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_BINARY(special_hermite_polynomial_h) EMBER_SPECIAL_BINARY(special_hermite_polynomial_he)
EMBER_SPECIAL_BINARY(special_laguerre_polynomial_l) EMBER_SPECIAL_BINARY(special_legendre_polynomial_p)
EMBER_SPECIAL_BINARY(special_zeta)
#undef EMBER_SPECIAL_BINARY

// The regularized lower and upper incomplete gamma functions P(a, x) and Q(a, x).
Tensor igamma(const Tensor& self, const Tensor& other);
Tensor igammac(const Tensor& self, const Tensor& other);
Tensor& igamma_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& igammac_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& igamma_(Tensor& self, const Tensor& other);
Tensor& igammac_(Tensor& self, const Tensor& other);
// The n-th derivative of digamma (n >= 0).
Tensor polygamma(int64_t n, const Tensor& self);
Tensor& polygamma_out(Tensor& out, int64_t n, const Tensor& self);
Tensor& polygamma_(Tensor& self, int64_t n);
Tensor mvlgamma(const Tensor& self, int64_t p);

}  // namespace ember

namespace ember::special {

inline Tensor digamma(const Tensor& self) { return ember::digamma(self); }
inline Tensor psi(const Tensor& self) { return ember::digamma(self); }
inline Tensor erf(const Tensor& self) { return ember::erf(self); }
inline Tensor erfc(const Tensor& self) { return ember::erfc(self); }
inline Tensor erfinv(const Tensor& self) { return ember::erfinv(self); }
inline Tensor exp2(const Tensor& self) { return ember::exp2(self); }
inline Tensor expit(const Tensor& self) { return ember::sigmoid(self); }
inline Tensor expm1(const Tensor& self) { return ember::expm1(self); }
inline Tensor gammaln(const Tensor& self) { return ember::lgamma(self); }
inline Tensor i0(const Tensor& self) { return ember::i0(self); }
inline Tensor log1p(const Tensor& self) { return ember::log1p(self); }
inline Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt) { return ember::logit(self, eps); }
inline Tensor round(const Tensor& self, int64_t decimals = 0) { return ember::round(self, decimals); }
inline Tensor sinc(const Tensor& self) { return ember::sinc(self); }
inline Tensor xlogy(const Tensor& self, const Tensor& other) { return ember::xlogy(self, other); }
#define EMBER_SPECIAL_ALIAS(name) \
  template <class... A>           \
  Tensor name(A&&... a) { return ember::special_##name(std::forward<A>(a)...); }
EMBER_SPECIAL_ALIAS(bessel_j0) EMBER_SPECIAL_ALIAS(bessel_j1) EMBER_SPECIAL_ALIAS(bessel_y0)
EMBER_SPECIAL_ALIAS(bessel_y1) EMBER_SPECIAL_ALIAS(modified_bessel_i0) EMBER_SPECIAL_ALIAS(modified_bessel_i1)
EMBER_SPECIAL_ALIAS(modified_bessel_k0) EMBER_SPECIAL_ALIAS(modified_bessel_k1)
EMBER_SPECIAL_ALIAS(scaled_modified_bessel_k0) EMBER_SPECIAL_ALIAS(scaled_modified_bessel_k1)
EMBER_SPECIAL_ALIAS(i0e) EMBER_SPECIAL_ALIAS(i1) EMBER_SPECIAL_ALIAS(i1e) EMBER_SPECIAL_ALIAS(airy_ai)
EMBER_SPECIAL_ALIAS(spherical_bessel_j0) EMBER_SPECIAL_ALIAS(erfcx) EMBER_SPECIAL_ALIAS(log_ndtr)
EMBER_SPECIAL_ALIAS(ndtri) EMBER_SPECIAL_ALIAS(chebyshev_polynomial_t) EMBER_SPECIAL_ALIAS(chebyshev_polynomial_u)
EMBER_SPECIAL_ALIAS(chebyshev_polynomial_v) EMBER_SPECIAL_ALIAS(chebyshev_polynomial_w)
EMBER_SPECIAL_ALIAS(shifted_chebyshev_polynomial_t) EMBER_SPECIAL_ALIAS(shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_ALIAS(shifted_chebyshev_polynomial_v) EMBER_SPECIAL_ALIAS(shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_ALIAS(hermite_polynomial_h) EMBER_SPECIAL_ALIAS(hermite_polynomial_he)
EMBER_SPECIAL_ALIAS(laguerre_polynomial_l) EMBER_SPECIAL_ALIAS(legendre_polynomial_p) EMBER_SPECIAL_ALIAS(zeta)
#undef EMBER_SPECIAL_ALIAS
inline Tensor gammainc(const Tensor& self, const Tensor& other) { return ember::igamma(self, other); }
inline Tensor gammaincc(const Tensor& self, const Tensor& other) { return ember::igammac(self, other); }
inline Tensor polygamma(int64_t n, const Tensor& self) { return ember::polygamma(n, self); }
inline Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return ember::softmax(self, dim, dtype);
}
inline Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt) {
  return ember::log_softmax(self, dim, dtype);
}
inline Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim = false) {
  return ember::logsumexp(self, dims, keepdim);
}

// -x log(x) for x > 0, 0 at 0, -inf below 0.
Tensor entr(const Tensor& self);
// The standard normal CDF, (1 + erf(x / sqrt 2)) / 2.
Tensor ndtr(const Tensor& self);
// x log1p(y), 0 where x is 0 (unless y is NaN).
Tensor xlog1py(const Tensor& self, const Tensor& other);
// The log of the multivariate gamma function of dimension p:
// p (p - 1) / 4 log(pi) + sum_{i < p} lgamma(x - i / 2). (PyTorch 1.13 checks no domain: at or
// below (p - 1) / 2 a term's lgamma is at a pole or of a negative argument.)
Tensor multigammaln(const Tensor& self, int64_t p);

}  // namespace ember::special
