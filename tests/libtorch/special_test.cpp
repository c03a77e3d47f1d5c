// torch::special against closed forms and double-precision references (<cmath>).
// Compiles against ember and LibTorch alike.
#include <torch/special.h>
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>

TEST(Special, AliasesOfOps) {
  auto t = torch::linspace(0.1, 3.0, 7, torch::kDouble);
  EXPECT_TRUE(torch::special::gammaln(t).allclose(t.lgamma()));
  EXPECT_TRUE(torch::special::expit(t).allclose(t.sigmoid()));
  EXPECT_TRUE(torch::special::psi(t).allclose(t.digamma()));
  EXPECT_TRUE(torch::special::erfinv(torch::special::erf(t.div(4))).allclose(t.div(4)));
  EXPECT_TRUE(torch::special::logsumexp(t, {0}, false).allclose(t.exp().sum().log()));
  EXPECT_TRUE(torch::special::softmax(t, 0, c10::nullopt).sum().allclose(torch::tensor(1.0, torch::kDouble)));
}

TEST(Special, Entr) {
  auto x = torch::tensor({0.5, 0.0, 2.0, -1.0}, torch::kDouble);
  auto e = torch::special::entr(x);
  EXPECT_NEAR(e[0].item<double>(), 0.5 * std::log(2.0), 1e-15);
  EXPECT_EQ(e[1].item<double>(), 0.0);
  EXPECT_NEAR(e[2].item<double>(), -2 * std::log(2.0), 1e-15);
  EXPECT_TRUE(std::isinf(e[3].item<double>()) && e[3].item<double>() < 0);
}

TEST(Special, Ndtr) {
  auto x = torch::tensor({0.0, 1.96, -1.0, 5.0}, torch::kDouble);
  auto p = torch::special::ndtr(x);
  for (int64_t i = 0; i < 4; ++i) {
    const double v = x[i].item<double>();
    EXPECT_NEAR(p[i].item<double>(), 0.5 * std::erfc(-v / std::sqrt(2.0)), 1e-15) << v;
  }
  EXPECT_NEAR(p[1].item<double>(), 0.9750021048517795, 1e-15);
}

TEST(Special, Xlog1py) {
  auto x = torch::tensor({0.0, 2.0, 0.0}, torch::kDouble);
  auto y = torch::tensor({-1.0, 0.5, 3.0}, torch::kDouble);
  auto r = torch::special::xlog1py(x, y);
  EXPECT_EQ(r[0].item<double>(), 0.0);  // 0 * log1p(-1) is defined as 0
  EXPECT_NEAR(r[1].item<double>(), 2 * std::log1p(0.5), 1e-15);
  EXPECT_EQ(r[2].item<double>(), 0.0);
}

TEST(Special, Multigammaln) {
  auto x = torch::tensor({2.5, 4.0}, torch::kDouble);
  auto r = torch::special::multigammaln(x, 3);
  for (int64_t i = 0; i < 2; ++i) {
    const double v = x[i].item<double>();
    const double expected = 3 * 2 / 4.0 * std::log(M_PI) + std::lgamma(v) + std::lgamma(v - 0.5) + std::lgamma(v - 1.0);
    EXPECT_NEAR(r[i].item<double>(), expected, 1e-12) << v;
  }
  // No domain check (as PyTorch 1.13): lgamma(0) is a pole.
  EXPECT_TRUE(std::isinf(torch::special::multigammaln(torch::tensor({0.5}, torch::kDouble), 3).item<double>()));
}
