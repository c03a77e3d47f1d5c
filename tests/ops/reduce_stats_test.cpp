// Tests of var/std/var_mean/std_mean, norm, linalg::vector_norm/matrix_norm/norm and
// logsumexp against naive double-precision references, plus their error cases.
#include "ops_test_util.h"
#include "reduce_ref.h"

namespace ember::test {
namespace {

double stats_rtol_for(ScalarType dt) {
  ScalarType r = toRealValueType(dt);
  return r == kHalf ? 3e-3 : r == kBFloat16 ? 2e-2 : r == kFloat ? 3e-5 : 1e-10;
}
double stats_atol_for(ScalarType dt) {
  ScalarType r = toRealValueType(dt);
  return r == kHalf ? 3e-3 : r == kBFloat16 ? 3e-2 : r == kFloat ? 3e-5 : 1e-10;
}

std::function<double(const std::vector<double>&)> ref_var(int64_t correction, bool take_sqrt) {
  return [=](const std::vector<double>& v) {
    double m = 0;
    for (double a : v) m += a;
    m /= v.size();
    double s = 0;
    for (double a : v) s += (a - m) * (a - m);
    double r = s / std::max<double>(0, double(v.size()) - correction);
    return take_sqrt ? std::sqrt(r) : r;
  };
}

TEST(ReduceVar, VarStdAgainstReference) {
  const std::vector<Dims> dim_lists = {{}, {0}, {1}, {-1}, {0, 2}, {1, 2}};
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = add(make_input({6, 5, 7}, dt, layout), 3.0).to(dt);  // a non-zero mean
      for (const auto& dims : dim_lists) {
        for (bool keepdim : {false, true}) {
          EXPECT_TENSOR_CLOSE(x.var(dims, true, keepdim).to(kDouble), ref_reduce(x, dims, keepdim, ref_var(1, false)),
                              stats_rtol_for(dt), stats_atol_for(dt))
              << dt << " " << layout << " " << IntArrayRef(dims);
          EXPECT_TENSOR_CLOSE(x.std(dims, false, keepdim).to(kDouble), ref_reduce(x, dims, keepdim, ref_var(0, true)),
                              stats_rtol_for(dt), stats_atol_for(dt));
          EXPECT_TENSOR_CLOSE(x.var(dims, std::optional<int64_t>(3), keepdim).to(kDouble),
                              ref_reduce(x, dims, keepdim, ref_var(3, false)), stats_rtol_for(dt), stats_atol_for(dt));
          auto [v, m] = var_mean(x, dims, true, keepdim);
          EXPECT_TENSOR_CLOSE(v.to(kDouble), ref_reduce(x, dims, keepdim, ref_var(1, false)), stats_rtol_for(dt), stats_atol_for(dt));
          EXPECT_TENSOR_CLOSE(m.to(kDouble), ref_reduce(x, dims, keepdim, [](const std::vector<double>& a) {
            return ref_sum(a) / a.size();
          }), stats_rtol_for(dt), stats_atol_for(dt));
          auto [s, m2] = std_mean(x, dims, std::optional<int64_t>(0), keepdim);
          EXPECT_TENSOR_CLOSE(s.to(kDouble), ref_reduce(x, dims, keepdim, ref_var(0, true)), stats_rtol_for(dt), stats_atol_for(dt));
          EXPECT_TENSOR_CLOSE(m2, m, 0, 0);
          ASSERT_EQ(v.scalar_type(), dt);
        }
      }
    }
  }
}

TEST(ReduceVar, LargeAndOuterPathsAreAccurate) {
  // A large mean and a small spread: naive sum-of-squares formulas lose every digit here.
  for (auto shape : {std::vector<int64_t>{3, 50001}, std::vector<int64_t>{50001, 3}, std::vector<int64_t>{200000}}) {
    Tensor x = add(mul(randn(shape, TensorOptions().dtype(kDouble)), 1e-3), 1e4).to(kFloat);
    for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
      Tensor ref = ref_reduce(x, {d}, false, ref_var(1, false));
      EXPECT_TENSOR_CLOSE(x.var(Dims{d}).to(kDouble), ref, 1e-3, 0) << IntArrayRef(shape) << " dim " << d;
    }
    Tensor xd = x.to(kDouble);
    EXPECT_TENSOR_CLOSE(xd.var(Dims{0}), ref_reduce(xd, {0}, false, ref_var(1, false)), 1e-9, 0);
  }
}

