// The LU family through LAPACK getrf/getrs (float, double, complex64, complex128):
// linalg::lu_factor / lu_factor_ex / lu / lu_solve, lu_unpack and the deprecated lu_solve,
// with PyTorch 1.13's shapes, dtypes (pivots and info are int32, 1-based as LAPACK's) and
// errors. linalg::lu is differentiable in both modes (Note [LU derivatives]); lu_factor and
// lu_solve are differentiable through it. Also its symmetric sibling, the Bunch-Kaufman LDL
// factorization (sytrf/hetrf, sytrs/hetrs): linalg::ldl_factor(_ex) and ldl_solve, not
// differentiable (as in PyTorch).
#include <algorithm>
#include <climits>
#include <numeric>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/warning.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/lapack.h"
#include "ember/ops/linalg_device.h"
#include "ember/ops/linalg_utils.h"

namespace ember {

using namespace linalg_detail;
using lapack::lint;

namespace {

struct LuFactors {
  Tensor LU;      // (*, m, n): L below the diagonal (unit diagonal implied), U on and above
  Tensor pivots;  // (*, k) int32, 1-based: row i was interchanged with row pivots[i]
  Tensor info;    // (*) int32: 0, or i when U[i-1, i-1] is exactly zero
};

// getrf on every matrix of A; no autograd.
LuFactors lu_factor_raw(const Tensor& A, const char* api) {
  check_lapack_input(A, api, false);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), B = batch_count(A);
  Tensor a = colmajor_copy(A.detach());
  if (on_device_lapack(A)) {
    LuFactors f{a, empty(with(batch_shape(A), {k}), A.options().dtype(kInt)),
                zeros(batch_shape(A), A.options().dtype(kInt))};
    if (a.numel() > 0) device_lapack(A, api).getrf(a, f.pivots, f.info);
    return f;
  }
  std::vector<lint> piv(size_t(B * k), 0), infos(size_t(B), 0);
  if (a.numel() > 0) {
    visit_dtype<kLapackTypes>(A.scalar_type(), api, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* base = static_cast<T*>(a.data_ptr());
      for_each_matrix(B, m * n * k, [&](int64_t i) {
        lapack::getrf<T>(lint(m), lint(n), base + i * m * n, lint(std::max<int64_t>(m, 1)), piv.data() + i * k,
                         &infos[size_t(i)]);
      });
    });
  }
  Tensor pivots = empty(with(batch_shape(A), {k}), TensorOptions().dtype(kInt));
  Tensor info = empty(batch_shape(A), TensorOptions().dtype(kInt));
  std::copy(piv.begin(), piv.end(), pivots.data_ptr<int32_t>());
  std::copy(infos.begin(), infos.end(), info.data_ptr<int32_t>());
  return {a, pivots, info};
}

void check_factor_info(const Tensor& info_any_device, const char* api, bool batched) {
  const Tensor info = info_any_device.to(kCPU).contiguous();
  const int32_t* p = info.data_ptr<int32_t>();
  for (int64_t i = 0; i < info.numel(); ++i) {
    EMBER_CHECK(p[i] >= 0, lapack_error_prefix(api, batched, i), "Argument ", -p[i], " has illegal value.");
    EMBER_CHECK(p[i] == 0, lapack_error_prefix(api, batched, i), "U[", p[i], ",", p[i],
                "] is zero and using it on lu_solve would result in a division by zero. If you still want to "
                "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
  }
}

void check_pivot(bool pivot, const char* api) {
  EMBER_CHECK(pivot, api, ": LU without pivoting is not implemented on the CPU");
}

// The permutation matrices (*, m, m) of pivots (*, k): A = P L U.
Tensor permutation_of(const Tensor& pivots, int64_t m, ScalarType dtype) {
  const int64_t k = pivots.size(-1), B = pivots.numel() / std::max<int64_t>(k, 1);
  std::vector<int64_t> shape(pivots.sizes().begin(), pivots.sizes().end() - 1);
  Tensor P = zeros(with(shape, {m, m}), TensorOptions().dtype(kDouble));
  const Tensor piv = pivots.to(kCPU).contiguous();
  const int32_t* pp = piv.data_ptr<int32_t>();
  double* out = P.data_ptr<double>();
  std::vector<int64_t> perm(static_cast<size_t>(m));
  for (int64_t b = 0; b < (k == 0 ? 0 : B); ++b) {
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = 0; i < k; ++i) std::swap(perm[size_t(i)], perm[size_t(pp[b * k + i] - 1)]);
    for (int64_t i = 0; i < m; ++i) out[b * m * m + perm[size_t(i)] * m + i] = 1;
  }
  if (k == 0)  // nothing was interchanged
    P.copy_(eye(m, TensorOptions().dtype(kDouble)).expand(P.sizes()));
  return P.to(pivots.device(), dtype);
}

