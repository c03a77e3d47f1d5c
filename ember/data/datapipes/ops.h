// The iterable DataPipes (TorchData's names) and IterDataPipe's functional forms.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <queue>
#include <random>
#include <thread>

#include "ember/data/datapipes/collate.h"
#include "ember/data/datapipes/datapipe.h"

namespace ember::data::datapipes {

namespace detail {
template <class T> struct is_vector : std::false_type {};
template <class U, class A> struct is_vector<std::vector<U, A>> : std::true_type {};
template <class T> struct is_string_map : std::false_type {};
template <class V> struct is_string_map<std::map<std::string, V>> : std::true_type {};

// A deep copy for fork(deep_copy=true): tensors are cloned, containers copied element-wise.
template <class T> T deep_copy(const T& x) {
  if constexpr (std::is_same_v<T, Tensor>) {
    return x.defined() ? x.clone() : x;
  } else if constexpr (is_vector<T>::value) {
    T out;
    out.reserve(x.size());
    for (const auto& e : x) out.push_back(deep_copy(e));
    return out;
  } else {
    return x;
  }
}
void check_positive(const char* op, const char* what, int64_t v);
// A mutex member that copies as a fresh mutex (nodes are copied to clone graphs).
struct NodeMutex {
  std::mutex m;
  NodeMutex() = default;
  NodeMutex(const NodeMutex&) {}
  NodeMutex& operator=(const NodeMutex&) { return *this; }
};
Tensor index_scalar(int64_t i);

// A small pool of threads running tasks (threadpool_map).
class TaskPool {
 public:
  explicit TaskPool(int64_t workers);
  ~TaskPool();
  void submit(std::function<void()> task);

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};
}  // namespace detail

// ---- sources -------------------------------------------------------------------------

template <class T>
class IterableWrapperNode final : public IterNodeImpl<IterableWrapperNode<T>, T> {
 public:
  explicit IterableWrapperNode(std::vector<T> data) : data_(std::make_shared<const std::vector<T>>(std::move(data))) {}
  const char* name() const override { return "IterableWrapper"; }
  void reset() override { pos_ = 0; }
  std::optional<T> next() override {
    if (pos_ >= data_->size()) return std::nullopt;
    return (*data_)[pos_++];
  }

 private:
  std::shared_ptr<const std::vector<T>> data_;  // immutable: clones share it
  size_t pos_ = 0;
};

// IterableWrapper(values): a pipe over a copy of `values`.
template <class T>
IterDataPipe<T> IterableWrapper(std::vector<T> values) {
  return IterDataPipe<T>(std::make_shared<IterableWrapperNode<T>>(std::move(values)));
}

// ---- one input ------------------------------------------------------------------------

// Base for nodes with one input of type In.
template <class Self, class In, class Out>
class UnaryNode : public IterNodeImpl<Self, Out> {
 public:
  explicit UnaryNode(std::shared_ptr<IterNode<In>> src, bool random = false)
      : IterNodeImpl<Self, Out>(random), src_(std::move(src)) {}
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }

 protected:
  std::optional<In> pull_src() { return this->pull(*src_); }
  std::shared_ptr<IterNode<In>> src_;
};

template <class T, class U, class F>
class MapperNode final : public UnaryNode<MapperNode<T, U, F>, T, U> {
 public:
  MapperNode(std::shared_ptr<IterNode<T>> src, F fn) : UnaryNode<MapperNode, T, U>(std::move(src)), fn_(std::move(fn)) {}
  const char* name() const override { return "Mapper"; }
  std::optional<U> next() override {
    auto x = this->pull_src();
    if (!x) return std::nullopt;
    return std::optional<U>(std::in_place, fn_(std::move(*x)));
  }

 private:
  F fn_;
};

template <class T, class F>
class FilterNode final : public UnaryNode<FilterNode<T, F>, T, T> {
 public:
  FilterNode(std::shared_ptr<IterNode<T>> src, F fn) : UnaryNode<FilterNode, T, T>(std::move(src)), fn_(std::move(fn)) {}
  const char* name() const override { return "Filter"; }
  std::optional<T> next() override {
    while (auto x = this->pull_src())
      if (fn_(static_cast<const T&>(*x))) return x;
    return std::nullopt;
  }

 private:
  F fn_;
};

template <class T, class C, class F>
class FlatMapperNode final : public UnaryNode<FlatMapperNode<T, C, F>, T, typename C::value_type> {
  using U = typename C::value_type;

 public:
  FlatMapperNode(std::shared_ptr<IterNode<T>> src, F fn)
      : UnaryNode<FlatMapperNode, T, U>(std::move(src)), fn_(std::move(fn)) {}
  const char* name() const override { return "FlatMapper"; }
  void reset() override {
    cur_ = C();
    pos_ = 0;
  }
  std::optional<U> next() override {
    while (pos_ >= cur_.size()) {
      auto x = this->pull_src();
      if (!x) return std::nullopt;
      cur_ = fn_(std::move(*x));
      pos_ = 0;
    }
    return std::move(cur_[pos_++]);
  }

 private:
  F fn_;
  C cur_;
  size_t pos_ = 0;
};

template <class T>
class BatcherNode final : public UnaryNode<BatcherNode<T>, T, std::vector<T>> {
 public:
  BatcherNode(std::shared_ptr<IterNode<T>> src, int64_t batch_size, bool drop_last)
      : UnaryNode<BatcherNode, T, std::vector<T>>(std::move(src)), batch_size_(batch_size), drop_last_(drop_last) {
    detail::check_positive("batch", "batch_size", batch_size);
  }
  const char* name() const override { return "Batcher"; }
  std::optional<std::vector<T>> next() override {
    std::vector<T> batch;
    batch.reserve(size_t(batch_size_));
    while (int64_t(batch.size()) < batch_size_) {
      auto x = this->pull_src();
      if (!x) break;
      batch.push_back(std::move(*x));
    }
    if (batch.empty() || (drop_last_ && int64_t(batch.size()) < batch_size_)) return std::nullopt;
    return batch;
  }

 private:
  int64_t batch_size_;
  bool drop_last_;
};

template <class U>
class UnBatcherNode final : public UnaryNode<UnBatcherNode<U>, std::vector<U>, U> {
 public:
  using UnaryNode<UnBatcherNode, std::vector<U>, U>::UnaryNode;
  const char* name() const override { return "UnBatcher"; }
  void reset() override {
    cur_.clear();
    pos_ = 0;
  }
  std::optional<U> next() override {
    while (pos_ >= cur_.size()) {
      auto x = this->pull_src();
      if (!x) return std::nullopt;
      cur_ = std::move(*x);
      pos_ = 0;
    }
    return std::move(cur_[pos_++]);
  }

 private:
  std::vector<U> cur_;
  size_t pos_ = 0;
};

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

template <class T>
class EnumeratorNode final : public UnaryNode<EnumeratorNode<T>, T, std::pair<int64_t, T>> {
 public:
  EnumeratorNode(std::shared_ptr<IterNode<T>> src, int64_t start)
      : UnaryNode<EnumeratorNode, T, std::pair<int64_t, T>>(std::move(src)), start_(start) {}
  const char* name() const override { return "Enumerator"; }
  void reset() override { i_ = start_; }
  std::optional<std::pair<int64_t, T>> next() override {
    auto x = this->pull_src();
    if (!x) return std::nullopt;
    return std::pair<int64_t, T>(i_++, std::move(*x));
  }

 private:
  int64_t start_, i_ = 0;
};

template <class T>
class IndexAdderNode final : public UnaryNode<IndexAdderNode<T>, T, T> {
 public:
  IndexAdderNode(std::shared_ptr<IterNode<T>> src, std::string key)
      : UnaryNode<IndexAdderNode, T, T>(std::move(src)), key_(std::move(key)) {}
  const char* name() const override { return "IndexAdder"; }
  void reset() override { i_ = 0; }
  std::optional<T> next() override {
    auto x = this->pull_src();
    if (!x) return std::nullopt;
    using V = typename T::mapped_type;
    if constexpr (std::is_same_v<V, Tensor>) {
      (*x)[key_] = detail::index_scalar(i_++);
    } else {
      (*x)[key_] = V(i_++);
    }
    return x;
  }

 private:
  std::string key_;
  int64_t i_ = 0;
};

template <class U>
class InBatchShufflerNode final : public UnaryNode<InBatchShufflerNode<U>, std::vector<U>, std::vector<U>> {
 public:
  explicit InBatchShufflerNode(std::shared_ptr<IterNode<std::vector<U>>> src)
      : UnaryNode<InBatchShufflerNode, std::vector<U>, std::vector<U>>(std::move(src), /*random=*/true) {}
  const char* name() const override { return "InBatchShuffler"; }
  void reset() override { rng_.seed(this->begin_epoch_seed()); }
  std::optional<std::vector<U>> next() override {
    auto x = this->pull_src();
    if (!x) return std::nullopt;
    // Fisher-Yates with our own draws: the same order on every standard library.
    for (size_t i = x->size(); i > 1; --i) std::swap((*x)[i - 1], (*x)[size_t(rng_() % i)]);
    return x;
  }

 private:
  std::mt19937_64 rng_;
};

