// nn::init with LibTorch's names: in-place initializers that record no gradient.
#pragma once
#include <variant>

#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn::init {

// Nonlinearity and FanMode (torch::kReLU, torch::kFanIn, ...): ember/nn/enum.h.

double calculate_gain(Nonlinearity nonlinearity, double param = 0.01);
// (fan_in, fan_out) of a weight of at least 2 dims.
std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor);

Tensor uniform_(Tensor tensor, double low = 0, double high = 1);
Tensor normal_(Tensor tensor, double mean = 0, double std = 1);
Tensor constant_(Tensor tensor, Scalar value);
Tensor zeros_(Tensor tensor);
Tensor ones_(Tensor tensor);
Tensor eye_(Tensor matrix);
Tensor dirac_(Tensor tensor);
Tensor xavier_uniform_(Tensor tensor, double gain = 1.0);
Tensor xavier_normal_(Tensor tensor, double gain = 1.0);
Tensor kaiming_uniform_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                        Nonlinearity nonlinearity = Nonlinearity::LeakyReLU);
Tensor kaiming_normal_(Tensor tensor, double a = 0, FanMode mode = FanMode::FanIn,
                       Nonlinearity nonlinearity = Nonlinearity::LeakyReLU);
Tensor orthogonal_(Tensor tensor, double gain = 1.0);
Tensor sparse_(Tensor tensor, double sparsity, double std = 0.01);
Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2);

}  // namespace ember::nn::init