TEST(ReduceVar, ComplexEmptyAndErrors) {
  Tensor c = crandn({4, 5}, kComplexDouble);
  auto cvar = [](const Tensor& t, Dims dims, int64_t corr) {
    Tensor re = real(t), im = imag(t);
    return add(ref_reduce(re, dims, false, ref_var(corr, false)), ref_reduce(im, dims, false, ref_var(corr, false)));
  };
  EXPECT_TENSOR_CLOSE(c.var(Dims{0}), cvar(c, {0}, 1));
  EXPECT_TENSOR_CLOSE(c.std(Dims{1}, false), sqrt(cvar(c, {1}, 0)));
  EXPECT_EQ(c.var().scalar_type(), kDouble);
  auto [v, m] = var_mean(c, Dims{1});
  EXPECT_EQ(m.scalar_type(), kComplexDouble);
  EXPECT_TENSOR_CLOSE(m, c.mean(Dims{1}));
  EXPECT_TENSOR_CLOSE(v, cvar(c, {1}, 1));

  TensorOptions f32 = TensorOptions().dtype(kFloat);
  EXPECT_TRUE(std::isnan(tensor({1.0}).var().item<double>()));  // one element, correction 1
  EXPECT_TRUE(std::isnan(empty({0}, f32).var().item<double>()));
  auto [ve, me] = var_mean(empty({0, 3}, f32), Dims{0});
  EXPECT_TRUE(std::isnan(ve[0].item<double>()) && std::isnan(me[0].item<double>()));
  EXPECT_EQ(tensor({1.0, 2.0}).var(Dims{0}, std::optional<int64_t>(2)).item<double>(), kInf);
  EXPECT_NEAR(tensor({1.0, 2.0, 4.0}).std(Dims{0}, std::optional<int64_t>(-1)).item<double>(),
              std::sqrt(ref_var(-1, false)({1, 2, 4})), 1e-6);
  EXPECT_ERROR_WITH(tensor({1, 2}).var(), "std and var only support floating point and complex dtypes");
  EXPECT_ERROR_WITH(tensor({1, 2}).std(), "std and var only support floating point and complex dtypes");
  EXPECT_ERROR_WITH(randn({2, 2}).var(Dims{1, 1}), "dim 1 appears multiple times in the list of dims");
}

// ---- norms -----------------------------------------------------------------------------------
std::function<double(const std::vector<double>&)> ref_norm(double p) {
  return [p](const std::vector<double>& v) {
    if (std::isinf(p)) {
      double m = p > 0 ? 0 : kInf;
      for (double a : v) m = p > 0 ? std::max(m, std::fabs(a)) : std::min(m, std::fabs(a));
      return m;
    }
    if (p == 0) {
      double c = 0;
      for (double a : v) c += a != 0;
      return c;
    }
    double s = 0;
    for (double a : v) s += std::pow(std::fabs(a), p);
    return std::pow(s, 1 / p);
  };
}

