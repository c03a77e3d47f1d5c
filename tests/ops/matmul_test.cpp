// Tests of the matmul family (ember/ops/linalg.cpp, blas.cpp, linalg_dnnl.cpp,
// cpu/gemm_kernels.cpp): every dtype against a naive double-precision GEMM written here,
// strided/transposed/broadcast operands and outputs, batching, empty shapes, alpha/beta,
// out= and in-place forms, and PyTorch's error messages.
#include <complex>
#include <limits>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/blas.h"
#include "test_util.h"

namespace ember::test {
namespace {

using cd = std::complex<double>;

// ---- reference helpers ----------------------------------------------------------------
Tensor make(IntArrayRef shape, ScalarType dt) { return random_tensor(shape, dt, dt == kByte ? 0 : -5, 6); }

// Naive (m x k) @ (k x n) in complex double, the reference for every dtype.
Tensor naive_mm(const Tensor& a, const Tensor& b) {
  const int64_t m = a.size(0), k = a.size(1), n = b.size(1);
  auto av = to_complex_vector(a), bv = to_complex_vector(b);
  std::vector<cd> c(m * n);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      cd s = 0;
      for (int64_t p = 0; p < k; ++p) s += av[i * k + p] * bv[p * n + j];
      c[i * n + j] = s;
    }
  return from_complex_vector(c, {m, n});
}

Tensor naive_bmm(const Tensor& a, const Tensor& b) {
  std::vector<cd> all;
  for (int64_t i = 0; i < a.size(0); ++i) {
    auto v = to_complex_vector(naive_mm(a.select(0, i), b.select(0, i)));
    all.insert(all.end(), v.begin(), v.end());
  }
  return from_complex_vector(all, {a.size(0), a.size(1), b.size(2)});
}

// Tolerances for a K-term dot product of N(0,1) values in dtype t.
std::pair<double, double> tol(ScalarType t, int64_t k = 64) {
  const double s = std::sqrt(double(std::max<int64_t>(k, 1)));
  switch (toRealValueType(t)) {
    case kFloat: return {1e-5, 2e-6 * s * 4};
    case kDouble: return {1e-12, 1e-13 * s};
    case kBFloat16: return {1.6e-2, 2e-2 * s};
    case kHalf: return {2e-3, 2e-3 * s};
    default: return {0, 0};
  }
}

// Expects `actual` (dtype t) to equal the complex-double `expected` within t's tolerance.
::testing::AssertionResult close_to(const Tensor& actual, const Tensor& expected, int64_t k) {
  auto [rtol, atol] = tol(actual.scalar_type(), k);
  return tensors_close(actual, expected.to(actual.scalar_type()), rtol, atol);
}
#define EXPECT_MATMUL_CLOSE(actual, expected, k) EXPECT_TRUE(close_to(actual, expected, k))

const std::vector<ScalarType> kAllGemmTypes = {kFloat, kDouble,      kComplexFloat, kComplexDouble, kBFloat16, kHalf,
                                               kComplexHalf, kByte, kChar, kShort, kInt, kLong};

// ---- mm ---------------------------------------------------------------------------------
TEST(MatmulMm, EveryDtypeMatchesNaive) {
  for (ScalarType dt : kAllGemmTypes) {
    for (auto [m, k, n] : {std::tuple{5, 7, 3}, {1, 9, 4}, {6, 9, 1}, {1, 1, 1}, {70, 90, 50}, {33, 300, 17}}) {
      SCOPED_TRACE(::testing::Message() << dt << " " << m << "x" << k << "x" << n);
      Tensor a = make({m, k}, dt), b = make({k, n}, dt);
      Tensor r = mm(a, b);
      EXPECT_EQ(r.scalar_type(), dt);
      EXPECT_MATMUL_CLOSE(r, naive_mm(a, b), k);
    }
  }
}

TEST(MatmulMm, LargeFloatShapesBothBackends) {
  // Sizes on both sides of the oneDNN / OpenBLAS crossover, and odd sizes.
  for (auto [m, k, n] : {std::tuple{8, 8, 8}, {32, 40, 24}, {64, 64, 64}, {129, 257, 65}, {256, 256, 256},
                         {300, 17, 513}}) {
    SCOPED_TRACE(::testing::Message() << m << "x" << k << "x" << n);
    Tensor a = make({m, k}, kFloat), b = make({k, n}, kFloat);
    EXPECT_MATMUL_CLOSE(mm(a, b), naive_mm(a, b), k);
  }
}

TEST(MatmulMm, TransposedSlicedAndExpandedOperands) {
  for (ScalarType dt : {kFloat, kDouble, kComplexFloat, kBFloat16, kHalf, kInt}) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor a = make({40, 30}, dt), b = make({30, 50}, dt);
    Tensor at = make({30, 40}, dt).t(), bt = make({50, 30}, dt).t();
    EXPECT_MATMUL_CLOSE(mm(at, b), naive_mm(at, b), 30);
    EXPECT_MATMUL_CLOSE(mm(a, bt), naive_mm(a, bt), 30);
    EXPECT_MATMUL_CLOSE(mm(at, bt), naive_mm(at, bt), 30);
    // Row stride larger than the row (narrowed columns): passed as a leading dimension.
    Tensor big = make({40, 64}, dt);
    Tensor an = big.narrow(1, 3, 30);
    EXPECT_MATMUL_CLOSE(mm(an, b), naive_mm(an, b), 30);
    Tensor bn = make({64, 80}, dt).narrow(0, 5, 30).narrow(1, 7, 50);
    EXPECT_MATMUL_CLOSE(mm(an, bn), naive_mm(an, bn), 30);
    // Neither last stride is 1: copied.
    Tensor as = make({80, 60}, dt).slice(0, 0, 80, 2).slice(1, 0, 60, 2);
    EXPECT_MATMUL_CLOSE(mm(as, b), naive_mm(as, b), 30);
    // Broadcast (stride 0) operands.
    Tensor row = make({1, 30}, dt).expand({40, 30});
    EXPECT_MATMUL_CLOSE(mm(row, b), naive_mm(row, b), 30);
    Tensor col = make({30, 1}, dt).expand({30, 50});
    EXPECT_MATMUL_CLOSE(mm(a, col), naive_mm(a, col), 30);
  }
}

