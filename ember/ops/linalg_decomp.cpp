// Orthogonal decompositions through LAPACK (float, double, complex64, complex128):
// linalg::qr (geqrf + orgqr/ungqr; modes reduced, complete, r), linalg::svd and svdvals
// (gesdd), linalg::eigh and eigvalsh (syevd/heevd). Batches loop over matrices on ember's
// threads; results keep the input's dtype (singular and eigen-values its real dtype).
#include <algorithm>
#include <cctype>
#include <string_view>
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

using namespace linalg_detail;
using lapack::lint;
using lapack::real_of;

namespace {

std::vector<int64_t> with_batch(const Tensor& A, std::initializer_list<int64_t> tail) {
  std::vector<int64_t> s(A.sizes().begin(), A.sizes().end() - 2);
  s.insert(s.end(), tail);
  return s;
}

// A batch of column-major (rows x cols) matrices, viewed with their logical (rows, cols) shape.
Tensor colmajor_empty(const Tensor& A, int64_t rows, int64_t cols, ScalarType dt) {
  return empty(with_batch(A, {cols, rows}), A.options().dtype(dt)).transpose(-2, -1);
}

// Identity matrices (rows x cols) for every batch element, for the empty-input cases.
Tensor batched_eye(const Tensor& A, int64_t rows, int64_t cols) {
  Tensor r = zeros(with_batch(A, {rows, cols}), A.options());
  const int64_t d = std::min(rows, cols);
  if (d > 0) r.diagonal(0, -2, -1).fill_(1);
  return r;
}

}  // namespace

