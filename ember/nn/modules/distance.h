// Distance modules (LibTorch's torch/nn/modules/distance.h): CosineSimilarity and
// PairwiseDistance. Options: ember/nn/options/distance.h; pairwise_distance,
// cosine_similarity and pdist: ember/nn/functional/distance.h.
#pragma once
#include "ember/nn/functional/distance.h"
#include "ember/nn/module.h"
#include "ember/nn/options/distance.h"

namespace ember::nn {

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
