// make_data_loader and the two DataLoaders of LibTorch's torch::data:
//   * StatelessDataLoader: a sampler chooses each batch's indices; each worker thread
//     fetches from its own copy of the dataset (so the dataset should be cheap to copy:
//     tensors share storage; use datasets::make_shared_dataset to share one object).
//   * StatefulDataLoader: the dataset keeps its own position (StatefulDataset, ChunkDataset)
//     and is asked for batch_size examples until it returns nullopt; workers share it.
//
//   auto loader = make_data_loader(std::move(dataset), DataLoaderOptions(64).workers(2));
//   for (auto& batch : *loader) ...
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "ember/data/dataloader_options.h"
#include "ember/data/datasets/base.h"
#include "ember/data/detail/dataloader_base.h"
#include "ember/data/samplers/random.h"

namespace ember::data {

namespace detail {
[[noreturn]] void dataset_not_copyable(size_t workers);
[[noreturn]] void dataset_unsized();
}  // namespace detail

template <typename Dataset, typename Sampler>
class StatelessDataLoader
    : public DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType> {
 public:
  using super = DataLoaderBase<Dataset, typename Dataset::BatchType, typename Sampler::BatchRequestType>;
  using typename super::BatchRequestType;

  StatelessDataLoader(Dataset dataset, Sampler sampler, DataLoaderOptions options)
      : super(options), sampler_(std::move(sampler)) {
    if (this->options_.workers == 0) {
      this->main_thread_dataset_ = std::make_unique<Dataset>(std::move(dataset));
      return;
    }
    if constexpr (std::is_copy_constructible_v<Dataset>) {
      // Each worker owns a copy of the dataset.
      for (size_t w = 0; w < this->options_.workers; ++w)
        this->workers_.emplace_back([this, dataset]() mutable { this->worker_thread(dataset); });
    } else {
      detail::dataset_not_copyable(this->options_.workers);
    }
  }

  ~StatelessDataLoader() override { this->join(); }

 private:
  void reset() override {
    sampler_.reset();
    super::reset();
  }

  std::optional<BatchRequestType> get_batch_request() override {
    auto indices = sampler_.next(this->options_.batch_size);
    if (!indices || indices->size() == 0 ||
        (indices->size() < this->options_.batch_size && this->options_.drop_last))
      return std::nullopt;
    return indices;
  }

  Sampler sampler_;
};

template <typename Dataset>
class StatefulDataLoader : public DataLoaderBase<Dataset, typename Dataset::BatchType::value_type,
                                                 typename Dataset::BatchRequestType> {
 public:
  using super =
      DataLoaderBase<Dataset, typename Dataset::BatchType::value_type, typename Dataset::BatchRequestType>;
  using typename super::BatchRequestType;

  StatefulDataLoader(Dataset dataset, DataLoaderOptions options)
      : super(options, std::make_unique<Dataset>(std::move(dataset))) {
    // All workers share the one dataset, which must be safe to call from several threads.
    for (size_t w = 0; w < this->options_.workers; ++w)
      this->workers_.emplace_back([this] { this->worker_thread(*this->main_thread_dataset_); });
  }

  ~StatefulDataLoader() override { this->join(); }

 private:
  void reset() override {
    this->main_thread_dataset_->reset();
    super::reset();
  }

  std::optional<BatchRequestType> get_batch_request() override { return this->options_.batch_size; }
};

// What a StatelessDataLoader's sampler must offer.
template <typename S>
concept SamplerLike = requires(S& s, size_t n) {
  typename S::BatchRequestType;
  s.reset();
  { s.next(n) } -> std::convertible_to<std::optional<typename S::BatchRequestType>>;
};

// Whether `Dataset` takes `Sampler`'s batch requests.
template <typename Dataset, typename Sampler>
concept AcceptsRequestsOf = requires(Dataset& d, typename Sampler::BatchRequestType request) {
  d.get_batch(std::move(request));
};

// A loader over a stateless dataset with the given sampler.
template <BatchDatasetLike Dataset, SamplerLike Sampler>
  requires(!Dataset::is_stateful && AcceptsRequestsOf<Dataset, Sampler>)
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset, Sampler sampler,
                                                                         DataLoaderOptions options) {
  return std::make_unique<StatelessDataLoader<Dataset, Sampler>>(std::move(dataset), std::move(sampler), options);
}

// A loader over a stateless dataset with a `Sampler(dataset.size())` (RandomSampler unless
// given: make_data_loader<samplers::SequentialSampler>(dataset, 64)).
template <typename Sampler = samplers::RandomSampler, BatchDatasetLike Dataset>
  requires(!Dataset::is_stateful && std::is_constructible_v<Sampler, size_t> && SamplerLike<Sampler> &&
           AcceptsRequestsOf<Dataset, Sampler>)
std::unique_ptr<StatelessDataLoader<Dataset, Sampler>> make_data_loader(Dataset dataset,
                                                                         DataLoaderOptions options = {}) {
  const std::optional<size_t> size = dataset.size();
  if (!size) detail::dataset_unsized();
  return make_data_loader(std::move(dataset), Sampler(*size), options);
}

// A loader over a stateful dataset.
template <BatchDatasetLike Dataset>
  requires(Dataset::is_stateful)
std::unique_ptr<StatefulDataLoader<Dataset>> make_data_loader(Dataset dataset, DataLoaderOptions options = {}) {
  return std::make_unique<StatefulDataLoader<Dataset>>(std::move(dataset), options);
}

}  // namespace ember::data
