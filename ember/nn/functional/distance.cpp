#include "ember/nn/functional/distance.h"

#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  int64_t d = -1;
  return linalg::vector_norm(x1.sub(x2).add(eps), p, IntArrayRef(&d, 1), keepdim);
}
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, const PairwiseDistanceFuncOptions& options) {
  return functional::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  int64_t d = dim;
  Tensor n1 = linalg::vector_norm(x1, 2, IntArrayRef(&d, 1)), n2 = linalg::vector_norm(x2, 2, IntArrayRef(&d, 1));
  return x1.mul(x2).sum(dim).div(n1.mul(n2).clamp_min(eps));
}
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, const CosineSimilarityFuncOptions& options) {
  return functional::cosine_similarity(x1, x2, options.dim(), options.eps());
}

Tensor pdist(const Tensor& input, double p) { return ember::pdist(input, p); }
}  // namespace functional

}  // namespace ember::nn
