#include "ember/nn/modules/padding.h"

#include <ostream>
#include <type_traits>

namespace ember::nn {

template <size_t D, class Derived, class Options, PadMode M>
Tensor PadImplBase<D, Derived, Options, M>::forward(const Tensor& input) {
  double value = 0;
  if constexpr (requires(const Options& o) { o.value(); }) value = options.value();
  return pad_nd(input, options.padding(), M, value);
}
template <size_t D, class Derived, class Options, PadMode M>
void PadImplBase<D, Derived, Options, M>::pretty_print(std::ostream& s) const {
  static const char* const kinds[] = {"ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"};
  if constexpr (std::is_same_v<Options, ZeroPad2dOptions>) s << "torch::nn::ZeroPad2d";
  else s << "torch::nn::" << kinds[int(M)] << D << "d";
  s << "(padding=" << IntArrayRef(options.padding());
  if constexpr (requires(const Options& o) { o.value(); }) s << ", value=" << options.value();
  s << ")";
}
template class PadImplBase<1, ReflectionPad1dImpl, ReflectionPadOptions<1>, PadMode::Reflect>;
template class PadImplBase<2, ReflectionPad2dImpl, ReflectionPadOptions<2>, PadMode::Reflect>;
template class PadImplBase<3, ReflectionPad3dImpl, ReflectionPadOptions<3>, PadMode::Reflect>;
template class PadImplBase<1, ReplicationPad1dImpl, ReplicationPadOptions<1>, PadMode::Replicate>;
template class PadImplBase<2, ReplicationPad2dImpl, ReplicationPadOptions<2>, PadMode::Replicate>;
template class PadImplBase<3, ReplicationPad3dImpl, ReplicationPadOptions<3>, PadMode::Replicate>;
template class PadImplBase<2, ZeroPad2dImpl, ZeroPad2dOptions, PadMode::Constant>;
template class PadImplBase<1, ConstantPad1dImpl, ConstantPadOptions<1>, PadMode::Constant>;
template class PadImplBase<2, ConstantPad2dImpl, ConstantPadOptions<2>, PadMode::Constant>;
template class PadImplBase<3, ConstantPad3dImpl, ConstantPadOptions<3>, PadMode::Constant>;

}  // namespace ember::nn
