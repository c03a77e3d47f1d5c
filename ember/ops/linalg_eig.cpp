// linalg::eig and eigvals (LAPACK geev) with their derivatives, and Householder QR's pieces:
// geqrf and linalg::householder_product (orgqr/ungqr). Eigenvalues and eigenvectors are complex for every
// input dtype, as in PyTorch; the eigenvectors are LAPACK's (unit norm, largest component real).
#include <algorithm>
#include <tuple>
#include <vector>

#include "ember/autograd/record.h"
#include "ember/core/parallel.h"
#include "ember/ops/autocast.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/functions.h"
#include "ember/ops/lapack.h"
#include "ember/ops/linalg_device.h"
#include "ember/ops/linalg_utils.h"

namespace ember {

using namespace linalg_detail;
using lapack::lint;
using lapack::real_of;

namespace {

// geev on every matrix: eigenvalues always, right eigenvectors when `vectors`.
std::tuple<Tensor, Tensor> eig_impl(const Tensor& A, bool vectors) {
  check_lapack_input(A, "linalg.eig", true);
  if (!A.is_cpu()) {
    // As PyTorch's CUDA eig: computed on the CPU, copied back (Note [Device linear algebra]).
    auto [L, V] = eig_impl(A.to(kCPU), vectors);
    return {L.to(A.device()), V.defined() ? V.to(A.device()) : V};
  }
  EMBER_CHECK(A.isfinite().all().item<bool>(), "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  const int64_t n = A.size(-1), B = batch_count(A);
  const ScalarType complex_type = toComplexType(A.scalar_type());
  std::vector<int64_t> lshape(A.sizes().begin(), A.sizes().end() - 1);
  Tensor L = empty(lshape, A.options().dtype(complex_type));
  Tensor V = vectors ? empty(A.sizes(), A.options().dtype(complex_type)) : Tensor();
  if (n == 0) return {L, V};
  Tensor a = colmajor_copy(A);
  std::vector<lint> infos(B, 0);
  visit_dtype<kLapackTypes>(A.scalar_type(), "linalg.eig", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = real_of<T>;
    using C = Complex<R>;
    T* abase = static_cast<T*>(a.data_ptr());
    C* lbase = static_cast<C*>(L.data_ptr());
    C* vbase = vectors ? static_cast<C*>(V.data_ptr()) : nullptr;
    const char jobvr = vectors ? 'V' : 'N';
    const lint ldvr = vectors ? lint(n) : 1;
    T wq = T(0);
    lint query_info = 0;
    std::vector<R> query_rwork(std::max<int64_t>(1, 2 * n));  // ztrevc3's query writes rwork[0]
    lapack::geev<T>(jobvr, lint(n), abase, lint(n), nullptr, nullptr, nullptr, nullptr, ldvr, &wq, -1,
                    query_rwork.data(), &query_info);
    const lint lwork = std::max<lint>(1, lapack::work_size(wq));
    for_each_matrix(B, n * n * n, [&](int64_t i) {
      std::vector<T> work(lwork), vr(vectors ? n * n : 1);
      T* ai = abase + i * n * n;
      C* li = lbase + i * n;
      C* vi = vectors ? vbase + i * n * n : nullptr;  // row-major n x n
      if constexpr (lapack::kIsComplex<T>) {
        std::vector<R> rwork(2 * n);
        lapack::geev<T>(jobvr, lint(n), ai, lint(n), reinterpret_cast<T*>(li), nullptr, nullptr, vr.data(), ldvr,
                        work.data(), lwork, rwork.data(), &infos[i]);
        if (vectors && infos[i] == 0)
          for (int64_t r = 0; r < n; ++r)
            for (int64_t j = 0; j < n; ++j) vi[r * n + j] = vr[j * n + r];
      } else {
        std::vector<R> wr(n), wi(n);
        lapack::geev<T>(jobvr, lint(n), ai, lint(n), nullptr, wr.data(), wi.data(), vr.data(), ldvr, work.data(),
                        lwork, nullptr, &infos[i]);
        if (infos[i] != 0) return;
        for (int64_t j = 0; j < n; ++j) li[j] = C(wr[j], wi[j]);
        if (!vectors) return;
        // A complex pair (wi[j] > 0, then its conjugate) shares columns j (real part) and j+1
        // (imaginary part) of vr.
        for (int64_t j = 0; j < n; ++j) {
          if (wi[j] == R(0) || j + 1 == n) {
            for (int64_t r = 0; r < n; ++r) vi[r * n + j] = C(vr[j * n + r], R(0));
          } else {
            for (int64_t r = 0; r < n; ++r) {
              vi[r * n + j] = C(vr[j * n + r], vr[(j + 1) * n + r]);
              vi[r * n + j + 1] = C(vr[j * n + r], -vr[(j + 1) * n + r]);
            }
            ++j;
          }
        }
      }
    });
  });
  const int64_t bad = first_failure(infos);
  if (bad >= 0) {
    EMBER_CHECK(infos[bad] < 0, lapack_error_prefix("linalg.eig", A.dim() > 2, bad),
                "The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
                "repeated eigenvalues (error code: ", infos[bad], ").");
    EMBER_INTERNAL_ASSERT(false, "geev: argument ", -infos[bad], " had an illegal value");
  }
  return {L, V};
}

// Note [eig derivatives]: A = V diag(L) V^{-1}, the columns of V of unit norm (their phase is
// LAPACK's choice, a gauge the derivatives leave out: only Re(v_i^H dv_i) = 0 is imposed).
// With E_ij = L_j - L_i off the diagonal (1 on it), as PyTorch's linalg_eig_backward/_jvp:
//   reverse: P = V^H gV - V^H V Re(diag(V^H gV)); P /= conj(E); diag(P) = gL;
//            gA = V^{-H} P V^H (its real part for a real A).
//   forward: dP = V^{-1} dA V; dL = diag(dP); dV = V (dP / E, zero diagonal), then
//            dV -= V Re(diag(V^H dV)).
// A loss that depends on the eigenvectors' phases is ill-defined; PyTorch raises then, and so
// does the reverse pass here. Distinct eigenvalues assumed (E has no zero off the diagonal).
Tensor eig_gaps(const Tensor& L) {
  Tensor E = L.unsqueeze(-2).sub(L.unsqueeze(-1));
  return E.add(eye(L.size(-1), L.options()));  // the diagonal of E is zero: make it one
}

Tensor eig_backward(const Tensor& gL, const Tensor& gV, const Tensor& L, const Tensor& V, ScalarType input_type) {
  Tensor gA;
  if (!gV.defined()) {
    gA = linalg::solve(mH(V), gL.unsqueeze(-1).mul(mH(V)));
  } else {
    Tensor VhgV = ember::matmul(mH(V), gV);
    const Tensor diag = VhgV.diagonal(0, -2, -1);
    const Tensor im = imag(diag);
    EMBER_CHECK(allclose(im, zeros_like(im), 1e-2, 1e-2),
                "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication by "
                "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
    Tensor P = VhgV.sub(ember::matmul(mH(V), V.mul(real(diag).unsqueeze(-2).to(V.scalar_type()))));
    P = P.div(eig_gaps(L).conj());
    if (gL.defined()) {
      // P's diagonal replaced by gL: subtract the old, add the new.
      P = P.sub(P.diagonal(0, -2, -1).diag_embed(0, -2, -1)).add(gL.diag_embed(0, -2, -1));
    } else {
      P = P.sub(P.diagonal(0, -2, -1).diag_embed(0, -2, -1));
    }
    gA = linalg::solve(mH(V), ember::matmul(P, mH(V)));
  }
  return isComplexType(input_type) ? gA : real(gA);
}

std::tuple<Tensor, Tensor> differentiable_eig(const Tensor& A, bool vectors) {
  autograd::Recording rec({&A});
  std::tuple<Tensor, Tensor> r;
  {
    autograd::BelowAutogradGuard below;
    r = eig_impl(A, true);
  }
  // Named references, not a structured binding: lambdas below capture them (clang 14).
  Tensor& L = std::get<0>(r);
  Tensor& V = std::get<1>(r);
  const ScalarType input_type = A.scalar_type();
  if (rec.forward()) {
    auto dP = [&](const std::function<Tensor(size_t)>& t) {
      return linalg::solve(V, ember::matmul(t(0).to(V.scalar_type()), V));
    };
    rec.forward_each(L, [&](const std::function<Tensor(size_t)>& t) { return dP(t).diagonal(0, -2, -1); });
    if (vectors || rec.reverse())
      rec.forward_each(V, [&](const std::function<Tensor(size_t)>& t) {
        Tensor X = dP(t).div(eig_gaps(L));
        Tensor dV = ember::matmul(V, X.sub(X.diagonal(0, -2, -1).diag_embed(0, -2, -1)));
        Tensor re = real(ember::matmul(mH(V), dV).diagonal(0, -2, -1)).to(V.scalar_type());
        return dV.sub(V.mul(re.unsqueeze(-2)));
      });
  }
  if (rec.reverse()) {
    // V is an output of the node even for eigvals, so that the backward formula, which reads
    // it, is itself differentiable.
    std::vector<Tensor> outs{L, V};
    rec.record("linalg_eig", outs, [input_type](const autograd::VjpCtx& c) {
      const Tensor gL = c.grads[0].defined() ? c.grad(0) : Tensor();
      const Tensor gV = c.grads.size() > 1 && c.grads[1].defined() ? c.grad(1) : Tensor();
      if (!gL.defined() && !gV.defined()) return autograd::variable_list{Tensor()};
      return autograd::variable_list{eig_backward(gL, gV, c.saved_tensor(0), c.saved_tensor(1), input_type)};
    }, {{L, true}, {V, true}});
  }
  if (!vectors) V = Tensor();
  return r;
}

std::tuple<Tensor, Tensor> eig_entry(const Tensor& A, bool vectors) {
  EMBER_AUTOCAST(linalg_eig, eig_entry(_ac[0], vectors), &A);
  if (EMBER_UNLIKELY(autograd::maybe_differentiable(A))) return differentiable_eig(A, vectors);
  return eig_impl(A, vectors);
}

// ---- householder_product ----------------------------------------------------------------
void check_householder(const Tensor& A, const Tensor& tau) {
  const char* op = "torch.linalg.householder_product";
  EMBER_CHECK(A.dim() >= 2, op, ": input must have at least 2 dimensions, got ", A.dim());
  EMBER_CHECK(A.size(-2) >= A.size(-1), op, ": input.shape[-2] must be greater than or equal to input.shape[-1], got ",
              A.sizes());
  EMBER_CHECK(A.size(-1) >= tau.size(-1), op, ": input.shape[-1] must be greater than or equal to tau.shape[-1], got ",
              A.sizes(), " and ", tau.sizes());
  EMBER_CHECK(A.dim() - tau.dim() == 1, op, ": Expected tau to have one dimension less than input, but got ",
              "tau.ndim equal to ", tau.dim(), " and input.ndim is equal to ", A.dim());
  EMBER_CHECK(std::equal(A.sizes().begin(), A.sizes().end() - 2, tau.sizes().begin()), op,
              ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ", tau.sizes(), " and ",
              A.sizes());
  EMBER_CHECK_TYPE(tau.scalar_type() == A.scalar_type(), op, ": tau dtype ", tau.scalar_type(),
                   " does not match input dtype ", A.scalar_type());
  EMBER_CHECK(A.device() == tau.device(), op, ": Expected input and tau to be on the same device, but got ", A.device(),
              " and ", tau.device());
}

// Q = H_0 H_1 ... H_{k-1} restricted to its first n columns, H_i = I - tau_i v_i v_i^H with v_i
// the i-th column of A below the diagonal, a one on it: built from differentiable ops, so
// both AD modes follow (PyTorch's householder_product_backward computes the same derivative).
Tensor householder_composite(const Tensor& A, const Tensor& tau) {
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1);
  Tensor Vs = A.narrow(-1, 0, k).tril(-1).add(eye(m, k, A.options()));
  Tensor Q = eye(m, n, A.options()).expand(A.sizes()).clone();
  for (int64_t i = k - 1; i >= 0; --i) {
    Tensor v = Vs.narrow(-1, i, 1);                         // [..., m, 1]
    Tensor t = tau.narrow(-1, i, 1).unsqueeze(-1);          // [..., 1, 1]
    Q = Q.sub(v.mul(t).matmul(mH(v).matmul(Q)));
  }
  return Q;
}

}  // namespace

namespace linalg {

std::tuple<Tensor, Tensor> eig(const Tensor& A) { return eig_entry(A, true); }
Tensor eigvals(const Tensor& A) { return std::get<0>(eig_entry(A, false)); }

Tensor householder_product(const Tensor& A, const Tensor& tau) {
  EMBER_AUTOCAST(linalg_householder_product, householder_product(_ac[0], _ac[1]), &A, &tau);
  check_householder(A, tau);
  if (autograd::maybe_differentiable(A) || autograd::maybe_differentiable(tau)) return householder_composite(A, tau);
  check_lapack_input(A, "torch.linalg.householder_product", false);
  const int64_t m = A.size(-2), n = A.size(-1), k = tau.size(-1), B = batch_count(A);
  Tensor q = colmajor_copy(A);
  if (m == 0 || n == 0) return q;
  Tensor t = tau.contiguous();
  if (on_device_lapack(A)) {
    if (batch_count(A) > 0) device_lapack(A, "torch.linalg.householder_product").orgqr(q, t);
    return q;
  }
  std::vector<lint> infos(B, 0);
  visit_dtype<kLapackTypes>(A.scalar_type(), "torch.linalg.householder_product", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* qbase = static_cast<T*>(q.data_ptr());
    const T* tbase = static_cast<const T*>(t.data_ptr());
    T wq = T(0);
    lint query_info = 0;
    lapack::orgqr<T>(lint(m), lint(n), lint(k), qbase, lint(m), tbase, &wq, -1, &query_info);
    const lint lwork = std::max<lint>(1, lapack::work_size(wq));
    for_each_matrix(B, m * n * n, [&](int64_t i) {
      std::vector<T> work(lwork);
      lapack::orgqr<T>(lint(m), lint(n), lint(k), qbase + i * m * n, lint(m), tbase + i * k, work.data(), lwork,
                       &infos[i]);
    });
  });
  const int64_t bad = first_failure(infos);
  EMBER_INTERNAL_ASSERT(bad < 0, "orgqr: argument ", -infos[std::max<int64_t>(bad, 0)], " had an illegal value");
  return q;
}

}  // namespace linalg

