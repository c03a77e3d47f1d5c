#include "ember/nn/functional/loss.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/functional/activation.h"
#include "ember/nn/functional/distance.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/core/tracing_call.h"

namespace ember::nn {

namespace functional {
Tensor apply_reduction(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::None: return loss;
    case Reduction::Sum: return loss.sum();
    case Reduction::Mean: return loss.mean();
    default: EMBER_CHECK(false, "reduction kBatchMean is only supported by kl_div");
  }
  return loss;
}

namespace {
void check_same_shape(const char* op, const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.sizes() == target.sizes(), op, ": Using a target size (", target.sizes(),
              ") that is different to the input size (", input.sizes(), ") is not supported; please ensure they "
              "have the same size.");
}
void check_not_batchmean(const char* op, Reduction reduction) {
  EMBER_CHECK(reduction != Reduction::BatchMean, op, ": reduction kBatchMean is only supported by kl_div");
}
// (N, C, d1, ...) -> (N * d1 * ..., C), and targets alike.
Tensor classes_last(const Tensor& x) { return x.dim() <= 2 ? x : x.movedim(1, -1).reshape({-1, x.size(1)}); }
}  // namespace

Tensor mse_loss(const Tensor& input, const Tensor& target, ReductionArg reduction) {
  check_defined(input, "mse_loss", "input");
  check_defined(target, "mse_loss", "target");
  EMBER_AUTOCAST(mse_loss, mse_loss(_ac[0], _ac[1], reduction), &input, &target);
  check_same_shape("mse_loss", input, target);
  return apply_reduction(input.sub(target).square(), reduction);
}
Tensor l1_loss(const Tensor& input, const Tensor& target, ReductionArg reduction) {
  EMBER_AUTOCAST(l1_loss, l1_loss(_ac[0], _ac[1], reduction), &input, &target);
  check_same_shape("l1_loss", input, target);
  return apply_reduction(input.sub(target).abs(), reduction);
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, ReductionArg reduction, double beta) {
  EMBER_AUTOCAST(smooth_l1_loss, smooth_l1_loss(_ac[0], _ac[1], reduction, beta), &input, &target);
  check_same_shape("smooth_l1_loss", input, target);
  EMBER_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) {
    // |x| with the derivative -1 at x = 0 (PyTorch's smooth_l1_loss_backward tests x <= -beta first)
    Tensor x = input.sub(target);
    return apply_reduction(where(x.gt(0), x, x.neg()), reduction);
  }
  Tensor d = input.sub(target).abs();
  return apply_reduction(where(d.lt(beta), d.square().mul(0.5 / beta), d.sub(0.5 * beta)), reduction);
}
Tensor huber_loss(const Tensor& input, const Tensor& target, ReductionArg reduction, double delta) {
  EMBER_AUTOCAST(huber_loss, huber_loss(_ac[0], _ac[1], reduction, delta), &input, &target);
  check_same_shape("huber_loss", input, target);
  EMBER_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  Tensor d = input.sub(target).abs();
  return apply_reduction(where(d.lt(delta), d.square().mul(0.5), d.sub(0.5 * delta).mul(delta)), reduction);
}

