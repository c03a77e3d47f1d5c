// Linear algebra on CUDA (cuSOLVER, Note [Device linear algebra]) against the CPU (LAPACK):
// inv, solve, det/slogdet, cholesky, lu_factor/lu_solve, qr, svd, eigh, lstsq ('gels'),
// eig (computed on the CPU), in float/double/complex, batched; PyTorch's errors for singular
// and non-positive-definite input; gradients through the device ops. Results stay on the
// device. The op-level code is also run without a GPU by tests/ops/linalg_device_glue_test.
// Skipped without a GPU.
#include <torch/torch.h>

#include "cuda_test_util.h"
#include "test_util.h"

namespace ember::test {
namespace {

const ScalarType kTypes[] = {kFloat, kDouble, kComplexFloat, kComplexDouble};
double tol(ScalarType t) { return toRealValueType(t) == kFloat ? 1e-3 : 1e-9; }

Tensor well_conditioned(IntArrayRef shape, ScalarType dt) {
  return random_tensor(shape, dt).add(torch::eye(shape.back(), torch::TensorOptions().dtype(dt)).mul(double(shape.back())));
}
Tensor eye_like(const Tensor& G) { return torch::eye(G.size(-1), G.options()).expand(G.sizes()); }

TEST(CudaLinalg, LuFamilyMatchesTheCpu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(torch_name(t));
    const double r = tol(t);
    Tensor A = well_conditioned({3, 5, 5}, t), B = random_tensor({3, 5, 2}, t), gA = A.cuda(), gB = B.cuda();
    Tensor inv = torch::linalg::inv(gA);
    EXPECT_TRUE(inv.is_cuda());
    EXPECT_TENSOR_CLOSE(inv.cpu(), torch::linalg::inv(A), r, r);
    EXPECT_TENSOR_CLOSE(torch::linalg::solve(gA, gB).cpu(), torch::linalg::solve(A, B), r, r);
    EXPECT_TENSOR_CLOSE(torch::linalg::solve(gA[0], gB).cpu(), torch::linalg::solve(A[0], B), r, r);
    EXPECT_TENSOR_CLOSE(torch::linalg::det(gA).cpu(), torch::linalg::det(A), r, r);
    auto [s, l] = torch::linalg::slogdet(gA);
    auto [sc, lc] = torch::linalg::slogdet(A);
    EXPECT_TENSOR_CLOSE(s.cpu(), sc, r, r);
    EXPECT_TENSOR_CLOSE(l.cpu(), lc, r, r);
    auto [LU, piv] = torch::linalg::lu_factor(gA);
    EXPECT_TRUE(piv.is_cuda());
    EXPECT_EQ(piv.scalar_type(), kInt);
    EXPECT_TENSOR_CLOSE(torch::linalg::lu_solve(LU, piv, gB).cpu(), torch::linalg::solve(A, B), r, r);
    auto [P, L, U] = torch::linalg::lu(gA);
    EXPECT_TENSOR_CLOSE(torch::matmul(P, torch::matmul(L, U)).cpu(), A, r, r);
  }
}

TEST(CudaLinalg, SingularAndIndefiniteInputRaiseAsOnTheCpu) {
  EMBER_REQUIRE_GPU();
  Tensor A = torch::ones({2, 3, 3}, kDouble);
  EXPECT_ERROR_WITH(torch::linalg::inv(A.cuda()), "linalg.inv: (Batch element 0): The diagonal element");
  auto [X, info] = torch::linalg::inv_ex(A.cuda());
  EXPECT_TRUE(info.is_cuda());
  EXPECT_TENSOR_EQ(info.cpu(), std::get<1>(torch::linalg::inv_ex(A)));
  EXPECT_ERROR_WITH(torch::linalg::solve(A.cuda(), A.cuda()), "The solver failed because the input matrix is singular");
  EXPECT_ERROR_WITH(torch::linalg::cholesky(torch::eye(3, kDouble).neg().cuda()), "not positive-definite");
  EXPECT_TENSOR_EQ(torch::linalg::det(A.cuda()).cpu(), torch::zeros({2}, kDouble));
}

TEST(CudaLinalg, CholeskyQrSvdEighMatchTheCpu) {
  EMBER_REQUIRE_GPU();
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(torch_name(t));
    const double r = tol(t) * 10;
    Tensor M = random_tensor({2, 6, 6}, t);
    Tensor S = torch::matmul(M, M.transpose(-2, -1).conj()).add(torch::eye(6, torch::TensorOptions().dtype(t)));
    EXPECT_TENSOR_CLOSE(torch::linalg::cholesky(S.cuda()).cpu(), torch::linalg::cholesky(S), r, r);
    EXPECT_TENSOR_CLOSE(torch::linalg::cholesky(S.cuda(), true).cpu(), torch::linalg::cholesky(S, true), r, r);
    for (auto shape : {std::vector<int64_t>{2, 7, 4}, std::vector<int64_t>{2, 4, 7}}) {
      Tensor A = random_tensor(shape, t), gA = A.cuda();
      for (const char* mode : {"reduced", "complete"}) {
        auto [Q, R] = torch::linalg::qr(gA, mode);
        EXPECT_TENSOR_CLOSE(torch::matmul(Q, R).cpu(), A, r, r);
        Tensor G = torch::matmul(Q.transpose(-2, -1).conj(), Q).cpu();
        EXPECT_TENSOR_CLOSE(G, eye_like(G), r, r);
        EXPECT_TENSOR_CLOSE(R.cpu(), R.cpu().triu(), 0, 0);
      }
      for (bool full : {false, true}) {
        auto [U, Sv, Vh] = torch::linalg::svd(gA, full);
        const int64_t k = std::min(A.size(-2), A.size(-1));
        EXPECT_TENSOR_CLOSE(Sv.cpu(), torch::linalg::svdvals(A), r, r);
        Tensor rec = torch::matmul(U.narrow(-1, 0, k).mul(Sv.unsqueeze(-2).to(t)), Vh.narrow(-2, 0, k));
        EXPECT_TENSOR_CLOSE(rec.cpu(), A, r, r);
      }
    }
    Tensor H = M.add(M.transpose(-2, -1).conj());
    auto [w, V] = torch::linalg::eigh(H.cuda());
    EXPECT_TENSOR_CLOSE(w.cpu(), torch::linalg::eigvalsh(H), r, r);
    EXPECT_TENSOR_CLOSE(torch::matmul(H.cuda(), V).cpu(), V.mul(w.unsqueeze(-2).to(t)).cpu(), r, r);
  }
}

