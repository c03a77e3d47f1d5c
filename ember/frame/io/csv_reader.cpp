// read_csv; see Note [CSV reading] in csv.h. The data's path through here:
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
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <istream>
#include <memory>
#include <unordered_set>

#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "ember/core/error.h"
#include "ember/core/parallel.h"
#include "ember/frame/io/concat.h"
#include "ember/frame/io/csv.h"
#include "ember/frame/io/csv_column.h"
#include "ember/frame/io/csv_tokenizer.h"
#include "ember/frame/io/csv_values.h"
#include "ember/frame/scratch.h"

namespace ember::frame {

const std::vector<std::string>& default_csv_null_values() {
  static const std::vector<std::string> v{"",     "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN",
                                          "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",   "NA",      "NULL",
                                          "NaN",  "None", "n/a",      "nan", "null"};
  return v;
}

namespace {

using namespace io::detail;

constexpr int64_t kPad = 64;  // zero bytes after the sentinel

// ---- memory ---------------------------------------------------------------------------------

// Memory reserved for the worst case (a column's rows bounded by line ends, its string bytes
// by the text's size). Not zeroed. Up to the scratch cache's limit it is a scratch block
// (Note [Scratch memory]: huge pages, kept for reuse, so a file read again, or one like it,
// writes into memory already mapped); larger, it is address space reserved with
// MAP_NORESERVE and backed only where written (a file larger than the machine's memory
// reserves more than it could commit).
class Region {
 public:
  static std::shared_ptr<Region> reserve(int64_t bytes) {
    auto r = std::shared_ptr<Region>(new Region);
    r->bytes_ = size_t(std::max<int64_t>(bytes, 1) + kPad);
    if (r->bytes_ <= scratch_cache_limit()) {
      r->data_ = static_cast<uint8_t*>(scratch_alloc(r->bytes_));
      r->scratch_ = true;
    } else {
      void* p = ::mmap(nullptr, r->bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      EMBER_CHECK(p != MAP_FAILED, "read_csv: cannot reserve ", bytes, " bytes of memory");
      r->data_ = static_cast<uint8_t*>(p);
    }
    return r;
  }
  ~Region() {
    if (scratch_) scratch_free(data_);
    else if (data_) ::munmap(data_, bytes_);
  }
  uint8_t* data() const { return data_; }
  // The first `size` bytes, keeping the region alive; the padding after them is zeroed (a
  // reused block holds old bytes there).
  static Buffer buffer(const std::shared_ptr<Region>& r, int64_t size) {
    std::memset(r->data_ + size, 0, std::min<size_t>(size_t(kPad), r->bytes_ - size_t(size)));
    return Buffer::wrap(r->data_, size, std::shared_ptr<const void>(r, r->data_));
  }

 private:
  Region() = default;
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  bool scratch_ = false;
};

// The text, with text[size] == '\n' and zeros after it: a private mapping of the file with
// an anonymous page behind it, or a copy.
class Input {
 public:
  Input() = default;
  Input(const Input&) = delete;
  Input(Input&& o) noexcept { *this = std::move(o); }
  Input& operator=(Input&& o) noexcept {
    std::swap(storage_, o.storage_);
    std::swap(map_, o.map_);
    std::swap(map_bytes_, o.map_bytes_);
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  ~Input() {
    if (!map_) return;
    if (map_bytes_ >= (size_t(64) << 20)) {
      // Tearing down the page tables of a large mapping is per-page work (11 ms for 300 MB)
      // that munmap does on one thread under the address space's write lock; dropping the
      // pages first (MADV_DONTNEED takes the lock for reading) lets two threads share it.
      const size_t half = map_bytes_ / 2 / 4096 * 4096;
      parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k)
          ::madvise(static_cast<char*>(map_) + (k ? half : 0), k ? map_bytes_ - half : half, MADV_DONTNEED);
      });
    }
    ::munmap(map_, map_bytes_);
  }

  const char* data() const { return data_; }
  int64_t size() const { return size_; }

