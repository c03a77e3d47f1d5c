// Lines of a stream as Python iterates a binary file: split after each '\n', the line end
// kept (the last line may have none). What TorchData's readlines() runs on.
#pragma once
#include <memory>
#include <string>

#include "ember/data/io/stream.h"

namespace ember::data::io {

class LineReader {
 public:
  explicit LineReader(StreamPtr stream);
  // The next line, with its '\n' when it has one; false at the end of the stream.
  bool next(std::string& line);
  // Lines read so far.
  int64_t line() const { return lines_; }
  const std::string& name() const { return stream_->name(); }

 private:
  StreamPtr stream_;
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0, len_ = 0;
  bool eof_ = false;
  int64_t lines_ = 0;
};

// Python's str.strip("\r\n"): drops every '\r' and '\n' at both ends.
void strip_newlines(std::string& line);

}  // namespace ember::data::io
