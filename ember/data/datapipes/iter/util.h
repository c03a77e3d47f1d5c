// TorchData's iter/util DataPipes: Shuffler, ShardingFilter, Cycler, Repeater, Header, ThreadPoolMapper, RandomSplit.
#pragma once
#include <cstdint>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "ember/core/error.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/iter/detail.h"

namespace ember::data::datapipes {

// Shuffles within a buffer: the first `buffer_size` elements fill it; then each step yields
// a random buffered element and puts the next input in its place.
template <class T>
class ShufflerNode final : public UnaryNode<ShufflerNode<T>, T, T> {
 public:
  ShufflerNode(std::shared_ptr<IterNode<T>> src, int64_t buffer_size)
      : UnaryNode<ShufflerNode, T, T>(std::move(src), /*random=*/true), buffer_size_(buffer_size) {
    detail::check_positive("shuffle", "buffer_size", buffer_size);
  }
  const char* name() const override { return "Shuffler"; }
  void reset() override {
    buf_.clear();
    done_ = false;
    rng_.seed(this->begin_epoch_seed());
  }
  std::optional<T> next() override {
    while (!done_ && int64_t(buf_.size()) < buffer_size_) {
      auto x = this->pull_src();
      if (!x) {
        done_ = true;
        break;
      }
      buf_.push_back(std::move(*x));
    }
    if (buf_.empty()) return std::nullopt;
    // rng % n rather than a distribution: the same order with every standard library, so
    // ranks built differently still agree on an upstream shuffle.
    size_t idx = size_t(rng_() % buf_.size());
    // The replacement is pulled before the element leaves the buffer: an input that throws
    // leaves the buffer intact.
    if (!done_) {
      if (auto x = this->pull_src()) {
        T out = std::move(buf_[idx]);
        buf_[idx] = std::move(*x);
        return out;
      }
      done_ = true;
    }
    T out = std::move(buf_[idx]);
    buf_[idx] = std::move(buf_.back());
    buf_.pop_back();
    return out;
  }

 private:
  int64_t buffer_size_;
  std::vector<T> buf_;
  bool done_ = false;
  std::mt19937_64 rng_;
};

template <class T>
class ShardingFilterNode final : public UnaryNode<ShardingFilterNode<T>, T, T> {
 public:
  using UnaryNode<ShardingFilterNode, T, T>::UnaryNode;
  const char* name() const override { return "ShardingFilter"; }
  bool is_sharding_filter() const override { return true; }
  void apply_sharding(int64_t n, int64_t i) override {
    num_ = n;
    id_ = i;
  }
  void reset() override { idx_ = 0; }
  std::optional<T> next() override {
    while (auto x = this->pull_src())
      if (idx_++ % num_ == id_) return x;
    return std::nullopt;
  }

 private:
  int64_t num_ = 1, id_ = 0, idx_ = 0;
};

template <class T>
class CyclerNode final : public UnaryNode<CyclerNode<T>, T, T> {
 public:
  CyclerNode(std::shared_ptr<IterNode<T>> src, std::optional<int64_t> count)
      : UnaryNode<CyclerNode, T, T>(std::move(src)), count_(count) {
    EMBER_CHECK(!count || *count >= 0, "cycle: expected count >= 0 or none, got ", *count);
  }
  const char* name() const override { return "Cycler"; }
  void reset() override {
    round_ = 0;
    yielded_in_round_ = 0;
  }
  std::optional<T> next() override {
    if (count_ && round_ >= *count_) return std::nullopt;
    for (;;) {
      if (auto x = this->pull_src()) {
        ++yielded_in_round_;
        return x;
      }
      ++round_;
      if ((count_ && round_ >= *count_) || yielded_in_round_ == 0) return std::nullopt;  // empty input: stop
      yielded_in_round_ = 0;
      restart_subgraph(*this->src_);
    }
  }

 private:
  std::optional<int64_t> count_;
  int64_t round_ = 0, yielded_in_round_ = 0;
};

template <class T>
class RepeaterNode final : public UnaryNode<RepeaterNode<T>, T, T> {
 public:
  RepeaterNode(std::shared_ptr<IterNode<T>> src, int64_t times) : UnaryNode<RepeaterNode, T, T>(std::move(src)), times_(times) {
    detail::check_positive("repeat", "times", times);
  }
  const char* name() const override { return "Repeater"; }
  void reset() override { left_ = 0; cur_.reset(); }
  std::optional<T> next() override {
    if (left_ == 0) {
      cur_ = this->pull_src();
      if (!cur_) return std::nullopt;
      left_ = times_;
    }
    --left_;
    return left_ == 0 ? std::move(cur_) : cur_;
  }

 private:
  int64_t times_, left_ = 0;
  std::optional<T> cur_;
};

template <class T>
class HeaderNode final : public UnaryNode<HeaderNode<T>, T, T> {
 public:
  HeaderNode(std::shared_ptr<IterNode<T>> src, int64_t limit) : UnaryNode<HeaderNode, T, T>(std::move(src)), limit_(limit) {
    EMBER_CHECK(limit >= 0, "header: expected limit >= 0, got ", limit);
  }
  const char* name() const override { return "Header"; }
  void reset() override { n_ = 0; }
  std::optional<T> next() override {
    if (n_ >= limit_) return std::nullopt;
    ++n_;
    return this->pull_src();
  }

