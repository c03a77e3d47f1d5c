// LibTorch's less common Tensor methods and free functions (new_*, *_scatter, take_along_dim,
// logaddexp, gcd/lcm, frexp, cov/corrcoef, the linalg helpers, stft/istft...): values checked
// against closed forms and identities. Compiles against ember and LibTorch alike.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>

namespace {

TEST(TensorMethodsMore, NewFactoriesTakeSelfsDtypeAndDevice) {
  auto x = torch::ones({2, 3}, torch::kFloat64);
  auto z = x.new_zeros({4});
  EXPECT_EQ(z.dtype(), torch::kFloat64);
  EXPECT_EQ(z.sizes(), torch::IntArrayRef({4}));
  EXPECT_EQ(z.sum().item<double>(), 0.0);
  EXPECT_EQ(x.new_ones({2, 2}).sum().item<double>(), 4.0);
  auto f = x.new_full({3}, 2.5);
  EXPECT_TRUE(torch::equal(f, torch::full({3}, 2.5, torch::kFloat64)));
  EXPECT_EQ(x.new_empty({5}).numel(), 5);
  EXPECT_EQ(x.new_zeros({2}, torch::kInt32).dtype(), torch::kInt32);
  auto s = x.new_empty_strided({2, 2}, {1, 2});
  EXPECT_EQ(s.stride(1), 2);
  EXPECT_TRUE(x.is_same_size(torch::zeros({2, 3})));
  EXPECT_FALSE(x.is_pinned());
  EXPECT_TRUE(x.alias().is_set_to(x));
  EXPECT_FALSE(x.clone().is_set_to(x));
}

TEST(TensorMethodsMore, ScattersIntoViews) {
  auto base = torch::zeros({3, 4});
  auto src = torch::ones({3, 2});
  auto r = base.slice_scatter(src, 1, 0, 4, 2);
  EXPECT_TRUE(torch::equal(r.sum(0), torch::tensor({3.f, 0.f, 3.f, 0.f})));
  EXPECT_EQ(base.sum().item<float>(), 0.f);  // out of place
  auto r2 = torch::select_scatter(base, torch::ones({4}), 0, 1);
  EXPECT_TRUE(torch::equal(r2.sum(1), torch::tensor({0.f, 4.f, 0.f})));
  auto r3 = torch::zeros({3, 3}).diagonal_scatter(torch::ones({3}));
  EXPECT_TRUE(torch::equal(r3, torch::eye(3)));
}

TEST(TensorMethodsMore, TakeAlongDimAndFriends) {
  auto t = torch::tensor({{10, 30, 20}, {60, 40, 50}});
  auto idx = t.argsort(/*dim=*/int64_t{1});
  EXPECT_TRUE(torch::equal(t.take_along_dim(idx, 1), std::get<0>(t.sort(1))));
  EXPECT_TRUE(torch::equal(torch::take_along_dim(t, torch::tensor({0, 5})), torch::tensor({10, 50})));
  auto b = torch::ones({2, 3, 4});
  EXPECT_EQ(b.sum_to_size({3, 1}).sizes(), torch::IntArrayRef({3, 1}));
  EXPECT_EQ(b.sum_to_size({3, 1}).sum().item<float>(), 24.f);
  EXPECT_EQ(b.ravel().sizes(), torch::IntArrayRef({24}));
  EXPECT_EQ(b.hsplit(3).size(), 3u);
  EXPECT_EQ(b.vsplit(torch::IntArrayRef{1}).size(), 2u);
  EXPECT_EQ(b.vsplit({1}).size(), 1u);  // a braced single number is a section count
  EXPECT_EQ(b.dsplit(2)[1].sizes(), torch::IntArrayRef({2, 3, 2}));
  EXPECT_TRUE(torch::equal(torch::tensor({3, 1, 2}).msort(), torch::tensor({1, 2, 3})));
  EXPECT_TRUE(torch::equal(torch::argwhere(torch::tensor({0, 1, 0, 1})), torch::tensor({{1}, {3}})));
  auto tri = torch::tril_indices(3, 3);
  EXPECT_TRUE(torch::equal(tri, torch::tensor({{0, 1, 1, 2, 2, 2}, {0, 0, 1, 0, 1, 2}})));
  auto c = torch::combinations(torch::tensor({1, 2, 3}));
  EXPECT_TRUE(torch::equal(c, torch::tensor({{1, 2}, {1, 3}, {2, 3}})));
  auto bd = torch::block_diag({torch::ones({1, 1}), 2 * torch::ones({2, 2})});
  EXPECT_EQ(bd.sizes(), torch::IntArrayRef({3, 3}));
  EXPECT_EQ(bd.sum().item<float>(), 9.f);
  EXPECT_EQ(torch::atleast_2d(torch::tensor(3.0)).sizes(), torch::IntArrayRef({1, 1}));
}

TEST(TensorMethodsMore, Arithmetic) {
  auto a = torch::tensor({1.0, -2.0, 100.0}, torch::kDouble);
  auto b = torch::tensor({2.0, -2.0, 1.0}, torch::kDouble);
  EXPECT_TRUE(a.logaddexp(b).allclose(torch::log(torch::exp(a) + torch::exp(b))));
  EXPECT_TRUE(torch::logaddexp2(a, b).allclose(torch::log2(torch::exp2(a) + torch::exp2(b))));
  EXPECT_TRUE(torch::ldexp(torch::tensor({1.0, 3.0}), torch::tensor({2, 3})).equal(torch::tensor({4.0f, 24.0f})));
  EXPECT_TRUE(torch::heaviside(torch::tensor({-1.0, 0.0, 2.0}), torch::tensor({0.5, 0.5, 0.5}))
                  .equal(torch::tensor({0.0f, 0.5f, 1.0f})));
  EXPECT_TRUE(torch::gcd(torch::tensor({12, -18, 0, 7}), torch::tensor({8, 12, 5, 0})).equal(torch::tensor({4, 6, 5, 7})));
  EXPECT_TRUE(torch::lcm(torch::tensor({4, 6, 0}), torch::tensor({6, 4, 3})).equal(torch::tensor({12, 12, 0})));
  auto [m, e] = torch::tensor({8.0, 0.75, -3.0, 0.0}).frexp();
  EXPECT_TRUE(m.equal(torch::tensor({0.5f, 0.75f, -0.75f, 0.0f})));
  EXPECT_TRUE(e.equal(torch::tensor({4, 0, 2, 0}, torch::kInt32)));
  EXPECT_NEAR(torch::dist(torch::zeros({3}), torch::tensor({3.0, 4.0, 0.0})).item<float>(), 5.f, 1e-6);
  EXPECT_NEAR(torch::tensor({1.0, 2.0}).inner(torch::tensor({3.0, 4.0})).item<float>(), 11.f, 1e-6);
  auto w = torch::tensor({{3.0, 4.0}, {0.3, 0.4}});
  auto rn = w.renorm(2, 0, 1.0);
  EXPECT_NEAR(rn[0].norm().item<float>(), 1.f, 1e-5);
  EXPECT_TRUE(rn[1].allclose(w[1]));
}

TEST(TensorMethodsMore, Statistics) {
  auto x = torch::tensor({{0.0, 1.0, 2.0}, {2.0, 1.0, 0.0}}, torch::kDouble);
  auto c = x.cov();
  EXPECT_TRUE(c.allclose(torch::tensor({{1.0, -1.0}, {-1.0, 1.0}}, torch::kDouble)));
  EXPECT_TRUE(x.corrcoef().allclose(torch::tensor({{1.0, -1.0}, {-1.0, 1.0}}, torch::kDouble)));
  auto fw = torch::tensor({1, 2, 1});
  EXPECT_EQ(torch::cov(x, 1, fw).sizes(), torch::IntArrayRef({2, 2}));
  EXPECT_NEAR(torch::trapezoid(torch::tensor({1.0, 2.0, 3.0})).item<float>(), 4.f, 1e-6);
  EXPECT_NEAR(torch::trapz(torch::tensor({1.0, 2.0, 3.0}), torch::tensor({0.0, 1.0, 3.0})).item<float>(), 6.5f, 1e-6);
  EXPECT_TRUE(torch::vander(torch::tensor({1, 2, 3})).equal(torch::tensor({{1, 1, 1}, {4, 2, 1}, {9, 3, 1}})));
  auto p = torch::tensor({{0.0, 0.0}, {3.0, 4.0}});
  EXPECT_TRUE(torch::cdist(p, p).allclose(torch::tensor({{0.0f, 5.0f}, {5.0f, 0.0f}})));
  EXPECT_TRUE(torch::isin(torch::tensor({1, 2, 3, 4}), torch::tensor({2, 4, 9})).equal(
      torch::tensor({false, true, false, true})));
}

TEST(TensorMethodsMore, LinearAlgebraHelpers) {
  auto a = torch::tensor({{4.0, 1.0}, {1.0, 3.0}}, torch::kDouble);
  EXPECT_NEAR(a.logdet().item<double>(), std::log(11.0), 1e-12);
  EXPECT_TRUE(a.matrix_power(3).allclose(a.mm(a).mm(a)));
  EXPECT_TRUE(a.matrix_power(-1).allclose(torch::inverse(a)));
  EXPECT_TRUE(a.matrix_power(0).equal(torch::eye(2, torch::kDouble)));
  auto d = torch::diag(torch::tensor({1.0, 2.0}, torch::kDouble));
  EXPECT_TRUE(d.matrix_exp().allclose(torch::diag(torch::tensor({std::exp(1.0), std::exp(2.0)}, torch::kDouble))));
  EXPECT_TRUE(torch::linalg::matrix_exp(torch::zeros({2, 2})).allclose(torch::eye(2)));
  auto r = torch::tensor({{1.0, 2.0}, {2.0, 4.0}, {0.0, 1.0}}, torch::kDouble);
  EXPECT_TRUE(r.pinverse().mm(r).allclose(torch::eye(2, torch::kDouble), 1e-10, 1e-10));
  EXPECT_EQ(torch::linalg::matrix_rank(torch::ones({3, 3}), 1e-6, false).item<int64_t>(), 1);
  auto [U, S, V] = a.svd();
  EXPECT_TRUE(U.mm(torch::diag(S)).mm(V.t()).allclose(a));
  auto [Q, R] = r.qr();
  EXPECT_TRUE(Q.mm(R).allclose(r));
  auto L = torch::linalg::cholesky(a);
  auto b = torch::tensor({{1.0}, {2.0}}, torch::kDouble);
  EXPECT_TRUE(a.mm(torch::cholesky_solve(b, L)).allclose(b));
  EXPECT_TRUE(torch::cholesky_inverse(L).allclose(torch::inverse(a)));
  auto T = torch::tensor({{2.0, 1.0}, {0.0, 4.0}}, torch::kDouble);
  auto sol = std::get<0>(torch::triangular_solve(b, T));
  EXPECT_TRUE(T.mm(sol).allclose(b));
  EXPECT_TRUE(torch::linalg::solve_triangular(T, b, /*upper=*/true, /*left=*/true, false).allclose(sol));
  auto chain = torch::linalg::multi_dot({a, a, b});
  EXPECT_TRUE(chain.allclose(a.mm(a).mm(b)));
}

TEST(TensorMethodsMore, StftRoundTrips) {
  torch::manual_seed(0);
  auto signal = torch::randn({2, 400}, torch::kDouble);
  auto window = torch::hann_window(64, torch::kDouble);
  auto spec = torch::stft(signal, 64, 16, 64, window, /*center=*/true, "reflect", false, c10::nullopt, true);
  EXPECT_EQ(spec.sizes(), torch::IntArrayRef({2, 33, 26}));
  EXPECT_TRUE(spec.is_complex());
  auto back = torch::istft(spec, 64, 16, 64, window, true, false, c10::nullopt, 400);
  EXPECT_TRUE(back.allclose(signal, 1e-10, 1e-10));
  // A pure tone puts its energy in its bin.
  auto t = torch::arange(256, torch::kDouble);
  auto tone = torch::cos(2 * M_PI * 8 * t / 64);
  auto s = tone.stft(64, 64, c10::nullopt, c10::nullopt, false, "reflect", false, c10::nullopt, true);
  EXPECT_EQ(std::get<1>(s.abs().max(0)).sum().item<int64_t>(), 8 * s.size(1));
}

}  // namespace
