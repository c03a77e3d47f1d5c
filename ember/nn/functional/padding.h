// Padding (LibTorch's torch/nn/functional/padding.h) with PyTorch 1.13's semantics: F::pad and
// ATen's pad_nd, constant, reflect, replicate or circular. Non-constant padding runs on the
// separable CPU kernel of ember/nn/resample.h. Options: ember/nn/options/padding.h.
#pragma once
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "ember/nn/options/padding.h"

namespace ember {

// LibTorch's enumtype::get_enum_name spelling: "kReflect", ...
const char* mode_name(PadMode mode);

// torch.nn.functional.pad: pad = (last-dim left, last-dim right, 2nd-last left, ...).
// Non-constant modes pad 1-3 trailing dims of a (batch, channel, *) or (channel, *) input
// (circular: batched only) and keep a channels-last input channels-last.
Tensor pad_nd(const Tensor& input, IntArrayRef pad, PadMode mode = PadMode::Constant, double value = 0);

}  // namespace ember

namespace ember::nn {

namespace functional {
Tensor pad(const Tensor& input, const PadFuncOptions& options);
}  // namespace functional

}  // namespace ember::nn
