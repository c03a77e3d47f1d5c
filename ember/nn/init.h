// nn::init with LibTorch's names: in-place initializers that record no gradient.
#pragma once
#include <variant>

#include "ember/core/tensor.h"

namespace ember::nn::init {

// Nonlinearity names for calculate_gain / kaiming_* (LibTorch: torch::kReLU etc.).
enum class Nonlinearity { Linear, Conv1D, Conv2D, Conv3D, ConvTranspose1D, ConvTranspose2D, ConvTranspose3D,
                          Sigmoid, Tanh, ReLU, LeakyReLU, SELU };
enum class FanMode { FanIn, FanOut };

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
Tensor trunc_normal_(Tensor tensor, double mean = 0, double std = 1, double a = -2, double b = 2);

}  // namespace ember::nn::init

namespace ember {
// LibTorch spells these torch::kReLU, torch::kFanIn, ...
inline constexpr nn::init::Nonlinearity kLinear = nn::init::Nonlinearity::Linear;
inline constexpr nn::init::Nonlinearity kSigmoid = nn::init::Nonlinearity::Sigmoid;
inline constexpr nn::init::Nonlinearity kTanh = nn::init::Nonlinearity::Tanh;
inline constexpr nn::init::Nonlinearity kReLU = nn::init::Nonlinearity::ReLU;
inline constexpr nn::init::Nonlinearity kLeakyReLU = nn::init::Nonlinearity::LeakyReLU;
inline constexpr nn::init::Nonlinearity kSELU = nn::init::Nonlinearity::SELU;
inline constexpr nn::init::Nonlinearity kConv2D = nn::init::Nonlinearity::Conv2D;
inline constexpr nn::init::FanMode kFanIn = nn::init::FanMode::FanIn;
inline constexpr nn::init::FanMode kFanOut = nn::init::FanMode::FanOut;
}  // namespace ember
