// Options of the activations (LibTorch's torch/nn/options/activation.h): XOptions for the
// modules of ember/nn/modules/activation.h and XFuncOptions for the functionals of
// ember/nn/functional/activation.h (most are the same struct).
#pragma once
#include <optional>
#include <string>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

// The options of the activations with one option (`Name##Options(value)` converts implicitly,
// as LibTorch's), which are also the functional's options (Name##FuncOptions).
#define EMBER_ACTIVATION_1_OPTIONS(Name, T, option, default_value)                          \
  struct Name##Options {                                                                    \
    Name##Options(T option = default_value) : option##_(option) {}  /* NOLINT */            \
    TORCH_ARG(T, option);                                                                   \
  };                                                                                        \
  namespace functional {                                                                    \
  using Name##FuncOptions = Name##Options;                                                  \
  }
EMBER_ACTIVATION_1_OPTIONS(ReLU6, bool, inplace, false)
EMBER_ACTIVATION_1_OPTIONS(SELU, bool, inplace, false)
EMBER_ACTIVATION_1_OPTIONS(Hardshrink, double, lambda, 0.5)
EMBER_ACTIVATION_1_OPTIONS(Softshrink, double, lambda, 0.5)
EMBER_ACTIVATION_1_OPTIONS(GLU, int64_t, dim, -1)
#undef EMBER_ACTIVATION_1_OPTIONS

struct SoftminOptions {
  SoftminOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
};

struct ELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

struct CELUOptions {
  TORCH_ARG(double, alpha) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

// Randomized leaky ReLU: in training each negative element gets a slope ~ U(lower, upper),
// in evaluation the slope (lower + upper) / 2.
struct RReLUOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, inplace) = false;
};

struct HardtanhOptions {
  TORCH_ARG(double, min_val) = -1.0;
  TORCH_ARG(double, max_val) = 1.0;
  TORCH_ARG(bool, inplace) = false;
};

struct SoftplusOptions {
  TORCH_ARG(double, beta) = 1.0;
  TORCH_ARG(double, threshold) = 20.0;
};

struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  TORCH_ARG(double, threshold);
  TORCH_ARG(double, value);
  TORCH_ARG(bool, inplace) = false;
};

struct PReLUOptions {
  TORCH_ARG(int64_t, num_parameters) = 1;
  TORCH_ARG(double, init) = 0.25;
};

namespace functional {
using ELUFuncOptions = ELUOptions;
using CELUFuncOptions = CELUOptions;
using HardtanhFuncOptions = HardtanhOptions;
using SoftplusFuncOptions = SoftplusOptions;
using ThresholdFuncOptions = ThresholdOptions;
struct SoftminFuncOptions {
  SoftminFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<Dtype>, dtype) = std::nullopt;
};
struct RReLUFuncOptions {
  TORCH_ARG(double, lower) = 1.0 / 8.0;
  TORCH_ARG(double, upper) = 1.0 / 3.0;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};
// softmax((logits + Gumbel noise) / tau); with hard the one-hot of its argmax, with the
// gradient of the soft sample (straight-through).
struct GumbelSoftmaxFuncOptions {
  TORCH_ARG(double, tau) = 1.0;
  TORCH_ARG(bool, hard) = false;
  TORCH_ARG(int, dim) = -1;
};
}  // namespace functional

struct ReLUOptions {
  ReLUOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT
  TORCH_ARG(bool, inplace);
};
namespace functional {
using ReLUFuncOptions = ReLUOptions;
}  // namespace functional

struct LeakyReLUOptions {
  TORCH_ARG(double, negative_slope) = 1e-2;
  TORCH_ARG(bool, inplace) = false;
};
namespace functional {
using LeakyReLUFuncOptions = LeakyReLUOptions;
}  // namespace functional

struct GELUOptions {
  TORCH_ARG(std::string, approximate) = "none";  // "none" or "tanh"
};
namespace functional {
using GELUFuncOptions = GELUOptions;
}  // namespace functional

struct SoftmaxOptions {
  SoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
};
struct LogSoftmaxOptions {
  LogSoftmaxOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
};
namespace functional {
struct SoftmaxFuncOptions {
  SoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<Dtype>, dtype) = std::nullopt;  // the input is cast to it first
};
struct LogSoftmaxFuncOptions {
  LogSoftmaxFuncOptions(int64_t dim) : dim_(dim) {}  // NOLINT
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::optional<Dtype>, dtype) = std::nullopt;
};
}  // namespace functional

}  // namespace ember::nn
