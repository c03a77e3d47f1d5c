// The CSV reader's parts, shared by its files (see Note [CSV reading] in csv.h, and the data's
// path through them at the top of csv_reader.cpp):
//   csv_input.cpp     the text in memory (Input), memory reserved for the columns (Region), and
//                     line ends counted;
//   csv_parse.cpp     the options checked, the header read, records parsed into a chunk;
//   csv_assemble.cpp  the chunks' columns assembled into the frame's;
//   csv_reader.cpp    Reader::read, which runs the steps in order, and read_csv.
// Internal to ember/frame/io.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/frame/buffer.h"
#include "ember/frame/column.h"
#include "ember/frame/dataframe.h"
#include "ember/frame/io/csv.h"
#include "ember/frame/io/csv_column.h"
#include "ember/frame/io/csv_tokenizer.h"
#include "ember/frame/scratch.h"

namespace ember::frame::io::detail {

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
  static std::shared_ptr<Region> reserve(int64_t bytes);
  ~Region();
  uint8_t* data() const { return data_; }
  // The first `size` bytes, keeping the region alive; the padding after them is zeroed (a
  // reused block holds old bytes there).
  static Buffer buffer(const std::shared_ptr<Region>& r, int64_t size);

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
  ~Input();

  const char* data() const { return data_; }
  int64_t size() const { return size_; }

  char* allocate(int64_t n);

  // Maps the file; false when it cannot be mapped (a pipe, say).
  bool map(int fd, int64_t n);

 private:
  std::unique_ptr<char[]> storage_;
  void* map_ = nullptr;
  size_t map_bytes_ = 0;
  const char* data_ = nullptr;
  int64_t size_ = 0;
};

// The text of the file at `path`: mapped where it can be, else read to its end.
Input read_path(const std::string& path);

// The number of line ends ("\n", "\r\n", "\r") in [p, e): a bound on the records that start
// there, less one. 32 bytes at a time where the CPU has AVX2 (1.5 ms less a 300 MB file on two
// threads), else 16.
int64_t count_line_ends(const char* p, const char* e);

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

  // read()'s steps, in their order (csv_reader.cpp, then csv_assemble.cpp).
  void cut_chunks(const char* data, int64_t bytes);
  int64_t bound_rows();
  void reserve_regions(const char* data, int64_t bound, int64_t bytes);
  int64_t check_chunks(const std::vector<KindInfo>& start_kinds);
  std::vector<KindInfo> unify_kinds();
  std::vector<Assembly> plan_assembly(const std::vector<KindInfo>& kinds, int64_t total_rows);
  void gather_strings(std::vector<Assembly>& asm_);
  DataFrame assemble_columns(std::vector<Assembly>& asm_, int64_t total_rows);

  // task(k) for k < n, over the threads.
  template <class Task> void run(size_t n, const Task& task) const {
    std::atomic<size_t> next{0};
    auto work = [&](int64_t, int64_t) {
      for (size_t k; (k = next.fetch_add(1)) < n;) task(k);
    };
    const int64_t workers = std::min<int64_t>(threads_, int64_t(n));
    if (workers > 1) parallel_for(0, workers, 1, work);
    else work(0, 1);
  }

  // csv_parse.cpp
  [[noreturn]] void fail_at(int64_t pos, int64_t row, int64_t column, const std::string& msg) const;
  int64_t line_of(int64_t pos) const;
  void check_options() const;
  const char* header(const char* p);
  const char* end() const { return in_.data() + in_.size(); }
  const char* blank_end(const char* p) const { return Tokenizer(dialect_, in_.data(), end()).skip_blank(p); }
  std::vector<bool> sniff_strings(const char* data) const;
  void parse_chunk(Chunk& c, const std::vector<KindInfo>& kinds);
  // Inline (defined in csv_parse.cpp, its one caller parse_chunk's file) so that it is still
  // inlined there: the library's exported functions are not (they could be interposed).
  inline const char* parse_record(Chunk& c, Tokenizer& tok, const char* rec, bool* restart);

  // csv_assemble.cpp
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
  int threads_ = 1;  // for run(): set by read() from the text's size and the options
};

}  // namespace ember::frame::io::detail
