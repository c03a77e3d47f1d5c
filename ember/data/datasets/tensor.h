// TensorDataset: the rows of one tensor as examples without targets (LibTorch's
// torch::data::datasets::TensorDataset); get(i) is a view of row i, no copy.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "ember/data/datasets/base.h"

namespace ember::data::datasets {

struct TensorDataset : public Dataset<TensorDataset, TensorExample> {
  // The tensors stacked along a new first dimension.
  explicit TensorDataset(const std::vector<Tensor>& tensors);
  explicit TensorDataset(Tensor tensor);

  TensorExample get(size_t index) override;
  std::optional<size_t> size() const override;

  Tensor tensor;
};

}  // namespace ember::data::datasets
