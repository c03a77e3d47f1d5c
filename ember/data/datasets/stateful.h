// StatefulDataset: a dataset that keeps its own position (LibTorch's
// torch::data::datasets::StatefulDataset). get_batch(batch_size) returns nullopt at the end
// of an epoch; reset() starts the next; save/load checkpoint the position.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "ember/data/datasets/base.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::data::datasets {

template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = size_t>
class StatefulDataset : public BatchDataset<Self, std::optional<Batch>, BatchRequest> {
 public:
  virtual void reset() = 0;
  virtual void save(serialize::OutputArchive& archive) const = 0;
  virtual void load(serialize::InputArchive& archive) = 0;
};

template <typename... Args>
serialize::OutputArchive& operator<<(serialize::OutputArchive& archive, const StatefulDataset<Args...>& dataset) {
  dataset.save(archive);
  return archive;
}
template <typename... Args>
serialize::InputArchive& operator>>(serialize::InputArchive& archive, StatefulDataset<Args...>& dataset) {
  dataset.load(archive);
  return archive;
}

}  // namespace ember::data::datasets
