// pin_memory for data loaders: the CPU tensors of a batch copied into pinned (page-locked)
// host memory, so that `.to(kCUDA, /*non_blocking=*/true)` overlaps the copy with compute.
// A batch is a Tensor, an Example<Data, Target>, an optional, vector, pair or tuple of these, or any other
// value (left as it is). Without a CUDA device pinning is skipped, with one warning, as in
// PyTorch ("no accelerator is found").
#pragma once
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/data/example.h"

namespace ember::data::detail {

// Whether pinning can happen here; warns once (per process) when pin_memory was asked for
// on a machine without a CUDA device.
bool pinning_available();
// getpid(): pinning stays in the process that asked for it (not in forked workers).
int current_pid();

template <class T> struct is_std_vector : std::false_type {};
template <class T, class A> struct is_std_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct is_example : std::false_type {};
template <class D, class T> struct is_example<Example<D, T>> : std::true_type {};
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_pair_or_tuple : std::false_type {};
template <class A, class B> struct is_pair_or_tuple<std::pair<A, B>> : std::true_type {};
template <class... T> struct is_pair_or_tuple<std::tuple<T...>> : std::true_type {};

template <class T>
void pin_in_place(T& x) {
  if constexpr (std::is_same_v<T, Tensor>) {
    if (x.defined() && x.is_cpu() && !x.is_pinned()) x = x.pin_memory();
  } else if constexpr (is_example<T>::value) {
    pin_in_place(x.data);
    if constexpr (!std::is_same_v<typename T::TargetType, example::NoTarget>) pin_in_place(x.target);
  } else if constexpr (is_optional<T>::value) {
    if (x) pin_in_place(*x);
  } else if constexpr (is_std_vector<T>::value) {
    for (auto& e : x) pin_in_place(e);
  } else if constexpr (is_pair_or_tuple<T>::value) {
    std::apply([](auto&... e) { (pin_in_place(e), ...); }, x);
  }
}

}  // namespace ember::data::detail
