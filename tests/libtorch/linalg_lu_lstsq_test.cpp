// torch::linalg's LU family and lstsq, checked by reconstruction (P L U = A), against
// independent double-precision references (normal equations, explicit minimum-norm
// solutions, linalg::solve, svdvals), against hand-computed factors, and for PyTorch 1.13's
// shapes, dtypes and errors. Compiles against ember and LibTorch alike.
#include <torch/torch.h>
// after torch.h: LibTorch 1.13's linalg.h does not compile on its own
#include <torch/linalg.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

torch::Tensor mH(const torch::Tensor& x) { return x.transpose(-2, -1).conj(); }

void expect_close(const torch::Tensor& a, const torch::Tensor& b, double tol = 1e-10) {
  ASSERT_EQ(a.sizes(), b.sizes());
  EXPECT_TRUE(torch::allclose(a, b, tol, tol)) << "max |a - b| = " << (a - b).abs().max().item<double>();
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "(no error)";
}

}  // namespace

TEST(LinalgLU, FactorsReconstructEveryShape) {
  torch::manual_seed(0);
  const std::vector<std::vector<int64_t>> shapes = {{4, 4}, {3, 5}, {5, 3}, {2, 3, 4, 4}, {1, 1}};
  for (auto dtype : {torch::kDouble, torch::kComplexDouble, torch::kFloat}) {
    for (const auto& shape : shapes) {
      SCOPED_TRACE(::testing::Message() << dtype << " " << torch::IntArrayRef(shape));
      auto A = torch::randn(shape, torch::TensorOptions().dtype(dtype));
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      torch::Tensor P, L, U;
      std::tie(P, L, U) = torch::linalg::lu(A);
      EXPECT_EQ(P.sizes().back(), m);
      EXPECT_EQ(L.size(-2), m);
      EXPECT_EQ(L.size(-1), k);
      EXPECT_EQ(U.size(-2), k);
      EXPECT_EQ(U.size(-1), n);
      EXPECT_EQ(P.scalar_type(), dtype);
      const double tol = dtype == torch::kFloat ? 1e-5 : 1e-12;
      expect_close(P.matmul(L).matmul(U), A, tol);
      expect_close(L, L.tril(), 0);
      expect_close(U, U.triu(), 0);
      expect_close(L.diagonal(0, -2, -1), torch::ones_like(L.diagonal(0, -2, -1)), 0);
      // partial pivoting: |L| <= 1 for real matrices (LAPACK pivots complex ones by |re| + |im|),
      // and P is a permutation matrix
      if (!A.is_complex()) EXPECT_LE(L.abs().max().item<double>(), 1.0 + 1e-12);
      expect_close(P.abs().sum(-1), torch::ones_like(P.abs().sum(-1)), 0);
      expect_close(P.abs().sum(-2), torch::ones_like(P.abs().sum(-2)), 0);
      // lu_factor packs the same factors; lu_unpack gives them back
      torch::Tensor LU, piv;
      std::tie(LU, piv) = torch::linalg::lu_factor(A);
      EXPECT_EQ(piv.scalar_type(), torch::kInt);
      EXPECT_EQ(piv.size(-1), k);
      torch::Tensor P2, L2, U2;
      std::tie(P2, L2, U2) = torch::lu_unpack(LU, piv);
      expect_close(P2, P, 0);
      expect_close(L2, L, 0);
      expect_close(U2, U, 0);
    }
  }
}

TEST(LinalgLU, HandComputedFactorsAndPivots) {
  auto A = torch::tensor({{1.0, 2.0}, {3.0, 4.0}}, torch::kDouble);
  torch::Tensor LU, piv;
  std::tie(LU, piv) = torch::linalg::lu_factor(A);
  // Row 2 is the pivot: U = [[3, 4], [0, 2 - 4/3]], l21 = 1/3; LAPACK's pivots are 1-based.
  expect_close(LU, torch::tensor({{3.0, 4.0}, {1.0 / 3, 2.0 / 3}}, torch::kDouble), 1e-15);
  EXPECT_EQ(piv[0].item<int>(), 2);
  EXPECT_EQ(piv[1].item<int>(), 2);
  torch::Tensor P, L, U;
  std::tie(P, L, U) = torch::linalg::lu(A);
  expect_close(P, torch::tensor({{0.0, 1.0}, {1.0, 0.0}}, torch::kDouble), 0);
}

