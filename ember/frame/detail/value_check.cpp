#include "ember/frame/detail/value_check.h"

#include <limits>

#include "ember/frame/utf8.h"

namespace ember::frame::detail {

namespace {

std::string mismatch(const DType& t, const Value& v) {
  return "cannot store " + v.to_string() + " (a " + to_string(v.kind()) + ") in a column of type " + t.to_string();
}

bool int_fits(const DType& t, const Value& v) {
  const bool is_uint = v.kind() == Value::Kind::UInt;
  if (t.is_unsigned_integer()) {
    const uint64_t max = t.bit_width() == 64 ? std::numeric_limits<uint64_t>::max() : (uint64_t(1) << t.bit_width()) - 1;
    return (is_uint || v.as_int() >= 0) && v.as_uint() <= max;
  }
  if (is_uint) return false;
  const int bits = t.bit_width();
  const int64_t i = v.as_int();
  if (bits == 64) return true;
  const int64_t lim = int64_t(1) << (bits - 1);
  return i >= -lim && i < lim;
}

}  // namespace

std::string value_error(const DType& t, const Value& v) {
  if (v.is_null()) return t.nullable() ? "" : "null in a column of non-nullable type " + t.to_string();
  switch (t.id()) {
    case TypeId::Bool: return v.is_bool() ? "" : mismatch(t, v);
    case TypeId::Float32:
    case TypeId::Float64: return v.is_double() || v.is_integer() ? "" : mismatch(t, v);
    case TypeId::String:
    case TypeId::LargeString:
    case TypeId::Binary:
    case TypeId::LargeBinary:
      if (!v.is_string()) return mismatch(t, v);
      if (t.is_string() && !utf8::is_valid(v.as_string())) return "the string " + v.to_string() + " is not valid UTF-8";
      return "";
    case TypeId::List:
    case TypeId::LargeList: {
      if (!v.is_list()) return mismatch(t, v);
      const auto& items = v.as_list();
      for (size_t i = 0; i < items.size(); ++i) {
        std::string e = value_error(t.value_type(), items[i]);
        if (!e.empty()) return "item " + std::to_string(i) + ": " + e;
      }
      return "";
    }
    case TypeId::Map: {
      if (!v.is_list()) return mismatch(t, v);
      for (const Value& kv : v.as_list()) {
        if (!kv.is_list() || kv.as_list().size() != 2) return "a map entry must be a {key, value} pair, got " + kv.to_string();
        if (kv.as_list()[0].is_null()) return "map keys cannot be null (entry " + kv.to_string() + ")";
        std::string e = value_error(t.key_type(), kv.as_list()[0]);
        if (e.empty()) e = value_error(t.value_type(), kv.as_list()[1]);
        if (!e.empty()) return "entry " + kv.to_string() + ": " + e;
      }
      return "";
    }
    case TypeId::Struct: {
      if (!v.is_list()) return mismatch(t, v);
      const auto& items = v.as_list();
      const auto& fields = t.fields();
      if (items.size() != fields.size())
        return std::to_string(items.size()) + " values for the " + std::to_string(fields.size()) + " fields of " + t.to_string();
      for (size_t i = 0; i < items.size(); ++i) {
        std::string e = value_error(fields[i].dtype, items[i]);
        if (!e.empty()) return "field '" + fields[i].name + "': " + e;
      }
      return "";
    }
    case TypeId::Dictionary: return value_error(t.value_type().with_nullable(false), v);
    default:  // integers, date32, timestamp
      if (!v.is_integer()) return mismatch(t, v);
      return int_fits(t, v) ? "" : v.to_string() + " is out of range for " + t.to_string();
  }
}

}  // namespace ember::frame::detail
