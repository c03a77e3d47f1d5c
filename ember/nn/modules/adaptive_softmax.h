// AdaptiveLogSoftmaxWithLoss (Grave et al., "Efficient softmax approximation for GPUs"): a
// head over the frequent classes and one cluster token per tail, each tail a low-rank
// projection; and CrossMapLRN2d (Lua Torch's cross-channel local response normalization).
// LibTorch 1.13's options (ember/nn/options/adaptive_softmax.h), checks and outputs.
#pragma once
#include <vector>

#include "ember/nn/modules/container.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/options/adaptive_softmax.h"

namespace ember::nn {

// forward's result: each row's target log-probability, and their negated mean.
struct ASMoutput {
  ASMoutput(Tensor output_, double loss_) : output(std::move(output_)), loss(loss_) {}
  Tensor output;
  double loss;
};

class AdaptiveLogSoftmaxWithLossImpl : public Cloneable<AdaptiveLogSoftmaxWithLossImpl> {
 public:
  AdaptiveLogSoftmaxWithLossImpl(int64_t in_features, int64_t n_classes, std::vector<int64_t> cutoffs)
      : AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions(in_features, n_classes, std::move(cutoffs))) {}
  explicit AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options);
  ASMoutput forward(const Tensor& input, const Tensor& target);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // Log-probabilities of every class (for inputs of shape [batch, in_features]).
  Tensor _get_full_log_prob(const Tensor& input, const Tensor& head_output);
  Tensor log_prob(const Tensor& input);
  // The most likely class of each row.
  Tensor predict(const Tensor& input);

  AdaptiveLogSoftmaxWithLossOptions options;
  std::vector<int64_t> cutoffs;  // options' cutoffs and n_classes
  int64_t shortlist_size = 0;
  int64_t n_clusters = 0;
  int64_t head_size = 0;
  Linear head = nullptr;
  ModuleList tail;
};
TORCH_MODULE(AdaptiveLogSoftmaxWithLoss);

// x / (k + alpha / size * sum of x^2 over `size` neighbouring channels)^beta, for [N, C, H, W].
class CrossMapLRN2dImpl : public Cloneable<CrossMapLRN2dImpl> {
 public:
  CrossMapLRN2dImpl(int64_t size) : CrossMapLRN2dImpl(CrossMapLRN2dOptions(size)) {}  // NOLINT
  explicit CrossMapLRN2dImpl(const CrossMapLRN2dOptions& options) : options(options) { reset(); }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  CrossMapLRN2dOptions options;
};
TORCH_MODULE(CrossMapLRN2d);

}  // namespace ember::nn