  char* allocate(int64_t n) {
    storage_.reset(new char[size_t(n + kPad)]);
    std::memset(storage_.get() + n, 0, size_t(kPad));
    storage_[size_t(n)] = '\n';
    data_ = storage_.get();
    size_ = n;
    return storage_.get();
  }

  // Maps the file; false when it cannot be mapped (a pipe, say).
  bool map(int fd, int64_t n) {
    const int64_t page = ::sysconf(_SC_PAGESIZE);
    const size_t bytes = size_t((n + page - 1) / page * page + page);
    void* base = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return false;
    if (n > 0 && ::mmap(base, size_t(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
      ::munmap(base, bytes);
      return false;
    }
    ::madvise(base, size_t(n), MADV_WILLNEED);
    map_ = base;
    map_bytes_ = bytes;
    data_ = static_cast<char*>(base);
    size_ = n;
    // Past the end of the file its last page reads as zeros (and is private), then the
    // anonymous page follows: room for the sentinel either way.
    static_cast<char*>(base)[n] = '\n';
    return true;
  }

 private:
  std::unique_ptr<char[]> storage_;
  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  const char* data_ = nullptr;
  int64_t size_ = 0;
};

// The number of line ends ("\n", "\r\n", "\r") in [p, e): a bound on the records that start
// there, less one. 32 bytes at a time where the CPU has AVX2 (1.5 ms less a 300 MB file on two
// threads), else 16.
// The line ends in [p, e) one byte at a time: the tail the vector loops leave.
int64_t count_line_ends_scalar(const char* p, const char* e) {
  int64_t n = 0;
  for (; p < e; ++p) n += *p == '\n' || (*p == '\r' && !(p + 1 < e && p[1] == '\n'));
  return n;
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,popcnt"))) int64_t count_line_ends_avx2(const char* p, const char* e) {
  int64_t nl = 0, cr = 0, crlf = 0;
  const __m256i kNl = _mm256_set1_epi8('\n'), kCr = _mm256_set1_epi8('\r');
  for (; e - p >= 33; p += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 1));
    const uint32_t r = uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, kCr)));
    nl += __builtin_popcount(uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, kNl))));
    cr += __builtin_popcount(r);
    crlf += __builtin_popcount(r & uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(w, kNl))));
  }
  return nl + cr - crlf + count_line_ends_scalar(p, e);
}
#endif

int64_t count_line_ends(const char* p, const char* e) {
#if defined(__x86_64__) && defined(__GNUC__)
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
  if (avx2) return count_line_ends_avx2(p, e);
#endif
  int64_t nl = 0, cr = 0, crlf = 0;
#ifdef __SSE2__
  const __m128i kNl = _mm_set1_epi8('\n'), kCr = _mm_set1_epi8('\r'), zero = _mm_setzero_si128();
  auto sum = [&](__m128i acc) {
    const __m128i s = _mm_sad_epu8(acc, zero);
    return int64_t(_mm_cvtsi128_si64(s)) + int64_t(_mm_cvtsi128_si64(_mm_unpackhi_epi64(s, s)));
  };
  while (e - p >= 17) {
    __m128i an = zero, ar = zero, ap = zero;
    for (int k = 0; k < 255 && e - p >= 17; ++k, p += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 1));
      const __m128i r = _mm_cmpeq_epi8(v, kCr);
      an = _mm_sub_epi8(an, _mm_cmpeq_epi8(v, kNl));
      ar = _mm_sub_epi8(ar, r);
      ap = _mm_sub_epi8(ap, _mm_and_si128(r, _mm_cmpeq_epi8(w, kNl)));
    }
    nl += sum(an);
    cr += sum(ar);
    crlf += sum(ap);
  }
#endif
  return nl + cr - crlf + count_line_ends_scalar(p, e);
}

// ---- chunks -------------------------------------------------------------------------------

