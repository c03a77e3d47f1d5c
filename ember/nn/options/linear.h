// Options of the linear layers (LibTorch's torch/nn/options/linear.h): Linear, Flatten,
// Unflatten and Bilinear (modules: ember/nn/modules/linear.h).
#pragma once
#include <utility>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

struct LinearOptions {
  LinearOptions(int64_t in_features, int64_t out_features) : in_features_(in_features), out_features_(out_features) {}
  TORCH_ARG(int64_t, in_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

struct FlattenOptions {
  TORCH_ARG(int64_t, start_dim) = 1;
  TORCH_ARG(int64_t, end_dim) = -1;
};

struct UnflattenOptions {
  UnflattenOptions(int64_t dim, std::vector<int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  TORCH_ARG(int64_t, dim);
  TORCH_ARG(std::vector<int64_t>, sizes);
};

struct BilinearOptions {
  BilinearOptions(int64_t in1, int64_t in2, int64_t out) : in1_features_(in1), in2_features_(in2), out_features_(out) {}
  TORCH_ARG(int64_t, in1_features);
  TORCH_ARG(int64_t, in2_features);
  TORCH_ARG(int64_t, out_features);
  TORCH_ARG(bool, bias) = true;
};

}  // namespace ember::nn
