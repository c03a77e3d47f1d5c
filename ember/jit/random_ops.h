// Fused dropout's ops (Note [Fused dropout] in kernel_spec.h; internal to ember::jit: the fuser
// puts them in place of traced dropout nodes).
#pragma once
#include "ember/core/tensor.h"

namespace ember::jit {

// A 0-dim Long tensor: 64 bits drawn from the default CPU generator.
EMBER_API Tensor dropout_seed();
// x with element i zeroed unless dropout_bits(seed, i) keeps it (probability 1 - p), the kept
// ones scaled by 1 / (1 - p); differentiable (both derivatives apply the same mask). CPU only.
EMBER_API Tensor fused_dropout(const Tensor& x, const Tensor& seed, double p);

}  // namespace ember::jit
