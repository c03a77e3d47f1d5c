#include "ember/frame/utf8.h"

#include <cstring>

namespace ember::frame::utf8 {

bool is_valid(const uint8_t* s, int64_t n, int64_t* error_at) {
  int64_t i = 0;
  while (i < n) {
    // ASCII fast path, eight bytes at a time.
    if (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, s + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    const uint8_t c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
    else break;  // a continuation byte, an overlong lead (C0, C1) or F5..FF
    if (i + len > n) break;
    bool ok = true;
    for (int k = 1; k < len; ++k) {
      const uint8_t cc = s[i + k];
      if ((cc & 0xC0) != 0x80) { ok = false; break; }
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (!ok) break;
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      break;
    i += len;
  }
  if (i < n) {
    if (error_at) *error_at = i;
    return false;
  }
  return true;
}

}  // namespace ember::frame::utf8
