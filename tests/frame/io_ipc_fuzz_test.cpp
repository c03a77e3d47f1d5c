// Fuzzing the IPC readers: valid files and streams of every dtype (plain, LZ4 and ZSTD
// compressed, several batches, dictionaries) are truncated at many offsets and mutated
// (random bytes, bit flips, extreme int32/int64 values written over metadata and body), then
// read from memory placed against a PROT_NONE guard page, so that any read past the end (or,
// in the other placement, before the start) faults. Every read must either raise ember::Error
// or give a frame whose every element can be read. EMBER_FUZZ_SCALE (default 1) multiplies
// the number of mutations; the test was also run under valgrind.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <random>
#include <sstream>

#include "ember/frame/frame.h"
#include "ember/frame/io/ipc.h"
#include "frame/frame_fixtures.h"
#include "test_util.h"

namespace ember::frame {
namespace {

namespace dt = dtypes;

// `size` bytes placed either so that they end where a PROT_NONE page begins, or so that they
// begin right after one.
class GuardedBytes {
 public:
  GuardedBytes(const std::string& src, bool guard_before) {
    page_ = size_t(::sysconf(_SC_PAGESIZE));
    pages_ = (src.size() + page_ - 1) / page_ + 2;
    base_ = static_cast<uint8_t*>(::mmap(nullptr, pages_ * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    EXPECT_NE(base_, MAP_FAILED);
    EXPECT_EQ(::mprotect(base_, page_, PROT_NONE), 0);
    EXPECT_EQ(::mprotect(base_ + (pages_ - 1) * page_, page_, PROT_NONE), 0);
    data_ = guard_before ? base_ + page_ : base_ + (pages_ - 1) * page_ - src.size();
    if (!src.empty()) std::memcpy(data_, src.data(), src.size());
    size_ = int64_t(src.size());
  }
  ~GuardedBytes() { ::munmap(base_, pages_ * page_); }
  Buffer buffer() const { return Buffer::wrap(data_, size_, nullptr); }

 private:
  size_t page_ = 0, pages_ = 0;
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
  int64_t size_ = 0;
};

// Reads every element (and prints the frame), as a user of the frame might.
void touch(const DataFrame& df) {
  for (int64_t c = 0; c < df.num_columns(); ++c) (void)df.column(c).to_values();
  (void)df.to_string();
}

struct Outcome {
  int64_t ok = 0, errors = 0;
};

// Reads `bytes` as a file or stream from guarded memory; only ember::Error may escape.
void read_guarded(const std::string& bytes, bool file, bool guard_before, Outcome& out) {
  GuardedBytes g(bytes, guard_before);
  try {
    if (file) {
      IpcFileReader r(g.buffer(), "fuzz");
      for (int64_t i = 0; i < r.num_record_batches(); ++i) touch(r.read_record_batch(i));
      touch(r.read_table());
    } else {
      IpcStreamReader r(g.buffer(), "fuzz");
      while (auto b = r.next()) touch(*b);
    }
    ++out.ok;
  } catch (const Error&) {
    ++out.errors;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "a non-ember exception: " << e.what();
  }
}

std::vector<std::pair<std::string, DataFrame>> inputs() {
  std::vector<std::pair<std::string, Column>> cols;
  // The fixtures, each cut or padded to 4 rows so that they fit one frame.
  for (auto& [name, col] : test::fixtures()) {
    if (col.size() < 2) continue;
    cols.push_back({name, col.slice(0, 2)});
  }
  DataFrame all(std::move(cols));
  std::vector<std::optional<int64_t>> ints;
  std::vector<std::optional<std::string>> strs;
  for (int i = 0; i < 300; ++i) {
    ints.push_back(i % 7 == 0 ? std::nullopt : std::optional<int64_t>(i * 31 % 101));
    strs.push_back(i % 5 == 0 ? std::nullopt : std::optional<std::string>("v" + std::to_string(i % 11)));
  }
  Column s = column(strs);
  DataFrame many{{"i", column(ints)}, {"s", s}, {"d", s.dictionary_encode()},
                 {"l", column_from_values(std::vector<Value>(300, Value::List{1, Value()}), dt::List(dt::Int64(true)))}};
  return {{"fixtures", all}, {"batches", many}};
}

std::vector<std::pair<std::string, std::string>> encodings() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, df] : inputs()) {
    for (IpcCompression c : {IpcCompression::None, IpcCompression::Lz4Frame, IpcCompression::Zstd}) {
      const IpcWriteOptions o = IpcWriteOptions().with_compression(c).with_max_rows_per_batch(name == "batches" ? 64 : 0);
      std::ostringstream f, s;
      write_feather(df, f, o);
      write_ipc_stream(df, s, o);
      out.push_back({"file/" + name + "/" + to_string(c), f.str()});
      out.push_back({"stream/" + name + "/" + to_string(c), s.str()});
    }
  }
  return out;
}

int scale() {
  const char* s = std::getenv("EMBER_FUZZ_SCALE");
  return s ? std::max(1, std::atoi(s)) : 1;
}

TEST(FrameIoIpcFuzz, ValidInputsReadInGuardedMemory) {
  for (const auto& [name, bytes] : encodings()) {
    SCOPED_TRACE(name);
    Outcome o;
    read_guarded(bytes, name.rfind("file", 0) == 0, false, o);
    read_guarded(bytes, name.rfind("file", 0) == 0, true, o);
    EXPECT_EQ(o.ok, 2);
  }
}

TEST(FrameIoIpcFuzz, TruncationsFailCleanly) {
  for (const auto& [name, bytes] : encodings()) {
    SCOPED_TRACE(name);
    const bool file = name.rfind("file", 0) == 0;
    Outcome o;
    const size_t step = std::max<size_t>(1, bytes.size() / (400 * size_t(scale())));
    for (size_t cut = 0; cut < bytes.size(); cut += step) read_guarded(bytes.substr(0, cut), file, cut % 2 == 0, o);
    // A cut file loses its footer: nothing reads. A cut stream reads its whole batches and
    // then stops with an error, or ends cleanly at a message boundary.
    if (file) EXPECT_EQ(o.ok, 0);
    EXPECT_GT(o.errors, 0);
    // The same through a std::istream (the streaming reader's own path).
    if (!file) {
      for (size_t cut = 0; cut < bytes.size(); cut += step * 7) {
        std::istringstream in(bytes.substr(0, cut));
        try {
          IpcStreamReader r(in, "fuzz");
          while (auto b = r.next()) touch(*b);
        } catch (const Error&) {
        }
      }
    }
  }
}

TEST(FrameIoIpcFuzz, MutationsFailCleanly) {
  std::mt19937_64 rng(20240611);
  int64_t total_ok = 0, total_errors = 0;
  for (const auto& [name, bytes] : encodings()) {
    SCOPED_TRACE(name);
    const bool file = name.rfind("file", 0) == 0;
    Outcome o;
    const int rounds = 300 * scale();
    for (int round = 0; round < rounds; ++round) {
      std::string m = bytes;
      const int edits = 1 + int(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng() % m.size();
        switch (rng() % 6) {
          case 0: m[at] = char(rng()); break;                       // a random byte
          case 1: m[at] = char(m[at] ^ (1 << (rng() % 8))); break;  // a bit flip
          case 2: m[at] = char(0xFF); break;
          case 3: {  // an extreme int32 (offsets, lengths, vtable entries)
            static const int32_t v[] = {0, -1, 1, INT32_MAX, INT32_MIN, 8, 0x7FFF, 1 << 20};
            const int32_t x = v[rng() % 8];
            if (at + 4 <= m.size()) std::memcpy(m.data() + at, &x, 4);
            break;
          }
          case 4: {  // an extreme int64 (field node lengths, buffer offsets, body lengths)
            static const int64_t v[] = {0, -1, 1, INT64_MAX, INT64_MIN, int64_t(1) << 40, 4096, 7};
            const int64_t x = v[rng() % 8];
            if (at + 8 <= m.size()) std::memcpy(m.data() + at, &x, 8);
            break;
          }
          case 5: {  // a small change to an aligned word: most likely a length or an offset
            const size_t w = at & ~size_t(3);
            if (w + 4 <= m.size()) {
              int32_t x;
              std::memcpy(&x, m.data() + w, 4);
              x += int32_t(rng() % 17) - 8;
              std::memcpy(m.data() + w, &x, 4);
            }
            break;
          }
        }
      }
      read_guarded(m, file, round % 2 == 1, o);
    }
    total_ok += o.ok;
    total_errors += o.errors;
  }
  // Both outcomes happen: some mutations hit padding or values, others the structure.
  EXPECT_GT(total_ok, 0);
  EXPECT_GT(total_errors, 0);
}

}  // namespace
}  // namespace ember::frame
