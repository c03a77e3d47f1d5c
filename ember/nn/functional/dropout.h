// The dropout functionals (LibTorch's torch/nn/functional/dropout.h): ATen's dropout family,
// and dropout, dropout2d, dropout3d, alpha_dropout and feature_alpha_dropout in both call
// forms (F::dropout(x, F::DropoutFuncOptions()...) and F::dropout(x, p, ...)).
#pragma once
#include "ember/core/tensor.h"
#include "ember/nn/options/dropout.h"

namespace ember {
// ATen's dropout family (torch::dropout, torch::feature_dropout_, torch::alpha_dropout, ...):
// PyTorch's noise, drawn in PyTorch's order (dropout.cpp).
Tensor dropout(const Tensor& input, double p, bool train);
Tensor dropout_(Tensor& input, double p, bool train);
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor feature_dropout_(Tensor& input, double p, bool train);
Tensor alpha_dropout(const Tensor& input, double p, bool train);
Tensor alpha_dropout_(Tensor& input, double p, bool train);
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);
Tensor feature_alpha_dropout_(Tensor& input, double p, bool train);
}  // namespace ember

namespace ember::nn {

namespace functional {
Tensor dropout(const Tensor& input, double p, bool training = true, bool inplace = false);
Tensor dropout(Tensor input, const DropoutFuncOptions& options = {});
// Zeroes whole channels (dim 1) of (N, C, ...) inputs.
Tensor dropout2d(const Tensor& input, double p, bool training = true, bool inplace = false);
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options = {});
// Zeroes whole channels of (N, C, D, H, W) inputs, or of unbatched (C, D, H, W) ones.
Tensor dropout3d(const Tensor& input, double p, bool training = true, bool inplace = false);
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options = {});
// Keeps mean and variance of SELU activations: dropped elements take SELU's negative
// saturation value, then an affine map restores the statistics. The feature form drops
// whole channels (dim 1).
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& options);
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& options);
}  // namespace functional

}  // namespace ember::nn
