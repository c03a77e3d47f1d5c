// TensorDataset (datasets/tensor.h).
#include "ember/data/datasets/tensor.h"

#include "ember/core/error.h"
#include "ember/ops/functions.h"

namespace ember::data::datasets {

namespace {
Tensor checked(Tensor t) {
  EMBER_CHECK(t.defined(), "TensorDataset: the tensor is undefined");
  EMBER_CHECK(t.dim() >= 1, "TensorDataset: expected a tensor with at least one dimension (the examples), got a "
              "0-dimensional tensor");
  return t;
}
Tensor stacked(const std::vector<Tensor>& tensors) {
  EMBER_CHECK(!tensors.empty(), "TensorDataset: expected a non-empty list of tensors");
  return stack(tensors);
}
}  // namespace

TensorDataset::TensorDataset(const std::vector<Tensor>& tensors) : tensor(checked(stacked(tensors))) {}
TensorDataset::TensorDataset(Tensor t) : tensor(checked(std::move(t))) {}

TensorExample TensorDataset::get(size_t index) {
  EMBER_CHECK_INDEX(index < size_t(tensor.size(0)), "TensorDataset: index ", index, " is out of range for a dataset of ",
                    tensor.size(0), " examples");
  return tensor.select(0, int64_t(index));
}

std::optional<size_t> TensorDataset::size() const { return size_t(tensor.size(0)); }

}  // namespace ember::data::datasets
