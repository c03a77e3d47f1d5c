// Internal: UTF-8 decoding and encoding, and per code point Unicode properties (simple case
// mappings, character classes) from unicode_data.inc (see Note [Unicode in .str]).
// Inputs are valid UTF-8: string columns are checked when built.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace ember::frame::unicode {

enum Flag : uint16_t {
  kAlpha = 1 << 0,
  kDigit = 1 << 1,
  kNumeric = 1 << 2,
  kDecimal = 1 << 3,
  kSpace = 1 << 4,
  kAlnum = 1 << 5,
  kLower = 1 << 6,     // a lowercase character
  kUpper = 1 << 7,     // an uppercase character
  kNotLower = 1 << 8,  // a cased character that is not lowercase (makes islower false)
  kNotUpper = 1 << 9,  // a cased character that is not uppercase
};

struct UnicodeProps {
  uint16_t flags;
  int32_t upper_delta;  // simple uppercase mapping: cp + upper_delta
  int32_t lower_delta;
};

const UnicodeProps& props(uint32_t cp);
inline uint32_t to_upper(uint32_t cp) { return uint32_t(int64_t(cp) + props(cp).upper_delta); }
inline uint32_t to_lower(uint32_t cp) { return uint32_t(int64_t(cp) + props(cp).lower_delta); }
inline bool has(uint32_t cp, uint16_t flag) { return (props(cp).flags & flag) != 0; }

// The code point at s[i] (valid UTF-8); advances i past it.
inline uint32_t decode(std::string_view s, size_t& i) {
  const uint8_t c = uint8_t(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  if (c < 0xE0) {
    const uint32_t cp = ((c & 0x1Fu) << 6) | (uint8_t(s[i + 1]) & 0x3Fu);
    i += 2;
    return cp;
  }
  if (c < 0xF0) {
    const uint32_t cp = ((c & 0x0Fu) << 12) | ((uint8_t(s[i + 1]) & 0x3Fu) << 6) | (uint8_t(s[i + 2]) & 0x3Fu);
    i += 3;
    return cp;
  }
  const uint32_t cp = ((c & 0x07u) << 18) | ((uint8_t(s[i + 1]) & 0x3Fu) << 12) | ((uint8_t(s[i + 2]) & 0x3Fu) << 6) |
                      (uint8_t(s[i + 3]) & 0x3Fu);
  i += 4;
  return cp;
}

// Bytes of the UTF-8 sequence led by byte c.
inline int sequence_length(uint8_t c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

// Number of code points in valid UTF-8 (counts the bytes that are not continuations).
int64_t count_code_points(std::string_view s);

}  // namespace ember::frame::unicode