TEST(MatmulMm, EmptyShapes) {
  for (ScalarType dt : {kFloat, kDouble, kComplexFloat, kBFloat16, kHalf, kLong}) {
    EXPECT_EQ(mm(make({0, 3}, dt), make({3, 4}, dt)).sizes(), IntArrayRef({0, 4}));
    EXPECT_EQ(mm(make({2, 3}, dt), make({3, 0}, dt)).sizes(), IntArrayRef({2, 0}));
    // k == 0: a sum of nothing is zero.
    Tensor z = mm(make({2, 0}, dt), make({0, 4}, dt));
    EXPECT_TENSOR_EQ(z, zeros({2, 4}, dtype(dt)));
  }
}

TEST(MatmulMm, OutForms) {
  Tensor a = make({20, 30}, kFloat), b = make({30, 10}, kFloat);
  Tensor expected = naive_mm(a, b);
  // Contiguous out of the wrong shape is resized.
  Tensor out = empty({3, 3});
  EXPECT_TRUE(mm_out(out, a, b).is_same(out));
  EXPECT_MATMUL_CLOSE(out, expected, 30);
  // A column-major out is written in place (C^T = B^T A^T).
  Tensor outT = empty({10, 20}).t();
  mm_out(outT, a, b);
  EXPECT_FALSE(outT.is_contiguous());
  EXPECT_MATMUL_CLOSE(outT, expected, 30);
  // An out with no unit stride goes through a temporary.
  Tensor base = full({40, 10}, 7.0);
  Tensor outS = base.slice(0, 0, 40, 2);
  mm_out(outS, a, b);
  EXPECT_MATMUL_CLOSE(outS, expected, 30);
  EXPECT_TENSOR_EQ(base.slice(0, 1, 40, 2), full({20, 10}, 7.0));
  // out aliasing an input.
  Tensor sq = make({16, 16}, kDouble), sq2 = make({16, 16}, kDouble);
  Tensor exp2 = naive_mm(sq, sq2);
  Tensor alias = sq.clone();
  mm_out(alias, alias, sq2);
  EXPECT_MATMUL_CLOSE(alias, exp2, 16);
  EXPECT_ERROR_WITH(mm_out(out, a, b.to(kDouble)), "expected scalar type Float but found Double");
  Tensor outd = empty({20, 10}, dtype(kDouble));
  EXPECT_ERROR_WITH(mm_out(outd, a, b), "Expected out tensor to have dtype float, but got double instead");
}

TEST(MatmulMm, Errors) {
  Tensor A = make({2, 3}, kFloat), B = make({4, 5}, kFloat);
  EXPECT_ERROR_WITH(mm(A, B), "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)");
  EXPECT_ERROR_WITH(mm(A, make({3, 4}, kDouble)), "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(mm(make({3}, kFloat), B), "self must be a matrix");
  EXPECT_ERROR_WITH(mm(A, make({3}, kFloat)), "mat2 must be a matrix");
  EXPECT_ERROR_WITH(mm(make({2, 3}, kInt), make({3, 4}, kLong)), "expected scalar type Int but found Long");
  EXPECT_ERROR_WITH(mm(ones({2, 3}, dtype(kBool)), ones({3, 4}, dtype(kBool))), "not implemented for 'Bool'");
}

TEST(MatmulMm, NanInInputsPropagates) {
  for (ScalarType dt : {kFloat, kDouble, kBFloat16}) {
    Tensor a = make({64, 64}, dt), b = make({64, 64}, dt);
    a.select(0, 0).select(0, 0).fill_(std::numeric_limits<double>::quiet_NaN());
    Tensor r = mm(a, b);
    for (int64_t j = 0; j < 64; ++j) EXPECT_TRUE(std::isnan(r.select(0, 0).select(0, j).item<double>()));
    EXPECT_FALSE(std::isnan(r.select(0, 1).select(0, 0).item<double>()));
  }
}

TEST(MatmulMm, ThreadCountDoesNotChangeResults) {
  const int saved = get_num_threads();
  Tensor a = make({300, 200}, kDouble), b = make({200, 100}, kDouble);
  Tensor af = a.to(kFloat), bf = b.to(kFloat);
  set_num_threads(1);
  Tensor r1 = mm(a, b), f1 = mm(af, bf), i1 = mm(a.to(kInt), b.to(kInt));
  set_num_threads(2);
  Tensor r2 = mm(a, b), f2 = mm(af, bf), i2 = mm(a.to(kInt), b.to(kInt));
  set_num_threads(saved);
  EXPECT_TENSOR_CLOSE(r1, r2, 1e-13, 1e-12);
  EXPECT_TENSOR_CLOSE(f1, f2, 1e-5, 1e-4);
  EXPECT_TENSOR_EQ(i1, i2);
}

TEST(MatmulMm, InsideParallelRegion) {
  // GEMMs called from inside parallel_for (nested: run on the calling thread).
  std::vector<Tensor> a, b, r(4);
  for (int i = 0; i < 4; ++i) a.push_back(make({64, 64}, i % 2 ? kBFloat16 : kFloat)), b.push_back(make({64, 64}, a[i].scalar_type()));
  parallel_for(0, 4, 1, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) r[i] = mm(a[i], b[i]);
  });
  for (int i = 0; i < 4; ++i) EXPECT_MATMUL_CLOSE(r[i], naive_mm(a[i], b[i]), 64);
}

TEST(MatmulMm, PrimitiveCacheIsBounded) {
  for (int n = 40; n < 40 + 140; ++n) {
    Tensor a = make({n, 41}, kFloat), b = make({41, 43}, kFloat);
    (void)mm(a, b);
  }
  EXPECT_LE(blas::dnnl_cache_size(), 128);
  EXPECT_GT(blas::dnnl_cache_size(), 0);
  blas::dnnl_cache_clear();
  EXPECT_EQ(blas::dnnl_cache_size(), 0);
  Tensor a = make({64, 64}, kFloat), b = make({64, 64}, kFloat);
  EXPECT_MATMUL_CLOSE(mm(a, b), naive_mm(a, b), 64);
}

