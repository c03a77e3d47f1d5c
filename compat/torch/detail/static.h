// LibTorch compatibility: torch/detail/static.h's compile-time checks on modules
// (has_forward, is_module, enable_if_module_t, check_not_lvalue_references) and the
// return_type_of_forward trait from torch/nn/pimpl-inl.h.
#pragma once
#include <type_traits>
#include <utility>

#include "c10/ember_namespaces.h"
#include "torch/csrc/utils/variadic.h"

namespace torch::detail {
using namespace ::ember::detail;  // torch::detail::TensorDataContainer and the rest stay ember's

// Whether T has a (non-overloaded, non-template) member `forward`.
template <typename T>
struct has_forward {
  template <typename U>
  static std::true_type test(decltype(&U::forward));
  template <typename U>
  static std::false_type test(...);
  static constexpr bool value = decltype(test<T>(nullptr))::value;
};

// True when no type is a reference to a non-const lvalue.
template <typename... Ts>
constexpr bool check_not_lvalue_references() {
  return ((!std::is_lvalue_reference_v<Ts> || std::is_const_v<std::remove_reference_t<Ts>>) && ...);
}

template <typename M>
using is_module = std::is_base_of<::ember::nn::Module, std::decay_t<M>>;
template <typename M, typename T = void>
using enable_if_module_t = std::enable_if_t<is_module<M>::value, T>;

template <bool has_forward_value, typename C, typename... Args>
struct return_type_of_forward_impl {
  using type = void;
};
template <typename C, typename... Args>
struct return_type_of_forward_impl<true, C, Args...> {
  using type = decltype(std::declval<C>().forward(std::declval<Args>()...));
};
template <typename C, typename... Args>
using return_type_of_forward = return_type_of_forward_impl<has_forward<C>::value, C, Args...>;
template <typename C, typename... Args>
using return_type_of_forward_t = typename return_type_of_forward<C, Args...>::type;

}  // namespace torch::detail
