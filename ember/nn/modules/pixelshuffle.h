// PixelShuffle and PixelUnshuffle (LibTorch's torch/nn/modules/pixelshuffle.h). Options:
// ember/nn/options/pixelshuffle.h; functionals: ember/nn/functional/pixelshuffle.h.
#pragma once
#include "ember/nn/functional/pixelshuffle.h"
#include "ember/nn/module.h"
#include "ember/nn/options/pixelshuffle.h"

namespace ember::nn {

class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::pixel_shuffle(input, options.upscale_factor()); }
  PixelShuffleOptions options;
};
TORCH_MODULE(PixelShuffle);
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::pixel_unshuffle(input, options.downscale_factor()); }
  PixelUnshuffleOptions options;
};
TORCH_MODULE(PixelUnshuffle);

}  // namespace ember::nn
