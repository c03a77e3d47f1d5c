// Pooling with LibTorch's names and PyTorch 1.13's semantics: MaxPool1d/2d/3d (dilation,
// ceil_mode, indices), AvgPool1d/2d/3d (count_include_pad, divisor_override),
// AdaptiveAvgPool/AdaptiveMaxPool1d/2d/3d, LPPool1d/2d and MaxUnpool1d/2d/3d, as modules,
// as nn::functional calls taking options, and as ATen's positional ops (torch::max_pool2d).
// Unbatched inputs work as in PyTorch. float32/bfloat16 run on oneDNN with its own
// backward (ember/ops/pool_dnnl.h); other dtypes, indices and adaptive windows go through
// differentiable composites (max: a gather at the maxima, average: one matrix per dim).
#pragma once
#include <optional>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"

namespace ember {
// ATen's fractional max pooling: (values, flat indices into each plane) for one window size and
// output size, with the windows fixed by random_samples [N, C, 2 or 3].
std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples);
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples);
// ATen's positional forms. One value in kernel_size/stride/padding/dilation stands for
// every spatial dim; an empty stride means the kernel size. Indices are PyTorch's: flat
// positions in each (spatial...) plane, int64.
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size);
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);
Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size);
// output_size: the spatial sizes of the result.
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding);
}  // namespace ember

namespace ember::nn {

// LibTorch's ExpandingArrayWithOptionalElem: D output sizes, each a number or nullopt
// (keep the input's size), given as one value for every dim or as D values.
template <size_t D>
struct ExpandingArrayWithOptionalElem : std::vector<std::optional<int64_t>> {
  ExpandingArrayWithOptionalElem(int64_t v) : std::vector<std::optional<int64_t>>(D, v) {}  // NOLINT
  ExpandingArrayWithOptionalElem(std::nullopt_t) : std::vector<std::optional<int64_t>>(D) {}  // NOLINT
  ExpandingArrayWithOptionalElem(std::initializer_list<std::optional<int64_t>> l)
      : ExpandingArrayWithOptionalElem(std::vector<std::optional<int64_t>>(l)) {}
  ExpandingArrayWithOptionalElem(std::vector<std::optional<int64_t>> v)  // NOLINT
      : std::vector<std::optional<int64_t>>(std::move(v)) {
    if (size() == 1 && D > 1) assign(D, front());
    EMBER_CHECK(size() == D, "expected ", D, " output sizes (or one for every dimension), got ", size());
  }
  ExpandingArrayWithOptionalElem(const std::vector<int64_t>& v)  // NOLINT
      : ExpandingArrayWithOptionalElem(std::vector<std::optional<int64_t>>(v.begin(), v.end())) {}
};

template <size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);  // the kernel size unless set
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;
using Pool2dOptions = MaxPool2dOptions;  // the name of the first version

