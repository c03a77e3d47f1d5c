#include "ember/core/json.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "ember/core/error.h"
#include "ember/core/utf8.h"

namespace ember::json {

namespace {

const char* type_name(const Value& v) {
  static const char* names[] = {"null",  "bool",   "integer", "number", "string",
                                "array", "object", "integer above INT64_MAX"};
  return names[v.v.index()];
}

class Parser {
 public:
  Parser(std::string_view text, std::string_view what, int max_depth)
      : s_(text), what_(what), max_depth_(max_depth) {}

  Value parse_document() {
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected data after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(std::string_view msg) const {
    EMBER_ERROR(what_, ": invalid JSON at byte ", pos_, ": ", msg);
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  Value value(int depth) {
    skip_ws();
    if (pos_ >= s_.size()) fail("unexpected end of input");
    const char c = s_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= max_depth_) fail("nesting deeper than " + std::to_string(max_depth_));
      return c == '{' ? object(depth + 1) : array(depth + 1);
    }
    if (c == '"') return Value(string());
    if (literal("true")) return Value(true);
    if (literal("false")) return Value(false);
    if (literal("null")) return Value(nullptr);
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    fail(std::string("unexpected character '") + c + "'");
  }

  Value object(int depth) {
    expect('{');
    Object o;
    skip_ws();
    if (peek() == '}') {
      ++pos_;
      return Value(std::move(o));
    }
    for (;;) {
      skip_ws();
      if (peek() != '"') fail("expected a string key");
      std::string key = string();
      for (const auto& kv : o)
        if (kv.first == key) fail("duplicate key \"" + key + "\"");
      skip_ws();
      expect(':');
      o.emplace_back(std::move(key), value(depth));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}');
      return Value(std::move(o));
    }
  }

  Value array(int depth) {
    expect('[');
    Array a;
    skip_ws();
    if (peek() == ']') {
      ++pos_;
      return Value(std::move(a));
    }
    for (;;) {
      a.push_back(value(depth));
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']');
      return Value(std::move(a));
    }
  }

  uint32_t hex4() {
    if (pos_ + 4 > s_.size()) fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else fail("invalid hex digit in \\u escape");
    }
    return v;
  }
  // Length of the valid UTF-8 sequence at pos_, or 0.
  size_t utf8_length() const {
    const auto b = [&](size_t i) { return pos_ + i < s_.size() ? uint8_t(s_[pos_ + i]) : uint8_t(0); };
    const auto cont = [&](size_t i) { return (b(i) & 0xC0) == 0x80; };
    const uint8_t c = b(0);
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
      if (!cont(1) || !cont(2)) return 0;
      if ((c == 0xE0 && b(1) < 0xA0) || (c == 0xED && b(1) > 0x9F)) return 0;  // overlong / surrogate
      return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
      if (!cont(1) || !cont(2) || !cont(3)) return 0;
      if ((c == 0xF0 && b(1) < 0x90) || (c == 0xF4 && b(1) > 0x8F)) return 0;
      return 4;
    }
    return 0;
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      const char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (uint8_t(c) < 0x20) fail("control character in string");
      if (c == '\\') {
        ++pos_;
        if (pos_ >= s_.size()) fail("unterminated escape");
        const char e = s_[pos_++];
        switch (e) {
          case '"': out += '"'; break;
          case '\\': out += '\\'; break;
          case '/': out += '/'; break;
          case 'b': out += '\b'; break;
          case 'f': out += '\f'; break;
          case 'n': out += '\n'; break;
          case 'r': out += '\r'; break;
          case 't': out += '\t'; break;
          case 'u': {
            uint32_t cp = hex4();
            if (cp >= 0xD800 && cp <= 0xDBFF) {
              if (!literal("\\u")) fail("unpaired surrogate in \\u escape");
              const uint32_t lo = hex4();
              if (lo < 0xDC00 || lo > 0xDFFF) fail("unpaired surrogate in \\u escape");
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
              fail("unpaired surrogate in \\u escape");
            }
            utf8::append(out, cp);
            break;
          }
          default: fail(std::string("invalid escape '\\") + e + "'");
        }
        continue;
      }
      if (uint8_t(c) < 0x80) {
        out += c;
        ++pos_;
        continue;
      }
      const size_t n = utf8_length();
      if (n == 0) fail("invalid UTF-8 in string");
      out.append(s_.substr(pos_, n));
      pos_ += n;
    }
  }

  Value number() {
    const size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') ++pos_;
    } else {
      fail("invalid number");
    }
    bool integral = true;
    if (peek() == '.') {
      integral = false;
      ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("invalid number: digits expected after '.'");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!(peek() >= '0' && peek() <= '9')) fail("invalid number: digits expected in exponent");
      while (peek() >= '0' && peek() <= '9') ++pos_;
    }
    const std::string token(s_.substr(start, pos_ - start));
    if (integral) {
      errno = 0;
      char* end = nullptr;
      const long long i = std::strtoll(token.c_str(), &end, 10);
      if (errno == 0) return Value(int64_t(i));
      if (token[0] != '-') {  // above INT64_MAX: exact as uint64_t while it fits
        errno = 0;
        const unsigned long long u = std::strtoull(token.c_str(), &end, 10);
        if (errno == 0) return Value(uint64_t(u));
      }
    }
    // from_chars, unlike strtod, ignores the process locale (a comma decimal point).
    double d = 0;
    const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
    if (ec == std::errc::result_out_of_range) {  // as strtod: overflow to +-inf, underflow to +-0
      const bool tiny = token.find("e-") != std::string::npos || token.find("E-") != std::string::npos;
      d = tiny ? 0.0 : std::numeric_limits<double>::infinity();
      if (token[0] == '-') d = -d;
    } else if (ec != std::errc() || end != token.data() + token.size()) {
      fail("invalid number '" + token + "'");
    }
    return Value(d);
  }

  std::string_view s_;
  std::string_view what_;
  int max_depth_;
  size_t pos_ = 0;
};