// ---- QR ---------------------------------------------------------------------------------
namespace linalg {
std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode) {
  EMBER_AUTOCAST(linalg_qr, linalg::qr(_ac[0], mode), &A);
  EMBER_CHECK(mode == "reduced" || mode == "complete" || mode == "r", "qr received unrecognized mode '", mode,
              "' but expected one of 'reduced' (default), 'r', or 'complete'");
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) {
    // A = Q R (m >= n, reduced; R invertible). With C = Q^H dA R^-1 and
    // Om = L - L^H + i Im diag(C) (L = strictly lower part of C): dR = (C - Om) R,
    // dQ = dA R^-1 - Q (C - Om). The vjp is its adjoint:
    // gA = (gQ + Q P*(M)) R^-H, M = gR R^H - Q^H gQ, P*(M) = M - tril(M - M^H, -1) - i Im diag(M).
    check_lapack_input(A, "linalg.qr", false);
    const int64_t m = A.size(-2), n = A.size(-1);
    EMBER_CHECK(mode != "complete" || m <= n, "The QR decomposition is not differentiable when mode='complete' and "
                "nrows > ncols.");
    if (m < n) {
      // Wide: A = [X Y] with X square gives Q, R1 = qr(X) and R = [R1, Q^H Y] (the same
      // values LAPACK computes), differentiable through the square case.
      auto [Q, R1] = linalg::qr(A.narrow(-1, 0, m), "reduced");
      Tensor R2 = ember::matmul(Q.transpose(-2, -1).conj(), A.narrow(-1, m, n - m));
      Tensor R = cat({R1, R2}, -1);
      if (mode == "r") return {empty({0}, A.options()), R};
      return {Q, R};
    }
    autograd::Recording rec({&A});
    Tensor Q, R;
    {
      autograd::BelowAutogradGuard below;
      std::tie(Q, R) = linalg::qr(A, "reduced");
    }
    auto mH = [](const Tensor& X) { return X.transpose(-2, -1).conj(); };
    auto im_diag = [](const Tensor& X) {  // i Im(diag X) as a diagonal matrix (zero for real X)
      if (!X.is_complex()) return zeros_like(X);
      return imag(X.diagonal(0, -2, -1)).to(X.scalar_type()).mul(Scalar(Complex<double>(0, 1))).diag_embed(0, -2, -1);
    };
    if (rec.forward()) {
      auto C_of = [&](const Tensor& dA) { return ember::matmul(ember::matmul(mH(Q), dA), linalg::inv(R)); };
      auto Om_of = [&](const Tensor& C) {
        Tensor L = C.tril(-1);
        return L.sub(mH(L)).add(im_diag(C));
      };
      rec.forward_each(R, [&](const std::function<Tensor(size_t)>& t) {
        Tensor C = C_of(t(0));
        return ember::matmul(C.sub(Om_of(C)), R);
      });
      rec.forward_each(Q, [&](const std::function<Tensor(size_t)>& t) {
        Tensor C = C_of(t(0));
        return ember::matmul(t(0), linalg::inv(R)).sub(ember::matmul(Q, C.sub(Om_of(C))));
      });
    }
    if (rec.reverse()) {
      rec.record("linalg_qr", std::vector<Tensor>{Q, R}, [mH, im_diag](const autograd::VjpCtx& c) {
        Tensor q = c.saved_tensor(0), r = c.saved_tensor(1);
        Tensor M = zeros_like(r);
        if (c.grads[1].defined()) M = M.add(ember::matmul(c.grad(1), mH(r)));
        if (c.grads[0].defined()) M = M.sub(ember::matmul(mH(q), c.grad(0)));
        Tensor P = M.sub(M.sub(mH(M)).tril(-1)).sub(im_diag(M));
        Tensor inner = ember::matmul(q, P);
        if (c.grads[0].defined()) inner = inner.add(c.grad(0));
        return autograd::variable_list{ember::matmul(inner, mH(linalg::inv(r)))};
      }, {{Q, true}, {R, true}});
    }
    if (mode == "r") return {empty({0}, A.options()), R};
    return {Q, R};
  }
  check_lapack_input(A, "linalg.qr", false);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), B = batch_count(A);
  const bool complete = mode == "complete", want_q = mode != "r";
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k, ncols = std::max(n, qcols);
  if (on_device_lapack(A)) {
    // geqrf on a copy of A, R from its upper triangle, then Q from the reflectors.
    const Tensor no_q = empty({0}, A.options());
    if (m == 0 || B == 0)
      return {want_q ? colmajor_empty(A, m, qcols, A.scalar_type()) : no_q, empty(with_batch(A, {rrows, n}), A.options())};
    if (k == 0) return {want_q ? batched_eye(A, m, qcols) : no_q, zeros(with_batch(A, {rrows, n}), A.options())};
    const DeviceLapack& dl = device_lapack(A, "linalg.qr");
    Tensor a = colmajor_copy(A);
    Tensor tau = empty(with_batch(A, {k}), A.options());
    dl.geqrf(a, tau);
    Tensor R = a.narrow(-2, 0, rrows).triu().contiguous();
    if (!want_q) return {empty({0}, A.options()), R};
    Tensor Q = colmajor_empty(A, m, qcols, A.scalar_type());
    Q.narrow(-1, 0, std::min(n, qcols)).copy_(a.narrow(-1, 0, std::min(n, qcols)));
    dl.orgqr(Q, tau);
    return {Q, R};
  }
  // One column-major (m x ncols) buffer per matrix: A in its first n columns, then Q.
  Tensor buf = colmajor_empty(A, m, ncols, A.scalar_type());
  buf.narrow(-1, 0, n).copy_(A);
  Tensor R = empty(with_batch(A, {rrows, n}), A.options());
  const lint ld = lint(std::max<int64_t>(m, 1));
  if (m > 0) {
    visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.qr", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* base = static_cast<T*>(buf.data_ptr());
      T* rbase = static_cast<T*>(R.data_ptr());
      T wq1 = T(0), wq2 = T(0);
      lint info = 0;
      lapack::geqrf<T>(lint(m), lint(n), base, ld, nullptr, &wq1, -1, &info);
      if (want_q) lapack::orgqr<T>(lint(m), lint(qcols), lint(k), base, ld, nullptr, &wq2, -1, &info);
      const lint lwork = std::max<lint>({1, lapack::work_size(wq1), lapack::work_size(wq2)});
      for_each_matrix(B, m * n * std::max<int64_t>(k, 1), [&](int64_t i) {
        T* a = base + i * m * ncols;
        std::vector<T> tau(std::max<int64_t>(k, 1)), work(lwork);
        lint inf = 0;
        if (k > 0) lapack::geqrf<T>(lint(m), lint(n), a, ld, tau.data(), work.data(), lwork, &inf);
        EMBER_INTERNAL_ASSERT(inf == 0, "geqrf info ", inf);
        T* r = rbase + i * rrows * n;  // row-major R: the upper triangle of the factored A
        for (int64_t row = 0; row < rrows; ++row)
          for (int64_t col = 0; col < n; ++col) r[row * n + col] = row <= col ? a[col * m + row] : T(0);
        if (want_q) {
          lapack::orgqr<T>(lint(m), lint(qcols), lint(k), a, ld, tau.data(), work.data(), lwork, &inf);
          EMBER_INTERNAL_ASSERT(inf == 0, "orgqr info ", inf);
        }
      });
    });
  }
  Tensor Q = want_q ? buf.narrow(-1, 0, qcols) : empty({0}, A.options());
  return {Q, R};
}
}  // namespace linalg

