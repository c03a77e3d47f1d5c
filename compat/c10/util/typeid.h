// LibTorch compatibility: caffe2::TypeMeta, the element type LibTorch's Tensor::dtype()
// returns. ember's dtype() is the ScalarType itself; a TypeMeta wraps one and converts to and
// from it implicitly, so code that compares, passes or stores either compiles with both.
#pragma once
#include <ostream>
#include <string_view>

#include "c10/ember_namespaces.h"

namespace caffe2 {

class TypeMeta {
 public:
  constexpr TypeMeta() noexcept : type_(::ember::ScalarType::Float) {}
  constexpr TypeMeta(::ember::ScalarType type) noexcept : type_(type) {}  // NOLINT
  constexpr operator ::ember::ScalarType() const noexcept { return type_; }  // NOLINT

  template <class T>
  static constexpr TypeMeta Make() noexcept { return TypeMeta(::ember::scalar_type_of<T>); }
  static constexpr TypeMeta fromScalarType(::ember::ScalarType type) noexcept { return TypeMeta(type); }
  constexpr ::ember::ScalarType toScalarType() const noexcept { return type_; }
  constexpr bool isScalarType() const noexcept { return true; }
  constexpr bool isScalarType(::ember::ScalarType type) const noexcept { return type_ == type; }
  template <class T>
  constexpr bool Match() const noexcept { return type_ == ::ember::scalar_type_of<T>; }
  size_t itemsize() const noexcept { return ::ember::element_size(type_); }
  // The C++ element type's name, as LibTorch prints it ("float", "c10::Half", "long int").
  std::string_view name() const noexcept {
    switch (type_) {
      case ::ember::ScalarType::Bool: return "bool";
      case ::ember::ScalarType::Byte: return "unsigned char";
      case ::ember::ScalarType::Char: return "signed char";
      case ::ember::ScalarType::Short: return "short int";
      case ::ember::ScalarType::Int: return "int";
      case ::ember::ScalarType::Long: return "long int";
      case ::ember::ScalarType::Half: return "c10::Half";
      case ::ember::ScalarType::BFloat16: return "c10::BFloat16";
      case ::ember::ScalarType::Float: return "float";
      case ::ember::ScalarType::Double: return "double";
      case ::ember::ScalarType::ComplexHalf: return "c10::complex<c10::Half>";
      case ::ember::ScalarType::ComplexFloat: return "c10::complex<float>";
      case ::ember::ScalarType::ComplexDouble: return "c10::complex<double>";
      default: return "nullptr (uninitialized)";
    }
  }

  friend constexpr bool operator==(TypeMeta a, TypeMeta b) noexcept { return a.type_ == b.type_; }
  friend constexpr bool operator!=(TypeMeta a, TypeMeta b) noexcept { return a.type_ != b.type_; }
  friend constexpr bool operator==(TypeMeta a, ::ember::ScalarType b) noexcept { return a.type_ == b; }
  friend constexpr bool operator!=(TypeMeta a, ::ember::ScalarType b) noexcept { return a.type_ != b; }
  friend constexpr bool operator==(::ember::ScalarType a, TypeMeta b) noexcept { return a == b.type_; }
  friend constexpr bool operator!=(::ember::ScalarType a, TypeMeta b) noexcept { return a != b.type_; }
  friend std::ostream& operator<<(std::ostream& out, TypeMeta t) { return out << t.name(); }

 private:
  ::ember::ScalarType type_;
};

}  // namespace caffe2

namespace c10 {
inline caffe2::TypeMeta scalarTypeToTypeMeta(ScalarType type) { return caffe2::TypeMeta(type); }
inline ScalarType typeMetaToScalarType(caffe2::TypeMeta meta) { return meta.toScalarType(); }
inline ScalarType typeMetaToScalarType(ScalarType type) { return type; }
}  // namespace c10
