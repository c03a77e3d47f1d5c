// ember's one CSV tokenizer (Python's csv dialect) and the value sets read_csv consults.
// Used by read_csv (ember/frame/io: csv_reader.h, csv_parse.cpp, csv_column.cpp) over the whole
// text, and by DataPipes' parse_csv (ember/data/io/csv.cpp), which streams: it tokenizes the
// records in its buffer and refills it when a record reaches the buffer's end.
// Hand-written, not a library: it is the hot loop of read_csv (SSE2 or NEON scans, spans into the input
// instead of copies), and it reads untrusted files (bounds are checked against the sentinel).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__ARM_NEON)
#include <arm_neon.h>
#endif

#include "ember/frame/io/csv.h"

namespace ember::frame::io::detail {

// ---- dialect and value sets ---------------------------------------------------------------

// What the end of the data means for a record still open there (an escape character as the last
// byte, or an escaped line end right before the end).
enum class DataEnd : uint8_t {
  kError,   // read_csv: an escape character at the very end is an error
  kPython,  // CPython's csv.reader: that escape stands for '\n'; an open record is an error only when strict
};

struct Dialect {
  char delim, quote, esc;
  bool quoting, doublequote, skipinitialspace, strict;
  DataEnd data_end;
  bool special[256] = {};         // ends an unquoted scan: delimiter, '\n', '\r', escape
  bool special_quoted[256] = {};  // ends a quoted scan: quote, escape, '\n'
  bool ends_field[256] = {};      // what may follow a closing quote: delimiter, '\n', '\r'

  explicit Dialect(const CsvReadOptions& o)
      : Dialect(o.delimiter, o.quotechar, o.escapechar, o.doublequote, o.skipinitialspace, o.strict,
                DataEnd::kError) {}
  // quote / escape '\0': none (csv.QUOTE_NONE / no escape character).
  Dialect(char delimiter, char quotechar, char escapechar, bool doublequote_, bool skipinitialspace_, bool strict_,
          DataEnd end)
      : delim(delimiter), quote(quotechar), esc(escapechar), quoting(quotechar != '\0'), doublequote(doublequote_),
        skipinitialspace(skipinitialspace_), strict(strict_), data_end(end) {
    for (unsigned char c : {(unsigned char)delim, (unsigned char)'\n', (unsigned char)'\r'}) special[c] = ends_field[c] = true;
    if (esc) special[(unsigned char)esc] = special_quoted[(unsigned char)esc] = true;
    if (quoting) special_quoted[(unsigned char)quote] = true;
    special_quoted[(unsigned char)'\n'] = true;
  }

  // The first delimiter, line end or escape character at or after p. The text must end in
  // one ('\n', the reader's sentinel) and be readable 16 bytes past it.
  const char* scan_unquoted(const char* p) const {
#ifdef __SSE2__
    const __m128i d = _mm_set1_epi8(delim), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  es = _mm_set1_epi8(esc ? esc : delim);
    for (;; p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, d), _mm_cmpeq_epi8(v, nl)),
                                       _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, es)));
      if (const int m = _mm_movemask_epi8(hit)) return p + __builtin_ctz(unsigned(m));
    }
#elif defined(__ARM_NEON)
    const uint8x16_t d = vdupq_n_u8(uint8_t(delim)), nl = vdupq_n_u8('\n'), cr = vdupq_n_u8('\r'),
                     es = vdupq_n_u8(uint8_t(esc ? esc : delim));
    for (;; p += 16) {
      const uint8x16_t v = vld1q_u8(reinterpret_cast<const uint8_t*>(p));
      const uint8x16_t hit = vorrq_u8(vorrq_u8(vceqq_u8(v, d), vceqq_u8(v, nl)), vorrq_u8(vceqq_u8(v, cr), vceqq_u8(v, es)));
      // NEON has no byte movemask: shifting each 16-bit lane right by 4 and narrowing leaves one
      // nibble per byte (0xF where it matched), in order, in 64 bits.
      const uint64_t m = vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(hit), 4)), 0);
      if (m) return p + (__builtin_ctzll(m) >> 2);
    }
#else
    while (!special[(unsigned char)*p]) ++p;
    return p;
#endif
  }
};

