// The CPU GEMM backend choice: Float goes to oneDNN's AVX-512 matmul or to OpenBLAS by
// shape, BFloat16 to oneDNN, Double and complex to OpenBLAS (gemm, or gemv/dot for vector
// shapes), integers to the fallback loops of cpu/gemm_kernels.cpp. See blas.h.
#include "ember/ops/blas.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <complex>
#include <mutex>
#include <vector>

#include "ember/core/parallel.h"
#include "ember/ops/arm_bf16.h"
#include "ember/ops/dispatch.h"
#include "ember/ops/op_def.h"

namespace ember {

// The integer fallback kernels (cpu/gemm_kernels.cpp, one per instruction set).
OpDef<GemmFn> gemm_fallback_op(OpInfo{.name = "_gemm_fallback", .fusion = FusionClass::Opaque,
                                      .dtypes = kIntegralTypes});

namespace blas {

// Note [BLAS threads]
// OpenBLAS (the Debian pthreads build) keeps its own pool of threads that busy-wait for
// ~0.1 s after each call. On a machine whose cores ember's OpenMP pool already uses (for
// oneDNN and every elementwise op) those spinning threads steal the cores: measured on the
// 2-core dev machine, a 256x256 oneDNN matmul right after an OpenBLAS dgemm took 8 ms
// instead of 0.16 ms. So OpenBLAS runs single-threaded inside ember's OpenMP pool: every
// BLAS GEMM is split into get_num_threads() pieces (batch elements, or row/column blocks
// of C) by parallel_for, and the degree of parallelism follows set_num_threads exactly,
// with a single pool of threads for BLAS, oneDNN and the elementwise engine.
void sync_threads() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}
// At load time too, so that every OpenBLAS call in the process follows the rule.
const bool g_blas_threads_synced = (sync_threads(), true);

}  // namespace blas

namespace {

constexpr int64_t kBlasIntMax = INT_MAX;

CBLAS_TRANSPOSE cblas_trans(BlasTrans t) {
  return t == BlasTrans::N ? CblasNoTrans : t == BlasTrans::T ? CblasTrans : CblasConjTrans;
}

template <class T> T scalar_as(const Scalar& s) {
  if constexpr (is_complex_v<T>) {
    Complex<double> z = s.toComplexDouble();
    return T(typename T::value_type(z.real()), typename T::value_type(z.imag()));
  } else {
    return T(s.toDouble());
  }
}

// C = beta * C (the k == 0 case), beta == 0 writing zeros.
template <class T>
void scale_c(const GemmArgs& g) {
  T beta = scalar_as<T>(g.beta);
  const bool zero = g.beta.toComplexDouble() == Complex<double>(0);
  parallel_for(0, g.batch * g.m, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      T* row = static_cast<T*>(g.c) + (r / g.m) * g.stride_c + (r % g.m) * g.ldc;
      for (int64_t j = 0; j < g.n; ++j) row[j] = zero ? T(0) : T(beta * row[j]);
    }
  });
}

