// Math ops that PyTorch ships as kernels but ember writes as compositions of its ops (so both
// autograd modes apply): logaddexp(2), ldexp, heaviside, gcd/lcm, frexp, dist, inner, renorm,
// cov/corrcoef, trapezoid, vander, cdist/pdist, isin. PyTorch 1.13's semantics and errors.
#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/warning.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/type_promotion.h"

namespace ember {

namespace {
Tensor to_float_if_integral(const Tensor& t) {
  return t.is_floating_point() || t.is_complex() ? t : t.to(get_default_dtype());
}

// log(exp(a) + exp(b)) (base 2: log2(2^a + 2^b)) without overflow: max + log1p(base^-|a - b|),
// scaled by 1/ln 2 in base 2; equal infinities stay.
Tensor logaddexp_impl(const Tensor& self, const Tensor& other, const char* op, bool base2) {
  check_defined(self, op);
  check_defined(other, op, "other");
  EMBER_CHECK_TYPE(!self.is_complex() && !other.is_complex(), op, ": complex inputs are not supported");
  const Tensor a = to_float_if_integral(self), b = to_float_if_integral(other);
  const Tensor d = a.sub(b).abs().neg();
  const Tensor r = base2 ? maximum(a, b).add(d.exp2().log1p().div(std::log(2.0))) : maximum(a, b).add(d.exp().log1p());
  return where(a.eq(b).logical_and(a.isinf()), a, r);
}
}  // namespace

Tensor logaddexp(const Tensor& self, const Tensor& other) { return logaddexp_impl(self, other, "logaddexp", false); }
Tensor logaddexp2(const Tensor& self, const Tensor& other) { return logaddexp_impl(self, other, "logaddexp2", true); }

// self * 2^other.
Tensor ldexp(const Tensor& self, const Tensor& other) {
  check_defined(self, "ldexp");
  check_defined(other, "ldexp", "other");
  return self.mul(pow(scalar_to_tensor(2.0), other));
}
Tensor& ldexp_(Tensor& self, const Tensor& other) { return self.mul_(pow(scalar_to_tensor(2.0), other)); }

// Tensor and Scalar overloads of pointwise ops, through their Tensor-Tensor forms.
Tensor clamp_min(const Tensor& self, const Tensor& min) { return clamp(self, std::optional<Tensor>(min), std::nullopt); }
Tensor clamp_max(const Tensor& self, const Tensor& max) { return clamp(self, std::nullopt, std::optional<Tensor>(max)); }
Tensor xlogy(const Scalar& self, const Tensor& other) { return xlogy(scalar_to_tensor(self, other.device()), other); }
Tensor copysign(const Tensor& self, const Scalar& other) { return copysign(self, scalar_to_tensor(other, self.device())); }

// 0 below zero, 1 above, `values` at zero.
Tensor heaviside(const Tensor& self, const Tensor& values) {
  check_defined(self, "heaviside");
  check_defined(values, "heaviside", "values");
  EMBER_CHECK_TYPE(!self.is_complex() && !values.is_complex(), "heaviside is not yet implemented for complex tensors.");
  EMBER_CHECK_TYPE(self.scalar_type() == values.scalar_type(), "heaviside is not yet implemented for tensors with "
                   "different dtypes (", self.scalar_type(), " and ", values.scalar_type(), ")");
  return where(self.eq(0), values, self.gt(0).to(self.scalar_type()));
}
Tensor& heaviside_(Tensor& self, const Tensor& values) {
  Tensor r = heaviside(self, values);
  return self.copy_(r);
}

// Greatest common divisor by Euclid's algorithm, element by element (all lanes together).
Tensor gcd(const Tensor& self, const Tensor& other) {
  check_defined(self, "gcd");
  check_defined(other, "gcd", "other");
  EMBER_CHECK_TYPE(isIntegralType(self.scalar_type(), false) && isIntegralType(other.scalar_type(), false),
                   "gcd: expected integer tensors, got ", self.scalar_type(), " and ", other.scalar_type());
  NoGradGuard no_grad;
  const ScalarType t = promote_types(self.scalar_type(), other.scalar_type());
  Tensor a = self.to(t).abs(), b = other.to(t).abs();
  auto shape = broadcast_shapes(a.sizes(), b.sizes());
  a = a.expand(shape).contiguous();
  b = b.expand(shape).contiguous();
  while (b.ne(0).any().item<bool>()) {
    const Tensor nz = b.ne(0);
    const Tensor r = where(nz, a.remainder(where(nz, b, ones_like(b))), zeros_like(a));
    a = where(nz, b, a);
    b = r;
  }
  return a;
}
Tensor& gcd_(Tensor& self, const Tensor& other) { return self.copy_(gcd(self, other)); }
Tensor lcm(const Tensor& self, const Tensor& other) {
  check_defined(self, "lcm");
  check_defined(other, "lcm", "other");
  const Tensor g = gcd(self, other);
  const Tensor safe = where(g.eq(0), ones_like(g), g);
  return where(g.eq(0), zeros_like(g), self.div(safe, "trunc").mul(other).abs());
}
Tensor& lcm_(Tensor& self, const Tensor& other) { return self.copy_(lcm(self, other)); }

// x = mantissa * 2^exponent with |mantissa| in [0.5, 1) (0, inf and nan keep themselves).
std::tuple<Tensor, Tensor> frexp(const Tensor& self) {
  check_defined(self, "frexp");
  EMBER_CHECK_TYPE(self.is_floating_point(), "torch.frexp() only supports floating-point dtypes, got ",
                   self.scalar_type());
  NoGradGuard no_grad;
  const Tensor finite_nonzero = self.isfinite().logical_and(self.ne(0));
  const Tensor safe = where(finite_nonzero, self.abs().to(kDouble), ones_like(self, dtype(kDouble)));
  Tensor e = safe.log2().floor().add(1);
  Tensor m = self.to(kDouble).div(pow(scalar_to_tensor(2.0), e));
  // log2 rounding can miss by one at powers of two.
  const Tensor over = m.abs().ge(1), under = m.abs().lt(0.5).logical_and(finite_nonzero);
  e = e.add(over.to(kDouble)).sub(under.to(kDouble));
  m = self.to(kDouble).div(pow(scalar_to_tensor(2.0), e));
  e = where(finite_nonzero, e, zeros_like(e));
  m = where(finite_nonzero, m, self.to(kDouble));
  return {m.to(self.scalar_type()), e.to(kInt)};
}

// ||self - other||_p.
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p) {
  check_defined(self, "dist");
  check_defined(other, "dist", "other");
  return linalg::vector_norm(self.sub(other), p);
}

