#include "ember/frame/value.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <ostream>

#include "ember/core/error.h"
#include "ember/frame/detail/format.h"

namespace ember::frame {

const char* to_string(Value::Kind k) {
  switch (k) {
    case Value::Kind::Null: return "null";
    case Value::Kind::Bool: return "bool";
    case Value::Kind::Int: return "int";
    case Value::Kind::UInt: return "uint";
    case Value::Kind::Double: return "double";
    case Value::Kind::String: return "string";
    case Value::Kind::List: return "list";
  }
  return "?";
}

bool Value::as_bool() const {
  EMBER_CHECK_TYPE(is_bool(), "Value.as_bool: the value is a ", frame::to_string(kind()), " (", to_string(), ")");
  return std::get<bool>(v_);
}

int64_t Value::as_int() const {
  if (v_.index() == 3) {
    EMBER_CHECK(false, "Value.as_int: ", std::get<uint64_t>(v_), " does not fit in int64");
  }
  EMBER_CHECK_TYPE(v_.index() == 2, "Value.as_int: the value is a ", frame::to_string(kind()), " (", to_string(), ")");
  return std::get<int64_t>(v_);
}

uint64_t Value::as_uint() const {
  if (v_.index() == 3) return std::get<uint64_t>(v_);
  EMBER_CHECK_TYPE(v_.index() == 2, "Value.as_uint: the value is a ", frame::to_string(kind()), " (", to_string(), ")");
  const int64_t i = std::get<int64_t>(v_);
  EMBER_CHECK(i >= 0, "Value.as_uint: ", i, " is negative");
  return uint64_t(i);
}

double Value::as_double() const {
  switch (v_.index()) {
    case 2: return double(std::get<int64_t>(v_));
    case 3: return double(std::get<uint64_t>(v_));
    case 4: return std::get<double>(v_);
    default:
      EMBER_CHECK_TYPE(false, "Value.as_double: the value is a ", frame::to_string(kind()), " (", to_string(), ")");
  }
  return 0;
}

const std::string& Value::as_string() const {
  EMBER_CHECK_TYPE(is_string(), "Value.as_string: the value is a ", frame::to_string(kind()), " (", to_string(), ")");
  return std::get<std::string>(v_);
}

const Value::List& Value::as_list() const {
  EMBER_CHECK_TYPE(is_list(), "Value.as_list: the value is a ", frame::to_string(kind()), " (", to_string(), ")");
  return std::get<List>(v_);
}

bool Value::operator==(const Value& o) const {
  if (is_integer() && o.is_integer()) {
    if (v_.index() == o.v_.index()) return v_ == o.v_;
    return false;  // an Int is never above INT64_MAX, a UInt always is
  }
  if (is_double() && o.is_double()) {
    const double a = std::get<double>(v_), b = std::get<double>(o.v_);
    return a == b || (std::isnan(a) && std::isnan(b));
  }
  return v_ == o.v_;
}

std::string Value::to_string() const {
  std::string out;
  switch (kind()) {
    case Kind::Null: return "None";
    case Kind::Bool: return std::get<bool>(v_) ? "True" : "False";
    case Kind::Int: return std::to_string(std::get<int64_t>(v_));
    case Kind::UInt: return std::to_string(std::get<uint64_t>(v_));
    case Kind::Double: detail::format_double(out, std::get<double>(v_)); return out;
    case Kind::String: detail::format_quoted(out, std::get<std::string>(v_)); return out;
    case Kind::List: {
      out = "[";
      const auto& l = std::get<List>(v_);
      for (size_t i = 0; i < l.size(); ++i) out += (i ? ", " : "") + l[i].to_string();
      return out + "]";
    }
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Value& v) { return os << v.to_string(); }

}  // namespace ember::frame
