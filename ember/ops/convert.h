// convert<To>(from): the value conversion used by copy_ and dtype casts, on host and
// device. complex -> real keeps the real part, anything -> bool tests for non-zero,
// Half/BFloat16 go through float.
#pragma once
#include <type_traits>

#include "ember/ops/dispatch.h"

namespace ember {

template <class To, class From>
EMBER_HD To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    // As PyTorch's casts: complex -> real types (bool included) keep the real part only.
    if constexpr (is_complex_v<From>) return float(v.real()) != 0;
    else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) return float(v) != 0.f;
    else return v != From(0);
  } else if constexpr (is_complex_v<To>) {
    using U = typename To::value_type;
    using UC = std::conditional_t<std::is_same_v<U, Half>, float, U>;
    if constexpr (is_complex_v<From>) {
      return To(Complex<UC>(UC(convert<double>(v.real())), UC(convert<double>(v.imag()))));
    } else {
      return To(Complex<UC>(convert<UC>(v), UC(0)));
    }
  } else if constexpr (is_complex_v<From>) {
    return convert<To>(v.real());
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return convert<To>(float(v));
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    if constexpr (std::is_same_v<From, double>) return To(float(v));
    else return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember
