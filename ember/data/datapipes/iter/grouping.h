// Grouping DataPipes (TorchData's iter grouping): InBatchShuffler, MaxTokenBucketizer, Grouper.
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <type_traits>
#include <vector>

#include "ember/core/error.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/iter/detail.h"

namespace ember::data::datapipes {

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

}  // namespace ember::data::datapipes
