// LU- and Cholesky-based linear algebra through LAPACK (float, double, complex64,
// complex128): linalg::inv / inverse, linalg::solve, linalg::det / det, linalg::slogdet,
// linalg::cholesky / cholesky. Batches run one matrix per task on ember's threads, on
// column-major copies; results keep the input's dtype. QR/SVD/eigh: linalg_decomp.cpp.
#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/parallel.h"
#include "ember/ops/blas.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/lapack.h"
#include "ember/ops/linalg_device.h"
#include "ember/ops/linalg_utils.h"

namespace ember {

namespace linalg_detail {

void check_lapack_input(const Tensor& A, const char* api, bool square) {
  EMBER_CHECK(A.defined(), api, ": expected a defined tensor");
  EMBER_CHECK(A.dim() >= 2, api, ": The input tensor A must have at least 2 dimensions.");
  if (square)
    EMBER_CHECK(A.size(-1) == A.size(-2), api, ": A must be batches of square matrices, but they are ", A.size(-2),
                " by ", A.size(-1), " matrices");
  const ScalarType t = A.scalar_type();
  EMBER_CHECK(isFloatingType(t) || isComplexType(t), api, ": Expected a floating point or complex tensor as input. Got ",
              t);
  EMBER_CHECK(!isReducedFloatingType(t) && t != kComplexHalf, api, ": Low precision dtypes not supported. Got ", t);
  EMBER_CHECK(A.size(-1) <= INT_MAX && A.size(-2) <= INT_MAX, api, ": matrix dimensions above 2^31-1 are not supported");
}

Tensor colmajor_copy(const Tensor& A) {
  return A.transpose(-2, -1).clone(MemoryFormat::Contiguous).transpose(-2, -1);
}

int64_t batch_count(const Tensor& A) {
  int64_t b = 1;
  for (int64_t d = 0; d + 2 < A.dim(); ++d) b *= A.size(d);
  return b;
}

std::string lapack_error_prefix(const char* api, bool batched, int64_t index) {
  return batched ? ember::detail::str_cat(api, ": (Batch element ", index, "): ") : ember::detail::str_cat(api, ": ");
}

}  // namespace linalg_detail

using namespace linalg_detail;
using lapack::lint;
using lapack::real_of;

namespace {


// Note [Parallel LU]
// OpenBLAS runs single-threaded (Note [BLAS threads]), so batches are parallel over their
// matrices, and a large matrix in a batch too small to fill the threads is factorised here
// with LAPACK's right-looking blocked algorithm (dgetrf's): LAPACK getrf on each panel,
// row interchanges, a triangular solve split by columns, and the trailing update, where
// the flops are, as one GEMM split over ember's threads. Solves split the right-hand sides.
constexpr int64_t kParallelLuMin = 192;
constexpr int64_t kLuBlock = 32;

bool use_parallel_lu(int64_t n, int64_t batch) {
  return n >= kParallelLuMin && get_num_threads() > 1 && batch < get_num_threads() && !in_parallel_region();
}

// LU with partial pivoting of the n x n column-major matrix a (leading dimension n).
template <class T>
void square_lu_factor(T* a, int64_t n, lint* ipiv, lint* info, bool parallel) {
  const lint N = lint(std::max<int64_t>(n, 1));
  if (!parallel) {
    lapack::getrf<T>(lint(n), lint(n), a, N, ipiv, info);
    return;
  }
  *info = 0;
  for (int64_t j = 0; j < n; j += kLuBlock) {
    const int64_t jb = std::min(kLuBlock, n - j), rest = n - j - jb;
    lint pinfo = 0;
    lapack::getrf<T>(lint(n - j), lint(jb), a + j + j * n, N, ipiv + j, &pinfo);
    if (pinfo > 0 && *info == 0) *info = pinfo + lint(j);
    for (int64_t i = j; i < j + jb; ++i) ipiv[i] += lint(j);
    if (j > 0) lapack::laswp<T>(lint(j), a, N, lint(j + 1), lint(j + jb), ipiv);
    if (rest == 0) continue;
    T* a12 = a + j + (j + jb) * n;
    lapack::laswp<T>(lint(rest), a + (j + jb) * n, N, lint(j + 1), lint(j + jb), ipiv);
    parallel_for(0, rest, kLuBlock, [&](int64_t c0, int64_t c1) {
      lapack::trsm_left<T>(true, lint(jb), lint(c1 - c0), a + j + j * n, N, a12 + c0 * n, N);
    });
    // A22 -= A21 A12 in column-major, i.e. row-major A22^T -= A12^T A21^T.
    GemmArgs g;
    g.dtype = scalar_type_of<T>, g.m = rest, g.n = rest, g.k = jb;
    g.a = a12, g.lda = n, g.b = a + (j + jb) + j * n, g.ldb = n;
    g.c = a + (j + jb) + (j + jb) * n, g.ldc = n;
    g.alpha = -1, g.beta = 1, g.prefer_blas = true;
    cpu_gemm(g);
  }
}

// B (n x nrhs, column-major, leading dimension n) = A^{-1} B from square_lu_factor's output.
template <class T>
void square_lu_solve(const T* lu, int64_t n, const lint* ipiv, T* b, int64_t nrhs, bool parallel) {
  const lint N = lint(std::max<int64_t>(n, 1));
  auto solve = [&](int64_t c0, int64_t c1) {
    lint info = 0;
    lapack::getrs<T>('N', lint(n), lint(c1 - c0), lu, N, ipiv, b + c0 * n, N, &info);
  };
  if (parallel && nrhs >= 32) parallel_for(0, nrhs, 16, solve);
  else solve(0, nrhs);
}

// LU-factorises every matrix of `a` (column-major, from colmajor_copy) in place.
template <class T>
void lu_batch(Tensor& a, std::vector<lint>& pivots, std::vector<lint>& infos) {
  const int64_t n = a.size(-1), B = batch_count(a);
  pivots.assign(size_t(B * n), 0);
  infos.assign(size_t(B), 0);
  T* base = static_cast<T*>(a.data_ptr());
  if (use_parallel_lu(n, B)) {
    for (int64_t i = 0; i < B; ++i) square_lu_factor<T>(base + i * n * n, n, pivots.data() + i * n, &infos[i], true);
    return;
  }
  for_each_matrix(B, n * n * n, [&](int64_t i) {
    square_lu_factor<T>(base + i * n * n, n, pivots.data() + i * n, &infos[i], false);
  });
}

enum FailureMessage { kSingularInverse, kSingularSolve, kNotPositiveDefinite };

// Raises PyTorch's error for the first failed matrix, or hands the infos to the caller (the
// _ex functions, which report them instead).
void check_infos(const std::vector<lint>& infos, std::vector<lint>* infos_out, const char* api, bool batched,
                 FailureMessage what) {
  if (infos_out) {
    *infos_out = infos;
    return;
  }
  const int64_t bad = first_failure(infos);
  if (bad < 0) return;
  const std::string prefix = lapack_error_prefix(api, batched, bad);
  switch (what) {
    case kSingularInverse:
      EMBER_CHECK(false, prefix, "The diagonal element ", infos[bad],
                  " is zero, the inversion could not be completed because the input matrix is singular.");
      break;
    case kSingularSolve:
      EMBER_CHECK(false, prefix, "The solver failed because the input matrix is singular.");
      break;
    case kNotPositiveDefinite:
      EMBER_CHECK(false, prefix, "The factorization could not be completed because the input is not "
                  "positive-definite (the leading minor of order ", infos[bad], " is not positive-definite).");
      break;
  }
}

// ---- the device path (Note [Device linear algebra]) ----------------------------------------
// LU factors of the packed column-major batch `a`, in place on its device.
struct DeviceLu {
  Tensor pivots, infos;
};
DeviceLu device_lu(const Tensor& a, const char* api) {
  const int64_t k = std::min(a.size(-2), a.size(-1));
  DeviceLu f{empty(with(batch_shape(a), {k}), a.options().dtype(kInt)), zeros(batch_shape(a), a.options().dtype(kInt))};
  if (a.numel() > 0) device_lapack(a, api).getrf(a, f.pivots, f.infos);
  return f;
}

// (-1)^(number of row interchanges) of every matrix, in dtype t, from getrf's pivots.
Tensor pivot_sign(const Tensor& pivots, ScalarType t) {
  const int64_t k = pivots.size(-1);
  Tensor moved = pivots.ne(arange(1, k + 1, pivots.options())).sum(-1);
  return moved.remainder(2).mul(-2).add(1).to(t);
}

// `infos`: when given, receives LAPACK's info per matrix instead of a singular matrix
// raising (inv_ex); it keeps its zeros when there is nothing to factorise.
Tensor inv_impl(const Tensor& A, const char* api, std::vector<lint>* infos_out = nullptr) {
  EMBER_AUTOCAST(linalg_inv, inv_impl(_ac[0], api, infos_out), &A);
  check_lapack_input(A, api, true);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) {
    // d inv = -inv dA inv
    return autograd::differentiable(
        "linalg_inv", {&A}, [&] { return inv_impl(A, api, infos_out); },
        [](const autograd::VjpCtx& c) {
          Tensor invH = c.saved_tensor(0).transpose(-2, -1).conj();
          return autograd::variable_list{ember::matmul(ember::matmul(invH, c.grad()), invH).neg()};
        },
        [](const auto& t, const Tensor& inv) { return ember::matmul(ember::matmul(inv, t(0)), inv).neg(); }, {}, /*save_result=*/true);
  }
  // As PyTorch, a row-major real A is factorised as A^T (its buffer read column-major):
  // inv(A^T)^T = inv(A), and the failing diagonal element reported is the same as PyTorch's.
  const bool use_transpose = A.is_contiguous() && !A.is_complex();
  if (on_device_lapack(A)) {
    // inv(A) = A^{-1} I: getrf, then getrs on the identity's columns (A^T's factors solve
    // with their transpose).
    Tensor a = use_transpose ? A.clone(MemoryFormat::Contiguous).transpose(-2, -1) : colmajor_copy(A);
    if (a.numel() == 0) return a;
    const DeviceLu f = device_lu(a, api);
    Tensor x = empty_strided(a.sizes(), a.strides(), a.options()).zero_();
    x.diagonal(0, -2, -1).fill_(1);
    device_lapack(A, api).getrs(a, f.pivots, x, use_transpose ? 'T' : 'N');
    check_infos(host_infos(f.infos), infos_out, api, A.dim() > 2, kSingularInverse);
    return x;
  }
  Tensor a = use_transpose ? A.clone(MemoryFormat::Contiguous) : colmajor_copy(A);
  const int64_t n = A.size(-1), B = batch_count(A);
  if (a.numel() == 0) return a;
  std::vector<lint> infos(B, 0);
  if (use_parallel_lu(n, B)) {
    // inv(A) = A^{-1} I: a parallel LU, then the identity's columns solved in parallel.
    Tensor x = empty_strided(a.sizes(), a.strides(), a.options()).zero_();  // a's layout
    x.diagonal(0, -2, -1).fill_(1);
    visit_dtype<kLapackTypes>(A.scalar_type(), api, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* base = static_cast<T*>(a.data_ptr());
      T* xb = static_cast<T*>(x.data_ptr());
      std::vector<lint> ipiv(n);
      for (int64_t i = 0; i < B; ++i) {
        square_lu_factor<T>(base + i * n * n, n, ipiv.data(), &infos[i], true);
        if (infos[i] == 0) square_lu_solve<T>(base + i * n * n, n, ipiv.data(), xb + i * n * n, n, true);
      }
    });
    check_infos(infos, infos_out, api, A.dim() > 2, kSingularInverse);
    return x;
  }
  visit_dtype<kLapackTypes>(A.scalar_type(), api, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* base = static_cast<T*>(a.data_ptr());
    T wq;
    lint q = 0, nn = lint(n);
    lapack::getri<T>(nn, base, nn, nullptr, &wq, -1, &q);
    const lint lwork = std::max<lint>(1, lapack::work_size(wq));
    for_each_matrix(B, n * n * n, [&](int64_t i) {
      thread_local std::vector<lint> ipiv;  // per-thread scratch, reused across matrices
      thread_local std::vector<T> work;
      ipiv.resize(n), work.resize(lwork);
      T* m = base + i * n * n;
      lapack::getrf<T>(nn, nn, m, nn, ipiv.data(), &infos[i]);
      if (infos[i] == 0) lapack::getri<T>(nn, m, nn, ipiv.data(), work.data(), lwork, &infos[i]);
    });
  });
  check_infos(infos, infos_out, api, A.dim() > 2, kSingularInverse);
  return a;
}

