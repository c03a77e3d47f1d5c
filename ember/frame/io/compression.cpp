#include "ember/frame/io/compression.h"

#include <lz4frame.h>
#include <zstd.h>

#include <memory>

#include "ember/core/error.h"

namespace ember::frame::io::detail {

namespace {

struct Lz4DecompressionContext {
  LZ4F_dctx* ctx = nullptr;
  Lz4DecompressionContext() {
    const size_t rc = LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION);
    EMBER_CHECK(!LZ4F_isError(rc), "lz4: cannot create a decompression context: ", LZ4F_getErrorName(rc));
  }
  ~Lz4DecompressionContext() { LZ4F_freeDecompressionContext(ctx); }
};

void lz4_decompress(const uint8_t* src, int64_t src_len, uint8_t* dst, int64_t dst_len, const std::string& what) {
  Lz4DecompressionContext d;
  int64_t in = 0, out = 0;
  // The input may hold several concatenated frames; LZ4F_decompress returns 0 at the end of
  // each, and the context then starts the next.
  while (in < src_len) {
    size_t src_size = size_t(src_len - in);
    size_t dst_size = size_t(dst_len - out);
    const size_t rc = LZ4F_decompress(d.ctx, dst + out, &dst_size, src + in, &src_size, nullptr);
    EMBER_CHECK(!LZ4F_isError(rc), what, ": corrupt LZ4 frame data: ", LZ4F_getErrorName(rc));
    in += int64_t(src_size);
    out += int64_t(dst_size);
    if (src_size == 0 && dst_size == 0) {
      // No progress: the output is full but the frame goes on, or the input is cut short.
      EMBER_CHECK(false, what, ": LZ4 data decompresses to more than the ", dst_len, " bytes its header states");
    }
    if (rc != 0 && in == src_len)
      EMBER_CHECK(false, what, ": LZ4 frame data ends in the middle of a frame (", out, " of ", dst_len,
                  " bytes decompressed)");
  }
  EMBER_CHECK(out == dst_len, what, ": LZ4 data decompresses to ", out, " bytes; its header states ", dst_len);
}

}  // namespace

void compress(IpcCompression codec, std::optional<int> level, const uint8_t* data, int64_t n, BufferBuilder& out) {
  const int64_t start = out.size();
  if (codec == IpcCompression::Lz4Frame) {
    LZ4F_preferences_t prefs{};
    prefs.compressionLevel = level.value_or(0);
    prefs.frameInfo.contentSize = uint64_t(n);
    const size_t bound = LZ4F_compressFrameBound(size_t(n), &prefs);
    out.resize(start + int64_t(bound));
    const size_t rc = LZ4F_compressFrame(out.data() + start, bound, data, size_t(n), &prefs);
    EMBER_CHECK(!LZ4F_isError(rc), "lz4: compression failed: ", LZ4F_getErrorName(rc));
    out.resize(start + int64_t(rc));
  } else if (codec == IpcCompression::Zstd) {
    const size_t bound = ZSTD_compressBound(size_t(n));
    out.resize(start + int64_t(bound));
    const size_t rc = ZSTD_compress(out.data() + start, bound, data, size_t(n), level.value_or(1));
    EMBER_CHECK(!ZSTD_isError(rc), "zstd: compression failed: ", ZSTD_getErrorName(rc));
    out.resize(start + int64_t(rc));
  } else {
    EMBER_ERROR("compress: no codec");
  }
}

void decompress(IpcCompression codec, const uint8_t* src, int64_t src_len, uint8_t* dst, int64_t dst_len,
                const std::string& what) {
  if (codec == IpcCompression::Lz4Frame) return lz4_decompress(src, src_len, dst, dst_len, what);
  EMBER_CHECK(codec == IpcCompression::Zstd, what, ": internal: no codec");
  const size_t rc = ZSTD_decompress(dst, size_t(dst_len), src, size_t(src_len));
  EMBER_CHECK(!ZSTD_isError(rc), what, ": corrupt ZSTD data: ", ZSTD_getErrorName(rc));
  EMBER_CHECK(int64_t(rc) == dst_len, what, ": ZSTD data decompresses to ", rc, " bytes; its header states ", dst_len);
}

}  // namespace ember::frame::io::detail
