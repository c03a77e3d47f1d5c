// torch::nn::functional's options call forms for the losses, against the positional calls and values.
#include <torch/torch.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "func_options_test_util.h"
#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::sample;

// ---- losses -----------------------------------------------------------------------------------
TEST(FuncOptionsLosses, Regression) {
  const torch::Tensor x = sample({4, 5}), t = sample({4, 5}, 1);
  EXPECT_TENSOR_EQ(F::mse_loss(x, t, F::MSELossFuncOptions(torch::kSum)), F::mse_loss(x, t, torch::kSum));
  EXPECT_TENSOR_EQ(F::mse_loss(x, t, F::MSELossFuncOptions().reduction(torch::kNone)), (x - t).pow(2));
  EXPECT_TENSOR_EQ(F::mse_loss(x, t), F::mse_loss(x, t, torch::kMean));
  EXPECT_TENSOR_EQ(F::l1_loss(x, t, F::L1LossFuncOptions(torch::kSum)), F::l1_loss(x, t, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::l1_loss(x, t, F::L1LossFuncOptions(torch::kSum)), (x - t).abs().sum());
  EXPECT_TENSOR_EQ(F::l1_loss(x, t), F::l1_loss(x, t, torch::kMean));
  EXPECT_TENSOR_EQ(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions(torch::kSum).beta(0.5)),
                   F::smooth_l1_loss(x, t, torch::kSum, 0.5));
  // LibTorch 1.13's extra beta argument
  EXPECT_TENSOR_EQ(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions(torch::kNone), 0.5),
                   F::smooth_l1_loss(x, t, torch::kNone, 0.5));
  const torch::Tensor d = (x - t).abs();
  EXPECT_TENSOR_CLOSE(F::smooth_l1_loss(x, t, F::SmoothL1LossFuncOptions(torch::kNone).beta(0.5)),
                      torch::where(d < 0.5, d.pow(2) * 0.5 / 0.5, d - 0.25));
  EXPECT_TENSOR_EQ(F::smooth_l1_loss(x, t), F::smooth_l1_loss(x, t, torch::kMean));
  EXPECT_TENSOR_EQ(F::huber_loss(x, t, F::HuberLossFuncOptions().reduction(torch::kSum).delta(0.3)),
                   F::huber_loss(x, t, torch::kSum, 0.3));
  EXPECT_TENSOR_CLOSE(F::huber_loss(x, t, F::HuberLossFuncOptions(torch::kNone).delta(0.3)),
                      torch::where(d < 0.3, d.pow(2) * 0.5, (d - 0.15) * 0.3));
  EXPECT_TENSOR_EQ(F::huber_loss(x, t), F::huber_loss(x, t, torch::kMean));
  const torch::Tensor rate = sample({4, 5}, 2).abs() + 0.1, counts = (rate * 3).round();
  EXPECT_TENSOR_EQ(F::poisson_nll_loss(rate, counts,
                                       F::PoissonNLLLossFuncOptions().log_input(false).full(true).eps(1e-4).reduction(
                                           torch::kSum)),
                   F::poisson_nll_loss(rate, counts, false, true, 1e-4, torch::kSum));
  EXPECT_TENSOR_EQ(F::poisson_nll_loss(x, counts), F::poisson_nll_loss(x, counts, true));
  EXPECT_TENSOR_CLOSE(F::poisson_nll_loss(x, counts, F::PoissonNLLLossFuncOptions().reduction(torch::kNone)),
                      x.exp() - counts * x);
}

