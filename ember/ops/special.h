// torch::special: PyTorch's special-function namespace. Most entries are ember's ops under
// their scipy-style names (expit is sigmoid, gammaln lgamma, psi digamma); entr, ndtr, xlog1py
// and multigammaln are compositions of ops (so both autograd modes apply). Not yet provided
// (LibTorch 1.13 has them): the Bessel, Airy and orthogonal-polynomial families, erfcx,
// log_ndtr, ndtri, i0e, i1, i1e, gammainc(c), polygamma, zeta.
#pragma once
#include <optional>

#include "ember/ops/functions.h"

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