namespace {
// nll_loss with errors naming `op` (cross_entropy runs it on its log-probabilities).
Tensor nll_loss_named(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                      Reduction reduction, const char* op) {
  check_defined(input, op, "input");
  check_defined(target, op, "target");
  EMBER_CHECK(input.dim() >= 1, op, ": input must have at least 1 dimension");
  check_not_batchmean(op, reduction);
  const bool unbatched = input.dim() == 1;
  Tensor in = unbatched ? input.unsqueeze(0) : input;
  Tensor tg = unbatched ? target.unsqueeze(0) : target;
  EMBER_CHECK_TYPE(tg.scalar_type() == kLong, op, ": expected target of dtype Long (class indices), got ",
                   tg.scalar_type());
  EMBER_CHECK(in.size(0) == tg.size(0), op, ": Expected input batch_size (", in.size(0), ") to match target batch_size (",
              tg.size(0), ").");
  const int64_t C = in.size(1);
  Tensor lp = classes_last(in);
  Tensor t = tg.reshape({-1});
  EMBER_CHECK(lp.size(0) == t.size(0), op, ": input of shape ", input.sizes(), " and target of shape ",
              target.sizes(), " do not match");
  Tensor valid = t.ne(ignore_index);
  Tensor safe_t = where(valid, t, zeros_like(t));
  {
    Tensor bad = valid.logical_and(safe_t.lt(0).logical_or(safe_t.ge(C)));
    EMBER_CHECK_INDEX(!bad.any().item<bool>(), op, ": Target ", t.masked_select(bad)[0].item<int64_t>(),
                      " is out of bounds (", C, " classes).");
  }
  if (weight.defined())
    EMBER_CHECK(weight.dim() == 1 && weight.size(0) == C, op, ": weight tensor should be defined either for all ",
                C, " classes or no classes but got weight tensor of shape: ", weight.sizes());
  Tensor w = weight.defined() ? weight.to(lp.scalar_type()).index_select(0, safe_t) : ones_like(t, dtype(lp.scalar_type()));
  w = where(valid, w, zeros_like(w));
  Tensor picked = lp.gather(1, safe_t.unsqueeze(1)).squeeze(1);
  Tensor loss = picked.neg().mul(w);
  switch (reduction) {
    case Reduction::None: return unbatched ? loss.squeeze(0) : loss.view(tg.sizes());
    case Reduction::Sum: return loss.sum();
    default: {
      // weighted mean; nan when everything is ignored, with zero gradients (as PyTorch)
      Tensor total = w.sum(), none = total.eq(0);
      Tensor mean = loss.sum().div(where(none, ones_like(total), total));
      return where(none, full_like(mean, std::numeric_limits<double>::quiet_NaN()), mean);
    }
  }
}
}  // namespace

namespace {
const tracing::TracedOpDef nll_loss_traced{{"nll_loss", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  return {nll_loss(in.at(0), in.at(1), in.size() > 2 ? in[2] : Tensor(), tracing::int_attr(a, "ignore_index", "nll_loss"),
                   Reduction(tracing::int_attr(a, "reduction", "nll_loss")))};
}}};
}  // namespace