TEST(FuncOptionsLosses, Classification) {
  const torch::Tensor x = sample({6, 4});
  const torch::Tensor target = torch::tensor(std::vector<int64_t>{0, 3, 1, 1, 2, 3});
  const torch::Tensor w = sample({4}, 1).abs() + 0.5;
  EXPECT_TENSOR_EQ(
      F::cross_entropy(x, target,
                       F::CrossEntropyFuncOptions().weight(w).ignore_index(1).reduction(torch::kSum).label_smoothing(
                           0.1)),
      F::cross_entropy(x, target, w, 1, torch::kSum, 0.1));
  EXPECT_TENSOR_EQ(F::cross_entropy(x, target), F::cross_entropy(x, target, {}, -100, torch::kMean, 0.0));
  // against -log_softmax at the targets, the ignored ones left out
  const torch::Tensor picked = -torch::log_softmax(x, 1).gather(1, target.unsqueeze(1)).squeeze(1);
  EXPECT_NEAR(F::cross_entropy(x, target, F::CrossEntropyFuncOptions().ignore_index(1).reduction(torch::kSum))
                  .item<double>(),
              picked.masked_select(target != 1).sum().item<double>(), 1e-12);
  const torch::Tensor lp = torch::log_softmax(x, 1);
  EXPECT_TENSOR_EQ(F::nll_loss(lp, target, F::NLLLossFuncOptions().weight(w).ignore_index(3).reduction(torch::kNone)),
                   F::nll_loss(lp, target, w, 3, torch::kNone));
  EXPECT_TENSOR_EQ(F::nll_loss(lp, target), F::nll_loss(lp, target, {}, -100, torch::kMean));
  const torch::Tensor p = torch::sigmoid(x), y = (sample({6, 4}, 2) > 0).to(torch::kDouble);
  const torch::Tensor wb = sample({6, 4}, 3).abs();
  EXPECT_TENSOR_EQ(F::binary_cross_entropy(p, y, F::BinaryCrossEntropyFuncOptions().weight(wb).reduction(torch::kSum)),
                   F::binary_cross_entropy(p, y, wb, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::binary_cross_entropy(p, y, F::BinaryCrossEntropyFuncOptions().reduction(torch::kNone)),
                      -(y * p.log() + (1 - y) * (1 - p).log()));
  EXPECT_TENSOR_EQ(F::binary_cross_entropy(p, y), F::binary_cross_entropy(p, y, {}, torch::kMean));
  const torch::Tensor pw = sample({4}, 4).abs();
  EXPECT_TENSOR_EQ(
      F::binary_cross_entropy_with_logits(
          x, y, F::BinaryCrossEntropyWithLogitsFuncOptions().weight(wb).pos_weight(pw).reduction(torch::kNone)),
      F::binary_cross_entropy_with_logits(x, y, wb, torch::kNone, pw));
  EXPECT_TENSOR_EQ(F::binary_cross_entropy_with_logits(x, y),
                   F::binary_cross_entropy_with_logits(x, y, torch::Tensor()));
  const torch::Tensor lq = torch::log_softmax(sample({6, 4}, 5), 1), pt = torch::softmax(sample({6, 4}, 6), 1);
  EXPECT_TENSOR_EQ(F::kl_div(lq, pt.log(), F::KLDivFuncOptions(torch::kBatchMean).log_target(true)),
                   F::kl_div(lq, pt.log(), torch::kBatchMean, true));
  EXPECT_NEAR(F::kl_div(lq, pt, F::KLDivFuncOptions().reduction(torch::kBatchMean)).item<double>(),
              (pt * (pt.log() - lq)).sum().item<double>() / 6, 1e-12);
  EXPECT_TENSOR_EQ(F::kl_div(lq, pt), F::kl_div(lq, pt, torch::kMean));
}

TEST(FuncOptionsLosses, Margin) {
  const torch::Tensor x = sample({5, 4});
  const torch::Tensor sign = torch::where(sample({5, 4}, 1) > 0, torch::ones({5, 4}, torch::kDouble),
                                          -torch::ones({5, 4}, torch::kDouble));
  EXPECT_TENSOR_EQ(F::soft_margin_loss(x, sign, F::SoftMarginLossFuncOptions(torch::kSum)),
                   F::soft_margin_loss(x, sign, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::soft_margin_loss(x, sign, F::SoftMarginLossFuncOptions(torch::kNone)),
                      (1 + (-sign * x).exp()).log());
  EXPECT_TENSOR_EQ(F::soft_margin_loss(x, sign), F::soft_margin_loss(x, sign, torch::kMean));
  const torch::Tensor labels = (sign > 0).to(torch::kDouble), w = sample({4}, 2).abs();
  EXPECT_TENSOR_EQ(F::multilabel_soft_margin_loss(
                       x, labels, F::MultilabelSoftMarginLossFuncOptions().reduction(torch::kNone).weight(w)),
                   F::multilabel_soft_margin_loss(x, labels, w, torch::kNone));
  EXPECT_TENSOR_EQ(F::multilabel_soft_margin_loss(x, labels),
                   F::multilabel_soft_margin_loss(x, labels, torch::Tensor()));
  const torch::Tensor cls = torch::tensor(std::vector<int64_t>{0, 3, 2, 1, 3});
  EXPECT_TENSOR_EQ(
      F::multi_margin_loss(x, cls, F::MultiMarginLossFuncOptions().p(2).margin(0.5).weight(w).reduction(torch::kSum)),
      F::multi_margin_loss(x, cls, 2, 0.5, w, torch::kSum));
  EXPECT_TENSOR_EQ(F::multi_margin_loss(x, cls), F::multi_margin_loss(x, cls, 1));
  // sum_{i != y} max(0, margin - x[y] + x[i]) / C, checked on the first sample
  double first = 0;
  for (int64_t i = 1; i < 4; ++i) first += std::max(0.0, 0.5 - x[0][0].item<double>() + x[0][i].item<double>());
  EXPECT_NEAR(F::multi_margin_loss(x, cls, F::MultiMarginLossFuncOptions().margin(0.5).reduction(torch::kNone))[0]
                  .item<double>(),
              first / 4, 1e-12);
  const torch::Tensor ml = torch::tensor(std::vector<int64_t>{3, 0, -1, 1, 2, 1, -1, 0, 0, -1, 2, 2, 1, 2, 3, 0,
                                                              0, 1, 2, 3}).view({5, 4});
  EXPECT_TENSOR_EQ(F::multilabel_margin_loss(x, ml, F::MultilabelMarginLossFuncOptions(torch::kSum)),
                   F::multilabel_margin_loss(x, ml, torch::kSum));
  EXPECT_TENSOR_EQ(F::multilabel_margin_loss(x, ml), F::multilabel_margin_loss(x, ml, torch::kMean));

  const torch::Tensor a = sample({5}), b = sample({5}, 3), s = sign.select(1, 0);
  EXPECT_TENSOR_EQ(
      F::margin_ranking_loss(a, b, s, F::MarginRankingLossFuncOptions().margin(0.5).reduction(torch::kSum)),
      F::margin_ranking_loss(a, b, s, 0.5, torch::kSum));
  EXPECT_TENSOR_CLOSE(F::margin_ranking_loss(a, b, s, F::MarginRankingLossFuncOptions().reduction(torch::kNone)),
                      (-s * (a - b)).clamp_min(0));
  EXPECT_TENSOR_EQ(F::margin_ranking_loss(a, b, s), F::margin_ranking_loss(a, b, s, 0.0));
  EXPECT_TENSOR_EQ(
      F::hinge_embedding_loss(x, sign, F::HingeEmbeddingLossFuncOptions().margin(2).reduction(torch::kSum)),
      F::hinge_embedding_loss(x, sign, 2.0, torch::kSum));
  EXPECT_TENSOR_EQ(F::hinge_embedding_loss(x, sign), F::hinge_embedding_loss(x, sign, 1.0));
  const torch::Tensor u = sample({5, 4}, 4), v = sample({5, 4}, 5);
  EXPECT_TENSOR_EQ(
      F::cosine_embedding_loss(u, v, s, F::CosineEmbeddingLossFuncOptions().margin(0.25).reduction(torch::kNone)),
      F::cosine_embedding_loss(u, v, s, 0.25, torch::kNone));
  EXPECT_TENSOR_EQ(F::cosine_embedding_loss(u, v, s), F::cosine_embedding_loss(u, v, s, 0.0));
}

TEST(FuncOptionsLosses, Triplet) {
  const torch::Tensor an = sample({6, 3}), po = sample({6, 3}, 1), ne = sample({6, 3}, 2);
  EXPECT_TENSOR_EQ(
      F::triplet_margin_loss(an, po, ne,
                             F::TripletMarginLossFuncOptions().margin(0.7).p(1).eps(1e-3).swap(true).reduction(
                                 torch::kNone)),
      F::triplet_margin_loss(an, po, ne, 0.7, 1.0, 1e-3, true, torch::kNone));
  EXPECT_TENSOR_EQ(F::triplet_margin_loss(an, po, ne), F::triplet_margin_loss(an, po, ne, 1.0));
  // the distance version with its default distance is the p = 2 triplet margin loss
  EXPECT_TENSOR_CLOSE(F::triplet_margin_with_distance_loss(
                          an, po, ne, F::TripletMarginWithDistanceLossFuncOptions().margin(0.5).swap(true)),
                      F::triplet_margin_loss(an, po, ne, 0.5, 2.0, 1e-6, true));
  // a distance function of its own
  const auto cos_distance = [](const torch::Tensor& a, const torch::Tensor& b) {
    return 1 - F::cosine_similarity(a, b, F::CosineSimilarityFuncOptions().dim(1));
  };
  const torch::Tensor got = F::triplet_margin_with_distance_loss(
      an, po, ne,
      F::TripletMarginWithDistanceLossFuncOptions().distance_function(cos_distance).margin(0.3).reduction(
          torch::kNone));
  EXPECT_TENSOR_CLOSE(got, (cos_distance(an, po) - cos_distance(an, ne) + 0.3).clamp_min(0));
  EXPECT_ERROR_WITH(F::triplet_margin_with_distance_loss(an, po, ne,
                                                         F::TripletMarginWithDistanceLossFuncOptions().margin(0)),
                    "margin");
}

}  // namespace
