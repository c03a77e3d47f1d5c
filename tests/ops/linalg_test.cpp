// Tests of einsum / tensordot / kron (ember/ops/linalg_einsum.cpp) and of the LAPACK ops
// (linalg_lapack.cpp, linalg_decomp.cpp): brute-force references and reconstruction checks
// (A inv(A) = I, A X = B, L L^H = A, Q R = A, U S Vh = A, A V = V diag(w)) computed here in
// complex double, values from PyTorch 1.13, and PyTorch's error messages.
#include <complex>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "test_util.h"

namespace ember::test {
namespace {

using cd = std::complex<double>;

Tensor draw(IntArrayRef shape, ScalarType dt) { return random_tensor(shape, dt, -4, 5); }

Tensor real_values(std::initializer_list<double> v, IntArrayRef shape) {
  std::vector<cd> c(v.begin(), v.end());
  return from_complex_vector(c, shape).to(kDouble);
}

// ---- brute-force einsum (explicit output, no ellipsis; size-1 dims broadcast) -----------
Tensor brute_einsum(const std::string& eq, std::vector<Tensor> ops) {
  const size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow), out = eq.substr(arrow + 2);
  std::vector<std::string> terms;
  size_t p = 0;
  for (;;) {
    size_t c = lhs.find(',', p);
    terms.push_back(lhs.substr(p, c == std::string::npos ? std::string::npos : c - p));
    if (c == std::string::npos) break;
    p = c + 1;
  }
  std::map<char, int64_t> size;
  for (size_t i = 0; i < ops.size(); ++i)
    for (size_t d = 0; d < terms[i].size(); ++d) {
      int64_t s = ops[i].size(int64_t(d));
      if (s != 1 || !size.count(terms[i][d])) size[terms[i][d]] = s;
    }
  std::vector<char> labels;
  for (auto& [c, s] : size) labels.push_back(c);
  std::vector<std::vector<cd>> vals;
  for (auto& o : ops) vals.push_back(to_complex_vector(o));
  std::vector<int64_t> out_shape;
  for (char c : out) out_shape.push_back(size[c]);
  int64_t out_n = 1;
  for (int64_t s : out_shape) out_n *= s;
  std::vector<cd> res(out_n, 0);
  std::map<char, int64_t> idx;
  for (char c : labels) idx[c] = 0;
  int64_t total = 1;
  for (char c : labels) total *= size[c];
  for (int64_t it = 0; it < total; ++it) {
    int64_t r = it;
    for (auto c = labels.rbegin(); c != labels.rend(); ++c) idx[*c] = r % size[*c], r /= size[*c];
    cd prod = 1;
    for (size_t i = 0; i < ops.size(); ++i) {
      int64_t flat = 0;
      for (size_t d = 0; d < terms[i].size(); ++d) {
        int64_t s = ops[i].size(int64_t(d));
        flat = flat * s + (s == 1 ? 0 : idx[terms[i][d]]);
      }
      prod *= vals[i][flat];
    }
    int64_t o = 0;
    for (size_t d = 0; d < out.size(); ++d) o = o * out_shape[d] + idx[out[d]];
    res[o] += prod;
  }
  return from_complex_vector(res, out_shape);
}

::testing::AssertionResult close_as(const Tensor& actual, const Tensor& expected, double rtol, double atol) {
  return tensors_close(actual, expected.to(actual.scalar_type()), rtol, atol);
}

// ---- einsum -------------------------------------------------------------------------------
TEST(LinalgEinsum, MatchesBruteForce) {
  struct C {
    std::string eq, explicit_eq;
    std::vector<std::vector<int64_t>> shapes;
  };
  const std::vector<C> cases = {
      {"ij,jk->ik", "ij,jk->ik", {{3, 4}, {4, 5}}},
      {"ij,jk", "ij,jk->ik", {{3, 4}, {4, 5}}},
      {"bij,bjk->bik", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}}},
      {"ii", "ii->", {{4, 4}}},
      {"ii->i", "ii->i", {{4, 4}}},
      {"ij->ji", "ij->ji", {{3, 4}}},
      {"ij->", "ij->", {{3, 4}}},
      {"ij->j", "ij->j", {{3, 4}}},
      {"i,j->ij", "i,j->ij", {{3}, {4}}},
      {"i,i", "i,i->", {{5}, {5}}},
      {"ij,jk,kl->il", "ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 5}}},
      {"iij->ji", "iij->ji", {{3, 3, 2}}},
      {"ijk,ikj->k", "ijk,ikj->k", {{2, 3, 3}, {2, 3, 3}}},
      {"ij,ij->ij", "ij,ij->ij", {{3, 1}, {1, 4}}},
      {"ij,jk->ik", "ij,jk->ik", {{3, 1}, {4, 5}}},
      {"Ab,ba", "Ab,ba->Aa", {{3, 4}, {4, 3}}},
      {"bA", "bA->Ab", {{3, 4}}},
      {" i j , j k -> i k ", "ij,jk->ik", {{2, 3}, {3, 2}}},
      {"i,", "i,->i", {{3}, {}}},
      {"->", "->", {{}}},
      {"abc,cd,bd->ad", "abc,cd,bd->ad", {{2, 3, 4}, {4, 5}, {3, 5}}},
      {"ij,jk->ik", "ij,jk->ik", {{3, 0}, {0, 5}}},
      {"ij,jk->ijk", "ij,jk->ijk", {{2, 3}, {3, 4}}},
      {"bij,jk->bik", "bij,jk->bik", {{4, 3, 5}, {5, 2}}},
  };
  for (ScalarType dt : {kFloat, kDouble, kComplexDouble, kLong}) {
    for (const C& c : cases) {
      SCOPED_TRACE(::testing::Message() << dt << " " << c.eq);
      std::vector<Tensor> ops;
      for (auto& s : c.shapes) ops.push_back(draw(s, dt));
      Tensor r = einsum(c.eq, ops);
      Tensor e = brute_einsum(c.explicit_eq, ops);
      EXPECT_TRUE(close_as(r, e, 1e-5, 1e-4));
    }
  }
}

