// Options of the dropout family (LibTorch's torch/nn/options/dropout.h): DropoutOptions for the
// modules of ember/nn/modules/dropout.h, DropoutFuncOptions and AlphaDropoutFuncOptions for the
// functionals of ember/nn/functional/dropout.h.
#pragma once
#include "ember/core/arg.h"

namespace ember::nn {

namespace functional {
struct DropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = true;
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dFuncOptions = DropoutFuncOptions;
using Dropout3dFuncOptions = DropoutFuncOptions;
}  // namespace functional

struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT
  TORCH_ARG(double, p);
  TORCH_ARG(bool, inplace) = false;
};
using Dropout2dOptions = DropoutOptions;
using Dropout3dOptions = DropoutOptions;

using AlphaDropoutOptions = DropoutOptions;
using FeatureAlphaDropoutOptions = DropoutOptions;

namespace functional {
struct AlphaDropoutFuncOptions {
  TORCH_ARG(double, p) = 0.5;
  TORCH_ARG(bool, training) = false;
  TORCH_ARG(bool, inplace) = false;
};
using FeatureAlphaDropoutFuncOptions = AlphaDropoutFuncOptions;
}  // namespace functional

}  // namespace ember::nn
