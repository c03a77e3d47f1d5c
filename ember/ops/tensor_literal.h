// tensor({...}): tensors from nested initializer lists, vectors and scalars, with
// LibTorch's dtype inference (integers -> Long, floating -> default dtype, bool -> Bool,
// complex -> default complex dtype).
#pragma once
#include <initializer_list>
#include <iosfwd>
#include <vector>

#include "ember/core/tensor.h"

namespace ember {

class TensorDataContainer {
 public:
#define EMBER_TDC_SCALAR(T, dt) \
  TensorDataContainer(T v) : scalar_(v), dtype_(dt) {}  // NOLINT
  EMBER_TDC_SCALAR(bool, kBool)
  EMBER_TDC_SCALAR(uint8_t, kByte)
  EMBER_TDC_SCALAR(int8_t, kChar)
  EMBER_TDC_SCALAR(int16_t, kShort)
  EMBER_TDC_SCALAR(int32_t, kInt)
  EMBER_TDC_SCALAR(long, kLong)
  EMBER_TDC_SCALAR(long long, kLong)
  EMBER_TDC_SCALAR(float, kFloat)
  EMBER_TDC_SCALAR(double, kDouble)
  EMBER_TDC_SCALAR(Half, kHalf)
  EMBER_TDC_SCALAR(BFloat16, kBFloat16)
  EMBER_TDC_SCALAR(Complex<float>, kComplexFloat)
  EMBER_TDC_SCALAR(Complex<double>, kComplexDouble)
#undef EMBER_TDC_SCALAR
  TensorDataContainer(std::initializer_list<TensorDataContainer> l);  // NOLINT
  template <class T>
  TensorDataContainer(const std::vector<T>& v) : is_list_(true), from_values_(true) {  // NOLINT
    for (const T& x : v) children_.emplace_back(x);
    finish_list();
  }
  template <class T>
  TensorDataContainer(ArrayRef<T> v) : is_list_(true), from_values_(true) {  // NOLINT
    for (const T& x : v) children_.emplace_back(x);
    finish_list();
  }

  // LibTorch's three kinds: a scalar, a braced list, or values from a vector/ArrayRef (a
  // "tensor"); the accessors refuse the other kinds with LibTorch's messages.
  bool is_scalar() const { return !is_list_; }
  bool is_init_list() const { return is_list_ && !from_values_; }
  bool is_tensor() const { return is_list_ && from_values_; }
  const Scalar& scalar() const;
  const std::vector<TensorDataContainer>& init_list() const;
  Tensor tensor() const;  // the values in their own dtype
  void pretty_print_recursive(std::ostream& stream) const;
  IntArrayRef sizes() const { return sizes_; }
  ScalarType scalar_type() const { return dtype_; }
  // Writes the values into a contiguous tensor of dtype `dtype`.
  Tensor convert_to_tensor(const TensorOptions& options) const;

 private:
  void finish_list();
  void fill(Tensor& flat, int64_t& pos) const;

  Scalar scalar_;
  ScalarType dtype_ = ScalarType::Undefined;
  bool is_list_ = false;
  bool from_values_ = false;  // built from a std::vector or ArrayRef
  std::vector<TensorDataContainer> children_;
  std::vector<int64_t> sizes_;
};

// "{1.1, 2.2}", as LibTorch prints a TensorDataContainer.
std::ostream& operator<<(std::ostream& stream, const TensorDataContainer& c);

// LibTorch's torch::tensor. Floating values take the default dtype unless options say.
Tensor tensor(const TensorDataContainer& data, const TensorOptions& options = {});

namespace detail {
using ::ember::TensorDataContainer;  // LibTorch spells it torch::detail::TensorDataContainer
}  // namespace detail

}  // namespace ember