TEST(LinalgEinsum, EllipsisAndBroadcasting) {
  Tensor a = draw({2, 1, 3, 4}, kDouble), b = draw({5, 4, 2}, kDouble);
  EXPECT_TRUE(close_as(einsum("...ij,...jk->...ik", {a, b}), brute_einsum("xyij,yjk->xyik", {a, b}), 1e-12, 1e-12));
  EXPECT_TRUE(close_as(einsum("...ij,...jk", {a, b}), brute_einsum("xyij,yjk->xyik", {a, b}), 1e-12, 1e-12));
  Tensor c = draw({2, 3, 4}, kDouble);
  EXPECT_TRUE(close_as(einsum("...ij->ij", {c}), brute_einsum("bij->ij", {c}), 1e-12, 1e-12));
  EXPECT_TRUE(close_as(einsum("ij...->...", {c}), brute_einsum("ijk->k", {c}), 1e-12, 1e-12));
  EXPECT_TRUE(close_as(einsum("i...j->j...i", {c}), brute_einsum("ikj->jki", {c}), 1e-12, 1e-12));
  EXPECT_TRUE(close_as(einsum("b...,b...->...", {c, c}), brute_einsum("bij,bij->ij", {c, c}), 1e-12, 1e-12));
  Tensor v = draw({3}, kDouble), m = draw({2, 1}, kDouble);
  EXPECT_TRUE(close_as(einsum("...,...", {v, m}), brute_einsum("ai,ai->ai", {v.unsqueeze(0), m}), 1e-12, 1e-12));
}

TEST(LinalgEinsum, SingleOperandReturnsViews) {
  Tensor a = draw({3, 4}, kFloat);
  Tensor t = einsum("ij->ji", {a});
  EXPECT_TRUE(t.is_alias_of(a));
  EXPECT_EQ(t.strides(), IntArrayRef({1, 4}));
  Tensor sq = draw({3, 3}, kFloat);
  Tensor d = einsum("ii->i", {sq});
  EXPECT_TRUE(d.is_alias_of(sq));
  EXPECT_EQ(d.strides(), IntArrayRef({4}));
  // The trace of arange(9).reshape(3, 3) is 12 (PyTorch).
  EXPECT_EQ(einsum("ii", {arange(9, dtype(kFloat)).reshape({3, 3})}).item<double>(), 12.0);
}

TEST(LinalgEinsum, LowPrecisionAndErrors) {
  Tensor a = draw({4, 6}, kBFloat16), b = draw({6, 3}, kBFloat16);
  EXPECT_TRUE(close_as(einsum("ij,jk->ik", {a, b}), brute_einsum("ij,jk->ik", {a, b}), 2e-2, 5e-2));
  Tensor h = draw({4, 6}, kHalf), g = draw({6, 3}, kHalf);
  EXPECT_TRUE(close_as(einsum("ij,jk->ik", {h, g}), brute_einsum("ij,jk->ik", {h, g}), 3e-3, 5e-3));
  Tensor x = draw({2, 3}, kFloat), y = draw({3, 4}, kFloat);
  EXPECT_ERROR_WITH(einsum("i1,jk", {x, y}), "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]");
  EXPECT_ERROR_WITH(einsum("ij,jk->ik", {x}), "einsum(): fewer operands were provided than specified in the equation");
  EXPECT_ERROR_WITH(einsum("ij->ij", {x, y}), "einsum(): more operands were provided than specified in the equation");
  EXPECT_ERROR_WITH(einsum("ijk,jk", {x, y}), "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2) for operand 0 and no ellipsis was given");
  EXPECT_ERROR_WITH(einsum("ij...k", {x}), "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) for operand 0");
  EXPECT_ERROR_WITH(einsum("ij,jk->iq", {x, y}), "einsum(): output subscript q does not appear in the equation for any input operand");
  EXPECT_ERROR_WITH(einsum("ij,jk->ii", {x, y}), "einsum(): output subscript i appears more than once in the output");
  EXPECT_ERROR_WITH(einsum("ij,jk", {x, draw({4, 4}, kFloat)}), "einsum(): subscript j has size 4 for operand 1 which does not broadcast with previously seen size 3");
  EXPECT_ERROR_WITH(einsum("ii", {x}), "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2");
  EXPECT_ERROR_WITH(einsum("...ij,...jk", {draw({5, 2, 3}, kFloat), draw({4, 3, 4}, kFloat)}),
                    "einsum(): dimension 0 covered by ellipsis in operand 1has size 4 which does not broadcast with previously seen ellipsis with size 5");
  EXPECT_ERROR_WITH(einsum("i..j", {x}), "einsum(): found '.' for operand 0 that is not part of any ellipsis");
  EXPECT_ERROR_WITH(einsum("i...j...", {x}), "einsum(): found '.' for operand 0 for which an ellipsis was already found");
  EXPECT_ERROR_WITH(einsum("ij->......", {x}), "einsum(): found '.' for output for which an ellipsis was already found");
  EXPECT_ERROR_WITH(einsum("ij->i->j", {x}), "einsum(): invalid subscript given at index 5");
  EXPECT_ERROR_WITH(einsum("ij,jk- >ik", {x, y}), "einsum(): invalid subscript given at index 5");
  EXPECT_ERROR_WITH(einsum("ij,jk", {x, y.to(kDouble)}), "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(einsum("ij,jk", {x, empty({3, 4}, TensorOptions().device(Device(kMeta)))}),
                    "einsum(): Expected all tensors to be on the same device");
  // Integer sums accumulate in int64 (PyTorch's sum); diagonals and products keep the dtype.
  Tensor i8 = draw({3, 3}, kChar);
  EXPECT_EQ(einsum("ii", {i8}).scalar_type(), kLong);
  EXPECT_EQ(einsum("ij->", {draw({2, 2}, kInt)}).scalar_type(), kLong);
  EXPECT_EQ(einsum("ii->i", {i8}).scalar_type(), kChar);
  EXPECT_TRUE(close_as(einsum("ii", {i8}), brute_einsum("ii->", {i8}), 0, 0));
  Tensor bt = ones({2, 2}, dtype(kBool));
  EXPECT_TENSOR_EQ(einsum("ij,ij->ij", {bt, bt}), bt);
  EXPECT_TENSOR_EQ(einsum("ij->ji", {bt}), bt);
  EXPECT_ERROR_WITH(einsum("bij,bjk->bik", {ones({2, 2, 3}, dtype(kBool)), ones({2, 3, 4}, dtype(kBool))}),
                    "not implemented for 'Bool'");
}