 private:
  int64_t limit_, n_ = 0;
};

// map() on a pool of threads, results in input order, at most `scheduled` in flight.
template <class T, class U, class F>
class ThreadPoolMapperNode final : public UnaryNode<ThreadPoolMapperNode<T, U, F>, T, U> {
 public:
  ThreadPoolMapperNode(std::shared_ptr<IterNode<T>> src, F fn, int64_t workers, int64_t scheduled)
      : UnaryNode<ThreadPoolMapperNode, T, U>(std::move(src)), fn_(std::make_shared<F>(std::move(fn))),
        workers_(workers), scheduled_(scheduled) {
    detail::check_positive("threadpool_map", "max_workers", workers);
    detail::check_positive("threadpool_map", "scheduled_tasks", scheduled);
  }
  ThreadPoolMapperNode(const ThreadPoolMapperNode& o)
      : UnaryNode<ThreadPoolMapperNode, T, U>(o), fn_(o.fn_), workers_(o.workers_), scheduled_(o.scheduled_) {}
  ~ThreadPoolMapperNode() override { stop(); }
  const char* name() const override { return "ThreadPoolMapper"; }
  void stop() override {
    for (auto& f : inflight_) f.wait();
    inflight_.clear();
    pool_.reset();
  }
  void reset() override { done_ = false; }
  std::optional<U> next() override {
    if (!pool_) pool_ = std::make_unique<detail::TaskPool>(workers_);
    while (!done_ && int64_t(inflight_.size()) < scheduled_) {
      auto x = this->pull_src();
      if (!x) {
        done_ = true;
        break;
      }
      auto task = std::make_shared<std::packaged_task<U()>>(
          [fn = fn_, v = std::make_shared<T>(std::move(*x))]() mutable { return (*fn)(std::move(*v)); });
      inflight_.push_back(task->get_future());
      pool_->submit([task] { (*task)(); });
    }
    if (inflight_.empty()) return std::nullopt;
    std::future<U> f = std::move(inflight_.front());
    inflight_.pop_front();
    return f.get();
  }

 private:
  std::shared_ptr<F> fn_;
  int64_t workers_, scheduled_;
  bool done_ = false;
  std::deque<std::future<U>> inflight_;
  std::unique_ptr<detail::TaskPool> pool_;
};

// One output of random_split: every output replays the same seeded assignment.
template <class T>
class RandomSplitNode final : public UnaryNode<RandomSplitNode<T>, T, T> {
 public:
  RandomSplitNode(std::shared_ptr<IterNode<T>> src, std::vector<double> weights, uint64_t seed,
                  std::optional<int64_t> total, size_t target)
      : UnaryNode<RandomSplitNode, T, T>(std::move(src)), weights_(std::move(weights)), seed_(seed), total_(total),
        target_(target) {}
  const char* name() const override { return "RandomSplitter"; }
  void reset() override {
    rng_.seed(seed_);
    remaining_.clear();
    seen_ = 0;
  }
  std::optional<T> next() override {
    if (remaining_.empty()) init();
    while (auto x = this->pull_src()) {
      ++seen_;
      EMBER_CHECK(seen_ <= *total_, "random_split: the input has more than total_length = ", *total_, " elements");
      int64_t left = 0;
      for (int64_t r : remaining_) left += r;
      int64_t pick = int64_t(rng_() % uint64_t(left));
      size_t k = 0;
      while (pick >= remaining_[k]) pick -= remaining_[k++];
      --remaining_[k];
      if (k == target_) return x;
    }
    return std::nullopt;
  }

 private:
  void init() {
    // Each output makes its own pass over the input: a random pipe upstream would order
    // the passes differently and the splits would overlap.
    for (NodeBase* n : traverse(*this->src_))
      EMBER_CHECK(!n->is_random(), "random_split: the input has a random pipe (", n->name(),
                  ") upstream, so the outputs would not partition it; split first, then shuffle each output");
    if (!total_) {  // count the input once, then start it again
      int64_t n = 0;
      while (this->pull_src()) ++n;
      total_ = n;
      restart_subgraph(*this->src_);
    }
    double sum = 0;
    for (double w : weights_) sum += w;
    int64_t assigned = 0;
    for (double w : weights_) {
      remaining_.push_back(int64_t(w / sum * double(*total_)));
      assigned += remaining_.back();
    }
    for (size_t k = 0; assigned < *total_; k = (k + 1) % remaining_.size(), ++assigned) ++remaining_[k];
  }
  std::vector<double> weights_;
  uint64_t seed_;
  std::optional<int64_t> total_;
  size_t target_;
  std::mt19937_64 rng_;
  std::vector<int64_t> remaining_;
  int64_t seen_ = 0;
};

}  // namespace ember::data::datapipes
