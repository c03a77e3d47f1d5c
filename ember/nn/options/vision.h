// Options of F::grid_sample (LibTorch's torch/nn/options/vision.h).
#pragma once
#include <optional>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

// GridSampleMode, GridSamplePaddingMode and LibTorch's constants for them (torch::kBilinear,
// torch::kBorder, ...): ember/nn/enum.h.

namespace functional {
struct GridSampleFuncOptions {
  TORCH_ARG(GridSampleMode, mode) = GridSampleMode::Bilinear;
  TORCH_ARG(GridSamplePaddingMode, padding_mode) = GridSamplePaddingMode::Zeros;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
};
}  // namespace functional

}  // namespace ember::nn
