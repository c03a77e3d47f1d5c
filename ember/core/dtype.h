// ScalarType: the 13 element types, expanded from one X-macro list into the enum, names,
// sizes and kFloat-style constants. Type promotion is an explicit table (dtype.cpp).
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string_view>

#include "ember/core/complex.h"
#include "ember/core/error.h"

namespace ember {

// _(C++ type, enum name, LibTorch constant suffix, printed name)
#define EMBER_FORALL_SCALAR_TYPES(_)               \
  _(bool, Bool, Bool, "Bool")                      \
  _(uint8_t, Byte, Byte, "Byte")                   \
  _(int8_t, Char, Char, "Char")                    \
  _(int16_t, Short, Short, "Short")                \
  _(int32_t, Int, Int, "Int")                      \
  _(int64_t, Long, Long, "Long")                   \
  _(::ember::Half, Half, Half, "Half")             \
  _(::ember::BFloat16, BFloat16, BFloat16, "BFloat16") \
  _(float, Float, Float, "Float")                  \
  _(double, Double, Double, "Double")              \
  _(::ember::ComplexHalf, ComplexHalf, ComplexHalf, "ComplexHalf") \
  _(::ember::Complex<float>, ComplexFloat, ComplexFloat, "ComplexFloat") \
  _(::ember::Complex<double>, ComplexDouble, ComplexDouble, "ComplexDouble")

enum class ScalarType : int8_t {
#define EMBER_DEFINE_ENUM(T, name, k, s) name,
  EMBER_FORALL_SCALAR_TYPES(EMBER_DEFINE_ENUM)
#undef EMBER_DEFINE_ENUM
  Undefined,
  NumOptions
};
using Dtype = ScalarType;
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

#define EMBER_DEFINE_CONSTANT(T, name, suffix, s) constexpr ScalarType k##suffix = ScalarType::name;
EMBER_FORALL_SCALAR_TYPES(EMBER_DEFINE_CONSTANT)
#undef EMBER_DEFINE_CONSTANT
// LibTorch's aliases.
constexpr ScalarType kUInt8 = kByte, kInt8 = kChar, kInt16 = kShort, kInt32 = kInt,
                     kInt64 = kLong, kFloat16 = kHalf, kFloat32 = kFloat, kFloat64 = kDouble,
                     kComplexHalf32 = kComplexHalf, kComplex64 = kComplexFloat,
                     kComplex128 = kComplexDouble;

// C++ type <-> ScalarType.
template <class T> struct CppTypeToScalarType;
template <ScalarType S> struct ScalarTypeToCpp;
#define EMBER_MAP_TYPE(T, name, k, s)                                                     \
  template <> struct CppTypeToScalarType<T> { static constexpr ScalarType value = ScalarType::name; }; \
  template <> struct ScalarTypeToCpp<ScalarType::name> { using type = T; };
EMBER_FORALL_SCALAR_TYPES(EMBER_MAP_TYPE)
#undef EMBER_MAP_TYPE
template <class T> constexpr ScalarType scalar_type_of = CppTypeToScalarType<T>::value;
template <ScalarType S> using cpp_type_t = typename ScalarTypeToCpp<S>::type;

constexpr size_t element_size(ScalarType t) {
  switch (t) {
#define EMBER_SIZE_CASE(T, name, k, s) case ScalarType::name: return sizeof(T);
    EMBER_FORALL_SCALAR_TYPES(EMBER_SIZE_CASE)
#undef EMBER_SIZE_CASE
    default: return 0;
  }
}
const char* to_string(ScalarType t);
// c10's spellings: toString(kFloat) is "Float", elementSize(kFloat) 4.
inline const char* toString(ScalarType t) { return to_string(t); }
constexpr size_t elementSize(ScalarType t) { return element_size(t); }
std::ostream& operator<<(std::ostream& os, ScalarType t);

constexpr bool isComplexType(ScalarType t) {
  return t == kComplexHalf || t == kComplexFloat || t == kComplexDouble;
}
constexpr bool isFloatingType(ScalarType t) {
  return t == kHalf || t == kBFloat16 || t == kFloat || t == kDouble;
}
constexpr bool isReducedFloatingType(ScalarType t) { return t == kHalf || t == kBFloat16; }
constexpr bool isIntegralType(ScalarType t, bool include_bool) {
  return (t >= kByte && t <= kLong) || (include_bool && t == kBool);
}
constexpr bool isSignedType(ScalarType t) { return t != kBool && t != kByte; }
// Complex<T> -> T; other types unchanged.
constexpr ScalarType toRealValueType(ScalarType t) {
  return t == kComplexHalf ? kHalf : t == kComplexFloat ? kFloat : t == kComplexDouble ? kDouble : t;
}
// float -> Complex<float>; errors for types without a complex counterpart.
ScalarType toComplexType(ScalarType t);
// The type a kernel computes in: Half/BFloat16 widen to float, complex32 to complex64.
constexpr ScalarType computeType(ScalarType t) {
  return isReducedFloatingType(t) ? kFloat : t == kComplexHalf ? kComplexFloat : t;
}

// PyTorch's promotion lattice.
ScalarType promoteTypes(ScalarType a, ScalarType b);
inline ScalarType promote_types(ScalarType a, ScalarType b) { return promoteTypes(a, b); }
// Whether a value of type `from` may be written into `to` without a lossy category change.
bool canCast(ScalarType from, ScalarType to);
inline bool can_cast(ScalarType from, ScalarType to) { return canCast(from, to); }

// What Tensor::dtype() returns, as LibTorch's caffe2::TypeMeta: a ScalarType that prints the
// C++ element type's name ("float", "long int"; a ScalarType prints "Float", "Long") and has
// itemsize() and name(). It converts to and from ScalarType implicitly, so ember code can
// switch on, compare and pass either.
class TypeMeta {
 public:
  constexpr TypeMeta() noexcept : type_(ScalarType::Undefined) {}
  constexpr TypeMeta(ScalarType type) noexcept : type_(type) {}  // NOLINT: implicit
  constexpr operator ScalarType() const noexcept { return type_; }  // NOLINT: implicit

