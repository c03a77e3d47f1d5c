// TORCH_ARG(T, name): an option with a chainable setter, name(value) returning *this, and a
// getter, name(), over the member name_ (LibTorch's macro, for options and state structs).
// The member is private after it; what follows the macro is private unless it says otherwise.
#pragma once
#include <utility>

#define TORCH_ARG(T, name)                                                   \
 public:                                                                     \
  inline auto name(const T& new_##name)->decltype(*this) {                   \
    this->name##_ = new_##name;                                              \
    return *this;                                                            \
  }                                                                          \
  inline auto name(T&& new_##name)->decltype(*this) {                        \
    this->name##_ = std::move(new_##name);                                   \
    return *this;                                                            \
  }                                                                          \
  inline const T& name() const noexcept { return this->name##_; }           \
  inline T& name() noexcept { return this->name##_; }                        \
                                                                             \
 private:                                                                    \
  T name##_