// One OpenBLAS call for one matrix (or block of one), single-threaded (Note [BLAS threads]).
template <class T>
void blas_one(BlasTrans ta, BlasTrans tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda,
              const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const int M = int(m), N = int(n), K = int(k), LDA = int(lda), LDB = int(ldb), LDC = int(ldc);
  // Vector shapes go to dot / gemv, which are memory-bound and much cheaper to call.
  const bool beta_zero = beta == T(0);
  if (m == 1 && n == 1 && tb != BlasTrans::C) {
    // x = row of op(A): stored contiguously (N) or as a column with stride lda (T/C).
    const int incx = ta == BlasTrans::N ? 1 : LDA;
    const int incy = tb == BlasTrans::N ? LDB : 1;
    T r;
    if constexpr (std::is_same_v<T, float>) r = cblas_sdot(K, a, incx, b, incy);
    else if constexpr (std::is_same_v<T, double>) r = cblas_ddot(K, a, incx, b, incy);
    else if constexpr (std::is_same_v<T, Complex<float>>) {
      if (ta == BlasTrans::C) cblas_cdotc_sub(K, a, incx, b, incy, &r);
      else cblas_cdotu_sub(K, a, incx, b, incy, &r);
    } else {
      if (ta == BlasTrans::C) cblas_zdotc_sub(K, a, incx, b, incy, &r);
      else cblas_zdotu_sub(K, a, incx, b, incy, &r);
    }
    *c = beta_zero ? T(alpha * r) : T(alpha * r + beta * *c);
    return;
  }
  if (n == 1 && tb != BlasTrans::C) {
    // y (m) = op(A) x, x = column of op(B): stored with stride ldb (N) or contiguously (T).
    const int incx = tb == BlasTrans::N ? LDB : 1;
    const CBLAS_TRANSPOSE t = ta == BlasTrans::N ? CblasNoTrans : cblas_trans(ta);
    const int rows = ta == BlasTrans::N ? M : K, cols = ta == BlasTrans::N ? K : M;
    if (beta_zero)
      for (int64_t i = 0; i < m; ++i) c[i * ldc] = T(0);  // gemv with beta 0 must not read NaN
    if constexpr (std::is_same_v<T, float>) cblas_sgemv(CblasRowMajor, t, rows, cols, alpha, a, LDA, b, incx, beta, c, LDC);
    else if constexpr (std::is_same_v<T, double>) cblas_dgemv(CblasRowMajor, t, rows, cols, alpha, a, LDA, b, incx, beta, c, LDC);
    else if constexpr (std::is_same_v<T, Complex<float>>) cblas_cgemv(CblasRowMajor, t, rows, cols, &alpha, a, LDA, b, incx, &beta, c, LDC);
    else cblas_zgemv(CblasRowMajor, t, rows, cols, &alpha, a, LDA, b, incx, &beta, c, LDC);
    return;
  }
  if (m == 1 && ta != BlasTrans::C && tb != BlasTrans::C) {
    // y (n) = op(B)^T x, x = row of op(A): stored contiguously (N) or with stride lda (T).
    const int incx = ta == BlasTrans::N ? 1 : LDA;
    const CBLAS_TRANSPOSE t = tb == BlasTrans::N ? CblasTrans : CblasNoTrans;
    const int rows = tb == BlasTrans::N ? K : N, cols = tb == BlasTrans::N ? N : K;
    if (beta_zero)
      for (int64_t j = 0; j < n; ++j) c[j] = T(0);
    if constexpr (std::is_same_v<T, float>) cblas_sgemv(CblasRowMajor, t, rows, cols, alpha, b, LDB, a, incx, beta, c, 1);
    else if constexpr (std::is_same_v<T, double>) cblas_dgemv(CblasRowMajor, t, rows, cols, alpha, b, LDB, a, incx, beta, c, 1);
    else if constexpr (std::is_same_v<T, Complex<float>>) cblas_cgemv(CblasRowMajor, t, rows, cols, &alpha, b, LDB, a, incx, &beta, c, 1);
    else cblas_zgemv(CblasRowMajor, t, rows, cols, &alpha, b, LDB, a, incx, &beta, c, 1);
    return;
  }
  const CBLAS_TRANSPOSE TA = cblas_trans(ta), TB = cblas_trans(tb);
  if constexpr (std::is_same_v<T, float>) cblas_sgemm(CblasRowMajor, TA, TB, M, N, K, alpha, a, LDA, b, LDB, beta, c, LDC);
  else if constexpr (std::is_same_v<T, double>) cblas_dgemm(CblasRowMajor, TA, TB, M, N, K, alpha, a, LDA, b, LDB, beta, c, LDC);
  else if constexpr (std::is_same_v<T, Complex<float>>) cblas_cgemm(CblasRowMajor, TA, TB, M, N, K, &alpha, a, LDA, b, LDB, &beta, c, LDC);
  else cblas_zgemm(CblasRowMajor, TA, TB, M, N, K, &alpha, a, LDA, b, LDB, &beta, c, LDC);
}

// Multiply-adds below which a GEMM runs on the calling thread (OpenBLAS's own threshold).
constexpr double kParallelMacs = 64.0 * 64 * 64;