std::tuple<Tensor, Tensor> geqrf(const Tensor& self) {
  EMBER_AUTOCAST(geqrf, geqrf(_ac[0]), &self);
  check_lapack_input(self, "geqrf", false);
  autograd::BelowAutogradGuard below;  // PyTorch has no derivative for geqrf either
  const int64_t m = self.size(-2), n = self.size(-1), k = std::min(m, n), B = batch_count(self);
  Tensor a = colmajor_copy(self);
  std::vector<int64_t> tshape(self.sizes().begin(), self.sizes().end() - 2);
  tshape.push_back(k);
  Tensor tau = empty(tshape, self.options());
  if (k == 0) return {a, tau};
  if (on_device_lapack(self)) {
    if (B > 0) device_lapack(self, "geqrf").geqrf(a, tau);
    return {a, tau};
  }
  visit_dtype<kLapackTypes>(self.scalar_type(), "geqrf", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* abase = static_cast<T*>(a.data_ptr());
    T* tbase = static_cast<T*>(tau.data_ptr());
    T wq = T(0);
    lint info = 0;
    lapack::geqrf<T>(lint(m), lint(n), abase, lint(m), nullptr, &wq, -1, &info);
    const lint lwork = std::max<lint>(1, lapack::work_size(wq));
    for_each_matrix(B, m * n * k, [&](int64_t i) {
      std::vector<T> work(lwork);
      lint inf = 0;
      lapack::geqrf<T>(lint(m), lint(n), abase + i * m * n, lint(m), tbase + i * k, work.data(), lwork, &inf);
      EMBER_INTERNAL_ASSERT(inf == 0, "geqrf: argument ", -inf, " had an illegal value");
    });
  });
  return {a, tau};
}

}  // namespace ember
