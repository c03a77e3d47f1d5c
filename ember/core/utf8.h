// UTF-8 encoding of one code point (RFC 3629), the one encoder every reader and string
// kernel uses (JSON and XML escapes, DataFrame case mapping). Callers pass valid scalar
// values (at most U+10FFFF, no surrogates); the validators live with their readers
// (ember/frame/utf8.h for string columns).
#pragma once
#include <cstdint>
#include <string>

namespace ember::utf8 {

// Bytes of the UTF-8 form of code point cp (1 to 4).
constexpr int encoded_length(uint32_t cp) { return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4; }

// Writes the UTF-8 form of cp at d (encoded_length(cp) bytes) and returns its length.
inline int encode(uint32_t cp, uint8_t* d) {
  const int n = encoded_length(cp);
  if (n == 1) {
    d[0] = uint8_t(cp);
    return 1;
  }
  static constexpr uint8_t kLead[5] = {0, 0, 0xC0, 0xE0, 0xF0};
  for (int i = n - 1; i > 0; --i, cp >>= 6) d[i] = uint8_t(0x80 | (cp & 0x3F));
  d[0] = uint8_t(kLead[n] | cp);
  return n;
}

// Appends the UTF-8 form of cp to out.
inline void append(std::string& out, uint32_t cp) {
  uint8_t bytes[4];
  out.append(reinterpret_cast<const char*>(bytes), size_t(encode(cp, bytes)));
}

}  // namespace ember::utf8