// Sum over the last dim of both (a scalar times a tensor for 0-dim inputs).
Tensor inner(const Tensor& self, const Tensor& other) {
  check_defined(self, "inner");
  check_defined(other, "inner", "other");
  if (self.dim() == 0 || other.dim() == 0) return self.mul(other);
  EMBER_CHECK(self.size(-1) == other.size(-1), "inner() the last dimension must match on both input tensors but got "
              "shapes ", self.sizes(), " and ", other.sizes());
  return tensordot(self, other, {-1}, {-1});
}

// Each sub-tensor along dim with a p-norm above maxnorm is scaled down to it.
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  check_defined(self, "renorm");
  EMBER_CHECK(p.toDouble() > 0, "renorm: non-positive-norm not supported");
  EMBER_CHECK(maxnorm.toDouble() >= 0, "renorm: expected maxnorm to be >= 0 but got ", maxnorm.toDouble());
  EMBER_CHECK(self.dim() > 1, "renorm: input needs at least 2 dimensions, got ", self.dim(), " dimensions");
  const int64_t d = maybe_wrap_dim(dim, self.dim(), "renorm");
  std::vector<int64_t> others;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d) others.push_back(i);
  const Tensor norms = linalg::vector_norm(self, p, IntArrayRef(others), /*keepdim=*/true);
  const double mx = maxnorm.toDouble();
  const Tensor factor = where(norms.gt(mx), norms.add(1e-7).reciprocal().mul(mx), ones_like(norms));
  return self.mul(factor.detach());
}
Tensor& renorm_(Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm) {
  return self.copy_(renorm(self, p, dim, maxnorm));
}