struct Chunk {
  const char* start = nullptr;  // where parsing began (a guess until checked)
  const char* stop = nullptr;   // records that begin before this belong to the chunk
  const char* end = nullptr;    // where its last record ended
  int64_t first_row = 0;        // its first row's place in the column buffers (a bound)
  int64_t capacity = 0;         // rows it may hold
  int64_t byte_offset = 0;      // its place in the string bytes (its cut's offset in the text)
  int64_t byte_capacity = 0;    // the bytes from its cut to the next
  int64_t rows = 0;
  std::vector<ColumnChunk> columns;
  bool failed = false;
  ParseFailure failure;
  int64_t failure_row = 0;
};

// The buffers a column's chunks write into.
struct ColumnRegions {
  std::shared_ptr<Region> values, ends, bytes;
};

class Reader {
 public:
  Reader(Input input, const CsvReadOptions& o, std::string name)
      : in_(std::move(input)), opts_(o), name_(std::move(name)), dialect_(o), sets_(o) {}

  DataFrame read();

 private:
  [[noreturn]] void fail_at(int64_t pos, int64_t row, int64_t column, const std::string& msg) const;
  int64_t line_of(int64_t pos) const;
  void check_options() const;
  const char* header(const char* p);
  const char* end() const { return in_.data() + in_.size(); }
  const char* blank_end(const char* p) const { return Tokenizer(dialect_, in_.data(), end()).skip_blank(p); }
  std::vector<bool> sniff_strings(const char* data) const;
  void parse_chunk(Chunk& c, const std::vector<KindInfo>& kinds);
  const char* parse_record(Chunk& c, Tokenizer& tok, const char* rec, bool* restart);
  // A column's assembly: its type, each chunk's first row and first string byte.
  struct Assembly {
    DType type{TypeId::Bool};
    int64_t nulls = 0;
    std::vector<int64_t> row, base;
    BufferBuilder wide;     // int64 ends, when int32 chunks become large_string
    bool gathered = false;  // the ends are gathered (in parallel, before assemble)
    OutBuffer bytes;        // the string bytes of all chunks (copied in parallel, before assemble)
    int64_t total_bytes = 0;
  };
  DType column_type(size_t i, const KindInfo& k, int64_t nulls, int64_t bytes, int64_t total_rows) const;
  void gather_ends(size_t i, size_t k, Assembly& a);
  void gather_bytes(size_t i, size_t k, Assembly& a);
  Column assemble(size_t i, Assembly& a, int64_t total_rows);

