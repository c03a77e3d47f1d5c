// Transform DataPipes (TorchData's iter/transform): Mapper, Filter, FlatMapper, (Un)Batcher, Enumerator, IndexAdder.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/iter/detail.h"

namespace ember::data::datapipes {

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

}  // namespace ember::data::datapipes