// det or (sign, logabsdet) of every matrix from its LU factors.
template <class T>
void lu_det(const T* m, const lint* ipiv, int64_t n, T* det, T* sign, real_of<T>* logabs) {
  using R = real_of<T>;
  bool neg = false;
  for (int64_t i = 0; i < n; ++i) neg ^= ipiv[i] != lint(i + 1);
  if constexpr (is_complex_v<T>) {
    std::complex<R> d(neg ? -1 : 1), s(neg ? -1 : 1);
    R la = 0;
    for (int64_t i = 0; i < n; ++i) {
      std::complex<R> u(m[i * n + i].real(), m[i * n + i].imag());
      d *= u;
      const R au = std::abs(u);
      if (au == 0) s = 0, la = -std::numeric_limits<R>::infinity();
      else s *= u / au, la += std::log(au);
    }
    if (det) *det = T(d.real(), d.imag());
    if (sign) *sign = T(s.real(), s.imag());
    if (logabs) *logabs = la;
  } else {
    R d = neg ? -1 : 1, s = neg ? -1 : 1, la = 0;
    for (int64_t i = 0; i < n; ++i) {
      const R u = m[i * n + i];
      d *= u;
      if (u == 0) s = 0, la = -std::numeric_limits<R>::infinity();
      else s *= u < 0 ? -1 : 1, la += std::log(std::abs(u));
    }
    if (det) *det = d;
    if (sign) *sign = s;
    if (logabs) *logabs = la;
  }
}

