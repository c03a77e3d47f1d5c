#include "ember/nn/modules/loss.h"

#include <ostream>

#include "ember/ops/functions.h"

namespace ember::nn {

CrossEntropyLossImpl::CrossEntropyLossImpl(const CrossEntropyLossOptions& options_) : options(options_) { reset(); }
void CrossEntropyLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
void CrossEntropyLossImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::CrossEntropyLoss()"; }
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::cross_entropy(input, target, weight, options.ignore_index(), options.reduction(),
                                   options.label_smoothing());
}

NLLLossImpl::NLLLossImpl(const NLLLossOptions& options_) : options(options_) { reset(); }
void NLLLossImpl::reset() { weight = register_buffer("weight", options.weight()); }
void NLLLossImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::NLLLoss()"; }
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target, weight, options.ignore_index(), options.reduction());
}

Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::mse_loss(input, target, options.reduction());
}
Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::l1_loss(input, target, options.reduction());
}

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& options_) : options(options_) { reset(); }
void BCEWithLogitsLossImpl::reset() {
  weight = register_buffer("weight", options.weight());
  pos_weight = register_buffer("pos_weight", options.pos_weight());
}
void BCEWithLogitsLossImpl::pretty_print(std::ostream& stream) const { stream << "torch::nn::BCEWithLogitsLoss()"; }
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy_with_logits(input, target, weight, options.reduction(), pos_weight);
}

// ---- option-driven loss modules (EMBER_LOSS_MODULE) --------------------------------------------
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::smooth_l1_loss(input, target, options.reduction(), options.beta());
}
Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::huber_loss(input, target, options.reduction(), options.delta());
}
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::binary_cross_entropy(input, target, weight, options.reduction());
}
Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::kl_div(input, target, options.reduction(), options.log_target());
}
Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::soft_margin_loss(input, target, options.reduction());
}
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::multilabel_soft_margin_loss(input, target, weight, options.reduction());
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::multi_margin_loss(input, target, options.p(), options.margin(), weight, options.reduction());
}
Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::multilabel_margin_loss(input, target, options.reduction());
}
Tensor PoissonNLLLossImpl::forward(const Tensor& log_input, const Tensor& target) {
  return functional::poisson_nll_loss(log_input, target, options.log_input(), options.full(), options.eps(),
                                      options.reduction());
}
Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return functional::gaussian_nll_loss(input, target, var, options.full(), options.eps(), options.reduction());
}

// ---- margin loss modules ----------------------------------------------------------------------
Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return functional::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return functional::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return functional::cosine_embedding_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return functional::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                         options.swap(), options.reduction());
}
Tensor TripletMarginWithDistanceLossImpl::forward(const Tensor& anchor, const Tensor& positive,
                                                  const Tensor& negative) {
  return functional::triplet_margin_with_distance_loss(anchor, positive, negative, options);
}

namespace detail {
// The options LibTorch's loss modules print (std::boolalpha for bools, doubles as streamed).
void print_loss_options(std::ostream& s, const HingeEmbeddingLossOptions& o) { s << "(margin=" << o.margin() << ")"; }
void print_loss_options(std::ostream& s, const CosineEmbeddingLossOptions& o) { s << "(margin=" << o.margin() << ")"; }
void print_loss_options(std::ostream& s, const TripletMarginLossOptions& o) {
  s << "(margin=" << o.margin() << ", p=" << o.p() << ", eps=" << o.eps() << ", swap=" << (o.swap() ? "true" : "false")
    << ")";
}
void print_loss_options(std::ostream& s, const TripletMarginWithDistanceLossOptions& o) {
  s << "(margin=" << o.margin() << ", swap=" << (o.swap() ? "true" : "false") << ")";
}
void print_loss_options(std::ostream& s, const MultiMarginLossOptions& o) {
  s << "(p=" << o.p() << ", margin=" << o.margin() << ", weight=" << o.weight()
    << ", reduction=" << enumtype::get_enum_name(o.reduction()) << ")";
}
}  // namespace detail

}  // namespace ember::nn
