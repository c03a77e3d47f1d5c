// Byte streams for the data layer: what FileOpener, archive readers, decompressors and the
// S3 loader hand downstream (TorchData's StreamWrapper). A stream is read once, front to
// back, in bounded chunks, so an object larger than memory can flow through a pipeline.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace ember::data::io {

class InputStream {
 public:
  virtual ~InputStream() = default;
  // Reads up to `n` bytes into `buf`; returns how many were read, 0 only at the end.
  // Errors (I/O, corrupt compressed data, network) raise ember::Error naming `name()`.
  size_t read(char* buf, size_t n);
  // What the stream reads (a path, "archive.tar/member", "s3://bucket/key"): for errors.
  virtual const std::string& name() const = 0;
  // Everything that is left, as one string.
  std::string read_all();
  // The next line without its "\n" (and "\r\n"); false at the end of the stream.
  bool read_line(std::string& line);

 protected:
  // What a stream implements: read up to `n` bytes, 0 only at the end. (read() first hands
  // out what read_line() read ahead, so the two can be mixed.)
  virtual size_t read_some(char* buf, size_t n) = 0;

 private:
  std::string pending_;
  size_t pending_pos_ = 0;
};
using StreamPtr = std::shared_ptr<InputStream>;

// A stream over bytes held in memory (tests, small files, decompressed members).
StreamPtr memory_stream(std::string bytes, std::string name);
// A stream over a file on disk; a missing or unreadable file raises an error naming it.
StreamPtr file_stream(const std::string& path);

}  // namespace ember::data::io