// Cholesky factor of every matrix; zeroes the triangle LAPACK leaves untouched.
namespace {
// tril with the diagonal halved (the "phi" of the Cholesky derivative).
Tensor phi(const Tensor& X) {
  Tensor t = X.tril();
  return t.sub(t.diagonal(0, -2, -1).mul(0.5).diag_embed(0, -2, -1));
}
}  // namespace

Tensor cholesky_impl(const Tensor& A, bool upper, const char* api, std::vector<lint>* infos_out = nullptr) {
  EMBER_AUTOCAST(linalg_cholesky, cholesky_impl(_ac[0], upper, api, infos_out), &A);
  check_lapack_input(A, api, true);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) {
    // A = L L^H: dL = L phi(L^-1 dA L^-H); gA = sym(L^-H phi(L^H gL) L^-1).
    return autograd::differentiable(
        api, {&A}, [&] { return cholesky_impl(A, upper, api, infos_out); },
        [upper](const autograd::VjpCtx& c) {
          Tensor L = c.saved_tensor(0), gL = c.grad();
          if (upper) L = mH(L), gL = mH(gL);
          Tensor Linv = linalg::inv(L);
          Tensor gA = ember::matmul(ember::matmul(mH(Linv), phi(ember::matmul(mH(L), gL))), Linv);
          return autograd::variable_list{gA.add(mH(gA)).mul(0.5)};
        },
        [&](const auto& t, const Tensor& R) {
          Tensor L = upper ? mH(R) : R;
          Tensor Linv = linalg::inv(L);
          Tensor dL = ember::matmul(L, phi(ember::matmul(ember::matmul(Linv, t(0)), mH(Linv))));
          return upper ? mH(dL) : dL;
        },
        {}, /*save_result=*/true);
  }
  Tensor a = colmajor_copy(A);
  const int64_t n = A.size(-1), B = batch_count(A);
  if (a.numel() == 0) return a;
  if (on_device_lapack(A)) {
    Tensor infos = zeros(batch_shape(a), a.options().dtype(kInt));
    device_lapack(A, api).potrf(a, upper, infos);
    check_infos(host_infos(infos), infos_out, api, A.dim() > 2, kNotPositiveDefinite);
    return upper ? a.triu() : a.tril();
  }
  std::vector<lint> infos(B, 0);
  visit_dtype<kLapackTypes>(A.scalar_type(), api, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* base = static_cast<T*>(a.data_ptr());
    for_each_matrix(B, n * n * n, [&](int64_t i) {
      T* m = base + i * n * n;
      lapack::potrf<T>(upper ? 'U' : 'L', lint(n), m, lint(n), &infos[i]);
      for (int64_t j = 0; j < n; ++j)      // column j (column-major)
        for (int64_t r = 0; r < n; ++r)    // row r
          if (upper ? r > j : r < j) m[j * n + r] = T(0);
    });
  });
  check_infos(infos, infos_out, api, A.dim() > 2, kNotPositiveDefinite);
  return a;
}

}  // namespace

