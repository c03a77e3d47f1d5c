// io::decompress against Python's gzip, bz2 and lzma modules and the zstd command-line tool:
// the same bytes back, every integrity failure an ember::Error (truncation at every offset,
// mutated bytes: an error or the exact original, never wrong bytes).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "ember/data/io/decompress.h"
#include "python_scripts.h"
#include "temp_files.h"
#include "test_util.h"

namespace io = ember::data::io;
namespace fs = std::filesystem;

namespace {

using ember::test::read_bytes;
using ember::test::run;
using ember::test::TempDir;
using ember::test::write_bytes;

// Writes data.bin (100 KB of text-like and random bytes), empty.bin, and their compressed
// forms, using Python's modules and the zstd tool.
void make_inputs(const TempDir& dir) {
  write_bytes(dir / "gen.py", R"PY(
import bz2, gzip, lzma, os, random, sys
d = sys.argv[1]
rng = random.Random(5)
data = b"".join(b"line %d: %s\n" % (i, bytes(rng.randrange(32, 127) for _ in range(rng.randrange(80))))
                for i in range(1500)) + rng.randbytes(20000)
def put(name, b):
    open(os.path.join(d, name), "wb").write(b)
put("data.bin", data)
put("empty.bin", b"")
put("data.bin.gz", gzip.compress(data, mtime=0))
put("data.bin.bz2", bz2.compress(data))
put("data.bin.xz", lzma.compress(data))
put("data.bin.lzma", lzma.compress(data, format=lzma.FORMAT_ALONE))
put("empty.bin.gz", gzip.compress(b""))
put("empty.bin.bz2", bz2.compress(b""))
put("empty.bin.xz", lzma.compress(b""))
half = len(data) // 2
# Two members (as pigz/bgzip write), then zero padding: gzip.decompress reads it all.
multi = gzip.compress(data[:half]) + gzip.compress(data[half:]) + b"\0" * 100
assert gzip.decompress(multi) == data
put("multi.gz", multi)
put("small.gz", gzip.compress(b"hello gzip\n" * 50, mtime=0))
)PY");
  run("python3 " + (dir / "gen.py") + " " + dir.path.string());
  run("zstd -q -f " + (dir / "data.bin") + " -o " + (dir / "data.bin.zst"));
  run("zstd -q -f " + (dir / "empty.bin") + " -o " + (dir / "empty.bin.zst"));
}

std::string read_in_chunks(io::InputStream& s, size_t chunk) {
  std::string out, buf(chunk, '\0');
  while (size_t k = s.read(buf.data(), chunk)) out.append(buf.data(), k);
  return out;
}

// Decompresses `bytes`; returns the output, or "ERROR: <message>" for an ember::Error.
std::string try_decompress(const std::string& bytes, io::Compression type) {
  try {
    auto s = io::decompress(io::memory_stream(bytes, "fuzz"), type);
    return s->read_all();
  } catch (const ember::Error& e) {
    EXPECT_NE(std::string(e.what()).find("decompress: 'fuzz'"), std::string::npos) << e.what();
    return std::string("ERROR: ") + e.what();
  }
}

}  // namespace

TEST(IoDecompress, MatchesPython) {
  TempDir dir;
  make_inputs(dir);
  const std::string data = read_bytes(dir / "data.bin");
  ASSERT_GT(data.size(), 80000u);
  for (const char* ext : {".gz", ".bz2", ".xz", ".lzma", ".zst"}) {
    SCOPED_TRACE(ext);
    const std::string path = dir / (std::string("data.bin") + ext);
    auto s = io::decompress(io::file_stream(path));  // type from the extension
    EXPECT_EQ(s->name(), path);
    EXPECT_EQ(s->read_all(), data);
    auto t = io::decompress(io::file_stream(path), *io::compression_from_path(path));
    EXPECT_EQ(read_in_chunks(*t, 1000), data);
    if (std::string(ext) != ".lzma") {
      auto e = io::decompress(io::file_stream(dir / (std::string("empty.bin") + ext)));
      EXPECT_EQ(e->read_all(), "");
    }
  }
  // Explicit names, TorchData's and the extensions.
  EXPECT_EQ(io::decompress(io::file_stream(dir / "data.bin.gz"), "gzip")->read_all(), data);
  EXPECT_EQ(io::decompress(io::file_stream(dir / "data.bin.xz"), "lzma")->read_all(), data);
  EXPECT_EQ(io::decompress(io::file_stream(dir / "data.bin.zst"), "zst")->read_all(), data);
  EXPECT_EQ(io::decompress(io::file_stream(dir / "data.bin.bz2"), "bzip2")->read_all(), data);
  // Concatenated gzip members and zero padding, as Python's gzip reads them.
  EXPECT_EQ(io::decompress(io::file_stream(dir / "multi.gz"))->read_all(), data);
  // An empty source is an empty result (as gzip.decompress(b"") is b"").
  EXPECT_EQ(io::decompress(io::memory_stream("", "e.gz"))->read_all(), "");
  EXPECT_EQ(io::decompress(io::memory_stream("", "e.xz"))->read_all(), "");
}

