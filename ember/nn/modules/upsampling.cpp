#include "ember/nn/modules/upsampling.h"

#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace ember::nn {

namespace {
// (as in ember/nn/functional/upsampling.cpp)
std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}
template <class V>
std::string list_of(const V& v) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
  return s.str() + "]";
}

}  // namespace

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
