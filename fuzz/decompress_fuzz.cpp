// Fuzzes the decompressors of ember/data/io/decompress.h (gzip through zlib; bz2, xz and zstd
// through libarchive). Input: byte 0 picks the format (low 2 bits) and how many bytes each read
// of the compressed source gives (the rest); then the compressed data. Reading in small pieces
// and at once must give the same bytes, or both fail.
#include "ember/data/io/decompress.h"
#include "fuzz_util.h"

namespace {

using namespace ember;
using namespace ember::data::io;

constexpr Compression kFormats[] = {Compression::kGzip, Compression::kBz2, Compression::kXz, Compression::kZstd};

bool inflate(const std::string& bytes, size_t max_read, Compression c, std::string& out) {
  try {
    out = decompress(fuzz::choppy_stream(bytes, max_read), c)->read_all();
    return true;
  } catch (const Error&) {
    return false;
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
  const bool ok_a = inflate(bytes, piece, c, a);
  const bool ok_b = inflate(bytes, bytes.size() + 1, c, b);
  if (ok_a != ok_b)
    fuzz::fail(std::string("decompress(") + compression_name(c) +
               "): reading the source in pieces and at once disagree on whether it is valid");
  if (ok_a && a != b) fuzz::fail(std::string("decompress(") + compression_name(c) + "): pieces give other bytes");
  return 0;
}
