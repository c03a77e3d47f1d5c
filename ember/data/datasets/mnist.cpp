// MNIST (datasets/mnist.h): the IDX file readers and the dataset.
//
// IDX format: a big-endian header of a magic number (0x0000 then the element type, 0x08 for
// unsigned bytes, then the number of dimensions) and one uint32 size per dimension, then the
// elements in row-major order. Images are 3-dimensional (N, rows, columns), labels 1.
#include "ember/data/datasets/mnist.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "ember/core/error.h"
#include "ember/ops/functions.h"

namespace ember::data::datasets {

namespace {

constexpr uint32_t kImageMagic = 0x00000803;  // unsigned bytes, 3 dimensions
constexpr uint32_t kLabelMagic = 0x00000801;  // unsigned bytes, 1 dimension

uint32_t big_endian(const unsigned char* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}

std::string hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

// Reads an IDX file of `ndims` dimensions of unsigned bytes into a uint8 tensor of the
// shape its header gives, after checking that the file holds exactly that many bytes.
// `what` names the elements in errors.
Tensor read_idx(const std::string& path, uint32_t magic, int ndims, const char* what) {
  std::ifstream in(path, std::ios::binary);
  EMBER_CHECK(in.is_open(), "MNIST: cannot open '", path, "' (", std::strerror(errno),
              "); expected the uncompressed IDX file there");
  in.seekg(0, std::ios::end);
  const std::streamoff file_bytes = in.tellg();
  in.seekg(0, std::ios::beg);
  EMBER_CHECK(file_bytes >= 0 && in.good(), "MNIST: cannot read '", path, "'");

  const size_t header_bytes = 4 + 4 * size_t(ndims);
  EMBER_CHECK(size_t(file_bytes) >= header_bytes, "MNIST: '", path, "' is truncated: it has ", file_bytes,
              " bytes, fewer than the ", header_bytes, "-byte IDX header of ", what);
  unsigned char header[16];
  in.read(reinterpret_cast<char*>(header), std::streamsize(header_bytes));
  EMBER_CHECK(in.good(), "MNIST: cannot read the header of '", path, "'");
  const uint32_t got_magic = big_endian(header);
  EMBER_CHECK(got_magic == magic, "MNIST: '", path, "' has magic number ", hex(got_magic), ", expected ", hex(magic),
              " (an IDX file of ", what, ": unsigned bytes, ", ndims, ndims == 1 ? " dimension)" : " dimensions)");

  std::vector<int64_t> dims;
  unsigned __int128 elements = 1;  // up to 2^96: no overflow before the size check
  for (int d = 0; d < ndims; ++d) {
    dims.push_back(int64_t(big_endian(header + 4 + 4 * d)));
    elements *= uint64_t(dims.back());
  }
  if (ndims == 3)
    EMBER_CHECK(dims[1] > 0 && dims[2] > 0, "MNIST: '", path, "' has images of ", dims[1], "x", dims[2],
                " pixels; expected positive sizes");
  const uint64_t body_bytes = uint64_t(file_bytes) - header_bytes;
  auto describe = [&] {
    return ndims == 3 ? ::ember::detail::str_cat(dims[0], " images of ", dims[1], "x", dims[2], " pixels")
                      : ::ember::detail::str_cat(dims[0], " labels");
  };
  EMBER_CHECK(elements <= body_bytes, "MNIST: '", path, "' is truncated: its header announces ", describe(), " (",
              uint64_t(elements), " bytes after the ", header_bytes, "-byte header) but only ", body_bytes,
              " bytes follow");
  EMBER_CHECK(elements == body_bytes, "MNIST: '", path, "' has ", body_bytes - uint64_t(elements),
              " bytes past the ", describe(), " its header announces");

  Tensor out = empty(dims, TensorOptions().dtype(kByte));
  if (elements > 0) {
    in.read(static_cast<char*>(out.data_ptr()), std::streamsize(elements));
    EMBER_CHECK(in.good(), "MNIST: reading '", path, "' failed after ", in.gcount(), " of ", uint64_t(elements),
                " bytes");
  }
  return out;
}

std::string join(const std::string& root, const char* name) {
  if (root.empty()) return name;
  return root.back() == '/' ? root + name : root + "/" + name;
}

}  // namespace

namespace detail {
Tensor read_idx_images(const std::string& path) { return read_idx(path, kImageMagic, 3, "images"); }
Tensor read_idx_labels(const std::string& path) { return read_idx(path, kLabelMagic, 1, "labels"); }
}  // namespace detail

MNIST::MNIST(const std::string& root, Mode mode) {
  const bool train = mode == Mode::kTrain;
  const std::string images_path = join(root, train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte");
  const std::string labels_path = join(root, train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte");
  Tensor pixels = detail::read_idx_images(images_path);
  Tensor labels = detail::read_idx_labels(labels_path);
  EMBER_CHECK(pixels.size(0) == labels.size(0), "MNIST: '", images_path, "' holds ", pixels.size(0),
              " images but '", labels_path, "' holds ", labels.size(0), " labels; expected one label per image");
  is_train_ = train;
  images_ = pixels.to(kFloat).div_(255).unsqueeze(1).contiguous();
  targets_ = labels.to(kLong);
}

Example<> MNIST::get(size_t index) {
  EMBER_CHECK_INDEX(index < size_t(images_.size(0)), "MNIST: index ", index, " is out of range for a dataset of ",
                    images_.size(0), " examples");
  return {images_.select(0, int64_t(index)), targets_.select(0, int64_t(index))};
}

std::optional<size_t> MNIST::size() const { return size_t(images_.size(0)); }

bool MNIST::is_train() const noexcept { return is_train_; }

const Tensor& MNIST::images() const { return images_; }
const Tensor& MNIST::targets() const { return targets_; }

}  // namespace ember::data::datasets