// L (*, m, k) and U (*, k, n) from packed factors; differentiable in LU.
std::pair<Tensor, Tensor> split_factors(const Tensor& LU) {
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  Tensor L = LU.narrow(-1, 0, k).tril(-1).add(eye(m, k, LU.options()));
  Tensor U = LU.narrow(-2, 0, k).triu();
  return {L, U};
}

// Note [LU derivatives]
// For square A = P L U, with X = L^{-1} P^T dA U^{-1}: L^{-1} dL is strictly lower and
// dU U^{-1} upper, so dL = L tril(X, -1) and dU = triu(X) U, whose adjoint is
//   gA = P L^{-H} (tril(L^H gL, -1) + triu(gU U^H)) U^{-H}.
// Wide (m < n, U = [U1 U2]): U2 = L^{-1} P^T A2 adds gA2 = P L^{-H} gU2 and moves
// -L^{-H} gU2 U2^H onto gL before the square formula for (L, U1). Tall (m > n,
// L = [L1; L2]): L2 = (P^T A)_2 U^{-1} adds (P^T gA)_2 = gL2 U^{-H} and moves -L2^H gL2 U^{-H}
// onto gU before the square formula for (L1, U). Forward mode solves the same relations.
Tensor lu_square_vjp(const Tensor& L, const Tensor& U, const Tensor& gL, const Tensor& gU) {
  Tensor M;
  if (gL.defined()) M = ember::matmul(mH(L), gL).tril(-1);
  if (gU.defined()) {
    Tensor t = ember::matmul(gU, mH(U)).triu();
    M = M.defined() ? M.add(t) : t;
  }
  if (!M.defined()) return zeros_like(L);
  Tensor Y = linalg::solve_triangular(mH(L), M, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
  return linalg::solve_triangular(mH(U), Y, /*upper=*/false, /*left=*/false);
}

Tensor lu_vjp(const Tensor& P, const Tensor& L, const Tensor& U, Tensor gL, Tensor gU) {
  const int64_t m = L.size(-2), n = U.size(-1);
  Tensor gB;
  if (m == n) {
    gB = lu_square_vjp(L, U, gL, gU);
  } else if (m < n) {
    Tensor U1 = U.narrow(-1, 0, m), U2 = U.narrow(-1, m, n - m);
    Tensor gU1 = gU.defined() ? gU.narrow(-1, 0, m) : Tensor();
    Tensor gB2 = zeros_like(U2);
    if (gU.defined()) {
      gB2 = linalg::solve_triangular(mH(L), gU.narrow(-1, m, n - m), true, true, true);
      Tensor move = ember::matmul(gB2, mH(U2)).neg();
      gL = gL.defined() ? gL.add(move) : move;
    }
    gB = cat({lu_square_vjp(L, U1, gL, gU1), gB2}, -1);
  } else {
    Tensor L1 = L.narrow(-2, 0, n), L2 = L.narrow(-2, n, m - n);
    Tensor gL1 = gL.defined() ? gL.narrow(-2, 0, n) : Tensor();
    Tensor gB2 = zeros_like(L2);
    if (gL.defined()) {
      gB2 = linalg::solve_triangular(mH(U), gL.narrow(-2, n, m - n), /*upper=*/false, /*left=*/false);
      Tensor move = ember::matmul(mH(L2), gB2).neg();
      gU = gU.defined() ? gU.add(move) : move;
    }
    gB = cat({lu_square_vjp(L1, U, gL1, gU), gB2}, -2);
  }
  return ember::matmul(P, gB);
}

// (dL, dU) for the tangent dA.
std::pair<Tensor, Tensor> lu_jvp(const Tensor& P, const Tensor& L, const Tensor& U, const Tensor& dA) {
  const int64_t m = L.size(-2), n = U.size(-1);
  const Tensor dB = ember::matmul(mH(P), dA);
  auto square = [](const Tensor& l, const Tensor& u, const Tensor& db) {
    Tensor X = linalg::solve_triangular(l, db, /*upper=*/false, /*left=*/true, /*unitriangular=*/true);
    X = linalg::solve_triangular(u, X, /*upper=*/true, /*left=*/false);
    return std::make_pair(ember::matmul(l, X.tril(-1)), ember::matmul(X.triu(), u));
  };
  if (m == n) return square(L, U, dB);
  if (m < n) {
    auto [dL, dU1] = square(L, U.narrow(-1, 0, m), dB.narrow(-1, 0, m));
    Tensor rhs = dB.narrow(-1, m, n - m).sub(ember::matmul(dL, U.narrow(-1, m, n - m)));
    Tensor dU2 = linalg::solve_triangular(L, rhs, false, true, true);
    return {dL, cat({dU1, dU2}, -1)};
  }
  auto [dL1, dU] = square(L.narrow(-2, 0, n), U, dB.narrow(-2, 0, n));
  Tensor rhs = dB.narrow(-2, n, m - n).sub(ember::matmul(L.narrow(-2, n, m - n), dU));
  Tensor dL2 = linalg::solve_triangular(U, rhs, /*upper=*/true, /*left=*/false);
  return {cat({dL1, dL2}, -2), dU};
}

// P, L, U of A from its factors, recording linalg_lu's node when A is differentiable.
std::tuple<Tensor, Tensor, Tensor> lu_from_factors(const Tensor& A, const LuFactors& f) {
  const int64_t m = A.size(-2);
  Tensor P = permutation_of(f.pivots, m, A.scalar_type());
  Tensor L, U;
  {
    autograd::BelowAutogradGuard below;
    std::tie(L, U) = split_factors(f.LU);
  }
  autograd::Recording rec({&A});
  if (rec.forward()) {
    rec.forward_each(L, [&](const std::function<Tensor(size_t)>& t) { return lu_jvp(P, L, U, t(0)).first; });
    rec.forward_each(U, [&](const std::function<Tensor(size_t)>& t) { return lu_jvp(P, L, U, t(0)).second; });
  }
  if (rec.reverse()) {
    rec.record("linalg_lu", std::vector<Tensor>{L, U}, [](const autograd::VjpCtx& c) {
      return autograd::variable_list{
          lu_vjp(c.saved_tensor(0), c.saved_tensor(1), c.saved_tensor(2), c.grads[0], c.grads[1])};
    }, {{P, false}, {L, true}, {U, true}});
  }
  return {P, L, U};
}

// The packed LU of (L, U); differentiable, and equal to getrf's LU element for element.
Tensor pack_factors(const Tensor& L, const Tensor& U) {
  const int64_t m = L.size(-2), n = U.size(-1), k = L.size(-1);
  if (m >= n) {
    if (m == k) return L.tril(-1).add(U);
    std::vector<int64_t> pad = with(batch_shape(U), {m - n, n});
    return L.tril(-1).add(cat({U, zeros(pad, U.options())}, -2));
  }
  std::vector<int64_t> pad = with(batch_shape(L), {m, n - m});
  return cat({L.tril(-1), zeros(pad, L.options())}, -1).add(U);
}

void check_lu_solve_args(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left) {
  check_defined(LU, "linalg.lu_solve", "LU");
  check_defined(pivots, "linalg.lu_solve", "pivots");
  check_defined(B, "linalg.lu_solve", "B");
  check_lapack_input(LU, "torch.linalg.lu_solve", true);
  check_same_device("linalg.lu_solve", {&LU, &pivots, &B});
  EMBER_CHECK(B.dim() >= 2, "linalg.lu_solve: Expected B to have at least 2 dimensions, but it has ", B.dim(),
              " dimensions instead");
  EMBER_CHECK(LU.scalar_type() == B.scalar_type(), "linalg.lu_solve: Expected LU and B to have the same dtype, but "
              "found LU of type ", LU.scalar_type(), " and B of type ", B.scalar_type(), " instead");
  EMBER_CHECK(pivots.scalar_type() == kInt, "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32, "
              "got ", pivots.scalar_type());
  const int64_t n = LU.size(-1);
  EMBER_CHECK(pivots.dim() == LU.dim() - 1 && pivots.size(-1) == n, "linalg.lu_solve: Expected pivots of shape ",
              IntArrayRef(LU.sizes().data(), size_t(LU.dim() - 1)), " (LU's shape without its last dimension), got ",
              pivots.sizes());
  if (left)
    EMBER_CHECK(B.size(-2) == n, "linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (", n, "x",
                n, " and ", B.size(-2), "x", B.size(-1), ")");
  else
    EMBER_CHECK(B.size(-1) == n, "linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B (", n, "x",
                n, " and ", B.size(-2), "x", B.size(-1), ")");
}

void check_pivot_range(const Tensor& pivots, int64_t m) {
  const Tensor p = pivots.to(kCPU).contiguous();
  const int32_t* d = p.data_ptr<int32_t>();
  for (int64_t i = 0; i < p.numel(); ++i)
    EMBER_CHECK(d[i] >= 1 && d[i] <= m, "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive. "
                "Did you properly pass the result of lu_factor?");
}

// A X = B (adjoint: A^H X = B) through getrs; LU, pivots and B already checked.
Tensor lu_solve_left_raw(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool adjoint) {
  const int64_t n = LU.size(-1), k = B.size(-1);
  std::vector<int64_t> batch = broadcast_shapes(batch_shape(LU), batch_shape(B));
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  Tensor lu = colmajor_copy(LU.expand(with(batch, {n, n})));
  Tensor piv = pivots.expand(with(batch, {n})).contiguous();
  Tensor x = colmajor_copy(B.expand(with(batch, {n, k})));
  if (n == 0 || k == 0 || nb == 0) return x;
  const char trans = adjoint ? (LU.is_complex() ? 'C' : 'T') : 'N';
  if (on_device_lapack(LU)) {
    device_lapack(LU, "linalg.lu_solve").getrs(lu, piv, x, trans);
    return x;
  }
  visit_dtype<kLapackTypes>(LU.scalar_type(), "linalg.lu_solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* ab = static_cast<const T*>(lu.data_ptr());
    T* xb = static_cast<T*>(x.data_ptr());
    const int32_t* pb = piv.data_ptr<int32_t>();
    for_each_matrix(nb, n * n * k, [&](int64_t i) {
      thread_local std::vector<lint> ipiv;
      ipiv.assign(pb + i * n, pb + (i + 1) * n);
      lint info = 0;
      lapack::getrs<T>(trans, lint(n), lint(k), ab + i * n * n, lint(n), ipiv.data(), xb + i * n * k, lint(n), &info);
    });
  });
  return x;
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data,
                                             bool unpack_pivots) {
  check_defined(LU_data, "torch.lu_unpack", "LU_data");
  check_defined(LU_pivots, "torch.lu_unpack", "LU_pivots");
  EMBER_CHECK(LU_data.dim() >= 2, "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: ",
              LU_data.sizes(), " instead");
  EMBER_CHECK(LU_pivots.scalar_type() == kInt, "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
              "torch.int32 dtype.\nNote: this function is intended to be used with the output produced by "
              "torch.linalg.lu_factor");
  const int64_t m = LU_data.size(-2), n = LU_data.size(-1), k = std::min(m, n);
  EMBER_CHECK(LU_pivots.dim() == LU_data.dim() - 1 && LU_pivots.size(-1) == k,
              "torch.lu_unpack: Expected LU_pivots of shape ", IntArrayRef(LU_data.sizes().data(), size_t(LU_data.dim() - 2)),
              " + [", k, "] (min(m, n) per matrix), got ", LU_pivots.sizes());
  Tensor P, L, U;
  if (unpack_pivots) {
    check_pivot_range(LU_pivots, m);
    P = permutation_of(LU_pivots, m, LU_data.scalar_type());
  } else {
    P = empty({0}, LU_data.options());
  }
  if (unpack_data) {
    std::tie(L, U) = split_factors(LU_data);
  } else {
    L = empty({0}, LU_data.options());
    U = empty({0}, LU_data.options());
  }
  return {P, L, U};
}

