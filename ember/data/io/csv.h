// A streaming CSV reader over an InputStream with the dialect rules of Python's csv module
// (what TorchData's parse_csv runs): RFC 4180 quoting, doubled quotes, an optional escape
// character, newlines inside quoted fields, "\n", "\r\n" and "\r" line ends. It runs read_csv's
// tokenizer (ember/frame/io/csv_tokenizer.h) over large buffered chunks and refills the caller's
// row in place, so a loop over a file allocates little after the first rows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ember/data/io/stream.h"

namespace ember::data::io {

// csv.Dialect's reading parameters (Python's defaults; quotechar / escapechar '\0' = none,
// which is QUOTE_NONE / no escape character).
struct CsvOptions {
  char delimiter = ',';
  char quotechar = '"';
  char escapechar = '\0';
  bool doublequote = true;         // "" inside a quoted field is one "
  bool skipinitialspace = false;   // ignore spaces right after a delimiter
  bool strict = false;             // error on a character after a closing quote
  size_t skip_lines = 0;           // physical lines skipped before parsing (TorchData's skip_lines)

  CsvOptions& with_delimiter(char c) { delimiter = c; return *this; }
  CsvOptions& with_quotechar(char c) { quotechar = c; return *this; }
  CsvOptions& with_escapechar(char c) { escapechar = c; return *this; }
  CsvOptions& with_doublequote(bool b) { doublequote = b; return *this; }
  CsvOptions& with_skipinitialspace(bool b) { skipinitialspace = b; return *this; }
  CsvOptions& with_strict(bool b) { strict = b; return *this; }
  CsvOptions& with_skip_lines(size_t n) { skip_lines = n; return *this; }
};

// Reads rows one at a time. A blank line is an empty row (as csv.reader yields []).
// Differences from Python, both on malformed input: a quoted field still open at the end of
// the data is an error even when not strict (Python silently returns the truncated field,
// which hides a cut-off file), and the field-size limit is not enforced.
// Errors name the stream, the physical line (1-based) and what is wrong.
// The tokenizer is read_csv's (ember/frame/io/csv_tokenizer.h) in CPython's end-of-data mode,
// run over a buffer that is refilled when a record reaches its end.
class CsvReader {
 public:
  explicit CsvReader(StreamPtr stream, CsvOptions options = {});
  CsvReader(const CsvReader&) = delete;
  CsvReader& operator=(const CsvReader&) = delete;
  ~CsvReader();

  // The next row into `row` (its strings are reused); false at the end of the data.
  bool next(std::vector<std::string>& row);
  // The physical line the last row ended on (1-based; 0 before the first row).
  int64_t line() const { return row_line_; }
  // The line the last row started on.
  int64_t row_start_line() const { return row_start_line_; }
  const std::string& name() const;

 private:
  struct Impl;
  bool fill(size_t want);
  void skip_lines();
  int64_t line_ends(const char* begin, const char* end) const;
  [[noreturn]] void fail_at(const char* at, const std::string& what) const;

  StreamPtr stream_;
  CsvOptions opt_;
  std::unique_ptr<Impl> impl_;  // the dialect and the tokenizer
  std::unique_ptr<char[]> buf_;  // [pos_, len_) unread, then the sentinel '\n' and 16 readable bytes
  size_t cap_ = 0, pos_ = 0, len_ = 0;
  bool eof_ = false, started_ = false, finished_ = false;
  int64_t line_ = 1;  // the physical line at pos_
  int64_t row_line_ = 0, row_start_line_ = 0;
};

// csv.DictReader's row: the values keyed by the header, in column order. The header is
// shared by all rows of a file (no per-row copies of the keys); lookup by name is a hash
// lookup in it. Iteration gives (key, value) pairs in column order, like Python's dict.
struct CsvHeader {
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> index;  // name -> column
};
class CsvDictRow {
 public:
  CsvDictRow() = default;
  CsvDictRow(std::shared_ptr<const CsvHeader> header, std::vector<std::string> values);

  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  const std::vector<std::string>& keys() const;
  const std::vector<std::string>& values() const { return values_; }
  std::vector<std::string>& values() { return values_; }
  // The value of column `key`; an unknown key raises an error listing the columns.
  const std::string& at(std::string_view key) const;
  const std::string& operator[](std::string_view key) const { return at(key); }
  const std::string* find(std::string_view key) const;  // nullptr when absent
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  std::pair<const std::string&, const std::string&> item(size_t i) const { return {keys()[i], values_[i]}; }
  bool operator==(const CsvDictRow& o) const { return keys() == o.keys() && values_ == o.values_; }

  class iterator {
   public:
    iterator(const CsvDictRow* r, size_t i) : r_(r), i_(i) {}
    std::pair<const std::string&, const std::string&> operator*() const { return r_->item(i_); }
    iterator& operator++() { ++i_; return *this; }
    bool operator!=(const iterator& o) const { return i_ != o.i_; }
    bool operator==(const iterator& o) const { return i_ == o.i_; }
   private:
    const CsvDictRow* r_;
    size_t i_;
  };
  iterator begin() const { return {this, 0}; }
  iterator end() const { return {this, values_.size()}; }

 private:
  std::shared_ptr<const CsvHeader> header_;
  std::vector<std::string> values_;
};

// Rows keyed by the first non-blank row (csv.DictReader). Blank lines are skipped, as in
// Python. Where Python pads a short row with None and gathers extra fields under a None key,
// a row whose field count differs from the header's is an error naming the line; so is a
// header that names a column twice (Python would silently keep only the last one).
class CsvDictReader {
 public:
  explicit CsvDictReader(StreamPtr stream, CsvOptions options = {});
  // The next row; false at the end of the data.
  bool next(CsvDictRow& row);
  // The header (read on first use); empty when the data has no rows at all.
  const std::vector<std::string>& fieldnames();
  int64_t line() const { return reader_.line(); }

 private:
  bool read_header();
  CsvReader reader_;
  std::shared_ptr<const CsvHeader> header_;
  bool header_read_ = false;
  std::vector<std::string> scratch_;
};

}  // namespace ember::data::io
