// Buffering DataPipes: Prefetcher (a background reader) and InMemoryCache.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "ember/core/error.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/iter/detail.h"

namespace ember::data::datapipes {

// Reads ahead in a background thread, up to buffer_size elements.
template <class T>
class PrefetcherNode final : public UnaryNode<PrefetcherNode<T>, T, T> {
 public:
  PrefetcherNode(std::shared_ptr<IterNode<T>> src, int64_t buffer_size)
      : UnaryNode<PrefetcherNode, T, T>(std::move(src)), buffer_size_(buffer_size), rt_(std::make_unique<Runtime>()) {
    detail::check_positive("prefetch", "buffer_size", buffer_size);
  }
  PrefetcherNode(const PrefetcherNode& o)
      : UnaryNode<PrefetcherNode, T, T>(o), buffer_size_(o.buffer_size_), rt_(std::make_unique<Runtime>()) {}
  ~PrefetcherNode() override { stop(); }
  const char* name() const override { return "Prefetcher"; }
  void stop() override {
    {
      std::lock_guard<std::mutex> lock(rt_->m);
      rt_->stop = true;
    }
    rt_->cv.notify_all();
    if (rt_->thread.joinable()) rt_->thread.join();
  }
  void reset() override {
    rt_->queue.clear();
    rt_->ended = false;
    rt_->error = nullptr;
    rt_->stop = false;
  }
  std::optional<T> next() override {
    // Stopped (a new epoch is being set up while a reader downstream still runs): end,
    // and never start a thread until reset().
    if (rt_->stop) return std::nullopt;
    if (!rt_->thread.joinable() && !rt_->ended) rt_->thread = std::thread([this] { run(); });
    std::unique_lock<std::mutex> lock(rt_->m);
    rt_->cv.wait(lock, [&] { return !rt_->queue.empty() || rt_->ended; });
    if (!rt_->queue.empty()) {
      T x = std::move(rt_->queue.front());
      rt_->queue.pop_front();
      lock.unlock();
      rt_->cv.notify_all();
      return x;
    }
    if (rt_->error) std::rethrow_exception(rt_->error);
    return std::nullopt;
  }

 private:
  void run() {
    try {
      for (;;) {
        auto x = this->pull_src();
        std::unique_lock<std::mutex> lock(rt_->m);
        if (!x) break;
        rt_->cv.wait(lock, [&] { return int64_t(rt_->queue.size()) < buffer_size_ || rt_->stop; });
        if (rt_->stop) return;
        rt_->queue.push_back(std::move(*x));
        lock.unlock();
        rt_->cv.notify_all();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(rt_->m);
      rt_->error = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(rt_->m);
      rt_->ended = true;
    }
    rt_->cv.notify_all();
  }
  struct Runtime {
    std::mutex m;
    std::condition_variable cv;
    std::deque<T> queue;
    bool ended = false;
    std::atomic<bool> stop{false};  // also read by downstream readers without the lock
    std::exception_ptr error;
    std::thread thread;
  };
  int64_t buffer_size_;
  std::unique_ptr<Runtime> rt_;
};

// Keeps the first epoch's elements and replays them in later epochs when all fitted.
template <class T>
class InMemoryCacheNode final : public UnaryNode<InMemoryCacheNode<T>, T, T> {
 public:
  InMemoryCacheNode(std::shared_ptr<IterNode<T>> src, std::optional<int64_t> size)
      : UnaryNode<InMemoryCacheNode, T, T>(std::move(src)), size_(size) {
    EMBER_CHECK(!size || *size >= 0, "in_memory_cache: expected size >= 0, got ", *size);
  }
  const char* name() const override { return "InMemoryCacheHolder"; }
  void reset() override {
    pos_ = 0;
    if (!complete_) {
      cache_.clear();
      caching_ = true;
    }
  }
  std::optional<T> next() override {
    if (complete_) {
      if (pos_ >= cache_.size()) return std::nullopt;
      return cache_[pos_++];
    }
    auto x = this->pull_src();
    if (!x) {
      complete_ = caching_;
      return std::nullopt;
    }
    if (caching_) {
      if (size_ && int64_t(cache_.size()) >= *size_) {
        caching_ = false;
        cache_.clear();
      } else {
        cache_.push_back(*x);
      }
    }
    return x;
  }

 private:
  std::optional<int64_t> size_;
  std::vector<T> cache_;
  size_t pos_ = 0;
  bool caching_ = true, complete_ = false;
};

}  // namespace ember::data::datapipes
