// Loss functions (nn::functional::*_loss and the XLoss modules) with PyTorch's semantics:
// reductions, class weights, ignore_index, label smoothing, probability targets,
// pos_weight. Written with differentiable ops, so both autograd modes apply.
// The margin losses on distances (margin ranking, hinge embedding, cosine embedding, triplet)
// come last.
#pragma once
#include <functional>
#include <optional>
#include <ostream>
#include <type_traits>

#include "ember/nn/enum.h"
#include "ember/nn/module.h"

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
}  // namespace functional

namespace detail {
// What a loss module prints after "torch::nn::Name": "()" unless LibTorch prints its options
// (the overloads beside those options structs).
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

// The module options, which are also the functionals' options (LibTorch's
// `using CrossEntropyFuncOptions = CrossEntropyLossOptions;`, ...).
struct CrossEntropyLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
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
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
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

struct MSELossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  MSELossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};
EMBER_LOSS_MODULE(MSELoss, const Tensor& input, const Tensor& target);

struct L1LossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  L1LossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};
EMBER_LOSS_MODULE(L1Loss, const Tensor& input, const Tensor& target);

struct SmoothL1LossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  SmoothL1LossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
  TORCH_ARG(double, beta) = 1.0;
};
namespace detail {
inline void print_loss_options(std::ostream&, const SmoothL1LossOptions&) {}  // LibTorch prints the bare name
}  // namespace detail
EMBER_LOSS_MODULE(SmoothL1Loss, const Tensor& input, const Tensor& target);

struct HuberLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  HuberLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
  TORCH_ARG(double, delta) = 1.0;
};
namespace detail {
inline void print_loss_options(std::ostream&, const HuberLossOptions&) {}  // LibTorch prints the bare name
}  // namespace detail
EMBER_LOSS_MODULE(HuberLoss, const Tensor& input, const Tensor& target);

struct BCELossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
};
EMBER_WEIGHTED_LOSS_MODULE(BCELoss, const Tensor& input, const Tensor& target);

struct KLDivLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  KLDivLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);  // also kBatchMean
  TORCH_ARG(bool, log_target) = false;
};
EMBER_LOSS_MODULE(KLDivLoss, const Tensor& input, const Tensor& target);

struct SoftMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  SoftMarginLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};
EMBER_LOSS_MODULE(SoftMarginLoss, const Tensor& input, const Tensor& target);

struct MultiLabelSoftMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
};
EMBER_WEIGHTED_LOSS_MODULE(MultiLabelSoftMarginLoss, const Tensor& input, const Tensor& target);

struct MultiMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(int64_t, p) = 1;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const MultiMarginLossOptions& o);
}  // namespace detail
EMBER_WEIGHTED_LOSS_MODULE(MultiMarginLoss, const Tensor& input, const Tensor& target);

struct MultiLabelMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  MultiLabelMarginLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};
EMBER_LOSS_MODULE(MultiLabelMarginLoss, const Tensor& input, const Tensor& target);

struct PoissonNLLLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(bool, log_input) = true;
  TORCH_ARG(bool, full) = false;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(Reduction, reduction) = kMean;
};
EMBER_LOSS_MODULE(PoissonNLLLoss, const Tensor& log_input, const Tensor& target);

// (Not in LibTorch's C++ API; PyTorch's GaussianNLLLoss.)
struct GaussianNLLLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(bool, full) = false;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(Reduction, reduction) = kMean;
};
EMBER_LOSS_MODULE(GaussianNLLLoss, const Tensor& input, const Tensor& target, const Tensor& var);

struct BCEWithLogitsLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
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

namespace functional {
using MSELossFuncOptions = MSELossOptions;
using L1LossFuncOptions = L1LossOptions;
using SmoothL1LossFuncOptions = SmoothL1LossOptions;
using HuberLossFuncOptions = HuberLossOptions;
using NLLLossFuncOptions = NLLLossOptions;
using CrossEntropyFuncOptions = CrossEntropyLossOptions;
using BinaryCrossEntropyFuncOptions = BCELossOptions;
using BinaryCrossEntropyWithLogitsFuncOptions = BCEWithLogitsLossOptions;
using KLDivFuncOptions = KLDivLossOptions;
using SoftMarginLossFuncOptions = SoftMarginLossOptions;
using MultilabelSoftMarginLossFuncOptions = MultiLabelSoftMarginLossOptions;
using MultiMarginLossFuncOptions = MultiMarginLossOptions;
using MultilabelMarginLossFuncOptions = MultiLabelMarginLossOptions;
using PoissonNLLLossFuncOptions = PoissonNLLLossOptions;

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
}  // namespace functional

// The margin losses: options (also the functionals' FuncOptions, as LibTorch's) and modules
// (EMBER_LOSS_MODULE, above).
struct MarginRankingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(Reduction, reduction) = kMean;
};
EMBER_LOSS_MODULE(MarginRankingLoss, const Tensor& input1, const Tensor& input2, const Tensor& target);

struct HingeEmbeddingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const HingeEmbeddingLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(HingeEmbeddingLoss, const Tensor& input, const Tensor& target);

struct CosineEmbeddingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const CosineEmbeddingLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(CosineEmbeddingLoss, const Tensor& input1, const Tensor& input2, const Tensor& target);

struct TripletMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const TripletMarginLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(TripletMarginLoss, const Tensor& anchor, const Tensor& positive, const Tensor& negative);

// max(0, margin + d(anchor, positive) - d(anchor, negative)) with any distance d (default
// F::pairwise_distance); with swap d(anchor, negative) is min(it, d(positive, negative)).
struct TripletMarginWithDistanceLossOptions {
  typedef std::function<Tensor(const Tensor&, const Tensor&)> distance_function_t;
  using reduction_t = Reduction;
  TORCH_ARG(std::optional<distance_function_t>, distance_function) = std::nullopt;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(Reduction, reduction) = kMean;
};
namespace detail {
void print_loss_options(std::ostream& stream, const TripletMarginWithDistanceLossOptions& o);
}  // namespace detail
EMBER_LOSS_MODULE(TripletMarginWithDistanceLoss, const Tensor& anchor, const Tensor& positive,
                  const Tensor& negative);

namespace functional {
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
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
