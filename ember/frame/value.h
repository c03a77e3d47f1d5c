// Value: one element of a column as a small variant (null, bool, integer, float, string or
// bytes, or a sequence of Values for lists, structs and maps). Rows are built from Values
// (DataFrameBuilder::append_row; a list is spelled Value::List{1, 2}, since a braced Value{5}
// must stay the number 5) and Column::get_value returns them; the column's DType
// gives them their meaning (a struct is its field values in order, a map a sequence of
// {key, value} pairs, a date32 its day count, a timestamp its count of units).
#pragma once
#include <concepts>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

namespace ember::frame {

class Value {
 public:
  using List = std::vector<Value>;
  enum class Kind { Null, Bool, Int, UInt, Double, String, List };

  Value() = default;  // null
  Value(std::nullopt_t) {}  // NOLINT
  Value(std::nullptr_t) {}  // NOLINT
  Value(bool b) : v_(b) {}  // NOLINT
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  Value(I i) {  // NOLINT: unsigned values beyond int64 keep their exact value
    if constexpr (std::is_unsigned_v<I>) {
      if (uint64_t(i) > uint64_t(INT64_MAX)) { v_ = uint64_t(i); return; }
    }
    v_ = int64_t(i);
  }
  Value(double d) : v_(d) {}  // NOLINT
  Value(float f) : v_(double(f)) {}  // NOLINT
  Value(const char* s) : v_(std::string(s)) {}  // NOLINT
  Value(std::string s) : v_(std::move(s)) {}  // NOLINT
  Value(std::string_view s) : v_(std::string(s)) {}  // NOLINT
  Value(List items) : v_(std::move(items)) {}  // NOLINT
  template <class T>
  Value(const std::optional<T>& o) {  // NOLINT
    if (o) *this = Value(*o);
  }

  Kind kind() const { return Kind(v_.index()); }
  bool is_null() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  // An integer (Int, or UInt for values above INT64_MAX).
  bool is_integer() const { return v_.index() == 2 || v_.index() == 3; }
  bool is_double() const { return v_.index() == 4; }
  bool is_string() const { return v_.index() == 5; }
  bool is_list() const { return v_.index() == 6; }

  // Typed access; the wrong kind raises an error naming both.
  bool as_bool() const;
  int64_t as_int() const;     // an Int, or a UInt that fits
  uint64_t as_uint() const;   // a non-negative Int or a UInt
  double as_double() const;   // a Double, or an integer converted
  const std::string& as_string() const;
  const List& as_list() const;

  bool operator==(const Value& o) const;  // NaN equals NaN; Int 1 equals UInt 1, not Double 1.0
  // Python-like spelling: None, True, 3, 2.5, 'abc', [1, None].
  std::string to_string() const;

 private:
  std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, List> v_;
};

const char* to_string(Value::Kind k);
std::ostream& operator<<(std::ostream& os, const Value& v);

}  // namespace ember::frame
