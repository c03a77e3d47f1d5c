// LibTorch-style usage of torch::linalg::eig / eigvals, geqrf + householder_product and the
// ATen spellings of the linalg functions (torch::linalg_inv, ...). Compiles unchanged against
// LibTorch 1.13 and ember; the values checked are properties (A V = V L, Q R = A, finite
// differences), so both must pass.
#include <torch/torch.h>
#include <torch/linalg.h>

#include <gtest/gtest.h>

#include <complex>
#include <functional>
#include <string>

namespace {

torch::Tensor to_complex(const torch::Tensor& t) {
  return t.is_complex() ? t : t.to(t.scalar_type() == torch::kFloat ? torch::kComplexFloat : torch::kComplexDouble);
}

void expect_eigen_pairs(const torch::Tensor& A, double tol) {
  torch::Tensor L, V;
  std::tie(L, V) = torch::linalg::eig(A);
  ASSERT_TRUE(L.is_complex());
  ASSERT_TRUE(V.is_complex());
  ASSERT_EQ(V.sizes(), A.sizes());
  auto lhs = torch::matmul(to_complex(A), V);
  auto rhs = V * L.unsqueeze(-2);
  EXPECT_TRUE(torch::allclose(lhs, rhs, tol, tol)) << (lhs - rhs).abs().max();
  // Unit-norm eigenvectors, and eigvals agrees with eig.
  auto norms = torch::real(V * V.conj()).sum(-2).sqrt();
  EXPECT_TRUE(torch::allclose(norms, torch::ones_like(norms), tol, tol));
  EXPECT_TRUE(torch::allclose(torch::linalg::eigvals(A), L, tol, tol));
}

TEST(LinalgEig, EigenPairsRealAndComplexBatched) {
  torch::manual_seed(3);
  expect_eigen_pairs(torch::randn({5, 5}, torch::kDouble), 1e-10);
  expect_eigen_pairs(torch::randn({3, 4, 4}, torch::kFloat), 1e-4);
  expect_eigen_pairs(torch::randn({2, 3, 3}, torch::kComplexDouble), 1e-10);
  expect_eigen_pairs(torch::randn({6, 6}, torch::kComplexFloat), 1e-4);
}

TEST(LinalgEig, RotationHasImaginaryPair) {
  auto R = torch::tensor({{0.0, -1.0}, {1.0, 0.0}});
  auto L = torch::linalg::eigvals(R);
  ASSERT_EQ(L.scalar_type(), torch::kComplexFloat);
  auto re = torch::real(L), im = torch::imag(L);
  EXPECT_TRUE(torch::allclose(re, torch::zeros({2}), 1e-6, 1e-6));
  EXPECT_TRUE(torch::allclose(im.abs(), torch::ones({2}), 1e-6, 1e-6));
  EXPECT_NEAR((im[0] + im[1]).item<float>(), 0.0f, 1e-6);  // a conjugate pair
  auto V = std::get<1>(torch::linalg::eig(R));
  // LAPACK's normalization: unit norm, the largest component real.
  const auto v00 = V[0][0].item<c10::complex<float>>();
  EXPECT_NEAR(v00.real(), 0.70710677f, 1e-6);
  EXPECT_NEAR(v00.imag(), 0.0f, 1e-6);
}

TEST(LinalgEig, GradientOfEigenvaluesSumIsIdentity) {
  torch::manual_seed(5);
  auto A = torch::randn({4, 4}, torch::dtype(torch::kDouble).requires_grad(true));
  auto L = torch::linalg::eigvals(A);
  torch::real(L).sum().backward();  // the trace
  EXPECT_TRUE(torch::allclose(A.grad(), torch::eye(4, torch::kDouble), 1e-8, 1e-8)) << A.grad();
  EXPECT_FALSE(A.grad().is_complex());
}

// A loss that does not depend on the eigenvectors' phases: eigenvalues and |V|^2.
torch::Tensor invariant_loss(const torch::Tensor& A, const torch::Tensor& wL, const torch::Tensor& wV) {
  torch::Tensor L, V;
  std::tie(L, V) = torch::linalg::eig(A);
  auto lr = torch::real(L), li = torch::imag(L);
  return (lr * wL).sum() + (li * li * wL).sum() + (torch::real(V * V.conj()) * wV).sum();
}

TEST(LinalgEig, GradientsMatchFiniteDifferences) {
  torch::manual_seed(11);
  for (auto dtype : {torch::kDouble, torch::kComplexDouble}) {
    auto A0 = torch::randn({4, 4}, dtype);
    auto wL = torch::randn({4}, torch::kDouble), wV = torch::randn({4, 4}, torch::kDouble);
    auto A = A0.clone().requires_grad_(true);
    invariant_loss(A, wL, wV).backward();
    auto grad = A.grad();
    const double h = 1e-6;
    auto flat = A0.reshape({-1});
    for (int64_t i = 0; i < flat.numel(); ++i) {
      for (int part = 0; part < (A0.is_complex() ? 2 : 1); ++part) {
        auto step = torch::zeros_like(flat);
        if (part == 0) step[i] = h;
        else step[i] = c10::complex<double>(0, h);
        auto plus = invariant_loss((flat + step).reshape({4, 4}), wL, wV).item<double>();
        auto minus = invariant_loss((flat - step).reshape({4, 4}), wL, wV).item<double>();
        const double fd = (plus - minus) / (2 * h);
        const auto g = grad.reshape({-1})[i];
        // PyTorch's convention for complex inputs: grad = dL/dRe + i dL/dIm.
        const double analytic = A0.is_complex() ? (part == 0 ? torch::real(g).item<double>() : torch::imag(g).item<double>())
                                                : g.item<double>();
        EXPECT_NEAR(analytic, fd, 1e-5 * (1 + std::abs(fd))) << "element " << i << " part " << part;
      }
    }
  }
}

TEST(LinalgEig, PhaseDependentLossIsRejected) {
  auto A = torch::tensor({{0.0, -1.0}, {1.0, 0.0}}, torch::dtype(torch::kDouble).requires_grad(true));
  auto V = std::get<1>(torch::linalg::eig(A));
  auto loss = torch::real(V).sum();
  EXPECT_THROW(loss.backward(), c10::Error);
}

TEST(LinalgEig, BadInputsGiveErrors) {
  EXPECT_THROW(torch::linalg::eig(torch::randn({3, 4})), c10::Error);
  EXPECT_THROW(torch::linalg::eigvals(torch::ones({2, 2}, torch::kLong)), c10::Error);
  auto with_nan = torch::eye(3);
  with_nan[1][1] = std::numeric_limits<float>::quiet_NaN();
  try {
    torch::linalg::eig(with_nan);
    FAIL() << "eig accepted a NaN";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("infs or NaNs"), std::string::npos) << e.what();
  }
  auto empty = torch::linalg::eig(torch::zeros({2, 0, 0}));
  EXPECT_EQ(std::get<0>(empty).sizes(), (std::vector<int64_t>{2, 0}));
}

