#include "ember/data/io/libarchive_source.h"

#include <cerrno>

#include "ember/core/error.h"

namespace ember::data::io::detail {

namespace {
constexpr size_t kSourceChunkBytes = 256 << 10;

la_ssize_t read_cb(struct archive* a, void* self, const void** out) {
  auto* src = static_cast<ArchiveSource*>(self);
  *out = src->buf.get();
  try {
    return la_ssize_t(src->stream->read(src->buf.get(), kSourceChunkBytes));
  } catch (...) {
    src->error = std::current_exception();
    archive_set_error(a, EIO, "reading the source stream failed");
    return -1;
  }
}
}  // namespace

ArchiveSource::ArchiveSource(StreamPtr s) : stream(std::move(s)), buf(new char[kSourceChunkBytes]) {}

int ArchiveSource::open(struct archive* a) { return archive_read_open(a, this, nullptr, read_cb, nullptr); }

void ArchiveSource::fail(struct archive* a, const std::string& op, const std::string& what, bool context) {
  if (error) {
    std::exception_ptr e = error;
    error = nullptr;
    if (!context) std::rethrow_exception(e);
    try {
      std::rethrow_exception(e);
    } catch (const Error& inner) {
      EMBER_ERROR(op, ": ", what, ": ", inner.what());
    }
  }
  EMBER_ERROR(op, ": ", what, ": ", archive_message(a));
}

std::string archive_message(struct archive* a) {
  const char* msg = archive_error_string(a);
  return msg && *msg ? msg : "the data is truncated or corrupt";
}

}  // namespace ember::data::io::detail
