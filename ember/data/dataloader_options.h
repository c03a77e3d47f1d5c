// DataLoaderOptions: how a DataLoader batches and parallelizes (LibTorch's
// torch::data::DataLoaderOptions). Kept in its own light header so that other loaders
// (DataPipes, DataLoader2) can take the same options without pulling in the Dataset API.
#pragma once
#include <chrono>
#include <cstddef>
#include <optional>

namespace ember::data {

// Setter/getter pairs spelled out (LibTorch uses TORCH_ARG, which lives in a heavy nn
// header here): `DataLoaderOptions().batch_size(64).workers(2)`.
struct DataLoaderOptions {
  DataLoaderOptions() = default;
  /* implicit */ DataLoaderOptions(size_t batch_size) : batch_size_(batch_size) {}

#define EMBER_DATA_OPTION(T, name)                                   \
  DataLoaderOptions& name(const T& v) {                              \
    name##_ = v;                                                     \
    return *this;                                                    \
  }                                                                  \
  const T& name() const noexcept { return name##_; }                 \
  T& name() noexcept { return name##_; }

  // The number of examples in each batch (must be positive).
  EMBER_DATA_OPTION(size_t, batch_size)
  // Worker threads; 0 loads batches synchronously on the calling thread.
  EMBER_DATA_OPTION(size_t, workers)
  // Most jobs (batch requests) queued for the workers; defaults to 2 * workers.
  EMBER_DATA_OPTION(std::optional<size_t>, max_jobs)
  // Longest wait for the next batch before the loader raises an error.
  EMBER_DATA_OPTION(std::optional<std::chrono::milliseconds>, timeout)
  // Yield batches in sampler order even when workers finish out of order.
  EMBER_DATA_OPTION(bool, enforce_ordering)
  // Omit the last batch when it holds fewer than batch_size examples.
  EMBER_DATA_OPTION(bool, drop_last)
  // Copy each batch's CPU tensors into pinned host memory (in the worker that made it), for
  // non-blocking copies to a GPU. PyTorch's DataLoader option (LibTorch's C++ loader lacks
  // it); skipped with a warning where there is no CUDA device.
  EMBER_DATA_OPTION(bool, pin_memory)
#undef EMBER_DATA_OPTION

 private:
  size_t batch_size_ = 1;
  size_t workers_ = 0;
  std::optional<size_t> max_jobs_;
  std::optional<std::chrono::milliseconds> timeout_;
  bool enforce_ordering_ = true;
  bool drop_last_ = false;
  bool pin_memory_ = false;
};

// DataLoaderOptions with the dependent defaults resolved (max_jobs = 2 * workers).
struct FullDataLoaderOptions {
  explicit FullDataLoaderOptions(const DataLoaderOptions& o)
      : batch_size(o.batch_size()),
        workers(o.workers()),
        max_jobs(o.max_jobs().value_or(2 * o.workers())),
        timeout(o.timeout()),
        enforce_ordering(o.enforce_ordering()),
        drop_last(o.drop_last()),
        pin_memory(o.pin_memory()) {}

  size_t batch_size;
  size_t workers;
  size_t max_jobs;
  std::optional<std::chrono::milliseconds> timeout;
  bool enforce_ordering;
  bool drop_last;
  bool pin_memory;
};

}  // namespace ember::data
