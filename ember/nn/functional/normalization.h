// The normalization functionals (LibTorch's torch/nn/functional/normalization.h, batchnorm.h,
// instancenorm.h), with ATen's positional group_norm and instance_norm: F::batch_norm,
// F::instance_norm, F::group_norm, F::local_response_norm, and (composed as PyTorch's formulas)
// F::layer_norm and F::normalize. Written with differentiable ops (both autograd modes); the
// normalizing pass is one x * scale + shift with per-channel (per-sample for group/instance)
// scale and shift, so the input's layout is kept (channels-last in, channels-last out).
// Options: ember/nn/options/normalization.h.
#pragma once
#include <optional>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/options/normalization.h"

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

namespace functional {
// Batch normalization over every dim but 1. In training (or without running stats) it
// uses the batch statistics and updates running_mean/var in place (unbiased variance).
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = {}, const Tensor& bias = {}, bool training = false, double momentum = 0.1,
                  double eps = 1e-5);
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options);

Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {});

using ::ember::group_norm;
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options);

// x / (k + alpha / size * (sum of x^2 over `size` neighbouring channels))^beta
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75,
                           double k = 1.);
Tensor local_response_norm(const Tensor& input, const LocalResponseNormFuncOptions& options);
}  // namespace functional

namespace functional {
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5);
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options);

// input / max(||input||_p along dim, eps)
Tensor normalize(const Tensor& input, double p, int64_t dim = 1, double eps = 1e-12);
Tensor normalize(const Tensor& input, NormalizeFuncOptions options = {});
}  // namespace functional

}  // namespace ember::nn