  template <class T>
  static constexpr TypeMeta Make() noexcept { return TypeMeta(scalar_type_of<T>); }
  static constexpr TypeMeta fromScalarType(ScalarType type) noexcept { return TypeMeta(type); }
  constexpr ScalarType toScalarType() const noexcept { return type_; }
  constexpr bool isScalarType() const noexcept { return type_ != ScalarType::Undefined; }
  constexpr bool isScalarType(ScalarType type) const noexcept { return type_ == type; }
  template <class T>
  constexpr bool Match() const noexcept { return type_ == scalar_type_of<T>; }
  constexpr size_t itemsize() const noexcept { return element_size(type_); }
  // The C++ element type's name as LibTorch prints it: "float", "c10::Half", "long int".
  std::string_view name() const noexcept;

  friend constexpr bool operator==(TypeMeta a, TypeMeta b) noexcept { return a.type_ == b.type_; }
  friend constexpr bool operator==(TypeMeta a, ScalarType b) noexcept { return a.type_ == b; }
  friend std::ostream& operator<<(std::ostream& out, TypeMeta t);

 private:
  ScalarType type_;
};

// The dtype of floating factories and of Python-style float scalars (torch.set_default_dtype).
TypeMeta get_default_dtype();
TypeMeta get_default_complex_dtype();
void set_default_dtype(ScalarType t);

// A small bitset of dtypes, used by op definitions to say what they accept.
class DtypeSet {
 public:
  constexpr DtypeSet() = default;
  constexpr DtypeSet(std::initializer_list<ScalarType> l) {
    for (auto t : l) bits_ |= 1u << int(t);
  }
  constexpr bool contains(ScalarType t) const { return bits_ >> int(t) & 1u; }
  constexpr DtypeSet operator|(DtypeSet o) const { DtypeSet r; r.bits_ = bits_ | o.bits_; return r; }
  constexpr DtypeSet operator-(DtypeSet o) const { DtypeSet r; r.bits_ = bits_ & ~o.bits_; return r; }
  constexpr uint32_t bits() const { return bits_; }

  uint32_t bits_ = 0;  // public: DtypeSet is used as a template argument
};
constexpr DtypeSet kIntegralTypes{kByte, kChar, kShort, kInt, kLong};
constexpr DtypeSet kBoolType{kBool};
constexpr DtypeSet kFloatingTypes{kHalf, kBFloat16, kFloat, kDouble};
constexpr DtypeSet kComplexTypes{kComplexHalf, kComplexFloat, kComplexDouble};
constexpr DtypeSet kFloatingAndComplexTypes = kFloatingTypes | kComplexTypes;
constexpr DtypeSet kRealTypes = kIntegralTypes | kFloatingTypes;  // no bool, no complex
constexpr DtypeSet kAllTypes = kBoolType | kIntegralTypes | kFloatingTypes | kComplexTypes;

}  // namespace ember
