// DataLoaderBase: what the stateless and stateful DataLoaders share (LibTorch's
// torch::data::DataLoaderBase): the epoch's batch requests, the worker threads that turn
// them into batches, and the iterator over the results.
//
// Note [DataLoader jobs and epochs]
// A job is one batch request with a sequence number (its place in the epoch) and the epoch
// it belongs to. The main thread keeps up to max_jobs jobs in flight: it queues max_jobs at
// the start of an epoch and one more for each batch it hands out. Workers take jobs from
// the queue and post results keyed by sequence number; with enforce_ordering the main
// thread hands results out in sequence order, otherwise in the order they arrive. A new
// epoch (begin()) or join() drops the queued jobs and bumps the epoch, so results of jobs
// that were already running are discarded when they arrive: neither waits for the old
// epoch's batches to be produced, only for the get_batch calls already running. Workers
// never block on the main thread (results are unbounded, at most max_jobs), so destroying a
// loader mid-epoch only waits for those calls.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "ember/data/dataloader_options.h"
#include "ember/data/detail/iterator.h"
#include "ember/data/detail/pin.h"
#include "ember/data/detail/worker_exception.h"

namespace ember::data {

namespace detail {
void check_loader_options(const FullDataLoaderOptions& options);
[[noreturn]] void loader_timeout(std::chrono::milliseconds timeout, size_t sequence, size_t workers);
[[noreturn]] void loader_joined();
}  // namespace detail

template <typename Dataset, typename Batch, typename BatchRequest>
class DataLoaderBase {
 public:
  using BatchType = Batch;
  using BatchRequestType = BatchRequest;

  DataLoaderBase(DataLoaderOptions options, std::unique_ptr<Dataset> main_thread_dataset = nullptr)
      : options_(options), main_thread_dataset_(std::move(main_thread_dataset)),
        pin_(options_.pin_memory && detail::pinning_available()) {
    detail::check_loader_options(options_);
  }
  DataLoaderBase(const DataLoaderBase&) = delete;
  DataLoaderBase& operator=(const DataLoaderBase&) = delete;

  virtual ~DataLoaderBase() { join(); }

  // Starts a new epoch (abandoning the rest of an unfinished one) and returns its iterator.
  Iterator<Batch> begin() {
    if (joined_ && options_.workers > 0) detail::loader_joined();
    abandon_epoch();
    reset();
    return Iterator<Batch>([this] { return this->next(); });
  }
  Iterator<Batch> end() { return Iterator<Batch>(); }

  // Stops the worker threads (after the get_batch calls they are running return). The
  // destructor calls it; a loader with workers cannot start another epoch afterwards.
  void join() {
    if (joined_) return;
    std::deque<Job> dropped_jobs;
    std::map<size_t, Result> dropped_results;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      quit_ = true;
      ++epoch_;
      dropped_jobs.swap(jobs_);
      dropped_results.swap(results_);
    }
    job_cv_.notify_all();
    for (auto& worker : workers_) worker.join();
    joined_ = true;
  }

  const FullDataLoaderOptions& options() const noexcept { return options_; }

 protected:
  // The next batch request of this epoch, or nullopt when the epoch has no more.
  virtual std::optional<BatchRequest> get_batch_request() = 0;

  // Starts an epoch: derived loaders reset their sampler or dataset first, then call this.
  virtual void reset() {
    in_flight_ = 0;
    next_sequence_ = 0;
    expected_sequence_ = 0;
    prefetch(options_.max_jobs);
  }

