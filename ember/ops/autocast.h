// Autocast casting (Note [Autocast]): an op whose OpInfo has an autocast policy calls
// autocast_inputs first when autocast::any_active(); it then runs on the cast inputs with
// autocast suspended. Casts are ordinary differentiable ops, so gradients flow back to the
// float32 weights. As in PyTorch:
//   LowerPrecision: floating inputs other than float64 run in the device's autocast dtype
//                   (bfloat16 on CPU); float32 leaves that require grad (weights) are cast
//                   once per autocast region and cached.
//   Float32:        half/bfloat16 inputs run in float32.
//   Promote:        all floating inputs run in the widest floating dtype among them.
// Inputs on a device whose autocast is off, and non-floating inputs, are left alone.
#pragma once
#include <initializer_list>
#include <vector>

#include "ember/core/autocast_mode.h"
#include "ember/core/tensor.h"
#include "ember/ops/op_def.h"

namespace ember::autocast {

std::vector<Tensor> cast_inputs(AutocastPolicy policy, std::initializer_list<const Tensor*> inputs);
std::vector<Tensor> cast_inputs(AutocastPolicy policy, const std::vector<Tensor>& inputs);

}  // namespace ember::autocast

// At the top of an op: when autocast is active, casts the listed inputs (pointers) by
// `policy` and returns `call`, which re-enters the op on the cast inputs `_ac[0]`, `_ac[1]`,
// ... with autocast suspended.
#define EMBER_AUTOCAST(policy, call, ...)                                                 \
  if (EMBER_UNLIKELY(::ember::autocast::any_active())) {                                \
    const std::vector<::ember::Tensor> _ac = ::ember::autocast::cast_inputs(policy, {__VA_ARGS__}); \
    ::ember::autocast::SuspendGuard _ac_suspend;                                        \
    return call;                                                                        \
  }
