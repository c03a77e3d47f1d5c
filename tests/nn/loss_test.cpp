// Losses of ember/nn/functional/loss.h against naive double-precision references written here (PyTorch's
// documented formulas), their gradients by gradcheck, the margin losses against their
// definitions, and an MLP trained end to end.
#include <torch/torch.h>

#include <cmath>
#include <vector>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

// Naive cross entropy over (N, C) logits with class indices, weights, ignore_index and
// label smoothing, as PyTorch documents it.
double naive_ce(const torch::Tensor& x, const std::vector<int64_t>& t, const std::vector<double>& w, int64_t ignore,
                double eps, bool mean) {
  const int64_t N = x.size(0), C = x.size(1);
  double num = 0, nll_den = 0, smooth_num = 0;
  for (int64_t n = 0; n < N; ++n) {
    if (t[size_t(n)] == ignore) continue;
    double mx = -1e300;
    for (int64_t c = 0; c < C; ++c) mx = std::max(mx, x[n][c].item<double>());
    double s = 0;
    for (int64_t c = 0; c < C; ++c) s += std::exp(x[n][c].item<double>() - mx);
    auto lp = [&](int64_t c) { return x[n][c].item<double>() - mx - std::log(s); };
    const double wt = w.empty() ? 1.0 : w[size_t(t[size_t(n)])];
    num += -wt * lp(t[size_t(n)]);
    nll_den += wt;
    for (int64_t c = 0; c < C; ++c) smooth_num += -(w.empty() ? 1.0 : w[size_t(c)]) * lp(c);
  }
  double nll = mean ? num / nll_den : num, smooth = mean ? smooth_num / nll_den : smooth_num;
  return (1 - eps) * nll + eps / double(C) * smooth;
}

TEST(Loss, CrossEntropyMatchesTheDocumentedFormula) {
  torch::manual_seed(0);
  torch::Tensor x = torch::randn({5, 4}, torch::kDouble);
  std::vector<int64_t> t = {0, 3, -100, 2, 1};
  torch::Tensor tt = torch::tensor(t);
  std::vector<double> w = {0.5, 1.0, 2.0, 1.5};
  torch::Tensor wt = torch::tensor(w, torch::kDouble);
  for (double eps : {0.0, 0.2}) {
    for (bool weighted : {false, true}) {
      SCOPED_TRACE(std::to_string(eps) + (weighted ? " weighted" : ""));
      torch::Tensor got = F::cross_entropy(x, tt, weighted ? wt : torch::Tensor(), -100, torch::kMean, eps);
      EXPECT_NEAR(got.item<double>(), naive_ce(x, t, weighted ? w : std::vector<double>{}, -100, eps, true), 1e-12);
      torch::Tensor sum = F::cross_entropy(x, tt, weighted ? wt : torch::Tensor(), -100, torch::kSum, eps);
      EXPECT_NEAR(sum.item<double>(), naive_ce(x, t, weighted ? w : std::vector<double>{}, -100, eps, false), 1e-12);
    }
  }
  // module form, per-element reduction, spatial inputs (N, C, d) = per-position classes
  torch::nn::CrossEntropyLoss ce(torch::nn::CrossEntropyLossOptions().reduction(torch::kNone));
  torch::Tensor per = ce(x, tt.clamp_min(0));
  EXPECT_EQ(per.sizes(), torch::IntArrayRef({5}));
  torch::Tensor xs = torch::randn({2, 4, 3}, torch::kDouble);
  torch::Tensor ts = torch::tensor(std::vector<int64_t>{0, 1, 2, 3, 3, 1}).view({2, 3});
  torch::Tensor flat = F::cross_entropy(xs.permute({0, 2, 1}).reshape({6, 4}), ts.reshape({6}));
  EXPECT_NEAR(F::cross_entropy(xs, ts).item<double>(), flat.item<double>(), 1e-12);
  // probability targets: -sum p log softmax
  torch::Tensor probs = torch::softmax(torch::randn({5, 4}, torch::kDouble), 1);
  torch::Tensor expect = (probs * torch::log_softmax(x, 1)).sum(1).neg().mean();
  EXPECT_NEAR(F::cross_entropy(x, probs).item<double>(), expect.item<double>(), 1e-12);
  // errors
  EXPECT_ERROR_WITH(F::cross_entropy(x, torch::tensor(std::vector<int64_t>{0, 1, 2, 9, 0})), "out of bounds");
  EXPECT_ERROR_WITH(F::cross_entropy(x, tt, torch::ones({3}, torch::kDouble)), "weight tensor should be defined");
  EXPECT_ERROR_WITH(F::cross_entropy(x, tt, {}, -100, torch::kMean, 1.5), "label_smoothing");
}

TEST(Loss, GradientsByGradcheck) {
  torch::manual_seed(1);
  torch::Tensor x = torch::randn({4, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor t = torch::tensor(std::vector<int64_t>{2, 0, 1, 1});
  torch::Tensor w = torch::tensor(std::vector<double>{1.0, 2.0, 0.5}, torch::kDouble);
  auto ce = [&](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::cross_entropy(v[0], t, w, 1, torch::kMean, 0.1)};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(ce, {x}));
  torch::Tensor y = torch::rand({4, 3}, torch::kDouble);
  torch::Tensor pw = torch::tensor(std::vector<double>{1.0, 3.0, 0.5}, torch::kDouble);
  auto bce = [&](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::binary_cross_entropy_with_logits(v[0], y, {}, torch::kMean, pw)};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(bce, {x}));
  auto huber = [&](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::huber_loss(v[0], y, torch::Reduction::Sum, 0.3), F::smooth_l1_loss(v[0], y, torch::Reduction::Mean, 0.5)};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(huber, {x}));
}

