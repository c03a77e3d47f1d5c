// Internal: creating views. make_view shares storage and the version counter with `base`;
// the autograd layer installs a hook to record view relationships.
#pragma once
#include <optional>

#include "ember/core/tensor.h"

namespace ember {

Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::optional<ScalarType> dtype = std::nullopt);
using ViewHook = void (*)(const Tensor& base, Tensor& view);
void set_view_hook(ViewHook h);
void view_hook(const Tensor& base, Tensor& view);

}  // namespace ember
