// torch::nn::functional's options forms written as in LibTorch's documentation: a model, nn::Functional, snippets.
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;

// ---- written as in LibTorch's documentation ---------------------------------------------------
// A model whose forward uses the functional options forms as LibTorch programs do.
struct DocNet : torch::nn::Module {
  DocNet() : fc1(8, 16), fc2(16, 4), norm(torch::nn::LayerNormOptions({16})) {
    register_module("fc1", fc1);
    register_module("fc2", fc2);
    register_module("norm", norm);
  }
  torch::Tensor forward(torch::Tensor x) {
    namespace F = torch::nn::functional;
    x = F::leaky_relu(fc1->forward(x), F::LeakyReLUFuncOptions().negative_slope(0.2));
    x = F::layer_norm(x, F::LayerNormFuncOptions({16}).eps(1e-6));
    x = F::dropout(x, F::DropoutFuncOptions().p(0.5).training(is_training()));
    x = F::relu(x, F::ReLUFuncOptions().inplace(true));
    x = F::normalize(x, F::NormalizeFuncOptions().p(2).dim(-1));
    return F::log_softmax(fc2->forward(x), F::LogSoftmaxFuncOptions(1));
  }
  torch::nn::Linear fc1, fc2;
  torch::nn::LayerNorm norm;
};

TEST(FuncOptionsDocs, Model) {
  DocNet net;
  torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.1));
  const torch::Tensor x = torch::randn({6, 8});
  const torch::Tensor y = torch::tensor(std::vector<int64_t>{0, 1, 2, 3, 0, -1});
  for (int step = 0; step < 3; ++step) {
    opt.zero_grad();
    torch::Tensor loss = F::nll_loss(net.forward(x), y, F::NLLLossFuncOptions().ignore_index(-1));
    loss.backward();
    opt.step();
    EXPECT_TRUE(std::isfinite(loss.item<double>()));
  }
  net.eval();
  const torch::Tensor out = net.forward(x);
  EXPECT_TENSOR_CLOSE(out.exp().sum(1), torch::ones({6}));
  torch::Tensor ce = F::cross_entropy(out, y, F::CrossEntropyFuncOptions().ignore_index(-1).reduction(torch::kSum));
  EXPECT_TRUE(std::isfinite(ce.item<double>()));
}

// nn::Functional around a functional with its options (LibTorch's container docs).
TEST(FuncOptionsDocs, FunctionalModule) {
  torch::nn::Sequential seq(torch::nn::Linear(3, 4), torch::nn::Functional(torch::relu),
                            torch::nn::Functional(F::relu6, F::ReLU6FuncOptions()),
                            torch::nn::Functional(F::rrelu, F::RReLUFuncOptions().lower(0.2).upper(0.2)));
  const torch::Tensor x = torch::randn({2, 3});
  auto* lin = seq->ptr(0)->as<torch::nn::Linear>();
  ASSERT_NE(lin, nullptr);
  EXPECT_TENSOR_CLOSE(seq->forward(x), torch::relu6(torch::relu(lin->forward(x))));
}

