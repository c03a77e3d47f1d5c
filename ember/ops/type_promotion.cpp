// result_type and wrapped numbers.
#include "ember/ops/type_promotion.h"

#include <cmath>
#include <limits>

#include "ember/ops/functions.h"

namespace ember {

namespace {
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (isComplexType(higher)) return higher;
  if (isComplexType(lower)) {
    // Preserve the value type of higher if it is floating.
    if (isFloatingType(higher)) return toComplexType(higher);
    return lower;
  }
  if (isFloatingType(higher)) return higher;
  if (higher == kBool || isFloatingType(lower)) return promoteTypes(higher, lower);
  if (higher != ScalarType::Undefined) return higher;
  return lower;
}
}  // namespace

ResultTypeState update_result_type_state(const Tensor& t, const ResultTypeState& in) {
  if (!t.defined()) return in;
  ResultTypeState s = in;
  ScalarType current = t.scalar_type();
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) {
    if (isComplexType(current)) current = get_default_complex_dtype();
    else if (isFloatingType(current)) current = get_default_dtype();
  }
  if (t.dim() > 0) s.dim_result = promoteTypes(s.dim_result, current);
  else if (t.unsafeGetTensorImpl()->is_wrapped_number()) s.wrapped_result = promoteTypes(s.wrapped_result, current);
  else s.zero_result = promoteTypes(s.zero_result, current);
  return s;
}

ResultTypeState update_result_type_state(const Scalar& sc, const ResultTypeState& in) {
  ResultTypeState s = in;
  ScalarType current = sc.type();
  if (isComplexType(current)) current = get_default_complex_dtype();
  else if (isFloatingType(current)) current = get_default_dtype();
  s.wrapped_result = promoteTypes(s.wrapped_result, current);
  return s;
}

ScalarType result_type(const ResultTypeState& s) {
  return combine_categories(s.dim_result, combine_categories(s.zero_result, s.wrapped_result));
}

ScalarType result_type(TensorList tensors) {
  ResultTypeState s;
  for (const Tensor& t : tensors) s = update_result_type_state(t, s);
  return result_type(s);
}
ScalarType result_type(const Tensor& a, const Tensor& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, {})));
}
ScalarType result_type(const Tensor& a, const Scalar& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, {})));
}
ScalarType result_type(const Scalar& a, const Tensor& b) { return result_type(b, a); }
ScalarType result_type(const Scalar& a, const Scalar& b) {
  return result_type(update_result_type_state(b, update_result_type_state(a, {})));
}

namespace {
const char* c10_type_name(ScalarType t) {
  switch (t) {
    case kByte: return "uint8_t";
    case kChar: return "int8_t";
    case kShort: return "short int";
    case kInt: return "int";
    case kLong: return "long int";
    case kHalf: return "at::Half";
    case kBFloat16: return "at::BFloat16";
    case kFloat: return "float";
    case kDouble: return "double";
    case kComplexHalf: return "c10::complex<c10::Half>";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
    default: return to_string(t);
  }
}
double type_max(ScalarType t) {
  switch (toRealValueType(t)) {
    case kByte: return 255;
    case kChar: return 127;
    case kShort: return 32767;
    case kInt: return 2147483647.0;
    case kLong: return 9223372036854775807.0;
    case kHalf: return 65504.0;
    case kBFloat16: return 3.3895313892515355e38;
    case kFloat: return 3.4028234663852886e38;
    default: return std::numeric_limits<double>::max();
  }
}
double type_lowest(ScalarType t) { return toRealValueType(t) == kByte ? 0 : -type_max(t); }
bool real_overflows(double v, bool from_integer, ScalarType to) {
  ScalarType r = toRealValueType(to);
  if (isIntegralType(r, false)) {
    if (!from_integer && !std::isfinite(v)) return true;
    if (from_integer && r == kByte && v < 0) return -v > 255;  // two's complement wrap allowed
    if (r == kLong) return v < -9223372036854775808.0 || v >= 9223372036854775808.0;
    return v < type_lowest(r) || v > type_max(r);
  }
  if (std::isinf(v) || std::isnan(v)) return false;
  return v < type_lowest(r) || v > type_max(r);
}
}  // namespace

void check_scalar_fits(const Scalar& s, ScalarType t) {
  if (t == kBool || t == kComplexHalf) return;  // (PyTorch does not range-check complex32 either)
  bool bad = false;
  if (s.isComplex()) {
    auto z = s.toComplexDouble();
    bad = (!isComplexType(t) && z.imag() != 0) || real_overflows(z.real(), false, t) ||
          real_overflows(z.imag(), false, t);
  } else if (s.isFloatingPoint()) {
    bad = real_overflows(s.toDouble(), false, t);
  } else if (!s.isBoolean()) {
    int64_t v = s.toLong();
    bad = t == kLong ? false : real_overflows(double(v), true, t);
  }
  EMBER_CHECK(!bad, "value cannot be converted to type ", c10_type_name(t), " without overflow");
}

Tensor scalar_to_tensor(const Scalar& s, Device d) {
  Tensor t = scalar_tensor(s, TensorOptions().dtype(s.type()).device(d));
  t.unsafeGetTensorImpl()->set_wrapped_number(true);
  return t;
}

Tensor scalar_tensor(const Scalar& s, const TensorOptions& options) {
  Tensor t = empty({}, options);
  if (!t.is_meta()) t.fill_(s);
  return t;
}

}  // namespace ember
