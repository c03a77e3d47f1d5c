// Options of the losses (LibTorch's torch/nn/options/loss.h): reductions, class weights,
// ignore_index, label smoothing, pos_weight, margins. Each XLossOptions is also the
// functional's options (XFuncOptions). Modules: ember/nn/modules/loss.h.
#pragma once
#include <functional>
#include <optional>
#include <type_traits>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

// The module options, which are also the functionals' options (LibTorch's
// `using CrossEntropyFuncOptions = CrossEntropyLossOptions;`, ...).
struct CrossEntropyLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(Reduction, reduction) = kMean;
  TORCH_ARG(double, label_smoothing) = 0.0;
};

struct NLLLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(int64_t, ignore_index) = -100;
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct MSELossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  MSELossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};

struct L1LossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  L1LossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};

struct SmoothL1LossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  SmoothL1LossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
  TORCH_ARG(double, beta) = 1.0;
};

struct HuberLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  HuberLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
  TORCH_ARG(double, delta) = 1.0;
};

struct BCELossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct KLDivLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  KLDivLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);  // also kBatchMean
  TORCH_ARG(bool, log_target) = false;
};

struct SoftMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  SoftMarginLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};

struct MultiLabelSoftMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct MultiMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(int64_t, p) = 1;
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct MultiLabelMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  // A Reduction or torch::kNone / kMean / kSum (each its own type).
  template <class R = Reduction, std::enable_if_t<std::is_convertible_v<R, Reduction>, int> = 0>
  MultiLabelMarginLossOptions(R reduction = kMean) : reduction_(reduction) {}  // NOLINT
  TORCH_ARG(Reduction, reduction);
};

struct PoissonNLLLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(bool, log_input) = true;
  TORCH_ARG(bool, full) = false;
  TORCH_ARG(double, eps) = 1e-8;
  TORCH_ARG(Reduction, reduction) = kMean;
};

// (Not in LibTorch's C++ API; PyTorch's GaussianNLLLoss.)
struct GaussianNLLLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(bool, full) = false;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct BCEWithLogitsLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(Tensor, weight) = {};
  TORCH_ARG(Reduction, reduction) = kMean;
  TORCH_ARG(Tensor, pos_weight) = {};
};

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
}  // namespace functional

// ---- the margin losses on distances -------------------------------------------------------
// The margin losses' options (also the functionals' FuncOptions, as LibTorch's).
struct MarginRankingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct HingeEmbeddingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct CosineEmbeddingLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 0;
  TORCH_ARG(Reduction, reduction) = kMean;
};

struct TripletMarginLossOptions {
  using reduction_t = Reduction;  // LibTorch: a variant of the reduction tags
  TORCH_ARG(double, margin) = 1.0;
  TORCH_ARG(double, p) = 2.0;
  TORCH_ARG(double, eps) = 1e-6;
  TORCH_ARG(bool, swap) = false;
  TORCH_ARG(Reduction, reduction) = kMean;
};

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

namespace functional {
using MarginRankingLossFuncOptions = MarginRankingLossOptions;
using HingeEmbeddingLossFuncOptions = HingeEmbeddingLossOptions;
using CosineEmbeddingLossFuncOptions = CosineEmbeddingLossOptions;
using TripletMarginLossFuncOptions = TripletMarginLossOptions;
using TripletMarginWithDistanceLossFuncOptions = TripletMarginWithDistanceLossOptions;
}  // namespace functional

}  // namespace ember::nn
