// Map-style DataPipes (TorchData's MapDataPipe): random access by key, no epoch state.
// `MapDataPipe<T>` is indexed 0..size()-1; `to_map_datapipe` makes pipes keyed by anything
// hashable and ordered. Map pipes are read concurrently by loader workers, so their nodes
// are safe to `get` from several threads (user functions must be too, as for LibTorch's
// datasets).
#pragma once
#include <mutex>
#include <unordered_map>

#include "ember/data/datapipes/ops.h"

namespace ember::data::datapipes {

template <class T, class K>
class MapDataPipe {
 public:
  using element_type = T;
  using key_type = K;
  MapDataPipe() = default;
  explicit MapDataPipe(std::shared_ptr<MapNode<T, K>> node) : node_(std::move(node)) {
    EMBER_CHECK(node_, "MapDataPipe: null node");
  }
  template <class N, std::enable_if_t<std::is_base_of_v<MapNode<T, K>, N>, int> = 0>
  MapDataPipe(std::shared_ptr<N> node) : MapDataPipe(std::shared_ptr<MapNode<T, K>>(std::move(node))) {}  // NOLINT

  const std::shared_ptr<MapNode<T, K>>& node() const { return node_; }
  T operator[](const K& key) const { return node_->get(key); }
  T get(const K& key) const { return node_->get(key); }
  int64_t size() const { return node_->size(); }
  std::vector<K> keys() const { return node_->keys(); }

  template <class F> auto map(F fn) const;
  MapDataPipe<std::vector<T>, int64_t> batch(int64_t batch_size, bool drop_last = false) const;
  template <class... P> MapDataPipe<T, int64_t> concat(const P&... others) const;
  template <class... U> MapDataPipe<std::tuple<T, U...>, int64_t> zip(const MapDataPipe<U, int64_t>&... others) const;
  // Iterates the elements in a random order (a new permutation every epoch).
  IterDataPipe<T> shuffle() const;
  // Iterates the elements in key order.
  IterDataPipe<T> to_iter_datapipe() const;

 private:
  std::shared_ptr<MapNode<T, K>> node_;
};

namespace detail {
[[noreturn]] void map_index_error(const char* pipe, int64_t index, int64_t size);
inline void check_index(const char* pipe, int64_t i, int64_t n) {
  if (i < 0 || i >= n) map_index_error(pipe, i, n);
}
}  // namespace detail

template <class T>
class SequenceWrapperNode final : public NodeImpl<SequenceWrapperNode<T>, MapNode<T, int64_t>> {
 public:
  explicit SequenceWrapperNode(std::vector<T> data) : data_(std::make_shared<const std::vector<T>>(std::move(data))) {}
  const char* name() const override { return "SequenceWrapper"; }
  T get(const int64_t& i) override {
    detail::check_index(name(), i, size());
    return (*data_)[size_t(i)];
  }
  int64_t size() const override { return int64_t(data_->size()); }

 private:
  std::shared_ptr<const std::vector<T>> data_;
};

// SequenceWrapper(values): a map-style pipe over a copy of `values`.
template <class T>
MapDataPipe<T> SequenceWrapper(std::vector<T> values) {
  return MapDataPipe<T>(std::make_shared<SequenceWrapperNode<T>>(std::move(values)));
}

template <class T, class K, class U, class F>
class MapMapperNode final : public NodeImpl<MapMapperNode<T, K, U, F>, MapNode<U, K>> {
 public:
  MapMapperNode(std::shared_ptr<MapNode<T, K>> src, F fn) : src_(std::move(src)), fn_(std::move(fn)) {}
  const char* name() const override { return "MapMapper"; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  U get(const K& k) override { return fn_(src_->get(k)); }
  int64_t size() const override { return src_->size(); }
  std::vector<K> keys() const override { return src_->keys(); }

 private:
  std::shared_ptr<MapNode<T, K>> src_;
  F fn_;
};

template <class T>
class MapBatcherNode final : public NodeImpl<MapBatcherNode<T>, MapNode<std::vector<T>, int64_t>> {
 public:
  MapBatcherNode(std::shared_ptr<MapNode<T, int64_t>> src, int64_t batch_size, bool drop_last)
      : src_(std::move(src)), batch_size_(batch_size), drop_last_(drop_last) {
    detail::check_positive("batch", "batch_size", batch_size);
  }
  const char* name() const override { return "MapBatcher"; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  std::vector<T> get(const int64_t& i) override {
    detail::check_index(name(), i, size());
    std::vector<T> out;
    int64_t end = std::min(src_->size(), (i + 1) * batch_size_);
    for (int64_t j = i * batch_size_; j < end; ++j) out.push_back(src_->get(j));
    return out;
  }
  int64_t size() const override {
    int64_t n = src_->size();
    return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
  }

 private:
  std::shared_ptr<MapNode<T, int64_t>> src_;
  int64_t batch_size_;
  bool drop_last_;
};

template <class T>
class MapConcaterNode final : public NodeImpl<MapConcaterNode<T>, MapNode<T, int64_t>> {
 public:
  explicit MapConcaterNode(std::vector<std::shared_ptr<MapNode<T, int64_t>>> srcs) : srcs_(std::move(srcs)) {}
  const char* name() const override { return "MapConcater"; }
  std::vector<NodeBase*> children() const override {
    std::vector<NodeBase*> c;
    for (auto& s : srcs_) c.push_back(s.get());
    return c;
  }
  void rebind(CloneContext& ctx) {
    for (auto& s : srcs_) s = ctx.clone(s);
  }
  T get(const int64_t& i) override {
    detail::check_index(name(), i, size());
    int64_t j = i;
    for (auto& s : srcs_) {
      if (j < s->size()) return s->get(j);
      j -= s->size();
    }
    detail::map_index_error(name(), i, size());
  }
  int64_t size() const override {
    int64_t n = 0;
    for (auto& s : srcs_) n += s->size();
    return n;
  }