// Strided-batched GEMM through OpenBLAS, partitioned over ember's threads.
template <class T>
void blas_gemm(const GemmArgs& g) {
  blas::sync_threads();
  const T alpha = scalar_as<T>(g.alpha), beta = scalar_as<T>(g.beta);
  const T* A = static_cast<const T*>(g.a);
  const T* B = static_cast<const T*>(g.b);
  T* C = static_cast<T*>(g.c);
  const double macs = double(g.m) * g.n * g.k * g.batch;
  const int nt = get_num_threads();
  if (nt == 1 || macs <= kParallelMacs || in_parallel_region()) {
    for (int64_t i = 0; i < g.batch; ++i)
      blas_one<T>(g.ta, g.tb, g.m, g.n, g.k, alpha, A + i * g.stride_a, g.lda, B + i * g.stride_b, g.ldb, beta,
                  C + i * g.stride_c, g.ldc);
    return;
  }
  // Pieces per matrix: enough that batch * pieces covers the threads. Split the longer side
  // of C into blocks that are multiples of 16 (whole register tiles).
  const int64_t pieces_wanted = std::max<int64_t>(1, (nt + g.batch - 1) / g.batch);
  const bool split_m = g.m >= g.n;
  const int64_t len = split_m ? g.m : g.n;
  const int64_t block = std::max<int64_t>(16, ((len + pieces_wanted - 1) / pieces_wanted + 15) / 16 * 16);
  const int64_t pieces = (len + block - 1) / block;
  parallel_for(0, g.batch * pieces, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bi = t / pieces, p0 = (t % pieces) * block, p1 = std::min(len, p0 + block);
      const T* a = A + bi * g.stride_a;
      const T* b = B + bi * g.stride_b;
      T* c = C + bi * g.stride_c;
      if (split_m) {
        a += g.ta == BlasTrans::N ? p0 * g.lda : p0;
        blas_one<T>(g.ta, g.tb, p1 - p0, g.n, g.k, alpha, a, g.lda, b, g.ldb, beta, c + p0 * g.ldc, g.ldc);
      } else {
        b += g.tb == BlasTrans::N ? p0 : p0 * g.ldb;
        blas_one<T>(g.ta, g.tb, g.m, p1 - p0, g.k, alpha, a, g.lda, b, g.ldb, beta, c + p0, g.ldc);
      }
    }
  });
}

void check_blas_int(const GemmArgs& g) {
  for (int64_t v : {g.m, g.n, g.k, g.lda, g.ldb, g.ldc})
    EMBER_CHECK(v <= kBlasIntMax, "matmul: matrix dimension or leading dimension ", v,
                " exceeds the BLAS limit of 2^31-1 elements");
}

// A BFloat16 product where oneDNN has none (it needs AVX-512 for BFloat16; an AVX2-only CPU has
// no BFloat16 matmul at all): the operands widened to float (exactly), one float GEMM with the
// same layout, C rounded back once. PyTorch's own CPU kernel also accumulates BFloat16 in float.
void bf16_gemm_via_float(const GemmArgs& g) {
  // The elements a row-major matrix of rows x cols (stored transposed when `trans`) spans.
  auto span = [&](bool trans, int64_t rows, int64_t cols, int64_t ld, int64_t stride) {
    const int64_t r = trans ? cols : rows, c = trans ? rows : cols;
    return (g.batch - 1) * stride + (r - 1) * ld + c;
  };
  auto widen = [](const void* src, int64_t n) {
    std::vector<float> out(static_cast<size_t>(n));
    const BFloat16* p = static_cast<const BFloat16*>(src);
    for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<float>(p[i]);
    return out;
  };
  const std::vector<float> a = widen(g.a, span(g.ta != BlasTrans::N, g.m, g.k, g.lda, g.stride_a));
  const std::vector<float> b = widen(g.b, span(g.tb != BlasTrans::N, g.k, g.n, g.ldb, g.stride_b));
  const int64_t c_span = span(false, g.m, g.n, g.ldc, g.stride_c);
  const bool reads_c = scalar_as<float>(g.beta) != 0.0f;
  std::vector<float> c = reads_c ? widen(g.c, c_span) : std::vector<float>(static_cast<size_t>(c_span));
  GemmArgs f = g;
  f.dtype = kFloat, f.a = a.data(), f.b = b.data(), f.c = c.data();
  blas_gemm<float>(f);
  BFloat16* out = static_cast<BFloat16*>(g.c);
  for (int64_t bi = 0; bi < g.batch; ++bi)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        const int64_t at = bi * g.stride_c + i * g.ldc + j;
        out[at] = BFloat16(c[static_cast<size_t>(at)]);
      }
}

