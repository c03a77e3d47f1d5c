// Loss functions (nn::functional::*_loss and the XLoss modules) with PyTorch's semantics:
// reductions, class weights, ignore_index, label smoothing, probability targets,
// pos_weight. Written with differentiable ops, so both autograd modes apply.
#pragma once
#include <optional>

#include "ember/nn/module.h"

namespace ember {
enum class Reduction { None, Mean, Sum };
inline constexpr Reduction kNone = Reduction::None;
inline constexpr Reduction kMean = Reduction::Mean;
inline constexpr Reduction kSum = Reduction::Sum;
}  // namespace ember

namespace ember::nn {

namespace functional {
// loss reduced as `reduction` says (none / mean / sum).
Tensor apply_reduction(const Tensor& loss, Reduction reduction);
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean);
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean, double beta = 1.0);
Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction = kMean, double delta = 1.0);
// input: log-probabilities (N, C) or (N, C, d1, ...); target: class indices (N) / (N, d1, ...).
Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                Reduction reduction = kMean);
// target: class indices, or class probabilities of input's shape.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {}, int64_t ignore_index = -100,
                     Reduction reduction = kMean, double label_smoothing = 0.0);
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                            Reduction reduction = kMean);
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                        Reduction reduction = kMean, const Tensor& pos_weight = {});
Tensor kl_div(const Tensor& input, const Tensor& target, Reduction reduction = kMean, bool log_target = false);
}  // namespace functional

struct CrossEntropyLossOptions {
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(Reduction, reduction) = kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};
class CrossEntropyLossImpl : public Cloneable<CrossEntropyLossImpl> {
 public:
  explicit CrossEntropyLossImpl(const CrossEntropyLossOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);
  CrossEntropyLossOptions options;
  Tensor weight;
};
TORCH_MODULE(CrossEntropyLoss);

struct NLLLossOptions {
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(Reduction, reduction) = kMean;
};
class NLLLossImpl : public Cloneable<NLLLossImpl> {
 public:
  explicit NLLLossImpl(const NLLLossOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);
  NLLLossOptions options;
  Tensor weight;
};
TORCH_MODULE(NLLLoss);

struct ReductionOptions {
  ReductionOptions(Reduction r = kMean) : reduction_(r) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};
#define EMBER_SIMPLE_LOSS(Name, fn)                                               \
  class Name##Impl : public Cloneable<Name##Impl> {                               \
   public:                                                                        \
    explicit Name##Impl(const ReductionOptions& options = {}) : options(options) {} \
    void reset() override {}                                                      \
    void pretty_print(std::ostream& stream) const override;                       \
    Tensor forward(const Tensor& input, const Tensor& target) {                   \
      return functional::fn(input, target, options.reduction());                  \
    }                                                                             \
    ReductionOptions options;                                                     \
  };                                                                              \
  TORCH_MODULE(Name)
EMBER_SIMPLE_LOSS(MSELoss, mse_loss);
EMBER_SIMPLE_LOSS(L1Loss, l1_loss);
#undef EMBER_SIMPLE_LOSS

struct BCEWithLogitsLossOptions {
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
  TORCH_ARG(Tensor, pos_weight) = {};
};
class BCEWithLogitsLossImpl : public Cloneable<BCEWithLogitsLossImpl> {
 public:
  explicit BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options = {});
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& target);
  BCEWithLogitsLossOptions options;
  Tensor weight, pos_weight;
};
TORCH_MODULE(BCEWithLogitsLoss);

}  // namespace ember::nn