Tensor nll_loss(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                Reduction reduction) {
  if (tracing::active())
    return tracing::traced_call(nll_loss_traced, {input, target, weight},
                                {{"ignore_index", Scalar(ignore_index)}, {"reduction", Scalar(int64_t(reduction))}},
                                [&] { return nll_loss(input, target, weight, ignore_index, reduction); });
  EMBER_AUTOCAST(nll_loss, nll_loss(_ac[0], target, _ac[1], ignore_index, reduction), &input, &weight);
  return nll_loss_named(input, target, weight, ignore_index, reduction, "nll_loss");
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, int64_t ignore_index,
                     Reduction reduction, double label_smoothing) {
  check_defined(input, "cross_entropy", "input");
  check_defined(target, "cross_entropy", "target");
  EMBER_AUTOCAST(cross_entropy_loss, cross_entropy(_ac[0], _ac[1], _ac[2], ignore_index, reduction, label_smoothing), &input, &target, &weight);
  EMBER_CHECK(label_smoothing >= 0 && label_smoothing <= 1, "label_smoothing must be between 0.0 and 1.0. Got: ",
              label_smoothing);
  check_not_batchmean("cross_entropy", reduction);
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  const int64_t C = input.size(class_dim);
  Tensor lp = log_softmax(input, class_dim);
  DimVector wshape(size_t(input.dim()), 1);
  wshape[size_t(class_dim)] = C;
  if (target.is_floating_point() || target.is_complex()) {
    // class probabilities
    EMBER_CHECK(target.sizes() == input.sizes(), "cross_entropy: probability targets must have the input's shape ",
                input.sizes(), ", got ", target.sizes());
    Tensor t = label_smoothing > 0 ? target.mul(1 - label_smoothing).add(label_smoothing / double(C)) : target;
    Tensor prod = lp.mul(t);
    if (weight.defined()) prod = prod.mul(weight.view(wshape));
    Tensor loss = prod.sum(class_dim).neg();
    switch (reduction) {
      case Reduction::None: return loss;
      case Reduction::Sum: return loss.sum();
      default: return input.dim() == 1 ? loss : loss.sum().div(double(input.numel() / C));
    }
  }
  Tensor nll = nll_loss_named(lp, target, weight, ignore_index, reduction, "cross_entropy");
  if (label_smoothing == 0) return nll;
  // (1 - eps) * nll + eps / C * (-sum_c w_c log p_c), ignored positions excluded
  Tensor per = (weight.defined() ? lp.mul(weight.view(wshape)) : lp).sum(class_dim).neg();
  Tensor valid = target.ne(ignore_index);
  per = where(valid, per, zeros_like(per));
  Tensor smooth;
  switch (reduction) {
    case Reduction::None: smooth = per; break;
    case Reduction::Sum: smooth = per.sum(); break;
    default: {
      Tensor denom;
      if (weight.defined()) {
        Tensor safe_t = where(valid, target, zeros_like(target));
        Tensor wt = weight.to(lp.scalar_type()).index_select(0, safe_t.reshape({-1})).view(target.sizes());
        denom = where(valid, wt, zeros_like(wt)).sum();
      } else {
        denom = valid.sum().to(lp.scalar_type());
      }
      smooth = per.sum().div(denom);
    }
  }
  return nll.mul(1 - label_smoothing).add(smooth.mul(label_smoothing / double(C)));
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction) {
  EMBER_AUTOCAST(binary_cross_entropy, binary_cross_entropy(_ac[0], _ac[1], _ac[2], reduction), &input, &target, &weight);
  check_same_shape("binary_cross_entropy", input, target);
  {
    NoGradGuard g;
    EMBER_CHECK(input.ge(0).logical_and(input.le(1)).all().item<bool>(),
                "all elements of input should be between 0 and 1");
  }
  // PyTorch clamps the logs at -100 so that 0 * log(0) stays finite.
  Tensor loss = target.mul(input.log().clamp_min(-100)).add(target.neg().add(1).mul(input.neg().log1p().clamp_min(-100))).neg();
  if (weight.defined()) loss = loss.mul(weight);
  return apply_reduction(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        Reduction reduction, const Tensor& pos_weight) {
  EMBER_AUTOCAST(binary_cross_entropy_with_logits, binary_cross_entropy_with_logits(_ac[0], _ac[1], _ac[2], reduction, _ac[3]), &input, &target, &weight, &pos_weight);
  check_same_shape("binary_cross_entropy_with_logits", input, target);
  // (1 - y) x + (1 + (pw - 1) y) * log(1 + exp(-x)), with log(1 + exp(-x)) computed stably
  Tensor log_sig_neg = input.neg().clamp_min(0).add(input.abs().neg().exp().log1p());  // softplus(-x)
  Tensor loss;
  if (pos_weight.defined()) {
    Tensor lw = pos_weight.sub(1).mul(target).add(1);
    loss = target.neg().add(1).mul(input).add(lw.mul(log_sig_neg));
  } else {
    loss = target.neg().add(1).mul(input).add(log_sig_neg);
  }
  if (weight.defined()) loss = loss.mul(weight);
  return apply_reduction(loss, reduction);
}

Tensor kl_div(const Tensor& input, const Tensor& target, ReductionArg reduction, bool log_target) {
  EMBER_AUTOCAST(kl_div, kl_div(_ac[0], _ac[1], reduction, log_target), &input, &target);
  Tensor loss = log_target ? target.exp().mul(target.sub(input)) : xlogy(target, target).sub(target.mul(input));
  if (reduction == Reduction::BatchMean) return input.dim() == 0 ? loss.sum() : loss.sum().div(double(input.size(0)));
  return apply_reduction(loss, reduction);
}

Tensor soft_margin_loss(const Tensor& input, const Tensor& target, ReductionArg reduction) {
  EMBER_AUTOCAST(soft_margin_loss, soft_margin_loss(_ac[0], _ac[1], reduction), &input, &target);
  check_same_shape("soft_margin_loss", input, target);
  return apply_reduction(input.mul(target).neg().exp().log1p(), reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   Reduction reduction) {
  check_same_shape("multilabel_soft_margin_loss", input, target);
  // -(y log sigmoid(x) + (1 - y) log sigmoid(-x)) = (1 - y) x - log sigmoid(x)
  Tensor loss = target.neg().add(1).mul(input).sub(logsigmoid(input));
  if (weight.defined()) loss = loss.mul(weight);
  const int64_t class_dim = input.dim() - 1;
  return apply_reduction(loss.sum(class_dim).div(double(input.size(class_dim))), reduction);
}

Tensor multi_margin_loss(const Tensor& input, const Tensor& target, int64_t p, double margin, const Tensor& weight,
                         Reduction reduction) {
  EMBER_AUTOCAST(multi_margin_loss, multi_margin_loss(_ac[0], target, p, margin, _ac[1], reduction), &input,
                 &weight);
  EMBER_CHECK(p == 1 || p == 2, "only p == 1 and p == 2 supported");
  EMBER_CHECK((input.dim() <= 1 && target.dim() == 0) || (input.dim() == 2 && target.dim() == 1 &&
                                                          target.size(0) == input.size(0)),
              "inconsistent target size, expected ", input.dim() == 2 ? input.size(0) : 1, " but got ",
              target.sizes(), " for input of shape ", input.sizes());
  Tensor x = input.dim() == 2 ? input : input.reshape({1, -1});
  Tensor t = target.reshape({-1, 1}).to(kLong);
  const int64_t C = x.size(1);
  {
    NoGradGuard g;
    EMBER_CHECK_INDEX(!t.lt(0).logical_or(t.ge(C)).any().item<bool>(), "multi_margin_loss: target out of range");
  }
  if (weight.defined())
    EMBER_CHECK(weight.dim() == 1 && weight.numel() == C, "inconsistent weight size, expected ", C, " but got ",
                weight.sizes());
  Tensor z = x.sub(x.gather(1, t)).add(margin).clamp_min(0);  // (N, C); the target's own term excluded below
  if (p == 2) z = z.square();
  if (weight.defined()) z = z.mul(weight.index_select(0, t.reshape({-1})).unsqueeze(1));
  Tensor is_target = arange(C, dtype(kLong)).unsqueeze(0).eq(t);
  Tensor loss = where(is_target, zeros_like(z), z).sum(1).div(double(C));
  return apply_reduction(target.dim() == 0 ? loss.squeeze(0) : loss, reduction);
}

Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target, ReductionArg reduction) {
  EMBER_AUTOCAST(multilabel_margin_loss, multilabel_margin_loss(_ac[0], target, reduction), &input);
  EMBER_CHECK(input.dim() <= 2 && target.sizes() == input.sizes(), "inconsistent target size: ", target.sizes(),
              " for input of size: ", input.sizes());
  Tensor x = input.reshape({-1, input.dim() == 0 ? 1 : input.size(-1)});
  Tensor t = target.reshape(x.sizes()).to(kLong);
  const int64_t C = x.size(1);
  // the targets of a sample are its entries before the first -1
  Tensor valid = t.ne(-1).to(kLong).cumprod(1).to(kBool);
  Tensor safe_t = where(valid, t, zeros_like(t));
  {
    NoGradGuard g;
    EMBER_CHECK_INDEX(!safe_t.lt(0).logical_or(safe_t.ge(C)).any().item<bool>(),
                      "multilabel_margin_loss: target out of range");
  }
  // hits[n, j, i]: target j of sample n is class i
  Tensor hits = safe_t.unsqueeze(2).eq(arange(C, dtype(kLong))).logical_and(valid.unsqueeze(2));
  Tensor is_target = hits.any(1);  // (N, C)
  Tensor z = x.unsqueeze(1).sub(x.gather(1, safe_t).unsqueeze(2)).add(1).clamp_min(0);  // (N, j, i)
  Tensor use = valid.unsqueeze(2).logical_and(is_target.logical_not().unsqueeze(1));
  Tensor loss = where(use, z, zeros_like(z)).sum({1, 2}).div(double(C));
  return apply_reduction(input.dim() <= 1 ? loss.squeeze(0) : loss, reduction);
}

Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        Reduction reduction) {
  EMBER_AUTOCAST(poisson_nll_loss, poisson_nll_loss(_ac[0], _ac[1], log_input, full, eps, reduction), &input,
                 &target);
  Tensor loss = log_input ? input.exp().sub(target.mul(input)) : input.sub(target.mul(input.add(eps).log()));
  if (full) {
    Tensor stirling = target.mul(target.log()).sub(target).add(target.mul(2 * std::numbers::pi).log().mul(0.5));
    loss = loss.add(stirling.masked_fill(target.le(1), 0));
  }
  return apply_reduction(loss, reduction);
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full, double eps,
                         Reduction reduction) {
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef lead = input.sizes().slice(0, size_t(std::max<int64_t>(input.dim() - 1, 0)));
    if (input.dim() > 0 && var.sizes() == lead) {
      v = var.unsqueeze(-1);  // homoscedastic: one variance per sample
    } else {
      EMBER_CHECK(input.dim() > 0 && var.dim() == input.dim() && var.size(-1) == 1 &&
                      var.sizes().slice(0, size_t(var.dim() - 1)) == lead,
                  "var is of incorrect size");
    }
  }
  {
    NoGradGuard g;
    EMBER_CHECK(!var.lt(0).any().item<bool>(), "var has negative entry/entries");
  }
  // clamped to eps for stability, the gradient passing through unchanged (as PyTorch's no_grad clamp_)
  v = v.add(v.detach().clamp_min(eps).sub(v.detach()));
  Tensor loss = v.log().add(input.sub(target).square().div(v)).mul(0.5);
  if (full) loss = loss.add(0.5 * std::log(2 * std::numbers::pi));
  return apply_reduction(loss, reduction);
}

