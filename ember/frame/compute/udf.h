// User-defined functions over columns: map (row-wise, a C++ callable per element) and
// transform (batch-wise, a callable from a Column to a Column), TorchArrow's map and
// transform. Both run serially on the calling thread: the callable need not be thread-safe.
//
//   col.map([](int64_t x) { return x * 2.5; })                      float64; nulls stay null
//   col.map([](std::optional<int64_t> x) { return x.value_or(0); })  sees the nulls too
//   s.map([](std::string_view v) -> std::optional<std::string> {...})  nullable string
//   col.map([](const Value& v) { ... }, dtypes::Int64(true))         any type, explicit dtype
//   col.transform([](const Column& c) { return c * 2; }, 1024)       in batches of 1024 rows
//
// map's argument type selects how elements are read: a number type (the column is cast to
// it first, with overflow and truncation checks), bool, std::string_view or std::string
// (string columns), Column (list elements), or Value (any type). A std::optional<...>
// argument receives nulls as std::nullopt; a plain one is not called for them (the result
// is null there). The result dtype is deduced from the return type (numbers, bool,
// strings, std::vector<T> for lists, each optionally std::optional) unless given; a Value
// return needs the dtype.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/frame/builder.h"
#include "ember/frame/column.h"
#include "ember/frame/factory.h"

namespace ember::frame {

Column concat(const std::vector<Column>& columns);

namespace udf_detail {

template <class T> struct unwrap_optional { using type = T; static constexpr bool optional = false; };
template <class T> struct unwrap_optional<std::optional<T>> { using type = T; static constexpr bool optional = true; };

template <class R, class A> struct signature { using ret = R; using arg = A; static constexpr bool known = true; };
template <class F, class = void> struct call_traits { static constexpr bool known = false; };
template <class F>
struct call_traits<F, std::void_t<decltype(&F::operator())>> : call_traits<decltype(&F::operator())> {};
template <class C, class R, class A> struct call_traits<R (C::*)(A) const> : signature<R, A> {};
template <class C, class R, class A> struct call_traits<R (C::*)(A)> : signature<R, A> {};
template <class C, class R, class A> struct call_traits<R (C::*)(A) const noexcept> : signature<R, A> {};
template <class C, class R, class A> struct call_traits<R (C::*)(A) noexcept> : signature<R, A> {};
template <class R, class A> struct call_traits<R (*)(A)> : signature<R, A> {};
template <class R, class A> struct call_traits<R (*)(A) noexcept> : signature<R, A> {};
template <class R, class A> struct call_traits<R(A)> : signature<R, A> {};

// How map reads elements for an argument of element type T.
enum class InputKind { Number, Bool, String, List, Value };
template <class T>
constexpr InputKind input_kind() {
  if constexpr (std::is_same_v<T, bool>) return InputKind::Bool;
  else if constexpr (std::is_arithmetic_v<T>) return InputKind::Number;
  else if constexpr (std::is_same_v<T, std::string_view> || std::is_same_v<T, std::string>) return InputKind::String;
  else if constexpr (std::is_same_v<T, Column>) return InputKind::List;
  else return InputKind::Value;
}
template <class T>
constexpr bool supported_input = std::is_arithmetic_v<T> || std::is_same_v<T, std::string_view> ||
                                 std::is_same_v<T, std::string> || std::is_same_v<T, Column> ||
                                 std::is_same_v<T, Value>;

template <class T>
constexpr const char* arg_type_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_floating_point_v<T>) return sizeof(T) == 4 ? "float" : "double";
  else if constexpr (std::is_integral_v<T>) {
    using C = detail::canonical_number_t<T>;
    if constexpr (std::is_same_v<C, int8_t>) return "int8_t";
    else if constexpr (std::is_same_v<C, int16_t>) return "int16_t";
    else if constexpr (std::is_same_v<C, int32_t>) return "int32_t";
    else if constexpr (std::is_same_v<C, int64_t>) return "int64_t";
    else if constexpr (std::is_same_v<C, uint8_t>) return "uint8_t";
    else if constexpr (std::is_same_v<C, uint16_t>) return "uint16_t";
    else if constexpr (std::is_same_v<C, uint32_t>) return "uint32_t";
    else return "uint64_t";
  } else if constexpr (std::is_same_v<T, std::string_view>) return "std::string_view";
  else if constexpr (std::is_same_v<T, std::string>) return "std::string";
  else if constexpr (std::is_same_v<T, Column>) return "Column";
  else return "Value";
}

// Checks the column against the argument kind and returns the column to read (cast to the
// number type `number` for InputKind::Number, decoded when a dictionary). Names `op` in errors.
Column prepare_input(const char* op, const Column& c, InputKind kind, TypeId number, const char* arg_name);
// The builder for a result of `dtype`.
std::unique_ptr<ColumnBuilder> result_builder(const DType& dtype);

template <class T>
std::optional<T> read(const Column& c, int64_t i) {
  if constexpr (std::is_same_v<T, Value>) {
    Value v = c.get_value(i);
    if (v.is_null()) return std::nullopt;
    return v;
  } else if constexpr (std::is_same_v<T, std::string_view>) {
    return c.get_string(i);
  } else if constexpr (std::is_same_v<T, std::string>) {
    auto s = c.get_string(i);
    if (!s) return std::nullopt;
    return std::string(*s);
  } else if constexpr (std::is_same_v<T, Column>) {
    return c.get_list(i);
  } else {
    return c.get<detail::canonical_number_t<T>>(i);
  }
}