// ---- tensordot, kron -------------------------------------------------------------------------
TEST(LinalgTensordot, ValuesBroadcastAndErrors) {
  Tensor a = draw({3, 4, 5}, kDouble), b = draw({5, 4, 2}, kDouble);
  EXPECT_TRUE(close_as(tensordot(a, b, {1, 2}, {1, 0}), brute_einsum("ijk,kjl->il", {a, b}), 1e-12, 1e-12));
  EXPECT_TRUE(close_as(tensordot(a, b, {-1}, {0}), brute_einsum("ijk,klm->ijlm", {a, b}), 1e-12, 1e-12));
  EXPECT_TRUE(close_as(tensordot(a, b, {}, {}), brute_einsum("ijk,lmn->ijklmn", {a, b}), 1e-12, 1e-12));
  Tensor c = draw({2, 3}, kFloat), d1 = draw({1, 4}, kFloat);
  EXPECT_TRUE(close_as(tensordot(c, d1, {1}, {0}), brute_einsum("ij,jk->ik", {c, d1}), 1e-5, 1e-5));
  Tensor c1 = draw({2, 1}, kFloat), d = draw({3, 4}, kFloat);
  EXPECT_TRUE(close_as(tensordot(c1, d, {1}, {0}), brute_einsum("ij,jk->ik", {c1, d}), 1e-5, 1e-5));
  Tensor x = draw({2, 3}, kFloat), y = draw({3, 4}, kFloat);
  EXPECT_ERROR_WITH(tensordot(x, y, {1}, {1}), "contracted dimensions need to match, but first has size 3 in dim 1 and second has size 4 in dim 1");
  EXPECT_ERROR_WITH(tensordot(x, y, {1, 0}, {0}), "both dimension lists should have same length");
  EXPECT_ERROR_WITH(tensordot(x, y.to(kDouble), {1}, {0}), "expected scalar type Float but found Double");
  EXPECT_ERROR_WITH(tensordot(x, y, {5}, {0}), "out of range");
  EXPECT_ERROR_WITH(tensordot(x, y, {1, 1}, {0, 0}), "dim 1 appears multiple times in the list of dims");
}

TEST(LinalgKron, ValuesAndPromotion) {
  Tensor a = draw({2, 3}, kDouble), b = draw({4, 5}, kDouble);
  auto av = to_complex_vector(a), bv = to_complex_vector(b);
  std::vector<cd> e(8 * 15);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < 5; ++l) e[(i * 4 + k) * 15 + j * 5 + l] = av[i * 3 + j] * bv[k * 5 + l];
  EXPECT_TRUE(close_as(kron(a, b), from_complex_vector(e, {8, 15}), 1e-14, 1e-14));
  EXPECT_TRUE(close_as(a.kron(b), from_complex_vector(e, {8, 15}), 1e-14, 1e-14));
  EXPECT_EQ(kron(draw({2, 3}, kFloat), draw({4}, kDouble)).sizes(), IntArrayRef({2, 12}));
  EXPECT_EQ(kron(draw({2, 3}, kFloat), draw({4}, kDouble)).scalar_type(), kDouble);
  EXPECT_EQ(kron(draw({2, 3}, kFloat), draw({}, kFloat)).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(kron(draw({2, 1, 3}, kInt), draw({2, 2}, kInt)).sizes(), IntArrayRef({2, 2, 6}));
  Tensor bb = kron(ones({2, 3}, dtype(kBool)), ones({2}, dtype(kBool)));
  EXPECT_EQ(bb.scalar_type(), kBool);
  EXPECT_EQ(bb.sizes(), IntArrayRef({2, 6}));
}

// ---- LAPACK helpers: complex-double matrix algebra for reconstruction checks -----------------
// (.., m, k) @ (.., k, n) for equal batch shapes, in complex double.
Tensor cmm(const Tensor& a, const Tensor& b) {
  const int64_t m = a.size(-2), k = a.size(-1), n = b.size(-1);
  int64_t B = a.numel() / std::max<int64_t>(m * k, 1);
  if (m * k == 0) {
    B = 1;
    for (int64_t d = 0; d + 2 < a.dim(); ++d) B *= a.size(d);
  }
  auto av = to_complex_vector(a), bv = to_complex_vector(b);
  std::vector<cd> c(B * m * n, 0);
  for (int64_t z = 0; z < B; ++z)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        cd s = 0;
        for (int64_t p = 0; p < k; ++p) s += av[z * m * k + i * k + p] * bv[z * k * n + p * n + j];
        c[z * m * n + i * n + j] = s;
      }
  std::vector<int64_t> shape(a.sizes().begin(), a.sizes().end() - 1);
  shape.push_back(n);
  return from_complex_vector(c, shape);
}
Tensor cH(const Tensor& a) { return conj(a.to(kComplexDouble)).transpose(-2, -1).contiguous(); }
Tensor ceye(int64_t n, IntArrayRef batch = {}) {
  std::vector<int64_t> s(batch.begin(), batch.end());
  s.insert(s.end(), {n, n});
  Tensor e = zeros(s, dtype(kComplexDouble));
  if (n > 0) e.diagonal(0, -2, -1).fill_(1);
  return e;
}
// A well-conditioned Hermitian positive-definite batch: X X^H + n I.
Tensor spd(IntArrayRef batch, int64_t n, ScalarType dt) {
  std::vector<int64_t> s(batch.begin(), batch.end());
  s.insert(s.end(), {n, n});
  Tensor x = draw(s, isComplexType(dt) ? kComplexDouble : kDouble);
  return (cmm(x, cH(x)) + ceye(n, batch) * double(n)).to(dt);
}

double tol_for(ScalarType t) { return toRealValueType(t) == kFloat ? 2e-4 : 1e-10; }

const std::vector<ScalarType> kLapackTypes = {kFloat, kDouble, kComplexFloat, kComplexDouble};

