// pixel_shuffle / pixel_unshuffle (LibTorch's torch/nn/functional/pixelshuffle.h): a reshape and
// a permute. Options: ember/nn/options/pixelshuffle.h.
#pragma once
#include "ember/core/tensor.h"
#include "ember/nn/options/pixelshuffle.h"

namespace ember::nn {

namespace functional {

Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
inline Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& o) {
  return pixel_shuffle(input, o.upscale_factor());
}
inline Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& o) {
  return pixel_unshuffle(input, o.downscale_factor());
}
}  // namespace functional

}  // namespace ember::nn
