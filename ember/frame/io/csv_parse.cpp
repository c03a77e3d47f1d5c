// The CSV reader's parsing (csv_reader.h): the options checked, the header read (the columns'
// names and specs), the first records sniffed for strings, and records parsed into a chunk's
// columns (which convert each field as it is read; csv_column.h).
#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_set>
#include <vector>

#include "ember/core/error.h"
#include "ember/frame/io/csv_reader.h"
#include "ember/frame/io/csv_tokenizer.h"
#include "ember/frame/io/csv_values.h"

namespace ember::frame::io::detail {

void Reader::fail_at(int64_t pos, int64_t row, int64_t column, const std::string& msg) const {
  std::string where;
  if (row >= 0) where = "row " + std::to_string(row) + " (line " + std::to_string(line_of(pos)) + ")";
  else where = "line " + std::to_string(line_of(pos));
  if (column >= 0) where += ", column '" + specs_[size_t(column)].name + "'";
  EMBER_ERROR("read_csv: '", name_, "' ", where, ": ", msg);
}

// The 1-based physical line of byte `pos`.
int64_t Reader::line_of(int64_t pos) const {
  int64_t line = 1;
  const char* d = in_.data();
  for (int64_t i = 0; i < pos && i < in_.size(); ++i)
    if (d[i] == '\n' || (d[i] == '\r' && (i + 1 >= in_.size() || d[i + 1] != '\n'))) ++line;
  return line;
}

void Reader::check_options() const {
  auto is_nl = [](char c) { return c == '\n' || c == '\r'; };
  const std::string op = "read_csv: '" + name_ + "'";
  EMBER_CHECK(opts_.delimiter != '\0' && !is_nl(opts_.delimiter), op,
              ": the delimiter must be a character other than a line end or NUL");
  EMBER_CHECK(!is_nl(opts_.quotechar) && !is_nl(opts_.escapechar), op, ": quotechar and escapechar cannot be line ends");
  EMBER_CHECK(opts_.quotechar != opts_.delimiter && opts_.escapechar != opts_.delimiter &&
                  (opts_.quotechar == '\0' || opts_.quotechar != opts_.escapechar),
              op, ": the delimiter, quotechar and escapechar must differ");
  EMBER_CHECK(opts_.skip_rows >= 0, op, ": skip_rows is negative (", opts_.skip_rows, ")");
}

// Skips skip_rows lines, reads the header (or the first row's width) and sets specs_.
// Returns where the data begins.
const char* Reader::header(const char* p) {
  for (int64_t skipped = 0; skipped < opts_.skip_rows && p < end(); ++skipped) {
    while (p < end() && *p != '\n' && *p != '\r') ++p;
    if (p < end()) p += (*p == '\r' && p + 1 < end() && p[1] == '\n') ? 2 : 1;
  }
  Tokenizer tok(dialect_, in_.data(), end());
  p = tok.skip_blank(p);
  std::vector<std::string> names;
  const char* data = p;
  if (p < end()) {
    size_t nf = 0;
    try {
      const char* next = tok.record(p, &nf);
      if (opts_.header) data = next;
    } catch (const ParseFailure& f) {
      fail_at(f.pos, -1, -1, f.message);
    }
    for (size_t i = 0; i < nf; ++i) {
      const Span& s = tok.spans()[i];
      names.push_back(opts_.header ? std::string(s.p, s.n) : std::to_string(i));
    }
  } else {
    EMBER_CHECK(!opts_.header || !opts_.column_names.empty(), "read_csv: '", name_,
                "': the input is empty (no header row to take the column names from)");
  }
  if (!opts_.column_names.empty()) {
    EMBER_CHECK(names.empty() || names.size() == opts_.column_names.size(), "read_csv: '", name_, "': ",
                opts_.column_names.size(), " column names for rows of ", names.size(), " fields");
    names = opts_.column_names;
  }
  // pandas' names for empty and repeated header fields.
  std::unordered_set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) names[i] = "Unnamed: " + std::to_string(i);
    if (seen.count(names[i])) {
      for (int k = 1;; ++k) {
        const std::string alt = names[i] + "." + std::to_string(k);
        if (!seen.count(alt)) {
          names[i] = alt;
          break;
        }
      }
    }
    seen.insert(names[i]);
  }
  for (const auto& [col, type] : opts_.dtypes)
    EMBER_CHECK(seen.count(col), "read_csv: '", name_, "': dtypes names column '", col, "', which the data does not have");

  // Null values that read as numbers turn the numeric fast paths off.
  bool null_int = false, null_float = false;
  for (const std::string& v : opts_.null_values) {
    int64_t i;
    double d;
    null_int |= parse_int64(v.data(), v.size(), &i) == IntParse::Ok;
    null_float |= parse_double(v.data(), v.size(), &d) && d == d;
  }
  const bool numeric_delimiter = std::isalnum((unsigned char)opts_.delimiter) || opts_.delimiter == '+' ||
                                 opts_.delimiter == '-' || opts_.delimiter == '.';
  for (const std::string& n : names) {
    ColumnSpec spec;
    spec.name = n;
    spec.fast_int = !null_int && !numeric_delimiter;
    spec.fast_float = !null_float && !numeric_delimiter;
    auto it = opts_.dtypes.find(n);
    if (it != opts_.dtypes.end()) {
      const DType& t = it->second;
      spec.forced = &t;
      if (t.id() == TypeId::Dictionary) {
        EMBER_CHECK(t.index_type().id() == TypeId::Int32 && t.value_type().id() == TypeId::String, "read_csv: '", name_,
                    "': column '", n, "': a dictionary column must be Dictionary(int32, string), got ", t.to_string());
        spec.dictionary = true;
      } else {
        EMBER_CHECK(t.is_fixed_width() || t.is_binary_like(), "read_csv: '", name_, "': column '", n, "': type ",
                    t.to_string(), " cannot be read from CSV");
        if (t.is_fixed_width() && t.id() != TypeId::Bool) spec.value_width = t.byte_width();
        spec.large_offsets = t.has_large_offsets();
        spec.nulls_are_text = t.is_binary_like() && !t.nullable();
      }
    }
    specs_.push_back(std::move(spec));
  }
  return data;
}

