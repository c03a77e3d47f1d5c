// gzip is inflated with zlib, because libarchive's gzip filter never checks a member's CRC-32
// or length (a flipped bit in the payload would pass unnoticed); bzip2, xz and zstd go
// through libarchive's raw format, whose filters do verify their checksums.
#include "ember/data/io/decompress.h"

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include <cstring>
#include <mutex>

#include "ember/core/error.h"
#include "ember/data/io/libarchive_source.h"

namespace ember::data::io {

namespace {

constexpr size_t kInChunkBytes = 256 << 10;

struct ZlibApi {
  decltype(&::inflateInit2_) init2 = nullptr;
  decltype(&::inflate) inflate = nullptr;
  decltype(&::inflateEnd) end = nullptr;
  decltype(&::inflateReset) reset = nullptr;
  decltype(&::zlibVersion) version = nullptr;
};

const ZlibApi& zlib() {
  static const ZlibApi api{&::inflateInit2_, &::inflate, &::inflateEnd, &::inflateReset, &::zlibVersion};
  return api;
}

class GzipStream final : public InputStream {
 public:
  explicit GzipStream(StreamPtr src) : src_(std::move(src)), in_(new char[kInChunkBytes]) {
    const ZlibApi& z = zlib();
    std::memset(&zs_, 0, sizeof zs_);
    // 16 + MAX_WBITS: a gzip wrapper (header, CRC-32 and length checked at each member's end).
    const int r = z.init2(&zs_, 16 + MAX_WBITS, ZLIB_VERSION, int(sizeof zs_));
    EMBER_CHECK(r == Z_OK, "decompress: cannot start a gzip decoder for '", src_->name(), "' (zlib error ", r, ")");
  }
  ~GzipStream() override { zlib().end(&zs_); }
  const std::string& name() const override { return src_->name(); }

 protected:
  size_t read_some(char* buf, size_t n) override {
    const ZlibApi& z = zlib();
    while (!done_ && n > 0) {
      if (zs_.avail_in == 0 && !src_eof_) {
        const size_t k = src_->read(in_.get(), kInChunkBytes);
        zs_.next_in = reinterpret_cast<Bytef*>(in_.get());
        zs_.avail_in = uInt(k);
        src_eof_ = k == 0;
        consumed_ += k;
      }
      if (!in_member_) {
        // Between members: Python's gzip skips zero padding, then expects another member
        // or the end.
        while (zs_.avail_in > 0 && *zs_.next_in == 0) {
          ++zs_.next_in;
          --zs_.avail_in;
        }
        if (zs_.avail_in == 0) {
          if (src_eof_) done_ = true;
          continue;
        }
        if (members_ > 0) z.reset(&zs_);
        in_member_ = true;
        ++members_;
      }
      if (zs_.avail_in == 0 && src_eof_)
        EMBER_ERROR("decompress: '", src_->name(), "': truncated gzip data (the data ends inside member ",
                    members_, " after ", consumed_, " compressed bytes)");
      zs_.next_out = reinterpret_cast<Bytef*>(buf);
      zs_.avail_out = uInt(std::min<size_t>(n, 1u << 30));
      const int r = z.inflate(&zs_, Z_NO_FLUSH);
      const size_t produced = reinterpret_cast<char*>(zs_.next_out) - buf;
      if (r == Z_STREAM_END) {
        in_member_ = false;
      } else if (r == Z_DATA_ERROR || r == Z_NEED_DICT || r == Z_MEM_ERROR || r == Z_STREAM_ERROR) {
        const std::string msg = zs_.msg ? zs_.msg : "zlib error " + std::to_string(r);
        if (members_ > 1 && msg == "incorrect header check")
          EMBER_ERROR("decompress: '", src_->name(), "': bytes after gzip member ", members_ - 1,
                      " are neither zero padding nor another gzip member");
        EMBER_ERROR("decompress: '", src_->name(), "': corrupt gzip data in member ", members_, ": ", msg,
                    members_ == 1 && msg == "incorrect header check" ? " (not gzip data)" : "");
      }
      // Z_BUF_ERROR only means no progress was possible: more input is read above.
      if (produced > 0) return produced;
    }
    return 0;
  }