// The covariance of the rows (variables) over the columns (observations), with frequency and
// probability weights and PyTorch's correction rule.
Tensor cov(const Tensor& self, int64_t correction, const std::optional<Tensor>& fweights,
           const std::optional<Tensor>& aweights) {
  check_defined(self, "cov");
  EMBER_CHECK(self.dim() <= 2, "cov(): expected input to have two or fewer dimensions but got an input with ",
              self.dim(), " dimensions");
  Tensor x = self.dim() < 2 ? self.view({1, -1}) : self;
  const int64_t n = x.size(1);
  Tensor w;
  if (fweights && fweights->defined()) {
    EMBER_CHECK(fweights->dim() <= 1, "cov(): expected fweights to have one or fewer dimensions but got fweights "
                "with ", fweights->dim(), " dimensions");
    EMBER_CHECK(isIntegralType(fweights->scalar_type(), false), "cov(): expected fweights to have integral dtype "
                "but got fweights with ", fweights->scalar_type(), " dtype");
    EMBER_CHECK(fweights->numel() == n, "cov(): expected fweights to have the same numel as there are observations "
                "in the input but got ", fweights->numel(), " != ", n);
    EMBER_CHECK(fweights->numel() == 0 || fweights->min().item<int64_t>() >= 0,
                "cov(): fweights cannot be negative");
    w = *fweights;
  }
  if (aweights && aweights->defined()) {
    EMBER_CHECK(aweights->dim() <= 1, "cov(): expected aweights to have one or fewer dimensions but got aweights "
                "with ", aweights->dim(), " dimensions");
    EMBER_CHECK(aweights->is_floating_point(), "cov(): expected aweights to have floating point dtype but got "
                "aweights with ", aweights->scalar_type(), " dtype");
    EMBER_CHECK(aweights->numel() == n, "cov(): expected aweights to have the same numel as there are observations "
                "in the input but got ", aweights->numel(), " != ", n);
    EMBER_CHECK(aweights->numel() == 0 || aweights->min().item<double>() >= 0, "cov(): aweights cannot be negative");
    w = w.defined() ? w.mul(*aweights) : *aweights;
  }
  if (!x.is_floating_point() && !x.is_complex()) x = x.to(get_default_dtype());
  const Tensor w_sum = w.defined() ? w.sum() : full({}, double(n), x.options().dtype(toRealValueType(x.scalar_type())));
  const Tensor avg = w.defined() ? x.mul(w).sum(1).div(w_sum) : x.mean(1);
  Tensor norm_factor;
  if (w.defined() && correction != 0 && aweights && aweights->defined())
    norm_factor = w_sum.sub(w.mul(*aweights).sum().div(w_sum).mul(double(correction)));
  else
    norm_factor = w_sum.sub(double(correction));
  if (norm_factor.le(0).item<bool>()) {
    EMBER_WARN("cov(): degrees of freedom is <= 0");
    norm_factor = zeros_like(norm_factor);
  }
  const Tensor xc = x.sub(avg.unsqueeze(1));
  const Tensor xw = w.defined() ? xc.mul(w) : xc;
  return xw.matmul(xc.t().conj()).div(norm_factor).squeeze();
}

// The Pearson correlation coefficients, clipped to [-1, 1] as PyTorch does.
Tensor corrcoef(const Tensor& self) {
  check_defined(self, "corrcoef");
  EMBER_CHECK(self.dim() <= 2, "corrcoef(): expected input to have two or fewer dimensions but got an input with ",
              self.dim(), " dimensions");
  Tensor c = cov(self);
  if (c.dim() == 0) return c.div(c);
  const Tensor d = c.diagonal();
  const Tensor s = d.is_complex() ? real(d).sqrt() : d.sqrt();
  c = c.div(s.unsqueeze(1)).div(s.unsqueeze(0));
  return c.is_complex() ? complex(real(c).clamp(-1, 1), imag(c).clamp(-1, 1)) : c.clamp(-1, 1);
}

// Trapezoidal integration along dim, with spacing dx or sample points x.
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  check_defined(y, "trapezoid", "y");
  check_defined(x, "trapezoid", "x");
  const int64_t d = maybe_wrap_dim(dim, y.dim(), "trapezoid");
  const int64_t n = y.size(d);
  if (n == 0) return zeros_like(y).sum(d);
  Tensor dx = x.dim() == 1 ? x.diff() : x.diff(1, dim);
  if (x.dim() == 1) {
    EMBER_CHECK(x.size(0) == n, "trapezoid: There must be one `x` value for each sample point");
    std::vector<int64_t> shape(size_t(y.dim()), 1);
    shape[size_t(d)] = n - 1;
    dx = dx.view(shape);
  }
  return y.narrow(d, 1, n - 1).add(y.narrow(d, 0, n - 1)).mul(dx).sum(d).div(2);
}
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  check_defined(y, "trapezoid", "y");
  const int64_t d = maybe_wrap_dim(dim, y.dim(), "trapezoid");
  const int64_t n = y.size(d);
  if (n == 0) return zeros_like(y).sum(d);
  return y.narrow(d, 1, n - 1).add(y.narrow(d, 0, n - 1)).sum(d).mul(dx).div(2);
}
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid(y, x, dim); }
Tensor trapz(const Tensor& y, double dx, int64_t dim) { return trapezoid(y, Scalar(dx), dim); }
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  check_defined(y, "cumulative_trapezoid", "y");
  const int64_t d = maybe_wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  const int64_t n = y.size(d);
  Tensor dx = x.dim() == 1 ? x.diff() : x.diff(1, dim);
  if (x.dim() == 1) {
    std::vector<int64_t> shape(size_t(y.dim()), 1);
    shape[size_t(d)] = std::max<int64_t>(n - 1, 0);
    dx = dx.view(shape);
  }
  return y.narrow(d, 1, n - 1).add(y.narrow(d, 0, n - 1)).mul(dx).div(2).cumsum(d);
}
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  check_defined(y, "cumulative_trapezoid", "y");
  const int64_t d = maybe_wrap_dim(dim, y.dim(), "cumulative_trapezoid");
  const int64_t n = y.size(d);
  return y.narrow(d, 1, n - 1).add(y.narrow(d, 0, n - 1)).mul(dx).div(2).cumsum(d);
}

