#include "ember/nn/modules/pixelshuffle.h"

#include <ostream>

namespace ember::nn {

void PixelShuffleImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}
void PixelUnshuffleImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}

}  // namespace ember::nn