TEST(MatmulMm, IntegerWraparound) {
  // int8 accumulation wraps as in PyTorch: 127 * 2 + 127 * 2 = 508 -> 508 - 512 = -4.
  Tensor a = full({1, 2}, 127, dtype(kChar)), b = full({2, 1}, 2, dtype(kChar));
  EXPECT_EQ(mm(a, b).item<int64_t>(), -4);
  Tensor u = full({1, 3}, 200, dtype(kByte)), v = full({3, 1}, 1, dtype(kByte));
  EXPECT_EQ(mm(u, v).item<int64_t>(), 600 - 512);
}

// ---- bmm ---------------------------------------------------------------------------------
TEST(MatmulBmm, EveryDtypeMatchesNaive) {
  for (ScalarType dt : kAllGemmTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor a = make({4, 6, 5}, dt), b = make({4, 5, 7}, dt);
    EXPECT_MATMUL_CLOSE(bmm(a, b), naive_bmm(a, b), 5);
    Tensor a2 = make({3, 70, 40}, dt), b2 = make({3, 40, 33}, dt);
    EXPECT_MATMUL_CLOSE(bmm(a2, b2), naive_bmm(a2, b2), 40);
  }
}

TEST(MatmulBmm, StridedAndBroadcastBatches) {
  for (ScalarType dt : {kFloat, kDouble, kComplexDouble, kBFloat16, kLong}) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor at = make({5, 9, 8}, dt).transpose(1, 2);  // (5, 8, 9), transposed matrices
    Tensor b = make({5, 9, 6}, dt);
    EXPECT_MATMUL_CLOSE(bmm(at, b), naive_bmm(at, b), 9);
    Tensor bp = make({9, 5, 6}, dt).permute({1, 0, 2});  // batch stride smaller than a matrix
    EXPECT_MATMUL_CLOSE(bmm(at, bp), naive_bmm(at, bp), 9);
    Tensor be = make({1, 9, 6}, dt).expand({5, 9, 6});  // one matrix for every batch
    EXPECT_MATMUL_CLOSE(bmm(at, be), naive_bmm(at, be), 9);
    Tensor ae = make({1, 8, 9}, dt).expand({5, 8, 9});
    EXPECT_MATMUL_CLOSE(bmm(ae, be), naive_bmm(ae, be), 9);
    Tensor as = make({10, 8, 9}, dt).slice(0, 0, 10, 2);  // every other matrix
    EXPECT_MATMUL_CLOSE(bmm(as, b), naive_bmm(as, b), 9);
  }
}

TEST(MatmulBmm, LargeFloat) {
  Tensor a = make({8, 128, 96}, kFloat), b = make({8, 96, 112}, kFloat);
  EXPECT_MATMUL_CLOSE(bmm(a, b), naive_bmm(a, b), 96);
  Tensor bt = make({8, 112, 96}, kFloat).transpose(1, 2);
  EXPECT_MATMUL_CLOSE(bmm(a, bt), naive_bmm(a, bt), 96);
}

TEST(MatmulBmm, EmptyAndOut) {
  EXPECT_EQ(bmm(make({0, 2, 3}, kFloat), make({0, 3, 4}, kFloat)).sizes(), IntArrayRef({0, 2, 4}));
  EXPECT_TENSOR_EQ(bmm(make({2, 2, 0}, kDouble), make({2, 0, 4}, kDouble)), zeros({2, 2, 4}, dtype(kDouble)));
  Tensor a = make({3, 4, 5}, kDouble), b = make({3, 5, 6}, kDouble);
  Tensor out = empty({1});
  EXPECT_ERROR_WITH(bmm_out(out, a, b), "Expected out tensor to have dtype double, but got float instead");
  Tensor outd = empty({3, 6, 4}, dtype(kDouble)).transpose(1, 2);
  bmm_out(outd, a, b);
  EXPECT_MATMUL_CLOSE(outd, naive_bmm(a, b), 5);
}