// ---- SVD --------------------------------------------------------------------------------
namespace {

// gesdd on every matrix: S always, U and Vh when jobz is 'A' or 'S'.
void svd_impl(const Tensor& A, char jobz, Tensor& U, Tensor& S, Tensor& Vh) {
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n), B = batch_count(A);
  const ScalarType rt = toRealValueType(A.scalar_type());
  const int64_t ucols = jobz == 'A' ? m : k, vrows = jobz == 'A' ? n : k;
  std::vector<int64_t> sshape(A.sizes().begin(), A.sizes().end() - 2);
  sshape.push_back(k);
  S = empty(sshape, A.options().dtype(rt));
  if (jobz != 'N') {
    U = colmajor_empty(A, m, ucols, A.scalar_type());
    Vh = colmajor_empty(A, vrows, n, A.scalar_type());
  }
  if (k == 0) {
    if (jobz != 'N') U = batched_eye(A, m, ucols), Vh = batched_eye(A, vrows, n);
    return;
  }
  if (on_device_lapack(A)) {
    // gesvd wants m >= n: a wide A is A^H's transposed SVD (A^H = U' S V'^H, so U = V' and Vh = U'^H).
    const bool wide = m < n;
    const Tensor At = wide ? mH(A) : A;
    const int64_t rows = At.size(-2), cols = At.size(-1);
    Tensor a = colmajor_copy(At);
    Tensor u = jobz == 'N' ? Tensor() : colmajor_empty(A, rows, jobz == 'A' ? rows : cols, A.scalar_type());
    Tensor vh = jobz == 'N' ? Tensor() : colmajor_empty(A, cols, cols, A.scalar_type());
    Tensor infos = zeros(batch_shape(A), A.options().dtype(kInt));
    if (B > 0) device_lapack(A, "linalg.svd").gesvd(a, S, u, vh, jobz, infos);
    const std::vector<lint> h = host_infos(infos);
    const int64_t bad = first_failure(h);
    EMBER_CHECK(bad < 0, lapack_error_prefix("linalg.svd", A.dim() > 2, bad), "The algorithm failed to converge "
                "because the input matrix is ill-conditioned or has too many repeated singular values (error code: ",
                h[std::max<int64_t>(bad, 0)], ").");
    if (jobz != 'N') {
      U = wide ? mH(vh) : u;
      Vh = wide ? mH(u) : vh;
    }
    return;
  }
  Tensor a = colmajor_copy(A);
  std::vector<lint> infos(B, 0);
  visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.svd", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = real_of<T>;
    T* abase = static_cast<T*>(a.data_ptr());
    R* sbase = static_cast<R*>(S.data_ptr());
    T* ubase = jobz != 'N' ? static_cast<T*>(U.data_ptr()) : nullptr;
    T* vbase = jobz != 'N' ? static_cast<T*>(Vh.data_ptr()) : nullptr;
    const lint ldu = lint(std::max<int64_t>(m, 1)), ldvt = lint(std::max<int64_t>(vrows, 1));
    T wq = T(0);
    lint info = 0;
    std::vector<lint> iwork(8 * k);
    const int64_t lrwork = !lapack::kIsComplex<T> ? 1
                           : jobz == 'N'          ? 7 * k
                                                  : k * std::max<int64_t>(5 * k + 7, 2 * std::max(m, n) + 2 * k + 1);
    std::vector<R> rq(std::max<int64_t>(lrwork, 1));
    T dummy = T(0);
    lapack::gesdd<T>(jobz, lint(m), lint(n), abase, lint(m), sbase, ubase ? ubase : &dummy, ldu,
                     vbase ? vbase : &dummy, ldvt, &wq, -1, rq.data(), iwork.data(), &info);
    const lint lwork = std::max<lint>(1, lapack::work_size(wq));
    for_each_matrix(B, m * n * k, [&](int64_t i) {
      std::vector<T> work(lwork);
      std::vector<R> rwork(std::max<int64_t>(lrwork, 1));
      std::vector<lint> iw(8 * k);
      T d = T(0);
      lapack::gesdd<T>(jobz, lint(m), lint(n), abase + i * m * n, lint(m), sbase + i * k,
                       ubase ? ubase + i * m * ucols : &d, ldu, vbase ? vbase + i * vrows * n : &d, ldvt, work.data(),
                       lwork, rwork.data(), iw.data(), &infos[i]);
    });
  });
  const int64_t bad = first_failure(infos);
  if (bad >= 0) {
    const std::string prefix = lapack_error_prefix("linalg.svd", A.dim() > 2, bad);
    EMBER_CHECK(infos[bad] != -4, prefix,
                "The algorithm failed to converge because the input matrix contained non-finite values.");
    EMBER_CHECK(infos[bad] < 0, prefix,
                "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated singular values (error code: ", infos[bad], ").");
    EMBER_INTERNAL_ASSERT(false, "gesdd: argument ", -infos[bad], " had an illegal value");
  }
}

}  // namespace