// Batches whose summed lengths stay within max_token_count, drawing the shortest elements of
// a buffer first (TorchData's MaxTokenBucketizer).
template <class T, class LenFn>
class MaxTokenBucketizerNode final : public UnaryNode<MaxTokenBucketizerNode<T, LenFn>, T, std::vector<T>> {
 public:
  MaxTokenBucketizerNode(std::shared_ptr<IterNode<T>> src, int64_t max_tokens, LenFn len_fn, int64_t min_len,
                         std::optional<int64_t> max_len, int64_t buffer_size)
      : UnaryNode<MaxTokenBucketizerNode, T, std::vector<T>>(std::move(src)),
        max_tokens_(max_tokens), len_fn_(std::move(len_fn)), min_len_(min_len),
        max_len_(max_len.value_or(max_tokens)), buffer_size_(buffer_size) {
    detail::check_positive("max_token_bucketize", "max_token_count", max_tokens);
    detail::check_positive("max_token_bucketize", "buffer_size", buffer_size);
    // TorchData: max_len defaults to max_token_count and may not exceed it; elements
    // outside [min_len, max_len] are dropped.
    EMBER_CHECK(min_len >= 0 && max_len_ >= min_len && max_len_ <= max_tokens,
                "max_token_bucketize: expected 0 <= min_len <= max_len <= max_token_count, got min_len ", min_len,
                ", max_len ", max_len_, ", max_token_count ", max_tokens);
  }
  const char* name() const override { return "MaxTokenBucketizer"; }
  void reset() override {
    heap_ = {};
    seq_ = 0;
    done_ = false;
    pending_.reset();
  }
  std::optional<std::vector<T>> next() override {
    std::vector<T> batch;
    int64_t tokens = 0;
    for (;;) {
      if (!pending_) pending_ = take();
      if (!pending_) break;
      if (!batch.empty() && tokens + pending_->len > max_tokens_) return batch;
      tokens += pending_->len;
      batch.push_back(std::move(pending_->value));
      pending_.reset();
    }
    if (batch.empty()) return std::nullopt;
    return batch;
  }

 private:
  struct Entry {
    int64_t len;
    uint64_t seq;
    T value;
  };
  struct Later {
    bool operator()(const std::shared_ptr<Entry>& a, const std::shared_ptr<Entry>& b) const {
      return a->len != b->len ? a->len > b->len : a->seq > b->seq;
    }
  };
  // The shortest buffered element once the buffer is full (or the input ended).
  std::optional<Entry> take() {
    while (!done_ && int64_t(heap_.size()) < buffer_size_) {
      auto x = this->pull_src();
      if (!x) {
        done_ = true;
        break;
      }
      int64_t len = int64_t(len_fn_(static_cast<const T&>(*x)));
      if (len < min_len_ || len > max_len_) continue;
      heap_.push(std::make_shared<Entry>(Entry{len, seq_++, std::move(*x)}));
    }
    if (heap_.empty()) return std::nullopt;
    auto top = heap_.top();
    heap_.pop();
    return std::move(*top);
  }
  int64_t max_tokens_;
  LenFn len_fn_;
  int64_t min_len_, max_len_;
  int64_t buffer_size_;
  std::priority_queue<std::shared_ptr<Entry>, std::vector<std::shared_ptr<Entry>>, Later> heap_;
  uint64_t seq_ = 0;
  bool done_ = false;
  std::optional<Entry> pending_;
};

// Groups by key within a buffer (TorchData's Grouper): a group is yielded when it reaches
// group_size; when the buffer is full the largest group goes; at the end, all that remain.
template <class T, class KeyFn>
class GrouperNode final : public UnaryNode<GrouperNode<T, KeyFn>, T, std::vector<T>> {
  using Key = std::decay_t<std::invoke_result_t<KeyFn, const T&>>;

 public:
  GrouperNode(std::shared_ptr<IterNode<T>> src, KeyFn key_fn, int64_t buffer_size, std::optional<int64_t> group_size,
              std::optional<int64_t> guaranteed, bool drop_remaining)
      : UnaryNode<GrouperNode, T, std::vector<T>>(std::move(src)), key_fn_(std::move(key_fn)),
        buffer_size_(buffer_size), group_size_(group_size), guaranteed_(guaranteed ? guaranteed : group_size),
        drop_remaining_(drop_remaining) {
    detail::check_positive("groupby", "buffer_size", buffer_size);
    if (group_size) {
      detail::check_positive("groupby", "group_size", *group_size);
      EMBER_CHECK(*group_size <= buffer_size, "groupby: group_size ", *group_size, " > buffer_size ", buffer_size);
    }
    if (guaranteed) {
      detail::check_positive("groupby", "guaranteed_group_size", *guaranteed);
      EMBER_CHECK(group_size && *guaranteed <= *group_size, "groupby: guaranteed_group_size needs group_size >= it");
    }
  }
  const char* name() const override { return "Grouper"; }
  void reset() override {
    groups_.clear();
    order_.clear();
    size_ = 0;
    done_ = false;
  }
  std::optional<std::vector<T>> next() override {
    while (!done_) {
      auto x = this->pull_src();
      if (!x) {
        done_ = true;
        break;
      }
      Key key = key_fn_(static_cast<const T&>(*x));
      auto [it, fresh] = groups_.try_emplace(key);
      if (fresh) order_.push_back(key);
      it->second.push_back(std::move(*x));
      ++size_;
      if (group_size_ && int64_t(it->second.size()) == *group_size_) return take(key);
      if (size_ >= buffer_size_) {
        // The buffer is full: release the largest group.
        const Key* biggest = &order_.front();
        for (const Key& k : order_)
          if (groups_[k].size() > groups_[*biggest].size()) biggest = &k;
        Key k = *biggest;
        if (guaranteed_ && int64_t(groups_[k].size()) < *guaranteed_) {
          EMBER_CHECK(drop_remaining_, "groupby: the buffer (", buffer_size_, ") is full and its largest group has ",
                      groups_[k].size(), " < guaranteed_group_size ", *guaranteed_,
                      " elements (raise buffer_size or set drop_remaining)");
          size_ -= groups_[k].size();
          erase(k);
          continue;
        }
        return take(k);
      }
    }
    // The input ended: every remaining group, whatever its size (as TorchData).
    if (!order_.empty()) return take(order_.front());
    return std::nullopt;
  }