TEST(LinalgLU, SingularMatricesAndErrors) {
  auto S = torch::tensor({{1.0, 2.0}, {2.0, 4.0}}, torch::kDouble);
  // lu_factor refuses a zero pivot; lu_factor_ex reports it in info; lu factors anyway.
  EXPECT_NE(error_of([&] { torch::linalg::lu_factor(S); }).find("U[2,2] is zero"), std::string::npos);
  EXPECT_NE(error_of([&] { torch::linalg::lu_factor(torch::stack({torch::eye(2, torch::kDouble), S})); })
                .find("(Batch element 1): U[2,2] is zero"),
            std::string::npos);
  auto ex = torch::linalg_lu_factor_ex(S);
  EXPECT_EQ(std::get<2>(ex).item<int>(), 2);
  EXPECT_EQ(std::get<2>(ex).scalar_type(), torch::kInt);
  EXPECT_NE(error_of([&] { torch::linalg_lu_factor_ex(S, true, true); }).find("U[2,2] is zero"), std::string::npos);
  torch::Tensor P, L, U;
  std::tie(P, L, U) = torch::linalg::lu(S);
  expect_close(P.matmul(L).matmul(U), S, 1e-15);
  EXPECT_EQ(U[1][1].item<double>(), 0.0);

  EXPECT_NE(error_of([] { torch::linalg::lu_factor(torch::randn({3})); }).find("2 or more dimensions"),
            std::string::npos);
  EXPECT_NE(error_of([] { torch::linalg::lu_factor(torch::ones({3, 3}, torch::kLong)); }), "(no error)");
  EXPECT_NE(error_of([] { torch::linalg::lu_factor(torch::randn({3, 3}), /*pivot=*/false); })
                .find("LU without pivoting is not implemented on the CPU"),
            std::string::npos);
  auto LUp = torch::linalg::lu_factor(torch::randn({3, 3}));
  EXPECT_NE(error_of([&] { torch::lu_unpack(std::get<0>(LUp), std::get<1>(LUp).to(torch::kLong)); })
                .find("torch.int32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { torch::lu_unpack(std::get<0>(LUp), torch::tensor({1, 2, 5}, torch::kInt)); })
                .find("between 1 and LU.size(-2)"),
            std::string::npos);
}

TEST(LinalgLU, SolveMatchesLinalgSolve) {
  torch::manual_seed(1);
  for (auto dtype : {torch::kDouble, torch::kComplexDouble}) {
    auto A = torch::randn({2, 4, 4}, torch::TensorOptions().dtype(dtype));
    auto B = torch::randn({2, 4, 3}, torch::TensorOptions().dtype(dtype));
    torch::Tensor LU, piv;
    std::tie(LU, piv) = torch::linalg::lu_factor(A);
    expect_close(torch::linalg_lu_solve(LU, piv, B), torch::linalg::solve(A, B, true), 1e-10);
    expect_close(torch::linalg_lu_solve(LU, piv, B, /*left=*/true, /*adjoint=*/true),
                 torch::linalg::solve(mH(A), B, true), 1e-10);
    auto Bt = mH(B);  // 3 x 4
    expect_close(torch::linalg_lu_solve(LU, piv, Bt, /*left=*/false), torch::linalg::solve(A, Bt, false), 1e-10);
    expect_close(torch::linalg_lu_solve(LU, piv, Bt, /*left=*/false, /*adjoint=*/true),
                 torch::linalg::solve(mH(A), Bt, false), 1e-10);
    // broadcasting one factorisation over a batch of right-hand sides
    torch::Tensor LU0 = LU[0], piv0 = piv[0];
    expect_close(torch::linalg_lu_solve(LU0, piv0, B), torch::linalg::solve(A[0], B, true), 1e-10);
  }
  // the deprecated form: torch::lu_solve(B, LU, pivots), and the method
  auto A = torch::randn({3, 3}, torch::kDouble);
  auto B = torch::randn({3, 2}, torch::kDouble);
  auto f = torch::linalg::lu_factor(A);
  expect_close(torch::lu_solve(B, std::get<0>(f), std::get<1>(f)), torch::linalg::solve(A, B, true), 1e-10);
  expect_close(B.lu_solve(std::get<0>(f), std::get<1>(f)), torch::linalg::solve(A, B, true), 1e-10);
  EXPECT_NE(error_of([&] { torch::linalg_lu_solve(std::get<0>(f), std::get<1>(f), torch::randn({2, 2}, torch::kDouble)); })
                .find("Incompatible shapes"),
            std::string::npos);
}

TEST(LinalgLU, GradientOfTheFactorsMatchesFiniteDifferences) {
  torch::manual_seed(2);
  for (auto shape : {std::vector<int64_t>{4, 4}, std::vector<int64_t>{3, 5}, std::vector<int64_t>{5, 3}}) {
    SCOPED_TRACE(::testing::Message() << torch::IntArrayRef(shape));
    auto A = torch::randn(shape, torch::kDouble);
    torch::Tensor P0, L0, U0;
    std::tie(P0, L0, U0) = torch::linalg::lu(A);
    auto wL = torch::randn(L0.sizes(), torch::kDouble), wU = torch::randn(U0.sizes(), torch::kDouble);
    auto f = [&](const torch::Tensor& a) {
      torch::Tensor P, L, U;
      std::tie(P, L, U) = torch::linalg::lu(a);
      return (L * wL).sum() + (U * wU).sum();
    };
    auto leaf = A.clone().requires_grad_(true);
    f(leaf).backward();
    auto numeric = torch::zeros_like(A);
    const double eps = 1e-6;
    for (int64_t i = 0; i < A.numel(); ++i) {
      auto up = A.clone(), down = A.clone();
      up.view({-1})[i].add_(eps);
      down.view({-1})[i].sub_(eps);
      numeric.view({-1})[i].fill_((f(up).item<double>() - f(down).item<double>()) / (2 * eps));
    }
    expect_close(leaf.grad(), numeric, 1e-6);
  }
}

TEST(LinalgLstsq, TallFullRankAgainstTheNormalEquations) {
  torch::manual_seed(3);
  auto A = torch::randn({6, 3}, torch::kDouble);
  auto B = torch::randn({6, 2}, torch::kDouble);
  auto x_ref = torch::linalg::solve(mH(A).matmul(A), mH(A).matmul(B), true);
  auto res_ref = (A.matmul(x_ref) - B).pow(2).sum(0);
  for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"}) {
    SCOPED_TRACE(driver);
    auto r = torch::linalg::lstsq(A, B, c10::nullopt, driver);
    expect_close(std::get<0>(r), x_ref, 1e-10);
    const std::string d = driver;
    if (d == "gelsy") {
      EXPECT_EQ(std::get<1>(r).numel(), 0);  // gelsy computes no residuals
    } else {
      expect_close(std::get<1>(r), res_ref, 1e-10);
    }
    if (d == "gels") {
      EXPECT_EQ(std::get<2>(r).numel(), 0);
    } else {
      EXPECT_EQ(std::get<2>(r).item<int64_t>(), 3);
      EXPECT_EQ(std::get<2>(r).scalar_type(), torch::kLong);
    }
    if (d == "gelsd" || d == "gelss") {
      expect_close(std::get<3>(r), torch::linalg::svdvals(A, c10::nullopt), 1e-10);
    } else {
      EXPECT_EQ(std::get<3>(r).numel(), 0);
    }
  }
  // the default driver is gelsy, and the ATen spelling has defaults
  auto r = torch::linalg_lstsq(A, B);
  expect_close(std::get<0>(r), x_ref, 1e-10);
  EXPECT_EQ(std::get<1>(r).numel(), 0);
}