// ---- inverse ----------------------------------------------------------------------------
Tensor inverse(const Tensor& self) { return inv_impl(self, "linalg.inv"); }
namespace linalg {
Tensor inv(const Tensor& A) { return inv_impl(A, "linalg.inv"); }
}  // namespace linalg

// ---- solve ------------------------------------------------------------------------------
namespace {
// B is a (batch of) vector(s) when 1-D, or when its shape is A's without the last dim.
bool solve_vector_case(const Tensor& A, const Tensor& B) {
  return B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes() == A.sizes().slice(0, A.dim() - 1));
}

// linalg.solve; `infos_out` as inv_impl's (one info per matrix of the broadcast batch).
Tensor solve_impl(const Tensor& A, const Tensor& B, bool left, std::vector<lint>* infos_out,
                  const char* api = "torch.linalg.solve") {
  EMBER_AUTOCAST(linalg_solve, solve_impl(_ac[0], _ac[1], left, infos_out, api), &A, &B);
  check_lapack_input(A, "linalg.solve", true);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A, B))) {
    // X = A^-1 B (left) or B A^-1: gB = solve(A^H, g), gA = -gB X^H (left) or -X^H gB.
    return autograd::differentiable(
        "linalg_solve", {&A, &B}, [&] { return solve_impl(A, B, left, infos_out, api); },
        [left](const autograd::VjpCtx& c) {
          Tensor a = c.saved_tensor(0), x = c.saved_tensor(1);
          const bool vec = x.dim() == a.dim() - 1;
          Tensor gB = linalg::solve(a.transpose(-2, -1).conj(), c.grad(), left);
          Tensor gA;
          if (c.needs_input_grad(0)) {
            Tensor g2 = vec ? gB.unsqueeze(-1) : gB, x2 = vec ? x.unsqueeze(-1) : x;
            gA = left ? ember::matmul(g2, x2.transpose(-2, -1).conj()).neg()
                      : ember::matmul(x2.transpose(-2, -1).conj(), g2).neg();
          }
          return autograd::variable_list{gA, c.needs_input_grad(1) ? gB : Tensor()};
        },
        [&](const auto& t, const Tensor& x) {
          const bool vec = x.dim() == A.dim() - 1;
          Tensor rhs = autograd::tangent_or_zeros(t(1), B);
          if (t(0).defined()) {
            Tensor x2 = vec ? x.unsqueeze(-1) : x;
            Tensor p = left ? ember::matmul(t(0), x2) : ember::matmul(x2, t(0));
            rhs = rhs.sub(vec ? p.squeeze(-1) : p);
          }
          return linalg::solve(A, rhs, left);
        },
        {{A}}, /*save_result=*/true);
  }
  EMBER_CHECK(B.defined() && B.dim() >= 1, "linalg.solve: The input tensor B must have at least 1 dimension.");
  EMBER_CHECK(A.scalar_type() == B.scalar_type(), "linalg.solve: Expected A and B to have the same dtype, but found A "
              "of type ", A.scalar_type(), " and B of type ", B.scalar_type(), " instead");
  EMBER_CHECK(A.device() == B.device(), "linalg.solve: Expected A and B to be on the same device, but found A on ",
              A.device(), " and B on ", B.device(), " instead");
  const int64_t n = A.size(-1);
  // B is a (batch of) vector(s) when 1-D, or when its shape is A's without the last dim.
  const bool vector_case = solve_vector_case(A, B);
  const int64_t brows = vector_case ? (left ? B.size(-1) : 1) : B.size(-2);
  const int64_t bcols = vector_case ? (left ? 1 : B.size(-1)) : B.size(-1);
  EMBER_CHECK(left ? brows == n : bcols == n, "linalg.solve: Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", n, "x", n, " and ", brows, "x", bcols, ")");
  if (!left) {
    // XA = B  <=>  A^T X^T = B^T.
    if (vector_case) return solve_impl(A.transpose(-2, -1), B, true, infos_out, api);
    return solve_impl(A.transpose(-2, -1), B.transpose(-2, -1), true, infos_out, api).transpose(-2, -1);
  }
  const Tensor Bm = vector_case ? B.unsqueeze(-1) : B;
  const int64_t k = Bm.size(-1);
  std::vector<int64_t> batch =
      broadcast_shapes(A.sizes().slice(0, A.dim() - 2), Bm.sizes().slice(0, Bm.dim() - 2));
  std::vector<int64_t> a_shape = batch, b_shape = batch;
  a_shape.insert(a_shape.end(), {n, n});
  b_shape.insert(b_shape.end(), {n, k});
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  const bool batched = A.dim() > 2;
  const bool single_a = batch_count(A) == 1;
  Tensor x;
  if (single_a) {
    // One factorisation; every right-hand side of every batch solved in one getrs call.
    Tensor a = colmajor_copy(A.reshape({n, n}));
    Tensor rhs = colmajor_copy(Bm.expand(b_shape).reshape({nb, n, k}).permute({1, 0, 2}).reshape({n, nb * k}));
    std::vector<lint> infos(1, 0);
    if (n > 0 && nb * k > 0 && on_device_lapack(A)) {
      const DeviceLu f = device_lu(a, api);
      device_lapack(A, api).getrs(a, f.pivots, rhs, 'N');
      infos = host_infos(f.infos);
    } else if (n > 0 && nb * k > 0) {
      visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.solve", [&](auto tag) {
        using T = typename decltype(tag)::type;
        blas::sync_threads();
        std::vector<lint> ipiv(n);
        EMBER_CHECK(nb * k <= INT_MAX, "linalg.solve: too many right-hand sides (", nb * k, ")");
        const bool par = use_parallel_lu(n, 1);
        T* lu = static_cast<T*>(a.data_ptr());
        square_lu_factor<T>(lu, n, ipiv.data(), &infos[0], par);
        if (infos[0] == 0) square_lu_solve<T>(lu, n, ipiv.data(), static_cast<T*>(rhs.data_ptr()), nb * k, get_num_threads() > 1);
      });
    }
    check_infos(std::vector<lint>(size_t(nb), infos[0]), infos_out, api, batched, kSingularSolve);
    x = rhs.reshape({n, nb, k}).permute({1, 0, 2}).reshape(b_shape);
  } else {
    Tensor a = colmajor_copy(A.expand(a_shape));
    Tensor rhs = colmajor_copy(Bm.expand(b_shape));
    std::vector<lint> infos(nb, 0);
    if (n > 0 && k > 0 && nb > 0 && on_device_lapack(A)) {
      const DeviceLu f = device_lu(a, api);
      device_lapack(A, api).getrs(a, f.pivots, rhs, 'N');
      infos = host_infos(f.infos);
    } else if (n > 0 && k > 0) {
      visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.solve", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* ab = static_cast<T*>(a.data_ptr());
        T* bb = static_cast<T*>(rhs.data_ptr());
        const bool par = use_parallel_lu(n, nb);
        auto one = [&](int64_t i) {
          thread_local std::vector<lint> ipiv;
          ipiv.resize(n);
          square_lu_factor<T>(ab + i * n * n, n, ipiv.data(), &infos[i], par);
          if (infos[i] == 0) square_lu_solve<T>(ab + i * n * n, n, ipiv.data(), bb + i * n * k, k, par);
        };
        if (par) {
          for (int64_t i = 0; i < nb; ++i) one(i);
        } else {
          for_each_matrix(nb, n, one);
        }
      });
    }
    check_infos(infos, infos_out, api, batched, kSingularSolve);
    x = rhs;
  }
  return vector_case ? x.squeeze(-1) : x;
}

