// Iterator<Batch>: the input iterator a DataLoader's begin() and end() return (LibTorch's
// torch::data::Iterator). begin()'s iterator fetches its first batch lazily, on the first
// dereference or comparison; it equals end() once the loader has no more batches. Copies
// of an iterator share one position.
#pragma once
#include <cstddef>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

namespace ember::data {

namespace detail {
[[noreturn]] void iterator_misuse(const char* what);
}  // namespace detail

template <typename Batch>
class Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Batch;
  using pointer = Batch*;
  using reference = Batch&;
  using iterator_category = std::input_iterator_tag;
  using BatchProducer = std::function<std::optional<Batch>()>;

  // The past-the-end iterator.
  Iterator() = default;
  // An iterator that draws batches from `next_batch` until it returns nullopt.
  explicit Iterator(BatchProducer next_batch) : state_(std::make_shared<State>(std::move(next_batch))) {}

  Iterator& operator++() {
    if (!state_) detail::iterator_misuse("incremented the DataLoader's end() iterator");
    state_->fill();
    if (!state_->batch) detail::iterator_misuse("incremented a DataLoader iterator past the end");
    state_->batch = state_->next_batch();
    return *this;
  }
  Batch& operator*() { return get(); }
  Batch* operator->() { return &get(); }

  bool operator==(const Iterator& other) const {
    if (state_ == other.state_) return true;
    if (state_ && other.state_) return false;  // two live iterators: equal only if they are one
    const State& live = state_ ? *state_ : *other.state_;
    live.fill();
    return !live.batch;  // a live iterator equals end() once exhausted
  }
  bool operator!=(const Iterator& other) const { return !(*this == other); }

 private:
  struct State {
    explicit State(BatchProducer f) : next_batch(std::move(f)) {}
    void fill() const {
      if (!started) {
        batch = next_batch();
        started = true;
      }
    }
    BatchProducer next_batch;
    mutable std::optional<Batch> batch;
    mutable bool started = false;
  };

  Batch& get() {
    if (!state_) detail::iterator_misuse("dereferenced the DataLoader's end() iterator");
    state_->fill();
    if (!state_->batch) detail::iterator_misuse("dereferenced a DataLoader iterator that is past the end");
    return *state_->batch;
  }

  std::shared_ptr<State> state_;  // null for end()
};

}  // namespace ember::data
