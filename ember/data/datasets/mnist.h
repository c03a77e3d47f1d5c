// MNIST: the MNIST digits from their four IDX files (LibTorch's
// torch::data::datasets::MNIST). `root` holds train-images-idx3-ubyte and
// train-labels-idx1-ubyte (Mode::kTrain) or t10k-images-idx3-ubyte and
// t10k-labels-idx1-ubyte (Mode::kTest), uncompressed. Images become float [N, 1, R, C] in
// [0, 1] (R = C = 28 for MNIST; other sizes in the same format, such as Fashion-MNIST's,
// read too), targets int64 [N]. A missing file, a wrong magic number, a truncated file or
// image and label counts that differ raise an error naming the file.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

#include "ember/data/datasets/base.h"

namespace ember::data::datasets {

class MNIST : public Dataset<MNIST> {
 public:
  enum class Mode { kTrain, kTest };

  explicit MNIST(const std::string& root, Mode mode = Mode::kTrain);

  // Image `index` ([1, R, C]) and its label (a 0-dim int64 tensor).
  Example<> get(size_t index) override;
  std::optional<size_t> size() const override;
  // Whether the training files were read (LibTorch compares the size with 60000 instead).
  bool is_train() const noexcept;
  const Tensor& images() const;
  const Tensor& targets() const;

 private:
  Tensor images_, targets_;
  bool is_train_ = true;
};

namespace detail {
// The IDX readers MNIST uses, for other datasets in the same format: a uint8 tensor of
// [N, R, C] images or [N] labels from an uncompressed IDX file (big-endian header).
Tensor read_idx_images(const std::string& path);
Tensor read_idx_labels(const std::string& path);
}  // namespace detail

}  // namespace ember::data::datasets
