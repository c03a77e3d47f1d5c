// Tensor comparison for tests.
#include "test_util.h"

#include <cmath>
#include <sstream>

namespace ember::test {

::testing::AssertionResult tensors_close(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  if (!actual.defined() || !expected.defined())
    return ::testing::AssertionFailure() << "undefined tensor";
  if (actual.sizes() != expected.sizes())
    return ::testing::AssertionFailure() << "shape " << actual.sizes() << " != expected " << expected.sizes();
  if (actual.scalar_type() != expected.scalar_type())
    return ::testing::AssertionFailure() << "dtype " << actual.scalar_type() << " != expected " << expected.scalar_type();
  ScalarType t = toRealValueType(actual.scalar_type());
  if (rtol < 0) rtol = t == kHalf ? 1e-3 : t == kBFloat16 ? 1.6e-2 : t == kFloat ? 1.3e-6 : 1e-7;
  if (atol < 0) atol = t == kHalf ? 1e-5 : t == kBFloat16 ? 1e-5 : t == kFloat ? 1e-5 : 1e-7;
  ScalarType wide = actual.is_complex() ? kComplexDouble : kDouble;
  Tensor a = actual.to(wide).contiguous(), e = expected.to(wide).contiguous();
  if (actual.is_complex()) {
    a = view_as_real(a).contiguous();
    e = view_as_real(e).contiguous();
  }
  const double* ap = a.data_ptr<double>();
  const double* ep = e.data_ptr<double>();
  int64_t n = a.numel(), bad = 0, first = -1;
  for (int64_t i = 0; i < n; ++i) {
    double x = ap[i], y = ep[i];
    bool ok = (std::isnan(x) && std::isnan(y)) || x == y || std::fabs(x - y) <= atol + rtol * std::fabs(y);
    if (!ok && bad++ == 0) first = i;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << n << " elements differ; first at flat index " << first
                                       << ": got " << ap[first] << ", expected " << ep[first] << " (rtol " << rtol
                                       << ", atol " << atol << ")";
}

}  // namespace ember::test
