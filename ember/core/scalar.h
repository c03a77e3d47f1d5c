// Scalar: a number of any dtype category (bool, integer, floating, complex), as passed to
// ops like `add(t, 2)` or `full({2}, 1.5)`. Like a Python number, it promotes by category
// only (see result_type in ops/type_promotion.h).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <type_traits>

#include "ember/core/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Tag : uint8_t { Bool, Int, Double, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : tag_(Tag::Bool) { v_.i = v; }  // NOLINT
  Scalar(const char*) = delete;  // a string literal would otherwise become the bool `true`
  template <class T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : tag_(Tag::Int) { v_.i = static_cast<int64_t>(v); }  // NOLINT
  template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : tag_(Tag::Double) { v_.d = static_cast<double>(v); }  // NOLINT
  Scalar(Half v) : Scalar(float(v)) {}  // NOLINT
  Scalar(BFloat16 v) : Scalar(float(v)) {}  // NOLINT
  template <class T>
  Scalar(Complex<T> v) : tag_(Tag::Complex) {  // NOLINT
    v_.z[0] = double(float(v.real())), v_.z[1] = double(float(v.imag()));
  }
  template <class T>
  Scalar(std::complex<T> v) : tag_(Tag::Complex) { v_.z[0] = v.real(), v_.z[1] = v.imag(); }  // NOLINT

  Tag tag() const { return tag_; }
  bool isBoolean() const { return tag_ == Tag::Bool; }
  bool isIntegral(bool include_bool) const {
    return tag_ == Tag::Int || (include_bool && tag_ == Tag::Bool);
  }
  bool isFloatingPoint() const { return tag_ == Tag::Double; }
  bool isComplex() const { return tag_ == Tag::Complex; }
  // The dtype a wrapped number of this kind has: Bool, Long, Double or ComplexDouble.
  ScalarType type() const;

  double toDouble() const;
  int64_t toLong() const;
  bool toBool() const;
  Complex<double> toComplexDouble() const;
  float toFloat() const { return static_cast<float>(toDouble()); }
  int32_t toInt() const { return static_cast<int32_t>(toLong()); }
  template <class T> T to() const;

  Scalar operator-() const;
  bool equal(const Scalar& o) const;

 private:
  Tag tag_;
  union {
    int64_t i;
    double d;
    double z[2];
  } v_;
};

template <class T>
T Scalar::to() const {
  if constexpr (std::is_same_v<T, bool>) return toBool();
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(toLong());
  else if constexpr (std::is_same_v<T, Complex<double>>) return toComplexDouble();
  else if constexpr (std::is_same_v<T, Complex<float>>) return Complex<float>(toComplexDouble());
  else if constexpr (std::is_same_v<T, ComplexHalf>) return ComplexHalf(Complex<float>(toComplexDouble()));
  else return static_cast<T>(toDouble());
}

std::ostream& operator<<(std::ostream& os, const Scalar& s);

}  // namespace ember