TEST(MatmulBmm, Errors) {
  EXPECT_ERROR_WITH(bmm(make({2, 3}, kFloat), make({4, 5}, kFloat)), "batch1 must be a 3D tensor");
  EXPECT_ERROR_WITH(bmm(make({2, 2, 3}, kFloat), make({4, 5}, kFloat)), "batch2 must be a 3D tensor");
  EXPECT_ERROR_WITH(bmm(make({2, 2, 3}, kFloat), make({3, 3, 4}, kFloat)),
                    "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [3, 3].");
  EXPECT_ERROR_WITH(bmm(make({2, 2, 3}, kFloat), make({2, 4, 4}, kFloat)),
                    "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
  EXPECT_ERROR_WITH(bmm(make({2, 2, 3}, kFloat), make({2, 3, 4}, kDouble)), "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(bmm(ones({2, 2, 3}, dtype(kBool)), ones({2, 3, 4}, dtype(kBool))), "not implemented for 'Bool'");
}

// ---- matmul broadcasting ------------------------------------------------------------------
// Reference for torch.matmul: promote 1-D operands, broadcast batch dims, loop.
Tensor naive_matmul(const Tensor& a, const Tensor& b) {
  Tensor a2 = a.dim() == 1 ? a.unsqueeze(0) : a, b2 = b.dim() == 1 ? b.unsqueeze(1) : b;
  std::vector<int64_t> batch = broadcast_shapes(a2.sizes().slice(0, a2.dim() - 2), b2.sizes().slice(0, b2.dim() - 2));
  std::vector<int64_t> as = batch, bs = batch;
  as.insert(as.end(), {a2.size(-2), a2.size(-1)});
  bs.insert(bs.end(), {b2.size(-2), b2.size(-1)});
  int64_t B = 1;
  for (int64_t s : batch) B *= s;
  Tensor ae = a2.expand(as).reshape({B, a2.size(-2), a2.size(-1)});
  Tensor be = b2.expand(bs).reshape({B, b2.size(-2), b2.size(-1)});
  std::vector<int64_t> out = batch;
  out.insert(out.end(), {a2.size(-2), b2.size(-1)});
  Tensor r = naive_bmm(ae, be).reshape(out);
  if (a.dim() == 1) r = r.squeeze(-2);
  if (b.dim() == 1) r = r.squeeze(-1);
  return r;
}

TEST(MatmulBroadcast, EveryCaseOfTorchMatmul) {
  using S = std::vector<int64_t>;
  const std::vector<std::pair<S, S>> cases = {
      {{3}, {3}},           {{2, 3}, {3}},          {{3}, {3, 4}},          {{2, 3}, {3, 4}},
      {{5, 2, 3}, {3, 4}},  {{5, 2, 3}, {3}},       {{3}, {5, 3, 4}},       {{2, 3}, {5, 3, 4}},
      {{2, 1, 2, 3}, {3, 3, 4}}, {{1, 5, 2, 3}, {4, 1, 3, 2}}, {{4, 5, 2, 3}, {5, 3, 2}},
      {{2, 3, 4, 5}, {5}},  {{5}, {2, 3, 5, 4}},    {{6, 1, 3}, {1, 6, 3, 2}}, {{0, 2, 3}, {3, 4}},
      {{2, 2, 0}, {2, 0, 3}}};
  for (ScalarType dt : {kFloat, kDouble, kComplexFloat, kInt, kBFloat16}) {
    for (auto& [sa, sb] : cases) {
      SCOPED_TRACE(::testing::Message() << dt << " " << IntArrayRef(sa) << " @ " << IntArrayRef(sb));
      Tensor a = make(sa, dt), b = make(sb, dt);
      Tensor r = matmul(a, b);
      Tensor e = naive_matmul(a, b);
      EXPECT_EQ(r.sizes(), e.sizes());
      EXPECT_MATMUL_CLOSE(r, e, a.size(-1));
      EXPECT_MATMUL_CLOSE(linalg::matmul(a, b), e, a.size(-1));
      EXPECT_MATMUL_CLOSE(a.matmul(b), e, a.size(-1));
    }
  }
}

TEST(MatmulBroadcast, NonFoldableLayouts) {
  // (B, n, k) whose batch dim cannot merge with the rows: the batched path, no copy of a.
  Tensor a = make({4, 7, 6}, kFloat).transpose(1, 2);  // (4, 6, 7)
  Tensor b = make({7, 5}, kFloat);
  EXPECT_MATMUL_CLOSE(matmul(a, b), naive_matmul(a, b), 7);
  Tensor a4 = make({3, 4, 5, 6}, kDouble).permute({1, 0, 2, 3});
  EXPECT_MATMUL_CLOSE(matmul(a4, b.to(kDouble).narrow(0, 0, 6)), naive_matmul(a4, b.to(kDouble).narrow(0, 0, 6)), 6);
  // Broadcast batch dims that do not collapse to one stride.
  Tensor x = make({2, 1, 3, 4}, kFloat), y = make({1, 5, 4, 2}, kFloat);
  EXPECT_MATMUL_CLOSE(matmul(x, y), naive_matmul(x, y), 4);
}

TEST(MatmulBroadcast, OutAndErrors) {
  Tensor a = make({5, 2, 3}, kFloat), b = make({3, 4}, kFloat);
  Tensor out = empty({0});
  matmul_out(out, a, b);
  EXPECT_MATMUL_CLOSE(out, naive_matmul(a, b), 3);
  Tensor outd = empty({5, 2, 4}, dtype(kDouble));
  EXPECT_ERROR_WITH(matmul_out(outd, a, b), "Expected out tensor to have dtype float, but got double instead");
  EXPECT_ERROR_WITH(matmul(make({3}, kFloat), make({4}, kFloat)), "inconsistent tensor size, expected tensor [3] and src [4]");
  EXPECT_ERROR_WITH(matmul(make({2, 3}, kFloat), make({4}, kFloat)), "size mismatch, got 2, 2x3,4");
  EXPECT_ERROR_WITH(matmul(make({3}, kFloat), make({4, 5}, kFloat)), "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)");
  EXPECT_ERROR_WITH(matmul(make({2, 2, 3}, kFloat), make({3, 4, 5}, kFloat)), "must match the size of tensor b");
  EXPECT_ERROR_WITH(matmul(make({2, 2, 3}, kFloat), make({2, 4}, kFloat)),
                    "mat1 and mat2 shapes cannot be multiplied (4x3 and 2x4)");
  EXPECT_ERROR_WITH(matmul(make({2, 3}, kFloat), make({2, 4, 5}, kFloat)),
                    "mat1 and mat2 shapes cannot be multiplied (10x4 and 3x2)");
  EXPECT_ERROR_WITH(matmul(make({3}, kFloat), make({2, 4, 5}, kFloat)), "size mismatch, got 10, 10x4,3");
  EXPECT_ERROR_WITH(matmul(make({2, 2, 3}, kFloat), make({2, 4, 5}, kFloat)),
                    "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4].");
  EXPECT_ERROR_WITH(matmul(make({2, 2, 3}, kFloat), make({3, 4}, kDouble)), "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(matmul(full({}, 1.0), make({3}, kFloat)),
                    "both arguments to matmul need to be at least 1D, but they are 0D and 1D");
  EXPECT_ERROR_WITH(matmul(make({3}, kFloat), make({3}, kDouble)),
                    "dot : expected both vectors to have same dtype, but found Float and Double");
}

// ---- addmm, baddbmm, addbmm ----------------------------------------------------------------
TEST(MatmulAddmm, BetaAlphaAndBroadcastSelf) {
  for (ScalarType dt : {kFloat, kDouble, kComplexFloat, kBFloat16, kHalf, kLong}) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor self = make({6, 4}, dt), m1 = make({6, 5}, dt), m2 = make({5, 4}, dt);
    const bool integral = isIntegralType(dt, false);
    Scalar beta = integral ? Scalar(2) : Scalar(0.5), alpha = integral ? Scalar(-3) : Scalar(1.5);
    Tensor e = from_complex_vector([&] {
      auto s = to_complex_vector(self), p = to_complex_vector(naive_mm(m1, m2));
      std::vector<cd> r(s.size());
      for (size_t i = 0; i < s.size(); ++i) r[i] = beta.toDouble() * s[i] + alpha.toDouble() * p[i];
      return r;
    }(), {6, 4});
    EXPECT_MATMUL_CLOSE(addmm(self, m1, m2, beta, alpha), e, 8);
    EXPECT_MATMUL_CLOSE(self.addmm(m1, m2, beta, alpha), e, 8);
    Tensor out = empty({1}, dtype(dt));
    EXPECT_MATMUL_CLOSE(addmm_out(out, self, m1, m2, beta, alpha), e, 8);
    Tensor inplace = self.clone();
    inplace.addmm_(m1, m2, beta, alpha);
    EXPECT_MATMUL_CLOSE(inplace, e, 8);
    // self broadcast from a row.
    Tensor row = make({4}, dt);
    Tensor erow = from_complex_vector([&] {
      auto s = to_complex_vector(row), p = to_complex_vector(naive_mm(m1, m2));
      std::vector<cd> r(p.size());
      for (size_t i = 0; i < p.size(); ++i) r[i] = s[i % 4] + p[i];
      return r;
    }(), {6, 4});
    EXPECT_MATMUL_CLOSE(addmm(row, m1, m2), erow, 8);
  }
}

TEST(MatmulAddmm, BetaZeroIgnoresNan) {
  Tensor self = full({3, 4}, std::numeric_limits<double>::quiet_NaN());
  Tensor m1 = make({3, 5}, kFloat), m2 = make({5, 4}, kFloat);
  EXPECT_MATMUL_CLOSE(addmm(self, m1, m2, 0, 1), naive_mm(m1, m2), 5);
  Tensor s2 = self.clone();
  s2.addmm_(m1, m2, 0, 2);
  EXPECT_MATMUL_CLOSE(s2, naive_mm(m1, m2).mul(2), 5);
  Tensor b3 = full({2, 3, 4}, std::numeric_limits<double>::quiet_NaN());
  Tensor x = make({2, 3, 5}, kFloat), y = make({2, 5, 4}, kFloat);
  EXPECT_MATMUL_CLOSE(baddbmm(b3, x, y, 0), naive_bmm(x, y), 5);
  Tensor v = full({3}, std::numeric_limits<double>::quiet_NaN());
  Tensor vec = make({5}, kFloat);
  EXPECT_MATMUL_CLOSE(addmv(v, m1, vec, 0), naive_mm(m1, vec.unsqueeze(1)).squeeze(1), 5);
  // k == 0 with beta == 0 gives zeros even over NaN.
  EXPECT_TENSOR_EQ(addmm(self, make({3, 0}, kFloat), make({0, 4}, kFloat), 0), zeros({3, 4}));
}

TEST(MatmulAddmm, Errors) {
  EXPECT_ERROR_WITH(addmm(make({2, 4}, kFloat), make({2, 3}, kFloat), make({3, 4}, kDouble)),
                    "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(addmm(make({2, 4}, kDouble), make({2, 3}, kFloat), make({3, 4}, kFloat)),
                    "self and mat2 must have the same dtype");
  EXPECT_ERROR_WITH(addmm(make({3, 4}, kFloat), make({2, 3}, kFloat), make({3, 4}, kFloat)),
                    "must match the existing size (3) at non-singleton dimension 0");
  EXPECT_ERROR_WITH(addmm(make({2, 3}, kFloat), make({2, 3}, kFloat), make({4, 4}, kFloat)),
                    "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x4)");
  EXPECT_ERROR_WITH(addmm(make({2, 3}, kFloat), make({3}, kFloat), make({4, 4}, kFloat)), "mat1 must be a matrix, got 1-D tensor");
  EXPECT_ERROR_WITH(addmm(make({2, 3}, kFloat), make({2, 3}, kFloat), make({3}, kFloat)), "mat2 must be a matrix, got 1-D tensor");
  Tensor wrong = make({2, 4}, kDouble);
  EXPECT_ERROR_WITH(wrong.addmm_(make({2, 3}, kFloat), make({3, 4}, kFloat)), "self and mat2 must have the same dtype");
  Tensor outd = empty({2, 4}, dtype(kDouble));
  EXPECT_ERROR_WITH(addmm_out(outd, make({2, 4}, kFloat), make({2, 3}, kFloat), make({3, 4}, kFloat)),
                    "Expected out tensor to have dtype float, but got double instead");
  Tensor s = make({4}, kFloat);
  EXPECT_ERROR_WITH(s.addmm_(make({2, 3}, kFloat), make({3, 4}, kFloat)),
                    "Bad in-place call: input tensor size [4] and output tensor size [2, 4] should match");
  EXPECT_ERROR_WITH(addmm(make({2, 4}, kFloat), make({2, 3}, kFloat), make({3, 4}, kFloat), 1, Complex<double>(0, 1)),
                    "value cannot be converted to type float without overflow");
}

TEST(MatmulBaddbmm, ValuesInplaceAndErrors) {
  for (ScalarType dt : {kFloat, kDouble, kComplexDouble, kBFloat16, kInt}) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor self = make({3, 4, 5}, dt), b1 = make({3, 4, 6}, dt), b2 = make({3, 6, 5}, dt);
    Tensor e = from_complex_vector([&] {
      auto s = to_complex_vector(self), p = to_complex_vector(naive_bmm(b1, b2));
      std::vector<cd> r(s.size());
      for (size_t i = 0; i < s.size(); ++i) r[i] = 2.0 * s[i] - 1.0 * p[i];
      return r;
    }(), {3, 4, 5});
    EXPECT_MATMUL_CLOSE(baddbmm(self, b1, b2, 2, -1), e, 12);
    Tensor ip = self.clone();
    ip.baddbmm_(b1, b2, 2, -1);
    EXPECT_MATMUL_CLOSE(ip, e, 12);
    Tensor out = empty({0}, dtype(dt));
    EXPECT_MATMUL_CLOSE(baddbmm_out(out, self, b1, b2, 2, -1), e, 12);
    // self broadcast from (5).
    Tensor row = make({5}, dt);
    Tensor erow = from_complex_vector([&] {
      auto s = to_complex_vector(row), p = to_complex_vector(naive_bmm(b1, b2));
      std::vector<cd> r(p.size());
      for (size_t i = 0; i < p.size(); ++i) r[i] = s[i % 5] + p[i];
      return r;
    }(), {3, 4, 5});
    EXPECT_MATMUL_CLOSE(baddbmm(row, b1, b2), erow, 12);
  }
  // A self of another dtype is cast, as PyTorch 1.13 does.
  Tensor b1 = make({2, 3, 4}, kFloat), b2 = make({2, 4, 5}, kFloat);
  EXPECT_EQ(baddbmm(make({2, 3, 5}, kDouble), b1, b2).scalar_type(), kFloat);
  EXPECT_ERROR_WITH(baddbmm(make({3, 2, 4}, kFloat), make({5, 2, 3}, kFloat), make({5, 3, 4}, kFloat)),
                    "must match the existing size (3) at non-singleton dimension 0");
  EXPECT_ERROR_WITH(baddbmm(make({5, 2, 4}, kFloat), make({5, 2, 3}, kFloat), make({5, 4, 4}, kFloat)),
                    "Expected size for first two dimensions of batch2 tensor to be: [5, 3] but got: [5, 4].");
  EXPECT_ERROR_WITH(baddbmm(make({5, 2, 4}, kFloat), make({5, 2, 3}, kFloat), make({5, 3, 4}, kDouble)),
                    "expected scalar type Float but found Double");
  Tensor s = make({2, 4}, kFloat);
  EXPECT_ERROR_WITH(s.baddbmm_(make({5, 2, 3}, kFloat), make({5, 3, 4}, kFloat)),
                    "Bad in-place call: input tensor size [2, 4] and output tensor size [5, 2, 4] should match");
  Tensor sd = make({5, 2, 4}, kDouble);
  EXPECT_ERROR_WITH(sd.baddbmm_(make({5, 2, 3}, kFloat), make({5, 3, 4}, kFloat)),
                    "Bad in-place call: input tensor dtype double and output tensor dtype float should match");
}

