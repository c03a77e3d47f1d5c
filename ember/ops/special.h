// torch::special: PyTorch's special-function namespace, and ATen's flat names for the same
// functions (torch::special_bessel_j0, torch::igamma, torch::polygamma...). The Bessel, Airy, entr,
// orthogonal-polynomial, incomplete-gamma, zeta and polygamma functions are pointwise-table
// ops (ember/ops/special_math.h is their math, PyTorch's algorithms); the others are ember's
// ops under their scipy-style names (expit is sigmoid, gammaln lgamma, psi digamma) or
// compositions of ops (ndtr, xlog1py, multigammaln).
#pragma once
#include <optional>

#include "ember/ops/functions.h"

namespace ember {

// ---- ATen's names ------------------------------------------------------------------------
// The op table's FnOut rows (ember/ops/pointwise_table.h): f(x) and f(x, n), the latter with a
// tensor or a number on either side.
#define EMBER_PW_FN_OUT(name)       \
  Tensor name(const Tensor& self); \
  Tensor& name##_out(Tensor& out, const Tensor& self);
EMBER_FOR_EACH_UNARY_FN_OUT()
#undef EMBER_PW_FN_OUT
#define EMBER_PW_FN_OUT(name)                                        \
  Tensor name(const Tensor& x, const Tensor& n);                     \
  Tensor name(const Scalar& x, const Tensor& n);                     \
  Tensor name(const Tensor& x, const Scalar& n);                     \
  Tensor& name##_out(Tensor& out, const Tensor& x, const Tensor& n);
EMBER_FOR_EACH_BINARY_FN_OUT()
#undef EMBER_PW_FN_OUT

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
inline Tensor logit(const Tensor& self) { return ember::logit(self); }  // (no eps in torch::special)
inline Tensor round(const Tensor& self) { return ember::round(self); }
inline Tensor sinc(const Tensor& self) { return ember::sinc(self); }
inline Tensor xlogy(const Tensor& self, const Tensor& other) { return ember::xlogy(self, other); }
inline Tensor xlogy(const Scalar& self, const Tensor& other) { return ember::xlogy(self, other); }
inline Tensor xlogy(const Tensor& self, const Scalar& other) { return ember::xlogy(self, other); }
// ATen's special_* ops under torch::special's names, overload for overload as LibTorch declares
// them (so that a program can pass one by name as a function pointer).
inline Tensor erfcx(const Tensor& self) { return ember::special_erfcx(self); }
inline Tensor ndtri(const Tensor& self) { return ember::special_ndtri(self); }
inline Tensor log_ndtr(const Tensor& self) { return ember::special_log_ndtr(self); }
inline Tensor zeta(const Tensor& self, const Tensor& other) { return ember::special_zeta(self, other); }
inline Tensor zeta(const Scalar& self, const Tensor& other) { return ember::special_zeta(self, other); }
inline Tensor zeta(const Tensor& self, const Scalar& other) { return ember::special_zeta(self, other); }
inline Tensor i0e(const Tensor& self) { return ember::special_i0e(self); }
inline Tensor i1(const Tensor& self) { return ember::special_i1(self); }
inline Tensor i1e(const Tensor& self) { return ember::special_i1e(self); }
inline Tensor airy_ai(const Tensor& x) { return ember::special_airy_ai(x); }
inline Tensor bessel_j0(const Tensor& self) { return ember::special_bessel_j0(self); }
inline Tensor bessel_j1(const Tensor& self) { return ember::special_bessel_j1(self); }
inline Tensor bessel_y0(const Tensor& self) { return ember::special_bessel_y0(self); }
inline Tensor bessel_y1(const Tensor& self) { return ember::special_bessel_y1(self); }
inline Tensor chebyshev_polynomial_t(const Tensor& x, const Tensor& n) { return ember::special_chebyshev_polynomial_t(x, n); }
inline Tensor chebyshev_polynomial_t(const Scalar& x, const Tensor& n) { return ember::special_chebyshev_polynomial_t(x, n); }
inline Tensor chebyshev_polynomial_t(const Tensor& x, const Scalar& n) { return ember::special_chebyshev_polynomial_t(x, n); }
inline Tensor chebyshev_polynomial_u(const Tensor& x, const Tensor& n) { return ember::special_chebyshev_polynomial_u(x, n); }
inline Tensor chebyshev_polynomial_u(const Scalar& x, const Tensor& n) { return ember::special_chebyshev_polynomial_u(x, n); }
inline Tensor chebyshev_polynomial_u(const Tensor& x, const Scalar& n) { return ember::special_chebyshev_polynomial_u(x, n); }
inline Tensor chebyshev_polynomial_v(const Tensor& x, const Tensor& n) { return ember::special_chebyshev_polynomial_v(x, n); }
inline Tensor chebyshev_polynomial_v(const Scalar& x, const Tensor& n) { return ember::special_chebyshev_polynomial_v(x, n); }
inline Tensor chebyshev_polynomial_v(const Tensor& x, const Scalar& n) { return ember::special_chebyshev_polynomial_v(x, n); }
inline Tensor chebyshev_polynomial_w(const Tensor& x, const Tensor& n) { return ember::special_chebyshev_polynomial_w(x, n); }
inline Tensor chebyshev_polynomial_w(const Scalar& x, const Tensor& n) { return ember::special_chebyshev_polynomial_w(x, n); }
inline Tensor chebyshev_polynomial_w(const Tensor& x, const Scalar& n) { return ember::special_chebyshev_polynomial_w(x, n); }
inline Tensor hermite_polynomial_h(const Tensor& x, const Tensor& n) { return ember::special_hermite_polynomial_h(x, n); }
inline Tensor hermite_polynomial_h(const Scalar& x, const Tensor& n) { return ember::special_hermite_polynomial_h(x, n); }
inline Tensor hermite_polynomial_h(const Tensor& x, const Scalar& n) { return ember::special_hermite_polynomial_h(x, n); }
inline Tensor hermite_polynomial_he(const Tensor& x, const Tensor& n) { return ember::special_hermite_polynomial_he(x, n); }
inline Tensor hermite_polynomial_he(const Scalar& x, const Tensor& n) { return ember::special_hermite_polynomial_he(x, n); }
inline Tensor hermite_polynomial_he(const Tensor& x, const Scalar& n) { return ember::special_hermite_polynomial_he(x, n); }
inline Tensor laguerre_polynomial_l(const Tensor& x, const Tensor& n) { return ember::special_laguerre_polynomial_l(x, n); }
inline Tensor laguerre_polynomial_l(const Scalar& x, const Tensor& n) { return ember::special_laguerre_polynomial_l(x, n); }
inline Tensor laguerre_polynomial_l(const Tensor& x, const Scalar& n) { return ember::special_laguerre_polynomial_l(x, n); }
inline Tensor legendre_polynomial_p(const Tensor& x, const Tensor& n) { return ember::special_legendre_polynomial_p(x, n); }
inline Tensor legendre_polynomial_p(const Scalar& x, const Tensor& n) { return ember::special_legendre_polynomial_p(x, n); }
inline Tensor legendre_polynomial_p(const Tensor& x, const Scalar& n) { return ember::special_legendre_polynomial_p(x, n); }
inline Tensor modified_bessel_i0(const Tensor& self) { return ember::special_modified_bessel_i0(self); }
inline Tensor modified_bessel_i1(const Tensor& self) { return ember::special_modified_bessel_i1(self); }
inline Tensor modified_bessel_k0(const Tensor& self) { return ember::special_modified_bessel_k0(self); }
inline Tensor modified_bessel_k1(const Tensor& self) { return ember::special_modified_bessel_k1(self); }
inline Tensor scaled_modified_bessel_k0(const Tensor& x) { return ember::special_scaled_modified_bessel_k0(x); }
inline Tensor scaled_modified_bessel_k1(const Tensor& x) { return ember::special_scaled_modified_bessel_k1(x); }
inline Tensor shifted_chebyshev_polynomial_t(const Tensor& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_t(x, n); }
inline Tensor shifted_chebyshev_polynomial_t(const Scalar& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_t(x, n); }
inline Tensor shifted_chebyshev_polynomial_t(const Tensor& x, const Scalar& n) { return ember::special_shifted_chebyshev_polynomial_t(x, n); }
inline Tensor shifted_chebyshev_polynomial_u(const Tensor& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_u(x, n); }
inline Tensor shifted_chebyshev_polynomial_u(const Scalar& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_u(x, n); }
inline Tensor shifted_chebyshev_polynomial_u(const Tensor& x, const Scalar& n) { return ember::special_shifted_chebyshev_polynomial_u(x, n); }
inline Tensor shifted_chebyshev_polynomial_v(const Tensor& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_v(x, n); }
inline Tensor shifted_chebyshev_polynomial_v(const Scalar& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_v(x, n); }
inline Tensor shifted_chebyshev_polynomial_v(const Tensor& x, const Scalar& n) { return ember::special_shifted_chebyshev_polynomial_v(x, n); }
inline Tensor shifted_chebyshev_polynomial_w(const Tensor& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_w(x, n); }
inline Tensor shifted_chebyshev_polynomial_w(const Scalar& x, const Tensor& n) { return ember::special_shifted_chebyshev_polynomial_w(x, n); }
inline Tensor shifted_chebyshev_polynomial_w(const Tensor& x, const Scalar& n) { return ember::special_shifted_chebyshev_polynomial_w(x, n); }
inline Tensor spherical_bessel_j0(const Tensor& x) { return ember::special_spherical_bessel_j0(x); }
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
inline Tensor entr(const Tensor& self) { return ember::special_entr(self); }
// The standard normal CDF, (1 + erf(x / sqrt 2)) / 2.
Tensor ndtr(const Tensor& self);
// x log1p(y), 0 where x is 0 (unless y is NaN).
Tensor xlog1py(const Tensor& self, const Tensor& other);
Tensor xlog1py(const Scalar& self, const Tensor& other);
Tensor xlog1py(const Tensor& self, const Scalar& other);
// The log of the multivariate gamma function of dimension p:
// p (p - 1) / 4 log(pi) + sum_{i < p} lgamma(x - i / 2). (PyTorch 1.13 checks no domain: at or
// below (p - 1) / 2 a term's lgamma is at a pole or of a negative argument.)
Tensor multigammaln(const Tensor& self, int64_t p);

// LibTorch's out= forms, torch::special::erf_out(result, x) and the rest: the functional
// result written into `result` (resized when its shape differs; castable to its dtype).
namespace detail {
Tensor& write_special_out(Tensor& out, const Tensor& result, const char* op);
}  // namespace detail
inline Tensor& gammaln_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::gammaln(self), "special_gammaln_out");
}
inline Tensor& gammainc_out(Tensor& result, const Tensor& self, const Tensor& other) {
  return detail::write_special_out(result, special::gammainc(self, other), "special_gammainc_out");
}
inline Tensor& gammaincc_out(Tensor& result, const Tensor& self, const Tensor& other) {
  return detail::write_special_out(result, special::gammaincc(self, other), "special_gammaincc_out");
}
inline Tensor& multigammaln_out(Tensor& result, const Tensor& self, int64_t p) {
  return detail::write_special_out(result, special::multigammaln(self, p), "special_multigammaln_out");
}
inline Tensor& polygamma_out(Tensor& result, int64_t n, const Tensor& self) {
  return detail::write_special_out(result, special::polygamma(n, self), "special_polygamma_out");
}
inline Tensor& psi_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::psi(self), "special_psi_out");
}
inline Tensor& digamma_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::digamma(self), "special_digamma_out");
}
inline Tensor& entr_out(Tensor& result, const Tensor& self) {
  return ember::special_entr_out(result, self);
}
inline Tensor& erf_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::erf(self), "special_erf_out");
}
inline Tensor& erfc_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::erfc(self), "special_erfc_out");
}
inline Tensor& erfcx_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::erfcx(self), "special_erfcx_out");
}
inline Tensor& erfinv_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::erfinv(self), "special_erfinv_out");
}
inline Tensor& logsumexp_out(Tensor& result, const Tensor& self, IntArrayRef dims, bool keepdim) {
  return detail::write_special_out(result, special::logsumexp(self, dims, keepdim), "special_logsumexp_out");
}
inline Tensor& ndtri_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::ndtri(self), "special_ndtri_out");
}
inline Tensor& log_ndtr_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::log_ndtr(self), "special_log_ndtr_out");
}
inline Tensor& logit_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::logit(self), "special_logit_out");
}
inline Tensor& expit_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::expit(self), "special_expit_out");
}
inline Tensor& exp2_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::exp2(self), "special_exp2_out");
}
inline Tensor& expm1_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::expm1(self), "special_expm1_out");
}
inline Tensor& xlogy_out(Tensor& result, const Tensor& self, const Tensor& other) {
  return detail::write_special_out(result, special::xlogy(self, other), "special_xlogy_out");
}
inline Tensor& xlogy_out(Tensor& result, const Scalar& self, const Tensor& other) {
  return detail::write_special_out(result, special::xlogy(self, other), "special_xlogy_out");
}
inline Tensor& xlogy_out(Tensor& result, const Tensor& self, const Scalar& other) {
  return detail::write_special_out(result, special::xlogy(self, other), "special_xlogy_out");
}
inline Tensor& xlog1py_out(Tensor& result, const Tensor& self, const Tensor& other) {
  return detail::write_special_out(result, special::xlog1py(self, other), "special_xlog1py_out");
}
inline Tensor& xlog1py_out(Tensor& result, const Scalar& self, const Tensor& other) {
  return detail::write_special_out(result, special::xlog1py(self, other), "special_xlog1py_out");
}
inline Tensor& xlog1py_out(Tensor& result, const Tensor& self, const Scalar& other) {
  return detail::write_special_out(result, special::xlog1py(self, other), "special_xlog1py_out");
}
inline Tensor& zeta_out(Tensor& result, const Tensor& self, const Tensor& other) {
  return detail::write_special_out(result, special::zeta(self, other), "special_zeta_out");
}
inline Tensor& zeta_out(Tensor& result, const Scalar& self, const Tensor& other) {
  return detail::write_special_out(result, special::zeta(self, other), "special_zeta_out");
}
inline Tensor& zeta_out(Tensor& result, const Tensor& self, const Scalar& other) {
  return detail::write_special_out(result, special::zeta(self, other), "special_zeta_out");
}
inline Tensor& i0_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::i0(self), "special_i0_out");
}
inline Tensor& ndtr_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::ndtr(self), "special_ndtr_out");
}
inline Tensor& i0e_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::i0e(self), "special_i0e_out");
}
inline Tensor& i1_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::i1(self), "special_i1_out");
}
inline Tensor& i1e_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::i1e(self), "special_i1e_out");
}
inline Tensor& sinc_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::sinc(self), "special_sinc_out");
}
inline Tensor& round_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::round(self), "special_round_out");
}
inline Tensor& log1p_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::log1p(self), "special_log1p_out");
}
inline Tensor& airy_ai_out(Tensor& y, const Tensor& x) {
  return detail::write_special_out(y, special::airy_ai(x), "special_airy_ai_out");
}
inline Tensor& bessel_j0_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::bessel_j0(self), "special_bessel_j0_out");
}
inline Tensor& bessel_j1_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::bessel_j1(self), "special_bessel_j1_out");
}
inline Tensor& bessel_y0_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::bessel_y0(self), "special_bessel_y0_out");
}
inline Tensor& bessel_y1_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::bessel_y1(self), "special_bessel_y1_out");
}
inline Tensor& chebyshev_polynomial_t_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_t(x, n), "special_chebyshev_polynomial_t_out");
}
inline Tensor& chebyshev_polynomial_t_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_t(x, n), "special_chebyshev_polynomial_t_out");
}
inline Tensor& chebyshev_polynomial_t_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_t(x, n), "special_chebyshev_polynomial_t_out");
}
inline Tensor& chebyshev_polynomial_u_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_u(x, n), "special_chebyshev_polynomial_u_out");
}
inline Tensor& chebyshev_polynomial_u_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_u(x, n), "special_chebyshev_polynomial_u_out");
}
inline Tensor& chebyshev_polynomial_u_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_u(x, n), "special_chebyshev_polynomial_u_out");
}
inline Tensor& chebyshev_polynomial_v_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_v(x, n), "special_chebyshev_polynomial_v_out");
}
inline Tensor& chebyshev_polynomial_v_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_v(x, n), "special_chebyshev_polynomial_v_out");
}
inline Tensor& chebyshev_polynomial_v_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_v(x, n), "special_chebyshev_polynomial_v_out");
}
inline Tensor& chebyshev_polynomial_w_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_w(x, n), "special_chebyshev_polynomial_w_out");
}
inline Tensor& chebyshev_polynomial_w_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_w(x, n), "special_chebyshev_polynomial_w_out");
}
inline Tensor& chebyshev_polynomial_w_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::chebyshev_polynomial_w(x, n), "special_chebyshev_polynomial_w_out");
}
inline Tensor& hermite_polynomial_h_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::hermite_polynomial_h(x, n), "special_hermite_polynomial_h_out");
}
inline Tensor& hermite_polynomial_h_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::hermite_polynomial_h(x, n), "special_hermite_polynomial_h_out");
}
inline Tensor& hermite_polynomial_h_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::hermite_polynomial_h(x, n), "special_hermite_polynomial_h_out");
}
inline Tensor& hermite_polynomial_he_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::hermite_polynomial_he(x, n), "special_hermite_polynomial_he_out");
}
inline Tensor& hermite_polynomial_he_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::hermite_polynomial_he(x, n), "special_hermite_polynomial_he_out");
}
inline Tensor& hermite_polynomial_he_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::hermite_polynomial_he(x, n), "special_hermite_polynomial_he_out");
}
inline Tensor& laguerre_polynomial_l_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::laguerre_polynomial_l(x, n), "special_laguerre_polynomial_l_out");
}
inline Tensor& laguerre_polynomial_l_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::laguerre_polynomial_l(x, n), "special_laguerre_polynomial_l_out");
}
inline Tensor& laguerre_polynomial_l_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::laguerre_polynomial_l(x, n), "special_laguerre_polynomial_l_out");
}
inline Tensor& legendre_polynomial_p_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::legendre_polynomial_p(x, n), "special_legendre_polynomial_p_out");
}
inline Tensor& legendre_polynomial_p_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::legendre_polynomial_p(x, n), "special_legendre_polynomial_p_out");
}
inline Tensor& legendre_polynomial_p_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::legendre_polynomial_p(x, n), "special_legendre_polynomial_p_out");
}
inline Tensor& modified_bessel_i0_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::modified_bessel_i0(self), "special_modified_bessel_i0_out");
}
inline Tensor& modified_bessel_i1_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::modified_bessel_i1(self), "special_modified_bessel_i1_out");
}
inline Tensor& modified_bessel_k0_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::modified_bessel_k0(self), "special_modified_bessel_k0_out");
}
inline Tensor& modified_bessel_k1_out(Tensor& result, const Tensor& self) {
  return detail::write_special_out(result, special::modified_bessel_k1(self), "special_modified_bessel_k1_out");
}
inline Tensor& scaled_modified_bessel_k0_out(Tensor& y, const Tensor& x) {
  return detail::write_special_out(y, special::scaled_modified_bessel_k0(x), "special_scaled_modified_bessel_k0_out");
}
inline Tensor& scaled_modified_bessel_k1_out(Tensor& y, const Tensor& x) {
  return detail::write_special_out(y, special::scaled_modified_bessel_k1(x), "special_scaled_modified_bessel_k1_out");
}
inline Tensor& shifted_chebyshev_polynomial_t_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_t(x, n), "special_shifted_chebyshev_polynomial_t_out");
}
inline Tensor& shifted_chebyshev_polynomial_t_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_t(x, n), "special_shifted_chebyshev_polynomial_t_out");
}
inline Tensor& shifted_chebyshev_polynomial_t_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_t(x, n), "special_shifted_chebyshev_polynomial_t_out");
}
inline Tensor& shifted_chebyshev_polynomial_u_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_u(x, n), "special_shifted_chebyshev_polynomial_u_out");
}
inline Tensor& shifted_chebyshev_polynomial_u_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_u(x, n), "special_shifted_chebyshev_polynomial_u_out");
}
inline Tensor& shifted_chebyshev_polynomial_u_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_u(x, n), "special_shifted_chebyshev_polynomial_u_out");
}
inline Tensor& shifted_chebyshev_polynomial_v_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_v(x, n), "special_shifted_chebyshev_polynomial_v_out");
}
inline Tensor& shifted_chebyshev_polynomial_v_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_v(x, n), "special_shifted_chebyshev_polynomial_v_out");
}
inline Tensor& shifted_chebyshev_polynomial_v_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_v(x, n), "special_shifted_chebyshev_polynomial_v_out");
}
inline Tensor& shifted_chebyshev_polynomial_w_out(Tensor& output, const Tensor& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_w(x, n), "special_shifted_chebyshev_polynomial_w_out");
}
inline Tensor& shifted_chebyshev_polynomial_w_out(Tensor& output, const Scalar& x, const Tensor& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_w(x, n), "special_shifted_chebyshev_polynomial_w_out");
}
inline Tensor& shifted_chebyshev_polynomial_w_out(Tensor& output, const Tensor& x, const Scalar& n) {
  return detail::write_special_out(output, special::shifted_chebyshev_polynomial_w(x, n), "special_shifted_chebyshev_polynomial_w_out");
}
inline Tensor& spherical_bessel_j0_out(Tensor& y, const Tensor& x) {
  return detail::write_special_out(y, special::spherical_bessel_j0(x), "special_spherical_bessel_j0_out");
}

}  // namespace ember::special
