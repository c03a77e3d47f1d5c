// read_csv; see Note [CSV reading] in csv.h. The data's path through the reader:
//   Input        the whole text in memory (a file is mapped, not copied), followed by a '\n'
//                sentinel that ends every unquoted scan without a bounds check per byte;
//   cuts         chunks cut after line ends; each chunk's line ends are counted (SIMD), which
//                bounds its rows, so every chunk knows where its rows go in the columns'
//                final buffers (Regions: reserved address space, touched only as written);
//   parse        chunks in parallel: records are tokenized (csv_tokenizer.h) and each field
//                converted at once by its column's ColumnChunk (csv_column.h), through a fast
//                path for plain ints, floats and strings;
//   check        in order, each chunk must have begun where its predecessor ended (a cut
//                inside a quoted field is found so, and the chunk parsed again from there);
//   unify        a column's kind is the join of its chunks' kinds; chunks are widened in place
//                or (to strings) parsed again;
//   assemble     rows of chunks are moved together where their line-end bounds were loose,
//                string bytes gathered, validity bitmaps joined.
// Reader::read (here) runs these steps in order; Input, Region and the line-end count are in
// csv_input.cpp, the header and the records' parse in csv_parse.cpp, the assembly in
// csv_assemble.cpp (csv_reader.h declares what they share).
#include <algorithm>
#include <cstring>
#include <istream>
#include <iterator>
#include <string>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/frame/io/csv.h"
#include "ember/frame/io/csv_reader.h"