TEST(MatmulAddbmm, ValuesAndErrors) {
  for (ScalarType dt : {kFloat, kDouble, kComplexFloat, kBFloat16, kShort}) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor self = make({4, 5}, dt), b1 = make({3, 4, 6}, dt), b2 = make({3, 6, 5}, dt);
    Tensor e = from_complex_vector([&] {
      auto s = to_complex_vector(self), p = to_complex_vector(naive_bmm(b1, b2));
      std::vector<cd> r(s.size());
      for (size_t i = 0; i < s.size(); ++i) r[i] = 3.0 * s[i] + 2.0 * (p[i] + p[i + 20] + p[i + 40]);
      return r;
    }(), {4, 5});
    EXPECT_MATMUL_CLOSE(addbmm(self, b1, b2, 3, 2), e, 18);
    Tensor ip = self.clone();
    ip.addbmm_(b1, b2, 3, 2);
    EXPECT_MATMUL_CLOSE(ip, e, 18);
    Tensor out = empty({1}, dtype(dt));
    EXPECT_MATMUL_CLOSE(addbmm_out(out, self, b1, b2, 3, 2), e, 18);
  }
  // Zero batches: beta * self.
  Tensor s = make({2, 3}, kDouble);
  EXPECT_TENSOR_CLOSE(addbmm(s, make({0, 2, 4}, kDouble), make({0, 4, 3}, kDouble), 2), s.mul(2));
  EXPECT_ERROR_WITH(addbmm(make({2, 4}, kFloat), make({5, 2, 3}, kFloat), make({6, 3, 4}, kFloat)),
                    "batch1 and batch2 must have same number of batches, got 5 and 6");
  EXPECT_ERROR_WITH(addbmm(make({2, 4}, kFloat), make({5, 2, 3}, kFloat), make({5, 4, 4}, kFloat)),
                    "Incompatible matrix sizes for bmm (2x3 and 4x4)");
  EXPECT_ERROR_WITH(addbmm(make({2, 4}, kFloat), make({2, 3}, kFloat), make({5, 3, 4}, kFloat)), "batch1 must be a 3D tensor");
  EXPECT_ERROR_WITH(addbmm(make({2, 4}, kDouble), make({5, 2, 3}, kFloat), make({5, 3, 4}, kFloat)),
                    "self and mat2 must have the same dtype");
  EXPECT_ERROR_WITH(addbmm(make({3, 4}, kFloat), make({5, 2, 3}, kFloat), make({5, 3, 4}, kFloat)),
                    "must match the existing size (3) at non-singleton dimension 0");
}

