#include "ember/nn/modules/upsampling.h"

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "ember/nn/detail/format.h"

namespace ember::nn {

using nn::detail::list;
using nn::detail::list_of;

Tensor UpsampleImpl::forward(const Tensor& input) {
  return functional::interpolate(input, functional::InterpolateFuncOptions()
                                            .size(options.size())
                                            .scale_factor(options.scale_factor())
                                            .mode(options.mode())
                                            .align_corners(options.align_corners()));
}
void UpsampleImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Upsample(";
  if (options.scale_factor()) s << "scale_factor=" << list_of(*options.scale_factor());
  else if (options.size()) s << "size=" << list(*options.size());
  s << ", mode=" << mode_name(options.mode()) << ")";
}

}  // namespace ember::nn