TEST(IoDecompress, ErrorsNameTheSource) {
  TempDir dir;
  make_inputs(dir);
  const std::string gz = read_bytes(dir / "small.gz");
  EXPECT_ERROR_WITH(io::decompress(io::memory_stream("not gzip at all", "x.gz"))->read_all(),
                    "decompress: 'x.gz': corrupt gzip data in member 1: incorrect header check (not gzip data)");
  EXPECT_ERROR_WITH(io::decompress(io::memory_stream(gz.substr(0, gz.size() - 3), "t.gz"))->read_all(),
                    "decompress: 't.gz': truncated gzip data");
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 6] ^= 1;  // the CRC-32 in the trailer
  EXPECT_ERROR_WITH(io::decompress(io::memory_stream(bad_crc, "c.gz"))->read_all(), "incorrect data check");
  std::string bad_len = gz;
  bad_len[bad_len.size() - 2] ^= 1;  // ISIZE
  EXPECT_ERROR_WITH(io::decompress(io::memory_stream(bad_len, "l.gz"))->read_all(), "incorrect length check");
  EXPECT_ERROR_WITH(io::decompress(io::memory_stream(gz + "garbage", "g.gz"))->read_all(),
                    "bytes after gzip member 1 are neither zero padding nor another gzip member");
  // A type that does not match the data.
  EXPECT_ERROR_WITH(io::decompress(io::file_stream(dir / "data.bin.bz2"), "xz")->read_all(),
                    "decompress: '" + (dir / "data.bin.bz2") + "': not xz data");
  EXPECT_ERROR_WITH(io::decompress(io::file_stream(dir / "data.bin.gz"), "zstd")->read_all(), "not zstd data");
  // Truncated bzip2 / xz / zstd.
  for (const char* ext : {".bz2", ".xz", ".zst"}) {
    const std::string whole = read_bytes(dir / (std::string("data.bin") + ext));
    EXPECT_ERROR_WITH(io::decompress(io::memory_stream(whole.substr(0, whole.size() / 2), std::string("h") + ext))
                          ->read_all(),
                      std::string("decompress: 'h") + ext + "'");
  }
  EXPECT_ERROR_WITH(io::decompress(io::memory_stream("abc", "plain.txt")), "cannot infer the compression of 'plain.txt'");
  EXPECT_ERROR_WITH(io::decompress(io::memory_stream("abc", "x"), "rar"), "unknown compression type 'rar'");
  EXPECT_ERROR_WITH(io::decompress(io::file_stream(dir / "missing.gz")), "file_stream: cannot open");
}

// Every truncation is an error; every single-byte mutation gives an error or exactly the
// original bytes (CRC-32 / CRC-64 / xxhash checks), never a crash or silently wrong data.
TEST(IoDecompress, FuzzTruncatedAndMutated) {
  TempDir dir;
  make_inputs(dir);
  const std::string small = "hello gzip\n";
  std::string want;
  for (int i = 0; i < 50; ++i) want += small;
  struct Input {
    std::string bytes;
    io::Compression type;
    std::string expect;
  };
  const std::string data = read_bytes(dir / "data.bin");
  const std::vector<Input> inputs = {
      {read_bytes(dir / "small.gz"), io::Compression::kGzip, want},
      {read_bytes(dir / "data.bin.gz"), io::Compression::kGzip, data},
      {read_bytes(dir / "data.bin.bz2"), io::Compression::kBz2, data},
      {read_bytes(dir / "data.bin.xz"), io::Compression::kXz, data},
      {read_bytes(dir / "data.bin.zst"), io::Compression::kZstd, data},
  };
  std::mt19937 rng(11);
  for (const auto& in : inputs) {
    SCOPED_TRACE(io::compression_name(in.type) + std::to_string(in.bytes.size()));
    ASSERT_EQ(try_decompress(in.bytes, in.type), in.expect);
    const size_t n = in.bytes.size();
    // Truncations: all of them for the small file, 150 spread offsets for the large ones.
    std::vector<size_t> cuts;
    if (n < 200) {
      for (size_t k = 1; k < n; ++k) cuts.push_back(k);
    } else {
      for (int k = 0; k < 100; ++k) cuts.push_back(1 + rng() % (n - 1));
    }
    for (size_t cut : cuts) {
      const std::string got = try_decompress(in.bytes.substr(0, cut), in.type);
      EXPECT_EQ(got.rfind("ERROR: ", 0), 0u) << "truncated at " << cut << " of " << n << " gave " << got.size()
                                              << " bytes without an error";
    }
    int errors = 0;
    for (int k = 0; k < (n < 200 ? int(n) : 100); ++k) {
      std::string m = in.bytes;
      const size_t at = n < 200 ? size_t(k) : rng() % n;
      m[at] = char(m[at] ^ (1 + rng() % 255));
      const std::string got = try_decompress(m, in.type);
      if (got.rfind("ERROR: ", 0) == 0) {
        ++errors;
        continue;
      }
      EXPECT_EQ(got == in.expect, true) << "byte " << at << " mutated: " << got.size()
                                        << " bytes that differ from the original, without an error";
    }
    EXPECT_GT(errors, 0);
  }
}