TEST(CudaLinalg, LstsqEigAndGradients) {
  EMBER_REQUIRE_GPU();
  Tensor A = random_tensor({2, 8, 3}, kDouble), B = random_tensor({2, 8, 2}, kDouble);
  auto sol = torch::linalg::lstsq(A.cuda(), B.cuda(), std::nullopt, std::nullopt);
  EXPECT_TENSOR_CLOSE(std::get<0>(sol).cpu(), torch::matmul(torch::linalg::pinv(A), B), 1e-9, 1e-9);
  EXPECT_ERROR_WITH(torch::linalg::lstsq(A.cuda(), B.cuda(), std::nullopt, "gelsd"), "other than `gels`");
  Tensor E = random_tensor({3, 3}, kDouble);
  auto [ev, evec] = torch::linalg::eig(E.cuda());
  EXPECT_TRUE(ev.is_cuda());
  EXPECT_TENSOR_CLOSE(torch::matmul(E.to(kComplexDouble), evec.cpu()), evec.cpu().mul(ev.cpu().unsqueeze(-2)), 1e-9, 1e-9);
  // Gradients through the device ops equal the CPU's.
  Tensor C = well_conditioned({3, 3}, kDouble);
  Tensor gc = C.cuda().requires_grad_(), cc = C.clone().requires_grad_();
  (torch::linalg::det(gc) + torch::linalg::inv(gc).sum() + std::get<1>(torch::linalg::eigh(gc.mm(gc.t()))).abs().sum())
      .backward();
  (torch::linalg::det(cc) + torch::linalg::inv(cc).sum() + std::get<1>(torch::linalg::eigh(cc.mm(cc.t()))).abs().sum())
      .backward();
  EXPECT_TENSOR_CLOSE(gc.grad().cpu(), cc.grad(), 1e-7, 1e-7);
}

}  // namespace
}  // namespace ember::test