namespace linalg {

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  check_defined(A, "torch.linalg.lu_factor_ex", "A");
  check_pivot(pivot, "linalg.lu_factor");
  EMBER_CHECK(A.dim() >= 2, "torch.linalg.lu_factor_ex: Expected tensor with 2 or more dimensions. Got size: ",
              A.sizes(), " instead");
  LuFactors f = lu_factor_raw(A, "torch.linalg.lu_factor_ex");
  if (check_errors) check_factor_info(f.info, "torch.linalg.lu_factor_ex", A.dim() > 2);
  if (autograd::maybe_differentiable(A)) {
    auto [P, L, U] = lu_from_factors(A, f);
    return {pack_factors(L, U), f.pivots, f.info};
  }
  return {f.LU, f.pivots, f.info};
}

std::tuple<Tensor, Tensor> lu_factor(const Tensor& A, bool pivot) {
  check_defined(A, "torch.linalg.lu_factor", "A");
  EMBER_CHECK(A.dim() >= 2, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ", A.sizes(),
              " instead");
  auto [LU, pivots, info] = lu_factor_ex(A, pivot, /*check_errors=*/false);
  check_factor_info(info, "torch.linalg.lu_factor", A.dim() > 2);
  return {LU, pivots};
}

std::tuple<Tensor, Tensor, Tensor> lu(const Tensor& A, bool pivot) {
  check_defined(A, "linalg.lu", "A");
  check_pivot(pivot, "linalg.lu");
  EMBER_CHECK(A.dim() >= 2, "linalg.lu: Expected tensor with 2 or more dimensions. Got size: ", A.sizes(),
              " instead");
  return lu_from_factors(A, lu_factor_raw(A, "linalg.lu"));
}

Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  check_lu_solve_args(LU, pivots, B, left);
  if (autograd::maybe_differentiable(LU, B)) {
    // Through the factors: A = P L U, so A X = B is X = U^{-1} L^{-1} P^T B and
    // A^H X = B is X = P L^{-H} U^{-H} B; the right-sided forms are their adjoints.
    auto [P, L, U] = lu_unpack(LU, pivots);
    auto solve_left = [&, P = P, L = L, U = U](const Tensor& rhs, bool adj) {
      if (!adj) {
        Tensor Y = linalg::solve_triangular(L, ember::matmul(mH(P), rhs), false, true, true);
        return linalg::solve_triangular(U, Y, true, true);
      }
      Tensor Y = linalg::solve_triangular(mH(U), rhs, false, true);
      return ember::matmul(P, linalg::solve_triangular(mH(L), Y, true, true, true));
    };
    return left ? solve_left(B, adjoint) : mH(solve_left(mH(B), !adjoint));
  }
  check_pivot_range(pivots, LU.size(-1));  // (lu_unpack checks them on the path above)
  if (left) return lu_solve_left_raw(LU, pivots, B, adjoint);
  // X A = B <=> A^H X^H = B^H; X A^H = B <=> A X^H = B^H.
  return mH(lu_solve_left_raw(LU, pivots, mH(B), !adjoint));
}

}  // namespace linalg

