// ChunkDataset: a stateful dataset over data stored in chunks (files, shards), as LibTorch's
// torch::data::datasets::ChunkDataset. Preloader threads ask the chunk sampler for chunks,
// read them with the ChunkDataReader, shuffle each chunk's examples with the example
// sampler into batches, and keep up to cache_size examples ready; get_batch hands those
// batches out and returns nullopt once every chunk of the epoch has been served.
//
//   auto dataset = datasets::make_shared_dataset<ChunkDataset<MyReader>>(
//       MyReader(...), samplers::RandomSampler(0), samplers::RandomSampler(0),
//       ChunkDatasetOptions(/*preloader_count=*/2, /*batch_size=*/32));
//   auto loader = make_data_loader(std::move(dataset), DataLoaderOptions(32));
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/data/datasets/stateful.h"
#include "ember/data/detail/worker_exception.h"
#include "ember/data/samplers/random.h"

namespace ember::data::datasets {

// Reads one chunk (a vector of examples by default) by index. read_chunk is called from the
// preloader threads, several at a time when preloader_count > 1.
template <typename ExampleType_, typename ChunkType_ = std::vector<ExampleType_>>
class ChunkDataReader {
 public:
  virtual ~ChunkDataReader() = default;

  using ChunkType = ChunkType_;
  using ExampleType = ExampleType_;
  using BatchType = ChunkType_;  // (LibTorch's readers declare this themselves)

  virtual ChunkType read_chunk(size_t chunk_index) = 0;
  virtual size_t chunk_count() = 0;
  // Called at the start of each epoch.
  virtual void reset() = 0;
};

namespace detail {
void check_chunk_options(size_t preloader_count, size_t batch_size, size_t cache_size, size_t cross_chunk_shuffle_count);
[[noreturn]] void chunk_dataset_not_reset();
[[noreturn]] void chunk_batch_size_mismatch(size_t requested, size_t configured);
}  // namespace detail

struct ChunkDatasetOptions {
  ChunkDatasetOptions() = delete;
  ChunkDatasetOptions(size_t preloader_count, size_t batch_size, size_t cache_size = 2048,
                      size_t cross_chunk_shuffle_count = 1)
      : preloader_count_(preloader_count),
        batch_size_(batch_size),
        cache_size_(cache_size),
        cross_chunk_shuffle_count_(cross_chunk_shuffle_count) {
    detail::check_chunk_options(preloader_count, batch_size, cache_size, cross_chunk_shuffle_count);
  }

#define EMBER_CHUNK_OPTION(name)                        \
  ChunkDatasetOptions& name(size_t v) {                 \
    name##_ = v;                                        \
    return *this;                                       \
  }                                                     \
  size_t name() const noexcept { return name##_; }

  // Threads that read chunks ahead of the consumer.
  EMBER_CHUNK_OPTION(preloader_count)
  // Examples per batch; get_batch must be asked for exactly this many.
  EMBER_CHUNK_OPTION(batch_size)
  // Preloading pauses once this many examples wait in the cache.
  EMBER_CHUNK_OPTION(cache_size)
  // Chunks read together and shuffled as one (1: shuffle within each chunk only).
  EMBER_CHUNK_OPTION(cross_chunk_shuffle_count)
#undef EMBER_CHUNK_OPTION

 private:
  size_t preloader_count_;
  size_t batch_size_;
  size_t cache_size_;
  size_t cross_chunk_shuffle_count_;
};

namespace detail {

// The batches the preloaders have prepared and the consumer has not taken yet. A chunk's
// examples are drawn in the example sampler's order: first into the last, partly filled
// batch, then into new batches. Writers wait while the cache holds cache_size examples.
template <typename UnwrappedBatch, typename ExampleSampler = samplers::RandomSampler>
class BatchDataBuffer {
 public:
  using UnwrappedBatchType = UnwrappedBatch;
  using BatchType = std::optional<UnwrappedBatchType>;

  BatchDataBuffer(size_t batch_size, ExampleSampler& example_sampler, size_t queue_capacity)
      : batch_size_(batch_size), example_sampler_(example_sampler), queue_capacity_(queue_capacity) {}

