// PyTorch's result_type: tensors with dims outrank 0-dim tensors, which outrank wrapped
// numbers (Scalars); a lower-ranked operand only raises the result's category
// (bool < integer < floating < complex), never its width within a category.
#pragma once
#include "ember/core/tensor.h"

namespace ember {

struct ResultTypeState {
  ScalarType dim_result = ScalarType::Undefined;
  ScalarType zero_result = ScalarType::Undefined;
  ScalarType wrapped_result = ScalarType::Undefined;
};
ResultTypeState update_result_type_state(const Tensor& t, const ResultTypeState& s);
ResultTypeState update_result_type_state(const Scalar& s, const ResultTypeState& st);
ScalarType result_type(const ResultTypeState& s);

ScalarType result_type(TensorList tensors);
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const Scalar& b);
ScalarType result_type(const Scalar& a, const Tensor& b);
ScalarType result_type(const Scalar& a, const Scalar& b);

// A Scalar as a 0-dim "wrapped number" tensor of dtype Bool, Long, Double or ComplexDouble.
Tensor scalar_to_tensor(const Scalar& s, Device d = Device(kCPU));
// Raises "value cannot be converted to type T without overflow" when s does not fit in t
// (c10's checked_convert rules: integers may wrap into unsigned types, nan/inf never fit
// integers, complex with a non-zero imaginary part never fits a real type, bool takes all).
void check_scalar_fits(const Scalar& s, ScalarType t);
// A 0-dim tensor of the given dtype holding s (not a wrapped number).
Tensor scalar_tensor(const Scalar& s, const TensorOptions& options = {});

}  // namespace ember