// Short strings compared fast: a table of the lengths of the members starting with each byte.
class StringSet {
 public:
  explicit StringSet(const std::vector<std::string>& items) : items_(items) {
    for (const std::string& s : items_) {
      if (s.empty()) has_empty_ = true;
      else if (s.size() < 32) lengths_[(unsigned char)s[0]] |= 1u << s.size();
      else long_ = true;
    }
  }
  bool contains(const char* p, size_t n) const {
    if (n == 0) return has_empty_;
    if (n < 32 && !((lengths_[(unsigned char)p[0]] >> n) & 1) && !long_) return false;
    for (const std::string& s : items_)
      if (s.size() == n && std::memcmp(s.data(), p, n) == 0) return true;
    return false;
  }

 private:
  std::vector<std::string> items_;
  uint32_t lengths_[256] = {};
  bool has_empty_ = false, long_ = false;
};

struct ValueSets {
  StringSet nulls, trues, falses;
  bool quoted_nulls, infer_dates;
  explicit ValueSets(const CsvReadOptions& o)
      : nulls(o.null_values), trues(o.true_values), falses(o.false_values), quoted_nulls(o.quoted_nulls),
        infer_dates(o.infer_dates) {}
  // 1 true, 0 false, -1 neither.
  int boolean(const char* p, size_t n) const {
    if (trues.contains(p, n)) return 1;
    if (falses.contains(p, n)) return 0;
    return -1;
  }
};

// A failure while parsing a chunk, raised as ember::Error only once the chunk is known to
// have started at a record boundary.
struct ParseFailure {
  int64_t pos;      // byte offset of the record (or the character) at fault
  int64_t column;   // -1 when the record as a whole is at fault
  std::string message;
  bool at_end = false;  // raised because the text ends there: a longer text might have parsed
};

// A character for an error message: 'x' when printable, '\n' / '\r', else its byte value.
inline std::string show_char(char c) {
  if (c == '\n') return "'\\n'";
  if (c == '\r') return "'\\r'";
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[(unsigned char)c >> 4] + hex[c & 15];
}

// ---- tokenizer ----------------------------------------------------------------------------

struct Span {
  const char* p;
  uint32_t n;
  bool quoted;
  bool in_scratch;  // p is an offset into the scratch buffer until the record ends
};

class Tokenizer {
 public:
  Tokenizer(const Dialect& d, const char* begin, const char* end) : d_(d), begin_(begin), end_(end) {}

  // Tokenizes a new text (a streaming reader's refilled buffer) with the same dialect.
  void reset(const char* begin, const char* end) {
    begin_ = begin;
    end_ = end;
  }

  const std::vector<Span>& spans() const { return spans_; }