Tensor lu_solve(const Tensor& self, const Tensor& LU_data, const Tensor& LU_pivots) {
  // On PyTorch's float32 autocast list (linalg_lu_solve is not).
  EMBER_AUTOCAST(lu_solve, lu_solve(_ac[0], _ac[1], LU_pivots), &self, &LU_data);
  EMBER_WARN_ONCE("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a future "
                  "PyTorch release. Note that torch.linalg.lu_solve has its arguments reversed: X = "
                  "torch.lu_solve(B, LU, pivots) should be replaced with X = torch.linalg.lu_solve(LU, pivots, B)");
  return linalg::lu_solve(LU_data, LU_pivots, self);
}
Tensor Tensor::lu_solve(const Tensor& LU_data, const Tensor& LU_pivots) const {
  return ember::lu_solve(*this, LU_data, LU_pivots);
}

// ---- LDL ----------------------------------------------------------------------------------
namespace {

void check_ldl_pivots(const Tensor& LD, const Tensor& pivots, const char* api) {
  EMBER_CHECK(pivots.scalar_type() == kInt, api, ": Expected pivots to be integers. Got ", pivots.scalar_type());
  EMBER_CHECK(pivots.dim() == LD.dim() - 1 && std::equal(pivots.sizes().begin(), pivots.sizes().end(),
                                                         LD.sizes().begin()),
              api, ": Expected pivots of shape ", IntArrayRef(LD.sizes().data(), size_t(LD.dim() - 1)),
              " (LD's shape without its last dimension), got ", pivots.sizes());
  const Tensor p = pivots.to(kCPU).contiguous();
  const int32_t* d = p.data_ptr<int32_t>();
  const int64_t n = LD.size(-1);
  for (int64_t i = 0; i < p.numel(); ++i)
    EMBER_CHECK(d[i] != 0 && d[i] >= -n && d[i] <= n, api, ": pivots must be LAPACK's (1-based, negative for a "
                "2x2 block, at most ", n, " in magnitude); got ", d[i], ". Did you pass the result of ldl_factor?");
}

}  // namespace

