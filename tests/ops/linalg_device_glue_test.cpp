// The op-level device path of the LAPACK-backed ops (Note [Device linear algebra],
// ember/ops/linalg_device.h), run here without a GPU: a LAPACK-backed DeviceLapack stands in
// for cuSOLVER on CPU tensors (ScopedDeviceLapackForCpu), and every op's result through the
// device path is compared with the same op's regular CPU path and with reconstructions
// (A inv(A) = I, Q R = A, U S Vh = A, A V = V diag(w)). The stand-in checks the table's
// contract (packed column-major batches, m >= n for gesvd), so a layout the op passes
// wrongly fails here, before it reaches a GPU. What cuSOLVER itself computes is tested on a
// GPU by tests/cuda/linalg_test.cpp.
#include <algorithm>
#include <climits>
#include <vector>

#include "ember/ops/dispatch.h"
#include "ember/ops/lapack.h"
#include "ember/ops/linalg_device.h"
#include "ember/ops/linalg_utils.h"
#include "test_util.h"

namespace ember::test {
namespace linalg_glue {  // named: the tests build as one unity file

using lapack::lint;

int calls = 0;  // routines run by the stand-in (proves the device path was taken)

// The table's layout contract: a batch of column-major matrices packed one after another.
void expect_packed(const Tensor& t, const char* what) {
  ++calls;
  if (!t.transpose(-2, -1).is_contiguous())
    throw std::runtime_error(std::string("stand-in ") + what + ": not packed column-major, strides " +
                             std::to_string(t.stride(-2)) + "," + std::to_string(t.stride(-1)));
}
int64_t count_of(const Tensor& t) { return t.numel() / std::max<int64_t>(t.size(-1) * t.size(-2), 1); }

template <class F>
void typed(const Tensor& a, F&& f) {
  visit_dtype<linalg_detail::kLapackTypes>(a.scalar_type(), "stand-in", f);
}

void getrf(const Tensor& a, const Tensor& pivots, const Tensor& infos) {
  expect_packed(a, "getrf");
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  typed(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < count_of(a); ++i)
      lapack::getrf<T>(lint(m), lint(n), static_cast<T*>(a.data_ptr()) + i * m * n, lint(std::max<int64_t>(m, 1)),
                       pivots.data_ptr<int32_t>() + i * k, infos.data_ptr<int32_t>() + i);
  });
}
void getrs(const Tensor& lu, const Tensor& pivots, const Tensor& b, char trans) {
  expect_packed(lu, "getrs lu");
  expect_packed(b, "getrs b");
  if (count_of(lu) != count_of(b) || !pivots.is_contiguous()) throw std::runtime_error("stand-in getrs: batches");
  const int64_t n = lu.size(-1), k = b.size(-1);
  typed(lu, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < count_of(lu); ++i) {
      lint info = 0;
      lapack::getrs<T>(trans, lint(n), lint(k), static_cast<const T*>(lu.data_ptr()) + i * n * n, lint(n),
                       pivots.data_ptr<int32_t>() + i * n, static_cast<T*>(b.data_ptr()) + i * n * k, lint(n), &info);
    }
  });
}
void potrf(const Tensor& a, bool upper, const Tensor& infos) {
  expect_packed(a, "potrf");
  const int64_t n = a.size(-1);
  typed(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < count_of(a); ++i)
      lapack::potrf<T>(upper ? 'U' : 'L', lint(n), static_cast<T*>(a.data_ptr()) + i * n * n, lint(n),
                       infos.data_ptr<int32_t>() + i);
  });
}
void geqrf(const Tensor& a, const Tensor& tau) {
  expect_packed(a, "geqrf");
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  typed(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> work(64 * std::max<int64_t>(n, 1));
    for (int64_t i = 0; i < count_of(a); ++i) {
      lint info = 0;
      lapack::geqrf<T>(lint(m), lint(n), static_cast<T*>(a.data_ptr()) + i * m * n, lint(m),
                       static_cast<T*>(tau.data_ptr()) + i * k, work.data(), lint(work.size()), &info);
    }
  });
}
void orgqr(const Tensor& a, const Tensor& tau) {
  expect_packed(a, "orgqr");
  const int64_t m = a.size(-2), n = a.size(-1), k = tau.size(-1);
  if (!(k <= n && n <= m)) throw std::runtime_error("stand-in orgqr: needs k <= n <= m");
  typed(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<T> work(64 * std::max<int64_t>(n, 1));
    for (int64_t i = 0; i < count_of(a); ++i) {
      lint info = 0;
      lapack::orgqr<T>(lint(m), lint(n), lint(k), static_cast<T*>(a.data_ptr()) + i * m * n, lint(m),
                       static_cast<const T*>(tau.data_ptr()) + i * k, work.data(), lint(work.size()), &info);
    }
  });
}
void syevd(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& infos) {
  expect_packed(a, "syevd");
  const int64_t n = a.size(-1);
  typed(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = lapack::real_of<T>;
    const lint lwork = lint(2 * n * n + 6 * n + 1), liwork = lint(5 * n + 3);
    std::vector<T> work(static_cast<size_t>(lwork));
    std::vector<R> rwork(static_cast<size_t>(lwork));
    std::vector<lint> iwork(static_cast<size_t>(liwork));
    for (int64_t i = 0; i < count_of(a); ++i)
      lapack::syevd<T>(vectors ? 'V' : 'N', upper ? 'U' : 'L', lint(n), static_cast<T*>(a.data_ptr()) + i * n * n,
                       lint(n), static_cast<R*>(w.data_ptr()) + i * n, work.data(), lwork, rwork.data(), lwork,
                       iwork.data(), liwork, infos.data_ptr<int32_t>() + i);
  });
}
void gesvd(const Tensor& a, const Tensor& s, const Tensor& u, const Tensor& vh, char jobz, const Tensor& infos) {
  expect_packed(a, "gesvd");
  const int64_t m = a.size(-2), n = a.size(-1);
  if (m < n) throw std::runtime_error("stand-in gesvd: cuSOLVER's gesvd needs m >= n");
  if (jobz != 'N') expect_packed(u, "gesvd u"), expect_packed(vh, "gesvd vh");
  const int64_t ucols = jobz == 'A' ? m : n;
  typed(a, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = lapack::real_of<T>;
    std::vector<T> work(size_t(4 * (m * m + n * n + m + n) + 64)), dummy(1);
    std::vector<R> rwork(size_t(std::max<int64_t>(5 * n * n + 7 * n, 2 * m * n + 2 * n * n + n) + 64));
    std::vector<lint> iwork(size_t(8 * n));
    for (int64_t i = 0; i < count_of(a); ++i)
      lapack::gesdd<T>(jobz, lint(m), lint(n), static_cast<T*>(a.data_ptr()) + i * m * n, lint(m),
                       static_cast<R*>(s.data_ptr()) + i * n,
                       jobz == 'N' ? dummy.data() : static_cast<T*>(u.data_ptr()) + i * m * ucols, lint(m),
                       jobz == 'N' ? dummy.data() : static_cast<T*>(vh.data_ptr()) + i * n * n, lint(n), work.data(),
                       lint(work.size()), rwork.data(), iwork.data(), infos.data_ptr<int32_t>() + i);
  });
}