TEST(HouseholderProduct, GeqrfThenHouseholderIsQ) {
  torch::manual_seed(7);
  for (auto dtype : {torch::kDouble, torch::kComplexDouble, torch::kFloat}) {
    auto A = torch::randn({2, 5, 3}, dtype);
    torch::Tensor a, tau;
    std::tie(a, tau) = torch::geqrf(A);
    ASSERT_EQ(tau.sizes(), (std::vector<int64_t>{2, 3}));
    auto Q = torch::linalg::householder_product(a, tau);
    ASSERT_EQ(Q.sizes(), A.sizes());
    auto R = torch::triu(a.narrow(-2, 0, 3));
    const double tol = dtype == torch::kFloat ? 1e-4 : 1e-10;
    EXPECT_TRUE(torch::allclose(torch::matmul(Q, R), A, tol, tol));
    auto QhQ = torch::matmul(Q.transpose(-2, -1).conj(), Q);
    EXPECT_TRUE(torch::allclose(QhQ, torch::eye(3, dtype).expand({2, 3, 3}), tol, tol));
    // The same Q as linalg::qr's, up to the signs LAPACK also chooses there.
    auto Qr = std::get<0>(torch::linalg::qr(A));
    EXPECT_TRUE(torch::allclose(Q, Qr, tol, tol));
    EXPECT_TRUE(torch::allclose(torch::orgqr(a, tau), Q, tol, tol));
  }
}

TEST(HouseholderProduct, GradientsMatchFiniteDifferences) {
  torch::manual_seed(9);
  auto A0 = torch::randn({4, 3}, torch::kDouble), tau0 = torch::rand({2}, torch::kDouble);
  auto W = torch::randn({4, 3}, torch::kDouble);
  auto f = [&](const torch::Tensor& A, const torch::Tensor& tau) {
    return (torch::linalg::householder_product(A, tau) * W).sum();
  };
  auto A = A0.clone().requires_grad_(true), tau = tau0.clone().requires_grad_(true);
  f(A, tau).backward();
  const double h = 1e-6;
  for (int64_t i = 0; i < A0.numel(); ++i) {
    auto step = torch::zeros({A0.numel()}, torch::kDouble);
    step[i] = h;
    step = step.reshape(A0.sizes());
    const double fd = (f(A0 + step, tau0).item<double>() - f(A0 - step, tau0).item<double>()) / (2 * h);
    EXPECT_NEAR(A.grad().reshape({-1})[i].item<double>(), fd, 1e-6) << "A element " << i;
  }
  for (int64_t i = 0; i < tau0.numel(); ++i) {
    auto step = torch::zeros({2}, torch::kDouble);
    step[i] = h;
    const double fd = (f(A0, tau0 + step).item<double>() - f(A0, tau0 - step).item<double>()) / (2 * h);
    EXPECT_NEAR(tau.grad()[i].item<double>(), fd, 1e-6) << "tau element " << i;
  }
  EXPECT_THROW(torch::linalg::householder_product(torch::randn({2, 3}), torch::randn({2})), c10::Error);
  EXPECT_THROW(torch::linalg::householder_product(torch::randn({4, 2}), torch::randn({3})), c10::Error);
}

