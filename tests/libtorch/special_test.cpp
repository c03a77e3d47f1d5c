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

namespace {

// The Bessel, Airy, incomplete-gamma, zeta, polygamma and polynomial families against closed
// forms and identities, and their autograd status as PyTorch declares it.
TEST(SpecialFamilies, BesselAndAiryFunctions) {
  const auto x = torch::tensor({0.25, 0.5, 1.5, 3.0, 7.5}, torch::kDouble);
  EXPECT_NEAR(torch::special::bessel_j0(torch::tensor({0.0}, torch::kDouble)).item<double>(), 1.0, 1e-15);
  EXPECT_TRUE(torch::special::modified_bessel_i0(x).allclose(torch::i0(x), 1e-12, 0));
  EXPECT_TRUE(torch::special::i0e(x).allclose(torch::i0(x) * torch::exp(-x.abs()), 1e-12, 0));
  EXPECT_TRUE(torch::special::i1e(x).allclose(torch::special::i1(x) * torch::exp(-x.abs()), 1e-12, 0));
  EXPECT_TRUE(torch::special::spherical_bessel_j0(x).allclose(torch::sin(x) / x, 1e-12, 0));
  EXPECT_TRUE(torch::special::scaled_modified_bessel_k0(x).allclose(
      torch::special::modified_bessel_k0(x) * torch::exp(x), 1e-12, 0));
  // Wronskian: J1(x) Y0(x) - J0(x) Y1(x) = 2 / (pi x)
  auto w = torch::special::bessel_j1(x) * torch::special::bessel_y0(x) -
           torch::special::bessel_j0(x) * torch::special::bessel_y1(x);
  EXPECT_TRUE(w.allclose(2.0 / (M_PI * x), 1e-6, 0));  // PyTorch 1.13 itself is good to ~1e-8 here
  EXPECT_NEAR(torch::special::airy_ai(torch::tensor({0.0}, torch::kDouble)).item<double>(), 0.3550280538878172,
              1e-15);
  // PyTorch declares these non-differentiable: results never require grad.
  auto xg = x.clone().requires_grad_(true);
  EXPECT_FALSE(torch::special::bessel_j0(xg).requires_grad());
  EXPECT_TRUE(torch::special::i1(xg).requires_grad());
}

TEST(SpecialFamilies, GammaZetaAndErrorFunctions) {
  const auto a = torch::tensor({0.5, 1.0, 2.5, 7.0}, torch::kDouble);
  const auto x = torch::tensor({0.3, 1.0, 2.0, 9.0}, torch::kDouble);
  EXPECT_TRUE((torch::special::gammainc(a, x) + torch::special::gammaincc(a, x)).allclose(torch::ones_like(a)));
  EXPECT_TRUE(torch::igamma(torch::ones_like(x), x).allclose(1 - torch::exp(-x), 1e-12, 0));
  EXPECT_TRUE(torch::special::polygamma(0, x).allclose(torch::digamma(x), 1e-12, 0));
  // trigamma(1) = pi^2 / 6; PyTorch 1.13's series is good to ~1e-9 there.
  EXPECT_NEAR(torch::special::polygamma(1, torch::tensor({1.0}, torch::kDouble)).item<double>(), M_PI * M_PI / 6,
              1e-8);
  EXPECT_NEAR(torch::special::zeta(torch::tensor({2.0}, torch::kDouble), torch::tensor({1.0}, torch::kDouble))
                  .item<double>(),
              M_PI * M_PI / 6, 1e-12);
  const auto z = torch::tensor({-1.5, -0.2, 0.0, 0.7, 2.0}, torch::kDouble);
  EXPECT_TRUE(torch::special::erfcx(z).allclose(torch::exp(z * z) * torch::erfc(z), 1e-12, 0));
  EXPECT_TRUE(torch::special::log_ndtr(z).allclose(torch::log(torch::special::ndtr(z)), 1e-12, 0));
  EXPECT_TRUE(torch::special::ndtri(torch::special::ndtr(z)).allclose(z, 1e-10, 1e-12));
  // d/dx igamma(a, x) exists; d/da does not (as in PyTorch).
  auto xg = x.clone().requires_grad_(true);
  torch::igamma(a, xg).sum().backward();
  EXPECT_TRUE(xg.grad().defined());
  auto ag = a.clone().requires_grad_(true);
  EXPECT_THROW(torch::igamma(ag, x).sum().backward(), c10::Error);
}

TEST(SpecialFamilies, OrthogonalPolynomials) {
  const auto x = torch::tensor({-0.9, -0.3, 0.0, 0.4, 0.8}, torch::kDouble);
  const auto theta = torch::acos(x);
  for (int64_t n : {0, 1, 2, 5, 9}) {
    EXPECT_TRUE(torch::special::chebyshev_polynomial_t(x, n).allclose(torch::cos(n * theta), 1e-12, 1e-12)) << n;
    EXPECT_TRUE(torch::special::chebyshev_polynomial_u(x, n).allclose(torch::sin((n + 1) * theta) / torch::sin(theta),
                                                                       1e-12, 1e-12))
        << n;
  }
  EXPECT_TRUE(torch::special::hermite_polynomial_h(x, 2).allclose(4 * x * x - 2));
  EXPECT_TRUE(torch::special::hermite_polynomial_he(x, 3).allclose(x * x * x - 3 * x));
  EXPECT_TRUE(torch::special::legendre_polynomial_p(x, 2).allclose((3 * x * x - 1) / 2));
  EXPECT_TRUE(torch::special::laguerre_polynomial_l(x, 1).allclose(1 - x));
  EXPECT_TRUE(torch::special::shifted_chebyshev_polynomial_t(x, 3).allclose(
      torch::special::chebyshev_polynomial_t(2 * x - 1, 3)));
  EXPECT_TRUE(torch::special::chebyshev_polynomial_t(0.5, torch::tensor({3.0}, torch::kDouble))
                  .allclose(torch::tensor({-1.0}, torch::kDouble)));
}

}  // namespace
