// Upsampling (LibTorch's torch/nn/functional/upsampling.h) with PyTorch 1.13's semantics:
// F::interpolate (nearest, nearest-exact, linear, bilinear, bicubic, trilinear, area, with
// antialiasing), on the separable CPU kernel of ember/nn/resample.h. Options:
// ember/nn/options/upsampling.h.
#pragma once
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "ember/nn/options/upsampling.h"

namespace ember {

// LibTorch's enumtype::get_enum_name spelling: "kBilinear", ...
const char* mode_name(InterpolateMode mode);

}  // namespace ember

namespace ember::nn {

namespace functional {
// Size and scale_factor take one value per spatial dim, or one value for all of them.
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});
}  // namespace functional

}  // namespace ember::nn