// The info tensor of an _ex function: `infos` (zeros when nothing was factorised) in `batch`.
// On `device`, as PyTorch's.
Tensor info_tensor(const std::vector<lint>& infos, IntArrayRef batch, Device device) {
  Tensor info = zeros(batch, TensorOptions().dtype(kInt));
  EMBER_CHECK(infos.empty() || int64_t(infos.size()) == info.numel(), "linalg: internal error: ", infos.size(),
              " infos for a batch of ", info.numel());
  std::copy(infos.begin(), infos.end(), info.data_ptr<int32_t>());
  return info.to(device);
}
IntArrayRef batch_of(const Tensor& t) { return t.sizes().slice(0, size_t(t.dim() - 2)); }
}  // namespace

namespace linalg {
Tensor solve(const Tensor& A, const Tensor& B, bool left) { return solve_impl(A, B, left, nullptr); }

// The _ex forms report LAPACK's info per matrix (0: success; i > 0: the failing pivot or
// minor) instead of raising, unless check_errors is set.
std::tuple<Tensor, Tensor> solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  std::vector<lint> infos;
  Tensor X = solve_impl(A, B, left, check_errors ? nullptr : &infos, "torch.linalg.solve_ex");
  if (infos.empty()) return {X, info_tensor(infos, batch_of(A), A.device())};
  // One info per matrix of the broadcast batch; PyTorch reports A's own batch, whose broadcast
  // copies share an info.
  const Tensor Bm = solve_vector_case(A, B) ? B.unsqueeze(-1) : B;
  Tensor info = info_tensor(infos, broadcast_shapes(batch_of(A), batch_of(Bm)), kCPU);
  while (info.dim() > A.dim() - 2) info = info.select(0, 0);
  for (int64_t d = 0; d < info.dim(); ++d)
    if (A.size(d) == 1) info = info.narrow(d, 0, 1);
  return {X, info.contiguous().to(A.device())};
}
std::tuple<Tensor, Tensor> inv_ex(const Tensor& A, bool check_errors) {
  std::vector<lint> infos;
  Tensor X = inv_impl(A, "linalg.inv_ex", check_errors ? nullptr : &infos);
  return {X, info_tensor(infos, batch_of(A), A.device())};
}
std::tuple<Tensor, Tensor> cholesky_ex(const Tensor& A, bool upper, bool check_errors) {
  std::vector<lint> infos;
  Tensor L = cholesky_impl(A, upper, "linalg.cholesky_ex", check_errors ? nullptr : &infos);
  return {L, info_tensor(infos, batch_of(A), A.device())};
}
}  // namespace linalg