TEST(LinalgLstsq, WideRankDeficientBatchedAndVectors) {
  torch::manual_seed(4);
  // wide: the minimum-norm solution A^H (A A^H)^{-1} B
  auto A = torch::randn({3, 5}, torch::kDouble);
  auto B = torch::randn({3, 2}, torch::kDouble);
  auto x_ref = mH(A).matmul(torch::linalg::solve(A.matmul(mH(A)), B, true));
  for (const char* driver : {"gelsy", "gelsd", "gelss"}) {
    auto r = torch::linalg::lstsq(A, B, c10::nullopt, driver);
    expect_close(std::get<0>(r), x_ref, 1e-10);
    EXPECT_EQ(std::get<1>(r).numel(), 0);  // no residuals when m <= n
  }
  // rank deficient: a repeated column; rank 2, no residuals, and A x is the projection of b
  auto C = torch::randn({5, 3}, torch::kDouble);
  C.select(1, 2).copy_(C.select(1, 1));
  auto b = torch::randn({5, 1}, torch::kDouble);
  auto r = torch::linalg::lstsq(C, b, c10::nullopt, "gelsd");
  EXPECT_EQ(std::get<2>(r).item<int64_t>(), 2);
  EXPECT_EQ(std::get<1>(r).numel(), 0);
  auto Q = std::get<0>(torch::linalg::qr(C.narrow(1, 0, 2)));
  expect_close(C.matmul(std::get<0>(r)), Q.matmul(mH(Q).matmul(b)), 1e-10);
  // batches broadcast; B a batch of vectors when it has one dimension less than A
  auto Ab = torch::randn({2, 5, 3}, torch::kDouble);
  auto Bb = torch::randn({1, 5, 4}, torch::kDouble);
  auto rb = torch::linalg::lstsq(Ab, Bb, c10::nullopt, "gelss");
  EXPECT_EQ(std::get<0>(rb).sizes(), torch::IntArrayRef({2, 3, 4}));
  EXPECT_EQ(std::get<1>(rb).sizes(), torch::IntArrayRef({2, 4}));
  EXPECT_EQ(std::get<2>(rb).sizes(), torch::IntArrayRef({2}));
  EXPECT_EQ(std::get<3>(rb).sizes(), torch::IntArrayRef({2, 3}));
  expect_close(std::get<0>(rb)[1], std::get<0>(torch::linalg::lstsq(Ab[1], Bb[0], c10::nullopt, "gelss")), 1e-12);
  auto rv = torch::linalg::lstsq(Ab, torch::randn({2, 5}, torch::kDouble), c10::nullopt, "gelsd");
  EXPECT_EQ(std::get<0>(rv).sizes(), torch::IntArrayRef({2, 3}));
  EXPECT_EQ(std::get<1>(rv).sizes(), torch::IntArrayRef({2, 1}));
  // complex
  auto Az = torch::randn({5, 3}, torch::kComplexDouble), Bz = torch::randn({5, 2}, torch::kComplexDouble);
  auto rz = torch::linalg::lstsq(Az, Bz, c10::nullopt, "gelsd");
  expect_close(std::get<0>(rz), torch::linalg::solve(mH(Az).matmul(Az), mH(Az).matmul(Bz), true), 1e-10);
  EXPECT_EQ(std::get<1>(rz).scalar_type(), torch::kDouble);
  EXPECT_EQ(std::get<3>(rz).scalar_type(), torch::kDouble);
}

