// Options of the pooling layers (LibTorch's torch/nn/options/pooling.h): MaxPool, AvgPool,
// AdaptiveMaxPool, AdaptiveAvgPool, LPPool, MaxUnpool and FractionalMaxPool, 1d/2d/3d, for the
// modules of ember/nn/modules/pooling.h; most are also the functionals' FuncOptions.
#pragma once
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/nn/expanding_array.h"

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
}  // namespace functional

// Fractional max pooling (ember/nn/functional/fractional_pool.cpp): kernel_size and either
// output_size or output_ratio; _random_samples ([N, C, D] in [0, 1)) fixes the windows, else each
// call draws.
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
}  // namespace functional

}  // namespace ember::nn