// The examples of LibTorch's torch/nn/functional/*.h documentation, one per functional, each
// checked against the formula it computes (or, where the result is random or a reduction of
// many terms, the property that defines it).
TEST(FuncOptionsDocs, Snippets) {
  torch::manual_seed(5);
  const torch::Tensor x0 = torch::randn({4, 6}), input = torch::randn({2, 4, 3, 3}), logits = torch::randn({3, 5});
  const torch::Tensor pos = x0.clamp_min(0), neg = x0.clamp_max(0);
  auto inplace = [&](const std::function<void(torch::Tensor&)>& f) {
    torch::Tensor x = x0.clone();
    f(x);
    return x;
  };
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::elu(x, F::ELUFuncOptions().alpha(0.42).inplace(true)); }),
                      pos + (neg.exp() - 1) * 0.42);
  const double sa = 1.6732632423543772, ss = 1.0507009873554805;
  EXPECT_TENSOR_CLOSE(F::selu(input, F::SELUFuncOptions(false)),
                      (input.clamp_min(0) + (input.clamp_max(0).exp() - 1) * sa) * ss);
  EXPECT_TENSOR_CLOSE(F::hardshrink(x0, F::HardshrinkFuncOptions().lambda(0.42)),
                      torch::where(x0.abs() > 0.42, x0, torch::zeros_like(x0)));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::hardtanh(x, F::HardtanhFuncOptions().min_val(-1.0).max_val(1.0).inplace(true));
                      }),
                      x0.clamp(-1, 1));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.42).inplace(true));
                      }),
                      pos + neg * 0.42);
  const torch::Tensor hard = F::gumbel_softmax(logits, F::GumbelSoftmaxFuncOptions().hard(true).dim(-1));
  EXPECT_TRUE(torch::equal(hard.sum(-1), torch::ones({3})));  // one-hot rows
  EXPECT_TRUE(torch::equal(hard.eq(0).logical_or(hard.eq(1)), torch::ones_like(hard, torch::kBool)));
  const torch::Tensor e = input.exp();
  EXPECT_TENSOR_CLOSE(F::softmax(input, F::SoftmaxFuncOptions(1)), e / e.sum(1, true));
  EXPECT_TENSOR_CLOSE(F::softmin(input, F::SoftminFuncOptions(1)), input.neg().exp() / input.neg().exp().sum(1, true));
  EXPECT_TENSOR_CLOSE(F::log_softmax(input, F::LogSoftmaxFuncOptions(1)), (e / e.sum(1, true)).log());
  EXPECT_TENSOR_CLOSE(F::glu(input, F::GLUFuncOptions(1)), input.narrow(1, 0, 2) * input.narrow(1, 2, 2).sigmoid());
  const double k = std::sqrt(2 / M_PI);
  EXPECT_TENSOR_CLOSE(F::gelu(input, F::GELUFuncOptions().approximate("tanh")),
                      input * 0.5 * (1 + ((input + input.pow(3) * 0.044715) * k).tanh()));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::relu(x, F::ReLUFuncOptions().inplace(true)); }), pos);
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::relu6(x, F::ReLU6FuncOptions().inplace(true)); }),
                      x0.clamp(0, 6));
  // not training: the slope is the mean of lower and upper
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::rrelu(x, F::RReLUFuncOptions().lower(0.1).upper(0.4).inplace(true));
                      }),
                      pos + neg * 0.25);
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::celu(x, F::CELUFuncOptions().alpha(0.42).inplace(true)); }),
                      pos + ((neg / 0.42).exp() - 1) * 0.42);
  EXPECT_TENSOR_CLOSE(F::softplus(x0, F::SoftplusFuncOptions().beta(0.5).threshold(3.0)),
                      torch::where(x0 * 0.5 > 3, x0, (x0 * 0.5).exp().log1p() / 0.5));
  EXPECT_TENSOR_CLOSE(F::softshrink(x0, F::SoftshrinkFuncOptions(0.42)),
                      torch::where(x0.abs() > 0.42, x0 - x0.sign() * 0.42, torch::zeros_like(x0)));
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) {
                        F::threshold(x, F::ThresholdFuncOptions(0.5, 0.5).inplace(true));
                      }),
                      torch::where(x0 > 0.5, x0, torch::full_like(x0, 0.5)));
  // dropout (training by default): each element, or each channel, is 0 or scaled by 1 / (1 - p)
  const torch::Tensor d = F::dropout(input, F::DropoutFuncOptions().p(0.5));
  EXPECT_TRUE(torch::allclose(torch::where(d.eq(0), torch::zeros_like(input), input * 2), d));
  const torch::Tensor d2 = F::dropout2d(input, F::Dropout2dFuncOptions().p(0.5));
  const torch::Tensor kept2 = d2.flatten(2).ne(0).any(-1, true).unsqueeze(-1);
  EXPECT_TENSOR_CLOSE(d2, torch::where(kept2, input * 2, torch::zeros_like(input)));
  const torch::Tensor in5 = input.unsqueeze(0);
  const torch::Tensor d3 = F::dropout3d(in5, F::Dropout3dFuncOptions().p(0.5));
  const torch::Tensor kept3 = d3.flatten(2).ne(0).any(-1, true).unsqueeze(-1).unsqueeze(-1);
  EXPECT_TENSOR_CLOSE(d3, torch::where(kept3, in5 * 2, torch::zeros_like(in5)));
  torch::Tensor weight = torch::randn({10, 3}), idx = torch::tensor(std::vector<int64_t>{1, 2, 4, 5});
  EXPECT_TENSOR_CLOSE(
      F::embedding(idx, weight, F::EmbeddingFuncOptions().norm_type(2.5).scale_grad_by_freq(true).sparse(true)),
      weight.index_select(0, idx));
  torch::Tensor input1 = torch::randn({5, 3}), input2 = torch::randn({5, 3});
  EXPECT_TENSOR_CLOSE(F::cosine_similarity(input1, input2, F::CosineSimilarityFuncOptions().dim(1)),
                      (input1 * input2).sum(1) / (input1.norm(2, 1) * input2.norm(2, 1)));
  EXPECT_TENSOR_CLOSE(F::pairwise_distance(input1, input2, F::PairwiseDistanceFuncOptions().p(1)),
                      (input1 - input2 + 1e-6).abs().sum(1));
  EXPECT_TENSOR_CLOSE(F::normalize(input, F::NormalizeFuncOptions().p(1).dim(-1)),
                      input / input.abs().sum(-1, true));
  const torch::Tensor mu = input.mean({2, 3}, true), var = input.var({2, 3}, false, true);
  EXPECT_TENSOR_CLOSE(F::layer_norm(input, F::LayerNormFuncOptions({3, 3}).eps(2e-5)), (input - mu) / (var + 2e-5).sqrt());
  torch::Tensor target = torch::randn({5, 3}), prob = torch::rand({5, 3}), w = torch::rand({5, 3});
  EXPECT_TENSOR_CLOSE(F::l1_loss(input1, target, F::L1LossFuncOptions(torch::kNone)), (input1 - target).abs());
  EXPECT_TENSOR_CLOSE(F::kl_div(input1, prob, F::KLDivFuncOptions().reduction(torch::kNone).log_target(false)),
                      prob * (prob.log() - input1));
  EXPECT_TENSOR_CLOSE(F::mse_loss(input1, target, F::MSELossFuncOptions(torch::kNone)), (input1 - target).square());
  const torch::Tensor y = prob.round();
  EXPECT_TENSOR_CLOSE(F::binary_cross_entropy(prob, y, F::BinaryCrossEntropyFuncOptions().weight(w)),
                      (-w * (y * prob.log() + (1 - y) * (1 - prob).log())).mean());
  const torch::Tensor sg = target.sign();
  EXPECT_TENSOR_CLOSE(F::hinge_embedding_loss(input1, sg, F::HingeEmbeddingLossFuncOptions().margin(2)),
                      torch::where(sg.eq(1), input1, (2 - input1).clamp_min(0)).mean());
  torch::Tensor cls = torch::tensor(std::vector<int64_t>{0, 2, 1, 1, 0});
  const torch::Tensor mw = torch::rand({3});
  {  // sum over j != y of w[y] * max(0, margin - x[y] + x[j])^p / C, p = 1
    const torch::Tensor xy = input1.gather(1, cls.unsqueeze(1));
    const torch::Tensor terms = (2 - xy + input1).clamp_min(0) * mw.index_select(0, cls).unsqueeze(1);
    const torch::Tensor not_y = torch::ones_like(input1).scatter(1, cls.unsqueeze(1), 0);
    EXPECT_TENSOR_CLOSE(F::multi_margin_loss(input1, cls, F::MultiMarginLossFuncOptions().margin(2).weight(mw)),
                        (terms * not_y).sum(1).div(3).mean());
  }
  torch::Tensor sign = torch::tensor({1.0f, -1.0f, 1.0f, 1.0f, -1.0f});
  {
    const torch::Tensor cosv = (input1 * input2).sum(1) / (input1.norm(2, 1) * input2.norm(2, 1));
    EXPECT_TENSOR_CLOSE(
        F::cosine_embedding_loss(input1, input2, sign, F::CosineEmbeddingLossFuncOptions().margin(0.5)),
        torch::where(sign.eq(1), 1 - cosv, (cosv - 0.5).clamp_min(0)).mean());
  }
  const torch::Tensor diff = (input1 - target).abs();
  EXPECT_TENSOR_CLOSE(F::smooth_l1_loss(input1, target, F::SmoothL1LossFuncOptions(torch::kNone)),
                      torch::where(diff < 1, diff.square() * 0.5, diff - 0.5));
  EXPECT_TENSOR_CLOSE(F::huber_loss(input1, target, F::HuberLossFuncOptions().reduction(torch::kNone).delta(0.5)),
                      torch::where(diff < 0.5, diff.square() * 0.5, (diff - 0.25) * 0.5));
  torch::Tensor ml = torch::tensor(std::vector<int64_t>{0, 1, -1, 2, -1, 0, 1, 2, -1, 0, 0, 0, 2, -1, 1}).view({5, 3});
  {  // per row: sum over targets t (before the first -1) and non-targets j of max(0, 1 - (x[t] - x[j])) / C
    torch::Tensor expect = torch::zeros({5});
    for (int64_t i = 0; i < 5; ++i) {
      std::vector<int64_t> targets;
      for (int64_t j = 0; j < 3 && ml[i][j].item<int64_t>() >= 0; ++j) targets.push_back(ml[i][j].item<int64_t>());
      double sum = 0;
      for (int64_t t : targets)
        for (int64_t j = 0; j < 3; ++j)
          if (std::find(targets.begin(), targets.end(), j) == targets.end())
            sum += std::max(0.0, 1 - (input1[i][t].item<double>() - input1[i][j].item<double>()));
      expect[i] = sum / 3;
    }
    EXPECT_TENSOR_CLOSE(F::multilabel_margin_loss(input1, ml, F::MultilabelMarginLossFuncOptions(torch::kNone)),
                        expect);
  }
  EXPECT_TENSOR_CLOSE(F::soft_margin_loss(input1, sg, F::SoftMarginLossFuncOptions(torch::kNone)),
                      (-sg * input1).exp().log1p());
  {
    const torch::Tensor lw = torch::rand({3});
    const torch::Tensor per = -(y * input1.sigmoid().log() + (1 - y) * (-input1).sigmoid().log()) * lw;
    EXPECT_TENSOR_CLOSE(
        F::multilabel_soft_margin_loss(input1, y,
                                       F::MultilabelSoftMarginLossFuncOptions().reduction(torch::kNone).weight(lw)),
        per.mean(1));
  }
  torch::Tensor anchor = torch::randn({5, 3}), positive = torch::randn({5, 3}), negative = torch::randn({5, 3});
  auto dist = [](const torch::Tensor& a, const torch::Tensor& b) { return (a - b + 1e-6).norm(2, 1); };
  EXPECT_TENSOR_CLOSE(
      F::triplet_margin_loss(anchor, positive, negative, F::TripletMarginLossFuncOptions().margin(1.0)),
      (dist(anchor, positive) - dist(anchor, negative) + 1).clamp_min(0).mean());
  EXPECT_TENSOR_CLOSE(F::triplet_margin_with_distance_loss(anchor, positive, negative,
                                                           F::TripletMarginWithDistanceLossFuncOptions().margin(1.0)),
                      (F::pairwise_distance(anchor, positive) - F::pairwise_distance(anchor, negative) + 1)
                          .clamp_min(0)
                          .mean());
  EXPECT_TENSOR_CLOSE(F::poisson_nll_loss(input1, prob, F::PoissonNLLLossFuncOptions().reduction(torch::kNone)),
                      input1.exp() - prob * input1);
  const torch::Tensor a0 = input1.select(1, 0), b0 = input2.select(1, 0);
  EXPECT_TENSOR_CLOSE(F::margin_ranking_loss(a0, b0, sign, F::MarginRankingLossFuncOptions().margin(0.5).reduction(
                                                               torch::kSum)),
                      (-sign * (a0 - b0) + 0.5).clamp_min(0).sum());
  torch::Tensor logp = torch::log_softmax(input1, 1);
  const torch::Tensor picked = logp.gather(1, cls.unsqueeze(1)).neg().mean();
  EXPECT_TENSOR_CLOSE(F::nll_loss(logp, cls, F::NLLLossFuncOptions().ignore_index(-100).reduction(torch::kMean)), picked);
  EXPECT_TENSOR_CLOSE(
      F::cross_entropy(input1, cls, F::CrossEntropyFuncOptions().ignore_index(-100).reduction(torch::kMean)), picked);
  torch::Tensor pos_weight = torch::ones({3});
  EXPECT_TENSOR_CLOSE(
      F::binary_cross_entropy_with_logits(
          input1, y, F::BinaryCrossEntropyWithLogitsFuncOptions().pos_weight(pos_weight).reduction(torch::kSum)),
      (-(y * input1.sigmoid().log() + (1 - y) * (-input1).sigmoid().log())).sum());
  // and the forms that convert to the options implicitly
  EXPECT_TENSOR_CLOSE(inplace([](torch::Tensor& x) { F::relu(x, true); }), pos);
  EXPECT_TENSOR_CLOSE(F::softmax(input, 1), e / e.sum(1, true));
  EXPECT_TENSOR_CLOSE(F::glu(input, 1), input.narrow(1, 0, 2) * input.narrow(1, 2, 2).sigmoid());
  EXPECT_TENSOR_CLOSE(F::hardshrink(x0, 0.42), torch::where(x0.abs() > 0.42, x0, torch::zeros_like(x0)));
  EXPECT_TENSOR_CLOSE(F::mse_loss(input1, target, torch::kSum), (input1 - target).square().sum());
  EXPECT_TENSOR_CLOSE(F::layer_norm(input, {3, 3}), (input - mu) / (var + 1e-5).sqrt());
}

}  // namespace
