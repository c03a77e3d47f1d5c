// result_type and wrapped numbers.
#include "ember/ops/type_promotion.h"

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