 private:
  std::vector<T> take(const Key& k) {
    std::vector<T> out = std::move(groups_[k]);
    size_ -= int64_t(out.size());
    erase(k);
    return out;
  }
  void erase(const Key& k) {
    groups_.erase(k);
    order_.erase(std::find(order_.begin(), order_.end(), k));
  }
  KeyFn key_fn_;
  int64_t buffer_size_;
  std::optional<int64_t> group_size_, guaranteed_;
  bool drop_remaining_;
  std::map<Key, std::vector<T>> groups_;
  std::vector<Key> order_;  // first-seen order: deterministic output
  int64_t size_ = 0;
  bool done_ = false;
};

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

// ---- several inputs --------------------------------------------------------------------

template <class... Ts>
class ZipperNode final : public IterNodeImpl<ZipperNode<Ts...>, std::tuple<Ts...>> {
 public:
  explicit ZipperNode(std::shared_ptr<IterNode<Ts>>... srcs) : srcs_(std::move(srcs)...) {}
  const char* name() const override { return "Zipper"; }
  std::vector<NodeBase*> children() const override {
    return std::apply([](auto&... s) { return std::vector<NodeBase*>{s.get()...}; }, srcs_);
  }
  void rebind(CloneContext& ctx) {
    std::apply([&](auto&... s) { ((s = ctx.clone(s)), ...); }, srcs_);
  }
  std::optional<std::tuple<Ts...>> next() override {
    auto parts = std::apply([&](auto&... s) { return std::tuple<std::optional<Ts>...>{this->pull(*s)...}; }, srcs_);
    bool all = std::apply([](auto&... p) { return (p.has_value() && ...); }, parts);
    if (!all) return std::nullopt;
    return std::apply([](auto&... p) { return std::tuple<Ts...>{std::move(*p)...}; }, parts);
  }

 private:
  std::tuple<std::shared_ptr<IterNode<Ts>>...> srcs_;
};

template <class... Ts>
class ZipLongestNode final : public IterNodeImpl<ZipLongestNode<Ts...>, std::tuple<std::optional<Ts>...>> {
 public:
  explicit ZipLongestNode(std::shared_ptr<IterNode<Ts>>... srcs) : srcs_(std::move(srcs)...) {}
  const char* name() const override { return "ZipperLongest"; }
  std::vector<NodeBase*> children() const override {
    return std::apply([](auto&... s) { return std::vector<NodeBase*>{s.get()...}; }, srcs_);
  }
  void rebind(CloneContext& ctx) {
    std::apply([&](auto&... s) { ((s = ctx.clone(s)), ...); }, srcs_);
  }
  void reset() override { done_.fill(false); }
  std::optional<std::tuple<std::optional<Ts>...>> next() override {
    auto parts = pull_all(std::index_sequence_for<Ts...>{});
    bool any = std::apply([](auto&... p) { return (p.has_value() || ...); }, parts);
    if (!any) return std::nullopt;
    return parts;
  }

 private:
  template <size_t... I>
  std::tuple<std::optional<Ts>...> pull_all(std::index_sequence<I...>) {
    return {pull_one<I>()...};
  }
  template <size_t I>
  auto pull_one() {
    using U = std::tuple_element_t<I, std::tuple<Ts...>>;
    if (done_[I]) return std::optional<U>();
    auto x = this->pull(*std::get<I>(srcs_));
    if (!x) done_[I] = true;
    return x;
  }
  std::tuple<std::shared_ptr<IterNode<Ts>>...> srcs_;
  std::array<bool, sizeof...(Ts)> done_{};
};

// Base for nodes over several inputs of one type.
template <class Self, class T>
class NaryNode : public IterNodeImpl<Self, T> {
 public:
  explicit NaryNode(std::vector<std::shared_ptr<IterNode<T>>> srcs) : srcs_(std::move(srcs)) {}
  std::vector<NodeBase*> children() const override {
    std::vector<NodeBase*> c;
    for (auto& s : srcs_) c.push_back(s.get());
    return c;
  }
  void rebind(CloneContext& ctx) {
    for (auto& s : srcs_) s = ctx.clone(s);
  }

