// Options of the distances (LibTorch's torch/nn/options/distance.h): CosineSimilarity and
// PairwiseDistance, whose options are also the functionals' (FuncOptions).
#pragma once
#include "ember/core/arg.h"
#include "ember/core/tensor.h"

namespace ember::nn {

struct CosineSimilarityOptions {
  TORCH_ARG(int64_t, dim) = 1;
  TORCH_ARG(double, eps) = 1e-8;
};
struct PairwiseDistanceOptions {
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, keepdim) = false;
};
namespace functional {
using CosineSimilarityFuncOptions = CosineSimilarityOptions;
using PairwiseDistanceFuncOptions = PairwiseDistanceOptions;
}  // namespace functional

}  // namespace ember::nn
