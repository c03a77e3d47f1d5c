// Options of AdaptiveLogSoftmaxWithLoss and CrossMapLRN2d (LibTorch's torch/nn/options/adaptive.h
// and normalization.h); the modules are in ember/nn/modules/adaptive_softmax.h.
#pragma once
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

struct AdaptiveLogSoftmaxWithLossOptions {
  AdaptiveLogSoftmaxWithLossOptions(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : in_features_(in_features), n_classes_(n_classes), cutoffs_(std::move(cutoffs)) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, n_classes);
  TORCH_ARG(std::vector<int64_t>, cutoffs);
  TORCH_ARG(double, div_value) = 4.;
  TORCH_ARG(bool, head_bias) = false;
};

struct CrossMapLRN2dOptions {
  CrossMapLRN2dOptions(int64_t size) : size_(size) {}  // NOLINT
  TORCH_ARG(int64_t, size);
  TORCH_ARG(double, alpha) = 1e-4;
  TORCH_ARG(double, beta) = 0.75;
  TORCH_ARG(int64_t, k) = 1;
};

}  // namespace ember::nn
