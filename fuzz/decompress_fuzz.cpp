// Fuzzes the decompressors of ember/data/io/decompress.h (gzip through zlib; bz2, xz and zstd
// through libarchive). Input: byte 0 picks the format (low 2 bits) and how many bytes each read
// of the compressed source gives (the rest); then the compressed data. Reading the source in
// small pieces and at once must give the same bytes, or both fail. Output past 256 MiB (a
// decompression bomb, which is valid data) is not read.
#include "ember/data/io/decompress.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::data::io;

constexpr Compression kFormats[] = {Compression::kGzip, Compression::kBz2, Compression::kXz, Compression::kZstd};
constexpr size_t kCap = size_t(256) << 20;

enum class Outcome { kOk, kError, kCapped };

Outcome inflate(const std::string& bytes, size_t max_read, Compression c, std::string& out) {
  try {
    StreamPtr s = decompress(fuzz::choppy_stream(bytes, max_read), c);
    char buf[1 << 16];
    while (size_t k = s->read(buf, sizeof buf)) {
      out.append(buf, k);
      if (out.size() > kCap) return Outcome::kCapped;
    }
    return Outcome::kOk;
  } catch (const Error&) {
    return Outcome::kError;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  if (size < 1) return 0;
  const Compression c = kFormats[data[0] & 3];
  const size_t piece = size_t(data[0] >> 2) * 7 + 1;
  const std::string bytes = fuzz::as_string(data + 1, size - 1);
  std::string a, b;
  const Outcome oa = inflate(bytes, piece, c, a), ob = inflate(bytes, bytes.size() + 1, c, b);
  const std::string what = std::string("decompress(") + compression_name(c) + "): ";
  if (oa == Outcome::kCapped || ob == Outcome::kCapped) {
    const size_t n = std::min(a.size(), b.size());
    if (a.compare(0, n, b, 0, n) != 0) fuzz::fail(what + "reading in pieces gives other bytes");
    return 0;
  }
  if (oa != ob) fuzz::fail(what + "reading the source in pieces and at once disagree on whether it is valid");
  if (oa == Outcome::kOk && a != b) fuzz::fail(what + "reading in pieces gives other bytes");
  return 0;
}