TEST(LinalgLstsq, Errors) {
  auto A = torch::randn({4, 3});
  EXPECT_NE(error_of([&] { torch::linalg::lstsq(A, torch::randn({5, 1}), c10::nullopt, c10::nullopt); })
                .find("input.size(-2) should match other.size(-2)"),
            std::string::npos);
  EXPECT_NE(error_of([&] { torch::linalg::lstsq(A, torch::randn({4, 1}), c10::nullopt, "foo"); })
                .find("parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"),
            std::string::npos);
  EXPECT_NE(error_of([&] { torch::linalg::lstsq(A, torch::randn({4, 1}, torch::kDouble), c10::nullopt, c10::nullopt); })
                .find("Expected input and other to have the same dtype"),
            std::string::npos);
  EXPECT_NE(error_of([&] { torch::linalg::lstsq(torch::randn({4}), torch::randn({4}), c10::nullopt, c10::nullopt); })
                .find("input must have at least 2 dimensions"),
            std::string::npos);
}

TEST(LinalgLstsq, GradientMatchesFiniteDifferences) {
  torch::manual_seed(5);
  auto A = torch::randn({5, 3}, torch::kDouble);
  auto B = torch::randn({5, 2}, torch::kDouble);
  auto w = torch::randn({3, 2}, torch::kDouble);
  auto f = [&](const torch::Tensor& a, const torch::Tensor& b) {
    return (std::get<0>(torch::linalg::lstsq(a, b, c10::nullopt, c10::nullopt)) * w).sum();
  };
  auto a = A.clone().requires_grad_(true), b = B.clone().requires_grad_(true);
  f(a, b).backward();
  const double eps = 1e-6;
  auto ga = torch::zeros_like(A), gb = torch::zeros_like(B);
  for (int64_t i = 0; i < A.numel(); ++i) {
    auto up = A.clone(), down = A.clone();
    up.view({-1})[i].add_(eps);
    down.view({-1})[i].sub_(eps);
    ga.view({-1})[i].fill_((f(up, B).item<double>() - f(down, B).item<double>()) / (2 * eps));
  }
  for (int64_t i = 0; i < B.numel(); ++i) {
    auto up = B.clone(), down = B.clone();
    up.view({-1})[i].add_(eps);
    down.view({-1})[i].sub_(eps);
    gb.view({-1})[i].fill_((f(A, up).item<double>() - f(A, down).item<double>()) / (2 * eps));
  }
  expect_close(a.grad(), ga, 1e-6);
  expect_close(b.grad(), gb, 1e-6);
}

