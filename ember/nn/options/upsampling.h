// Options of upsampling (LibTorch's torch/nn/options/upsampling.h): F::interpolate's
// InterpolateFuncOptions and Upsample's UpsampleOptions (ember/nn/modules/upsampling.h).
#pragma once
#include <optional>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

// InterpolateMode and LibTorch's constants for it (torch::kBilinear, ...): ember/nn/enum.h.

namespace functional {
struct InterpolateFuncOptions {
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(InterpolateMode, mode) = InterpolateMode::Nearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
  TORCH_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  // Pillow-style antialiasing when downsampling (bilinear and bicubic, 4-D input).
  TORCH_ARG(bool, antialias) = false;

 public:
};
}  // namespace functional

struct UpsampleOptions {
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(InterpolateMode, mode) = InterpolateMode::Nearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;

 public:
};

}  // namespace ember::nn
