// LibTorch compatibility: torch/csrc/utils/variadic.h, the frontend's helpers over argument
// packs: at::IterArgs (a visitor applied to each argument), count_tensors/count_variables
// the all_of/any_of/enable_if_t traits and apply(). (Its C++11 index_sequence shims are not offered.)
#pragma once
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

#include "c10/ember_namespaces.h"

namespace at {
// CRTP: F::operator()(arg) is called on each argument in turn until F::short_circuit().
template <typename F>
struct IterArgs {
  template <typename... Args>
  F& apply() {
    return self();
  }
  template <typename T, typename... Args>
  F& apply(T&& arg, Args&&... args) {
    self()(std::forward<T>(arg));
    if (self().short_circuit()) return self();
    return apply(std::forward<Args>(args)...);
  }
  bool short_circuit() const { return false; }

 private:
  F& self() { return *static_cast<F*>(this); }
};
}  // namespace at

namespace torch {
using at::IterArgs;

struct CountTensors : IterArgs<CountTensors> {
  size_t out = 0;
  void operator()(const ::ember::Tensor&) { out += 1; }
  void operator()(const std::optional<::ember::Tensor>& x) { out += x.has_value(); }
  void operator()(::ember::ArrayRef<::ember::Tensor> xs) { out += xs.size(); }
};
template <typename... Args>
size_t count_tensors(Args&&... args) {
  return CountTensors().apply(std::forward<Args>(args)...).out;
}
// Variables are Tensors in ember, as in LibTorch since 1.0.
struct CountVariables : IterArgs<CountVariables> {
  size_t out = 0;
  void operator()(const ::ember::Tensor&) { out += 1; }
  void operator()(::ember::ArrayRef<::ember::Tensor> xs) { out += xs.size(); }
};
template <typename... Args>
size_t count_variables(Args&&... args) {
  return CountVariables().apply(std::forward<Args>(args)...).out;
}

template <bool value, typename T = void>
using enable_if_t = std::enable_if_t<value, T>;
template <bool value, typename T = void>
using disable_if_t = std::enable_if_t<!value, T>;
template <typename T>
using decay_t = std::decay_t<T>;

template <bool... values>
struct all_of : std::bool_constant<(values && ...)> {};
template <bool... values>
struct any_of : std::bool_constant<(values || ...)> {};
template <bool... values>
struct none_of : std::bool_constant<!(values || ...)> {};
template <bool... values>
using enable_if_all_of_t = std::enable_if_t<all_of<values...>::value>;
template <typename T, typename... Ts>
using disable_if_contains_t = enable_if_all_of_t<(!std::is_same_v<T, std::decay_t<Ts>>)...>;

// Calls function(t) for each argument, in order.
template <typename Function, typename... Ts>
void apply(Function function, Ts&&... ts) {
  (function(std::forward<Ts>(ts)), ...);
}
}  // namespace torch