 private:
  std::vector<std::shared_ptr<MapNode<T, int64_t>>> srcs_;
};

template <class... Ts>
class MapZipperNode final : public NodeImpl<MapZipperNode<Ts...>, MapNode<std::tuple<Ts...>, int64_t>> {
 public:
  explicit MapZipperNode(std::shared_ptr<MapNode<Ts, int64_t>>... srcs) : srcs_(std::move(srcs)...) {}
  const char* name() const override { return "MapZipper"; }
  std::vector<NodeBase*> children() const override {
    return std::apply([](auto&... s) { return std::vector<NodeBase*>{s.get()...}; }, srcs_);
  }
  void rebind(CloneContext& ctx) {
    std::apply([&](auto&... s) { ((s = ctx.clone(s)), ...); }, srcs_);
  }
  std::tuple<Ts...> get(const int64_t& i) override {
    detail::check_index(name(), i, size());
    return std::apply([&](auto&... s) { return std::tuple<Ts...>{s->get(i)...}; }, srcs_);
  }
  int64_t size() const override {
    return std::apply([](auto&... s) { return std::min({s->size()...}); }, srcs_);
  }

 private:
  std::tuple<std::shared_ptr<MapNode<Ts, int64_t>>...> srcs_;
};

// Iterates a map pipe in key order, or (shuffle) in a fresh random order every epoch.
template <class T, class K>
class MapToIterNode final : public IterNodeImpl<MapToIterNode<T, K>, T> {
 public:
  MapToIterNode(std::shared_ptr<MapNode<T, K>> src, bool shuffled)
      : IterNodeImpl<MapToIterNode, T>(shuffled), src_(std::move(src)), shuffled_(shuffled) {}
  const char* name() const override { return shuffled_ ? "MapShuffler" : "MapToIterConverter"; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  void reset() override {
    keys_ = src_->keys();
    pos_ = 0;
    if (shuffled_) {
      std::mt19937_64 rng(this->begin_epoch_seed());
      for (size_t i = keys_.size(); i > 1; --i) std::swap(keys_[i - 1], keys_[size_t(rng() % i)]);
    }
  }
  std::optional<T> next() override {
    if (pos_ >= keys_.size()) return std::nullopt;
    return src_->get(keys_[pos_++]);
  }

 private:
  std::shared_ptr<MapNode<T, K>> src_;
  bool shuffled_;
  std::vector<K> keys_;
  size_t pos_ = 0;
};

// to_map_datapipe(): reads the whole input on first access into a key -> value table.
template <class T, class K, class V, class F>
class IterToMapNode final : public NodeImpl<IterToMapNode<T, K, V, F>, MapNode<V, K>> {
 public:
  IterToMapNode(std::shared_ptr<IterNode<T>> src, F fn) : src_(std::move(src)), fn_(std::move(fn)) {}
  IterToMapNode(const IterToMapNode& o) : NodeImpl<IterToMapNode, MapNode<V, K>>(o), src_(o.src_), fn_(o.fn_) {}
  const char* name() const override { return "IterToMapConverter"; }
  std::vector<NodeBase*> children() const override { return {src_.get()}; }
  void rebind(CloneContext& ctx) { src_ = ctx.clone(src_); }
  V get(const K& k) override {
    load();
    auto it = table_.find(k);
    EMBER_CHECK(it != table_.end(), "IterToMapConverter: key not found (", table_.size(), " keys)");
    return values_[it->second];
  }
  int64_t size() const override {
    const_cast<IterToMapNode*>(this)->load();
    return int64_t(values_.size());
  }
  std::vector<K> keys() const override {
    const_cast<IterToMapNode*>(this)->load();
    return keys_;
  }

