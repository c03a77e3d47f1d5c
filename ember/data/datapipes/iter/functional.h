// IterDataPipe<T>'s functional forms (map, batch, zip, ...): they build nodes of every family below.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/data/datapipes/collate.h"
#include "ember/data/datapipes/datapipe.h"
#include "ember/data/datapipes/iter/buffering.h"
#include "ember/data/datapipes/iter/combining.h"
#include "ember/data/datapipes/iter/detail.h"
#include "ember/data/detail/pin.h"
#include "ember/data/datapipes/iter/grouping.h"
#include "ember/data/datapipes/iter/sources.h"
#include "ember/data/datapipes/iter/transform.h"
#include "ember/data/datapipes/iter/util.h"

namespace ember::data::datapipes {

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
IterDataPipe<T> IterDataPipe<T>::pin_memory() const {
  if (!ember::data::detail::pinning_available()) return *this;
  // Only in the process that built the graph: a forked worker process (worker_processes)
  // may not use CUDA after fork, and its elements reach the parent through a pipe anyway.
  return map([owner = ember::data::detail::current_pid()](T x) {
    if (ember::data::detail::current_pid() == owner) ember::data::detail::pin_in_place(x);
    return x;
  });
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
