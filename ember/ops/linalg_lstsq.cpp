// linalg::lstsq through LAPACK's least-squares drivers (gels, gelsy — the default —, gelsd,
// gelss), with PyTorch 1.13's outputs: the solution, the squared residuals (when m > n, every
// matrix has full rank and the driver is not gelsy), the rank (not for gels) and the singular
// values (gelsd, gelss). Batches broadcast; B may be a batch of vectors (B.dim() ==
// A.dim() - 1). The solution is differentiable in A and B: a differentiable call computes it as
// pinv(A) B with the driver's cut-off (the minimum-norm solution every driver returns), whose
// derivatives are PyTorch's; the other outputs are not differentiable, as in PyTorch.
#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/lapack.h"
#include "ember/ops/linalg_device.h"
#include "ember/ops/linalg_utils.h"

namespace ember {

using namespace linalg_detail;
using lapack::lint;
using lapack::real_of;

namespace {

enum class Driver { gels, gelsy, gelsd, gelss };

Driver parse_driver(std::optional<std::string_view> driver) {
  const std::string_view d = driver.value_or("gelsy");
  if (d == "gels") return Driver::gels;
  if (d == "gelsy") return Driver::gelsy;
  if (d == "gelsd") return Driver::gelsd;
  EMBER_CHECK(d == "gelss", "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), got '", d, "'");
  return Driver::gelss;
}


// One call per matrix on column-major a (m x n, ld m) and b (ld x nrhs, ld = max(m, n, 1)).
template <class T>
void solve_batch(Driver driver, int64_t nb, int64_t m, int64_t n, int64_t nrhs, T* a, T* b, real_of<T>* sv,
                 real_of<T> rcond, int64_t* ranks) {
  using R = real_of<T>;
  const int64_t ld = std::max<int64_t>({m, n, 1}), k = std::min(m, n);
  const lint M = lint(m), N = lint(n), K = lint(nrhs), LDA = lint(std::max<int64_t>(m, 1)), LDB = lint(ld);
  // Workspace sizes from the routine's own query on the first matrix (all share the shape).
  T wq{};
  R rq{};
  lint iq = 0, info = 0, rank = 0;
  std::vector<lint> jq(size_t(std::max<int64_t>(n, 1)), 0);
  std::vector<R> sq(size_t(std::max<int64_t>(k, 1)));
  switch (driver) {
    case Driver::gels: lapack::gels<T>('N', M, N, K, a, LDA, b, LDB, &wq, -1, &info); break;
    case Driver::gelsy: lapack::gelsy<T>(M, N, K, a, LDA, b, LDB, jq.data(), rcond, &rank, &wq, -1, &rq, &info); break;
    case Driver::gelsd:
      lapack::gelsd<T>(M, N, K, a, LDA, b, LDB, sq.data(), rcond, &rank, &wq, -1, &rq, &iq, &info);
      break;
    case Driver::gelss: lapack::gelss<T>(M, N, K, a, LDA, b, LDB, sq.data(), rcond, &rank, &wq, -1, &rq, &info); break;
  }
  const lint lwork = std::max<lint>(1, lapack::work_size(wq));
  // Real workspace of the complex routines: gelsy 2n, gelss 5 min(m, n), gelsd as queried.
  const int64_t lrwork = driver == Driver::gelsd ? std::max<int64_t>(int64_t(rq), 1)
                                                 : std::max<int64_t>({2 * n, 5 * k, 1});
  const int64_t liwork = std::max<int64_t>(iq, 1);
  for_each_matrix(nb, m * n * std::max<int64_t>(k, 1), [&](int64_t i) {
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<R> rwork(static_cast<size_t>(lrwork));
    std::vector<lint> iwork(static_cast<size_t>(liwork)), jpvt(size_t(std::max<int64_t>(n, 1)), 0);
    std::vector<R> s(size_t(std::max<int64_t>(k, 1)));
    T* ai = a + i * m * n;
    T* bi = b + i * ld * nrhs;
    lint r = lint(k), inf = 0;
    switch (driver) {
      case Driver::gels: lapack::gels<T>('N', M, N, K, ai, LDA, bi, LDB, work.data(), lwork, &inf); break;
      case Driver::gelsy:
        lapack::gelsy<T>(M, N, K, ai, LDA, bi, LDB, jpvt.data(), rcond, &r, work.data(), lwork, rwork.data(), &inf);
        break;
      case Driver::gelsd:
        lapack::gelsd<T>(M, N, K, ai, LDA, bi, LDB, s.data(), rcond, &r, work.data(), lwork, rwork.data(),
                         iwork.data(), &inf);
        break;
      case Driver::gelss:
        lapack::gelss<T>(M, N, K, ai, LDA, bi, LDB, s.data(), rcond, &r, work.data(), lwork, rwork.data(), &inf);
        break;
    }
    // gels reports a rank-deficient triangular factor as info > 0; the SVD drivers report a
    // failed convergence the same way. Both leave b unusable.
    EMBER_CHECK(inf == 0, "torch.linalg.lstsq: ", driver == Driver::gels
                              ? "The least squares solution could not be computed because the input matrix does not "
                                "have full rank (error code: "
                              : "The algorithm failed to converge (error code: ",
                inf, ")");
    ranks[i] = r;
    if (sv) std::copy(s.begin(), s.begin() + k, sv + i * k);
  });
}

}  // namespace

namespace linalg {

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                 std::optional<std::string_view> driver) {
  check_defined(A, "torch.linalg.lstsq", "input");
  check_defined(B, "torch.linalg.lstsq", "other");
  EMBER_AUTOCAST(linalg_lstsq, lstsq(_ac[0], _ac[1], rcond, driver), &A, &B);
  EMBER_CHECK(A.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  EMBER_CHECK(B.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.");
  EMBER_CHECK(A.scalar_type() == B.scalar_type(), "torch.linalg.lstsq: Expected input and other to have the same "
              "dtype, but got input's dtype ", A.scalar_type(), " and other's dtype ", B.scalar_type());
  const bool vector_case = B.dim() == A.dim() - 1;
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  if (vector_case)
    EMBER_CHECK(B.size(-1) == m, "torch.linalg.lstsq: input.size(-2) should match other.size(-1)");
  else
    EMBER_CHECK(B.size(-2) == m, "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  check_lapack_input(A, "torch.linalg.lstsq", false);
  EMBER_CHECK(A.device() == B.device(), "torch.linalg.lstsq: Expected input and other to be on the same device, but "
              "found input on ", A.device(), " and other on ", B.device(), " instead");
  const Driver drv = parse_driver(driver);
  const ScalarType real = toRealValueType(A.scalar_type());
  const double eps = real == kDouble ? std::numeric_limits<double>::epsilon()
                                     : double(std::numeric_limits<float>::epsilon());
  const double cut = rcond.value_or(eps * double(std::max(m, n)));

  const Tensor Bm = vector_case ? B.unsqueeze(-1) : B;
  const int64_t nrhs = Bm.size(-1), ld = std::max<int64_t>({m, n, 1});
  std::vector<int64_t> batch = broadcast_shapes(A.sizes().slice(0, size_t(A.dim() - 2)),
                                                Bm.sizes().slice(0, size_t(Bm.dim() - 2)));
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;

  if (on_device_lapack(A)) {
    // PyTorch's only driver on CUDA, 'gels' (full rank assumed), as QR on the device: A = Q R
    // gives x = R^-1 Q^H B when m >= n, and the minimum-norm x = Q' R'^-H B from A^H = Q' R'
    // when m < n. Differentiable through qr and solve_triangular.
    EMBER_CHECK(!driver || *driver == "gels", "torch.linalg.lstsq: `driver` other than `gels` is not supported on ",
                A.device().type());
    const Tensor Ab = A.expand(with(batch, {m, n})), Bb = Bm.expand(with(batch, {m, nrhs}));
    Tensor x;
    if (m >= n) {
      auto [Q, R] = linalg::qr(Ab);
      x = linalg::solve_triangular(R, ember::matmul(mH(Q), Bb), /*upper=*/true);
    } else {
      auto [Q, R] = linalg::qr(mH(Ab));
      x = ember::matmul(Q, linalg::solve_triangular(mH(R), Bb, /*upper=*/false));
    }
    const TensorOptions real_opts = A.options().dtype(real);
    Tensor residuals = m > n ? ember::matmul(Ab, x).sub(Bb).abs().pow(2).sum(-2) : empty({0}, real_opts);
    return {vector_case ? x.squeeze(-1) : x, residuals, empty({0}, A.options().dtype(kLong)), empty({0}, real_opts)};
  }

  Tensor a = colmajor_copy(A.detach().expand(with(batch, {m, n})));
  // b: per matrix ld x nrhs column-major (ld >= n rows hold the solution on return).
  Tensor b = zeros(with(batch, {nrhs, ld}), A.options());
  b.narrow(-1, 0, m).copy_(Bm.detach().expand(with(batch, {m, nrhs})).transpose(-2, -1));
  const bool want_sv = drv == Driver::gelsd || drv == Driver::gelss;
  Tensor sv = want_sv ? zeros(with(batch, {k}), TensorOptions().dtype(real)) : empty({0}, TensorOptions().dtype(real));
  Tensor rank = zeros(batch, TensorOptions().dtype(kLong));
  if (m > 0 && n > 0 && nrhs > 0 && nb > 0) {
    visit_dtype<kLapackTypes>(A.scalar_type(), "torch.linalg.lstsq", [&](auto tag) {
      using T = typename decltype(tag)::type;
      solve_batch<T>(drv, nb, m, n, nrhs, static_cast<T*>(a.data_ptr()), static_cast<T*>(b.data_ptr()),
                     want_sv ? static_cast<real_of<T>*>(sv.data_ptr()) : nullptr, real_of<T>(cut),
                     rank.data_ptr<int64_t>());
    });
  } else if (m > 0 && n > 0 && nb > 0) {
    // No right-hand sides: the rank is still the matrices'.
    rank.copy_(linalg::matrix_rank(A.detach().expand(with(batch, {m, n})), std::optional<double>(0.0),
                                   std::optional<double>(cut)));
    if (want_sv) sv.copy_(linalg::svdvals(A.detach().expand(with(batch, {m, n}))));
  }
  Tensor solution = b.narrow(-1, 0, n).transpose(-2, -1);
  bool full_rank = true;
  if (drv != Driver::gels) {
    const int64_t* r = rank.data_ptr<int64_t>();
    for (int64_t i = 0; i < rank.numel(); ++i) full_rank = full_rank && r[i] == n;
  }
  Tensor residuals = empty({0}, TensorOptions().dtype(real));
  if (m > n && drv != Driver::gelsy && full_rank) residuals = b.narrow(-1, n, m - n).abs().pow(2).sum(-1);
  if (drv == Driver::gels) rank = empty({0}, TensorOptions().dtype(kLong));

  if (autograd::maybe_differentiable(A, B)) {
    // The minimum-norm solution, differentiably (pinv's cut-off is relative, as rcond).
    solution = ember::matmul(linalg::pinv(A, std::optional<double>(0.0), std::optional<double>(cut)), Bm);
  } else {
    solution = solution.contiguous();
  }
  if (vector_case) solution = solution.squeeze(-1);
  return {solution, residuals, rank, sv};
}

}  // namespace linalg

}  // namespace ember