// ---- det, slogdet ---------------------------------------------------------------------------
namespace linalg {
Tensor det(const Tensor& A) {
  check_lapack_input(A, "linalg.det", true);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) {
    // d det = det tr(A^-1 dA) (A must be invertible for the derivative)
    return autograd::differentiable(
        "linalg_det", {&A}, [&] { return linalg::det(A); },
        [](const autograd::VjpCtx& c) {
          Tensor a = c.saved_tensor(0), d = c.saved_tensor(1);
          Tensor scale = c.grad().mul(d.conj()).unsqueeze(-1).unsqueeze(-1);
          return autograd::variable_list{scale.mul(inv(a).transpose(-2, -1).conj())};
        },
        [&](const auto& t, const Tensor& d) {
          return d.mul(inv(A).transpose(-2, -1).mul(t(0)).sum(IntArrayRef{-2, -1}));
        },
        {{A}}, /*save_result=*/true);
  }
  const int64_t n = A.size(-1), B = batch_count(A);
  if (on_device_lapack(A)) {
    if (n == 0) return ones(batch_shape(A), A.options());
    Tensor a = colmajor_copy(A);
    const DeviceLu f = device_lu(a, "linalg.det");
    return a.diagonal(0, -2, -1).prod(-1).mul(pivot_sign(f.pivots, A.scalar_type()));
  }
  Tensor a = colmajor_copy(A);
  Tensor out = empty(batch_shape(A), A.options());
  std::vector<lint> pivots, infos;
  visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.det", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (n > 0) lu_batch<T>(a, pivots, infos);
    const T* base = n > 0 ? static_cast<const T*>(a.data_ptr()) : nullptr;
    T* o = static_cast<T*>(out.data_ptr());
    for (int64_t i = 0; i < B; ++i) {
      if (n == 0) o[i] = T(1);
      else lu_det<T>(base + i * n * n, pivots.data() + i * n, n, o + i, nullptr, nullptr);
    }
  });
  return out;
}

