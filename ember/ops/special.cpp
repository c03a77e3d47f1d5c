// torch::special's functions: the pointwise-table ops under ATen's names, and the compositions.
#include "ember/ops/special.h"

#include <cmath>
#include <limits>

#include "ember/ops/out_arg.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/type_promotion.h"

namespace ember {

#define EMBER_PW_FN_OUT(name)                                                                    \
  Tensor name(const Tensor& self) {                                                              \
    check_defined(self, #name);                                                                  \
    return run_pointwise(name##_op, {}, {self});                                                 \
  }                                                                                              \
  Tensor& name##_out(Tensor& out, const Tensor& self) {                                          \
    run_pointwise(name##_op, out, {self});                                                       \
    return out;                                                                                  \
  }
EMBER_FOR_EACH_UNARY_FN_OUT()
#undef EMBER_PW_FN_OUT

#define EMBER_PW_FN_OUT(name)                                                                    \
  Tensor name(const Tensor& x, const Tensor& n) {                                                \
    check_defined(x, #name, "x");                                                                \
    check_defined(n, #name, "n");                                                                \
    return run_pointwise(name##_op, {}, {x, n});                                                 \
  }                                                                                              \
  Tensor name(const Scalar& x, const Tensor& n) { return name(scalar_to_tensor(x), n); }         \
  Tensor name(const Tensor& x, const Scalar& n) { return name(x, scalar_to_tensor(n)); }         \
  Tensor& name##_out(Tensor& out, const Tensor& x, const Tensor& n) {                            \
    run_pointwise(name##_op, out, {x, n});                                                       \
    return out;                                                                                  \
  }
EMBER_FOR_EACH_BINARY_FN_OUT()
#undef EMBER_PW_FN_OUT

Tensor igamma(const Tensor& self, const Tensor& other) {
  check_defined(self, "igamma");
  check_defined(other, "igamma", "other");
  return run_pointwise(igamma_op, {}, {self, other});
}
Tensor igammac(const Tensor& self, const Tensor& other) {
  check_defined(self, "igammac");
  check_defined(other, "igammac", "other");
  return run_pointwise(igammac_op, {}, {self, other});
}
Tensor& igamma_out(Tensor& out, const Tensor& self, const Tensor& other) {
  run_pointwise(igamma_op, out, {self, other});
  return out;
}
Tensor& igammac_out(Tensor& out, const Tensor& self, const Tensor& other) {
  run_pointwise(igammac_op, out, {self, other});
  return out;
}
Tensor& igamma_(Tensor& self, const Tensor& other) {
  run_pointwise(igamma_op, self, {self, other}, {}, true);
  return self;
}
Tensor& igammac_(Tensor& self, const Tensor& other) {
  run_pointwise(igammac_op, self, {self, other}, {}, true);
  return self;
}

Tensor polygamma(int64_t n, const Tensor& self) {
  check_defined(self, "polygamma");
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n, got n=", n);
  return run_pointwise(polygamma_op, {}, {self}, {n});
}
Tensor& polygamma_out(Tensor& out, int64_t n, const Tensor& self) {
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n, got n=", n);
  run_pointwise(polygamma_op, out, {self}, {n});
  return out;
}
Tensor& polygamma_(Tensor& self, int64_t n) {
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n, got n=", n);
  run_pointwise(polygamma_op, self, {self}, {n}, true);
  return self;
}
Tensor mvlgamma(const Tensor& self, int64_t p) { return special::multigammaln(self, p); }

}  // namespace ember

namespace ember::special {

Tensor& detail::write_special_out(Tensor& out, const Tensor& result, const char* op) {
  return write_out(out, result, op);
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

Tensor xlog1py(const Scalar& self, const Tensor& other) { return xlog1py(scalar_to_tensor(self, other.device()), other); }
Tensor xlog1py(const Tensor& self, const Scalar& other) { return xlog1py(self, scalar_to_tensor(other, self.device())); }

Tensor multigammaln(const Tensor& self, int64_t p) {
  check_defined(self, "special.multigammaln", "self");
  EMBER_CHECK(p >= 1, "special.multigammaln: p has to be greater than or equal to 1, got ", p);
  Tensor offsets = arange(0, -double(p) / 2, -0.5, self.options());
  Tensor terms = self.unsqueeze(-1).add(offsets).lgamma().sum(-1);
  return terms.add(double(p) * double(p - 1) / 4 * std::log(M_PI));
}

}  // namespace ember::special