namespace linalg {

std::tuple<Tensor, Tensor, Tensor> ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors) {
  const char* api = "torch.linalg.ldl_factor_ex";
  check_defined(A, api, "A");
  check_lapack_input(A, api, true);
  autograd::BelowAutogradGuard below;  // PyTorch has no derivative for it either
  if (!A.is_cpu()) {
    // Computed on the CPU and copied back (Note [Device linear algebra]).
    auto [LD, pivots, info] = ldl_factor_ex(A.to(kCPU), hermitian, check_errors);
    return {LD.to(A.device()), pivots.to(A.device()), info.to(A.device())};
  }
  const int64_t n = A.size(-1), nb = batch_count(A);
  Tensor LD = colmajor_copy(A);
  Tensor pivots = empty(with(batch_shape(A), {n}), TensorOptions().dtype(kInt));
  Tensor info = zeros(batch_shape(A), TensorOptions().dtype(kInt));
  if (n == 0 || nb == 0) return {LD, pivots, info};
  std::vector<lint> infos(size_t(nb), 0);
  visit_dtype<kLapackTypes>(A.scalar_type(), api, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* base = static_cast<T*>(LD.data_ptr());
    int32_t* pb = pivots.data_ptr<int32_t>();
    T wq = T(0);
    lint query_info = 0, query_piv = 0;
    lapack::sytrf<T>(hermitian, lint(n), base, lint(n), &query_piv, &wq, -1, &query_info);
    const lint lwork = std::max<lint>(1, lapack::work_size(wq));
    for_each_matrix(nb, n * n * n, [&](int64_t i) {
      std::vector<T> work(lwork);
      std::vector<lint> ipiv(n);
      lapack::sytrf<T>(hermitian, lint(n), base + i * n * n, lint(n), ipiv.data(), work.data(), lwork, &infos[i]);
      for (int64_t j = 0; j < n; ++j) pb[i * n + j] = int32_t(ipiv[j]);
    });
  });
  int32_t* ib = info.data_ptr<int32_t>();
  for (int64_t i = 0; i < nb; ++i) ib[i] = int32_t(infos[i]);
  if (check_errors) {
    const int64_t bad = first_failure(infos);
    EMBER_CHECK(bad < 0, lapack_error_prefix(api, A.dim() > 2, bad), "The factorization could not be completed: D[",
                infos[std::max<int64_t>(bad, 0)] - 1, ", ", infos[std::max<int64_t>(bad, 0)] - 1,
                "] is exactly zero, so the block diagonal matrix D is singular.");
  }
  return {LD, pivots, info};
}