  // The next batch (smaller than batch_size only at the end), nullopt once the preloaders
  // are done and the cache is empty; rethrows a preloader's error as a WorkerException.
  BatchType get_batch() {
    std::unique_lock<std::mutex> lock(mutex_);
    read_cv_.wait(lock, [this] {
      return examples_ >= batch_size_ || stop_ || (!queue_.empty() && queue_.front().error);
    });
    if (queue_.empty()) return std::nullopt;
    Entry entry = std::move(queue_.front());
    queue_.pop_front();
    if (entry.error) throw WorkerException(entry.error);
    examples_ -= entry.batch.size();
    lock.unlock();
    write_cv_.notify_all();
    return std::move(entry.batch);
  }

  void add_chunk_data(UnwrappedBatchType data) {
    std::unique_lock<std::mutex> lock(mutex_);
    write_cv_.wait(lock, [this] { return examples_ < queue_capacity_ || stop_; });
    if (stop_) return;
    const size_t count = data.size();
    example_sampler_.reset(count);
    size_t left = count;
    auto take = [&](size_t n, UnwrappedBatchType& batch) {
      auto indices = example_sampler_.next(n);
      EMBER_CHECK(indices && indices->size() == n, "ChunkDataset: the example sampler returned ",
                  indices ? indices->size() : 0, " indices for a request of ", n);
      for (size_t i : *indices) {
        EMBER_CHECK(i < count, "ChunkDataset: the example sampler returned index ", i, " for a chunk of ", count,
                    " examples");
        batch.push_back(std::move(data[i]));
      }
      left -= n;
    };
    if (!queue_.empty() && !queue_.back().error && queue_.back().batch.size() < batch_size_)
      take(std::min(left, batch_size_ - queue_.back().batch.size()), queue_.back().batch);
    while (left > 0) {
      Entry entry;
      entry.batch.reserve(std::min(left, batch_size_));
      take(std::min(left, batch_size_), entry.batch);
      queue_.push_back(std::move(entry));
    }
    examples_ += count;
    lock.unlock();
    read_cv_.notify_all();
  }

  void add_chunk_data(std::exception_ptr error) {
    std::unique_lock<std::mutex> lock(mutex_);
    write_cv_.wait(lock, [this] { return examples_ < queue_capacity_ || stop_; });
    if (stop_) return;
    Entry entry;
    entry.error = std::move(error);
    queue_.push_back(std::move(entry));
    lock.unlock();
    read_cv_.notify_all();
  }

  // No more data: wakes the readers (they drain what is left) and the waiting writers.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    write_cv_.notify_all();
    read_cv_.notify_all();
  }

 private:
  struct Entry {
    UnwrappedBatchType batch;
    std::exception_ptr error;
  };

  const size_t batch_size_;
  ExampleSampler& example_sampler_;  // the ChunkDataset's; used under mutex_
  const size_t queue_capacity_;

