// Ops the fuser puts in place of others (internal to ember::jit): fused dropout's (Note [Fused
// dropout] in kernel_spec.h) and softmax's shift (Note [Row reductions] in fuser.cpp).
#pragma once
#include "ember/core/tensor.h"

namespace ember::jit {

// A 0-dim Long tensor: 64 bits drawn from the default CPU generator.
EMBER_API Tensor dropout_seed();
// x with element i zeroed unless dropout_bits(seed, i) keeps it (probability 1 - p), the kept
// ones scaled by 1 / (1 - p); differentiable (both derivatives apply the same mask). CPU only.
EMBER_API Tensor fused_dropout(const Tensor& x, const Tensor& seed, double p);
// The maximum over the last dimension, kept, as a constant of differentiation (softmax and
// log_softmax are invariant to it: its gradient is exactly zero).
EMBER_API Tensor softmax_shift(const Tensor& x);

}  // namespace ember::jit
