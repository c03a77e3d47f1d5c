#include "ember/data/io/stream.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ember/core/error.h"

namespace ember::data::io {

size_t InputStream::read(char* buf, size_t n) {
  if (pending_pos_ < pending_.size()) {
    size_t k = std::min(n, pending_.size() - pending_pos_);
    std::memcpy(buf, pending_.data() + pending_pos_, k);
    pending_pos_ += k;
    return k;
  }
  return read_some(buf, n);
}

std::string InputStream::read_all() {
  std::string out(pending_, pending_pos_);
  pending_.clear();
  pending_pos_ = 0;
  char buf[1 << 16];
  while (size_t k = read_some(buf, sizeof buf)) out.append(buf, k);
  return out;
}

bool InputStream::read_line(std::string& line) {
  line.clear();
  bool any = false;
  for (;;) {
    if (pending_pos_ >= pending_.size()) {
      pending_.resize(1 << 16);
      size_t k = read_some(pending_.data(), pending_.size());
      pending_.resize(k);
      pending_pos_ = 0;
      if (k == 0) return any;
    }
    any = true;
    const char* begin = pending_.data() + pending_pos_;
    const char* end = pending_.data() + pending_.size();
    const char* nl = static_cast<const char*>(std::memchr(begin, '\n', end - begin));
    if (nl) {
      line.append(begin, nl);
      pending_pos_ += (nl - begin) + 1;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return true;
    }
    line.append(begin, end);
    pending_pos_ = pending_.size();
  }
}

namespace {

class MemoryStream final : public InputStream {
 public:
  MemoryStream(std::string bytes, std::string name) : bytes_(std::move(bytes)), name_(std::move(name)) {}
  size_t read_some(char* buf, size_t n) override {
    size_t k = std::min(n, bytes_.size() - pos_);
    std::memcpy(buf, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  const std::string& name() const override { return name_; }

 private:
  std::string bytes_, name_;
  size_t pos_ = 0;
};

class FileStream final : public InputStream {
 public:
  explicit FileStream(std::string path) : name_(std::move(path)) {
    f_ = std::fopen(name_.c_str(), "rb");
    EMBER_CHECK(f_, "file_stream: cannot open '", name_, "': ", std::strerror(errno));
  }
  ~FileStream() override { std::fclose(f_); }
  size_t read_some(char* buf, size_t n) override {
    size_t k = std::fread(buf, 1, n, f_);
    EMBER_CHECK(k == n || !std::ferror(f_), "file_stream: read error in '", name_, "': ", std::strerror(errno));
    return k;
  }
  const std::string& name() const override { return name_; }

 private:
  std::string name_;
  std::FILE* f_ = nullptr;
};

}  // namespace

StreamPtr memory_stream(std::string bytes, std::string name) {
  return std::make_shared<MemoryStream>(std::move(bytes), std::move(name));
}

StreamPtr file_stream(const std::string& path) { return std::make_shared<FileStream>(path); }

}  // namespace ember::data::io
