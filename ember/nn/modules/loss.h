// Loss modules (LibTorch's torch/nn/modules/loss.h): each XLoss calls its functional
// (ember/nn/functional/loss.h) with its options (ember/nn/options/loss.h). The margin losses on
// distances (margin ranking, hinge embedding, cosine embedding, triplet) come last.
#pragma once
#include <ostream>

#include "ember/nn/functional/loss.h"
#include "ember/nn/module.h"
#include "ember/nn/options/loss.h"

namespace ember::nn {

namespace detail {
// What a loss module prints after "torch::nn::Name": "()" unless LibTorch prints its options
// (the overloads beside those modules below).
template <class Options>
void print_loss_options(std::ostream& stream, const Options&) { stream << "()"; }
}  // namespace detail

// A loss module whose forward(args) calls the functional with Name##Options; the weighted
// variant keeps options.weight() as the buffer `weight` (as LibTorch).
#define EMBER_LOSS_MODULE(Name, ...)                                                     \
  class Name##Impl : public Cloneable<Name##Impl> {                                      \
   public:                                                                               \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) {}         \
    void reset() override {}                                                             \
    void pretty_print(std::ostream& stream) const override {                           \
      stream << "torch::nn::" #Name;                                                     \
      detail::print_loss_options(stream, options);                                      \
    }                                                                                    \
    Tensor forward(__VA_ARGS__);                                                         \
    Name##Options options;                                                               \
  };                                                                                     \
  TORCH_MODULE(Name)
#define EMBER_WEIGHTED_LOSS_MODULE(Name, ...)                                            \
  class Name##Impl : public Cloneable<Name##Impl> {                                      \
   public:                                                                               \
    explicit Name##Impl(const Name##Options& options = {}) : options(options) { reset(); } \
    void reset() override { weight = register_buffer("weight", options.weight()); }     \
    void pretty_print(std::ostream& stream) const override {                           \
      stream << "torch::nn::" #Name;                                                     \
      detail::print_loss_options(stream, options);                                      \
    }                                                                                    \
    Tensor forward(__VA_ARGS__);                                                         \
    Name##Options options;                                                               \
    Tensor weight;                                                                       \
  };                                                                                     \
  TORCH_MODULE(Name)

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

EMBER_LOSS_MODULE(MSELoss, const Tensor& input, const Tensor& target);

EMBER_LOSS_MODULE(L1Loss, const Tensor& input, const Tensor& target);

namespace detail {
inline void print_loss_options(std::ostream&, const SmoothL1LossOptions&) {}  // LibTorch prints the bare name
}  // namespace detail
EMBER_LOSS_MODULE(SmoothL1Loss, const Tensor& input, const Tensor& target);

namespace detail {
inline void print_loss_options(std::ostream&, const HuberLossOptions&) {}  // LibTorch prints the bare name
}  // namespace detail
EMBER_LOSS_MODULE(HuberLoss, const Tensor& input, const Tensor& target);

EMBER_WEIGHTED_LOSS_MODULE(BCELoss, const Tensor& input, const Tensor& target);

EMBER_LOSS_MODULE(KLDivLoss, const Tensor& input, const Tensor& target);

EMBER_LOSS_MODULE(SoftMarginLoss, const Tensor& input, const Tensor& target);

EMBER_WEIGHTED_LOSS_MODULE(MultiLabelSoftMarginLoss, const Tensor& input, const Tensor& target);

namespace detail {
void print_loss_options(std::ostream& stream, const MultiMarginLossOptions& o);
}  // namespace detail
EMBER_WEIGHTED_LOSS_MODULE(MultiMarginLoss, const Tensor& input, const Tensor& target);

EMBER_LOSS_MODULE(MultiLabelMarginLoss, const Tensor& input, const Tensor& target);

EMBER_LOSS_MODULE(PoissonNLLLoss, const Tensor& log_input, const Tensor& target);

EMBER_LOSS_MODULE(GaussianNLLLoss, const Tensor& input, const Tensor& target, const Tensor& var);

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

// ---- the margin losses on distances -------------------------------------------------------
// The margin loss modules (EMBER_LOSS_MODULE, above).
EMBER_LOSS_MODULE(MarginRankingLoss, const Tensor& input1, const Tensor& input2, const Tensor& target);

namespace detail {
void print_loss_options(std::ostream& stream, const HingeEmbeddingLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(HingeEmbeddingLoss, const Tensor& input, const Tensor& target);

namespace detail {
void print_loss_options(std::ostream& stream, const CosineEmbeddingLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(CosineEmbeddingLoss, const Tensor& input1, const Tensor& input2, const Tensor& target);

namespace detail {
void print_loss_options(std::ostream& stream, const TripletMarginLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(TripletMarginLoss, const Tensor& anchor, const Tensor& positive, const Tensor& negative);

namespace detail {
void print_loss_options(std::ostream& stream, const TripletMarginWithDistanceLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(TripletMarginWithDistanceLoss, const Tensor& anchor, const Tensor& positive,
                  const Tensor& negative);

}  // namespace ember::nn
