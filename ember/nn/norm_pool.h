// BatchNorm1d/2d (running statistics, momentum, affine, track_running_stats) and
// MaxPool2d/AvgPool2d (kernel, stride, padding, dilation for max, ceil_mode,
// count_include_pad for avg), with PyTorch's semantics. Like Conv, these first versions
// are composites of differentiable ops (strided windows); the fast oneDNN paths come next.
#pragma once
#include <optional>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

namespace functional {
// Batch normalization over every dim but 1. In training (or without running stats) it
// uses the batch statistics and updates running_mean/var in place (unbiased variance).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false, double momentum = 0.1,
                  double eps = 1e-5);
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0, 0},
                  IntArrayRef dilation = {1, 1}, bool ceil_mode = false);
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0, 0},
                  bool ceil_mode = false, bool count_include_pad = true);
}  // namespace functional

struct BatchNormOptions {
  BatchNormOptions(int64_t num_features) : num_features_(num_features) {}  // NOLINT
  TORCH_ARG(int64_t, num_features);
  TORCH_ARG(double, eps) = 1e-5;
  TORCH_ARG(std::optional<double>, momentum) = 0.1;  // nullopt: cumulative moving average
  TORCH_ARG(bool, affine) = true;
  TORCH_ARG(bool, track_running_stats) = true;
};

template <size_t D, class Derived>
class BatchNormImplBase : public Cloneable<Derived> {
 public:
  explicit BatchNormImplBase(const BatchNormOptions& options);
  void reset() override;
  void reset_running_stats();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  BatchNormOptions options;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};

class BatchNorm1dImpl : public BatchNormImplBase<1, BatchNorm1dImpl> {
 public:
  using BatchNormImplBase<1, BatchNorm1dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm1d);
class BatchNorm2dImpl : public BatchNormImplBase<2, BatchNorm2dImpl> {
 public:
  using BatchNormImplBase<2, BatchNorm2dImpl>::BatchNormImplBase;
};
TORCH_MODULE(BatchNorm2d);
extern template class BatchNormImplBase<1, BatchNorm1dImpl>;
extern template class BatchNormImplBase<2, BatchNorm2dImpl>;

struct Pool2dOptions {
  Pool2dOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size), stride_(kernel_size) {}  // NOLINT
  Pool2dOptions(int64_t kernel_size) : Pool2dOptions(ExpandingArray<2>(kernel_size)) {}               // NOLINT
  TORCH_ARG(ExpandingArray<2>, kernel_size);
  TORCH_ARG(ExpandingArray<2>, stride);  // the kernel size unless set
  TORCH_ARG(ExpandingArray<2>, padding) = 0;
  TORCH_ARG(ExpandingArray<2>, dilation) = 1;
  TORCH_ARG(bool, ceil_mode) = false;
  TORCH_ARG(bool, count_include_pad) = true;
};
using MaxPool2dOptions = Pool2dOptions;
using AvgPool2dOptions = Pool2dOptions;
class MaxPool2dImpl : public Cloneable<MaxPool2dImpl> {
 public:
  explicit MaxPool2dImpl(const Pool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Pool2dOptions options;
};
TORCH_MODULE(MaxPool2d);
class AvgPool2dImpl : public Cloneable<AvgPool2dImpl> {
 public:
  explicit AvgPool2dImpl(const Pool2dOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Pool2dOptions options;
};
TORCH_MODULE(AvgPool2d);

}  // namespace ember::nn
