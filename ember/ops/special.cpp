#include "ember/ops/special.h"

#include <cmath>
#include <limits>


namespace ember::special {

Tensor entr(const Tensor& self) {
  check_defined(self, "special.entr", "self");
  const Tensor x = self.is_floating_point() ? self : self.to(get_default_dtype());
  Tensor positive = x.neg().mul(x.log());
  Tensor out = where(x.gt(0), positive, zeros_like(x));
  out = where(x.lt(0), full_like(x, -std::numeric_limits<double>::infinity()), out);
  return where(x.isnan(), x, out);
}

Tensor ndtr(const Tensor& self) {
  check_defined(self, "special.ndtr", "self");
  const Tensor x = self.is_floating_point() ? self : self.to(get_default_dtype());
  return ember::erfc(x.mul(-M_SQRT1_2)).mul(0.5);
}

Tensor xlog1py(const Tensor& self, const Tensor& other) {
  check_defined(self, "special.xlog1py", "self");
  check_defined(other, "special.xlog1py", "other");
  Tensor prod = self.mul(other.log1p());
  return where(self.eq(0).logical_and(other.isnan().logical_not()), zeros_like(prod), prod);
}

Tensor multigammaln(const Tensor& self, int64_t p) {
  check_defined(self, "special.multigammaln", "self");
  EMBER_CHECK(p >= 1, "special.multigammaln: p has to be greater than or equal to 1, got ", p);
  Tensor offsets = arange(0, -double(p) / 2, -0.5, self.options());
  Tensor terms = self.unsqueeze(-1).add(offsets).lgamma().sum(-1);
  return terms.add(double(p) * double(p - 1) / 4 * std::log(M_PI));
}

}  // namespace ember::special
