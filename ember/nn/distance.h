// Distances (LibTorch's torch/nn/modules/distance.h, functional/distance.h):
// pairwise_distance, cosine_similarity and pdist, and the CosineSimilarity and
// PairwiseDistance modules, whose options are also the functionals' (FuncOptions).
#pragma once
#include "ember/nn/module.h"

namespace ember::nn {

namespace functional {
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps = 1e-6, bool keepdim = false);
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps = 1e-8);
// The p-norm distances between the rows of input (N, M), pairs (i, j) with i < j in row-major
// order: N * (N - 1) / 2 values.
Tensor pdist(const Tensor& input, double p = 2.0);
}  // namespace functional

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
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options = {});
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options = {});
}  // namespace functional
class CosineSimilarityImpl : public Cloneable<CosineSimilarityImpl> {
 public:
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  CosineSimilarityOptions options;
};
TORCH_MODULE(CosineSimilarity);
class PairwiseDistanceImpl : public Cloneable<PairwiseDistanceImpl> {
 public:
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input1, const Tensor& input2);
  PairwiseDistanceOptions options;
};
TORCH_MODULE(PairwiseDistance);

}  // namespace ember::nn