// ---- inv ---------------------------------------------------------------------------------------
TEST(LinalgInv, ReconstructionAndValues) {
  for (ScalarType dt : kLapackTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    for (auto batch : {std::vector<int64_t>{}, std::vector<int64_t>{2, 3}}) {
      std::vector<int64_t> s = batch;
      s.insert(s.end(), {5, 5});
      Tensor a = draw(s, dt) + ceye(5, batch).to(dt) * 3.0;
      Tensor inv = linalg::inv(a);
      EXPECT_EQ(inv.sizes(), a.sizes());
      EXPECT_EQ(inv.scalar_type(), dt);
      EXPECT_TRUE(close_as(from_complex_vector(to_complex_vector(cmm(a, inv)), a.sizes()), ceye(5, batch), 0, tol_for(dt)));
      EXPECT_TRUE(close_as(inverse(a), inv.to(kComplexDouble), 0, tol_for(dt)));
      EXPECT_TRUE(close_as(a.inverse(), inv.to(kComplexDouble), 0, tol_for(dt)));
    }
    Tensor at = (draw({6, 6}, dt) + ceye(6).to(dt) * 4.0).t();  // transposed input
    EXPECT_TRUE(close_as(cmm(at, linalg::inv(at)), ceye(6), 0, tol_for(dt)));
  }
  Tensor A = real_values({4, 1, 2, 1, 5, 3, 2, 3, 6}, {3, 3});
  Tensor e = real_values({0.3, 0.0, -0.1, 0.0, 0.285714285714, -0.142857142857, -0.1, -0.142857142857, 0.271428571429}, {3, 3});
  EXPECT_TENSOR_CLOSE(linalg::inv(A), e, 1e-10, 1e-11);
  EXPECT_EQ(linalg::inv(draw({0, 0}, kFloat)).sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(linalg::inv(draw({2, 0, 0}, kFloat)).sizes(), IntArrayRef({2, 0, 0}));
}

// Large single matrices take the blocked parallel LU (Note [Parallel LU]); a batch of two
// takes LAPACK's getrf per matrix: the two must agree.
TEST(LinalgInv, LargeMatricesParallelLu) {
  for (ScalarType dt : kLapackTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    const int64_t n = 260;
    Tensor a = draw({n, n}, dt) + ceye(n).to(dt) * 20.0;
    Tensor inv = linalg::inv(a);
    EXPECT_TRUE(close_as(cmm(a, inv), ceye(n), 0, toRealValueType(dt) == kFloat ? 2e-4 : 1e-10));
    Tensor inv_t = linalg::inv(a.t());  // column-major input: the other layout branch
    EXPECT_TRUE(close_as(cmm(a.t(), inv_t), ceye(n), 0, toRealValueType(dt) == kFloat ? 2e-4 : 1e-10));
    Tensor pair = stack({a, a});
    Tensor d1 = linalg::det(a), d2 = linalg::det(pair);
    EXPECT_TRUE(close_as(d1, d2.select(0, 0).to(kComplexDouble), 1e-3, 0));
    auto [s1, l1] = linalg::slogdet(a);
    auto [s2, l2] = linalg::slogdet(pair);
    EXPECT_TRUE(close_as(l1, l2.select(0, 0).to(kComplexDouble), 1e-4, 1e-4));
    EXPECT_TRUE(close_as(s1, s2.select(0, 0).to(kComplexDouble), 1e-4, 1e-4));
    Tensor B = draw({n, 40}, dt);
    Tensor X = linalg::solve(a, B);
    EXPECT_TRUE(close_as(cmm(a, X), B.to(kComplexDouble), 0, toRealValueType(dt) == kFloat ? 1e-3 : 1e-9));
    Tensor Xb = linalg::solve(a.unsqueeze(0), B.unsqueeze(0));  // batch of one
    EXPECT_TRUE(close_as(cmm(a, Xb.squeeze(0)), B.to(kComplexDouble), 0, toRealValueType(dt) == kFloat ? 1e-3 : 1e-9));
  }
  // The failing pivot is found at the same place as LAPACK's getrf. A row-major real input
  // is factorised as its transpose (as PyTorch does), so a zero row 101 is a zero column.
  Tensor s = draw({300, 300}, kDouble);
  s.select(0, 100).zero_();
  EXPECT_ERROR_WITH(linalg::inv(s), "linalg.inv: The diagonal element 101 is zero");
  EXPECT_ERROR_WITH(linalg::inv(stack({s, s})), "linalg.inv: (Batch element 0): The diagonal element 101 is zero");
  EXPECT_EQ(linalg::det(s).item<double>(), 0.0);
}

TEST(LinalgInv, Errors) {
  EXPECT_ERROR_WITH(linalg::inv(zeros({3, 3})),
                    "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.");
  // The failing element PyTorch reports depends on the layout (it factorises a row-major
  // real A as A^T): values from PyTorch 1.13.
  Tensor S = real_values({1, 2, 3, 2, 4, 6, 1, 0, 1}, {3, 3});
#if defined(__x86_64__)
  // Whether a pivot of this singular matrix comes out exactly zero is OpenBLAS's kernels'
  // business: on 64-bit Arm its getrf leaves a tiny pivot in these two layouts (float: about
  // 6e-8, a 1e7 inverse and no error, as for anything calling that OpenBLAS; measured under
  // qemu-aarch64), while the other layouts below still find the zero.
  EXPECT_ERROR_WITH(inverse(S.to(kFloat)),
                    "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.");
  EXPECT_ERROR_WITH(linalg::inv(S.t()), "linalg.inv: The diagonal element 2 is zero");
#endif
  EXPECT_ERROR_WITH(linalg::inv(S.t().contiguous()), "linalg.inv: The diagonal element 3 is zero");
  EXPECT_ERROR_WITH(linalg::inv(S.to(kComplexFloat)), "linalg.inv: The diagonal element 3 is zero");
  EXPECT_ERROR_WITH(linalg::inv(zeros({2, 3, 3})), "linalg.inv: (Batch element 0): The diagonal element 1 is zero");
  Tensor b = ceye(3, {3}).to(kDouble);
  b.select(0, 2).zero_();
  EXPECT_ERROR_WITH(linalg::inv(b), "linalg.inv: (Batch element 2): The diagonal element 1 is zero");
  EXPECT_ERROR_WITH(linalg::inv(draw({2, 3}, kFloat)), "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_ERROR_WITH(linalg::inv(draw({3}, kFloat)), "linalg.inv: The input tensor A must have at least 2 dimensions.");
  EXPECT_ERROR_WITH(linalg::inv(ones({3, 3}, dtype(kInt))), "linalg.inv: Expected a floating point or complex tensor as input. Got Int");
  EXPECT_ERROR_WITH(linalg::inv(ones({3, 3}, dtype(kHalf))), "linalg.inv: Low precision dtypes not supported. Got Half");
  EXPECT_ERROR_WITH(linalg::inv(ones({3, 3}, dtype(kBFloat16))), "linalg.inv: Low precision dtypes not supported. Got BFloat16");
  EXPECT_ERROR_WITH(linalg::inv(ones({3, 3}, dtype(kComplexHalf))), "linalg.inv: Low precision dtypes not supported. Got ComplexHalf");
  EXPECT_ERROR_WITH(linalg::inv(empty({3, 3}, TensorOptions().device(Device(kMeta)))),
                    "linalg.inv: linear algebra on meta is not supported");
  const int64_t huge = int64_t(1) << 31;
  EXPECT_ERROR_WITH(linalg::inv(zeros({1, 1}).expand({huge, huge})), "linalg.inv: matrix dimensions above 2^31-1 are not supported");
}

// ---- solve -------------------------------------------------------------------------------------
TEST(LinalgSolve, VectorMatrixBatchAndLeft) {
  for (ScalarType dt : kLapackTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor A = draw({4, 4}, dt) + ceye(4).to(dt) * 3.0;
    Tensor b = draw({4}, dt), B = draw({4, 3}, dt);
    Tensor x = linalg::solve(A, b);
    EXPECT_EQ(x.sizes(), IntArrayRef({4}));
    EXPECT_TRUE(close_as(cmm(A, x.unsqueeze(1)).squeeze(1), b.to(kComplexDouble), 0, tol_for(dt)));
    Tensor X = linalg::solve(A, B);
    EXPECT_TRUE(close_as(cmm(A, X), B.to(kComplexDouble), 0, tol_for(dt)));
    // Batched A and B with broadcasting: (2, 4, 4) with (3, 1, 4, 2) -> (3, 2, 4, 2).
    Tensor Ab = draw({2, 4, 4}, dt) + ceye(4, {2}).to(dt) * 3.0;
    Tensor Bb = draw({3, 1, 4, 2}, dt);
    Tensor Xb = linalg::solve(Ab, Bb);
    EXPECT_EQ(Xb.sizes(), IntArrayRef({3, 2, 4, 2}));
    EXPECT_TRUE(close_as(cmm(Ab.expand({3, 2, 4, 4}), Xb), Bb.expand({3, 2, 4, 2}).to(kComplexDouble), 0, tol_for(dt)));
    // One A for a batch of B (factorised once).
    Tensor Bs = draw({5, 4, 2}, dt);
    Tensor Xs = linalg::solve(A, Bs);
    EXPECT_TRUE(close_as(cmm(A.expand({5, 4, 4}), Xs), Bs.to(kComplexDouble), 0, tol_for(dt)));
    // Batched vector case: B of shape A.shape[:-1].
    Tensor bv = draw({2, 4}, dt);
    Tensor xv = linalg::solve(Ab, bv);
    EXPECT_EQ(xv.sizes(), IntArrayRef({2, 4}));
    EXPECT_TRUE(close_as(cmm(Ab, xv.unsqueeze(-1)).squeeze(-1), bv.to(kComplexDouble), 0, tol_for(dt)));
    // left=false: X A = B.
    Tensor Bl = draw({3, 4}, dt);
    Tensor Xl = linalg::solve(A, Bl, false);
    EXPECT_TRUE(close_as(cmm(Xl, A), Bl.to(kComplexDouble), 0, tol_for(dt)));
  }
  Tensor A = real_values({4, 1, 2, 1, 5, 3, 2, 3, 6}, {3, 3});
  Tensor B = real_values({1, 2, 3, 4, 5, 6}, {3, 2});
  EXPECT_TENSOR_CLOSE(linalg::solve(A, B), real_values({-0.2, 0, 0.142857142857, 0.285714285714, 0.828571428571, 0.857142857143}, {3, 2}), 1e-10, 1e-11);
  EXPECT_EQ(linalg::solve(draw({0, 0}, kFloat), draw({0}, kFloat)).sizes(), IntArrayRef({0}));
  EXPECT_EQ(linalg::solve(draw({2, 3, 3}, kFloat), draw({3}, kFloat)).sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(linalg::solve(draw({2, 3, 3}, kFloat), draw({3, 3}, kFloat)).sizes(), IntArrayRef({2, 3, 3}));
}

TEST(LinalgSolve, Errors) {
  EXPECT_ERROR_WITH(linalg::solve(zeros({3, 3}), draw({3}, kFloat)), "torch.linalg.solve: The solver failed because the input matrix is singular.");
  EXPECT_ERROR_WITH(linalg::solve(zeros({2, 3, 3}), draw({2, 3, 1}, kFloat)), "torch.linalg.solve: (Batch element 0): The solver failed");
  EXPECT_ERROR_WITH(linalg::solve(draw({3, 3}, kFloat), draw({4}, kFloat)), "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)");
  EXPECT_ERROR_WITH(linalg::solve(draw({3, 3}, kFloat), draw({2, 3}, kFloat)), "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x3)");
  EXPECT_ERROR_WITH(linalg::solve(draw({3, 3}, kFloat), draw({3, 5}, kFloat), false), "linalg.solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 3x5)");
  EXPECT_ERROR_WITH(linalg::solve(draw({3, 3}, kFloat), draw({3}, kDouble)),
                    "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type Double instead");
  EXPECT_ERROR_WITH(linalg::solve(draw({3, 4}, kFloat), draw({3}, kFloat)), "linalg.solve: A must be batches of square matrices, but they are 3 by 4 matrices");
  EXPECT_ERROR_WITH(linalg::solve(draw({2, 3, 3}, kFloat), draw({3, 3, 2}, kFloat)), "must match the size of tensor b");
  EXPECT_ERROR_WITH(linalg::solve(draw({3, 3}, kFloat), draw({}, kFloat)), "linalg.solve: The input tensor B must have at least 1 dimension.");
  EXPECT_ERROR_WITH(linalg::solve(draw({3, 3}, kFloat), empty({3}, TensorOptions().device(Device(kMeta)))),
                    "linalg.solve: Expected A and B to be on the same device");
}

// ---- det, slogdet ---------------------------------------------------------------------------------
TEST(LinalgDet, ValuesBatchesAndSingular) {
  Tensor A = real_values({4, 1, 2, 1, 5, 3, 2, 3, 6}, {3, 3});
  EXPECT_NEAR(linalg::det(A).item<double>(), 70.0, 1e-10);
  EXPECT_NEAR(det(A.to(kFloat)).item<double>(), 70.0, 1e-4);
  EXPECT_NEAR(A.det().item<double>(), 70.0, 1e-10);
  auto [sign, logabs] = linalg::slogdet(A.neg());
  EXPECT_EQ(sign.item<double>(), -1.0);
  EXPECT_NEAR(logabs.item<double>(), 4.248495242049, 1e-10);
  Tensor C = from_complex_vector({cd(1, 1), cd(2, 0), cd(0, 3), cd(4, -1)}, {2, 2});
  EXPECT_TRUE(close_as(linalg::det(C), from_complex_vector({cd(5, -3)}, {}), 1e-12, 1e-12));
  auto [cs, cl] = linalg::slogdet(C.to(kComplexFloat));
  EXPECT_EQ(cs.scalar_type(), kComplexFloat);
  EXPECT_EQ(cl.scalar_type(), kFloat);
  EXPECT_TRUE(close_as(cs, from_complex_vector({cd(0.857492925713, -0.514495755428)}, {}), 1e-5, 1e-6));
  EXPECT_NEAR(cl.item<double>(), 1.763180262308, 1e-5);
  // Batched, against a cofactor expansion of 3x3 determinants.
  for (ScalarType dt : kLapackTypes) {
    Tensor b = draw({2, 3, 3, 3}, dt);
    Tensor d = linalg::det(b);
    EXPECT_EQ(d.sizes(), IntArrayRef({2, 3}));
    auto v = to_complex_vector(b);
    std::vector<cd> e(6);
    for (int z = 0; z < 6; ++z) {
      const cd* m = &v[z * 9];
      e[z] = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    }
    EXPECT_TRUE(close_as(d, from_complex_vector(e, {2, 3}), tol_for(dt), tol_for(dt)));
  }
  EXPECT_EQ(linalg::det(zeros({3, 3})).item<double>(), 0.0);
  auto [zs, zl] = linalg::slogdet(zeros({3, 3}));
  EXPECT_EQ(zs.item<double>(), 0.0);
  EXPECT_EQ(zl.item<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(linalg::det(draw({0, 0}, kFloat)).item<double>(), 1.0);
  auto [es, el] = linalg::slogdet(draw({0, 0}, kDouble));
  EXPECT_EQ(es.item<double>(), 1.0);
  EXPECT_EQ(el.item<double>(), 0.0);
  EXPECT_ERROR_WITH(linalg::det(draw({2, 3}, kFloat)), "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_ERROR_WITH(linalg::det(ones({3, 3}, dtype(kInt))), "linalg.det: Expected a floating point or complex tensor as input. Got Int");
  EXPECT_ERROR_WITH(det(draw({3}, kFloat)), "linalg.det: The input tensor A must have at least 2 dimensions.");
  EXPECT_ERROR_WITH(linalg::slogdet(draw({2, 3}, kFloat)), "linalg.slogdet: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_ERROR_WITH(linalg::slogdet(ones({3, 3}, dtype(kLong))), "linalg.slogdet: Expected a floating point or complex tensor as input. Got Long");
}

// ---- cholesky ------------------------------------------------------------------------------------
TEST(LinalgCholesky, ReconstructionUpperAndValues) {
  for (ScalarType dt : kLapackTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor A = spd({2}, 5, dt);
    Tensor L = linalg::cholesky(A);
    EXPECT_TRUE(close_as(cmm(L, cH(L)), A.to(kComplexDouble), tol_for(dt), tol_for(dt) * 10));
    auto lv = to_complex_vector(L);
    for (int z = 0; z < 2; ++z)
      for (int i = 0; i < 5; ++i)
        for (int j = i + 1; j < 5; ++j) EXPECT_EQ(lv[z * 25 + i * 5 + j], cd(0)) << "L not lower triangular";
    Tensor U = linalg::cholesky(A, true);
    EXPECT_TRUE(close_as(cmm(cH(U), U), A.to(kComplexDouble), tol_for(dt), tol_for(dt) * 10));
    auto uv = to_complex_vector(U);
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < i; ++j) EXPECT_EQ(uv[i * 5 + j], cd(0)) << "U not upper triangular";
    EXPECT_TRUE(close_as(cholesky(A), L.to(kComplexDouble), 0, 0));
    EXPECT_TRUE(close_as(A.cholesky(true), U.to(kComplexDouble), 0, 0));
  }
  Tensor A = real_values({4, 1, 2, 1, 5, 3, 2, 3, 6}, {3, 3});
  EXPECT_TENSOR_CLOSE(linalg::cholesky(A), real_values({2, 0, 0, 0.5, 2.179449471770, 0, 1, 1.147078669353, 1.919429739875}, {3, 3}), 1e-10, 1e-11);
  // Only the lower triangle is read (upper=false).
  Tensor junk = A.clone();
  junk.select(0, 0).select(0, 2).fill_(100.0);
  EXPECT_TENSOR_CLOSE(linalg::cholesky(junk), linalg::cholesky(A), 0, 0);
  EXPECT_EQ(linalg::cholesky(draw({0, 0}, kFloat)).sizes(), IntArrayRef({0, 0}));
}

TEST(LinalgCholesky, Errors) {
  Tensor bad2 = real_values({1, 2, 2, 1}, {2, 2}).to(kFloat);
  EXPECT_ERROR_WITH(linalg::cholesky(bad2), "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite).");
  EXPECT_ERROR_WITH(linalg::cholesky(real_values({-1, 2, 2, 1}, {2, 2})), "(the leading minor of order 1 is not positive-definite)");
  Tensor batch = ceye(2, {2}).to(kFloat);
  batch.select(0, 1).copy_(bad2);
  EXPECT_ERROR_WITH(linalg::cholesky(batch), "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite).");
  EXPECT_ERROR_WITH(cholesky(bad2), "cholesky: The factorization could not be completed");
  EXPECT_ERROR_WITH(linalg::cholesky(draw({2, 3}, kFloat)), "linalg.cholesky: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_ERROR_WITH(linalg::cholesky(ones({3, 3}, dtype(kInt))), "linalg.cholesky: Expected a floating point or complex tensor as input. Got Int");
}

// ---- qr ------------------------------------------------------------------------------------------
TEST(LinalgQr, ModesAndReconstruction) {
  for (ScalarType dt : kLapackTypes) {
    for (auto shape : {std::vector<int64_t>{6, 4}, {4, 6}, {2, 5, 3}, {3, 3}}) {
      SCOPED_TRACE(::testing::Message() << dt << " " << IntArrayRef(shape));
      Tensor A = draw(shape, dt);
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      std::vector<int64_t> batch(shape.begin(), shape.end() - 2);
      for (std::string mode : {"reduced", "complete"}) {
        auto [Q, R] = linalg::qr(A, mode);
        const int64_t qc = mode == "complete" ? m : k;
        std::vector<int64_t> qs = batch, rs = batch;
        qs.insert(qs.end(), {m, qc});
        rs.insert(rs.end(), {qc, n});
        EXPECT_EQ(Q.sizes(), IntArrayRef(qs));
        EXPECT_EQ(R.sizes(), IntArrayRef(rs));
        EXPECT_TRUE(close_as(cmm(Q, R), A.to(kComplexDouble), tol_for(dt), tol_for(dt)));
        EXPECT_TRUE(close_as(cmm(cH(Q), Q), ceye(qc, batch), 0, tol_for(dt)));
        auto rv = to_complex_vector(R);
        for (size_t z = 0; z < rv.size(); ++z) {
          const int64_t i = (z / n) % qc, j = z % n;
          if (i > j) EXPECT_EQ(rv[z], cd(0)) << "R not upper triangular";
        }
      }
      auto [Q0, R0] = linalg::qr(A, "r");
      EXPECT_EQ(Q0.numel(), 0);
      EXPECT_TRUE(close_as(R0, std::get<1>(linalg::qr(A)).to(kComplexDouble), 0, 0));
    }
  }
  auto [q1, r1] = linalg::qr(draw({0, 3}, kFloat));
  EXPECT_EQ(q1.sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(r1.sizes(), IntArrayRef({0, 3}));
  auto [q2, r2] = linalg::qr(draw({3, 0}, kFloat), "complete");
  EXPECT_TRUE(close_as(q2, ceye(3), 0, 0));
  EXPECT_EQ(r2.sizes(), IntArrayRef({3, 0}));
  EXPECT_ERROR_WITH(linalg::qr(draw({3, 4}, kFloat), "foo"), "qr received unrecognized mode 'foo' but expected one of 'reduced' (default), 'r', or 'complete'");
  EXPECT_ERROR_WITH(linalg::qr(draw({3}, kFloat)), "linalg.qr: The input tensor A must have at least 2 dimensions.");
  EXPECT_ERROR_WITH(linalg::qr(ones({3, 3}, dtype(kInt))), "linalg.qr: Expected a floating point or complex tensor as input. Got Int");
}

// ---- svd -----------------------------------------------------------------------------------------
TEST(LinalgSvd, FullReducedAndValues) {
  for (ScalarType dt : kLapackTypes) {
    for (auto shape : {std::vector<int64_t>{6, 4}, {4, 6}, {3, 5, 2}, {4, 4}}) {
      SCOPED_TRACE(::testing::Message() << dt << " " << IntArrayRef(shape));
      Tensor A = draw(shape, dt);
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      std::vector<int64_t> batch(shape.begin(), shape.end() - 2);
      for (bool full : {false, true}) {
        auto [U, S, Vh] = linalg::svd(A, full);
        EXPECT_EQ(S.scalar_type(), toRealValueType(dt));
        EXPECT_EQ(U.size(-1), full ? m : k);
        EXPECT_EQ(Vh.size(-2), full ? n : k);
        // U[:, :k] diag(S) Vh[:k] == A
        Tensor Uk = U.narrow(-1, 0, k), Vk = Vh.narrow(-2, 0, k);
        Tensor US = Uk.to(kComplexDouble) * S.to(kComplexDouble).unsqueeze(-2);
        EXPECT_TRUE(close_as(cmm(US, Vk), A.to(kComplexDouble), tol_for(dt), tol_for(dt) * 10));
        EXPECT_TRUE(close_as(cmm(cH(U), U), ceye(U.size(-1), batch), 0, tol_for(dt)));
        EXPECT_TRUE(close_as(cmm(Vh, cH(Vh)), ceye(Vh.size(-2), batch), 0, tol_for(dt)));
        auto sv = to_complex_vector(S);
        for (size_t z = 0; z < sv.size(); ++z) {
          EXPECT_GE(sv[z].real(), 0);
          if (z % k != 0) EXPECT_LE(sv[z].real(), sv[z - 1].real() + 1e-12);
        }
        EXPECT_TRUE(close_as(linalg::svdvals(A), S.to(kComplexDouble), tol_for(dt), tol_for(dt)));
      }
    }
  }
  Tensor X = real_values({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_TENSOR_CLOSE(linalg::svdvals(X), real_values({9.508032000696, 0.772869635673}, {2}), 1e-10, 1e-11);
  auto [U0, S0, V0] = linalg::svd(draw({0, 3}, kFloat));
  EXPECT_EQ(U0.sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(S0.sizes(), IntArrayRef({0}));
  EXPECT_TRUE(close_as(V0, ceye(3), 0, 0));
  auto [U1, S1, V1] = linalg::svd(draw({3, 0}, kFloat));
  EXPECT_TRUE(close_as(U1, ceye(3), 0, 0));
  EXPECT_EQ(V1.sizes(), IntArrayRef({0, 0}));
  EXPECT_EQ(std::get<0>(linalg::svd(draw({3, 0}, kFloat), false)).sizes(), IntArrayRef({3, 0}));
}

TEST(LinalgSvd, Errors) {
  EXPECT_ERROR_WITH(linalg::svd(full({3, 3}, std::numeric_limits<double>::quiet_NaN())),
                    "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
  EXPECT_ERROR_WITH(linalg::svd(draw({3}, kFloat)), "linalg.svd: The input tensor A must have at least 2 dimensions.");
  EXPECT_ERROR_WITH(linalg::svdvals(draw({3}, kFloat)), "linalg.svd: The input tensor A must have at least 2 dimensions.");
  EXPECT_ERROR_WITH(linalg::svd(ones({3, 3}, dtype(kInt))), "linalg.svd: Expected a floating point or complex tensor as input. Got Int");
}

// ---- eigh ----------------------------------------------------------------------------------------
TEST(LinalgEigh, DecompositionUploAndValues) {
  for (ScalarType dt : kLapackTypes) {
    SCOPED_TRACE(::testing::Message() << dt);
    Tensor X = draw({2, 5, 5}, dt);
    Tensor A = ((X.to(kComplexDouble) + cH(X)) * 0.5).to(dt);  // Hermitian
    auto [w, V] = linalg::eigh(A);
    EXPECT_EQ(w.scalar_type(), toRealValueType(dt));
    EXPECT_EQ(w.sizes(), IntArrayRef({2, 5}));
    Tensor Vw = V.to(kComplexDouble) * w.to(kComplexDouble).unsqueeze(-2);  // V diag(w)
    EXPECT_TRUE(close_as(cmm(A, V), Vw, tol_for(dt), tol_for(dt) * 10));
    EXPECT_TRUE(close_as(cmm(cH(V), V), ceye(5, {2}), 0, tol_for(dt)));
    auto wv = to_complex_vector(w);
    for (size_t z = 1; z < wv.size(); ++z)
      if (z % 5 != 0) EXPECT_LE(wv[z - 1].real(), wv[z].real());
    EXPECT_TRUE(close_as(linalg::eigvalsh(A), w.to(kComplexDouble), tol_for(dt), tol_for(dt)));
    // uplo: only one triangle is read.
    Tensor lower_junk = A.clone(), upper_junk = A.clone();
    lower_junk.select(-2, 4).select(-1, 0).fill_(50.0);  // below the diagonal
    upper_junk.select(-2, 0).select(-1, 4).fill_(50.0);  // above the diagonal
    EXPECT_TRUE(close_as(linalg::eigvalsh(lower_junk, "U"), w.to(kComplexDouble), tol_for(dt), tol_for(dt)));
    EXPECT_TRUE(close_as(linalg::eigvalsh(upper_junk, "L"), w.to(kComplexDouble), tol_for(dt), tol_for(dt)));
    EXPECT_TRUE(close_as(std::get<0>(linalg::eigh(lower_junk, "u")), w.to(kComplexDouble), tol_for(dt), tol_for(dt)));
  }
  Tensor A = real_values({4, 1, 2, 1, 5, 3, 2, 3, 6}, {3, 3});
  EXPECT_TENSOR_CLOSE(linalg::eigvalsh(A), real_values({2.194397167422, 3.386770156608, 9.418832675970}, {3}), 1e-10, 1e-11);
  auto [w0, V0] = linalg::eigh(draw({0, 0}, kFloat));
  EXPECT_EQ(w0.sizes(), IntArrayRef({0}));
  EXPECT_EQ(V0.sizes(), IntArrayRef({0, 0}));
  EXPECT_ERROR_WITH(linalg::eigh(draw({3, 3}, kFloat), "X"), "Expected UPLO argument to be 'L' or 'U', but got X");
  EXPECT_ERROR_WITH(linalg::eigh(draw({3, 4}, kFloat)), "linalg.eigh: A must be batches of square matrices, but they are 3 by 4 matrices");
  EXPECT_ERROR_WITH(linalg::eigvalsh(ones({3, 3}, dtype(kInt))), "Expected a floating point or complex tensor as input. Got Int");
  EXPECT_ERROR_WITH(linalg::eigh(full({3, 3}, std::numeric_limits<double>::quiet_NaN())),
                    "linalg.eigh: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues");
}

TEST(LinalgEx, InvAndCholeskyReportInfoInsteadOfRaising) {
  Tensor A = eye(3, dtype(kDouble)).repeat({2, 1, 1});
  A[1].zero_();  // singular, and not positive-definite
  auto [X, xinfo] = linalg::inv_ex(A);
  auto [L, linfo] = linalg::cholesky_ex(A);
  for (const Tensor& info : {xinfo, linfo}) {
    EXPECT_EQ(info.scalar_type(), kInt);
    ASSERT_EQ(info.sizes(), IntArrayRef({2}));
    EXPECT_EQ(info[0].item<int>(), 0);
    EXPECT_EQ(info[1].item<int>(), 1);  // PyTorch 1.13: tensor([0, 1], dtype=torch.int32) for both
  }
  EXPECT_TENSOR_CLOSE(X[0], A[0], 0, 0);
  EXPECT_TENSOR_CLOSE(L[0], A[0], 0, 0);
  // PyTorch's messages, naming the _ex function
  EXPECT_ERROR_WITH(linalg::inv_ex(A, /*check_errors=*/true),
                    "linalg.inv_ex: (Batch element 1): The diagonal element 1 is zero, the inversion could not be "
                    "completed because the input matrix is singular.");
  EXPECT_ERROR_WITH(linalg::cholesky_ex(A, false, /*check_errors=*/true),
                    "linalg.cholesky_ex: (Batch element 1): The factorization could not be completed because the "
                    "input is not positive-definite (the leading minor of order 1 is not positive-definite).");
  EXPECT_ERROR_WITH(linalg::solve_ex(A, randn({2, 3}, dtype(kDouble)), true, /*check_errors=*/true),
                    "torch.linalg.solve_ex: (Batch element 1): The solver failed because the input matrix is singular.");
  // the differentiable path reports infos too
  Tensor G = eye(3, dtype(kDouble)).mul(4).requires_grad_();
  auto [Xg, ginfo] = linalg::inv_ex(G);
  Xg.sum().backward();
  EXPECT_EQ(ginfo.item<int>(), 0);
  EXPECT_TENSOR_CLOSE(G.grad(), full({3, 3}, -1.0 / 16, dtype(kDouble)), 1e-15, 1e-15);
}

}  // namespace
}  // namespace ember::test
