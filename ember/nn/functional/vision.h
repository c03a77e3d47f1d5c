// The vision functionals (LibTorch's torch/nn/functional/vision.h) with PyTorch 1.13's
// semantics: F::grid_sample and F::affine_grid. Options: ember/nn/options/vision.h.
#pragma once
#include "ember/core/tensor.h"
#include "ember/nn/options/vision.h"

namespace ember::nn {

namespace functional {
// input (N, C, H, W) with grid (N, Ho, Wo, 2), or (N, C, D, H, W) with (N, Do, Ho, Wo, 3)
// (bicubic: 4-D only); grid[..., 0] indexes the last dim.
Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options = {});
// theta (N, 2, 3) with size (N, C, H, W), or (N, 3, 4) with (N, C, D, H, W).
Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);
}  // namespace functional

}  // namespace ember::nn
