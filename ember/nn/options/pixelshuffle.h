// Options of pixel_shuffle / pixel_unshuffle (LibTorch's torch/nn/options/pixelshuffle.h),
// for F:: and the modules of ember/nn/modules/pixelshuffle.h.
#pragma once
#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  TORCH_ARG(int64_t, upscale_factor);
};
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT
  TORCH_ARG(int64_t, downscale_factor);
};
namespace functional {
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
}  // namespace functional

}  // namespace ember::nn
