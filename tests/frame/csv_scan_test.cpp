// The CSV reader's vector scans (SSE2 and AVX2 on x86-64, NEON on AArch64) against byte-by-byte
// loops: the first delimiter / line end / escape of an unquoted field (Dialect::scan_unquoted),
// and the line-end count that sizes the columns (count_line_ends: "\r\n" counts once), over random
// texts dense in those bytes and every start offset and length around the 16- and 32-byte blocks.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "ember/frame/io/csv_reader.h"
#include "ember/frame/io/csv_tokenizer.h"

namespace ember::frame::io::detail {
namespace {

int64_t naive_line_ends(const std::string& s, size_t b, size_t e) {
  int64_t n = 0;
  for (size_t i = b; i < e; ++i)
    if (s[i] == '\n' || (s[i] == '\r' && !(i + 1 < e && s[i + 1] == '\n'))) ++n;
  return n;
}

std::string random_text(std::mt19937& rng, size_t n) {
  const char alphabet[] = {'a', 'b', ',', ';', '\n', '\r', '\\', '"', ' ', 'x', 'y', 'z', '0', '1'};
  std::uniform_int_distribution<int> pick(0, int(sizeof alphabet) - 1), sparse(0, 40);
  std::string s(n, 'a');
  for (char& c : s) c = sparse(rng) < 4 ? alphabet[pick(rng)] : char('a' + sparse(rng) % 26);
  return s;
}

TEST(CsvScan, LineEndCountMatchesAByteLoop) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const std::string s = random_text(rng, 1 + rng() % 5000);
    for (size_t b : {size_t(0), size_t(1), size_t(7), size_t(15), size_t(16), size_t(17)}) {
      if (b > s.size()) continue;
      for (size_t len : {s.size() - b, (s.size() - b) / 2, size_t(16), size_t(17), size_t(33), size_t(4095)}) {
        const size_t e = std::min(s.size(), b + len);
        ASSERT_EQ(count_line_ends(s.data() + b, s.data() + e), naive_line_ends(s, b, e))
            << "round " << round << ", bytes [" << b << ", " << e << ")";
      }
    }
  }
  // Long runs of one byte: each lane's count wraps at 256 unless the blocks are drained in time.
  for (const char* fill : {"\n", "\r", "\r\n"}) {
    std::string s;
    while (s.size() < 20000) s += fill;
    EXPECT_EQ(count_line_ends(s.data(), s.data() + s.size()), naive_line_ends(s, 0, s.size())) << int(fill[0]);
  }
}

TEST(CsvScan, UnquotedScanStopsWhereAByteLoopStops) {
  std::mt19937 rng(11);
  for (char esc : {'\0', '\\'}) {
    for (char delim : {',', ';'}) {
      const Dialect d(delim, '"', esc, true, false, false, DataEnd::kError);
      for (int round = 0; round < 300; ++round) {
        // The reader's contract: the text ends in '\n' and is readable 16 bytes past it.
        std::string s = random_text(rng, rng() % 300) + "\n" + std::string(16, 'q');
        const size_t end = s.size() - 16;
        for (size_t from = 0; from < end; ++from) {
          size_t want = from;
          while (!(s[want] == delim || s[want] == '\n' || s[want] == '\r' || (esc && s[want] == esc))) ++want;
          ASSERT_EQ(size_t(d.scan_unquoted(s.data() + from) - s.data()), want)
              << "delimiter '" << delim << "', escape " << int(esc) << ", from " << from << " in round " << round;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ember::frame::io::detail
