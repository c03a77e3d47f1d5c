// The one UTF-8 encoder (ember/core/utf8.h): RFC 3629's examples and boundaries, and every
// scalar value decoded back by an independent decoder written here from the RFC's table.
#include <gtest/gtest.h>

#include <string>

#include "ember/core/utf8.h"

namespace ember {
namespace {

std::string encoded(uint32_t cp) {
  std::string s;
  utf8::append(s, cp);
  return s;
}

TEST(Utf8, KnownSequences) {
  EXPECT_EQ(encoded(0x00), std::string(1, '\0'));
  EXPECT_EQ(encoded(0x41), "A");
  EXPECT_EQ(encoded(0x7F), "\x7F");
  EXPECT_EQ(encoded(0x80), "\xC2\x80");
  EXPECT_EQ(encoded(0x7FF), "\xDF\xBF");
  EXPECT_EQ(encoded(0x800), "\xE0\xA0\x80");
  EXPECT_EQ(encoded(0x20AC), "\xE2\x82\xAC");  // euro sign
  EXPECT_EQ(encoded(0xFFFF), "\xEF\xBF\xBF");
  EXPECT_EQ(encoded(0x10000), "\xF0\x90\x80\x80");
  EXPECT_EQ(encoded(0x10348), "\xF0\x90\x8D\x88");  // RFC 3629 example: Gothic letter hwair
  EXPECT_EQ(encoded(0x10FFFF), "\xF4\x8F\xBF\xBF");
}

// Decodes one sequence of s (assumed complete); returns the code point.
uint32_t decode(const std::string& s) {
  const auto b = [&](size_t i) { return uint32_t(uint8_t(s[i])); };
  switch (s.size()) {
    case 1: return b(0);
    case 2: return (b(0) & 0x1F) << 6 | (b(1) & 0x3F);
    case 3: return (b(0) & 0x0F) << 12 | (b(1) & 0x3F) << 6 | (b(2) & 0x3F);
    default: return (b(0) & 0x07) << 18 | (b(1) & 0x3F) << 12 | (b(2) & 0x3F) << 6 | (b(3) & 0x3F);
  }
}

TEST(Utf8, EveryScalarValueRoundTrips) {
  int64_t bad = 0;
  for (uint32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;  // surrogates are not scalar values
    const std::string s = encoded(cp);
    const size_t expect_len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    const uint8_t lead = uint8_t(s[0]);
    const bool lead_ok = expect_len == 1 ? lead < 0x80
                         : expect_len == 2 ? (lead & 0xE0) == 0xC0
                         : expect_len == 3 ? (lead & 0xF0) == 0xE0
                                           : (lead & 0xF8) == 0xF0;
    bool tail_ok = true;
    for (size_t i = 1; i < s.size(); ++i) tail_ok &= (uint8_t(s[i]) & 0xC0) == 0x80;
    if (s.size() != expect_len || int(s.size()) != utf8::encoded_length(cp) || !lead_ok || !tail_ok ||
        decode(s) != cp)
      ++bad;
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace ember