// Columns x^(N-1), ..., x^0 (or increasing).
Tensor vander(const Tensor& x, std::optional<int64_t> N, bool increasing) {
  check_defined(x, "vander", "x");
  EMBER_CHECK(x.dim() == 1, "x must be a one-dimensional tensor.");
  const int64_t n = N.value_or(x.size(0));
  EMBER_CHECK(n >= 0, "N must be non-negative.");
  const ScalarType t = promote_types(x.scalar_type(), kLong);
  Tensor powers = arange(n, TensorOptions().dtype(kLong));
  if (!increasing) powers = powers.flip({0});
  Tensor r = pow(x.to(t).unsqueeze(1), powers.unsqueeze(0));
  return r;
}

// Pairwise p-norm distances between the rows of x1 and x2 (batched).
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  check_defined(x1, "cdist", "x1");
  check_defined(x2, "cdist", "x2");
  EMBER_AUTOCAST(cdist, cdist(_ac[0], _ac[1], p, compute_mode), &x1, &x2);
  EMBER_CHECK(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: ", x1.size(-1),
              " X2: ", x2.size(-1));
  EMBER_CHECK(p >= 0, "cdist only supports non-negative p values");
  (void)compute_mode;
  const Tensor diff = x1.unsqueeze(-2).sub(x2.unsqueeze(-3));
  return linalg::vector_norm(diff, p, IntArrayRef{-1});
}
// The condensed distance vector of the rows of a 2-d input (upper triangle, row by row).
Tensor pdist(const Tensor& self, double p) {
  check_defined(self, "pdist");
  EMBER_CHECK(self.dim() == 2, "pdist only supports 2D tensors, got: ", self.dim(), "D");
  EMBER_CHECK(p >= 0, "pdist only supports non-negative p values");
  const int64_t n = self.size(0);
  const Tensor idx = triu_indices(n, n, 1);
  const Tensor d = self.index_select(0, idx[0]).sub(self.index_select(0, idx[1]));
  return linalg::vector_norm(d, p, IntArrayRef{-1});
}

// Whether each element occurs in test_elements (or not, with invert).
Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  check_defined(elements, "isin", "elements");
  check_defined(test_elements, "isin", "test_elements");
  (void)assume_unique;
  NoGradGuard no_grad;
  const Tensor flat = test_elements.flatten();
  Tensor found;
  if (flat.numel() == 0) {
    found = zeros_like(elements, dtype(kBool));
  } else {
    const Tensor sorted = std::get<0>(flat.sort());
    const Tensor pos = searchsorted(sorted, elements.contiguous()).clamp_max(sorted.numel() - 1);
    found = sorted.index_select(0, pos.flatten()).view(elements.sizes()).eq(elements);
  }
  return invert ? found.logical_not() : found;
}
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  return isin(elements, scalar_to_tensor(test_element), assume_unique, invert);
}
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return isin(scalar_to_tensor(element), test_elements, assume_unique, invert);
}

// x for x > 0, weight * x otherwise; weight per channel (dim 1) or one for all.
Tensor prelu(const Tensor& input, const Tensor& weight) {
  check_defined(input, "prelu", "input");
  check_defined(weight, "prelu", "weight");
  EMBER_CHECK(weight.numel() == 1 || (input.dim() >= 2 && weight.numel() == input.size(1)),
              "prelu: the number of weights (", weight.numel(), ") must be 1 or the number of channels (dim 1) of the "
              "input of shape ", input.sizes());
  Tensor w = weight;
  if (weight.numel() > 1) {
    DimVector shape(size_t(input.dim()), 1);
    shape[1] = weight.numel();
    w = weight.view(shape);
  }
  return where(input.gt(0), input, input.mul(w));  // at 0 the slope is w (PyTorch's prelu_backward)
}

}  // namespace ember
