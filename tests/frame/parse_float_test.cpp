// parse_decimal (ember/frame/io/parse_float.h) against strtod, bit for bit: random doubles
// printed in every common form, random digit strings over the whole exponent range, and the
// classic hard cases (halfway points, the limits of normal and subnormal numbers).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "ember/frame/io/parse_float.h"
#include "test_util.h"

namespace {

using ember::frame::io::detail::parse_decimal;

// The text followed by a delimiter and the padding parse_decimal may read.
struct Padded {
  explicit Padded(const std::string& s) : buf(s + ",") { buf.append(16, '\0'); }
  std::string buf;
};

uint64_t bits_of(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// Expects parse_decimal to read all of s (up to the delimiter) and agree with strtod.
::testing::AssertionResult agrees(const std::string& s) {
  Padded t(s);
  double v = 12345;
  const char* end = parse_decimal(t.buf.data(), &v);
  if (end == nullptr) return ::testing::AssertionFailure() << "'" << s << "' was not parsed";
  if (end != t.buf.data() + s.size())
    return ::testing::AssertionFailure() << "'" << s << "' parsed to offset " << (end - t.buf.data());
  const double want = std::strtod(s.c_str(), nullptr);
  if (bits_of(v) != bits_of(want)) {
    char a[64], b[64];
    std::snprintf(a, sizeof a, "%.17g", v);
    std::snprintf(b, sizeof b, "%.17g", want);
    return ::testing::AssertionFailure() << "'" << s << "': got " << a << ", strtod gives " << b;
  }
  return ::testing::AssertionSuccess();
}

TEST(ParseFloat, HardCases) {
  for (const char* s : {"0", "-0", "0.0", "-0.0", "0e10", "1", "-1", "1.5", ".5", "5.", "-.5", "0.1", "0.2", "0.3",
                        "123456789012345678", "1234567890123456789", "9007199254740992", "9007199254740993",
                        "9007199254740994", "9007199254740995", "18014398509481985", "1e22", "1e23", "1e-22",
                        "1e-23", "8.98846567431158e307", "1.7976931348623157e308", "1.7976931348623158e308",
                        "2.2250738585072014e-308", "2.2250738585072011e-308", "2.2250738585072012e-308",
                        "4.9406564584124654e-324", "5e-324", "2.4703282292062328e-324", "2.4703282292062329e-324",
                        "1e308", "7e-27", "7.0e-10", "3.0517578125e-05", "1E10", "1e+10",
                        "1e-0", "00000000000000000000000000001.5", "0.000000000000000000000000000001",
                        "0.12345678901234567890123", "123456789012345678901234567890", "2.225073858507201136057409796709131975934819546351645648e-308",
                        "9007199254740993.0000000000000000000001", "444089209850062616169452667236328125e-51",
                        "7.2057594037927933e16", "1448997445238699", "0.000008", "100000000000000016777215",
                        "3.4028235677973366e38", "1.00000000000000011102230246251565404236316680908203125",
                        "1.00000000000000011102230246251565404236316680908203124"})
    EXPECT_TRUE(agrees(s));
}

TEST(ParseFloat, StopsWhereFromCharsStops) {
  struct Case { const char* text; long used; };
  for (const Case& c : {Case{"1e", 1}, Case{"1e+", 1}, Case{"2.5E-x", 3}, Case{"12abc", 2}, Case{"1.2.3", 3},
                        Case{"-7,", 2}, Case{"3e5e5", 3}}) {
    Padded t(c.text);
    double v;
    const char* end = parse_decimal(t.buf.data(), &v);
    ASSERT_NE(end, nullptr) << c.text;
    EXPECT_EQ(end - t.buf.data(), c.used) << c.text;
  }
  for (const char* s : {"", "-", ".", "-.", "+1", "e5", "inf", "nan", "-inf", " 1", "abc", "1e400", "-1e999", "1e-400",
                        "-1e-400", "1e-342", "2.4703282292062327e-324"}) {
    Padded t(s);
    double v;
    EXPECT_EQ(parse_decimal(t.buf.data(), &v), nullptr) << "'" << s << "'";
  }
}

TEST(ParseFloat, RandomDoublesInEveryFormat) {
  std::mt19937_64 rng(12345);
  const char* formats[] = {"%.17g", "%.16g", "%.15g", "%.9g", "%.6g", "%.3e", "%.10f", "%.1f", "%.20e"};
  char buf[512];
  int checked = 0;
  const int64_t n = ember::test::scaled_for_sanitizers(400000);
  for (int64_t i = 0; i < n; ++i) {
    double d;
    if (i % 2 == 0) {  // any finite bit pattern
      const uint64_t b = rng();
      std::memcpy(&d, &b, 8);
      if (!std::isfinite(d)) continue;
    } else {  // the magnitudes data usually has
      d = std::ldexp(double(rng() >> 11) / double(uint64_t(1) << 53), int(rng() % 80) - 40);
    }
    for (const char* f : formats) {
      std::snprintf(buf, sizeof buf, f, d);
      if (std::strlen(buf) > 400) continue;
      ASSERT_TRUE(agrees(buf));
      ++checked;
    }
  }
  EXPECT_GT(checked, 15 * n / 2);
}

TEST(ParseFloat, RandomDigitStringsOverTheExponentRange) {
  std::mt19937_64 rng(777);
  std::string s;
  for (int64_t i = 0, n = ember::test::scaled_for_sanitizers(1000000); i < n; ++i) {
    s.clear();
    if (rng() % 4 == 0) s += '-';
    const int nd = 1 + int(rng() % 19);
    std::string digits;
    for (int k = 0; k < nd; ++k) digits += char('0' + rng() % 10);
    const int point = int(rng() % (nd + 1));
    s += digits.substr(0, size_t(point));
    if (point < nd || rng() % 2) s += '.';
    s += digits.substr(size_t(point));
    if (s == "." || s == "-.") continue;
    const int e = int(rng() % 700) - 360;
    s += 'e' + std::to_string(e);
    Padded t(s);
    double v;
    const char* end = parse_decimal(t.buf.data(), &v);
    const double want = std::strtod(s.c_str(), nullptr);
    if (std::isinf(want)) {  // from_chars calls it out of range
      EXPECT_EQ(end, nullptr) << s;
      continue;
    }
    if (end == nullptr) {  // underflow to zero is out of range for from_chars too
      EXPECT_EQ(want, 0.0) << s;
      continue;
    }
    ASSERT_TRUE(agrees(s));
  }
}

// The 128-bit step alone decides nearly every 17-digit input (the rest go to from_chars),
// and rightly.
TEST(ParseFloat, EiselLemireDecidesAlmostAll) {
  std::mt19937_64 rng(5);
  int decided = 0, total = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t w = 10000000000000000u + rng() % 90000000000000000u;  // 17 digits
    const int q = int(rng() % 590) - 300;  // finite, normal results
    double v;
    ++total;
    if (!ember::frame::io::detail::eisel_lemire(w, q, &v)) continue;
    ++decided;
    const std::string s = std::to_string(w) + "e" + std::to_string(q);
    ASSERT_EQ(bits_of(v), bits_of(std::strtod(s.c_str(), nullptr))) << s;
  }
  EXPECT_GT(decided, total * 99 / 100);
}

// Halfway points between adjacent doubles, written out exactly: ties go to even.
TEST(ParseFloat, HalfwayPoints) {
  std::mt19937_64 rng(99);
  char buf[128];
  for (int i = 0; i < 200000; ++i) {
    // Mantissas of 53 bits times small powers of two, so the halfway point's decimal
    // expansion is short enough to matter for the fast paths.
    const uint64_t m = (rng() >> 11) | (uint64_t(1) << 52);
    const int e = int(rng() % 20) - 10;
    const long double half = std::ldexp((long double)(2 * m + 1), e - 1);  // exact in 64 bits
    std::snprintf(buf, sizeof buf, "%.40Lg", half);
    ASSERT_TRUE(agrees(buf));
  }
}

}  // namespace