// ---- options forms ------------------------------------------------------------------------------
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options) {
  return functional::mse_loss(input, target, options.reduction());
}
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options) {
  return functional::l1_loss(input, target, options.reduction());
}
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target, const SmoothL1LossFuncOptions& options,
                      std::optional<double> beta) {
  return functional::smooth_l1_loss(input, target, options.reduction(), beta.value_or(options.beta()));
}
Tensor huber_loss(const Tensor& input, const Tensor& target, const HuberLossFuncOptions& options) {
  return functional::huber_loss(input, target, options.reduction(), options.delta());
}
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options) {
  return functional::nll_loss(input, target, options.weight(), options.ignore_index(), options.reduction());
}
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyFuncOptions& options) {
  return functional::cross_entropy(input, target, options.weight(), options.ignore_index(), options.reduction(),
                                   options.label_smoothing());
}
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const BinaryCrossEntropyFuncOptions& options) {
  return functional::binary_cross_entropy(input, target, options.weight(), options.reduction());
}
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        const BinaryCrossEntropyWithLogitsFuncOptions& options) {
  return functional::binary_cross_entropy_with_logits(input, target, options.weight(), options.reduction(),
                                                      options.pos_weight());
}
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options) {
  return functional::kl_div(input, target, options.reduction(), options.log_target());
}
Tensor soft_margin_loss(const Tensor& input, const Tensor& target, const SoftMarginLossFuncOptions& options) {
  return functional::soft_margin_loss(input, target, options.reduction());
}
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target,
                                   const MultilabelSoftMarginLossFuncOptions& options) {
  return functional::multilabel_soft_margin_loss(input, target, options.weight(), options.reduction());
}
Tensor multi_margin_loss(const Tensor& input, const Tensor& target, const MultiMarginLossFuncOptions& options) {
  return functional::multi_margin_loss(input, target, options.p(), options.margin(), options.weight(),
                                       options.reduction());
}
Tensor multilabel_margin_loss(const Tensor& input, const Tensor& target,
                              const MultilabelMarginLossFuncOptions& options) {
  return functional::multilabel_margin_loss(input, target, options.reduction());
}
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, const PoissonNLLLossFuncOptions& options) {
  return functional::poisson_nll_loss(input, target, options.log_input(), options.full(), options.eps(),
                                      options.reduction());
}
}  // namespace functional