const DeviceLapack kStandIn{&getrf, &getrs, &potrf, &geqrf, &orgqr, &syevd, &gesvd};

// Runs f through the device path, checking the stand-in ran (unless `expect_calls` is false:
// empty matrices, argument errors, where there is nothing to factorise).
template <class F>
auto on_device_path(F&& f, bool expect_calls = true) {
  linalg_detail::ScopedDeviceLapackForCpu scope(&kStandIn);
  const int before = calls;
  auto r = f();
  if (expect_calls) EXPECT_GT(calls, before) << "the device path was not taken";
  else EXPECT_EQ(calls, before) << "nothing should have been factorised";
  return r;
}

// A well-conditioned batch: random plus n on the diagonal.
Tensor well_conditioned(IntArrayRef shape, ScalarType dt) {
  Tensor a = random_tensor(shape, dt);
  return a.add(eye(shape.back(), TensorOptions().dtype(dt)).mul(double(shape.back())));
}

const ScalarType kTypes[] = {kFloat, kDouble, kComplexFloat, kComplexDouble};
double tol(ScalarType t) { return toRealValueType(t) == kFloat ? 2e-4 : 1e-10; }

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LinalgDeviceGlue, InvAndSolveMatchTheCpuPath) {
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(toString(t));
    const double r = tol(t);
    Tensor A = well_conditioned({3, 4, 4}, t), B = random_tensor({3, 4, 2}, t), b = random_tensor({4}, t);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::inv(A); }), linalg::inv(A), r, r);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::inv(A.transpose(-2, -1)); }),
                        linalg::inv(A.transpose(-2, -1)), r, r);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::solve(A, B); }), linalg::solve(A, B), r, r);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::solve(A, B.transpose(-2, -1), false); }),
                        linalg::solve(A, B.transpose(-2, -1), false), r, r);
    // One A for a batch of right-hand sides, and a vector.
    Tensor A0 = A.select(0, 1);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::solve(A0, B); }), linalg::solve(A0, B), r, r);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::solve(A0, b); }), linalg::solve(A0, b), r, r);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::solve_triangular(A0.triu(), B, true); }),
                        linalg::solve_triangular(A0.triu(), B, true), r, r);
  }
}