void dump_to(std::string& out, const Value& v) {
  switch (v.v.index()) {
    case 0: out += "null"; break;
    case 1: out += std::get<bool>(v.v) ? "true" : "false"; break;
    case 2: out += std::to_string(std::get<int64_t>(v.v)); break;
    case 7: out += std::to_string(std::get<uint64_t>(v.v)); break;
    case 3: {
      const double d = std::get<double>(v.v);
      EMBER_CHECK(std::isfinite(d), "json::dump: ", d, " has no JSON representation");
      // The shortest text that reads back as exactly d, locale-independent, and always with
      // a '.' or an exponent: "1" or "-0" would read back as the integer 0 (losing -0.0's
      // sign) and change the value's type from double to integer.
      char buf[32];
      const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
      EMBER_INTERNAL_ASSERT(ec == std::errc(), "json::dump: to_chars failed");
      const std::string_view text(buf, size_t(end - buf));
      out += text;
      if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
      break;
    }
    case 4: dump_string(out, std::get<std::string>(v.v)); break;
    case 5: {
      out += '[';
      bool first = true;
      for (const Value& e : std::get<Array>(v.v)) {
        if (!first) out += ',';
        first = false;
        dump_to(out, e);
      }
      out += ']';
      break;
    }
    default: {
      out += '{';
      bool first = true;
      for (const auto& [k, e] : std::get<Object>(v.v)) {
        if (!first) out += ',';
        first = false;
        dump_string(out, k);
        out += ':';
        dump_to(out, e);
      }
      out += '}';
    }
  }
}

}  // namespace

bool Value::as_bool(std::string_view what) const {
  EMBER_CHECK(is_bool(), what, ": expected a JSON bool but got ", type_name(*this));
  return std::get<bool>(v);
}
int64_t Value::as_int(std::string_view what) const {
  EMBER_CHECK(is_int(), what, ": expected a JSON integer but got ", type_name(*this));
  return std::get<int64_t>(v);
}
double Value::as_double(std::string_view what) const {
  EMBER_CHECK(is_number(), what, ": expected a JSON number but got ", type_name(*this));
  if (is_int()) return double(std::get<int64_t>(v));
  return is_uint64() ? double(std::get<uint64_t>(v)) : std::get<double>(v);
}
const std::string& Value::as_string(std::string_view what) const {
  EMBER_CHECK(is_string(), what, ": expected a JSON string but got ", type_name(*this));
  return std::get<std::string>(v);
}
const Array& Value::as_array(std::string_view what) const {
  EMBER_CHECK(is_array(), what, ": expected a JSON array but got ", type_name(*this));
  return std::get<Array>(v);
}
const Object& Value::as_object(std::string_view what) const {
  EMBER_CHECK(is_object(), what, ": expected a JSON object but got ", type_name(*this));
  return std::get<Object>(v);
}
const Value* Value::find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, e] : std::get<Object>(v))
    if (k == key) return &e;
  return nullptr;
}

Value parse(std::string_view text, std::string_view what, int max_depth) {
  return Parser(text, what, max_depth).parse_document();
}

std::string dump(const Value& value) {
  std::string out;
  dump_to(out, value);
  return out;
}

void dump_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (uint8_t(c) < 0x20) {
          out += "\\u00";
          out += hex[uint8_t(c) >> 4];
          out += hex[uint8_t(c) & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace ember::json
