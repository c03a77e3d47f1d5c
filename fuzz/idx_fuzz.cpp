// Fuzzes the MNIST IDX readers (ember/data/datasets/mnist.h): the input, written to a file,
// is read as an image file and as a label file; then it is split (byte 0 says where) into an
// images and a labels file for datasets::MNIST, whose every example is read.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "ember/data/datasets/mnist.h"
#include "fuzz_util.h"

namespace {

using namespace ember;

// A directory of this process's own, for the files the readers take.
const std::string& work_dir() {
  static const std::string dir = [] {
    std::string d = "/tmp/ember-idx-fuzz-" + std::to_string(::getpid());
    ::mkdir(d.c_str(), 0700);
    return d;
  }();
  return dir;
}

void write(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) fuzz::fail("idx harness: cannot write " + path);
  if (size && std::fwrite(data, 1, size, f) != size) fuzz::fail("idx harness: short write to " + path);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::setup();
  const std::string images = work_dir() + "/train-images-idx3-ubyte";
  const std::string labels = work_dir() + "/train-labels-idx1-ubyte";
  write(images, data, size);
  EMBER_FUZZ_TRY((void)data::datasets::detail::read_idx_images(images).sum().item<int64_t>());
  EMBER_FUZZ_TRY((void)data::datasets::detail::read_idx_labels(images).sum().item<int64_t>());
  if (size < 1) return 0;
  const size_t cut = std::min(size - 1, size_t(data[0]) * 4);
  write(images, data + 1, cut);
  write(labels, data + 1 + cut, size - 1 - cut);
  EMBER_FUZZ_TRY({
    data::datasets::MNIST mnist(work_dir());
    const size_t n = *mnist.size();
    for (size_t i = 0; i < n && i < 64; ++i) {
      auto ex = mnist.get(i);
      (void)ex.data.sum().item<double>();
      (void)ex.target.item<int64_t>();
    }
    EMBER_FUZZ_TRY(mnist.get(n));  // out of range: an error
  });
  return 0;
}
