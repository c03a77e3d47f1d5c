// Names, the promotion table and the default dtype.
#include "ember/core/dtype.h"

#include <atomic>
#include <ostream>

namespace ember {

const char* to_string(ScalarType t) {
  switch (t) {
#define EMBER_NAME_CASE(T, name, k, s) case ScalarType::name: return s;
    EMBER_FORALL_SCALAR_TYPES(EMBER_NAME_CASE)
#undef EMBER_NAME_CASE
    default: return "Undefined";
  }
}
std::ostream& operator<<(std::ostream& os, ScalarType t) { return os << to_string(t); }

ScalarType toComplexType(ScalarType t) {
  switch (t) {
    case kHalf: case kComplexHalf: return kComplexHalf;
    case kFloat: case kBFloat16: case kComplexFloat: return kComplexFloat;  // BFloat16 has Float's range
    case kDouble: case kComplexDouble: return kComplexDouble;
    default: EMBER_ERROR("toComplexType: no complex counterpart for dtype ", t,
                         " (expected Half, Float, Double or a complex dtype)");
  }
}

// Rows and columns in enum order. Same as PyTorch's _promoteTypesLookup.
ScalarType promoteTypes(ScalarType a, ScalarType b) {
  constexpr ScalarType b1 = kBool, u1 = kByte, i1 = kChar, i2 = kShort, i4 = kInt,
                       i8 = kLong, f2 = kHalf, bf = kBFloat16, f4 = kFloat, f8 = kDouble,
                       c2 = kComplexHalf, c4 = kComplexFloat, c8 = kComplexDouble;
  static constexpr ScalarType table[kNumScalarTypes][kNumScalarTypes] = {
      /*        b1  u1  i1  i2  i4  i8  f2  bf  f4  f8  c2  c4  c8 */
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c2, c4, c8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c2, c4, c8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c2, c4, c8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c2, c4, c8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c4, c8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c4, c8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8, c8},
      /* c2 */ {c2, c2, c2, c2, c2, c2, c2, c4, c4, c8, c2, c4, c8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c4, c8},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
  };
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return table[int(a)][int(b)];
}

bool canCast(ScalarType from, ScalarType to) {
  if (isComplexType(from) && !isComplexType(to)) return false;
  if (isFloatingType(from) && isIntegralType(to, /*include_bool=*/false)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

namespace {
std::atomic<ScalarType> g_default_dtype{kFloat};
}
TypeMeta get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
TypeMeta get_default_complex_dtype() { return toComplexType(get_default_dtype()); }

std::string_view TypeMeta::name() const noexcept {
  switch (type_) {
    case kBool: return "bool";
    case kByte: return "unsigned char";
    case kChar: return "signed char";
    case kShort: return "short int";
    case kInt: return "int";
    case kLong: return "long int";
    case kHalf: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kFloat: return "float";
    case kDouble: return "double";
    case kComplexHalf: return "c10::complex<c10::Half>";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
    default: return "nullptr (uninitialized)";
  }
}
std::ostream& operator<<(std::ostream& out, TypeMeta t) { return out << t.name(); }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK_TYPE(t == kHalf || t == kBFloat16 || t == kFloat || t == kDouble,
                   "set_default_dtype: only floating-point types are supported as the default "
                   "type, got ", t);
  g_default_dtype.store(t, std::memory_order_relaxed);
}

}  // namespace ember