 private:
  StreamPtr src_;
  std::unique_ptr<char[]> in_;
  z_stream zs_;
  bool src_eof_ = false, in_member_ = false, done_ = false;
  size_t members_ = 0;
  size_t consumed_ = 0;  // compressed bytes read, for errors
};

// bzip2, xz, zstd: libarchive's "raw" format over one filter.
class RawArchiveStream final : public InputStream {
 public:
  RawArchiveStream(StreamPtr src, Compression type) : source_(std::move(src)), type_(type) {
    a_ = archive_read_new();
    EMBER_CHECK(a_, "decompress: out of memory");
    owner_.reset(a_);  // freed also when this constructor throws
    int code = 0, alt = -100;
    switch (type) {
      case Compression::kBz2:
        archive_read_support_filter_bzip2(a_);
        code = ARCHIVE_FILTER_BZIP2;
        break;
      case Compression::kXz:
        archive_read_support_filter_xz(a_);
        archive_read_support_filter_lzma(a_);
        code = ARCHIVE_FILTER_XZ;
        alt = ARCHIVE_FILTER_LZMA;
        break;
      case Compression::kZstd:
        archive_read_support_filter_zstd(a_);
        code = ARCHIVE_FILTER_ZSTD;
        break;
      case Compression::kGzip:
        EMBER_INTERNAL_ASSERT(false, "gzip is not read through libarchive");
    }
    archive_read_support_format_raw(a_);
    archive_read_support_format_empty(a_);
    // Count what the source hands out: an empty source is an empty result, anything else
    // must carry the filter's signature.
    counting_ = std::make_shared<Counting>(source_.stream);
    source_.stream = counting_;
    if (source_.open(a_) != ARCHIVE_OK) fail();
    const int got = archive_filter_code(a_, 0);
    if (counting_->bytes == 0) {
      done_ = true;
      return;
    }
    EMBER_CHECK(got == code || got == alt, "decompress: '", name(), "': not ", compression_name(type), " data",
                " (the data does not start with its signature)");
    struct archive_entry* e = nullptr;
    const int r = archive_read_next_header(a_, &e);
    if (r == ARCHIVE_EOF) done_ = true;
    else if (r < ARCHIVE_WARN) fail();
  }
  const std::string& name() const override { return counting_->name(); }

 protected:
  size_t read_some(char* buf, size_t n) override {
    if (done_ || n == 0) return 0;
    const la_ssize_t k = archive_read_data(a_, buf, n);
    if (k < 0) fail();
    if (k == 0) done_ = true;
    return size_t(k);
  }

 private:
  struct Counting final : InputStream {
    explicit Counting(StreamPtr s) : s(std::move(s)) {}
    size_t read_some(char* buf, size_t n) override {
      const size_t k = s->read(buf, n);
      bytes += k;
      return k;
    }
    const std::string& name() const override { return s->name(); }
    StreamPtr s;
    size_t bytes = 0;
  };
  [[noreturn]] void fail() {
    source_.fail(a_, "decompress", "'" + name() + "': corrupt or truncated " + compression_name(type_) + " data");
  }

  struct ArchiveFree {
    void operator()(struct archive* a) const { archive_read_free(a); }
  };
  detail::ArchiveSource source_;
  std::shared_ptr<Counting> counting_;
  Compression type_;
  struct archive* a_ = nullptr;
  std::unique_ptr<struct archive, ArchiveFree> owner_;  // declared after source_: freed before it
  bool done_ = false;
};

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

Compression compression_from_name(std::string_view name) {
  if (name == "gzip" || name == "gz") return Compression::kGzip;
  if (name == "bz2" || name == "bzip2") return Compression::kBz2;
  if (name == "xz" || name == "lzma") return Compression::kXz;
  if (name == "zstd" || name == "zst") return Compression::kZstd;
  EMBER_ERROR("decompress: unknown compression type '", name,
              "' (expected gzip/gz, bz2/bzip2, xz/lzma or zstd/zst)");
}

std::optional<Compression> compression_from_path(std::string_view path) {
  for (const char* e : {".gz", ".tgz"})
    if (ends_with(path, e)) return Compression::kGzip;
  for (const char* e : {".bz2", ".tbz2", ".tbz"})
    if (ends_with(path, e)) return Compression::kBz2;
  for (const char* e : {".xz", ".txz", ".lzma"})
    if (ends_with(path, e)) return Compression::kXz;
  for (const char* e : {".zst", ".zstd", ".tzst"})
    if (ends_with(path, e)) return Compression::kZstd;
  return std::nullopt;
}

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::kGzip: return "gzip";
    case Compression::kBz2: return "bz2";
    case Compression::kXz: return "xz";
    case Compression::kZstd: return "zstd";
  }
  return "?";
}

StreamPtr decompress(StreamPtr source, Compression type) {
  EMBER_CHECK(source, "decompress: null stream");
  if (type == Compression::kGzip) return std::make_shared<GzipStream>(std::move(source));
  return std::make_shared<RawArchiveStream>(std::move(source), type);
}

StreamPtr decompress(StreamPtr source, std::string_view type) {
  EMBER_CHECK(source, "decompress: null stream");
  if (!type.empty()) return decompress(std::move(source), compression_from_name(type));
  const auto c = compression_from_path(source->name());
  EMBER_CHECK(c, "decompress: cannot infer the compression of '", source->name(),
              "' from its extension (expected .gz, .bz2, .xz, .lzma or .zst); pass the type explicitly");
  return decompress(std::move(source), *c);
}

}  // namespace ember::data::io
