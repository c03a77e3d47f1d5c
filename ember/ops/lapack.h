// Internal: typed wrappers over the Fortran LAPACK routines that OpenBLAS exports (float,
// double, complex64, complex128), column-major, for linalg_lapack.cpp and
// linalg_decomp.cpp. Workspace sizes come from the routines' own lwork = -1 queries.
#pragma once
#include <complex>
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapack.h>
#include <cblas.h>

#include <type_traits>

#include "ember/core/complex.h"

namespace ember::lapack {

using lint = lapack_int;

template <class T> struct Native { using type = T; };
template <> struct Native<Complex<float>> { using type = std::complex<float>; };
template <> struct Native<Complex<double>> { using type = std::complex<double>; };
template <class T> auto* nat(T* p) { return reinterpret_cast<typename Native<T>::type*>(p); }
template <class T> const auto* nat(const T* p) { return reinterpret_cast<const typename Native<T>::type*>(p); }

template <class T> constexpr bool kIsComplex = std::is_same_v<T, Complex<float>> || std::is_same_v<T, Complex<double>>;
template <class T> struct Real { using type = T; };
template <class T> struct Real<Complex<T>> { using type = T; };
template <class T> using real_of = typename Real<T>::type;

// The real part of a workspace-size answer.
template <class T> lint work_size(T w) {
  if constexpr (kIsComplex<T>) return lint(w.real());
  else return lint(w);
}

#define EMBER_LAPACK_DISPATCH(T, s, d, c, z, ...)                                                   \
  if constexpr (std::is_same_v<T, float>) LAPACK_##s(__VA_ARGS__);                                \
  else if constexpr (std::is_same_v<T, double>) LAPACK_##d(__VA_ARGS__);                          \
  else if constexpr (std::is_same_v<T, Complex<float>>) LAPACK_##c(__VA_ARGS__);                  \
  else LAPACK_##z(__VA_ARGS__);

template <class T> void getrf(lint m, lint n, T* a, lint lda, lint* ipiv, lint* info) {
  EMBER_LAPACK_DISPATCH(T, sgetrf, dgetrf, cgetrf, zgetrf, &m, &n, nat(a), &lda, ipiv, info)
}
template <class T> void getri(lint n, T* a, lint lda, const lint* ipiv, T* work, lint lwork, lint* info) {
  EMBER_LAPACK_DISPATCH(T, sgetri, dgetri, cgetri, zgetri, &n, nat(a), &lda, ipiv, nat(work), &lwork, info)
}
template <class T> void getrs(char trans, lint n, lint nrhs, const T* a, lint lda, const lint* ipiv, T* b, lint ldb,
                              lint* info) {
  EMBER_LAPACK_DISPATCH(T, sgetrs, dgetrs, cgetrs, zgetrs, &trans, &n, &nrhs, nat(a), &lda, ipiv, nat(b), &ldb, info)
}
template <class T> void potrf(char uplo, lint n, T* a, lint lda, lint* info) {
  EMBER_LAPACK_DISPATCH(T, spotrf, dpotrf, cpotrf, zpotrf, &uplo, &n, nat(a), &lda, info)
}
template <class T> void geqrf(lint m, lint n, T* a, lint lda, T* tau, T* work, lint lwork, lint* info) {
  EMBER_LAPACK_DISPATCH(T, sgeqrf, dgeqrf, cgeqrf, zgeqrf, &m, &n, nat(a), &lda, nat(tau), nat(work), &lwork, info)
}
// Q from geqrf's reflectors: orgqr (real) / ungqr (complex).
template <class T> void orgqr(lint m, lint n, lint k, T* a, lint lda, const T* tau, T* work, lint lwork, lint* info) {
  EMBER_LAPACK_DISPATCH(T, sorgqr, dorgqr, cungqr, zungqr, &m, &n, &k, nat(a), &lda, nat(tau), nat(work), &lwork, info)
}
// gesdd; rwork is used by the complex routines only.
template <class T> void gesdd(char jobz, lint m, lint n, T* a, lint lda, real_of<T>* s, T* u, lint ldu, T* vt,
                              lint ldvt, T* work, lint lwork, real_of<T>* rwork, lint* iwork, lint* info) {
  if constexpr (kIsComplex<T>) {
    EMBER_LAPACK_DISPATCH(T, sgesdd, dgesdd, cgesdd, zgesdd, &jobz, &m, &n, nat(a), &lda, s, nat(u), &ldu, nat(vt),
                          &ldvt, nat(work), &lwork, rwork, iwork, info)
  } else {
    (void)rwork;
    EMBER_LAPACK_DISPATCH(T, sgesdd, dgesdd, cgesdd, zgesdd, &jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work,
                          &lwork, iwork, info)
  }
}
// syevd (real) / heevd (complex); rwork is used by the complex routines only.
template <class T> void syevd(char jobz, char uplo, lint n, T* a, lint lda, real_of<T>* w, T* work, lint lwork,
                              real_of<T>* rwork, lint lrwork, lint* iwork, lint liwork, lint* info) {
  if constexpr (kIsComplex<T>) {
    EMBER_LAPACK_DISPATCH(T, ssyevd, dsyevd, cheevd, zheevd, &jobz, &uplo, &n, nat(a), &lda, w, nat(work), &lwork,
                          rwork, &lrwork, iwork, &liwork, info)
  } else {
    (void)rwork, (void)lrwork;
    EMBER_LAPACK_DISPATCH(T, ssyevd, dsyevd, cheevd, zheevd, &jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork,
                          &liwork, info)
  }
}
// Row interchanges ipiv[k1-1 .. k2-1] (1-based, as getrf returns them) on n columns.
template <class T> void laswp(lint n, T* a, lint lda, lint k1, lint k2, const lint* ipiv) {
  const lint inc = 1;
  EMBER_LAPACK_DISPATCH(T, slaswp, dlaswp, claswp, zlaswp, &n, nat(a), &lda, &k1, &k2, ipiv, &inc)
}
// Least squares (linalg.lstsq's drivers). rwork is used by the complex routines only; a
// workspace query (lwork = -1) also answers the integer/real workspace sizes in iwork[0] /
// rwork[0] (gelsd).
template <class T> void gels(char trans, lint m, lint n, lint nrhs, T* a, lint lda, T* b, lint ldb, T* work,
                             lint lwork, lint* info) {
  EMBER_LAPACK_DISPATCH(T, sgels, dgels, cgels, zgels, &trans, &m, &n, &nrhs, nat(a), &lda, nat(b), &ldb, nat(work),
                        &lwork, info)
}
template <class T> void gelsy(lint m, lint n, lint nrhs, T* a, lint lda, T* b, lint ldb, lint* jpvt,
                              real_of<T> rcond, lint* rank, T* work, lint lwork, real_of<T>* rwork, lint* info) {
  if constexpr (kIsComplex<T>) {
    EMBER_LAPACK_DISPATCH(T, sgelsy, dgelsy, cgelsy, zgelsy, &m, &n, &nrhs, nat(a), &lda, nat(b), &ldb, jpvt, &rcond,
                          rank, nat(work), &lwork, rwork, info)
  } else {
    (void)rwork;
    EMBER_LAPACK_DISPATCH(T, sgelsy, dgelsy, cgelsy, zgelsy, &m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work,
                          &lwork, info)
  }
}
template <class T> void gelsd(lint m, lint n, lint nrhs, T* a, lint lda, T* b, lint ldb, real_of<T>* s,
                              real_of<T> rcond, lint* rank, T* work, lint lwork, real_of<T>* rwork, lint* iwork,
                              lint* info) {
  if constexpr (kIsComplex<T>) {
    EMBER_LAPACK_DISPATCH(T, sgelsd, dgelsd, cgelsd, zgelsd, &m, &n, &nrhs, nat(a), &lda, nat(b), &ldb, s, &rcond,
                          rank, nat(work), &lwork, rwork, iwork, info)
  } else {
    (void)rwork;
    EMBER_LAPACK_DISPATCH(T, sgelsd, dgelsd, cgelsd, zgelsd, &m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work,
                          &lwork, iwork, info)
  }
}
template <class T> void gelss(lint m, lint n, lint nrhs, T* a, lint lda, T* b, lint ldb, real_of<T>* s,
                              real_of<T> rcond, lint* rank, T* work, lint lwork, real_of<T>* rwork, lint* info) {
  if constexpr (kIsComplex<T>) {
    EMBER_LAPACK_DISPATCH(T, sgelss, dgelss, cgelss, zgelss, &m, &n, &nrhs, nat(a), &lda, nat(b), &ldb, s, &rcond,
                          rank, nat(work), &lwork, rwork, info)
  } else {
    (void)rwork;
    EMBER_LAPACK_DISPATCH(T, sgelss, dgelss, cgelss, zgelss, &m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work,
                          &lwork, info)
  }
}
// geev: eigenvalues of a general matrix, in w (complex routines) or wr + i wi (real routines),
// and its right eigenvectors in vr when jobvr is 'V' (never the left ones). rwork (2n) is used
// by the complex routines only.
template <class T> void geev(char jobvr, lint n, T* a, lint lda, T* w, real_of<T>* wr, real_of<T>* wi, T* vr,
                             lint ldvr, T* work, lint lwork, real_of<T>* rwork, lint* info) {
  const char jobvl = 'N';
  const lint ldvl = 1;
  T* vl = nullptr;
  if constexpr (kIsComplex<T>) {
    (void)wr, (void)wi;
    EMBER_LAPACK_DISPATCH(T, sgeev, dgeev, cgeev, zgeev, &jobvl, &jobvr, &n, nat(a), &lda, nat(w), nat(vl), &ldvl,
                          nat(vr), &ldvr, nat(work), &lwork, rwork, info)
  } else {
    (void)w, (void)rwork;
    EMBER_LAPACK_DISPATCH(T, sgeev, dgeev, cgeev, zgeev, &jobvl, &jobvr, &n, a, &lda, wr, wi, vl, &ldvl, vr, &ldvr,
                          work, &lwork, info)
  }
}
// Bunch-Kaufman LDL^T (sytrf) or, for a complex `hermitian` matrix, LDL^H (hetrf), and the
// matching solves; the lower triangle ('L') as PyTorch's linalg.ldl_factor uses.
template <class T> void sytrf(bool hermitian, lint n, T* a, lint lda, lint* ipiv, T* work, lint lwork, lint* info) {
  const char uplo = 'L';
  if (kIsComplex<T> && hermitian) {
    EMBER_LAPACK_DISPATCH(T, ssytrf, dsytrf, chetrf, zhetrf, &uplo, &n, nat(a), &lda, ipiv, nat(work), &lwork, info)
  } else {
    EMBER_LAPACK_DISPATCH(T, ssytrf, dsytrf, csytrf, zsytrf, &uplo, &n, nat(a), &lda, ipiv, nat(work), &lwork, info)
  }
}
template <class T> void sytrs(bool hermitian, lint n, lint nrhs, const T* a, lint lda, const lint* ipiv, T* b,
                              lint ldb, lint* info) {
  const char uplo = 'L';
  if (kIsComplex<T> && hermitian) {
    EMBER_LAPACK_DISPATCH(T, ssytrs, dsytrs, chetrs, zhetrs, &uplo, &n, &nrhs, nat(a), &lda, ipiv, nat(b), &ldb, info)
  } else {
    EMBER_LAPACK_DISPATCH(T, ssytrs, dsytrs, csytrs, zsytrs, &uplo, &n, &nrhs, nat(a), &lda, ipiv, nat(b), &ldb, info)
  }
}
#undef EMBER_LAPACK_DISPATCH

// B (m x n) = L^{-1} B or U^{-1} B, column-major, L unit lower / U non-unit upper.
template <class T> void trsm_left(bool lower, lint m, lint n, const T* a, lint lda, T* b, lint ldb) {
  const CBLAS_UPLO uplo = lower ? CblasLower : CblasUpper;
  const CBLAS_DIAG diag = lower ? CblasUnit : CblasNonUnit;
  if constexpr (std::is_same_v<T, float>) {
    cblas_strsm(CblasColMajor, CblasLeft, uplo, CblasNoTrans, diag, m, n, 1.f, a, lda, b, ldb);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dtrsm(CblasColMajor, CblasLeft, uplo, CblasNoTrans, diag, m, n, 1.0, a, lda, b, ldb);
  } else {
    const T one(1);
    if constexpr (std::is_same_v<T, Complex<float>>)
      cblas_ctrsm(CblasColMajor, CblasLeft, uplo, CblasNoTrans, diag, m, n, &one, a, lda, b, ldb);
    else
      cblas_ztrsm(CblasColMajor, CblasLeft, uplo, CblasNoTrans, diag, m, n, &one, a, lda, b, ldb);
  }
}

}  // namespace ember::lapack