// ---- the margin losses on distances -------------------------------------------------------
namespace functional {
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           Reduction reduction) {
  EMBER_AUTOCAST(margin_ranking_loss, margin_ranking_loss(_ac[0], _ac[1], _ac[2], margin, reduction), &input1, &input2, &target);
  return apply_reduction(target.neg().mul(input1.sub(input2)).add(margin).clamp_min(0), reduction);
}

Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, double margin, Reduction reduction) {
  EMBER_AUTOCAST(hinge_embedding_loss, hinge_embedding_loss(_ac[0], _ac[1], margin, reduction), &input, &target);
  // PyTorch's composition: the margin term unless target == 1, the input unless target == -1
  Tensor neg = input.neg().add(margin).clamp_min(0);
  Tensor loss = where(target.ne(1), neg, zeros_like(neg)).add(where(target.ne(-1), input, zeros_like(input)));
  return apply_reduction(loss, reduction);
}

Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             Reduction reduction) {
  EMBER_AUTOCAST(cosine_embedding_loss, cosine_embedding_loss(_ac[0], _ac[1], _ac[2], margin, reduction), &input1, &input2, &target);
  Tensor cos = cosine_similarity(input1, input2, -1, 1e-8);
  Tensor loss = where(target.eq(1), cos.neg().add(1), cos.sub(margin).clamp_min(0));
  return apply_reduction(loss, reduction);
}

Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, Reduction reduction) {
  EMBER_AUTOCAST(triplet_margin_loss, triplet_margin_loss(_ac[0], _ac[1], _ac[2], margin, p, eps, swap, reduction), &anchor, &positive, &negative);
  Tensor dp = pairwise_distance(anchor, positive, p, eps), dn = pairwise_distance(anchor, negative, p, eps);
  if (swap) dn = minimum(dn, pairwise_distance(positive, negative, p, eps));
  return apply_reduction(dp.sub(dn).add(margin).clamp_min(0), reduction);
}

Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                           const MarginRankingLossFuncOptions& options) {
  return functional::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor hinge_embedding_loss(const Tensor& input, const Tensor& target, const HingeEmbeddingLossFuncOptions& options) {
  return functional::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target,
                             const CosineEmbeddingLossFuncOptions& options) {
  return functional::cosine_embedding_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                           const TripletMarginLossFuncOptions& options) {
  return functional::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                         options.swap(), options.reduction());
}
Tensor triplet_margin_with_distance_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                         const TripletMarginWithDistanceLossFuncOptions& options) {
  EMBER_CHECK(options.margin() > 0, "triplet_margin_with_distance_loss: expected margin to be greater than 0, got ",
              options.margin(), " instead");
  const auto& fn = options.distance_function();
  const auto distance = [&](const Tensor& a, const Tensor& b) {
    return fn ? (*fn)(a, b) : functional::pairwise_distance(a, b, PairwiseDistanceFuncOptions());
  };
  Tensor dp = distance(anchor, positive), dn = distance(anchor, negative);
  if (options.swap()) dn = minimum(dn, distance(positive, negative));
  return apply_reduction(dp.sub(dn).add(options.margin()).clamp_min(0), options.reduction());
}
}  // namespace functional

}  // namespace ember::nn
