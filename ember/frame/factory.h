// Convenience constructors, TorchArrow's ta.column(...) in C++:
//
//   column(std::vector<int64_t>{1, 2, 3})                      int64 (one copy of the values)
//   column(std::vector<std::optional<double>>{1.5, std::nullopt})  Float64(nullable=True)
//   column({1, 2, std::nullopt})                               Int64(nullable=True)
//   column({"a", "b"})                                         string
//   column(std::vector<std::optional<std::vector<int64_t>>>{...}) List(int64, nullable=True)
//   column(values, dtypes::Timestamp(TimeUnit::Micro))         an explicit dtype
//
// A std::vector's element type gives the dtype (std::optional<T> makes it nullable); a
// braced list is nullable only when it holds a std::nullopt, as TorchArrow infers from
// values. Struct columns come from struct_column(), dictionaries from dictionary_encode().
#pragma once
#include <concepts>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "ember/core/error.h"
#include "ember/frame/builder.h"

namespace ember::frame {

// How a C++ element type maps to a column: its dtype and how to append one value.
template <class T>
struct ColumnTraits;

namespace detail {
template <class T>
constexpr bool is_element_number = std::is_arithmetic_v<T> && !std::is_same_v<T, char>;
template <class T>
DType number_dtype(bool nullable) {
  if constexpr (std::is_same_v<T, bool>) return DType(TypeId::Bool, nullable);
  else if constexpr (std::is_floating_point_v<T>) return DType(sizeof(T) == 4 ? TypeId::Float32 : TypeId::Float64, nullable);
  else if constexpr (std::is_signed_v<T>)
    return DType(sizeof(T) == 1 ? TypeId::Int8 : sizeof(T) == 2 ? TypeId::Int16 : sizeof(T) == 4 ? TypeId::Int32 : TypeId::Int64, nullable);
  else
    return DType(sizeof(T) == 1 ? TypeId::UInt8 : sizeof(T) == 2 ? TypeId::UInt16 : sizeof(T) == 4 ? TypeId::UInt32 : TypeId::UInt64, nullable);
}
// The fixed-width C++ type with T's size and kind (long long -> int64_t).
template <class T>
using canonical_number_t = std::conditional_t<
    std::is_same_v<T, bool> || std::is_floating_point_v<T>, T,
    std::conditional_t<std::is_signed_v<T>,
                       std::conditional_t<sizeof(T) == 1, int8_t, std::conditional_t<sizeof(T) == 2, int16_t,
                                          std::conditional_t<sizeof(T) == 4, int32_t, int64_t>>>,
                       std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t,
                                          std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>>>;
// Whether a column of type `t` stores the C++ type whose canonical column type is `canonical`.
inline bool same_physical(TypeId canonical, TypeId t) {
  return t == canonical || (canonical == TypeId::Int32 && t == TypeId::Date32) ||
         (canonical == TypeId::Int64 && t == TypeId::Timestamp);
}
// A column of `n` fixed-width values copied from `data` (one memcpy).
Column fixed_width_column(const DType& type, const void* data, int64_t n);
}  // namespace detail

template <class T>
  requires detail::is_element_number<T>
struct ColumnTraits<T> {
  using C = detail::canonical_number_t<T>;
  static DType dtype(bool nullable = false) { return detail::number_dtype<C>(nullable); }
  static void append(ColumnBuilder& b, const T& v) {
    if constexpr (std::is_same_v<C, bool>) {
      if (auto* bb = dynamic_cast<BooleanBuilder*>(&b)) return bb->append(v);
    } else {
      if (auto* nb = dynamic_cast<NumericBuilder<C>*>(&b)) return nb->append(C(v));
    }
    b.append_value(Value(v));
  }
};

template <class T>
  requires std::same_as<T, std::string> || std::same_as<T, std::string_view> || std::same_as<T, const char*>
struct ColumnTraits<T> {
  static DType dtype(bool nullable = false) { return DType(TypeId::String, nullable); }
  static void append(ColumnBuilder& b, const T& v) {
    if (auto* sb = dynamic_cast<BinaryBuilder*>(&b)) return sb->append(std::string_view(v));
    b.append_value(Value(std::string_view(v)));
  }
};

template <class T>
struct ColumnTraits<std::optional<T>> {
  static DType dtype(bool = true) { return ColumnTraits<T>::dtype(true); }
  static void append(ColumnBuilder& b, const std::optional<T>& v) {
    if (v) ColumnTraits<T>::append(b, *v);
    else b.append_null();
  }
};

template <class T>
struct ColumnTraits<std::vector<T>> {
  static DType dtype(bool nullable = false) { return dtypes::List(ColumnTraits<T>::dtype(), nullable); }
  static void append(ColumnBuilder& b, const std::vector<T>& v) {
    auto* lb = dynamic_cast<ListBuilder*>(&b);
    EMBER_CHECK_TYPE(lb != nullptr && b.dtype().id() != TypeId::Map, "column: a list value for a column of type ",
                     b.dtype().to_string());
    lb->begin_list();
    for (const T& x : v) ColumnTraits<T>::append(lb->values(), x);
    lb->end_list();
  }
};

// A column from a vector; its dtype is `dtype` when given (a type with the same physical
// layout, or one that append_value converts to), else ColumnTraits<T>::dtype().
template <class T>
Column column(const std::vector<T>& values, const std::optional<DType>& dtype = std::nullopt) {
  const DType t = dtype ? *dtype : ColumnTraits<T>::dtype();
  if constexpr (detail::is_element_number<T> && !std::is_same_v<T, bool>) {
    using C = detail::canonical_number_t<T>;
    if (detail::same_physical(detail::number_dtype<C>(false).id(), t.id()))
      return detail::fixed_width_column(t, values.data(), int64_t(values.size()));
  }
  auto b = make_builder(t);
  b->reserve(int64_t(values.size()));
  for (const T& v : values) ColumnTraits<T>::append(*b, v);
  return b->finish();
}

namespace detail {
// One element of a braced list: a value convertible to T without narrowing kinds, or nullopt.
template <class T>
struct InitItem {
  std::optional<T> v;
  InitItem(std::nullopt_t) {}  // NOLINT
  template <class U>
    requires(std::is_same_v<T, bool> ? std::same_as<U, bool>
             : std::is_floating_point_v<T> ? std::is_floating_point_v<U>
             : std::is_integral_v<T> ? (std::is_integral_v<U> && !std::same_as<U, bool>)
                                     : std::is_convertible_v<U, std::string_view>)
  InitItem(const U& u) : v(T(u)) {}  // NOLINT
};
template <class T>
Column column_from_init(std::initializer_list<InitItem<T>> items, const std::optional<DType>& dtype) {
  bool any_null = false;
  for (const auto& it : items) any_null |= !it.v.has_value();
  const DType t = dtype ? *dtype : ColumnTraits<T>::dtype(any_null);
  auto b = make_builder(t);
  for (const auto& it : items) ColumnTraits<std::optional<T>>::append(*b, it.v);
  return b->finish();
}
}  // namespace detail

inline Column column(std::initializer_list<detail::InitItem<int64_t>> items, const std::optional<DType>& dtype = std::nullopt) {
  return detail::column_from_init<int64_t>(items, dtype);
}
inline Column column(std::initializer_list<detail::InitItem<double>> items, const std::optional<DType>& dtype = std::nullopt) {
  return detail::column_from_init<double>(items, dtype);
}
inline Column column(std::initializer_list<detail::InitItem<bool>> items, const std::optional<DType>& dtype = std::nullopt) {
  return detail::column_from_init<bool>(items, dtype);
}
inline Column column(std::initializer_list<detail::InitItem<std::string>> items, const std::optional<DType>& dtype = std::nullopt) {
  return detail::column_from_init<std::string>(items, dtype);
}

// A column of `dtype` from Values (see value.h), e.g. rows of a nested type.
Column column_from_values(const std::vector<Value>& values, const DType& dtype);

}  // namespace ember::frame