// Which columns may hold strings, judged from the first records: a column whose values there
// are all numbers, booleans, dates or timestamps (or nulls, if not all) gets no byte region
// sized for the whole text; should a later chunk find strings in it after all, they spill
// into memory of that chunk's own (ColumnChunk::append_string), which is slower but right.
std::vector<bool> Reader::sniff_strings(const char* data) const {
  const size_t ncols = specs_.size();
  std::vector<bool> strings(ncols, false), seen(ncols, false);
  Tokenizer tok(dialect_, in_.data(), end());
  const char* p = data;
  try {
    for (int rec = 0; rec < 256; ++rec) {
      p = tok.skip_blank(p);
      if (p >= end()) break;
      size_t nf = 0;
      p = tok.record(p, &nf);
      for (size_t i = 0; i < std::min(nf, ncols); ++i) {
        const Span& f = tok.spans()[i];
        if ((!f.quoted || sets_.quoted_nulls) && sets_.nulls.contains(f.p, f.n)) continue;
        seen[i] = true;
        int64_t iv;
        double dv;
        int32_t days;
        TimestampValue ts;
        const bool plain = parse_int64(f.p, f.n, &iv) != IntParse::NotInt || parse_double(f.p, f.n, &dv) ||
                           sets_.boolean(f.p, f.n) >= 0 ||
                           (sets_.infer_dates && (parse_date32(f.p, f.n, &days) || parse_timestamp(f.p, f.n, &ts)));
        if (!plain || f.quoted) strings[i] = true;
      }
    }
  } catch (const ParseFailure&) {  // reported by the parse proper; judge from what was read
  }
  for (size_t i = 0; i < ncols; ++i) strings[i] = strings[i] || !seen[i];
  return strings;
}

// One record at `rec` (not a blank line) into the chunk's columns; returns where the next
// record begins. Throws ParseFailure for a ragged row or a value that does not parse.
inline const char* Reader::parse_record(Chunk& c, Tokenizer& tok, const char* rec, bool* restart) {
  // (Locals: the fast paths store through pointers, which would otherwise make the compiler
  // reload these for every field.)
  const size_t ncols = specs_.size();
  const char* const text_end = end();
  const char delim = dialect_.delim;
  ColumnChunk* const cols = c.columns.data();
  const char* p = rec;
  for (size_t i = 0;; ++i) {
    ColumnChunk& col = cols[i];
    const char* q = col.fast(p);
    if (q == nullptr) {
      Span s;
      q = tok.one_field(p, s);
      try {
        if (!col.add(s)) *restart = true;
      } catch (ParseFailure& f) {
        f.pos = rec - in_.data();
        f.column = int64_t(i);
        throw;
      }
    }
    const bool more = q < text_end && *q == delim;
    if (i + 1 == ncols || !more) {
      if (i + 1 != ncols || more) {
        size_t nf = 0;
        tok.record(rec, &nf);
        throw ParseFailure{rec - in_.data(), -1,
                           "expected " + std::to_string(ncols) + " fields (as the " +
                               (opts_.header && opts_.column_names.empty() ? "header" : "first row") + " has), got " +
                               std::to_string(nf)};
      }
      p = q;
      break;
    }
    p = q + 1;
  }
  if (p < text_end) p += (*p == '\r' && p + 1 < text_end && p[1] == '\n') ? 2 : 1;
  return p;
}

void Reader::parse_chunk(Chunk& c, const std::vector<KindInfo>& kinds) {
  const size_t ncols = specs_.size();
  c.columns.clear();
  c.columns.reserve(ncols);
  for (size_t i = 0; i < ncols; ++i) {
    ChunkSlots slots;
    const ColumnSpec& spec = specs_[i];
    if (regions_[i].values) slots.values = regions_[i].values->data() + int64_t(spec.value_width) * c.first_row;
    if (regions_[i].ends) slots.ends = regions_[i].ends->data() + (spec.large_offsets ? 8 : 4) * (c.first_row + 1);
    if (regions_[i].bytes) slots.bytes = regions_[i].bytes->data() + c.byte_offset;
    slots.capacity = c.capacity;
    slots.bytes_capacity = regions_[i].bytes ? c.byte_capacity : 0;  // without a region strings spill
    c.columns.emplace_back(spec, sets_, dialect_, end(), kinds[i], slots);
  }
  c.failed = false;
  Tokenizer tok(dialect_, in_.data(), end());
  for (;;) {  // until no column has to start over as strings
    for (ColumnChunk& col : c.columns) col.clear();
    c.rows = 0;
    const char* p = c.start;
    bool restart = false;
    try {
      while (!restart) {
        const char* rec = tok.skip_blank(p);
        if (rec >= c.stop || rec >= end()) break;
        p = parse_record(c, tok, rec, &restart);
        ++c.rows;
      }
      c.end = p;
    } catch (const ParseFailure& f) {
      c.failed = true;
      c.failure = f;
      c.failure_row = c.rows;
      c.end = c.stop;  // unknown; the chunk is reported or parsed again before it matters
      return;
    }
    if (!restart) return;
  }
}

}  // namespace ember::frame::io::detail