TEST(LinalgDeviceGlue, SingularMatricesRaiseOrReportAsOnTheCpu) {
  Tensor A = well_conditioned({3, 3, 3}, kDouble);
  A.select(0, 1).select(1, 2).zero_();  // matrix 1 has a zero column: singular
  A.select(0, 1).select(0, 0).zero_();
  const std::string cpu = message_of([&] { linalg::inv(A); });
  EXPECT_NE(cpu.find("singular"), std::string::npos) << cpu;
  const std::string dev = message_of([&] {
    linalg_detail::ScopedDeviceLapackForCpu scope(&kStandIn);
    linalg::inv(A);
  });
  EXPECT_EQ(dev.substr(0, dev.find('\n')), cpu.substr(0, cpu.find('\n')));
  auto [X, info] = on_device_path([&] { return linalg::inv_ex(A); });
  EXPECT_TENSOR_EQ(info, std::get<1>(linalg::inv_ex(A)));
  EXPECT_EQ(info.scalar_type(), kInt);
  const std::string solve_cpu = message_of([&] { linalg::solve(A, A); });
  const std::string solve_dev = message_of([&] {
    linalg_detail::ScopedDeviceLapackForCpu scope(&kStandIn);
    linalg::solve(A, A);
  });
  EXPECT_EQ(solve_dev.substr(0, solve_dev.find('\n')), solve_cpu.substr(0, solve_cpu.find('\n')));
  EXPECT_TENSOR_EQ(std::get<1>(on_device_path([&] { return linalg::solve_ex(A, A); })),
                   std::get<1>(linalg::solve_ex(A, A)));
}

TEST(LinalgDeviceGlue, DetAndSlogdetFromPivots) {
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(toString(t));
    const double r = tol(t);
    // Random matrices (row interchanges of both parities) and one singular matrix.
    Tensor A = random_tensor({6, 5, 5}, t);
    A.select(0, 3).select(1, 4).copy_(A.select(0, 3).select(1, 0));  // two equal columns
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::det(A); }), linalg::det(A), r, r);
    auto [s, l] = on_device_path([&] { return linalg::slogdet(A); });
    auto [sc, lc] = linalg::slogdet(A);
    // The same getrf on the same column-major data: the same pivots, so the same answer
    // even for the singular matrix.
    EXPECT_TENSOR_CLOSE(s, sc, r, r);
    EXPECT_TENSOR_CLOSE(l, lc, r, r);
    EXPECT_EQ(l.scalar_type(), toRealValueType(t));
  }
  // An exactly zero pivot: det 0, sign 0, logabsdet -inf, as the CPU.
  Tensor Z = zeros({2, 3, 3}, kDouble);
  Z.select(0, 0).copy_(eye(3, kDouble));
  auto [s, l] = on_device_path([&] { return linalg::slogdet(Z); });
  EXPECT_TENSOR_EQ(s, tensor({1.0, 0.0}).to(kDouble));
  EXPECT_EQ(l[0].item<double>(), 0.0);
  EXPECT_EQ(l[1].item<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_TENSOR_EQ(on_device_path([&] { return linalg::det(Z); }), tensor({1.0, 0.0}).to(kDouble));
  // 0 x 0 matrices: det 1, sign 1, logabsdet 0.
  linalg_detail::ScopedDeviceLapackForCpu scope(&kStandIn);
  EXPECT_TENSOR_EQ(linalg::det(zeros({2, 0, 0}, kDouble)), ones({2}, kDouble));
  EXPECT_TENSOR_EQ(std::get<0>(linalg::slogdet(zeros({2, 0, 0}, kDouble))), ones({2}, kDouble));
  EXPECT_TENSOR_EQ(std::get<1>(linalg::slogdet(zeros({2, 0, 0}, kDouble))), zeros({2}, kDouble));
}