  Input in_;
  const CsvReadOptions& opts_;
  std::string name_;
  Dialect dialect_;
  ValueSets sets_;
  std::vector<ColumnSpec> specs_;
  std::vector<ColumnRegions> regions_;
  std::vector<Chunk> chunks_;
};

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
const char* Reader::parse_record(Chunk& c, Tokenizer& tok, const char* rec, bool* restart) {
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

// The type a column gets from its kind (or the given type), its nulls and string bytes.
DType Reader::column_type(size_t i, const KindInfo& k, int64_t nulls, int64_t bytes, int64_t total_rows) const {
  const ColumnSpec& spec = specs_[i];
  if (spec.dictionary) return DType(TypeId::String, spec.forced->nullable());
  if (spec.forced) return *spec.forced;
  switch (k.kind) {
    case Kind::Int64: return DType(TypeId::Int64, nulls > 0);
    case Kind::UInt64: return DType(TypeId::UInt64, nulls > 0);
    case Kind::Float64: return DType(TypeId::Float64, nulls > 0);
    case Kind::Bool: return DType(TypeId::Bool, nulls > 0);
    case Kind::Date32: return DType(TypeId::Date32, nulls > 0);
    case Kind::Timestamp: return dtypes::Timestamp(TimeUnit(k.unit), k.utc ? "UTC" : "", nulls > 0);
    case Kind::Null: return DType(TypeId::String, total_rows > 0);
    default: return DType(bytes > INT32_MAX ? TypeId::LargeString : TypeId::String, nulls > 0);
  }
}

// Chunk k's string ends in column i, rebased to where its bytes go and moved to its rows (in
// place when the rows' bounds were exact).
void Reader::gather_ends(size_t i, size_t k, Assembly& a) {
  Chunk& c = chunks_[k];
  ColumnChunk& col = c.columns[i];
  const bool chunk_large = specs_[i].large_offsets;
  const uint8_t* src = col.slots().ends;
  uint8_t* ends = regions_[i].ends->data();
  const int64_t at = a.row[k], base = a.base[k];
  for (int64_t r = 0; r < c.rows; ++r) {
    if (chunk_large) {
      int64_t e;
      std::memcpy(&e, src + 8 * r, 8);
      e += base;
      std::memcpy(ends + 8 * (at + 1 + r), &e, 8);
    } else {
      int32_t e;
      std::memcpy(&e, src + 4 * r, 4);
      if (a.wide.size() > 0) {
        reinterpret_cast<int64_t*>(a.wide.data())[at + 1 + r] = int64_t(e) + base;
      } else {
        e += int32_t(base);
        std::memcpy(ends + 4 * (at + 1 + r), &e, 4);
      }
    }
  }
}

// Chunk k's string bytes in column i, copied to their place in the column's buffer of them
// (of their exact size: the column's byte region, sized for the whole text, goes back to the
// scratch cache with the reader).
void Reader::gather_bytes(size_t i, size_t k, Assembly& a) {
  const ColumnChunk& col = chunks_[k].columns[i];
  if (col.data_bytes() > 0) std::memcpy(a.bytes.data() + a.base[k], col.data(), size_t(col.data_bytes()));
}

// The column's chunks as one array: rows moved together, bitmaps joined, and the strings
// (gathered already when `a.gathered`).
Column Reader::assemble(size_t i, Assembly& a, int64_t total_rows) {
  const ColumnSpec& spec = specs_[i];
  const DType& type = a.type;
  Buffer validity;
  if (a.nulls > 0) {
    BufferBuilder v;
    v.resize(bits::bytes_for(total_rows));
    for (size_t k = 0; k < chunks_.size(); ++k) {
      ColumnChunk& col = chunks_[k].columns[i];
      Buffer b = col.take_validity();
      if (b.defined()) copy_bits(b.data(), 0, col.length(), v.data(), a.row[k]);
      else set_bits(v.data(), a.row[k], col.length());
    }
    validity = v.finish();
  }
  std::vector<Buffer> buffers{validity};
  if (type.id() == TypeId::Bool) {
    BufferBuilder b;
    b.resize(bits::bytes_for(total_rows));
    for (size_t k = 0; k < chunks_.size(); ++k) {
      ColumnChunk& col = chunks_[k].columns[i];
      Buffer bits = col.take_bits();
      copy_bits(bits.data(), 0, col.length(), b.data(), a.row[k]);
    }
    buffers.push_back(b.finish());
  } else if (type.is_fixed_width()) {
    // Rows move down to close the gaps that loose bounds left (none when every line end
    // ended a record); destinations never pass their sources, so in order is safe.
    const int64_t w = type.byte_width();
    uint8_t* base = regions_[i].values->data();
    for (size_t k = 0; k < chunks_.size(); ++k) {
      const uint8_t* src = chunks_[k].columns[i].slots().values;
      const int64_t rows = chunks_[k].rows;
      if (src != base + a.row[k] * w && rows > 0) std::memmove(base + a.row[k] * w, src, size_t(rows * w));
    }
    buffers.push_back(Region::buffer(regions_[i].values, total_rows * w));
  } else {
    if (!a.gathered)
      for (size_t k = 0; k < chunks_.size(); ++k) gather_ends(i, k, a);
    if (a.wide.size() > 0) {
      buffers.push_back(a.wide.finish());
    } else {
      const int64_t w = spec.large_offsets ? 8 : 4;
      std::memset(regions_[i].ends->data(), 0, size_t(w));
      buffers.push_back(Region::buffer(regions_[i].ends, (total_rows + 1) * w));
    }
    buffers.push_back(a.bytes.finish(a.total_bytes));
  }
  Column column = Column::from_data_unchecked(ArrayData::make(type, total_rows, std::move(buffers), {}, a.nulls, 0));
  if (spec.dictionary) {
    // dictionary_encode's layout, with the nullable flags the caller gave.
    const Column encoded = column.dictionary_encode();
    auto dict = std::make_shared<ArrayData>(*encoded.data()->dictionary);
    dict->type = spec.forced->value_type();
    column = Column(ArrayData::make(*spec.forced, encoded.size(), encoded.data()->buffers, {}, encoded.null_count(),
                                    encoded.offset(), std::move(dict)));
  }
  return column;
}

DataFrame Reader::read() {
  check_options();
  const char* p = in_.data();
  if (in_.size() >= 3 && std::memcmp(p, "\xEF\xBB\xBF", 3) == 0) p += 3;  // a UTF-8 byte order mark
  const char* data = header(p);
  const size_t ncols = specs_.size();
  if (ncols == 0) return DataFrame();

  // Chunks cut after line ends; each is a guess until its predecessor ends where it starts.
  const int64_t chunk_bytes = std::max<int64_t>(opts_.chunk_bytes, 64 << 10);
  const int64_t bytes = end() - data;
  // Threads only pay for themselves on more than a little data.
  const int threads = bytes < (int64_t(1) << 20) ? 1 : std::max(1, opts_.num_threads > 0 ? opts_.num_threads : get_num_threads());
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
  auto run = [&](size_t n, const auto& task) {  // task(k) for k < n, over the threads
    std::atomic<size_t> next{0};
    auto work = [&](int64_t, int64_t) {
      for (size_t k; (k = next.fetch_add(1)) < n;) task(k);
    };
    const int64_t workers = std::min<int64_t>(threads, int64_t(n));
    if (workers > 1) parallel_for(0, workers, 1, work);
    else work(0, 1);
  };
  // Each chunk's rows are at most its line ends: their place in the columns. A chunk other
  // than the last ends just after a '\n' (its cut), and a record starts at a character that
  // is not a line end, so each record starting in it has a line end after it in the chunk.
  // The last chunk may end without one. (With bounds that are exact, as they are without
  // blank lines or quoted line breaks, the columns are assembled in place.)
  run(chunks_.size(), [&](size_t k) {
    chunks_[k].capacity = count_line_ends(chunks_[k].start, chunks_[k].stop) + (k + 1 == chunks_.size() ? 1 : 0);
  });
  int64_t bound = 0;
  for (Chunk& c : chunks_) {
    c.first_row = bound;
    bound += c.capacity;
  }
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

  std::vector<KindInfo> start_kinds(ncols);
  run(chunks_.size(), [&](size_t k) { parse_chunk(chunks_[k], start_kinds); });

  // Check the guesses in order; parse again a chunk that began inside a quoted field. Blank
  // lines may lie between a chunk's last record and the next chunk's cut.
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
  const int64_t total_rows = rows_before;

  // Unify each column's kind across chunks; widen in place, or parse again (to strings).
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

  // Each column's type and where each chunk's rows and string bytes go.
  std::vector<Assembly> asm_(ncols);
  bool exact = true;
  {
    int64_t at = 0;
    for (const Chunk& c : chunks_) {
      exact &= c.first_row == at;
      at += c.rows;
    }
  }
  for (size_t i = 0; i < ncols; ++i) {
    Assembly& a = asm_[i];
    int64_t row = 0, bytes = 0;
    for (const Chunk& c : chunks_) {
      a.row.push_back(row);
      a.base.push_back(bytes);
      a.nulls += c.columns[i].nulls();
      row += c.rows;
      bytes += c.columns[i].data_bytes();
    }
    if (kinds[i].kind == Kind::Null)
      for (Chunk& c : chunks_) c.columns[i].widen({Kind::String});
    a.type = column_type(i, kinds[i], a.nulls, bytes, total_rows);
    if (a.type.is_binary_like()) {
      EMBER_CHECK(a.type.has_large_offsets() || bytes <= INT32_MAX, "read_csv: '", name_, "': column '", specs_[i].name,
                  "' holds ", bytes, " bytes of strings, more than 32-bit offsets address; read it as large_string");
      if (a.type.has_large_offsets() && !specs_[i].large_offsets) a.wide.resize((total_rows + 1) * 8);
      a.gathered = exact;  // in place: chunks may go in parallel (below)
      a.bytes = OutBuffer(bytes);
      a.total_bytes = bytes;
    }
  }

  // In parallel over (column, chunk): invalid UTF-8 (reported at its first row), the string
  // bytes, and the string ends when the rows' bounds were exact.
  std::vector<std::pair<size_t, size_t>> tasks;
  for (size_t i = 0; i < ncols; ++i)
    if (asm_[i].type.is_binary_like())
      for (size_t k = 0; k < chunks_.size(); ++k) tasks.emplace_back(i, k);
  std::vector<int64_t> bad(tasks.size(), -1);
  run(tasks.size(), [&](size_t t) {
    const auto [i, k] = tasks[t];
    if (asm_[i].type.is_string()) bad[t] = chunks_[k].columns[i].invalid_utf8_row();
    if (bad[t] >= 0) return;
    gather_bytes(i, k, asm_[i]);
    if (asm_[i].gathered) gather_ends(i, k, asm_[i]);
  });
  for (size_t t = 0; t < tasks.size(); ++t)
    if (bad[t] >= 0) {
      const auto [i, k] = tasks[t];
      EMBER_ERROR("read_csv: '", name_, "' row ", asm_[i].row[k] + bad[t], ", column '", specs_[i].name,
                  "': the value is not valid UTF-8 (read the column as binary with dtypes)");
    }

  std::vector<std::pair<std::string, Column>> cols(ncols);
  std::vector<std::string> errors(ncols);
  run(ncols, [&](size_t i) {
    try {
      cols[i] = {specs_[i].name, assemble(i, asm_[i], total_rows)};
    } catch (const std::exception& e) {
      errors[i] = e.what();
    }
  });
  for (const std::string& e : errors)
    if (!e.empty()) throw Error(e);
  return DataFrame(std::move(cols));
}

Input read_path(const std::string& path) {
  Input in;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  EMBER_CHECK(fd >= 0, "read_csv: cannot open '", path, "': ", std::strerror(errno));
  struct stat st{};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  const bool regular = stat_ok && S_ISREG(st.st_mode);
  const bool mapped = regular && in.map(fd, int64_t(st.st_size));
  ::close(fd);
  EMBER_CHECK(!(stat_ok && S_ISDIR(st.st_mode)), "read_csv: '", path, "' is a directory");
  if (mapped) return in;
  std::string text;
  try {  // a pipe or a device, read to its end
    std::ifstream f(path, std::ios::binary);
    EMBER_CHECK(f.is_open(), "read_csv: cannot open '", path, "'");
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    EMBER_ERROR("read_csv: reading '", path, "' failed: ", e.what());
  }
  if (!text.empty()) std::memcpy(in.allocate(int64_t(text.size())), text.data(), text.size());
  return in;
}

}  // namespace

DataFrame read_csv(const std::string& path, const CsvReadOptions& options) {
  Reader r(read_path(path), options, options.name.empty() ? path : options.name);
  return r.read();
}

DataFrame read_csv(std::istream& in, const CsvReadOptions& options) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  CsvReadOptions o = options;
  if (o.name.empty()) o.name = "<stream>";
  return read_csv_string(text, o);
}

DataFrame read_csv_string(std::string_view text, const CsvReadOptions& options) {
  Input in;
  char* p = in.allocate(int64_t(text.size()));
  if (!text.empty()) std::memcpy(p, text.data(), text.size());
  Reader r(std::move(in), options, options.name.empty() ? "<string>" : options.name);
  return r.read();
}

}  // namespace ember::frame
