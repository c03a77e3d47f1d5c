// The dataset interfaces of LibTorch's torch::data::datasets. A BatchDataset answers a batch
// request (indices, or a batch size for streams) with a batch; a Dataset answers one index
// with one example and gets batches by calling get() per index. `dataset.map(transform)`
// wraps either in a MapDataset (datasets/map.h), and chains.
#pragma once
#include <concepts>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/array_ref.h"
#include "ember/data/example.h"

namespace ember::data::datasets {

template <typename S, typename T>
class MapDataset;
template <typename D, typename T>
MapDataset<D, T> map(D dataset, T transform);

namespace detail {
template <typename T>
struct is_optional : std::false_type {};
template <typename T>
struct is_optional<std::optional<T>> : std::true_type {};
}  // namespace detail

// `Self` is the derived class (CRTP, so map() can return a MapDataset of it). A dataset whose
// Batch is std::optional<...> is stateful: it says when an epoch ends by returning nullopt.
template <typename Self, typename Batch = std::vector<Example<>>, typename BatchRequest = ArrayRef<size_t>>
class BatchDataset {
 public:
  using SelfType = Self;
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;
  constexpr static bool is_stateful = detail::is_optional<BatchType>::value;

  virtual ~BatchDataset() = default;

  virtual Batch get_batch(BatchRequest request) = 0;
  // The number of examples; nullopt when unknown (streams).
  virtual std::optional<size_t> size() const = 0;

  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) & {
    return datasets::map(static_cast<Self&>(*this), std::move(transform));
  }
  template <typename TransformType>
  MapDataset<Self, TransformType> map(TransformType transform) && {
    return datasets::map(std::move(static_cast<Self&>(*this)), std::move(transform));
  }
};

// A map-style dataset: get(index) returns one example.
template <typename Self, typename SingleExample = Example<>>
class Dataset : public BatchDataset<Self, std::vector<SingleExample>> {
 public:
  using ExampleType = SingleExample;

  virtual ExampleType get(size_t index) = 0;

  std::vector<ExampleType> get_batch(ArrayRef<size_t> indices) override {
    std::vector<ExampleType> batch;
    batch.reserve(indices.size());
    for (const size_t i : indices) batch.push_back(get(i));
    return batch;
  }
};

// A dataset that is asked for a number of examples rather than for indices.
template <typename Self, typename Batch = std::vector<Example<>>>
using StreamDataset = BatchDataset<Self, Batch, /*BatchRequest=*/size_t>;

}  // namespace ember::data::datasets

namespace ember::data {
// What make_data_loader accepts: a batch dataset in LibTorch's sense (it need not derive from
// BatchDataset, but it must name its batch and request types and answer get_batch/size).
// Keeping the loader's templates to such types leaves room for other overloads (DataPipes).
template <typename D>
concept BatchDatasetLike = requires(D& d, typename D::BatchRequestType request) {
  typename D::BatchType;
  typename D::BatchRequestType;
  { D::is_stateful } -> std::convertible_to<bool>;
  { d.get_batch(std::move(request)) } -> std::convertible_to<typename D::BatchType>;
  { std::as_const(d).size() } -> std::convertible_to<std::optional<size_t>>;
};
}  // namespace ember::data
