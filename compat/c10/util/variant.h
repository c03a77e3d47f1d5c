// LibTorch compatibility: c10::variant and its functions are std::'s (as from LibTorch 2.1 on).
#pragma once
#include <variant>

#include "c10/ember_namespaces.h"

namespace c10 {
using std::get;
using std::get_if;
using std::holds_alternative;
using std::monostate;
using std::variant;
using std::visit;
}  // namespace c10
