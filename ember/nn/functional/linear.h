// The linear functionals (LibTorch's torch/nn/functional/linear.h): F::linear and F::bilinear.
#pragma once
#include "ember/core/tensor.h"

namespace ember::nn {

namespace functional {
// input @ weight^T + bias (bias optional), for any number of leading dims.
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {});
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const Tensor& bias = {});
}  // namespace functional

}  // namespace ember::nn