 protected:
  std::vector<std::shared_ptr<IterNode<T>>> srcs_;
};

template <class T>
class ConcaterNode final : public NaryNode<ConcaterNode<T>, T> {
 public:
  using NaryNode<ConcaterNode, T>::NaryNode;
  const char* name() const override { return "Concater"; }
  void reset() override { i_ = 0; }
  std::optional<T> next() override {
    for (; i_ < this->srcs_.size(); ++i_)
      if (auto x = this->pull(*this->srcs_[i_])) return x;
    return std::nullopt;
  }

 private:
  size_t i_ = 0;
};

// One element from each input in turn; ends with the first input that ends (the
// incomplete last round is dropped), or, `longest`, continues with those left.
template <class T>
class MultiplexerNode final : public NaryNode<MultiplexerNode<T>, T> {
 public:
  MultiplexerNode(std::vector<std::shared_ptr<IterNode<T>>> srcs, bool longest)
      : NaryNode<MultiplexerNode, T>(std::move(srcs)), longest_(longest) {}
  const char* name() const override { return longest_ ? "MultiplexerLongest" : "Multiplexer"; }
  void reset() override {
    round_.clear();
    live_.assign(this->srcs_.size(), true);
    i_ = 0;
    ended_ = false;
  }
  std::optional<T> next() override {
    if (longest_) {
      for (size_t tries = 0; tries < this->srcs_.size(); ++tries, i_ = (i_ + 1) % this->srcs_.size()) {
        if (!live_[i_]) continue;
        if (auto x = this->pull(*this->srcs_[i_])) {
          i_ = (i_ + 1) % this->srcs_.size();
          return x;
        }
        live_[i_] = false;
      }
      return std::nullopt;
    }
    if (round_.empty() && !ended_) {
      for (auto& s : this->srcs_) {
        auto x = this->pull(*s);
        if (!x) {
          ended_ = true;
          round_.clear();
          break;
        }
        round_.push_back(std::move(*x));
      }
    }
    if (round_.empty()) return std::nullopt;
    T x = std::move(round_.front());
    round_.pop_front();
    return x;
  }

 private:
  bool longest_;
  std::deque<T> round_;
  std::vector<bool> live_;
  size_t i_ = 0;
  bool ended_ = false;
};

