// fuzz_util.h: setup and failure reporting for the fuzz targets.
#include "fuzz_util.h"

#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <memory>

#include "ember/core/parallel.h"

namespace ember::fuzz {

void setup() {
  static const bool done = [] {
    ember::set_num_threads(1);
    return true;
  }();
  (void)done;
}

void fail(std::string_view what) {
  std::fprintf(stderr, "ember fuzz finding: %.*s\n", int(what.size()), what.data());
  std::fflush(stderr);
  std::abort();
}

namespace {
class ChoppyStream final : public data::io::InputStream {
 public:
  ChoppyStream(std::string bytes, size_t max_read, std::string name)
      : bytes_(std::move(bytes)), max_read_(max_read < 1 ? 1 : max_read), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }

 protected:
  size_t read_some(char* buf, size_t n) override {
    const size_t k = std::min({n, max_read_, bytes_.size() - pos_});
    if (k) std::memcpy(buf, bytes_.data() + pos_, k);
    pos_ += k;
    return k;
  }

 private:
  std::string bytes_;
  size_t max_read_, pos_ = 0;
  std::string name_;
};
}  // namespace

data::io::StreamPtr choppy_stream(std::string bytes, size_t max_read, std::string name) {
  return std::make_shared<ChoppyStream>(std::move(bytes), max_read, std::move(name));
}

}  // namespace ember::fuzz
