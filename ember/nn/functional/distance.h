// The distance functionals (LibTorch's torch/nn/functional/distance.h): pairwise_distance,
// cosine_similarity and pdist, positional and with options (ember/nn/options/distance.h).
#pragma once
#include "ember/core/tensor.h"
#include "ember/nn/options/distance.h"

namespace ember::nn {

namespace functional {
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps = 1e-6, bool keepdim = false);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps = 1e-8);
// The p-norm distances between the rows of input (N, M), pairs (i, j) with i < j in row-major
// order: N * (N - 1) / 2 values.
Tensor pdist(const Tensor& input, double p = 2.0);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});
}  // namespace functional

}  // namespace ember::nn
