#include "ember/data/io/lines.h"

#include <cstring>

#include "ember/core/error.h"

namespace ember::data::io {

namespace {
constexpr size_t kLineChunkBytes = 64 << 10;
}

LineReader::LineReader(StreamPtr stream) : stream_(std::move(stream)), buf_(new char[kLineChunkBytes]) {
  EMBER_CHECK(stream_, "readlines: null stream");
}

bool LineReader::next(std::string& line) {
  line.clear();
  for (;;) {
    if (pos_ == len_) {
      if (eof_) break;
      len_ = stream_->read(buf_.get(), kLineChunkBytes);
      pos_ = 0;
      if (len_ == 0) {
        eof_ = true;
        break;
      }
    }
    const char* begin = buf_.get() + pos_;
    const char* nl = static_cast<const char*>(std::memchr(begin, '\n', len_ - pos_));
    if (nl) {
      line.append(begin, nl + 1);
      pos_ += size_t(nl + 1 - begin);
      ++lines_;
      return true;
    }
    line.append(begin, len_ - pos_);
    pos_ = len_;
  }
  if (line.empty()) return false;
  ++lines_;
  return true;
}

void strip_newlines(std::string& line) {
  size_t end = line.size();
  while (end > 0 && (line[end - 1] == '\n' || line[end - 1] == '\r')) --end;
  size_t begin = 0;
  while (begin < end && (line[begin] == '\n' || line[begin] == '\r')) ++begin;
  line.erase(end);
  line.erase(0, begin);
}

}  // namespace ember::data::io
