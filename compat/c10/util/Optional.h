// LibTorch compatibility: c10::optional is std::optional (as it is from LibTorch 2.1 on).
#pragma once
#include <optional>

#include "c10/ember_namespaces.h"

namespace c10 {
template <class T> using optional = std::optional<T>;
using std::bad_optional_access;
using std::in_place;
using std::in_place_t;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
}  // namespace c10
namespace at {
using c10::nullopt;
using c10::optional;
}  // namespace at
namespace torch {
using c10::nullopt;
using c10::optional;
}  // namespace torch