TEST(LinalgDeviceGlue, DetGradientThroughTheDevicePath) {
  Tensor A = well_conditioned({2, 3, 3}, kDouble).requires_grad_();
  Tensor g_dev = on_device_path([&] {
    linalg::det(A).sum().backward();
    Tensor g = A.grad().clone();
    A.mutable_grad() = Tensor();
    return g;
  });
  linalg::det(A).sum().backward();
  EXPECT_TENSOR_CLOSE(g_dev, A.grad(), 1e-10, 1e-10);
}

TEST(LinalgDeviceGlue, CholeskyBothTriangles) {
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(toString(t));
    const double r = tol(t);
    Tensor M = random_tensor({2, 4, 4}, t);
    Tensor A = ember::matmul(M, M.transpose(-2, -1).conj()).add(eye(4, TensorOptions().dtype(t)));
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::cholesky(A); }), linalg::cholesky(A), r, r);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::cholesky(A, true); }), linalg::cholesky(A, true), r, r);
  }
  Tensor N = eye(3, kDouble).neg().expand({2, 3, 3}).contiguous();
  const std::string cpu = message_of([&] { linalg::cholesky(N); });
  const std::string dev = message_of([&] {
    linalg_detail::ScopedDeviceLapackForCpu scope(&kStandIn);
    linalg::cholesky(N);
  });
  EXPECT_NE(cpu.find("positive-definite"), std::string::npos) << cpu;
  EXPECT_EQ(dev.substr(0, dev.find('\n')), cpu.substr(0, cpu.find('\n')));
  EXPECT_TENSOR_EQ(std::get<1>(on_device_path([&] { return linalg::cholesky_ex(N); })),
                   std::get<1>(linalg::cholesky_ex(N)));
}

TEST(LinalgDeviceGlue, LuFactorLuAndLuSolve) {
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(toString(t));
    const double r = tol(t);
    for (auto shape : {std::vector<int64_t>{2, 4, 4}, std::vector<int64_t>{2, 5, 3}, std::vector<int64_t>{3, 5}}) {
      Tensor A = random_tensor(shape, t);
      auto [LU, piv] = on_device_path([&] { return linalg::lu_factor(A); });
      auto [LUc, pivc] = linalg::lu_factor(A);
      EXPECT_TENSOR_CLOSE(LU, LUc, r, r);
      EXPECT_TENSOR_EQ(piv, pivc);
      auto [P, L, U] = on_device_path([&] { return linalg::lu(A); });
      EXPECT_TENSOR_CLOSE(ember::matmul(P, ember::matmul(L, U)), A, r * 10, r * 10);
    }
    Tensor A = well_conditioned({2, 4, 4}, t), B = random_tensor({2, 4, 3}, t);
    auto [LU, piv] = linalg::lu_factor(A);
    for (bool left : {true, false})
      for (bool adjoint : {false, true}) {
        Tensor rhs = left ? B : B.transpose(-2, -1);
        EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::lu_solve(LU, piv, rhs, left, adjoint); }),
                            linalg::lu_solve(LU, piv, rhs, left, adjoint), r, r);
      }
  }
}

TEST(LinalgDeviceGlue, QrEveryModeAndShape) {
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(toString(t));
    const double r = tol(t);
    for (auto shape : {std::vector<int64_t>{2, 5, 3}, std::vector<int64_t>{2, 3, 5}, std::vector<int64_t>{4, 4},
                       std::vector<int64_t>{3, 0}, std::vector<int64_t>{0, 3}}) {
      Tensor A = random_tensor(shape, t);
      for (const char* mode : {"reduced", "complete", "r"}) {
        SCOPED_TRACE(mode);
        auto [Q, R] = on_device_path([&] { return linalg::qr(A, mode); }, /*expect_calls=*/A.numel() > 0);
        auto [Qc, Rc] = linalg::qr(A, mode);
        EXPECT_TENSOR_CLOSE(R, Rc, r, r);
        EXPECT_TENSOR_CLOSE(Q, Qc, r, r);
      }
    }
    Tensor A = random_tensor({2, 5, 3}, t);
    auto [a, tau] = on_device_path([&] { return ember::geqrf(A); });
    auto [ac, tauc] = ember::geqrf(A);
    EXPECT_TENSOR_CLOSE(a, ac, r, r);
    EXPECT_TENSOR_CLOSE(tau, tauc, r, r);
    EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::householder_product(a, tau); }),
                        linalg::householder_product(ac, tauc), r, r);
  }
}

