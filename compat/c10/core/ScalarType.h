// LibTorch compatibility: c10/core/ScalarType.h's macros over the scalar types
// (AT_FORALL_SCALAR_TYPES..., used to stamp out code per type) and c10::impl's
// ScalarTypeToCPPType. The enum, the kFloat constants and toString are ember's
// (ember/core/dtype.h), reached through c10's using-directive.
#pragma once
#include <cstdint>

#include "c10/ember_namespaces.h"

namespace c10::impl {
template <::ember::ScalarType N>
struct ScalarTypeToCPPType {
  using type = ::ember::cpp_type_t<N>;
  static type t;  // declared only: LibTorch's macros name the type as decltype(...::t)
};
template <::ember::ScalarType N>
using ScalarTypeToCPPTypeT = typename ScalarTypeToCPPType<N>::type;
}  // namespace c10::impl

#define EMBER_COMPAT_CPP_TYPE_OF(SCALARTYPE) \
  decltype(::c10::impl::ScalarTypeToCPPType<::c10::ScalarType::SCALARTYPE>::t)

#define AT_FORALL_INT_TYPES(_) \
  _(uint8_t, Byte)             \
  _(int8_t, Char)              \
  _(int16_t, Short)            \
  _(int, Int)                  \
  _(int64_t, Long)
#define AT_FORALL_SCALAR_TYPES(_) \
  AT_FORALL_INT_TYPES(_)          \
  _(float, Float)                 \
  _(double, Double)
#define AT_FORALL_SCALAR_TYPES_AND(SCALARTYPE, _) \
  AT_FORALL_SCALAR_TYPES(_)                       \
  _(EMBER_COMPAT_CPP_TYPE_OF(SCALARTYPE), SCALARTYPE)
#define AT_FORALL_SCALAR_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, _) \
  AT_FORALL_SCALAR_TYPES_AND(SCALARTYPE1, _)                     \
  _(EMBER_COMPAT_CPP_TYPE_OF(SCALARTYPE2), SCALARTYPE2)
#define AT_FORALL_SCALAR_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, _) \
  AT_FORALL_SCALAR_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, _)                    \
  _(EMBER_COMPAT_CPP_TYPE_OF(SCALARTYPE3), SCALARTYPE3)
#define AT_FORALL_COMPLEX_TYPES(_)     \
  _(c10::complex<float>, ComplexFloat) \
  _(c10::complex<double>, ComplexDouble)
// Every type ember has, in LibTorch's order (ember has no quantized types).
#define AT_FORALL_SCALAR_TYPES_WITH_COMPLEX(_) \
  AT_FORALL_INT_TYPES(_)                       \
  _(c10::Half, Half)                           \
  _(float, Float)                              \
  _(double, Double)                            \
  _(c10::complex<c10::Half>, ComplexHalf)      \
  AT_FORALL_COMPLEX_TYPES(_)                   \
  _(bool, Bool)                                \
  _(c10::BFloat16, BFloat16)
#define AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_EXCEPT_COMPLEX_HALF(_) \
  AT_FORALL_INT_TYPES(_)                                           \
  _(c10::Half, Half)                                               \
  _(float, Float)                                                  \
  _(double, Double)                                                \
  AT_FORALL_COMPLEX_TYPES(_)                                       \
  _(bool, Bool)                                                    \
  _(c10::BFloat16, BFloat16)
