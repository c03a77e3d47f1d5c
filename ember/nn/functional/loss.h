// The loss functionals (LibTorch's torch/nn/functional/loss.h, nn::functional::*_loss) with
// PyTorch's semantics: reductions, class weights, ignore_index, label smoothing, probability
// targets, pos_weight. Written with differentiable ops, so both autograd modes apply. The
// margin losses on distances (margin ranking, hinge embedding, cosine embedding, triplet) come
// last. Options: ember/nn/options/loss.h.
#pragma once
#include <optional>
#include <type_traits>

#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "ember/nn/options/loss.h"

namespace ember::nn {

// The positional loss forms' reduction: a Reduction, not a tag. F::mse_loss(x, t, torch::kSum)
// then picks the options form (LibTorch has only that one), and F::mse_loss(x, t, r) with a
// Reduction r the positional form (through the exact-match templates in functional below).
struct ReductionArg {
  template <class R, std::enable_if_t<std::is_same_v<R, Reduction>, int> = 0>
  ReductionArg(R r) : value(r) {}  // NOLINT
  operator Reduction() const { return value; }  // NOLINT
  Reduction value;
};
template <class R>
inline constexpr bool is_reduction_v = std::is_same_v<R, Reduction>;

namespace functional {
// loss reduced as `reduction` says (none / mean / sum).
Tensor apply_reduction(const Tensor& loss, Reduction reduction);
// The positional forms. Each loss also has LibTorch's options form (declared after the
// options below): F::mse_loss(x, t, F::MSELossFuncOptions(torch::kSum)); with only the
// tensors given, that form is the one called (the positional one leaves its first option
// without a default). A bare `{}` third argument fits both forms: name the type.
Tensor mse_loss(const Tensor& input, const Tensor& target, ReductionArg reduction);
Tensor l1_loss(const Tensor& input, const Tensor& target, ReductionArg reduction);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, ReductionArg reduction, double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, ReductionArg reduction, double delta = 1.0);
// input: log-probabilities (N, C) or (N, C, d1, ...); target: class indices (N) / (N, d1, ...).
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index = -100,
                Reduction reduction = kMean);
// target: class indices, or class probabilities of input's shape.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index = -100,
                     Reduction reduction = kMean, double label_smoothing = 0.0);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight,
                            Reduction reduction = kMean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        Reduction reduction = kMean, const Tensor& pos_weight = {});
// reduction kBatchMean: the sum divided by input.size(0) (the KL divergence per sample).
Tensor kl_div(const Tensor& input, const Tensor& target, ReductionArg reduction, bool log_target = false);
// log(1 + exp(-target * input)), target in {-1, 1}.
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, ReductionArg reduction);
// input (N, C) or (C), target of 0/1 labels alike; the per-sample mean over classes.
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   Reduction reduction = kMean);
// sum_{i != y} max(0, margin - x[y] + x[i])^p * weight[y] / C per sample; p is 1 or 2.
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin = 1.0,
                         const Tensor& weight = {}, Reduction reduction = kMean);
// target (N, C) / (C): class indices, ended by the first -1; sum over targets j and
// non-targets i of max(0, 1 - (x[j] - x[i])) / C per sample.
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, ReductionArg reduction);
// A Reduction value picks these exact-match templates over the options forms (whose implicit
// constructors also take a Reduction).
#define EMBER_POSITIONAL_LOSS(name)                                                     \
  template <class R, std::enable_if_t<is_reduction_v<R>, int> = 0>                      \
  Tensor name(const Tensor& input, const Tensor& target, R reduction) {                 \
    return name(input, target, ReductionArg(reduction));                                \
  }
EMBER_POSITIONAL_LOSS(mse_loss)
EMBER_POSITIONAL_LOSS(l1_loss)
EMBER_POSITIONAL_LOSS(smooth_l1_loss)
EMBER_POSITIONAL_LOSS(huber_loss)
EMBER_POSITIONAL_LOSS(kl_div)
EMBER_POSITIONAL_LOSS(soft_margin_loss)
EMBER_POSITIONAL_LOSS(multilabel_margin_loss)
#undef EMBER_POSITIONAL_LOSS
// With the trailing argument given, the positional forms take a tag too (torch::kSum); as exact
// matches these templates also win over smooth_l1_loss's (options, beta) form.
template <class R, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, R reduction, double beta) {
  return smooth_l1_loss(input, target, ReductionArg(Reduction(reduction)), beta);
}
template <class R, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
Tensor huber_loss(const Tensor& input, const Tensor& target, R reduction, double delta) {
  return huber_loss(input, target, ReductionArg(Reduction(reduction)), delta);
}
template <class R, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
Tensor kl_div(const Tensor& input, const Tensor& target, R reduction, bool log_target) {
  return kl_div(input, target, ReductionArg(Reduction(reduction)), log_target);
}
// log_input: exp(input) - target * input, else input - target * log(input + eps); full adds
// the Stirling term target * log(target) - target + log(2 pi target) / 2 where target > 1.
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full = false,
                        double eps = 1e-8, Reduction reduction = kMean);
// (log(var) + (input - target)^2 / var) / 2 (+ log(2 pi) / 2 when full), var clamped to eps
// without blocking its gradient; var has input's shape or that with the last dim 1 or dropped.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, Reduction reduction = kMean);

Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {});
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {});
// beta: the explicit argument when given (LibTorch 1.13's signature), else options.beta().
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options = {},
                      std::optional<double> beta = std::nullopt);
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options = {});
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {});
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options = {});
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {});
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options = {});
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {});
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options = {});
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options = {});
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options = {});
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options = {});
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options = {});
}  // namespace functional

// ---- the margin losses on distances -------------------------------------------------------
namespace functional {
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction = kMean);
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction = kMean);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction = kMean);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p = 2.0, double eps = 1e-6, bool swap = false, Reduction reduction = kMean);

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options = {});
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target,
                            const HingeEmbeddingLossFuncOptions& options = {});
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options = {});
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options = {});
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options = {});
}  // namespace functional

}  // namespace ember::nn