TEST(LinalgDeviceGlue, SvdOfTallAndWideMatrices) {
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(toString(t));
    const double r = tol(t) * 10;
    for (auto shape : {std::vector<int64_t>{2, 5, 3}, std::vector<int64_t>{2, 3, 5}, std::vector<int64_t>{4, 4}}) {
      Tensor A = random_tensor(shape, t);
      const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
      for (bool full : {false, true}) {
        SCOPED_TRACE(full ? "full" : "reduced");
        auto [U, S, Vh] = on_device_path([&] { return linalg::svd(A, full); });
        auto [Uc, Sc, Vhc] = linalg::svd(A, full);
        EXPECT_TENSOR_CLOSE(S, Sc, r, r);
        ASSERT_EQ(U.sizes(), Uc.sizes());
        ASSERT_EQ(Vh.sizes(), Vhc.sizes());
        Tensor Uk = U.narrow(-1, 0, k), Vk = Vh.narrow(-2, 0, k);
        EXPECT_TENSOR_CLOSE(ember::matmul(Uk.mul(S.unsqueeze(-2).to(t)), Vk), A, r, r);
        const Tensor G = ember::matmul(U.transpose(-2, -1).conj(), U);
        EXPECT_TENSOR_CLOSE(G, eye(U.size(-1), TensorOptions().dtype(t)).expand(G.sizes()), r, r);
        const Tensor H = ember::matmul(Vh, Vh.transpose(-2, -1).conj());
        EXPECT_TENSOR_CLOSE(H, eye(Vh.size(-2), TensorOptions().dtype(t)).expand(H.sizes()), r, r);
      }
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::svdvals(A); }), linalg::svdvals(A), r, r);
    }
  }
}

TEST(LinalgDeviceGlue, EighBothTriangles) {
  for (ScalarType t : kTypes) {
    SCOPED_TRACE(toString(t));
    const double r = tol(t) * 10;
    Tensor M = random_tensor({2, 4, 4}, t);
    Tensor A = M.add(M.transpose(-2, -1).conj());
    for (const char* uplo : {"L", "U"}) {
      auto [w, V] = on_device_path([&] { return linalg::eigh(A, uplo); });
      auto [wc, Vc] = linalg::eigh(A, uplo);
      EXPECT_TENSOR_CLOSE(w, wc, r, r);
      EXPECT_TENSOR_CLOSE(ember::matmul(A, V), V.mul(w.unsqueeze(-2).to(t)), r, r);
      EXPECT_TENSOR_CLOSE(on_device_path([&] { return linalg::eigvalsh(A, uplo); }), wc, r, r);
    }
  }
}

TEST(LinalgDeviceGlue, LstsqAsQr) {
  for (ScalarType t : {kDouble, kComplexDouble}) {
    SCOPED_TRACE(toString(t));
    for (auto [m, n] : {std::pair<int64_t, int64_t>{6, 3}, {3, 6}, {4, 4}}) {
      Tensor A = random_tensor({2, m, n}, t), B = random_tensor({2, m, 2}, t);
      auto dev = on_device_path([&] { return linalg::lstsq(A, B); });
      // The reference: the minimum-norm least-squares solution pinv(A) B.
      Tensor x = ember::matmul(linalg::pinv(A), B);
      EXPECT_TENSOR_CLOSE(std::get<0>(dev), x, 1e-9, 1e-9);
      if (m > n) {
        EXPECT_TENSOR_CLOSE(std::get<1>(dev), ember::matmul(A, x).sub(B).abs().pow(2).sum(-2), 1e-9, 1e-9);
      } else {
        EXPECT_EQ(std::get<1>(dev).numel(), 0);
      }
    }
  }
  EXPECT_ERROR_WITH(on_device_path([&] { return linalg::lstsq(eye(3, kDouble), eye(3, kDouble), std::nullopt, "gelsd"); },
                                   /*expect_calls=*/false),
                    "`driver` other than `gels` is not supported");
}

}  // namespace linalg_glue
}  // namespace ember::test