TEST(ReduceNorm, VectorNormOrdersDtypesLayouts) {
  const std::vector<Dims> dim_lists = {{}, {0}, {-1}, {0, 2}};
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = make_input({4, 6, 5}, dt, layout);
      for (double p : {2.0, 1.0, 0.0, kInf, -kInf, 3.0, 0.5, -1.0}) {
        for (const auto& dims : dim_lists) {
          Tensor r = linalg::vector_norm(x, p, dims, false);
          ASSERT_EQ(r.scalar_type(), dt);
          EXPECT_TENSOR_CLOSE(r.to(kDouble), ref_reduce(x, dims, false, ref_norm(p)), stats_rtol_for(dt) * 2,
                              stats_atol_for(dt))
              << dt << " " << layout << " p=" << p;
        }
        EXPECT_TENSOR_CLOSE(x.norm(p, {1}, true).to(kDouble), ref_reduce(x, {1}, true, ref_norm(p)),
                            stats_rtol_for(dt) * 2, stats_atol_for(dt));
      }
    }
  }
  // Complex: norms of |z|; the result is real.
  Tensor c = crandn({3, 7});
  Tensor absd = abs(c.to(kComplexDouble));
  for (double p : {2.0, 1.0, kInf, 3.0}) {
    Tensor r = linalg::vector_norm(c, p, Dims{1});
    ASSERT_EQ(r.scalar_type(), kFloat);
    EXPECT_TENSOR_CLOSE(r.to(kDouble), ref_reduce(absd, {1}, false, ref_norm(p)), 1e-5, 1e-5);
  }
  Tensor big = randn({300000});
  EXPECT_NEAR(big.norm().item<double>(), ref_norm(2)(values_of(big)), 1e-5 * ref_norm(2)(values_of(big)));
}