std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  check_lapack_input(A, "linalg.slogdet", true);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) {
    // With tau = tr(A^-1 dA): d logabsdet = Re tau, d sign = sign * i Im tau (the sign of
    // a real matrix is piecewise constant). gA = w A^-H, w = g_logabs + i Im(conj(sign) g_sign).
    autograd::Recording rec({&A});
    std::tuple<Tensor, Tensor> r;
    {
      autograd::BelowAutogradGuard below;
      r = slogdet(A);
    }
    Tensor& sign = std::get<0>(r);
    Tensor& logabs = std::get<1>(r);
    const bool cplx = A.is_complex();
    if (rec.forward()) {
      auto tau = [&](const std::function<Tensor(size_t)>& t) {
        return inv(A).transpose(-2, -1).mul(t(0)).sum(IntArrayRef{-2, -1});
      };
      rec.forward_each(logabs, [&](const std::function<Tensor(size_t)>& t) { return real(tau(t)); });
      if (cplx)
        rec.forward_each(sign, [&](const std::function<Tensor(size_t)>& t) {
          return sign.mul(imag(tau(t)).to(sign.scalar_type())).mul(Scalar(Complex<double>(0, 1)));
        });
    }
    if (rec.reverse()) {
      std::vector<Tensor> outs{logabs};
      if (cplx) outs.push_back(sign);
      rec.record("linalg_slogdet", outs, [cplx](const autograd::VjpCtx& c) {
        Tensor a = c.saved_tensor(0);
        Tensor w = c.grads[0].defined() ? c.grad(0).to(a.scalar_type()) : Tensor();
        if (cplx && c.grads.size() > 1 && c.grads[1].defined()) {
          Tensor s = c.saved_tensor(1);
          Tensor extra = imag(s.conj().mul(c.grad(1))).to(a.scalar_type()).mul(Scalar(Complex<double>(0, 1)));
          w = w.defined() ? w.add(extra) : extra;
        }
        if (!w.defined()) return autograd::variable_list{Tensor()};
        return autograd::variable_list{w.unsqueeze(-1).unsqueeze(-1).mul(inv(a).transpose(-2, -1).conj())};
      }, cplx ? std::vector<autograd::ToSave>{{A}, {sign, true}} : std::vector<autograd::ToSave>{{A}});
    }
    return r;
  }
  const int64_t n = A.size(-1), B = batch_count(A);
  if (on_device_lapack(A)) {
    const ScalarType real_type = toRealValueType(A.scalar_type());
    if (n == 0) return {ones(batch_shape(A), A.options()), zeros(batch_shape(A), A.options().dtype(real_type))};
    Tensor a = colmajor_copy(A);
    const DeviceLu f = device_lu(a, "linalg.slogdet");
    const Tensor d = a.diagonal(0, -2, -1), absd = d.abs();
    // The phase of each pivot (0 for a zero pivot, which makes the sign 0 and logabsdet -inf).
    const Tensor unit = where(absd.eq(0), zeros_like(d), d.div(absd));
    return {unit.prod(-1).mul(pivot_sign(f.pivots, A.scalar_type())), absd.log().sum(-1)};
  }
  Tensor a = colmajor_copy(A);
  Tensor sign = empty(batch_shape(A), A.options());
  Tensor logabs = empty(batch_shape(A), A.options().dtype(toRealValueType(A.scalar_type())));
  std::vector<lint> pivots, infos;
  visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.slogdet", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (n > 0) lu_batch<T>(a, pivots, infos);
    const T* base = n > 0 ? static_cast<const T*>(a.data_ptr()) : nullptr;
    T* s = static_cast<T*>(sign.data_ptr());
    auto* l = static_cast<real_of<T>*>(logabs.data_ptr());
    for (int64_t i = 0; i < B; ++i) {
      if (n == 0) s[i] = T(1), l[i] = 0;
      else lu_det<T>(base + i * n * n, pivots.data() + i * n, n, nullptr, s + i, l + i);
    }
  });
  return {sign, logabs};
}
}  // namespace linalg
Tensor det(const Tensor& self) { return linalg::det(self); }

// ---- cholesky -----------------------------------------------------------------------------
namespace linalg {
Tensor cholesky(const Tensor& A, bool upper) { return cholesky_impl(A, upper, "linalg.cholesky"); }
}  // namespace linalg
Tensor cholesky(const Tensor& self, bool upper) { return cholesky_impl(self, upper, "cholesky"); }

// ---- Tensor methods ----------------------------------------------------------------------
Tensor Tensor::inverse() const { return ember::inverse(*this); }
Tensor Tensor::det() const { return ember::det(*this); }
Tensor Tensor::cholesky(bool upper) const { return ember::cholesky(*this, upper); }

}  // namespace ember