template <size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);  // the kernel size unless set
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(bool, ceil_mode) = false;
  TORCH_ARG(bool, count_include_pad) = true;
  TORCH_ARG(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

template <class output_size_t>
struct AdaptiveMaxPoolOptions {
  AdaptiveMaxPoolOptions(output_size_t output_size) : output_size_(std::move(output_size)) {}  // NOLINT
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveMaxPool1dOptions = AdaptiveMaxPoolOptions<ExpandingArray<1>>;
using AdaptiveMaxPool2dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveMaxPool3dOptions = AdaptiveMaxPoolOptions<ExpandingArrayWithOptionalElem<3>>;

template <class output_size_t>
struct AdaptiveAvgPoolOptions {
  AdaptiveAvgPoolOptions(output_size_t output_size) : output_size_(std::move(output_size)) {}  // NOLINT
  TORCH_ARG(output_size_t, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptiveAvgPoolOptions<ExpandingArray<1>>;
using AdaptiveAvgPool2dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<2>>;
using AdaptiveAvgPool3dOptions = AdaptiveAvgPoolOptions<ExpandingArrayWithOptionalElem<3>>;

template <size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size)
      : norm_type_(norm_type), kernel_size_(kernel_size), stride_(kernel_size) {}
  TORCH_ARG(double, norm_type);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);  // the kernel size unless set
  TORCH_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

template <size_t D>
struct MaxUnpoolOptions {
  MaxUnpoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);  // the kernel size unless set
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
};
using MaxUnpool1dOptions = MaxUnpoolOptions<1>;
using MaxUnpool2dOptions = MaxUnpoolOptions<2>;
using MaxUnpool3dOptions = MaxUnpoolOptions<3>;

namespace functional {
using MaxPool1dFuncOptions = MaxPool1dOptions;
using MaxPool2dFuncOptions = MaxPool2dOptions;
using MaxPool3dFuncOptions = MaxPool3dOptions;
using AvgPool1dFuncOptions = AvgPool1dOptions;
using AvgPool2dFuncOptions = AvgPool2dOptions;
using AvgPool3dFuncOptions = AvgPool3dOptions;
using AdaptiveMaxPool1dFuncOptions = AdaptiveMaxPool1dOptions;
using AdaptiveMaxPool2dFuncOptions = AdaptiveMaxPool2dOptions;
using AdaptiveMaxPool3dFuncOptions = AdaptiveMaxPool3dOptions;
using AdaptiveAvgPool1dFuncOptions = AdaptiveAvgPool1dOptions;
using AdaptiveAvgPool2dFuncOptions = AdaptiveAvgPool2dOptions;
using AdaptiveAvgPool3dFuncOptions = AdaptiveAvgPool3dOptions;
using LPPool1dFuncOptions = LPPool1dOptions;
using LPPool2dFuncOptions = LPPool2dOptions;
template <size_t D>
struct MaxUnpoolFuncOptions {
  MaxUnpoolFuncOptions(ExpandingArray<D> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride);
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  // D spatial sizes (or D + 2 with batch and channels); the inverse of the pooling unless set
  TORCH_ARG(std::optional<std::vector<int64_t>>, output_size) = std::nullopt;
};
using MaxUnpool1dFuncOptions = MaxUnpoolFuncOptions<1>;
using MaxUnpool2dFuncOptions = MaxUnpoolFuncOptions<2>;
using MaxUnpool3dFuncOptions = MaxUnpoolFuncOptions<3>;

// The positional forms (F::max_pool2d(x, {2, 2}, {2, 2}), ...).
using ::ember::avg_pool1d;
using ::ember::avg_pool2d;
using ::ember::avg_pool3d;
using ::ember::max_pool1d;
using ::ember::max_pool2d;
using ::ember::max_pool3d;

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options);
}  // namespace functional

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

// Fractional max pooling (ember/nn/fractional_pool.cpp): kernel_size and either output_size or
// output_ratio; _random_samples ([N, C, D] in [0, 1)) fixes the windows, else each call draws.
template <size_t D>
struct FractionalMaxPoolOptions {
  FractionalMaxPoolOptions(ExpandingArray<D> kernel_size) : kernel_size_(std::move(kernel_size)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(std::optional<ExpandingArray<D>>, output_size) = std::nullopt;
  using ExpandingArrayDouble = std::optional<ExpandingArray<D, double>>;
  TORCH_ARG(ExpandingArrayDouble, output_ratio) = std::nullopt;
  TORCH_ARG(Tensor, _random_samples) = Tensor();
};
using FractionalMaxPool2dOptions = FractionalMaxPoolOptions<2>;
using FractionalMaxPool3dOptions = FractionalMaxPoolOptions<3>;
namespace functional {
using FractionalMaxPool2dFuncOptions = FractionalMaxPool2dOptions;
using FractionalMaxPool3dFuncOptions = FractionalMaxPool3dOptions;
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options);
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options);
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
}  // namespace functional

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
