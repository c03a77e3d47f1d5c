// Options of the normalization layers (LibTorch's torch/nn/options/normalization.h and
// batchnorm.h, instancenorm.h): BatchNorm, InstanceNorm, GroupNorm, LocalResponseNorm and
// LayerNorm, and the functionals' FuncOptions (modules: ember/nn/modules/normalization.h).
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;  // nullopt: cumulative moving average
  TORCH_ARG(bool, affine) = true;
  TORCH_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

struct InstanceNormOptions {
  InstanceNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(bool, affine) = false;
  TORCH_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

struct GroupNormOptions {
  GroupNormOptions(int64_t num_groups, int64_t num_channels) : num_groups_(num_groups), num_channels_(num_channels) {}
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(int64_t, num_channels);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, affine) = true;
};

struct LocalResponseNormOptions {
  LocalResponseNormOptions(int64_t size) : size_(size) {}  // NOLINT
  TORCH_ARG(int64_t, size);
  TORCH_ARG(double, alpha) = 1e-4;
  TORCH_ARG(double, beta) = 0.75;
  TORCH_ARG(double, k) = 1.;
};

namespace functional {
struct BatchNormFuncOptions {
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};

struct InstanceNormFuncOptions {
  TORCH_ARG(Tensor, running_mean);
  TORCH_ARG(Tensor, running_var);
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  TORCH_ARG(bool, use_input_stats) = true;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  TORCH_ARG(double, eps) = 1e-5;
};

using LocalResponseNormFuncOptions = LocalResponseNormOptions;
}  // namespace functional

namespace functional {
struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};

struct NormalizeFuncOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-12;
  TORCH_ARG(std::optional<Tensor>, out) = std::nullopt;  // when set, the result is written there
};
}  // namespace functional

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, elementwise_affine) = true;
};

}  // namespace ember::nn