std::tuple<Tensor, Tensor> ldl_factor(const Tensor& A, bool hermitian) {
  auto [LD, pivots, info] = ldl_factor_ex(A, hermitian, /*check_errors=*/false);
  const Tensor i = info.reshape({-1}).to(kCPU);
  const int32_t* ib = i.data_ptr<int32_t>();
  for (int64_t b = 0; b < i.numel(); ++b)
    EMBER_CHECK(ib[b] == 0, lapack_error_prefix("torch.linalg.ldl_factor", A.dim() > 2, b),
                "The factorization could not be completed: D[", ib[b] - 1, ", ", ib[b] - 1,
                "] is exactly zero, so the block diagonal matrix D is singular.");
  return {LD, pivots};
}

Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  const char* api = "torch.linalg.ldl_solve";
  check_defined(LD, api, "LD");
  check_defined(pivots, api, "pivots");
  check_defined(B, api, "B");
  check_lapack_input(LD, api, true);
  EMBER_CHECK(B.dim() >= 2, api, ": Expected B to have at least 2 dimensions, but it has ", B.dim(), " dimensions");
  EMBER_CHECK_TYPE(LD.scalar_type() == B.scalar_type(), api, ": Expected LD and B to have the same dtype, but got ",
                   LD.scalar_type(), " and ", B.scalar_type());
  const int64_t n = LD.size(-1), k = B.size(-1);
  EMBER_CHECK(B.size(-2) == n, api, ": Incompatible shapes of LD and B for the equation LD X = B (", n, "x", n,
              " and ", B.size(-2), "x", k, ")");
  check_same_device(api, {&LD, &pivots, &B});
  check_ldl_pivots(LD, pivots, api);
  autograd::BelowAutogradGuard below;
  if (!LD.is_cpu()) return ldl_solve(LD.to(kCPU), pivots.to(kCPU), B.to(kCPU), hermitian).to(LD.device());
  std::vector<int64_t> batch = broadcast_shapes(batch_shape(LD), batch_shape(B));
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  Tensor ld = colmajor_copy(LD.expand(with(batch, {n, n})));
  Tensor piv = pivots.expand(with(batch, {n})).contiguous();
  Tensor x = colmajor_copy(B.expand(with(batch, {n, k})));
  if (n == 0 || k == 0 || nb == 0) return x;
  visit_dtype<kLapackTypes>(LD.scalar_type(), api, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* lb = static_cast<const T*>(ld.data_ptr());
    T* xb = static_cast<T*>(x.data_ptr());
    const int32_t* pb = piv.data_ptr<int32_t>();
    for_each_matrix(nb, n * n * k, [&](int64_t i) {
      std::vector<lint> ipiv(pb + i * n, pb + (i + 1) * n);
      lint info = 0;
      lapack::sytrs<T>(hermitian, lint(n), lint(k), lb + i * n * n, lint(n), ipiv.data(), xb + i * n * k, lint(n),
                       &info);
    });
  });
  return x;
}

}  // namespace linalg

}  // namespace ember