  // Tokenizes the record starting at `p` (not a blank line) into spans(); returns the
  // position after its line end. *nf: its number of fields.
  const char* record(const char* p, size_t* nf) {
    scratch_.clear();
    size_t n = 0;
    for (;;) {
      if (n == spans_.size()) spans_.resize(std::max<size_t>(8, spans_.size() * 2));
      p = field(p, spans_[n]);
      ++n;
      if (p < end_ && *p == d_.delim) {
        ++p;
        continue;
      }
      break;
    }
    if (p < end_) {
      if (*p == '\r') {
        ++p;
        if (p < end_ && *p == '\n') ++p;
      } else {
        ++p;  // '\n'
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (spans_[i].in_scratch) spans_[i].p = scratch_.data() + reinterpret_cast<uintptr_t>(spans_[i].p);
    *nf = n;
    return p;
  }

  // One field from p into `s` (its bytes stay valid until the next call); returns the position
  // of what ended it (the delimiter, a line end, or the end of the data).
  const char* one_field(const char* p, Span& s) {
    scratch_.clear();
    p = field(p, s);
    if (s.in_scratch) s.p = scratch_.data() + reinterpret_cast<uintptr_t>(s.p);
    return p;
  }

  // Skips blank lines ("\n", "\r\n", "\r") at p.
  const char* skip_blank(const char* p) const {
    while (p < end_) {
      if (*p == '\n') ++p;
      else if (*p == '\r') {
        ++p;
        if (p < end_ && *p == '\n') ++p;
      } else {
        break;
      }
    }
    return p;
  }

 private:
  [[noreturn]] void fail(const char* at, std::string msg) const { throw ParseFailure{at - begin_, -1, std::move(msg)}; }
  [[noreturn]] void fail_at_end(const char* at, std::string msg) const {
    throw ParseFailure{at - begin_, -1, std::move(msg), true};
  }

  // One field from p; returns the position of what ended it (delimiter, line end or the end).
  const char* field(const char* p, Span& s) {
    if (d_.quoting && *p == d_.quote && p < end_) {
      const char* q = p + 1;
      for (;;) {
        while (!d_.special_quoted[(unsigned char)*q]) ++q;
        if (q >= end_) return slow(p, s);  // reports the unterminated quote
        if (*q == '\n') {
          ++q;
          continue;
        }
        break;
      }
      if (*q == d_.quote && d_.ends_field[(unsigned char)q[1]]) {  // q[1] is at most the sentinel
        s = {p + 1, uint32_t(q - p - 1), true, false};
        return q + 1;
      }
      return slow(p, s);
    }
    if (d_.skipinitialspace && *p == ' ' && p < end_) return slow(p, s);
    const char* q = d_.scan_unquoted(p);  // the sentinel '\n' stops it
    if (d_.esc && *q == d_.esc && q < end_) return slow(p, s);
    s = {p, uint32_t(q - p), false, false};
    return q;
  }

  // Python's csv state machine for one field, into the scratch buffer.
  const char* slow(const char* p, Span& s) {
    enum { kStart, kInField, kEscaped, kInQuoted, kEscapedInQuoted, kQuoteInQuoted } st = kStart;
    const size_t start = scratch_.size();
    bool quoted = false;
    bool after_escaped_eol = false;  // the field went on after an escaped '\n' or '\r', with no escape since
    const char* open = p;
    for (;; ++p) {
      const bool eof = p >= end_;
      const char c = eof ? '\0' : *p;
      switch (st) {
        case kStart:
          if (eof || c == '\n' || c == '\r' || c == d_.delim) goto done;
          if (d_.quoting && c == d_.quote) {
            st = kInQuoted;
            quoted = true;
            open = p;
          } else if (d_.esc && c == d_.esc) {
            st = kEscaped;
          } else if (!(c == ' ' && d_.skipinitialspace)) {
            scratch_ += c;
            st = kInField;
          }
          break;
        case kInField:
          // CPython stays in its AFTER_ESCAPED_CRNL state through ordinary characters, where the
          // end of the data does not end the record: an open record, an error when strict.
          if (eof && after_escaped_eol && d_.data_end == DataEnd::kPython && d_.strict)
            fail_at_end(p - 1, "unexpected end of data in a field continued by an escaped line end (strict mode)");
          if (eof || c == '\n' || c == '\r' || c == d_.delim) goto done;
          if (d_.esc && c == d_.esc) st = kEscaped;
          else scratch_ += c;
          break;
        case kEscaped:
          if (eof) {
            if (d_.data_end == DataEnd::kError) fail_at_end(p - 1, "the data ends right after an escape character");
            if (d_.strict) fail_at_end(p - 1, "unexpected end of data right after an escape character (strict mode)");
            scratch_ += '\n';  // CPython: the escaped end of the line
            goto done;
          }
          scratch_ += c;
          after_escaped_eol = c == '\n' || c == '\r';
          st = kInField;
          break;
        case kInQuoted:
          if (eof)
            fail_at_end(open, "a quoted field is not closed before the end of the data (the quote opened on this line)");
          if (d_.esc && c == d_.esc) st = kEscapedInQuoted;
          else if (c == d_.quote) st = d_.doublequote ? kQuoteInQuoted : kInField;
          else scratch_ += c;
          break;
        case kEscapedInQuoted:
          if (eof) fail_at_end(open, "the data ends right after an escape character inside a quoted field");
          scratch_ += c;
          st = kInQuoted;
          break;
        case kQuoteInQuoted:
          if (!eof && c == d_.quote) {
            scratch_ += c;
            st = kInQuoted;
          } else if (eof || c == d_.delim || c == '\n' || c == '\r') {
            goto done;
          } else if (d_.strict) {
            fail(p, show_char(c) + " after the closing quote of a quoted field (strict mode expects " + show_char(d_.delim) +
                        " or a line end)");
          } else {
            scratch_ += c;
            st = kInField;
          }
          break;
      }
    }
  done:
    s = {reinterpret_cast<const char*>(uintptr_t(start)), uint32_t(scratch_.size() - start), quoted, true};
    return p;
  }

  const Dialect& d_;
  const char* begin_;
  const char* end_;
  std::vector<Span> spans_;
  std::string scratch_;
};

}  // namespace ember::frame::io::detail