TEST(ReduceNorm, DtypeArgumentEmptyAndErrors) {
  Tensor x = randn({3, 4});
  Tensor d = linalg::vector_norm(x, 2, std::nullopt, false, kDouble);
  EXPECT_EQ(d.scalar_type(), kDouble);
  EXPECT_NEAR(d.item<double>(), ref_norm(2)(values_of(x)), 1e-9);
  EXPECT_ERROR_WITH(linalg::vector_norm(x, 2, std::nullopt, false, kHalf),
                    "linalg.vector_norm: the dtype of the input (Float) should be convertible without narrowing to the specified dtype (Half)");
  Tensor c = crandn({2, 3});
  EXPECT_ERROR_WITH(linalg::vector_norm(c, 2, std::nullopt, false, kDouble),
                    "linalg.vector_norm: dtype should be complex for complex inputs, but got Double");
  EXPECT_EQ(linalg::vector_norm(c, 2, std::nullopt, false, kComplexDouble).scalar_type(), kDouble);
  EXPECT_ERROR_WITH(linalg::vector_norm(tensor({1, 2})), "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_ERROR_WITH(tensor({1, 2}).norm(), "norm(): input dtype should be either floating point or complex. Got Long instead.");
  Tensor e = empty({0, 3}, TensorOptions().dtype(kFloat));
  EXPECT_ERROR_WITH(linalg::vector_norm(e, kInf), "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an identity");
  EXPECT_ERROR_WITH(linalg::vector_norm(e, -kInf), "cannot compute the -inf norm");
  EXPECT_EQ(linalg::vector_norm(e, kInf, Dims{1}).numel(), 0);
  EXPECT_EQ(linalg::vector_norm(e, 2).item<double>(), 0.0);
  EXPECT_ERROR_WITH(x.norm(2, {0, 0}), "dim 0 appears multiple times in the list of dims");
  EXPECT_EQ(linalg::vector_norm(tensor({0.0, 2.0}), -1).item<double>(), 0.0);
  EXPECT_TRUE(std::isnan(linalg::vector_norm(tensor({1.0, kNaN}), kInf).item<double>()));
}

TEST(ReduceNorm, MatrixNormAndLinalgNorm) {
  Tensor a = tensor({{1.0, -2.0}, {3.0, 4.0}});
  EXPECT_NEAR(linalg::matrix_norm(a).item<double>(), std::sqrt(30.0), 1e-6);
  EXPECT_EQ(linalg::matrix_norm(a, 1).item<double>(), 6.0);     // max column abs-sum
  EXPECT_EQ(linalg::matrix_norm(a, -1).item<double>(), 4.0);    // min column abs-sum
  EXPECT_EQ(linalg::matrix_norm(a, kInf).item<double>(), 7.0);  // max row abs-sum
  EXPECT_EQ(linalg::matrix_norm(a, -kInf).item<double>(), 3.0);
  // Batched, other dims, keepdim.
  Tensor b = randn({3, 4, 5}, TensorOptions().dtype(kDouble));
  Tensor m = linalg::matrix_norm(b, 1, {0, 2}, true);
  ASSERT_EQ(m.sizes(), IntArrayRef({1, 4, 1}));
  for (int64_t j = 0; j < 4; ++j) {
    double best = 0;
    for (int64_t k = 0; k < 5; ++k) {
      double s = 0;
      for (int64_t i = 0; i < 3; ++i) s += std::fabs(b[i][j][k].item<double>());
      best = std::max(best, s);
    }
    EXPECT_NEAR(m[0][j][0].item<double>(), best, 1e-12);
  }
  EXPECT_TENSOR_CLOSE(linalg::matrix_norm(b, "fro", {-2, -1}), linalg::vector_norm(b, 2, Dims{1, 2}));
  EXPECT_ERROR_WITH(linalg::matrix_norm(a, 3), "linalg.matrix_norm: Order 3 not supported.");
  EXPECT_ERROR_WITH(linalg::matrix_norm(a, "foo"), "linalg.matrix_norm: Order foo not supported.");
  // Singular-value norms; values from PyTorch 1.13.
  EXPECT_NEAR(linalg::matrix_norm(tensor({{1.0, 2.0}, {3.0, 4.0}}), 2).item<double>(), 5.4649857, 1e-5);
  EXPECT_NEAR(linalg::matrix_norm(tensor({{1.0, 2.0}, {3.0, 4.0}}), -2).item<double>(), 0.3659662, 1e-5);
  EXPECT_NEAR(linalg::matrix_norm(tensor({{1.0, 2.0}, {3.0, 4.0}}), "nuc").item<double>(), 5.8309519, 1e-5);
  // A diagonal matrix's singular values are the absolute diagonal; batched over dims {0, 2}.
  Tensor dg = zeros({3, 2, 3}, TensorOptions().dtype(kDouble));
  for (int64_t i = 0; i < 3; ++i) {
    dg[i][0][i] = double(i + 1);
    dg[i][1][(i + 1) % 3] = -double(2 * i + 5);
  }
  // Matrices along dims {0, 2} for each index of dim 1: row j=0 has diag (1, 2, 3).
  Tensor n2 = linalg::matrix_norm(dg, 2, {0, 2}, true);
  ASSERT_EQ(n2.sizes(), IntArrayRef({1, 2, 1}));
  EXPECT_NEAR(n2[0][0][0].item<double>(), 3.0, 1e-12);
  EXPECT_NEAR(n2[0][1][0].item<double>(), 9.0, 1e-12);
  EXPECT_NEAR(linalg::matrix_norm(dg, -2, {0, 2})[0].item<double>(), 1.0, 1e-12);
  EXPECT_NEAR(linalg::matrix_norm(dg, "nuc", {0, 2})[1].item<double>(), 5.0 + 7.0 + 9.0, 1e-12);
  Tensor cz = crandn({3, 3}, kComplexDouble);
  Tensor nz = linalg::matrix_norm(cz, "nuc");
  EXPECT_EQ(nz.scalar_type(), kDouble);
  EXPECT_NEAR(nz.item<double>(), linalg::svdvals(cz).sum().item<double>(), 1e-12);
  EXPECT_ERROR_WITH(linalg::matrix_norm(empty({0, 3}, TensorOptions().dtype(kFloat)), 2), "amax()");
  EXPECT_EQ(linalg::matrix_norm(empty({0, 3}, TensorOptions().dtype(kFloat)), "nuc").item<double>(), 0.0);
  EXPECT_ERROR_WITH(linalg::matrix_norm(randn({2}), 1), "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
  EXPECT_ERROR_WITH(linalg::matrix_norm(a, 1, {0, 0}), "linalg.matrix_norm: dims must be different. Got (0, 0)");
  EXPECT_ERROR_WITH(linalg::matrix_norm(tensor({{1, 2}, {3, 4}}), 1), "Expected a floating point or complex tensor as input. Got Long");
  EXPECT_ERROR_WITH(linalg::matrix_norm(empty({2, 0}, TensorOptions().dtype(kFloat)), 1), "amax(): Expected reduction dim 0 to have non-zero size.");
  EXPECT_EQ(linalg::matrix_norm(empty({0, 2}, TensorOptions().dtype(kFloat)), 1).item<double>(), 0.0);

  EXPECT_NEAR(linalg::norm(a).item<double>(), std::sqrt(30.0), 1e-6);
  EXPECT_EQ(linalg::norm(a, Scalar(1)).item<double>(), 6.0);  // 2-D + ord: matrix norm
  EXPECT_NEAR(linalg::norm(tensor({1.0, 2.0}), Scalar(3)).item<double>(), std::cbrt(9.0), 1e-6);
  EXPECT_ERROR_WITH(linalg::norm(a, Scalar(3)), "linalg.matrix_norm: Order 3 not supported.");
  EXPECT_ERROR_WITH(linalg::norm(randn({2, 2, 2}), Scalar(2)),
                    "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.");
  EXPECT_ERROR_WITH(linalg::norm(randn({2, 2, 2}), std::nullopt, Dims{0, 1, 2}),
                    "linalg.norm: If dim is specified, it must be of length 1 or 2.");
  Tensor r = linalg::norm(b, Scalar(kInf), Dims{0, 1});
  EXPECT_TENSOR_CLOSE(r, linalg::matrix_norm(b, kInf, {0, 1}));
  EXPECT_NEAR(linalg::norm(randn({2, 2, 2}).fill_(1.0)).item<double>(), std::sqrt(8.0), 1e-6);
}

// ---- logsumexp -------------------------------------------------------------------------------
TEST(ReduceLogSumExp, AgainstReferenceAndSpecialValues) {
  auto ref = [](const std::vector<double>& v) {
    double m = -kInf;
    for (double a : v) m = std::max(m, a);
    if (std::isinf(m)) m = 0;
    double s = 0;
    for (double a : v) s += std::exp(a - m);
    return std::log(s) + m;
  };
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    for (const auto& layout : all_layouts()) {
      Tensor x = mul(make_input({4, 5, 6}, dt, layout), 10.0).to(dt);  // large values: needs the max shift
      for (const Dims& dims : {Dims{0}, Dims{2}, Dims{0, 1}, Dims{}}) {
        for (bool keepdim : {false, true}) {
          Tensor r = x.logsumexp(dims, keepdim);
          ASSERT_EQ(r.scalar_type(), dt);
          EXPECT_TENSOR_CLOSE(r.to(kDouble), ref_reduce(x, dims, keepdim, ref), stats_rtol_for(dt),
                              stats_atol_for(dt) * 10);
        }
      }
    }
  }
  Tensor i = tensor({1, 5});
  Tensor ri = i.logsumexp({0});
  EXPECT_EQ(ri.scalar_type(), kFloat);
  EXPECT_NEAR(ri.item<double>(), std::log(std::exp(1.0) + std::exp(5.0)), 1e-5);
  EXPECT_EQ(tensor({kInf, 1.0}).logsumexp({0}).item<double>(), kInf);
  EXPECT_EQ(tensor({-kInf, -kInf}).logsumexp({0}).item<double>(), -kInf);
  EXPECT_EQ(tensor({kInf, kInf}).logsumexp({0}).item<double>(), kInf);
  EXPECT_TRUE(std::isnan(tensor({kNaN, 1.0}).logsumexp({0}).item<double>()));
  Tensor e = empty({0, 3}, TensorOptions().dtype(kFloat));
  EXPECT_TENSOR_EQ(e.logsumexp({0}), full({3}, -kInf, TensorOptions().dtype(kFloat)));
  EXPECT_ERROR_WITH(crandn({2}).logsumexp({0}), "logsumexp(): Expected floating point type for result tensor, but got: ComplexFloat");
}

}  // namespace
}  // namespace ember::test