// ---- mv, addmv, dot, vdot, outer, addr --------------------------------------------------------
TEST(MatmulMv, EveryDtypeAndLayout) {
  for (ScalarType dt : kAllGemmTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor a = make({7, 9}, dt), v = make({9}, dt);
    EXPECT_MATMUL_CLOSE(mv(a, v), naive_mm(a, v.unsqueeze(1)).squeeze(1), 9);
    Tensor at = make({9, 7}, dt).t();
    Tensor vs = make({18}, dt).slice(0, 0, 18, 2);
    EXPECT_MATMUL_CLOSE(mv(at, vs), naive_mm(at, vs.unsqueeze(1)).squeeze(1), 9);
    Tensor ve = make({1}, dt).expand({9});
    EXPECT_MATMUL_CLOSE(a.mv(ve), naive_mm(a, ve.unsqueeze(1)).squeeze(1), 9);
  }
  Tensor big = make({1000, 300}, kFloat), bv = make({300}, kFloat);
  EXPECT_MATMUL_CLOSE(mv(big, bv), naive_mm(big, bv.unsqueeze(1)).squeeze(1), 300);
  Tensor bv2 = make({1000}, kFloat);
  EXPECT_MATMUL_CLOSE(mv(big.t(), bv2), naive_mm(big.t(), bv2.unsqueeze(1)).squeeze(1), 1000);
}