TEST(LinalgLdl, FactorThenSolveMatchesSolve) {
  torch::manual_seed(4);
  for (auto dtype : {torch::kDouble, torch::kFloat, torch::kComplexDouble}) {
    auto M = torch::randn({2, 4, 4}, dtype);
    const double tol = dtype == torch::kFloat ? 1e-4 : 1e-10;
    for (bool hermitian : {false, true}) {
      if (hermitian && !M.is_complex()) continue;
      // Symmetric (complex symmetric) or Hermitian, and indefinite.
      auto A = hermitian ? M + M.transpose(-2, -1).conj() : M + M.transpose(-2, -1);
      auto B = torch::randn({2, 4, 3}, dtype);
      torch::Tensor LD, pivots, info;
      std::tie(LD, pivots, info) = torch::linalg::ldl_factor_ex(A, hermitian, false);
      ASSERT_EQ(pivots.scalar_type(), torch::kInt);
      ASSERT_EQ(info.sizes(), (std::vector<int64_t>{2}));
      EXPECT_EQ(info.abs().sum().item<int64_t>(), 0);
      auto X = torch::linalg::ldl_solve(LD, pivots, B, hermitian);
      EXPECT_TRUE(torch::allclose(X, torch::linalg::solve(A, B, true), tol, tol)) << dtype << " " << hermitian;
      auto again = torch::linalg_ldl_factor(A, hermitian);
      EXPECT_TRUE(torch::equal(std::get<0>(again), LD));
      EXPECT_TRUE(torch::equal(std::get<1>(again), pivots));
    }
  }
  EXPECT_THROW(torch::linalg::ldl_factor_ex(torch::randn({3, 4}), false, false), c10::Error);
  auto singular = torch::zeros({3, 3}, torch::kDouble);
  auto ex = torch::linalg::ldl_factor_ex(singular, false, false);
  EXPECT_GT(std::get<2>(ex).item<int>(), 0);  // reported, not raised
  EXPECT_THROW(torch::linalg::ldl_factor_ex(singular, false, true), c10::Error);
  EXPECT_THROW(torch::linalg_ldl_factor(singular, false), c10::Error);
}

TEST(LinalgAtenSpellings, ForwardToTorchLinalg) {
  torch::manual_seed(1);
  auto A = torch::randn({3, 3}, torch::kDouble) + 3 * torch::eye(3, torch::kDouble);
  auto B = torch::randn({3, 2}, torch::kDouble);
  auto spd = torch::matmul(A, A.t()) + torch::eye(3, torch::kDouble);
  EXPECT_TRUE(torch::allclose(torch::linalg_inv(A), torch::linalg::inv(A)));
  EXPECT_TRUE(torch::allclose(torch::linalg_solve(A, B), torch::linalg::solve(A, B, true)));
  EXPECT_TRUE(torch::allclose(torch::linalg_det(A), torch::linalg::det(A)));
  EXPECT_TRUE(torch::allclose(torch::linalg_cholesky(spd), torch::linalg::cholesky(spd)));
  EXPECT_TRUE(torch::allclose(std::get<0>(torch::linalg_eigh(spd, "L")), torch::linalg::eigvalsh(spd, "L")));
  EXPECT_TRUE(torch::allclose(torch::linalg_eigvalsh(spd, "L"), torch::linalg::eigvalsh(spd, "L")));
  EXPECT_TRUE(torch::allclose(std::get<1>(torch::linalg_slogdet(A)), std::get<1>(torch::linalg::slogdet(A))));
  EXPECT_TRUE(torch::allclose(std::get<0>(torch::linalg_qr(A, "reduced")), std::get<0>(torch::linalg::qr(A, "reduced"))));
  EXPECT_TRUE(torch::allclose(torch::linalg_svdvals(A), torch::linalg::svdvals(A, c10::nullopt)));
  EXPECT_TRUE(torch::allclose(torch::linalg_matrix_power(A, 3), torch::matmul(A, torch::matmul(A, A))));
  EXPECT_TRUE(torch::allclose(torch::linalg_matrix_exp(torch::zeros({2, 2})), torch::eye(2)));
  EXPECT_TRUE(torch::allclose(torch::linalg_eigvals(A), torch::linalg::eigvals(A)));
  EXPECT_TRUE(torch::allclose(std::get<0>(torch::linalg_inv_ex(A, false)), torch::linalg::inv(A)));
}

}  // namespace
