// Internal: how an out= variant built on its functional op writes the result (index_ops.cpp).
#pragma once
#include "ember/core/tensor.h"

namespace ember {

// Writes `result` into `out` (resized when its shape differs); the result must be castable to
// out's dtype without a lossy category change and be on out's device, PyTorch's out= rule.
Tensor& write_out(Tensor& out, const Tensor& result, const char* op);

}  // namespace ember