#if defined(__aarch64__)
// The BF16 extension's product (arm_bf16.h), its two parts over the threads.
void arm_bf16_gemm(const GemmArgs& g) {
  arm::Bf16Gemm p;
  p.m = g.m, p.n = g.n, p.k = g.k, p.batch = g.batch;
  p.ta = g.ta != BlasTrans::N, p.tb = g.tb != BlasTrans::N;  // conjugation: none for real types
  p.a = static_cast<const uint16_t*>(g.a), p.lda = g.lda, p.stride_a = g.stride_a;
  p.b = static_cast<const uint16_t*>(g.b), p.ldb = g.ldb, p.stride_b = g.stride_b;
  p.c = static_cast<uint16_t*>(g.c), p.ldc = g.ldc, p.stride_c = g.stride_c;
  p.alpha = scalar_as<float>(g.alpha), p.beta = scalar_as<float>(g.beta);
  std::vector<uint16_t> packed(static_cast<size_t>(p.packed_b_size()));
  // Work items of at least ~32K element copies (a column tile: 8 k) and ~64K multiply-adds (a
  // row tile: 64 k per column tile).
  const int64_t k = std::max<int64_t>(g.k, 1), col_tiles_per_c = (g.n + 7) / 8;
  parallel_for(0, p.col_tiles(), std::max<int64_t>(1, 4096 / k),
               [&](int64_t t0, int64_t t1) { p.pack_b(packed.data(), t0, t1); });
  parallel_for(0, p.row_tiles(), std::max<int64_t>(1, 1024 / (k * col_tiles_per_c)),
               [&](int64_t t0, int64_t t1) { p.rows(packed.data(), t0, t1); });
}
#endif

}  // namespace

void cpu_gemm(const GemmArgs& g) {
  if (g.m == 0 || g.n == 0 || g.batch == 0) return;
  EMBER_INTERNAL_ASSERT(g.batch == 1 || g.stride_c != 0, "gemm: C batch stride 0");
  if (g.batch > 1 && g.stride_a == 0 && g.stride_b == 0) {
    // One product for every batch element (only C differs): one GEMM per C matrix.
    GemmArgs one = g;
    one.batch = 1;
    for (int64_t i = 0; i < g.batch; ++i) {
      one.c = static_cast<char*>(g.c) + i * g.stride_c * int64_t(element_size(g.dtype));
      cpu_gemm(one);
    }
    return;
  }
  if (isIntegralType(g.dtype, false)) {
    GemmFn k = gemm_fallback_op.kernel(kCPU);
    EMBER_INTERNAL_ASSERT(k != nullptr, "no _gemm_fallback kernel");
    k(g);
    return;
  }
  if (g.k == 0) {
    constexpr DtypeSet kScaled{kFloat, kDouble, kComplexFloat, kComplexDouble};
    if (g.dtype == kBFloat16) {
      scale_c<BFloat16>(g);
      return;
    }
    visit_dtype<kScaled>(g.dtype, "gemm", [&](auto tag) { scale_c<typename decltype(tag)::type>(g); });
    return;
  }
  switch (g.dtype) {
    case kFloat:
      if (!g.prefer_blas && blas::prefer_dnnl_f32(g) && blas::dnnl_gemm(g)) return;
      check_blas_int(g);
      blas_gemm<float>(g);
      return;
    case kBFloat16:
      if (blas::dnnl_gemm(g)) return;
#if defined(__aarch64__)
      if (arm::has_bf16()) {  // Debian's oneDNN has no bfloat16 on Arm: BFMMLA (arm_bf16.h)
        arm_bf16_gemm(g);
        return;
      }
#endif
      check_blas_int(g);
      bf16_gemm_via_float(g);
      return;
    case kDouble: check_blas_int(g); blas_gemm<double>(g); return;
    case kComplexFloat: check_blas_int(g); blas_gemm<Complex<float>>(g); return;
    case kComplexDouble: check_blas_int(g); blas_gemm<Complex<double>>(g); return;
    default: break;
  }
  EMBER_INTERNAL_ASSERT(false, "cpu_gemm: unexpected dtype ", g.dtype);
}

}  // namespace ember
