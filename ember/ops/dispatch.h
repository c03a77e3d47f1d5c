// visit_dtype: calls f(TypeTag<T>{}) for the C++ type of a runtime ScalarType, instantiating
// f only for the dtypes in Set; other dtypes raise a clear error naming the op.
#pragma once
#include "ember/core/dtype.h"

namespace ember {

template <class T> struct TypeTag { using type = T; };

namespace detail {
[[noreturn]] void unsupported_dtype(const char* op, ScalarType t);
}

template <DtypeSet Set, class F>
decltype(auto) visit_dtype(ScalarType t, const char* op, F&& f) {
  switch (t) {
#define EMBER_VISIT_CASE(T, name, k, s)                                         \
  case ScalarType::name:                                                        \
    if constexpr (Set.contains(ScalarType::name)) return f(TypeTag<T>{});       \
    break;
    EMBER_FORALL_SCALAR_TYPES(EMBER_VISIT_CASE)
#undef EMBER_VISIT_CASE
    default: break;
  }
  detail::unsupported_dtype(op, t);
}

// compute_t<T>: the type arithmetic on T is done in (Half/BFloat16 -> float,
// complex32 -> complex64); storage types convert on load and store.
template <class T> struct ComputeType { using type = T; };
template <> struct ComputeType<Half> { using type = float; };
template <> struct ComputeType<BFloat16> { using type = float; };
template <> struct ComputeType<ComplexHalf> { using type = Complex<float>; };
template <class T> using compute_t = typename ComputeType<T>::type;

template <class T> struct is_complex_t : std::false_type {};
template <class T> struct is_complex_t<Complex<T>> : std::true_type {};
template <class T> constexpr bool is_complex_v = is_complex_t<T>::value;
template <class T> struct RealOf { using type = T; };
template <class T> struct RealOf<Complex<T>> { using type = T; };
template <class T> using real_t = typename RealOf<T>::type;

}  // namespace ember
