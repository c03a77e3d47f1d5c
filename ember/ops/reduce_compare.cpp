// Whole-tensor comparisons: isclose (elementwise, composed from pointwise ops), allclose and
// equal (reductions of it to a single bool).
#include "ember/ops/functions.h"

namespace ember {

Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK_TYPE(self.scalar_type() == other.scalar_type(), "isclose: ", self.scalar_type(), " did not match ",
                   other.scalar_type());
  EMBER_CHECK(rtol >= 0, "isclose: rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, "isclose: atol must be greater than or equal to zero, but got ", atol);
  Tensor close = eq(self, other);
  bool floating = self.is_floating_point() || self.is_complex();
  if (equal_nan && floating) close = logical_or(close, logical_and(isnan(self), isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  // Integers (and bools) are compared in the default float dtype, so differences cannot wrap.
  Tensor a = self, b = other;
  if (isIntegralType(self.scalar_type(), true)) {
    a = self.to(get_default_dtype());
    b = other.to(get_default_dtype());
  }
  Tensor allowed = add(abs(mul(b, Scalar(rtol))), Scalar(atol));
  Tensor actual = abs(sub(a, b));
  return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return all(isclose(self, other, rtol, atol, equal_nan)).item<bool>();
}

bool equal(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.device() == other.device(), "equal: expected both tensors on the same device, got ", self.device(),
              " and ", other.device());
  if (self.sizes() != other.sizes()) return false;
  if (self.numel() == 0) return true;
  return all(eq(self, other)).item<bool>();
}

}  // namespace ember