 private:
  void load() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (loaded_) return;
    // Built aside and kept only when complete: a failure part-way leaves nothing behind.
    std::unordered_map<K, size_t> table;
    std::vector<K> keys;
    std::vector<V> values;
    start_epoch(*src_);
    while (auto x = src_->next()) {
      auto kv = fn_(std::move(*x));
      auto [it, fresh] = table.emplace(std::move(kv.first), values.size());
      EMBER_CHECK(fresh, "to_map_datapipe: key_value_fn returned the same key for elements ", it->second, " and ",
                  values.size(), " (keys must be unique)");
      keys.push_back(it->first);
      values.push_back(std::move(kv.second));
    }
    table_ = std::move(table), keys_ = std::move(keys), values_ = std::move(values);
    loaded_ = true;
  }
  std::shared_ptr<IterNode<T>> src_;
  F fn_;
  std::mutex mutex_;
  bool loaded_ = false;
  std::unordered_map<K, size_t> table_;
  std::vector<K> keys_;
  std::vector<V> values_;
};

template <class T, class K>
template <class F>
auto MapDataPipe<T, K>::map(F fn) const {
  using U = std::decay_t<std::invoke_result_t<F&, T&&>>;
  return MapDataPipe<U, K>(std::make_shared<MapMapperNode<T, K, U, F>>(node_, std::move(fn)));
}

template <class T, class K>
MapDataPipe<std::vector<T>, int64_t> MapDataPipe<T, K>::batch(int64_t batch_size, bool drop_last) const {
  static_assert(std::is_same_v<K, int64_t>, "batch(): needs an index-keyed MapDataPipe");
  return MapDataPipe<std::vector<T>, int64_t>(std::make_shared<MapBatcherNode<T>>(node_, batch_size, drop_last));
}

template <class T, class K>
template <class... P>
MapDataPipe<T, int64_t> MapDataPipe<T, K>::concat(const P&... others) const {
  static_assert(std::is_same_v<K, int64_t> && (std::is_same_v<P, MapDataPipe<T, int64_t>> && ...),
                "concat(): needs index-keyed MapDataPipes of one element type");
  return MapDataPipe<T, int64_t>(
      std::make_shared<MapConcaterNode<T>>(std::vector<std::shared_ptr<MapNode<T, int64_t>>>{node_, others.node()...}));
}

template <class T, class K>
template <class... U>
MapDataPipe<std::tuple<T, U...>, int64_t> MapDataPipe<T, K>::zip(const MapDataPipe<U, int64_t>&... others) const {
  static_assert(std::is_same_v<K, int64_t>, "zip(): needs index-keyed MapDataPipes");
  return MapDataPipe<std::tuple<T, U...>, int64_t>(std::make_shared<MapZipperNode<T, U...>>(node_, others.node()...));
}

template <class T, class K>
IterDataPipe<T> MapDataPipe<T, K>::shuffle() const {
  return IterDataPipe<T>(std::make_shared<MapToIterNode<T, K>>(node_, true));
}

template <class T, class K>
IterDataPipe<T> MapDataPipe<T, K>::to_iter_datapipe() const {
  return IterDataPipe<T>(std::make_shared<MapToIterNode<T, K>>(node_, false));
}

template <class T>
template <class KVFn>
auto IterDataPipe<T>::to_map_datapipe(KVFn key_value_fn) const {
  using KV = std::decay_t<std::invoke_result_t<KVFn&, T&&>>;
  using K = std::decay_t<typename KV::first_type>;
  using V = std::decay_t<typename KV::second_type>;
  return MapDataPipe<V, K>(std::make_shared<IterToMapNode<T, K, V, KVFn>>(node_, std::move(key_value_fn)));
}

}  // namespace ember::data::datapipes
