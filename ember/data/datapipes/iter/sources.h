// Source DataPipes (TorchData's iter/load and iter/util sources): IterableWrapper.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/data/datapipes/datapipe.h"

namespace ember::data::datapipes {

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

}  // namespace ember::data::datapipes
