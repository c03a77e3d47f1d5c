// Normalization layers with LibTorch's names and PyTorch 1.13's semantics: BatchNorm1d/2d/3d
// and InstanceNorm1d/2d/3d (running statistics, momentum or cumulative average, affine,
// track_running_stats), GroupNorm and LocalResponseNorm, with their functional forms; and
// (last below, composed as PyTorch's formulas) LayerNorm, F::layer_norm and F::normalize.
// Written with differentiable ops (both autograd modes); the normalizing pass is one
// x * scale + shift with per-channel (per-sample for group/instance) scale and shift, so the
// input's layout is kept (channels-last in, channels-last out).
#pragma once
#include <optional>
#include <vector>

#include "ember/nn/module.h"

namespace ember {
// ATen's positional forms.
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5, bool cudnn_enabled = true);
// Normalizes each (sample, channel) over its spatial dims; with use_input_stats false the
// running statistics are used instead, else they are updated (the mean over the batch).
Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool use_input_stats, double momentum, double eps,
                     bool cudnn_enabled = true);
}  // namespace ember

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
// Batch normalization over every dim but 1. In training (or without running stats) it
// uses the batch statistics and updates running_mean/var in place (unbiased variance).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false, double momentum = 0.1,
                  double eps = 1e-5);
struct BatchNormFuncOptions {
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options);

struct InstanceNormFuncOptions {
  TORCH_ARG(Tensor, running_mean);
  TORCH_ARG(Tensor, running_var);
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  TORCH_ARG(bool, use_input_stats) = true;
  TORCH_ARG(double, momentum) = 0.1;
  TORCH_ARG(double, eps) = 1e-5;
};
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  TORCH_ARG(int64_t, num_groups);
  TORCH_ARG(Tensor, weight);
  TORCH_ARG(Tensor, bias);
  TORCH_ARG(double, eps) = 1e-5;
};
using ::ember::group_norm;
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);

using LocalResponseNormFuncOptions = LocalResponseNormOptions;
// x / (k + alpha / size * (sum of x^2 over `size` neighbouring channels))^beta
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75,
                           double k = 1.);
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);
}  // namespace functional

// Parameters (weight = 1, bias = 0 when affine) and running statistics (when tracked) of a
// batch or instance norm over D spatial dims.
template <size_t D, class Derived, class Options>
class NormImplBase : public Cloneable<Derived> {
 public:
  explicit NormImplBase(const Options& options) : options(options) {}
  void reset() override;
  void reset_running_stats();
  void reset_parameters();
  Options options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};

template <size_t D, class Derived>
class BatchNormImplBase : public NormImplBase<D, Derived, BatchNormOptions> {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options);
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};

template <size_t D, class Derived>
class InstanceNormImpl : public NormImplBase<D, Derived, InstanceNormOptions> {
 public:
  explicit InstanceNormImpl(const InstanceNormOptions& options);
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
};

#define EMBER_NORM_MODULE(Name, Base, D)            \
  class Name##Impl : public Base<D, Name##Impl> {   \
   public:                                          \
    using Base<D, Name##Impl>::Base;                \
  };                                                \
  TORCH_MODULE(Name)
EMBER_NORM_MODULE(BatchNorm1d, BatchNormImplBase, 1);
EMBER_NORM_MODULE(BatchNorm2d, BatchNormImplBase, 2);
EMBER_NORM_MODULE(BatchNorm3d, BatchNormImplBase, 3);
EMBER_NORM_MODULE(InstanceNorm1d, InstanceNormImpl, 1);
EMBER_NORM_MODULE(InstanceNorm2d, InstanceNormImpl, 2);
EMBER_NORM_MODULE(InstanceNorm3d, InstanceNormImpl, 3);
#undef EMBER_NORM_MODULE

class GroupNormImpl : public Cloneable<GroupNormImpl> {
 public:
  GroupNormImpl(int64_t num_groups, int64_t num_channels) : GroupNormImpl(GroupNormOptions(num_groups, num_channels)) {}
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  GroupNormOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(GroupNorm);

class LocalResponseNormImpl : public Cloneable<LocalResponseNormImpl> {
 public:
  LocalResponseNormImpl(int64_t size) : LocalResponseNormImpl(LocalResponseNormOptions(size)) {}  // NOLINT
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LocalResponseNormOptions options;
};
TORCH_MODULE(LocalResponseNorm);

namespace functional {
struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT
      : normalized_shape_(std::move(normalized_shape)) {}
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Tensor, bias) = {};
  TORCH_ARG(double, eps) = 1e-5;
};
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

struct NormalizeFuncOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-12;
  TORCH_ARG(std::optional<Tensor>, out) = std::nullopt;  // when set, the result is written there
};
// input / max(||input||_p along dim, eps)
Tensor normalize(const Tensor& input, double p, int64_t dim = 1, double eps = 1e-12);
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});
}  // namespace functional

struct LayerNormOptions {
  LayerNormOptions(std::vector<int64_t> normalized_shape) : normalized_shape_(std::move(normalized_shape)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, normalized_shape);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(bool, elementwise_affine) = true;
};
class LayerNormImpl : public Cloneable<LayerNormImpl> {
 public:
  explicit LayerNormImpl(LayerNormOptions options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  LayerNormOptions options;
  Tensor weight, bias;
};
TORCH_MODULE(LayerNorm);

}  // namespace ember::nn
