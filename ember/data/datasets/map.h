// MapDataset: a dataset whose batches pass through a transform (`dataset.map(transform)`),
// as LibTorch's torch::data::datasets::MapDataset. The transform runs where the batch is
// fetched (in the DataLoader's worker threads), so Stack and Normalize run in parallel.
#pragma once
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/data/datasets/base.h"

namespace ember::data::datasets {

namespace detail {
template <bool C, typename T>
using optional_if_t = std::conditional_t<C, std::optional<T>, T>;
}  // namespace detail

template <typename SourceDataset, typename AppliedTransform>
class MapDataset
    : public BatchDataset<MapDataset<SourceDataset, AppliedTransform>,
                          detail::optional_if_t<SourceDataset::is_stateful, typename AppliedTransform::OutputBatchType>,
                          typename SourceDataset::BatchRequestType> {
 public:
  using DatasetType = SourceDataset;
  using TransformType = AppliedTransform;
  using BatchRequestType = typename SourceDataset::BatchRequestType;
  using OutputBatchType =
      detail::optional_if_t<SourceDataset::is_stateful, typename AppliedTransform::OutputBatchType>;

  MapDataset(DatasetType dataset, TransformType transform)
      : dataset_(std::move(dataset)), transform_(std::move(transform)) {}

  OutputBatchType get_batch(BatchRequestType request) override {
    if constexpr (SourceDataset::is_stateful) {
      if (auto batch = dataset_.get_batch(std::move(request))) return transform_.apply_batch(std::move(*batch));
      return std::nullopt;
    } else {
      return transform_.apply_batch(dataset_.get_batch(std::move(request)));
    }
  }

  std::optional<size_t> size() const noexcept override { return dataset_.size(); }

  // Resets the source (stateful datasets only).
  void reset() { dataset_.reset(); }

  const SourceDataset& dataset() noexcept { return dataset_; }
  const AppliedTransform& transform() noexcept { return transform_; }

 private:
  SourceDataset dataset_;
  AppliedTransform transform_;
};

template <typename DatasetType, typename TransformType>
MapDataset<DatasetType, TransformType> map(DatasetType dataset, TransformType transform) {
  using Unwrapped = std::conditional_t<DatasetType::is_stateful, typename DatasetType::BatchType::value_type,
                                       typename DatasetType::BatchType>;
  static_assert(std::is_same_v<Unwrapped, typename TransformType::InputBatchType>,
                "dataset.map(transform): the dataset's batch type is not the transform's input batch type");
  return {std::move(dataset), std::move(transform)};
}

}  // namespace ember::data::datasets
