// The margin losses of ember/nn/loss.h against their definitions.
#include <torch/torch.h>

#include <cmath>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;

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
