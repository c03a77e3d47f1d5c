// LibTorch compatibility: c10's integer accumulations over containers and iterator ranges
// (sum_integers, multiply_integers, numelements_from_dim/to_dim/between_dims), as int64_t.
#pragma once
#include <cstdint>
#include <functional>
#include <iterator>
#include <numeric>
#include <type_traits>

#include "c10/ember_namespaces.h"

namespace c10 {

template <class C, std::enable_if_t<std::is_integral_v<typename C::value_type>, int> = 0>
inline int64_t sum_integers(const C& container) {
  return std::accumulate(container.begin(), container.end(), static_cast<int64_t>(0));
}
template <class Iter, std::enable_if_t<std::is_integral_v<typename std::iterator_traits<Iter>::value_type>, int> = 0>
inline int64_t sum_integers(Iter begin, Iter end) {
  return std::accumulate(begin, end, static_cast<int64_t>(0));
}
template <class C, std::enable_if_t<std::is_integral_v<typename C::value_type>, int> = 0>
inline int64_t multiply_integers(const C& container) {
  return std::accumulate(container.begin(), container.end(), static_cast<int64_t>(1), std::multiplies<>());
}
template <class Iter, std::enable_if_t<std::is_integral_v<typename std::iterator_traits<Iter>::value_type>, int> = 0>
inline int64_t multiply_integers(Iter begin, Iter end) {
  return std::accumulate(begin, end, static_cast<int64_t>(1), std::multiplies<>());
}
// The product of dims [k, end), [0, k) and [k, l).
template <class C>
inline int64_t numelements_from_dim(const int k, const C& dims) {
  return k >= static_cast<int>(dims.size()) ? 1 : multiply_integers(dims.begin() + k, dims.end());
}
template <class C>
inline int64_t numelements_to_dim(const int k, const C& dims) {
  return multiply_integers(dims.begin(), dims.begin() + k);
}
template <class C>
inline int64_t numelements_between_dim(int k, int l, const C& dims) {
  if (k > l) std::swap(k, l);
  return multiply_integers(dims.begin() + k, dims.begin() + l);
}

}  // namespace c10
