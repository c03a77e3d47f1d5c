// Unicode property lookup over the generated two-stage table (unicode_data.inc).
#include "ember/frame/compute/unicode.h"

#include <cstring>

namespace ember::frame::unicode {

namespace {
#include "ember/frame/compute/unicode_data.inc"
}  // namespace

const UnicodeProps& props(uint32_t cp) {
  if (cp >= 0x110000) return kUnicodeProps[0];
  const uint32_t block = kUnicodeStage1[cp >> kUnicodeBlockBits];
  return kUnicodeProps[kUnicodeStage2[(block << kUnicodeBlockBits) | (cp & ((1u << kUnicodeBlockBits) - 1))]];
}

int64_t count_code_points(std::string_view s) {
  int64_t n = 0;
  size_t i = 0;
  const size_t len = s.size();
  for (; i + 8 <= len; i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    // Continuation bytes are 10xxxxxx: count the bytes that are not.
    const uint64_t cont = (w & ~(w << 1)) & 0x8080808080808080ULL;
    n += 8 - __builtin_popcountll(cont);
  }
  for (; i < len; ++i) n += (uint8_t(s[i]) & 0xC0) != 0x80;
  return n;
}

}  // namespace ember::frame::unicode