TEST(MatmulMv, AddmvAndErrors) {
  Tensor self = make({7}, kDouble), a = make({7, 9}, kDouble), v = make({9}, kDouble);
  Tensor p = naive_mm(a, v.unsqueeze(1)).squeeze(1);
  Tensor e = from_complex_vector([&] {
    auto s = to_complex_vector(self), q = to_complex_vector(p);
    std::vector<cd> r(7);
    for (int i = 0; i < 7; ++i) r[i] = 0.5 * s[i] + 2.0 * q[i];
    return r;
  }(), {7});
  EXPECT_MATMUL_CLOSE(addmv(self, a, v, 0.5, 2), e, 9);
  Tensor ip = self.clone();
  ip.addmv_(a, v, 0.5, 2);
  EXPECT_MATMUL_CLOSE(ip, e, 9);
  Tensor out = empty({0}, dtype(kDouble));
  EXPECT_MATMUL_CLOSE(addmv_out(out, self, a, v, 0.5, 2), e, 9);
  Tensor mvout = empty({2, 2}, dtype(kDouble));
  EXPECT_MATMUL_CLOSE(mv_out(mvout, a, v), p, 9);
  EXPECT_EQ(addmv(make({1}, kFloat), make({2, 3}, kFloat), make({3}, kFloat)).sizes(), IntArrayRef({2}));
  EXPECT_ERROR_WITH(mv(make({2, 3}, kFloat), make({4}, kFloat)), "size mismatch, got 2, 2x3,4");
  EXPECT_ERROR_WITH(mv(make({2, 3}, kFloat), make({3, 1}, kFloat)), "vector + matrix @ vector expected, got 1, 2, 2");
  EXPECT_ERROR_WITH(mv(make({3}, kFloat), make({3}, kFloat)), "vector + matrix @ vector expected, got 1, 1, 1");
  EXPECT_ERROR_WITH(mv(make({2, 3}, kFloat), make({3}, kDouble)), "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(addmv(make({3}, kFloat), make({2, 3}, kFloat), make({3}, kFloat)), "size mismatch, got 3, 2x3,3");
  EXPECT_ERROR_WITH(addmv(make({2}, kFloat), make({2, 3}, kFloat), make({4}, kFloat)), "size mismatch, got 2, 2x3,4");
  EXPECT_ERROR_WITH(mv(ones({2, 3}, dtype(kBool)), ones({3}, dtype(kBool))), "not implemented for 'Bool'");
}

TEST(MatmulDot, DotAndVdot) {
  for (ScalarType dt : kAllGemmTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor x = make({40}, dt), y = make({40}, dt);
    Tensor e = naive_mm(x.unsqueeze(0), y.unsqueeze(1)).reshape({});
    Tensor d = dot(x, y);
    EXPECT_EQ(d.dim(), 0);
    EXPECT_MATMUL_CLOSE(d, e, 40);
    EXPECT_MATMUL_CLOSE(x.dot(y), e, 40);
    // vdot conjugates its first argument.
    Tensor ev = naive_mm(conj(x.to(kComplexDouble)).unsqueeze(0), y.unsqueeze(1)).reshape({});
    EXPECT_MATMUL_CLOSE(vdot(x, y), ev, 40);
    Tensor xs = make({120}, dt).slice(0, 0, 120, 3);
    EXPECT_MATMUL_CLOSE(dot(xs, y), naive_mm(xs.unsqueeze(0), y.unsqueeze(1)).reshape({}), 40);
    EXPECT_MATMUL_CLOSE(vdot(xs, y),
                        naive_mm(conj(xs.to(kComplexDouble)).unsqueeze(0), y.unsqueeze(1)).reshape({}), 40);
    Tensor xe = make({1}, dt).expand({40});
    EXPECT_MATMUL_CLOSE(dot(xe, y), naive_mm(xe.unsqueeze(0), y.unsqueeze(1)).reshape({}), 40);
  }
  // Known values: vdot([1+2i], [3+4i]) = (1-2i)(3+4i) = 11-2i; dot = (1+2i)(3+4i) = -5+10i.
  Tensor a = from_complex_vector({cd(1, 2)}, {1}).to(kComplexFloat), b = from_complex_vector({cd(3, 4)}, {1}).to(kComplexFloat);
  EXPECT_TENSOR_EQ(vdot(a, b), from_complex_vector({cd(11, -2)}, {}).to(kComplexFloat));
  EXPECT_TENSOR_EQ(dot(a, b), from_complex_vector({cd(-5, 10)}, {}).to(kComplexFloat));
  EXPECT_TENSOR_EQ(dot(make({0}, kFloat), make({0}, kFloat)), zeros({}));
}

TEST(MatmulDot, Errors) {
  EXPECT_ERROR_WITH(dot(make({3}, kFloat), make({4}, kFloat)),
                    "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but "
                    "got 3 and 4 elements respectively");
  EXPECT_ERROR_WITH(dot(make({3}, kFloat), make({3}, kDouble)),
                    "dot : expected both vectors to have same dtype, but found Float and Double");
  EXPECT_ERROR_WITH(dot(make({3}, kFloat), make({4}, kDouble)), "expected both vectors to have same dtype");
  EXPECT_ERROR_WITH(dot(make({3, 1}, kFloat), make({3}, kFloat)), "1D tensors expected, but got 2D and 1D tensors");
  EXPECT_ERROR_WITH(vdot(make({3, 1}, kFloat), make({3}, kFloat)), "1D tensors expected, but got 2D and 1D tensors");
  EXPECT_ERROR_WITH(dot(ones({3}, dtype(kBool)), ones({3}, dtype(kBool))), "not implemented for 'Bool'");
}

TEST(MatmulOuter, OuterAndAddr) {
  Tensor x = make({3}, kFloat), y = make({4}, kDouble);
  Tensor o = outer(x, y);
  EXPECT_EQ(o.scalar_type(), kDouble);  // outer promotes, as PyTorch
  EXPECT_MATMUL_CLOSE(o, naive_mm(x.unsqueeze(1), y.unsqueeze(0)), 1);
  EXPECT_MATMUL_CLOSE(x.ger(y.to(kFloat)), naive_mm(x.unsqueeze(1), y.to(kFloat).unsqueeze(0)), 1);
  EXPECT_ERROR_WITH(outer(make({3, 1}, kFloat), y), "outer: Expected 1-D argument self, but got 2-D");
  EXPECT_ERROR_WITH(outer(x, make({3, 1}, kFloat)), "outer: Expected 1-D argument vec2, but got 2-D");
  // addr: beta * self + alpha * outer, self broadcast, beta = 0 ignores NaN.
  Tensor self = make({3, 4}, kDouble);
  Tensor e = from_complex_vector([&] {
    auto s = to_complex_vector(self), p = to_complex_vector(naive_mm(x.unsqueeze(1), y.unsqueeze(0)));
    std::vector<cd> r(12);
    for (int i = 0; i < 12; ++i) r[i] = 2.0 * s[i] + 0.5 * p[i];
    return r;
  }(), {3, 4});
  EXPECT_MATMUL_CLOSE(addr(self, x.to(kDouble), y, 2, 0.5), e, 1);
  Tensor ip = self.clone();
  ip.addr_(x.to(kDouble), y, 2, 0.5);
  EXPECT_MATMUL_CLOSE(ip, e, 1);
  Tensor nan = full({3, 4}, std::numeric_limits<double>::quiet_NaN(), dtype(kDouble));
  EXPECT_MATMUL_CLOSE(addr(nan, x.to(kDouble), y, 0, 1), naive_mm(x.unsqueeze(1), y.unsqueeze(0)), 1);
  EXPECT_EQ(addr(make({3}, kFloat), make({2}, kFloat), make({3}, kFloat)).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(addr(make({2, 3}, kDouble), make({2}, kFloat), make({3}, kFloat)).scalar_type(), kDouble);
  // Bool: (beta and self) or (alpha and v1 and v2).
  Tensor bs = zeros({2, 2}, dtype(kBool)), bv = ones({2}, dtype(kBool));
  EXPECT_TENSOR_EQ(addr(bs, bv, bv), ones({2, 2}, dtype(kBool)));
  EXPECT_TENSOR_EQ(addr(bs, bv, bv, true, false), zeros({2, 2}, dtype(kBool)));
  EXPECT_ERROR_WITH(addr(make({3, 3}, kFloat), make({2}, kFloat), make({3}, kFloat)),
                    "must match the existing size (3) at non-singleton dimension 0");
  EXPECT_ERROR_WITH(addr(make({2, 3}, kFloat), make({2, 1}, kFloat), make({3}, kFloat)),
                    "addr: Expected 1-D argument vec1, but got 2-D");
  EXPECT_ERROR_WITH(addr(make({2, 3}, kInt), make({2}, kInt), make({3}, kInt), 1, 0.5),
                    "For integral input tensors, argument alpha must not be a floating point number.");
  EXPECT_ERROR_WITH(addr(make({2, 3}, kInt), make({2}, kInt), make({3}, kInt), 0.5, 1),
                    "For integral input tensors, argument beta must not be a floating point number.");
  EXPECT_ERROR_WITH(addr(make({2, 3}, kFloat), make({2}, kFloat), make({3}, kFloat), true, 1),
                    "Boolean beta only supported for Boolean results.");
  EXPECT_ERROR_WITH(addr(make({2, 3}, kFloat), make({2}, kFloat), make({3}, kFloat), 1, true),
                    "Boolean alpha only supported for Boolean results.");
  EXPECT_ERROR_WITH(addr(make({2, 3}, kFloat), make({2}, kFloat), make({3, 1}, kFloat)),
                    "addr: Expected 1-D argument vec2, but got 2-D");
  Tensor ai = make({2, 3}, kInt);
  EXPECT_ERROR_WITH(ai.addr_(make({2}, kFloat), make({3}, kFloat)), "Bad in-place call: input tensor dtype int and output tensor dtype float should match");
}

// ---- meta tensors and devices ---------------------------------------------------------------
TEST(MatmulMeta, ShapesOnlyAndDeviceMismatch) {
  const TensorOptions meta = TensorOptions().device(Device(kMeta));
  Tensor a = empty({4, 3}, meta), b = empty({3, 5}, meta);
  Tensor r = mm(a, b);
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes(), IntArrayRef({4, 5}));
  Tensor rb = bmm(empty({2, 4, 3}, meta), empty({2, 3, 5}, meta));
  EXPECT_TRUE(rb.is_meta());
  EXPECT_EQ(rb.sizes(), IntArrayRef({2, 4, 5}));
  Tensor rm = matmul(empty({6, 1, 4, 3}, meta), empty({2, 3, 5}, meta));
  EXPECT_EQ(rm.sizes(), IntArrayRef({6, 2, 4, 5}));
  EXPECT_TRUE(dot(empty({3}, meta), empty({3}, meta)).is_meta());
  EXPECT_ERROR_WITH(mm(a, make({3, 5}, kFloat)), "Expected all tensors to be on the same device");
  EXPECT_ERROR_WITH(matmul(make({4, 3}, kFloat), b), "Expected all tensors to be on the same device");
}

// ---- trace ------------------------------------------------------------------------------------
TEST(MatmulTrace, ValuesDtypesAndErrors) {
  Tensor a = make({4, 6}, kDouble);
  double s = 0;
  for (int i = 0; i < 4; ++i) s += a.select(0, i).select(0, i).item<double>();
  EXPECT_DOUBLE_EQ(trace(a).item<double>(), s);
  EXPECT_DOUBLE_EQ(a.t().trace().item<double>(), s);
  Tensor ai = make({3, 3}, kInt);
  EXPECT_EQ(trace(ai).scalar_type(), kLong);
  int64_t si = 0;
  for (int i = 0; i < 3; ++i) si += ai.select(0, i).select(0, i).item<int64_t>();
  EXPECT_EQ(trace(ai).item<int64_t>(), si);
  EXPECT_EQ(trace(make({3, 3}, kByte)).scalar_type(), kLong);
  EXPECT_EQ(trace(make({3, 3}, kComplexFloat)).scalar_type(), kComplexFloat);
  EXPECT_EQ(trace(make({0, 3}, kFloat)).item<double>(), 0.0);
  EXPECT_ERROR_WITH(trace(make({2, 3, 4}, kFloat)), "trace: expected a matrix, but got tensor with dim 3");
  EXPECT_ERROR_WITH(trace(ones({2, 2}, dtype(kBool))), "\"trace\" not implemented for 'Bool'");
  EXPECT_ERROR_WITH(trace(ones({2, 2}, dtype(kHalf))), "\"trace\" not implemented for 'Half'");
}

#undef EXPECT_MATMUL_CLOSE

}  // namespace
}  // namespace ember::test