namespace linalg {
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices) {
  EMBER_AUTOCAST(linalg_svd, linalg::svd(_ac[0], full_matrices), &A);
  check_lapack_input(A, "linalg.svd", false);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) {
    // Reduced SVD A = U S V^H with distinct non-zero singular values (the full_matrices
    // extra columns are not determined by A, so no derivative flows through them).
    EMBER_CHECK(!full_matrices || A.size(-1) == A.size(-2), "linalg.svd: the derivative with full_matrices=True of a "
                "non-square matrix is not defined; use full_matrices=False");
    autograd::Recording rec({&A});
    Tensor U, S, Vh;
    {
      autograd::BelowAutogradGuard below;
      svd_impl(A, 'S', U, S, Vh);
    }
    auto mH = [](const Tensor& X) { return X.transpose(-2, -1).conj(); };
    // F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it (never divides by 0).
    auto gaps = [](const Tensor& sv) {
      Tensor s2 = sv.square();
      Tensor d = s2.unsqueeze(-2).sub(s2.unsqueeze(-1));
      Tensor tie = d.eq(0);
      return where(tie, zeros_like(d), where(tie, ones_like(d), d).reciprocal());
    };
    if (rec.forward()) {
      // P = U^H dA V: dS = Re diag P; U^H dU = F o (P S + S P^H) + i Im(diag P) / (2S),
      // V^H dV = F o (S P + P^H S) - i Im(diag P) / (2S), plus the parts of dA outside
      // the column spaces: (I - U U^H) dA V S^-1 and (I - V V^H) dA^H U S^-1.
      Tensor V = mH(Vh);
      const ScalarType t = U.scalar_type();
      Tensor Sm = S.to(t).diag_embed(0, -2, -1), Sinv = S.reciprocal().to(t).diag_embed(0, -2, -1);
      Tensor F = gaps(S).to(t);
      auto P_of = [&](const Tensor& dA) { return ember::matmul(ember::matmul(mH(U), dA), V); };
      auto phase = [&](const Tensor& P) {
        if (!P.is_complex()) return zeros_like(P);
        return imag(P.diagonal(0, -2, -1)).div(S.mul(2)).to(t).mul(Scalar(Complex<double>(0, 1))).diag_embed(0, -2, -1);
      };
      rec.forward_each(S, [&](const std::function<Tensor(size_t)>& tg) { return real(P_of(tg(0)).diagonal(0, -2, -1)); });
      rec.forward_each(U, [&](const std::function<Tensor(size_t)>& tg) {
        Tensor dA = tg(0), P = P_of(dA);
        Tensor inner = F.mul(ember::matmul(P, Sm).add(ember::matmul(Sm, mH(P)))).add(phase(P));
        Tensor outside = ember::matmul(ember::matmul(dA, V), Sinv).sub(ember::matmul(U, ember::matmul(P, Sinv)));
        return ember::matmul(U, inner).add(outside);
      });
      rec.forward_each(Vh, [&](const std::function<Tensor(size_t)>& tg) {
        Tensor dA = tg(0), P = P_of(dA);
        Tensor inner = F.mul(ember::matmul(Sm, P).add(ember::matmul(mH(P), Sm))).sub(phase(P));
        Tensor outside = ember::matmul(ember::matmul(mH(dA), U), Sinv).sub(ember::matmul(V, ember::matmul(mH(P), Sinv)));
        return mH(ember::matmul(V, inner).add(outside));
      });
    }
    if (rec.reverse()) {
      rec.record("linalg_svd", std::vector<Tensor>{U, S, Vh}, [mH, gaps](const autograd::VjpCtx& c) {
        Tensor u = c.saved_tensor(0), sv = c.saved_tensor(1), vh = c.saved_tensor(2);
        Tensor v = mH(vh);
        const ScalarType t = u.scalar_type();
        Tensor Sm = sv.to(t).diag_embed(0, -2, -1), Sinv = sv.reciprocal().to(t).diag_embed(0, -2, -1);
        Tensor F = gaps(sv).to(t);
        Tensor inner = c.grads[1].defined() ? c.grad(1).to(t).diag_embed(0, -2, -1) : zeros_like(Sm);
        Tensor extra;
        if (c.grads[0].defined()) {
          Tensor gU = c.grad(0), UhgU = ember::matmul(mH(u), gU);
          Tensor J = F.mul(UhgU);
          inner = inner.add(ember::matmul(J.add(mH(J)), Sm));
          if (u.is_complex())  // the phase direction of each (u_i, v_i) pair
            inner = inner.add(ember::matmul(Sinv, imag(UhgU.diagonal(0, -2, -1)).to(t).mul(Scalar(Complex<double>(0, 1))).diag_embed(0, -2, -1)).mul(0.5));
          // the part of gU outside U's column space
          Tensor out = gU.sub(ember::matmul(u, UhgU));
          extra = ember::matmul(ember::matmul(out, Sinv), vh);
        }
        if (c.grads[2].defined()) {
          Tensor gV = mH(c.grad(2)), VhgV = ember::matmul(vh, gV);
          Tensor K = F.mul(VhgV);
          inner = inner.add(ember::matmul(Sm, K.add(mH(K))));
          if (u.is_complex())
            inner = inner.sub(ember::matmul(Sinv, imag(VhgV.diagonal(0, -2, -1)).to(t).mul(Scalar(Complex<double>(0, 1))).diag_embed(0, -2, -1)).mul(0.5));
          Tensor out = gV.sub(ember::matmul(v, VhgV));
          Tensor e2 = ember::matmul(ember::matmul(u, Sinv), mH(out));
          extra = extra.defined() ? extra.add(e2) : e2;
        }
        Tensor gA = ember::matmul(ember::matmul(u, inner), vh);
        return autograd::variable_list{extra.defined() ? gA.add(extra) : gA};
      }, {{U, true}, {S, true}, {Vh, true}});
    }
    return {U, S, Vh};
  }
  Tensor U, S, Vh;
  svd_impl(A, full_matrices ? 'A' : 'S', U, S, Vh);
  return {U, S, Vh};
}

