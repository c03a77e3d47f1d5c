// Autocast casting (Note [Autocast]): an op's policies per device type come from the autocast
// list (ember/ops/autocast_list.h). The pointwise driver applies its entry's policies;
// composite ops name themselves in EMBER_AUTOCAST below. When autocast::any_active(), the
// inputs are cast and the op runs on them with autocast suspended. Casts are ordinary
// differentiable ops, so gradients flow back to the float32 weights. As in PyTorch:
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

// The inputs cast by `policies`, each by its own device type's policy.
std::vector<Tensor> cast_inputs(AutocastPolicies policies, std::initializer_list<const Tensor*> inputs);
std::vector<Tensor> cast_inputs(AutocastPolicies policies, const std::vector<Tensor>& inputs);

}  // namespace ember::autocast

// At the top of a composite op (one without an entry that a driver runs): when autocast is
// active, casts the listed inputs (pointers) by the policies the autocast list gives `op`
// (a name in EMBER_AUTOCAST_LIST, checked at compile time) and returns `call`, which
// re-enters the op on the cast inputs `_ac[0]`, `_ac[1]`, ... with autocast suspended.
// (policies() is consteval: the lookup happens at compile time, and a missing name is an error.)
#define EMBER_AUTOCAST(op, call, ...) EMBER_AUTOCAST_WITH(::ember::autocast::policies(#op), call, __VA_ARGS__)

// The same for an op with an entry: its OpInfo's policies.
#define EMBER_AUTOCAST_ENTRY(entry, call, ...) EMBER_AUTOCAST_WITH((entry).autocast, call, __VA_ARGS__)

// The same with policies given at the call site: only for composites whose policy depends on
// their arguments (a comment at the call site says why).
#define EMBER_AUTOCAST_WITH(policies, call, ...)                                                       \
  if (EMBER_UNLIKELY(::ember::autocast::any_active())) {                                              \
    const std::vector<::ember::Tensor> _ac = ::ember::autocast::cast_inputs(policies, {__VA_ARGS__}); \
    ::ember::autocast::SuspendGuard _ac_suspend;                                                      \
    return call;                                                                                      \
  }