namespace ember::frame {

const std::vector<std::string>& default_csv_null_values() {
  static const std::vector<std::string> v{"",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN",
                                          "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",   "NA",      "NULL",
                                          "NaN",  "None", "n/a",      "nan", "null"};
  return v;
}

namespace io::detail {

DataFrame Reader::read() {
  check_options();
  const char* p = in_.data();
  if (in_.size() >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;  // a UTF-8 byte order mark
  const char* data = header(p);
  const size_t ncols = specs_.size();
  if (ncols == 0) return DataFrame();

  const int64_t bytes = end() - data;
  // Threads only pay for themselves on more than a little data.
  threads_ =
      bytes < (int64_t(1) << 20) ? 1 : std::max(1, opts_.num_threads > 0 ? opts_.num_threads : get_num_threads());
  cut_chunks(data, bytes);
  const int64_t bound = bound_rows();
  reserve_regions(data, bound, bytes);

  std::vector<KindInfo> start_kinds(ncols);
  run(chunks_.size(), [&](size_t k) { parse_chunk(chunks_[k], start_kinds); });
  const int64_t total_rows = check_chunks(start_kinds);
  const std::vector<KindInfo> kinds = unify_kinds();

  std::vector<Assembly> asm_ = plan_assembly(kinds, total_rows);
  gather_strings(asm_);
  return assemble_columns(asm_, total_rows);
}

// Chunks cut after line ends; each is a guess until its predecessor ends where it starts.
void Reader::cut_chunks(const char* data, int64_t bytes) {
  const int64_t chunk_bytes = std::max<int64_t>(opts_.chunk_bytes, 64 << 10);
  const int64_t nchunks = std::max<int64_t>(1, std::min<int64_t>((bytes + chunk_bytes - 1) / chunk_bytes, 1 << 16));
  std::vector<const char*> cuts{data};
  for (int64_t k = 1; k < nchunks; ++k) {
    const char* at = data + bytes * k / nchunks;
    if (at <= cuts.back()) continue;
    const void* nl = std::memchr(at, '\n', size_t(end() - at));
    if (nl == nullptr) break;
    const char* next = static_cast<const char*>(nl) + 1;
    if (next > cuts.back() && next < end()) cuts.push_back(next);
  }
  chunks_.resize(cuts.size());
  for (size_t k = 0; k < chunks_.size(); ++k) {
    chunks_[k].start = cuts[k];
    chunks_[k].stop = k + 1 < cuts.size() ? cuts[k + 1] : end();
    chunks_[k].byte_offset = cuts[k] - data;
    chunks_[k].byte_capacity = chunks_[k].stop - chunks_[k].start;
  }
}

// Each chunk's rows are at most its line ends: their place in the columns. A chunk other
// than the last ends just after a '\n' (its cut), and a record starts at a character that
// is not a line end, so each record starting in it has a line end after it in the chunk.
// The last chunk may end without one. (With bounds that are exact, as they are without
// blank lines or quoted line breaks, the columns are assembled in place.)
// Returns the bound on all the rows.
int64_t Reader::bound_rows() {
  run(chunks_.size(), [&](size_t k) {
    chunks_[k].capacity = count_line_ends(chunks_[k].start, chunks_[k].stop) + (k + 1 == chunks_.size() ? 1 : 0);
  });
  int64_t bound = 0;
  for (Chunk& c : chunks_) {
    c.first_row = bound;
    bound += c.capacity;
  }
  return bound;
}

// The regions the columns are written into, sized by the rows' bound and the text.
void Reader::reserve_regions(const char* data, int64_t bound, int64_t bytes) {
  const size_t ncols = specs_.size();
  const std::vector<bool> may_hold_strings = sniff_strings(data);
  regions_.resize(ncols);
  for (size_t i = 0; i < ncols; ++i) {
    const ColumnSpec& s = specs_[i];
    const bool fixed = !s.forced || (s.forced->is_fixed_width() && s.forced->id() != TypeId::Bool);
    const bool strings = !s.forced || s.dictionary || s.forced->is_binary_like();
    if (fixed) regions_[i].values = Region::reserve(s.value_width * (bound + 1));
    if (strings) {
      regions_[i].ends = Region::reserve((s.large_offsets ? 8 : 4) * (bound + 2));
      // Room for strings as long as the text, for columns that may hold them.
      if (s.forced || may_hold_strings[i]) regions_[i].bytes = Region::reserve(bytes);
    }
  }
}

// Checks the guesses in order; parses again a chunk that began inside a quoted field. Blank
// lines may lie between a chunk's last record and the next chunk's cut. Returns the rows.
int64_t Reader::check_chunks(const std::vector<KindInfo>& start_kinds) {
  int64_t rows_before = 0;
  for (size_t k = 0; k < chunks_.size(); ++k) {
    Chunk& c = chunks_[k];
    if (k > 0 && blank_end(chunks_[k - 1].end) != blank_end(c.start)) {
      c.start = chunks_[k - 1].end;
      if (c.start >= c.stop) c.stop = c.start;  // the previous chunk's last record covers this one
      parse_chunk(c, start_kinds);
    }
    if (c.failed) fail_at(c.failure.pos, rows_before + c.failure_row, c.failure.column, c.failure.message);
    rows_before += c.rows;
  }
  return rows_before;
}

// Unifies each column's kind across chunks; widens in place, or parses again (to strings).
std::vector<KindInfo> Reader::unify_kinds() {
  const size_t ncols = specs_.size();
  std::vector<KindInfo> kinds(ncols);
  for (size_t i = 0; i < ncols; ++i)
    for (const Chunk& c : chunks_) kinds[i] = join(kinds[i], c.columns[i].info());
  std::vector<size_t> redo;
  for (size_t k = 0; k < chunks_.size(); ++k) {
    bool again = false;
    for (size_t i = 0; i < ncols; ++i) again |= !chunks_[k].columns[i].widen(kinds[i]);
    if (again) redo.push_back(k);
  }
  run(redo.size(), [&](size_t j) {
    Chunk& c = chunks_[redo[j]];
    parse_chunk(c, kinds);
    for (size_t i = 0; i < ncols; ++i) c.columns[i].widen(kinds[i]);  // a null chunk's placeholders
  });
  for (size_t k : redo)
    if (chunks_[k].failed)
      EMBER_ERROR("read_csv: '", name_, "': internal: a chunk failed when parsed again: ", chunks_[k].failure.message);
  return kinds;
}

}  // namespace io::detail

DataFrame read_csv(const std::string& path, const CsvReadOptions& options) {
  io::detail::Reader r(io::detail::read_path(path), options, options.name.empty() ? path : options.name);
  return r.read();
}

DataFrame read_csv(std::istream& in, const CsvReadOptions& options) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  CsvReadOptions o = options;
  if (o.name.empty()) o.name = "<stream>";
  return read_csv_string(text, o);
}

DataFrame read_csv_string(std::string_view text, const CsvReadOptions& options) {
  io::detail::Input in;
  char* p = in.allocate(int64_t(text.size()));
  if (!text.empty()) std::memcpy(p, text.data(), text.size());
  io::detail::Reader r(std::move(in), options, options.name.empty() ? "<string>" : options.name);
  return r.read();
}

}  // namespace ember::frame
