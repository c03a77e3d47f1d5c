#include "ember/nn/modules/distance.h"

#include <ostream>

#include "ember/ops/functions.h"

namespace ember::nn {

void CosineSimilarityImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::CosineSimilarity(dim=" << options.dim() << ", eps=" << options.eps() << ")";
}
Tensor CosineSimilarityImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::cosine_similarity(input1, input2, options);
}
void PairwiseDistanceImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PairwiseDistance(p=" << options.p() << ", eps=" << options.eps()
    << ", keepdim=" << (options.keepdim() ? "true" : "false") << ")";
}
Tensor PairwiseDistanceImpl::forward(const Tensor& input1, const Tensor& input2) {
  return functional::pairwise_distance(input1, input2, options);
}

}  // namespace ember::nn