TEST(LinalgEx, SolveExReportsInfoInsteadOfRaising) {
  auto A = torch::eye(3, torch::kDouble).repeat({2, 1, 1});
  A[1].zero_();  // singular
  auto b = torch::randn({2, 3}, torch::kDouble);
  auto s = torch::linalg::solve_ex(A, b, /*left=*/true, /*check_errors=*/false);
  const auto& info = std::get<1>(s);
  EXPECT_EQ(info.scalar_type(), torch::kInt);
  ASSERT_EQ(info.sizes(), torch::IntArrayRef({2}));
  EXPECT_EQ(info[0].item<int>(), 0);
  EXPECT_EQ(info[1].item<int>(), 1);
  expect_close(std::get<0>(s)[0], b[0], 1e-15);  // the good system is still solved
  EXPECT_NE(error_of([&] { torch::linalg::solve_ex(A, b, true, /*check_errors=*/true); })
                .find("(Batch element 1): The solver failed because the input matrix is singular."),
            std::string::npos);
  // info follows A's batch, not the right-hand side's
  auto one = torch::linalg::solve_ex(torch::eye(3, torch::kDouble), torch::randn({4, 3, 2}, torch::kDouble), true,
                                     false);
  EXPECT_EQ(std::get<1>(one).dim(), 0);
  auto bc = torch::linalg::solve_ex(torch::eye(3, torch::kDouble).expand({2, 1, 3, 3}),
                                    torch::randn({4, 3, 2}, torch::kDouble), true, false);
  EXPECT_EQ(std::get<1>(bc).sizes(), torch::IntArrayRef({2, 1}));
  EXPECT_EQ(std::get<1>(bc).sum().item<int>(), 0);
}
