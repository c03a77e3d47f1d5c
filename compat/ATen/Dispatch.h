// LibTorch compatibility: ATen's AT_DISPATCH_* macros, which run a lambda with `scalar_t`
// (or `index_t`) bound to the C++ type of a runtime ScalarType:
//   AT_DISPATCH_FLOATING_TYPES(t.scalar_type(), "my_op", [&] { t.data_ptr<scalar_t>(); ... });
// A type outside the listed ones raises c10::Error `"my_op" not implemented for 'Int'`, as in
// LibTorch. (ember's own kernels dispatch with ember/ops/dispatch.h.)
#pragma once
#include "c10/core/ScalarType.h"
#include "c10/util/Exception.h"

namespace c10::impl {
inline ::ember::ScalarType dispatch_scalar_type(::ember::ScalarType t) { return t; }
inline ::ember::ScalarType dispatch_scalar_type(::ember::TypeMeta t) { return t.toScalarType(); }
}  // namespace c10::impl

#define AT_PRIVATE_CASE_TYPE_USING_HINT(enum_type, HINT, ...)                      \
  case enum_type: {                                                                \
    using HINT [[maybe_unused]] = ::c10::impl::ScalarTypeToCPPTypeT<enum_type>;    \
    return __VA_ARGS__();                                                          \
  }
#define AT_DISPATCH_CASE(enum_type, ...) AT_PRIVATE_CASE_TYPE_USING_HINT(enum_type, scalar_t, __VA_ARGS__)

#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                                  \
  [&] {                                                                                      \
    const ::c10::ScalarType _st = ::c10::impl::dispatch_scalar_type(TYPE);                   \
    constexpr const char* at_dispatch_name = NAME;                                           \
    switch (_st) {                                                                           \
      __VA_ARGS__                                                                            \
      default:                                                                               \
        TORCH_CHECK(false, '"', at_dispatch_name, "\" not implemented for '", ::c10::toString(_st), "'"); \
    }                                                                                        \
  }()

// The case lists.
#define AT_DISPATCH_CASE_FLOATING_TYPES(...)            \
  AT_DISPATCH_CASE(at::ScalarType::Double, __VA_ARGS__) \
  AT_DISPATCH_CASE(at::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)        \
  AT_DISPATCH_CASE(at::ScalarType::Half, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND(T1, ...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)       \
  AT_DISPATCH_CASE(T1, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND2(T1, T2, ...) \
  AT_DISPATCH_CASE_FLOATING_TYPES_AND(T1, __VA_ARGS__)    \
  AT_DISPATCH_CASE(T2, __VA_ARGS__)
#define AT_DISPATCH_CASE_COMPLEX_TYPES(...)                    \
  AT_DISPATCH_CASE(at::ScalarType::ComplexDouble, __VA_ARGS__) \
  AT_DISPATCH_CASE(at::ScalarType::ComplexFloat, __VA_ARGS__)
#define AT_DISPATCH_CASE_COMPLEX_TYPES_AND(T1, ...) \
  AT_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__)       \
  AT_DISPATCH_CASE(T1, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES(...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)           \
  AT_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND1(T1, ...) \
  AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES(__VA_ARGS__)        \
  AT_DISPATCH_CASE(T1, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND2(T1, T2, ...) \
  AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND1(T1, __VA_ARGS__)   \
  AT_DISPATCH_CASE(T2, __VA_ARGS__)
#define AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND3(T1, T2, T3, ...) \
  AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND2(T1, T2, __VA_ARGS__)   \
  AT_DISPATCH_CASE(T3, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)          \
  AT_DISPATCH_CASE(at::ScalarType::Byte, __VA_ARGS__) \
  AT_DISPATCH_CASE(at::ScalarType::Char, __VA_ARGS__) \
  AT_DISPATCH_CASE(at::ScalarType::Int, __VA_ARGS__)  \
  AT_DISPATCH_CASE(at::ScalarType::Long, __VA_ARGS__) \
  AT_DISPATCH_CASE(at::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_CASE_INTEGRAL_TYPES_AND(T1, ...) \
  AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__)       \
  AT_DISPATCH_CASE(T1, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES(...)        \
  AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND(T1, ...) \
  AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__)       \
  AT_DISPATCH_CASE(T1, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND2(T1, T2, ...) \
  AT_DISPATCH_CASE_ALL_TYPES_AND(T1, __VA_ARGS__)    \
  AT_DISPATCH_CASE(T2, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND3(T1, T2, T3, ...) \
  AT_DISPATCH_CASE_ALL_TYPES_AND2(T1, T2, __VA_ARGS__)   \
  AT_DISPATCH_CASE(T3, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX(...) \
  AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__)           \
  AT_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND(T1, ...) \
  AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX(__VA_ARGS__)       \
  AT_DISPATCH_CASE(T1, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND2(T1, T2, ...) \
  AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND(T1, __VA_ARGS__)    \
  AT_DISPATCH_CASE(T2, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND3(T1, T2, T3, ...) \
  AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND2(T1, T2, __VA_ARGS__)   \
  AT_DISPATCH_CASE(T3, __VA_ARGS__)
#define AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND4(T1, T2, T3, T4, ...) \
  AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND3(T1, T2, T3, __VA_ARGS__)   \
  AT_DISPATCH_CASE(T4, __VA_ARGS__)

// The dispatchers.
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND(T1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND2(T1, T2, __VA_ARGS__))
#define AT_DISPATCH_COMPLEX_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_COMPLEX_TYPES(__VA_ARGS__))
#define AT_DISPATCH_COMPLEX_TYPES_AND(T1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_COMPLEX_TYPES_AND(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES(__VA_ARGS__))
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND1(T1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND1(T1, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND2(T1, T2, __VA_ARGS__))
#define AT_DISPATCH_FLOATING_AND_COMPLEX_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_AND_COMPLEX_TYPES_AND3(T1, T2, T3, __VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_INTEGRAL_TYPES_AND(T1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES_AND(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND(T1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND2(T1, T2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND2(T1, T2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND3(T1, T2, T3, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND3(T1, T2, T3, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND(at::ScalarType::Half, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX(__VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND(T1, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND(T1, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(T1, T2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND2(T1, T2, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND3(T1, T2, T3, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND3(T1, T2, T3, __VA_ARGS__))
#define AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND4(T1, T2, T3, T4, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND_COMPLEX_AND4(T1, T2, T3, T4, __VA_ARGS__))
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...)                                            \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                            \
                     AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Int, index_t, __VA_ARGS__) \
                     AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Long, index_t, __VA_ARGS__))