template <class R>
void append_result(ColumnBuilder& b, ColumnBuilder* fast, const R& r) {
  using U = typename unwrap_optional<R>::type;
  if constexpr (unwrap_optional<R>::optional) {
    if (!r) return b.append_null();
    append_result<U>(b, fast, *r);
  } else if constexpr (std::is_same_v<U, Value>) {
    b.append_value(r);
  } else if constexpr (std::is_same_v<U, bool>) {
    if (fast) return static_cast<BooleanBuilder*>(fast)->append(r);
    b.append_value(Value(r));
  } else if constexpr (std::is_arithmetic_v<U>) {
    using C = detail::canonical_number_t<U>;
    if (fast) return static_cast<NumericBuilder<C>*>(fast)->append(C(r));
    b.append_value(Value(r));
  } else if constexpr (std::is_convertible_v<U, std::string_view>) {
    if (fast) return static_cast<BinaryBuilder*>(fast)->append(std::string_view(r));
    b.append_value(Value(std::string_view(r)));
  } else {
    ColumnTraits<U>::append(b, r);
  }
}

// The fast builder for results of type U when `dtype` is exactly what U deduces to.
template <class U>
ColumnBuilder* fast_builder(ColumnBuilder& b) {
  if constexpr (std::is_same_v<U, bool>) return dynamic_cast<BooleanBuilder*>(&b);
  else if constexpr (std::is_arithmetic_v<U>) return dynamic_cast<NumericBuilder<detail::canonical_number_t<U>>*>(&b);
  else if constexpr (std::is_convertible_v<U, std::string_view>) return dynamic_cast<BinaryBuilder*>(&b);
  else return nullptr;
}

}  // namespace udf_detail

template <class F>
Column map(const Column& col, F&& fn, const std::optional<DType>& dtype = std::nullopt) {
  using Traits = udf_detail::call_traits<std::remove_cvref_t<F>>;
  static_assert(Traits::known,
                "map: the callable must take one argument of a concrete type (a number, bool, std::string_view, "
                "std::string, Column, Value, or std::optional of one); generic lambdas cannot be deduced");
  using A = std::remove_cvref_t<typename Traits::arg>;
  using T = typename udf_detail::unwrap_optional<A>::type;
  static_assert(udf_detail::supported_input<T>, "map: unsupported argument type");
  constexpr bool takes_nulls = udf_detail::unwrap_optional<A>::optional;
  using R = std::remove_cvref_t<typename Traits::ret>;
  using U = typename udf_detail::unwrap_optional<R>::type;
  static_assert(!std::is_void_v<R>, "map: the callable must return a value");

  TypeId number = TypeId::Int64;
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    number = detail::number_dtype<detail::canonical_number_t<T>>(false).id();
  const Column src = udf_detail::prepare_input("map", col, udf_detail::input_kind<T>(), number, udf_detail::arg_type_name<T>());
  auto deduce = [&]() -> DType {
    if (dtype) return *dtype;
    DType t = dtypes::string;
    if constexpr (std::is_same_v<U, Value>) {
      EMBER_CHECK(false, "map: the callable returns Value; pass the result dtype");
    } else if constexpr (std::is_convertible_v<U, std::string_view> && !std::is_arithmetic_v<U>) {
      t = dtypes::string;
    } else {
      t = ColumnTraits<U>::dtype();
    }
    const bool nullable = udf_detail::unwrap_optional<R>::optional || (!takes_nulls && src.null_count() > 0);
    return t.with_nullable(nullable);
  };
  const DType out = deduce();
  auto builder = udf_detail::result_builder(out);
  ColumnBuilder* fast = udf_detail::fast_builder<U>(*builder);
  const int64_t n = src.size();
  builder->reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    std::optional<T> v = udf_detail::read<T>(src, i);
    if constexpr (takes_nulls) {
      udf_detail::append_result<R>(*builder, fast, fn(std::move(v)));
    } else {
      if (!v) builder->append_null();
      else udf_detail::append_result<R>(*builder, fast, fn(std::move(*v)));
    }
  }
  return builder->finish();
}

// fn(Column) -> Column of the same length, over the whole column (batch_size <= 0) or over
// consecutive slices of batch_size rows, whose results are concatenated.
template <class F>
Column transform(const Column& col, F&& fn, int64_t batch_size = 0) {
  const int64_t n = col.size();
  if (batch_size <= 0 || batch_size >= n) {
    Column r = fn(col);
    EMBER_CHECK(r.defined() && r.size() == n, "transform: the callable returned ",
                r.defined() ? std::to_string(r.size()) + " rows" : std::string("an undefined column"), " for ", n,
                " rows");
    return r;
  }
  std::vector<Column> parts;
  for (int64_t b = 0; b < n; b += batch_size) {
    const int64_t len = std::min(batch_size, n - b);
    Column r = fn(col.slice(b, len));
    EMBER_CHECK(r.defined() && r.size() == len, "transform: the callable returned ",
                r.defined() ? std::to_string(r.size()) + " rows" : std::string("an undefined column"),
                " for the batch of rows [", b, ", ", b + len, ")");
    parts.push_back(std::move(r));
  }
  return concat(parts);
}

template <class F>
Column Column::map(F&& fn, const std::optional<DType>& dtype) const {
  return frame::map(*this, std::forward<F>(fn), dtype);
}

template <class F>
Column Column::transform(F&& fn, int64_t batch_size) const {
  return frame::transform(*this, std::forward<F>(fn), batch_size);
}

}  // namespace ember::frame
