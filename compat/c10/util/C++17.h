// LibTorch compatibility: c10::guts, the C++17 helpers LibTorch code uses (most are std:: now).
// guts::to_string(x) is std::to_string where that exists, else what operator<< prints (a
// pointer in hexadecimal: LibTorch's optimizers key their state by
// guts::to_string(p.unsafeGetTensorImpl()), and so do ember's).
#pragma once
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "c10/ember_namespaces.h"

namespace c10::guts {

template <class F, class... Args> using invoke_result = std::invoke_result<F, Args...>;
template <class F, class... Args> using invoke_result_t = std::invoke_result_t<F, Args...>;
template <class... B> using conjunction = std::conjunction<B...>;
template <class... B> using disjunction = std::disjunction<B...>;
template <class B> using negation = std::negation<B>;
template <bool B> using bool_constant = std::bool_constant<B>;
template <class... Ts> using void_t = std::void_t<Ts...>;
template <class T> using remove_cvref_t = std::remove_cv_t<std::remove_reference_t<T>>;

// A unique_ptr<Base> holding a new Child.
template <class Base, class Child, class... Args>
std::enable_if_t<!std::is_array_v<Base> && !std::is_array_v<Child>, std::unique_ptr<Base>>
make_unique_base(Args&&... args) {
  return std::unique_ptr<Base>(new Child(std::forward<Args>(args)...));
}

template <class F, class Tuple>
constexpr decltype(auto) apply(F&& f, Tuple&& t) {
  return std::apply(std::forward<F>(f), std::forward<Tuple>(t));
}
template <class F, class... Args>
constexpr decltype(auto) invoke(F&& f, Args&&... args) {
  return std::invoke(std::forward<F>(f), std::forward<Args>(args)...);
}

namespace detail {
struct _identity final {
  template <class T>
  using type_identity = T;
  template <class T>
  decltype(auto) operator()(T&& arg) { return std::forward<T>(arg); }
};
template <class F>
decltype(auto) call_maybe_with_identity(F&& f) {
  if constexpr (std::is_invocable_v<F, _identity>) {
    return std::forward<F>(f)(_identity());
  } else {
    return std::forward<F>(f)();
  }
}
}  // namespace detail

// if_constexpr<cond>(then, else): calls one of the callbacks (each may take an identity
// argument, `[&](auto _) { return _(x).method(); }`, to delay type checking to the branch taken).
template <bool Condition, class Then, class Else>
decltype(auto) if_constexpr(Then&& then_callback, Else&& else_callback) {
  if constexpr (Condition) {
    return detail::call_maybe_with_identity(std::forward<Then>(then_callback));
  } else {
    return detail::call_maybe_with_identity(std::forward<Else>(else_callback));
  }
}
template <bool Condition, class Then>
void if_constexpr(Then&& then_callback) {
  if constexpr (Condition) detail::call_maybe_with_identity(std::forward<Then>(then_callback));
}

template <class T>
std::string to_string(const T& value) {
  if constexpr (std::is_arithmetic_v<T>) {
    return std::to_string(value);
  } else {
    std::ostringstream out;
    out << value;
    return out.str();
  }
}

template <class T>
constexpr const T& min(const T& a, const T& b) { return (b < a) ? b : a; }
template <class T>
constexpr const T& max(const T& a, const T& b) { return (a < b) ? b : a; }

}  // namespace c10::guts