TEST(Loss, BinaryAndRegressionLosses) {
  torch::Tensor x = torch::tensor({-2.0, 0.5, 3.0}, torch::kDouble);
  torch::Tensor y = torch::tensor({0.0, 1.0, 0.3}, torch::kDouble);
  torch::Tensor pw = torch::tensor({2.0, 2.0, 2.0}, torch::kDouble);
  // naive: -(pw y log s(x) + (1 - y) log(1 - s(x)))
  double expect = 0;
  for (int i = 0; i < 3; ++i) {
    double xi = x[i].item<double>(), yi = y[i].item<double>(), s = 1 / (1 + std::exp(-xi));
    expect += -(2.0 * yi * std::log(s) + (1 - yi) * std::log(1 - s));
  }
  EXPECT_NEAR(F::binary_cross_entropy_with_logits(x, y, {}, torch::kSum, pw).item<double>(), expect, 1e-12);
  torch::Tensor p = torch::sigmoid(x);
  EXPECT_NEAR(F::binary_cross_entropy(p, y, {}, torch::kMean).item<double>(),
              F::binary_cross_entropy_with_logits(x, y).item<double>(), 1e-12);
  EXPECT_NEAR(F::binary_cross_entropy(torch::tensor({0.0, 1.0}, torch::kDouble), torch::tensor({1.0, 1.0}, torch::kDouble),
                                      {}, torch::kSum).item<double>(), 100.0, 1e-12);  // logs clamped at -100
  EXPECT_ERROR_WITH(F::binary_cross_entropy(x, y), "between 0 and 1");
  torch::nn::MSELoss mse;
  EXPECT_NEAR(mse(x, y).item<double>(), ((x - y) * (x - y)).mean().item<double>(), 1e-12);
  EXPECT_ERROR_WITH(mse(x, torch::zeros({2}, torch::kDouble)), "different to the input size");
  EXPECT_NEAR(F::l1_loss(x, y, torch::kSum).item<double>(), (x - y).abs().sum().item<double>(), 1e-12);
  torch::Tensor lq = torch::log_softmax(torch::tensor({1.0, 2.0, 0.5}, torch::kDouble), 0);
  torch::Tensor pt = torch::tensor({0.2, 0.5, 0.3}, torch::kDouble);
  EXPECT_NEAR(F::kl_div(lq, pt, torch::kSum).item<double>(), (pt * (pt.log() - lq)).sum().item<double>(), 1e-12);
  EXPECT_NEAR(F::kl_div(lq, pt.log(), torch::Reduction::Sum, true).item<double>(), (pt * (pt.log() - lq)).sum().item<double>(), 1e-12);
}

TEST(Training, AnMLPLearnsXor) {
  // End to end: modules, loss, backward, optimizer.
  torch::manual_seed(4);
  torch::nn::Sequential net(torch::nn::Linear(2, 16), torch::nn::Tanh(), torch::nn::Linear(16, 2));
  torch::Tensor x = torch::tensor({0.f, 0.f, 0.f, 1.f, 1.f, 0.f, 1.f, 1.f}).view({4, 2});
  torch::Tensor y = torch::tensor(std::vector<int64_t>{0, 1, 1, 0});
  torch::optim::Adam opt(net->parameters(), torch::optim::AdamOptions(0.05));
  float loss = 0;
  for (int i = 0; i < 300; ++i) {
    opt.zero_grad();
    torch::Tensor l = F::cross_entropy(net->forward(x), y);
    l.backward();
    opt.step();
    loss = l.item<float>();
  }
  EXPECT_LT(loss, 0.05f);
  EXPECT_TRUE(std::get<1>(net->forward(x).max(1)).equal(y));
}

TEST(Extra, MarginLosses) {
  torch::Tensor x1 = torch::tensor({0.5, -1.0, 2.0}, torch::kDouble), x2 = torch::tensor({1.0, -2.0, 2.5}, torch::kDouble);
  torch::Tensor y = torch::tensor({1.0, -1.0, 1.0}, torch::kDouble);
  EXPECT_NEAR(F::margin_ranking_loss(x1, x2, y, 0.1, torch::kSum).item<double>(),
              std::max(0.0, -(0.5 - 1.0) + 0.1) + std::max(0.0, (-1.0 + 2.0) + 0.1) + std::max(0.0, -(2.0 - 2.5) + 0.1),
              1e-12);
  EXPECT_NEAR(F::hinge_embedding_loss(x1, y, 1.0, torch::kSum).item<double>(), 0.5 + 2.0 + std::max(0.0, 1.0 + 1.0),
              1e-12);
  torch::Tensor u = torch::tensor({{1.0, 0.0}, {0.0, 1.0}}, torch::kDouble), v = torch::tensor({{1.0, 1.0}, {0.0, 2.0}}, torch::kDouble);
  torch::Tensor t = torch::tensor({1.0, -1.0}, torch::kDouble);
  EXPECT_NEAR(F::cosine_embedding_loss(u, v, t, 0.5, torch::kSum).item<double>(), (1 - std::sqrt(0.5)) + 0.5, 1e-12);
  torch::Tensor an = torch::zeros({1, 2}, torch::kDouble), po = torch::tensor({{3.0, 4.0}}, torch::kDouble),
                ne = torch::tensor({{1.0, 0.0}}, torch::kDouble);
  const double dp = std::hypot(3 - 1e-6, 4 - 1e-6), dn = std::hypot(1 - 1e-6, 1e-6);
  EXPECT_NEAR(F::triplet_margin_loss(an, po, ne, 1.0).item<double>(), dp - dn + 1.0, 1e-9);
}

}  // namespace
