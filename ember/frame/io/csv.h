// CSV for ember::frame: read_csv (typed, multi-threaded; pandas.read_csv's behaviour on the
// options it shares) and write_csv.
//
//   DataFrame df = read_csv("data.csv");                        // types inferred
//   CsvReadOptions o;
//   o.dtypes = {{"id", dtypes::int32}, {"when", dtypes::Timestamp(TimeUnit::Micro, "UTC", true)}};
//   o.null_values = {"", "NA"};
//   df = read_csv("data.tsv", o.with_delimiter('\t'));
//   write_csv(df, "out.csv");
//
// Note [CSV reading]
// Dialect: Python's csv module (RFC 4180 quoting with doubled quotes, or an escape character;
// skipinitialspace; strict), lines ending in "\n", "\r\n" or "\r"; blank lines are skipped
// (pandas' skip_blank_lines). A UTF-8 byte order mark is dropped.
// Types: a column in `dtypes` is converted to that type (a value that does not parse is an
// error naming the column, row, line, the value and the type). Any other column is inferred
// from all its values, as pandas does, in the order
//   int64 (uint64 past INT64_MAX) -> float64 -> date32 (YYYY-MM-DD) / timestamp (ISO 8601,
//   "Z" or an offset make it UTC) -> bool (true_values / false_values) -> string,
// the first type every non-null value parses as (ints and floats mix as float64, dates and
// naive timestamps as timestamps). Numbers may have surrounding spaces. A field that is empty
// or one of null_values is null; a column is nullable exactly when it has nulls (as column()
// infers), and a column of only nulls is a nullable string column.
// Errors name the row (0-based, as the frame's index), the physical line (1-based), the
// column: ragged rows (pandas' "Expected 3 fields in line 7, saw 4"; too few fields is an
// error too), an unterminated quote (the line it opened on), a character after a closing
// quote in strict mode, invalid UTF-8 in a string column.
// Speed: the input is read whole, cut into chunks at line ends, and the chunks parsed in
// parallel (ember::parallel_for); a chunk that began inside a quoted field (its cut fell on
// a quoted line break) is found when its predecessor ends elsewhere, and parsed again from
// the right place. Values are converted while tokenizing, into Arrow buffers.
#pragma once
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ember/frame/dataframe.h"

namespace ember::frame {

// pandas' default na_values.
const std::vector<std::string>& default_csv_null_values();

struct CsvReadOptions {
  // ---- dialect (Python's csv.Dialect; '\0' turns quoting / escaping off) ----
  char delimiter = ',';
  char quotechar = '"';
  char escapechar = '\0';
  bool doublequote = true;        // "" inside a quoted field is one "
  bool skipinitialspace = false;  // spaces after a delimiter are dropped
  bool strict = false;            // a character after a closing quote is an error
  // ---- header ----
  bool header = true;  // the first row (after skip_rows) names the columns
  // Column names: with header = false, the names of the columns (default "0", "1", ...);
  // with header = true, names that replace the header's. Either way their number must
  // match the rows'.
  std::vector<std::string> column_names;
  int64_t skip_rows = 0;  // physical lines skipped before the header (or the first row)
  // ---- values ----
  std::vector<std::string> null_values = default_csv_null_values();
  bool quoted_nulls = true;  // a quoted field can be null ("" or "NA" in quotes)
  std::vector<std::string> true_values{"True", "TRUE", "true"};
  std::vector<std::string> false_values{"False", "FALSE", "false"};
  bool infer_dates = true;  // date32 and timestamp inference (off: such columns are strings)
  // Columns of a given type; the others are inferred. Supported: bool, the integers,
  // float32/64, string, large_string, binary, large_binary, date32, timestamp (values with
  // an offset are converted to UTC; naive values are taken as they are), and
  // Dictionary(int32, string) (a categorical column). A null in a non-nullable column is an
  // error, except in a non-nullable string or binary column, where "" and the null values
  // are read as the text they are.
  std::map<std::string, DType> dtypes;
  // ---- execution ----
  int num_threads = 0;                // 0: ember::get_num_threads()
  int64_t chunk_bytes = int64_t(4) << 20;  // the unit of parallel work (at least 64 KiB)
  std::string name;                   // what errors call the input (the path by default)

  CsvReadOptions& with_delimiter(char c) { delimiter = c; return *this; }
  CsvReadOptions& with_quotechar(char c) { quotechar = c; return *this; }
  CsvReadOptions& with_escapechar(char c) { escapechar = c; return *this; }
  CsvReadOptions& with_header(bool h) { header = h; return *this; }
  CsvReadOptions& with_column_names(std::vector<std::string> n) { column_names = std::move(n); return *this; }
  CsvReadOptions& with_skip_rows(int64_t n) { skip_rows = n; return *this; }
  CsvReadOptions& with_null_values(std::vector<std::string> v) { null_values = std::move(v); return *this; }
  CsvReadOptions& with_dtypes(std::map<std::string, DType> d) { dtypes = std::move(d); return *this; }
  CsvReadOptions& with_num_threads(int n) { num_threads = n; return *this; }
};

DataFrame read_csv(const std::string& path, const CsvReadOptions& options = {});
DataFrame read_csv(std::istream& in, const CsvReadOptions& options = {});
// CSV text held in memory.
DataFrame read_csv_string(std::string_view text, const CsvReadOptions& options = {});

struct CsvWriteOptions {
  enum class Quoting { Minimal, All, NonNumeric, None };  // Python's csv.QUOTE_*
  char delimiter = ',';
  char quotechar = '"';
  char escapechar = '\0';  // needed with Quoting::None for fields that hold special characters
  Quoting quoting = Quoting::Minimal;
  bool header = true;
  std::string line_terminator = "\n";
  std::string null_value;  // what a null is written as (pandas' na_rep)

  CsvWriteOptions& with_delimiter(char c) { delimiter = c; return *this; }
  CsvWriteOptions& with_quoting(Quoting q) { quoting = q; return *this; }
  CsvWriteOptions& with_header(bool h) { header = h; return *this; }
  CsvWriteOptions& with_null_value(std::string s) { null_value = std::move(s); return *this; }
};

// Writes the frame with a header row. Numbers as Python writes them (repr of floats, "True"
// and "False"), dates as YYYY-MM-DD, timestamps as "YYYY-MM-DD HH:MM:SS[.fff...]" (with "Z"
// for a column with a timezone: the values are UTC instants), dictionaries as their values,
// binaries as their bytes; nulls as null_value. With Quoting::Minimal a field is quoted when
// it holds the delimiter, the quote character or a line break, or when it is a string that
// would read back as null (empty, or one of the default null values). Nested columns are an
// error.
void write_csv(const DataFrame& df, const std::string& path, const CsvWriteOptions& options = {});
void write_csv(const DataFrame& df, std::ostream& out, const CsvWriteOptions& options = {});
std::string to_csv(const DataFrame& df, const CsvWriteOptions& options = {});

}  // namespace ember::frame
