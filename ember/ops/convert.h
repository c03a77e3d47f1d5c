// convert<To>(from): the value conversion used by copy_ and dtype casts, on host and
// device. complex -> real keeps the real part, anything -> bool tests for non-zero,
// Half/BFloat16 go through float.
#pragma once
#include <cstdint>
#include <type_traits>

#include "ember/ops/dispatch.h"

namespace ember {
namespace detail {

// Note [Float to integer conversion]: a floating value outside the integer type's range (or NaN)
// makes static_cast undefined behaviour. ember defines it as x86 does, so results equal
// PyTorch's on x86: int32 and narrower signed types convert through int32 (out of range:
// INT32_MIN, then the low bits), unsigned types below 64 bits and int64 through int64 (out of
// range: INT64_MIN, then the low bits: -1.0 -> uint8 255, as c10's uint8 cast), uint64 directly
// where the value fits.
template <class To, class From>
EMBER_HD To float_to_integer(From v) {
  constexpr double two63 = 9223372036854775808.0;
  auto via_int64 = [](From x) -> int64_t {
    return double(x) >= -two63 && double(x) < two63 ? static_cast<int64_t>(x) : INT64_MIN;
  };
  if constexpr (std::is_signed_v<To> && sizeof(To) <= 4) {
    const bool fits = double(v) > -2147483649.0 && double(v) < 2147483648.0;
    return static_cast<To>(fits ? static_cast<int32_t>(v) : INT32_MIN);
  } else if constexpr (std::is_unsigned_v<To> && sizeof(To) == 8) {
    if (double(v) >= 0.0 && double(v) < 2.0 * two63) return static_cast<To>(v);
    return static_cast<To>(via_int64(v));
  } else {
    return static_cast<To>(via_int64(v));
  }
}

}  // namespace detail

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
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return detail::float_to_integer<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember
