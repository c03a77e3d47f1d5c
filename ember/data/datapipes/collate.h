// Default collation (TorchData's `collate`, PyTorch's default_collate) for C++ element
// types: a batch `std::vector<T>` becomes
//   Tensor                      -> stack along a new dim 0 (shapes must agree)
//   bool / integers / floating  -> a 1-d tensor (Bool / Long / Double, as PyTorch)
//   std::string                 -> the vector of strings, unchanged
//   std::pair / std::tuple      -> a tuple of the collated fields
//   std::vector<U> (sequences)  -> per position, the collated U's (lengths must agree)
//   std::map<std::string, U>    -> per key, the collated U's (keys must agree)
// and any other type stays a std::vector<T>. Specialize `Collated<T>` for your own types.
#pragma once
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember::data::datapipes {

template <class T>
struct Collated {
  using type = std::vector<T>;
  static type collate(std::vector<T>&& batch) { return std::move(batch); }
};

namespace detail {
Tensor collate_tensors(const std::vector<Tensor>& batch);
Tensor collate_bools(const std::vector<bool>& batch);
Tensor collate_int64(const std::vector<int64_t>& batch);
Tensor collate_double(const std::vector<double>& batch);
[[noreturn]] void collate_mismatch(const char* what, size_t first, size_t other, size_t index);
}  // namespace detail

template <>
struct Collated<Tensor> {
  using type = Tensor;
  static type collate(std::vector<Tensor>&& batch) { return detail::collate_tensors(batch); }
};

template <class T>
  requires std::is_arithmetic_v<T>
struct Collated<T> {
  using type = Tensor;
  static type collate(std::vector<T>&& batch) {
    if constexpr (std::is_same_v<T, bool>) {
      return detail::collate_bools(batch);
    } else if constexpr (std::is_integral_v<T>) {
      return detail::collate_int64(std::vector<int64_t>(batch.begin(), batch.end()));
    } else {
      return detail::collate_double(std::vector<double>(batch.begin(), batch.end()));
    }
  }
};

template <>
struct Collated<std::string> {
  using type = std::vector<std::string>;
  static type collate(std::vector<std::string>&& batch) { return std::move(batch); }
};

template <class... Ts>
struct Collated<std::tuple<Ts...>> {
  using type = std::tuple<typename Collated<Ts>::type...>;
  static type collate(std::vector<std::tuple<Ts...>>&& batch) {
    return collate_impl(batch, std::index_sequence_for<Ts...>{});
  }
  template <size_t... I>
  static type collate_impl(std::vector<std::tuple<Ts...>>& batch, std::index_sequence<I...>) {
    return type{field<I>(batch)...};
  }
  template <size_t I>
  static auto field(std::vector<std::tuple<Ts...>>& batch) {
    using U = std::tuple_element_t<I, std::tuple<Ts...>>;
    std::vector<U> column;
    column.reserve(batch.size());
    for (auto& e : batch) column.push_back(std::move(std::get<I>(e)));
    return Collated<U>::collate(std::move(column));
  }
};

template <class A, class B>
struct Collated<std::pair<A, B>> {
  using type = std::tuple<typename Collated<A>::type, typename Collated<B>::type>;
  static type collate(std::vector<std::pair<A, B>>&& batch) {
    std::vector<A> a;
    std::vector<B> b;
    a.reserve(batch.size());
    b.reserve(batch.size());
    for (auto& e : batch) {
      a.push_back(std::move(e.first));
      b.push_back(std::move(e.second));
    }
    return type{Collated<A>::collate(std::move(a)), Collated<B>::collate(std::move(b))};
  }
};

template <class U>
struct Collated<std::vector<U>> {
  using type = std::vector<typename Collated<U>::type>;
  static type collate(std::vector<std::vector<U>>&& batch) {
    type out;
    if (batch.empty()) return out;
    size_t n = batch[0].size();
    for (size_t i = 1; i < batch.size(); ++i)
      if (batch[i].size() != n) detail::collate_mismatch("sequence length", n, batch[i].size(), i);
    for (size_t j = 0; j < n; ++j) {
      std::vector<U> column;
      column.reserve(batch.size());
      for (auto& e : batch) column.push_back(std::move(e[j]));
      out.push_back(Collated<U>::collate(std::move(column)));
    }
    return out;
  }
};

template <class U>
struct Collated<std::map<std::string, U>> {
  using type = std::map<std::string, typename Collated<U>::type>;
  static type collate(std::vector<std::map<std::string, U>>&& batch) {
    type out;
    if (batch.empty()) return out;
    for (size_t i = 1; i < batch.size(); ++i) {
      bool same = batch[i].size() == batch[0].size();
      for (auto a = batch[0].begin(), b = batch[i].begin(); same && a != batch[0].end(); ++a, ++b)
        same = a->first == b->first;
      EMBER_CHECK(same, "collate: element ", i, " of the batch has different keys than element 0");
    }
    for (auto& [key, _] : batch[0]) {
      std::vector<U> column;
      column.reserve(batch.size());
      for (auto& e : batch) column.push_back(std::move(e.find(key)->second));
      out.emplace(key, Collated<U>::collate(std::move(column)));
    }
    return out;
  }
};

// default_collate(batch): the function `collate()` applies.
template <class T>
typename Collated<T>::type default_collate(std::vector<T> batch) {
  return Collated<T>::collate(std::move(batch));
}

}  // namespace ember::data::datapipes