  // Queues up to `count` more jobs.
  void prefetch(size_t count) {
    if (options_.workers == 0) return;
    for (size_t i = 0; i < count; ++i) {
      std::optional<BatchRequest> request = get_batch_request();
      if (!request) break;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        jobs_.push_back(Job{next_sequence_++, epoch_, std::move(*request)});
      }
      ++in_flight_;
      job_cv_.notify_one();
    }
  }

  std::optional<Batch> next() {
    if (options_.workers == 0) {
      if (std::optional<BatchRequest> request = get_batch_request()) {
        auto batch = main_thread_dataset_->get_batch(std::move(*request));  // Batch, or optional (stateful)
        if (pin_) detail::pin_in_place(batch);
        return batch;
      }
      return std::nullopt;
    }
    while (in_flight_ > 0) {
      Result result = pop_result();
      if (result.exception) {
        prefetch(1);  // the failed batch is skipped; the epoch goes on if the caller does
        throw WorkerException(result.exception);
      }
      // An empty batch: a stateful dataset has run out; its job is not replaced.
      if (result.batch) {
        prefetch(1);
        return std::move(result.batch);
      }
    }
    return std::nullopt;
  }

  // The body of each worker thread; `dataset` is the worker's own copy (stateless loaders)
  // or the shared dataset (stateful ones).
  void worker_thread(Dataset& dataset) {
    while (true) {
      std::optional<Job> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        job_cv_.wait(lock, [this] { return quit_ || !jobs_.empty(); });
        if (quit_) return;
        job.emplace(std::move(jobs_.front()));
        jobs_.pop_front();
        ++busy_;
      }
      Result result;
      try {
        result.batch = dataset.get_batch(std::move(job->request));
        if (pin_ && result.batch) detail::pin_in_place(*result.batch);
      } catch (...) {
        result.exception = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --busy_;
        if (job->epoch == epoch_) results_.emplace(job->sequence, std::move(result));
      }
      result_cv_.notify_all();
      // (A stale result is destroyed here, outside the lock.)
    }
  }

  struct Job {
    size_t sequence;
    uint64_t epoch;
    BatchRequest request;
  };
  struct Result {
    std::optional<Batch> batch;
    std::exception_ptr exception;
  };

  const FullDataLoaderOptions options_;
  // The dataset the main thread fetches from (workers == 0), or that workers share (stateful).
  std::unique_ptr<Dataset> main_thread_dataset_;
  // pin_memory asked for and a CUDA device present (ember/data/detail/pin.h).
  const bool pin_;
  std::vector<std::thread> workers_;

 private:
  // Waits for the next result (the next in sequence with enforce_ordering).
  Result pop_result() {
    std::unique_lock<std::mutex> lock(mutex_);
    auto ready = [this] {
      return options_.enforce_ordering ? results_.count(expected_sequence_) > 0 : !results_.empty();
    };
    if (options_.timeout) {
      if (!result_cv_.wait_for(lock, *options_.timeout, ready))
        detail::loader_timeout(*options_.timeout, expected_sequence_, options_.workers);
    } else {
      result_cv_.wait(lock, ready);
    }
    auto it = options_.enforce_ordering ? results_.find(expected_sequence_) : results_.begin();
    Result result = std::move(it->second);
    results_.erase(it);
    lock.unlock();
    --in_flight_;
    ++expected_sequence_;
    return result;
  }

  // Drops the queued jobs and pending results of the current epoch and waits for the
  // get_batch calls in progress (a stateful dataset is about to be reset under them).
  void abandon_epoch() {
    if (options_.workers == 0) return;
    std::deque<Job> dropped_jobs;
    std::map<size_t, Result> dropped_results;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      ++epoch_;
      dropped_jobs.swap(jobs_);
      dropped_results.swap(results_);
      result_cv_.wait(lock, [this] { return busy_ == 0; });
    }
    in_flight_ = 0;
  }

  // Shared with the workers, under mutex_.
  std::mutex mutex_;
  std::condition_variable job_cv_;     // a job was queued, or quit_
  std::condition_variable result_cv_;  // a result was posted, or a worker finished a job
  std::deque<Job> jobs_;
  std::map<size_t, Result> results_;  // by sequence number
  uint64_t epoch_ = 0;
  size_t busy_ = 0;  // workers inside get_batch
  bool quit_ = false;

  // The main thread's own.
  size_t in_flight_ = 0;  // jobs queued this epoch whose results have not been taken
  size_t next_sequence_ = 0;
  size_t expected_sequence_ = 0;  // results taken so far this epoch
  bool joined_ = false;
};

}  // namespace ember::data