// fork(): one input read once, buffered until every output has taken each element.
template <class T>
class ForkBufferNode final : public NodeImpl<ForkBufferNode<T>, NodeBase> {
 public:
  ForkBufferNode(std::shared_ptr<IterNode<T>> src, int64_t n, int64_t buffer_size, bool deep)
      : src_(std::move(src)), n_(n), buffer_size_(buffer_size), deep_(deep) {}
  const char* name() const override { return "Forker"; }
  bool shareable() const override { return true; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override {
    buf_.clear();
    base_ = 0;
    pos_.assign(size_t(n_), 0);
    done_ = false;
  }
  // Outputs may be read from different threads (a prefetch() on one of them).
  std::optional<T> get(int64_t child) {
    std::lock_guard<std::mutex> lock(mutex_.m);
    int64_t& p = pos_[size_t(child)];
    if (p - base_ >= int64_t(buf_.size())) {
      if (done_) return std::nullopt;
      auto x = this->pull(*src_);
      if (!x) {
        done_ = true;
        return std::nullopt;
      }
      EMBER_CHECK(buffer_size_ < 0 || int64_t(buf_.size()) < buffer_size_, "fork: output ", child, " is ",
                  buf_.size(), " elements ahead of the slowest output and the buffer holds ", buffer_size_,
                  " (consume the outputs together, e.g. zip or mux them, or raise buffer_size; -1 is unbounded)");
      buf_.push_back(std::move(*x));
    }
    size_t at = size_t(p - base_);
    ++p;
    std::optional<T> out = deep_ ? detail::deep_copy(buf_[at]) : buf_[at];
    // Drop what every output has taken.
    int64_t slowest = *std::min_element(pos_.begin(), pos_.end());
    while (base_ < slowest) {
      buf_.pop_front();
      ++base_;
    }
    return out;
  }

 private:
  std::shared_ptr<IterNode<T>> src_;
  int64_t n_, buffer_size_;
  bool deep_;
  detail::NodeMutex mutex_;
  std::deque<T> buf_;
  int64_t base_ = 0;
  std::vector<int64_t> pos_;
  bool done_ = false;
};

// demux(): one input routed by a classifier, each output's share buffered until taken.
template <class T, class F>
class DemuxBufferNode final : public NodeImpl<DemuxBufferNode<T, F>, NodeBase> {
 public:
  DemuxBufferNode(std::shared_ptr<IterNode<T>> src, int64_t n, F fn, bool drop_none, int64_t buffer_size)
      : src_(std::move(src)), n_(n), fn_(std::move(fn)), drop_none_(drop_none), buffer_size_(buffer_size) {}
  const char* name() const override { return "Demultiplexer"; }
  bool shareable() const override { return true; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override {
    bufs_.assign(size_t(n_), {});
    done_ = false;
  }
  std::optional<T> get(int64_t child) {
    std::lock_guard<std::mutex> lock(mutex_.m);
    auto& mine = bufs_[size_t(child)];
    while (mine.empty()) {
      if (done_) return std::nullopt;
      auto x = this->pull(*src_);
      if (!x) {
        done_ = true;
        return std::nullopt;
      }
      std::optional<int64_t> k = classify(*x);
      if (!k) {
        EMBER_CHECK(drop_none_, "demux: the classifier returned none for an element (set drop_none to drop such elements)");
        continue;
      }
      EMBER_CHECK(*k >= 0 && *k < n_, "demux: the classifier returned ", *k, ", expected an output in [0, ", n_, ")");
      auto& dst = bufs_[size_t(*k)];
      EMBER_CHECK(*k == child || buffer_size_ < 0 || int64_t(dst.size()) < buffer_size_, "demux: output ", *k,
                  " has ", dst.size(), " elements waiting while output ", child,
                  " is read, and the buffer holds ", buffer_size_,
                  " (consume the outputs together, e.g. mux them, or raise buffer_size; -1 is unbounded)");
      dst.push_back(std::move(*x));
    }
    T x = std::move(mine.front());
    mine.pop_front();
    return x;
  }

 private:
  std::optional<int64_t> classify(const T& x) {
    auto r = fn_(x);
    if constexpr (std::is_integral_v<decltype(r)>) {
      return int64_t(r);
    } else {
      return r ? std::optional<int64_t>(int64_t(*r)) : std::nullopt;
    }
  }
  std::shared_ptr<IterNode<T>> src_;
  int64_t n_;
  F fn_;
  bool drop_none_;
  int64_t buffer_size_;
  detail::NodeMutex mutex_;
  std::vector<std::deque<T>> bufs_;
  bool done_ = false;
};

// An output of fork() or demux().
template <class T, class Buffer>
class BufferChildNode final : public IterNodeImpl<BufferChildNode<T, Buffer>, T> {
 public:
  BufferChildNode(std::shared_ptr<Buffer> buf, int64_t index) : buf_(std::move(buf)), index_(index) {}
  const char* name() const override { return buf_->name(); }
  std::vector<NodeBase*> children() const override { return {buf_.get()}; }
  void rebind(CloneContext& ctx) { buf_ = ctx.clone(buf_); }
  std::optional<T> next() override {
    if (buf_->token() != this->token()) this->invalidated(*buf_);
    return buf_->get(index_);
  }

