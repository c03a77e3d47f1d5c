// The padding modules (LibTorch's torch/nn/modules/padding.h): ReflectionPad1d/2d/3d,
// ReplicationPad1d/2d/3d, ZeroPad2d and ConstantPad1d/2d/3d, each one fixed-mode pad_nd
// (ember/nn/functional/padding.h). Options: ember/nn/options/padding.h.
#pragma once
#include "ember/nn/functional/padding.h"
#include "ember/nn/module.h"
#include "ember/nn/options/padding.h"

namespace ember::nn {

// ---- padding modules ------------------------------------------------------------------
// One module template for every fixed-mode padding: Options carries padding (and value).
template <size_t D, class Derived, class Options, PadMode M>
class PadImplBase : public Cloneable<Derived> {
 public:
  explicit PadImplBase(const Options& options) : options(options) { reset(); }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Options options;
};

#define EMBER_PAD_MODULE(Name, D, Options, Mode, ...)                                                   \
  class Name##Impl : public PadImplBase<D, Name##Impl, Options, PadMode::Mode> {                        \
   public:                                                                                              \
    using PadImplBase<D, Name##Impl, Options, PadMode::Mode>::PadImplBase;                              \
    __VA_ARGS__                                                                                         \
  };                                                                                                    \
  TORCH_MODULE(Name)
#define EMBER_PAD_ARRAY_CTOR(Name, D, Options) \
  explicit Name##Impl(ExpandingArray<D * 2> padding) : Name##Impl(Options(std::move(padding))) {}
EMBER_PAD_MODULE(ReflectionPad1d, 1, ReflectionPadOptions<1>, Reflect, EMBER_PAD_ARRAY_CTOR(ReflectionPad1d, 1, ReflectionPadOptions<1>));
EMBER_PAD_MODULE(ReflectionPad2d, 2, ReflectionPadOptions<2>, Reflect, EMBER_PAD_ARRAY_CTOR(ReflectionPad2d, 2, ReflectionPadOptions<2>));
EMBER_PAD_MODULE(ReflectionPad3d, 3, ReflectionPadOptions<3>, Reflect, EMBER_PAD_ARRAY_CTOR(ReflectionPad3d, 3, ReflectionPadOptions<3>));
EMBER_PAD_MODULE(ReplicationPad1d, 1, ReplicationPadOptions<1>, Replicate, EMBER_PAD_ARRAY_CTOR(ReplicationPad1d, 1, ReplicationPadOptions<1>));
EMBER_PAD_MODULE(ReplicationPad2d, 2, ReplicationPadOptions<2>, Replicate, EMBER_PAD_ARRAY_CTOR(ReplicationPad2d, 2, ReplicationPadOptions<2>));
EMBER_PAD_MODULE(ReplicationPad3d, 3, ReplicationPadOptions<3>, Replicate, EMBER_PAD_ARRAY_CTOR(ReplicationPad3d, 3, ReplicationPadOptions<3>));
EMBER_PAD_MODULE(ZeroPad2d, 2, ZeroPad2dOptions, Constant, EMBER_PAD_ARRAY_CTOR(ZeroPad2d, 2, ZeroPad2dOptions));
#define EMBER_CONSTANT_PAD_CTOR(Name, D) \
  Name##Impl(ExpandingArray<D * 2> padding, double value) : Name##Impl(ConstantPadOptions<D>(std::move(padding), value)) {}
EMBER_PAD_MODULE(ConstantPad1d, 1, ConstantPadOptions<1>, Constant, EMBER_CONSTANT_PAD_CTOR(ConstantPad1d, 1));
EMBER_PAD_MODULE(ConstantPad2d, 2, ConstantPadOptions<2>, Constant, EMBER_CONSTANT_PAD_CTOR(ConstantPad2d, 2));
EMBER_PAD_MODULE(ConstantPad3d, 3, ConstantPadOptions<3>, Constant, EMBER_CONSTANT_PAD_CTOR(ConstantPad3d, 3));
#undef EMBER_CONSTANT_PAD_CTOR
#undef EMBER_PAD_ARRAY_CTOR
#undef EMBER_PAD_MODULE

}  // namespace ember::nn