Tensor svdvals(const Tensor& A) {
  EMBER_AUTOCAST(linalg_svdvals, svdvals(_ac[0]), &A);
  check_lapack_input(A, "linalg.svd", false);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) {
    // The values come from the SVD; the derivatives (of every order, both modes) from the
    // same values written differentiably: the square roots of the eigenvalues of the
    // smaller Gram matrix (exact for distinct, non-zero singular values).
    Tensor U, S, Vh;
    {
      autograd::BelowAutogradGuard below;
      svd_impl(A, 'N', U, S, Vh);
    }
    Tensor AH = A.transpose(-2, -1).conj();
    Tensor gram = A.size(-2) >= A.size(-1) ? ember::matmul(AH, A) : ember::matmul(A, AH);
    Tensor sv = eigvalsh(gram).flip({-1}).clamp_min(0).sqrt();
    return S.add(sv.sub(sv.detach()));
  }
  Tensor U, S, Vh;
  svd_impl(A, 'N', U, S, Vh);
  return S;
}
}  // namespace linalg

// ---- eigh -------------------------------------------------------------------------------
namespace {

char check_uplo(std::string_view uplo) {
  const char c = uplo.size() == 1 ? char(std::toupper(static_cast<unsigned char>(uplo[0]))) : '?';
  EMBER_CHECK(c == 'L' || c == 'U', "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  return c;
}

// syevd/heevd on every matrix: eigenvalues (ascending) always, eigenvectors when jobz 'V'.
std::tuple<Tensor, Tensor> eigh_impl(const Tensor& A, char uplo, char jobz);

// eigh's derivatives (A = V diag(w) V^H, distinct eigenvalues), with E_ij = 1/(w_j - w_i)
// off the diagonal: dw = Re diag(V^H dA V), dV = V (E o V^H dA V);
// gA = V (diag(gw) + E o V^H gV) V^H.
std::tuple<Tensor, Tensor> differentiable_eigh(const Tensor& A, char uplo, char jobz) {
  autograd::Recording rec({&A});
  std::tuple<Tensor, Tensor> r;
  {
    autograd::BelowAutogradGuard below;
    r = eigh_impl(A, uplo, 'V');
  }
  // Named references, not a structured binding: lambdas below capture them (clang 14).
  Tensor& w = std::get<0>(r);
  Tensor& V = std::get<1>(r);
  auto gaps = [](const Tensor& ev) {
    Tensor d = ev.unsqueeze(-2).sub(ev.unsqueeze(-1));  // d_ij = w_j - w_i
    Tensor tie = d.eq(0);  // the diagonal (and exact ties) contribute nothing
    Tensor E = where(tie, ones_like(d), d).reciprocal();  // never 1/0, so second derivatives stay finite
    return where(tie, zeros_like(E), E);
  };
  auto mH = [](const Tensor& X) { return X.transpose(-2, -1).conj(); };
  const bool vectors = jobz == 'V';
  if (rec.forward()) {
    auto X = [&](const std::function<Tensor(size_t)>& t) { return ember::matmul(ember::matmul(mH(V), t(0)), V); };
    rec.forward_each(w, [&](const std::function<Tensor(size_t)>& t) { return real(X(t).diagonal(0, -2, -1)); });
    // V's tangent also when only w is returned: the backward formula reads V, so a
    // forward-over-reverse pass needs it.
    if (vectors || rec.reverse())
      rec.forward_each(V, [&](const std::function<Tensor(size_t)>& t) {
        return ember::matmul(V, X(t).mul(gaps(w).to(V.scalar_type())));
      });
  }
  if (rec.reverse()) {
    // V is an output of the node even when not returned, so that the backward formula,
    // which reads it, is itself differentiable (grad of grad).
    std::vector<Tensor> outs{w, V};
    rec.record("linalg_eigh", outs, [gaps, mH](const autograd::VjpCtx& c) {
      Tensor ev = c.saved_tensor(0), vecs = c.saved_tensor(1);
      Tensor inner;
      if (c.grads[0].defined()) inner = c.grad(0).to(vecs.scalar_type()).diag_embed(0, -2, -1);
      if (c.grads.size() > 1 && c.grads[1].defined()) {
        Tensor t = ember::matmul(mH(vecs), c.grad(1)).mul(gaps(ev).to(vecs.scalar_type()));
        inner = inner.defined() ? inner.add(t) : t;
      }
      return autograd::variable_list{ember::matmul(ember::matmul(vecs, inner), mH(vecs))};
    }, {{w, true}, {V, true}});
  }
  if (!vectors) V = Tensor();
  return r;
}

std::tuple<Tensor, Tensor> eigh_impl(const Tensor& A, char uplo, char jobz) {
  EMBER_AUTOCAST(linalg_eigh, eigh_impl(_ac[0], uplo, jobz), &A);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) return differentiable_eigh(A, uplo, jobz);
  check_lapack_input(A, "linalg.eigh", true);
  const int64_t n = A.size(-1), B = batch_count(A);
  std::vector<int64_t> wshape(A.sizes().begin(), A.sizes().end() - 1);
  Tensor w = empty(wshape, A.options().dtype(toRealValueType(A.scalar_type())));
  Tensor a = colmajor_copy(A);
  if (n == 0) return {w, a};
  if (on_device_lapack(A)) {
    Tensor infos = zeros(batch_shape(A), A.options().dtype(kInt));
    if (B > 0) device_lapack(A, "linalg.eigh").syevd(a, w, jobz == 'V', uplo == 'U', infos);
    const std::vector<lint> h = host_infos(infos);
    const int64_t bad = first_failure(h);
    EMBER_CHECK(bad < 0, lapack_error_prefix("linalg.eigh", A.dim() > 2, bad), "The algorithm failed to converge "
                "because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: ",
                h[std::max<int64_t>(bad, 0)], ").");
    return {w, a};
  }
  std::vector<lint> infos(B, 0);
  visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.eigh", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = real_of<T>;
    T* abase = static_cast<T*>(a.data_ptr());
    R* wbase = static_cast<R*>(w.data_ptr());
    T wq = T(0);
    R rq = R(0);
    lint iq = 0, info = 0;
    lapack::syevd<T>(jobz, uplo, lint(n), abase, lint(n), wbase, &wq, -1, &rq, -1, &iq, -1, &info);
    const lint lwork = std::max<lint>(1, lapack::work_size(wq));
    const lint lrwork = std::max<lint>(1, lint(rq)), liwork = std::max<lint>(1, iq);
    for_each_matrix(B, n * n * n, [&](int64_t i) {
      std::vector<T> work(lwork);
      std::vector<R> rwork(lrwork);
      std::vector<lint> iwork(liwork);
      lapack::syevd<T>(jobz, uplo, lint(n), abase + i * n * n, lint(n), wbase + i * n, work.data(), lwork,
                       rwork.data(), lrwork, iwork.data(), liwork, &infos[i]);
    });
  });
  const int64_t bad = first_failure(infos);
  if (bad >= 0) {
    EMBER_CHECK(infos[bad] < 0, lapack_error_prefix("linalg.eigh", A.dim() > 2, bad),
                "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated eigenvalues (error code: ", infos[bad], ").");
    EMBER_INTERNAL_ASSERT(false, "syevd: argument ", -infos[bad], " had an illegal value");
  }
  return {w, a};
}

}  // namespace

namespace linalg {
std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view uplo) {
  return eigh_impl(A, check_uplo(uplo), 'V');
}
Tensor eigvalsh(const Tensor& A, std::string_view uplo) { return std::get<0>(eigh_impl(A, check_uplo(uplo), 'N')); }
}  // namespace linalg

}  // namespace ember
