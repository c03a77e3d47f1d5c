// Pooling modules with LibTorch's names (torch/nn/modules/pooling.h) and PyTorch 1.13's
// semantics: MaxPool1d/2d/3d (dilation, ceil_mode, forward_with_indices), AvgPool1d/2d/3d
// (count_include_pad, divisor_override), AdaptiveAvgPool/AdaptiveMaxPool1d/2d/3d, LPPool1d/2d,
// MaxUnpool1d/2d/3d and FractionalMaxPool2d/3d. Unbatched inputs work as in PyTorch. Options:
// ember/nn/options/pooling.h; the computation: ember/nn/functional/pooling.h.
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "ember/nn/functional/pooling.h"
#include "ember/nn/module.h"
#include "ember/nn/options/pooling.h"

namespace ember::nn {

// One template per family over the spatial rank D; Derived is the 1d/2d/3d class.
template <size_t D, class Derived>
class MaxPoolImpl : public Cloneable<Derived> {
 public:
  MaxPoolImpl(ExpandingArray<D> kernel_size) : MaxPoolImpl(MaxPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit MaxPoolImpl(const MaxPoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  MaxPoolOptions<D> options;
};

template <size_t D, class Derived>
class AvgPoolImpl : public Cloneable<Derived> {
 public:
  AvgPoolImpl(ExpandingArray<D> kernel_size) : AvgPoolImpl(AvgPoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit AvgPoolImpl(const AvgPoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  AvgPoolOptions<D> options;
};

template <size_t D, class output_size_t, class Derived>
class AdaptiveMaxPoolImpl : public Cloneable<Derived> {
 public:
  AdaptiveMaxPoolImpl(output_size_t output_size)  // NOLINT
      : AdaptiveMaxPoolImpl(AdaptiveMaxPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveMaxPoolImpl(const AdaptiveMaxPoolOptions<output_size_t>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  AdaptiveMaxPoolOptions<output_size_t> options;
};

template <size_t D, class output_size_t, class Derived>
class AdaptiveAvgPoolImpl : public Cloneable<Derived> {
 public:
  AdaptiveAvgPoolImpl(output_size_t output_size)  // NOLINT
      : AdaptiveAvgPoolImpl(AdaptiveAvgPoolOptions<output_size_t>(output_size)) {}
  explicit AdaptiveAvgPoolImpl(const AdaptiveAvgPoolOptions<output_size_t>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  AdaptiveAvgPoolOptions<output_size_t> options;
};

template <size_t D, class Derived>
class LPPoolImpl : public Cloneable<Derived> {
 public:
  LPPoolImpl(double norm_type, ExpandingArray<D> kernel_size) : LPPoolImpl(LPPoolOptions<D>(norm_type, kernel_size)) {}
  explicit LPPoolImpl(const LPPoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LPPoolOptions<D> options;
};

template <size_t D, class Derived>
class MaxUnpoolImpl : public Cloneable<Derived> {
 public:
  MaxUnpoolImpl(ExpandingArray<D> kernel_size) : MaxUnpoolImpl(MaxUnpoolOptions<D>(kernel_size)) {}  // NOLINT
  explicit MaxUnpoolImpl(const MaxUnpoolOptions<D>& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& indices,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  MaxUnpoolOptions<D> options;
};

template <size_t D, class Derived>
class FractionalMaxPoolImpl : public Cloneable<Derived> {
 public:
  FractionalMaxPoolImpl(ExpandingArray<D> kernel_size)  // NOLINT
      : FractionalMaxPoolImpl(FractionalMaxPoolOptions<D>(kernel_size)) {}
  explicit FractionalMaxPoolImpl(FractionalMaxPoolOptions<D> options) : options(std::move(options)) { reset(); }
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  FractionalMaxPoolOptions<D> options;
  Tensor _random_samples;
};

#define EMBER_POOL_MODULE(Name, Base, ...)   \
  class Name##Impl : public Base<__VA_ARGS__> { \
   public:                                      \
    using Base<__VA_ARGS__>::Base;              \
  };                                            \
  TORCH_MODULE(Name)
EMBER_POOL_MODULE(MaxPool1d, MaxPoolImpl, 1, MaxPool1dImpl);
EMBER_POOL_MODULE(MaxPool2d, MaxPoolImpl, 2, MaxPool2dImpl);
EMBER_POOL_MODULE(MaxPool3d, MaxPoolImpl, 3, MaxPool3dImpl);
EMBER_POOL_MODULE(AvgPool1d, AvgPoolImpl, 1, AvgPool1dImpl);
EMBER_POOL_MODULE(AvgPool2d, AvgPoolImpl, 2, AvgPool2dImpl);
EMBER_POOL_MODULE(AvgPool3d, AvgPoolImpl, 3, AvgPool3dImpl);
EMBER_POOL_MODULE(AdaptiveMaxPool1d, AdaptiveMaxPoolImpl, 1, ExpandingArray<1>, AdaptiveMaxPool1dImpl);
EMBER_POOL_MODULE(AdaptiveMaxPool2d, AdaptiveMaxPoolImpl, 2, ExpandingArrayWithOptionalElem<2>, AdaptiveMaxPool2dImpl);
EMBER_POOL_MODULE(AdaptiveMaxPool3d, AdaptiveMaxPoolImpl, 3, ExpandingArrayWithOptionalElem<3>, AdaptiveMaxPool3dImpl);
EMBER_POOL_MODULE(AdaptiveAvgPool1d, AdaptiveAvgPoolImpl, 1, ExpandingArray<1>, AdaptiveAvgPool1dImpl);
EMBER_POOL_MODULE(AdaptiveAvgPool2d, AdaptiveAvgPoolImpl, 2, ExpandingArrayWithOptionalElem<2>, AdaptiveAvgPool2dImpl);
EMBER_POOL_MODULE(AdaptiveAvgPool3d, AdaptiveAvgPoolImpl, 3, ExpandingArrayWithOptionalElem<3>, AdaptiveAvgPool3dImpl);
EMBER_POOL_MODULE(LPPool1d, LPPoolImpl, 1, LPPool1dImpl);
EMBER_POOL_MODULE(LPPool2d, LPPoolImpl, 2, LPPool2dImpl);
EMBER_POOL_MODULE(MaxUnpool1d, MaxUnpoolImpl, 1, MaxUnpool1dImpl);
EMBER_POOL_MODULE(MaxUnpool2d, MaxUnpoolImpl, 2, MaxUnpool2dImpl);
EMBER_POOL_MODULE(MaxUnpool3d, MaxUnpoolImpl, 3, MaxUnpool3dImpl);
EMBER_POOL_MODULE(FractionalMaxPool2d, FractionalMaxPoolImpl, 2, FractionalMaxPool2dImpl);
EMBER_POOL_MODULE(FractionalMaxPool3d, FractionalMaxPoolImpl, 3, FractionalMaxPool3dImpl);
#undef EMBER_POOL_MODULE

}  // namespace ember::nn