  std::mutex mutex_;
  std::condition_variable read_cv_, write_cv_;
  std::deque<Entry> queue_;
  size_t examples_ = 0;  // examples in queue_
  bool stop_ = false;
};

}  // namespace detail

template <typename ChunkReader, typename ChunkSampler = samplers::RandomSampler,
          typename ExampleSampler = samplers::RandomSampler>
class ChunkDataset final
    : public StatefulDataset<ChunkDataset<ChunkReader, ChunkSampler, ExampleSampler>,
                             typename ChunkReader::BatchType, size_t> {
 public:
  using BatchType = std::optional<typename ChunkReader::BatchType>;
  using UnwrappedBatchType = typename ChunkReader::BatchType;
  using BatchRequestType = size_t;
  using ChunkSamplerType = ChunkSampler;
  using ExampleSamplerType = ExampleSampler;

  // `preprocessing_policy`, when set, runs on each loaded chunk (or group of
  // cross_chunk_shuffle_count chunks) before its examples are shuffled into batches.
  ChunkDataset(ChunkReader chunk_reader, ChunkSampler chunk_sampler, ExampleSampler example_sampler,
               ChunkDatasetOptions options,
               std::function<void(UnwrappedBatchType&)> preprocessing_policy = std::function<void(UnwrappedBatchType&)>())
      : chunk_reader_(std::move(chunk_reader)),
        chunk_sampler_(std::move(chunk_sampler)),
        example_sampler_(std::move(example_sampler)),
        options_(std::move(options)),
        preprocessing_policy_(std::move(preprocessing_policy)) {}

  ~ChunkDataset() override {
    if (batch_buffer_) batch_buffer_->stop();
    free_workers();
  }

  BatchType get_batch(size_t batch_size) override {
    if (!batch_buffer_) detail::chunk_dataset_not_reset();
    if (batch_size != options_.batch_size()) detail::chunk_batch_size_mismatch(batch_size, options_.batch_size());
    return batch_buffer_->get_batch();
  }
  BatchType get_batch() { return get_batch(options_.batch_size()); }

  // Starts an epoch: stops the previous epoch's preloaders, drops its cache, and (unless a
  // checkpoint was just loaded) resets the reader and the chunk sampler.
  void reset() override {
    if (batch_buffer_) batch_buffer_->stop();
    free_workers();
    if (!load_checkpoint_) {
      chunk_reader_.reset();
      chunk_sampler_.reset(chunk_reader_.chunk_count());
    }
    load_checkpoint_ = false;
    batch_buffer_ = std::make_shared<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSamplerType>>(
        options_.batch_size(), example_sampler_, options_.cache_size());
    quit_worker_ = false;
    running_preloaders_ = options_.preloader_count();
    for (size_t i = 0; i < options_.preloader_count(); ++i) preload_threads_.emplace_back([this] { preloader(); });
  }

  std::optional<size_t> size() const override { return std::nullopt; }

  // The chunk sampler (a distributed sampler's set_epoch goes through it).
  ChunkSamplerType& chunk_sampler() { return chunk_sampler_; }

  void save(serialize::OutputArchive& archive) const override {
    std::lock_guard<std::mutex> lock(chunk_index_guard_);
    chunk_sampler_.save(archive);
  }
  // Restores the chunk sampler's position; the next reset() continues from it. Running
  // preloaders are stopped first, so they do not move the restored position.
  void load(serialize::InputArchive& archive) override {
    if (batch_buffer_) batch_buffer_->stop();
    free_workers();
    std::lock_guard<std::mutex> lock(chunk_index_guard_);
    chunk_sampler_.load(archive);
    load_checkpoint_ = true;
  }

 private:
  void preloader() {
    while (!quit_worker_.load()) {
      try {
        std::vector<size_t> chunk_indices;
        {
          std::lock_guard<std::mutex> lock(chunk_index_guard_);
          auto next = chunk_sampler_.next(options_.cross_chunk_shuffle_count());
          if (!next) break;
          chunk_indices = std::move(*next);
        }
        if (chunk_indices.empty()) break;
        UnwrappedBatchType data = chunk_reader_.read_chunk(chunk_indices[0]);
        for (size_t i = 1; i < chunk_indices.size(); ++i) {
          UnwrappedBatchType more = chunk_reader_.read_chunk(chunk_indices[i]);
          std::move(more.begin(), more.end(), std::back_inserter(data));
        }
        if (preprocessing_policy_) preprocessing_policy_(data);
        if (!data.empty()) batch_buffer_->add_chunk_data(std::move(data));
      } catch (...) {
        batch_buffer_->add_chunk_data(std::current_exception());
      }
    }
    if (--running_preloaders_ == 0) batch_buffer_->stop();  // the last one out ends the epoch
  }

  void free_workers() {
    quit_worker_ = true;
    for (auto& t : preload_threads_) t.join();
    preload_threads_.clear();
  }

  ChunkReader chunk_reader_;
  ChunkSamplerType chunk_sampler_;
  ExampleSamplerType example_sampler_;
  std::shared_ptr<detail::BatchDataBuffer<UnwrappedBatchType, ExampleSamplerType>> batch_buffer_;
  std::vector<std::thread> preload_threads_;
  const ChunkDatasetOptions options_;
  std::function<void(UnwrappedBatchType&)> preprocessing_policy_;
  std::atomic<bool> quit_worker_{false};
  std::atomic<size_t> running_preloaders_{0};
  mutable std::mutex chunk_index_guard_;  // guards chunk_sampler_
  bool load_checkpoint_ = false;
};

}  // namespace ember::data::datasets
