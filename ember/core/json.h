// A small JSON value, reader and writer (RFC 8259) for file headers and metadata: exact
// 64-bit integers, UTF-8 strings with escapes, objects that keep their key order. The
// reader takes untrusted input: it bounds nesting depth, rejects duplicate keys, invalid
// escapes and trailing bytes, and reports the byte offset of every error.
//
// The one JSON of ember (checkpoint and safetensors headers, DataPipe state, scheduler
// state, the tests' golden files). Written here rather than taken from nlohmann-json
// because the reader faces untrusted file headers: nlohmann keeps the last of duplicate
// keys (a safetensors header must reject them), reports no byte offsets, and its
// exceptions would have to be translated at every call; ~400 lines, fuzzed
// (fuzz/json_fuzz.cpp). In core, below every layer that reads or writes state.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace ember::json {

struct Value;
using Array = std::vector<Value>;
using Object = std::vector<std::pair<std::string, Value>>;

struct Value {
  // Numbers without a fraction or exponent that fit keep their exact integer value: int64_t,
  // or uint64_t for those above INT64_MAX (Arrow's uint64 statistics and metadata).
  std::variant<std::nullptr_t, bool, int64_t, double, std::string, Array, Object, uint64_t> v = nullptr;

  Value() = default;
  Value(std::nullptr_t) {}  // NOLINT
  Value(bool b) : v(b) {}  // NOLINT
  Value(int64_t i) : v(i) {}  // NOLINT
  Value(uint64_t u) : v(u) {}  // NOLINT
  Value(double d) : v(d) {}  // NOLINT
  Value(std::string s) : v(std::move(s)) {}  // NOLINT
  Value(const char* s) : v(std::string(s)) {}  // NOLINT
  Value(Array a) : v(std::move(a)) {}  // NOLINT
  Value(Object o) : v(std::move(o)) {}  // NOLINT

  bool is_null() const { return v.index() == 0; }
  bool is_bool() const { return v.index() == 1; }
  bool is_int() const { return v.index() == 2; }
  bool is_uint64() const { return v.index() == 7; }  // an integer above INT64_MAX
  bool is_number() const { return v.index() == 2 || v.index() == 3 || v.index() == 7; }
  bool is_string() const { return v.index() == 4; }
  bool is_array() const { return v.index() == 5; }
  bool is_object() const { return v.index() == 6; }
  // Typed access; a wrong type raises an error naming `what` (e.g. the field).
  bool as_bool(std::string_view what = "value") const;
  int64_t as_int(std::string_view what = "value") const;
  double as_double(std::string_view what = "value") const;
  const std::string& as_string(std::string_view what = "value") const;
  const Array& as_array(std::string_view what = "value") const;
  const Object& as_object(std::string_view what = "value") const;
  // The member `key` of an object, or nullptr.
  const Value* find(std::string_view key) const;
};

// Parses exactly one JSON text; `what` names the source in error messages.
Value parse(std::string_view text, std::string_view what = "JSON", int max_depth = 64);
// Compact serialization (no spaces); strings are escaped, doubles round-trip exactly.
std::string dump(const Value& value);
// Appends `s` as a quoted, escaped JSON string.
void dump_string(std::string& out, std::string_view s);

}  // namespace ember::json