 private:
  std::shared_ptr<Buffer> buf_;
  int64_t index_;
};

// ---- functional forms --------------------------------------------------------------------

template <class T>
template <class F>
auto IterDataPipe<T>::map(F fn) const {
  using U = std::decay_t<std::invoke_result_t<F&, T&&>>;
  return IterDataPipe<U>(std::make_shared<MapperNode<T, U, F>>(node_, std::move(fn)));
}

template <class T>
template <class F>
IterDataPipe<T> IterDataPipe<T>::filter(F fn) const {
  return IterDataPipe<T>(std::make_shared<FilterNode<T, F>>(node_, std::move(fn)));
}

template <class T>
template <class F>
auto IterDataPipe<T>::flatmap(F fn) const {
  using C = std::decay_t<std::invoke_result_t<F&, T&&>>;
  return IterDataPipe<typename C::value_type>(std::make_shared<FlatMapperNode<T, C, F>>(node_, std::move(fn)));
}

template <class T>
IterDataPipe<std::vector<T>> IterDataPipe<T>::batch(int64_t batch_size, bool drop_last) const {
  return IterDataPipe<std::vector<T>>(std::make_shared<BatcherNode<T>>(node_, batch_size, drop_last));
}

template <class T>
auto IterDataPipe<T>::unbatch() const {
  static_assert(detail::is_vector<T>::value, "unbatch(): the elements must be std::vector batches");
  using U = typename T::value_type;
  return IterDataPipe<U>(std::make_shared<UnBatcherNode<U>>(node_));
}

template <class T>
auto IterDataPipe<T>::collate() const {
  static_assert(detail::is_vector<T>::value, "collate(): the elements must be std::vector batches (call batch() first)");
  return map([](T batch) { return default_collate(std::move(batch)); });
}

template <class T>
template <class F>
auto IterDataPipe<T>::collate(F fn) const {
  return map(std::move(fn));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::shuffle(int64_t buffer_size) const {
  return IterDataPipe<T>(std::make_shared<ShufflerNode<T>>(node_, buffer_size));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::sharding_filter() const {
  return IterDataPipe<T>(std::make_shared<ShardingFilterNode<T>>(node_));
}

template <class T>
template <class... U>
IterDataPipe<std::tuple<T, U...>> IterDataPipe<T>::zip(const IterDataPipe<U>&... others) const {
  return IterDataPipe<std::tuple<T, U...>>(std::make_shared<ZipperNode<T, U...>>(node_, others.node()...));
}

template <class T>
template <class... U>
IterDataPipe<std::tuple<std::optional<T>, std::optional<U>...>> IterDataPipe<T>::zip_longest(
    const IterDataPipe<U>&... others) const {
  return IterDataPipe<std::tuple<std::optional<T>, std::optional<U>...>>(
      std::make_shared<ZipLongestNode<T, U...>>(node_, others.node()...));
}

template <class T>
template <class... P>
IterDataPipe<T> IterDataPipe<T>::concat(const P&... others) const {
  static_assert((std::is_same_v<P, IterDataPipe<T>> && ...), "concat(): all pipes must have the same element type");
  return IterDataPipe<T>(std::make_shared<ConcaterNode<T>>(std::vector<std::shared_ptr<IterNode<T>>>{node_, others.node()...}));
}

template <class T>
std::vector<IterDataPipe<T>> IterDataPipe<T>::fork(int64_t num_instances, int64_t buffer_size, bool deep_copy) const {
  detail::check_positive("fork", "num_instances", num_instances);
  auto buf = std::make_shared<ForkBufferNode<T>>(node_, num_instances, buffer_size, deep_copy);
  std::vector<IterDataPipe<T>> out;
  for (int64_t i = 0; i < num_instances; ++i)
    out.emplace_back(std::make_shared<BufferChildNode<T, ForkBufferNode<T>>>(buf, i));
  return out;
}

template <class T>
template <class F>
std::vector<IterDataPipe<T>> IterDataPipe<T>::demux(int64_t num_instances, F classifier_fn, bool drop_none,
                                                    int64_t buffer_size) const {
  detail::check_positive("demux", "num_instances", num_instances);
  auto buf = std::make_shared<DemuxBufferNode<T, F>>(node_, num_instances, std::move(classifier_fn), drop_none, buffer_size);
  std::vector<IterDataPipe<T>> out;
  for (int64_t i = 0; i < num_instances; ++i)
    out.emplace_back(std::make_shared<BufferChildNode<T, DemuxBufferNode<T, F>>>(buf, i));
  return out;
}

template <class T>
template <class... P>
IterDataPipe<T> IterDataPipe<T>::mux(const P&... others) const {
  static_assert((std::is_same_v<P, IterDataPipe<T>> && ...), "mux(): all pipes must have the same element type");
  return IterDataPipe<T>(std::make_shared<MultiplexerNode<T>>(
      std::vector<std::shared_ptr<IterNode<T>>>{node_, others.node()...}, false));
}

template <class T>
template <class... P>
IterDataPipe<T> IterDataPipe<T>::mux_longest(const P&... others) const {
  static_assert((std::is_same_v<P, IterDataPipe<T>> && ...), "mux_longest(): all pipes must have the same element type");
  return IterDataPipe<T>(std::make_shared<MultiplexerNode<T>>(
      std::vector<std::shared_ptr<IterNode<T>>>{node_, others.node()...}, true));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::cycle(std::optional<int64_t> count) const {
  return IterDataPipe<T>(std::make_shared<CyclerNode<T>>(node_, count));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::repeat(int64_t times) const {
  return IterDataPipe<T>(std::make_shared<RepeaterNode<T>>(node_, times));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::header(int64_t limit) const {
  return IterDataPipe<T>(std::make_shared<HeaderNode<T>>(node_, limit));
}

template <class T>
IterDataPipe<std::pair<int64_t, T>> IterDataPipe<T>::enumerate(int64_t starting_index) const {
  return IterDataPipe<std::pair<int64_t, T>>(std::make_shared<EnumeratorNode<T>>(node_, starting_index));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::add_index(std::string index_name) const {
  static_assert(detail::is_string_map<T>::value, "add_index(): the elements must be std::map<std::string, V>");
  return IterDataPipe<T>(std::make_shared<IndexAdderNode<T>>(node_, std::move(index_name)));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::in_batch_shuffle() const {
  static_assert(detail::is_vector<T>::value, "in_batch_shuffle(): the elements must be std::vector batches");
  return IterDataPipe<T>(std::make_shared<InBatchShufflerNode<typename T::value_type>>(node_));
}

template <class T>
template <class SortKey>
IterDataPipe<std::vector<T>> IterDataPipe<T>::bucketbatch(int64_t batch_size, bool drop_last, int64_t batch_num,
                                                          int64_t bucket_num, SortKey sort_key,
                                                          bool use_in_batch_shuffle) const {
  // TorchData's BucketBatcher: shuffle a pool of bucket_num buckets, sort each bucket of
  // batch_num batches with sort_key, batch, then shuffle the batches of a bucket.
  detail::check_positive("bucketbatch", "batch_size", batch_size);
  detail::check_positive("bucketbatch", "batch_num", batch_num);
  detail::check_positive("bucketbatch", "bucket_num", bucket_num);
  constexpr bool sorted = !std::is_same_v<SortKey, std::nullptr_t>;
  int64_t bucket_size = batch_size * batch_num, pool_size = bucket_size * bucket_num;
  IterDataPipe<T> dp = *this;
  if (bucket_num > 1 || !sorted)
    dp = use_in_batch_shuffle ? dp.batch(pool_size).in_batch_shuffle().unbatch() : dp.shuffle(pool_size);
  if constexpr (sorted) {
    dp = dp.batch(bucket_size).map([key = std::move(sort_key)](std::vector<T> bucket) {
      return std::vector<T>(key(std::move(bucket)));
    }).unbatch();
  }
  IterDataPipe<std::vector<T>> batches = dp.batch(batch_size, drop_last);
  if constexpr (sorted)
    batches = use_in_batch_shuffle ? batches.batch(batch_num).in_batch_shuffle().unbatch() : batches.shuffle(batch_num);
  return batches;
}

template <class T>
template <class LenFn>
IterDataPipe<std::vector<T>> IterDataPipe<T>::max_token_bucketize(int64_t max_token_count, LenFn len_fn, int64_t min_len,
                                                                  std::optional<int64_t> max_len,
                                                                  int64_t buffer_size) const {
  return IterDataPipe<std::vector<T>>(std::make_shared<MaxTokenBucketizerNode<T, LenFn>>(
      node_, max_token_count, std::move(len_fn), min_len, max_len, buffer_size));
}

template <class T>
template <class KeyFn>
IterDataPipe<std::vector<T>> IterDataPipe<T>::groupby(KeyFn group_key_fn, int64_t buffer_size,
                                                      std::optional<int64_t> group_size,
                                                      std::optional<int64_t> guaranteed_group_size,
                                                      bool drop_remaining) const {
  return IterDataPipe<std::vector<T>>(std::make_shared<GrouperNode<T, KeyFn>>(
      node_, std::move(group_key_fn), buffer_size, group_size, guaranteed_group_size, drop_remaining));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::prefetch(int64_t buffer_size) const {
  return IterDataPipe<T>(std::make_shared<PrefetcherNode<T>>(node_, buffer_size));
}

template <class T>
template <class F>
auto IterDataPipe<T>::threadpool_map(F fn, int64_t max_workers, int64_t scheduled_tasks) const {
  using U = std::decay_t<std::invoke_result_t<F&, T&&>>;
  return IterDataPipe<U>(std::make_shared<ThreadPoolMapperNode<T, U, F>>(node_, std::move(fn), max_workers, scheduled_tasks));
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::in_memory_cache(std::optional<int64_t> size) const {
  return IterDataPipe<T>(std::make_shared<InMemoryCacheNode<T>>(node_, size));
}

template <class T>
std::vector<IterDataPipe<T>> IterDataPipe<T>::random_split(std::vector<double> weights, uint64_t seed,
                                                           std::optional<int64_t> total_length) const {
  EMBER_CHECK(!weights.empty(), "random_split: expected at least one weight");
  double sum = 0;
  for (double w : weights) {
    EMBER_CHECK(w >= 0 && std::isfinite(w), "random_split: weights must be finite and >= 0, got ", w);
    sum += w;
  }
  EMBER_CHECK(sum > 0, "random_split: the weights sum to 0");
  EMBER_CHECK(!total_length || *total_length >= 0, "random_split: total_length must be >= 0");
  std::vector<IterDataPipe<T>> out;
  for (size_t k = 0; k < weights.size(); ++k)
    out.emplace_back(std::make_shared<RandomSplitNode<T>>(node_, weights, seed, total_length, k));
  return out;
}

template <class T>
IterDataPipe<T> IterDataPipe<T>::slice(int64_t start, std::optional<int64_t> stop, int64_t step) const {
  static_assert(detail::is_vector<T>::value, "slice(): the elements must be std::vector");
  detail::check_positive("slice", "step", step);
  return map([start, stop, step](T x) {
    int64_t n = int64_t(x.size());
    auto clamp = [n](int64_t i) { return std::clamp(i < 0 ? i + n : i, int64_t(0), n); };
    int64_t b = clamp(start), e = stop ? clamp(*stop) : n;
    T out;
    for (int64_t i = b; i < e; i += step) out.push_back(std::move(x[size_t(i)]));
    return out;
  });
}

template <class T>
auto IterDataPipe<T>::flatten() const {
  static_assert(detail::is_vector<T>::value && detail::is_vector<typename T::value_type>::value,
                "flatten(): the elements must be std::vector<std::vector<U>>");
  return map([](T x) {
    typename T::value_type out;
    for (auto& inner : x)
      for (auto& e : inner) out.push_back(std::move(e));
    return out;
  });
}

}  // namespace ember::data::datapipes
