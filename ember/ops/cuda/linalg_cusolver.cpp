// CUDA's DeviceLapack (Note [Device linear algebra], ember/ops/linalg_device.h) on cuSOLVER's
// dense routines: the 64-bit generic API (cusolverDnXgetrf/getrs/potrf/geqrf/syevd/gesvd) and
// the typed orgqr/ungqr, one matrix after another on the current stream, each writing its
// info to the device (no host synchronisation here). float, double, complex64, complex128.
// cuSOLVER is opened on first use (Note [CUDA libraries loaded on first use]).
//
// Left for later: the batched variants for many small matrices (getrfBatched,
// syevjBatched, gesvdjBatched), which PyTorch picks below certain sizes; a batch here costs
// one launch sequence per matrix.
#include <cusolverDn.h>

#include <array>
#include <climits>
#include <vector>

#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/ops/functions.h"
#include "ember/ops/linalg_device.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

// The cuSOLVER entry points ember calls, typed from cusolverDn.h.
struct Cusolver {
  decltype(&cusolverDnCreate) create;
  decltype(&cusolverDnSetStream) set_stream;
  decltype(&cusolverDnCreateParams) create_params;
  decltype(&cusolverDnXgetrf_bufferSize) getrf_size;
  decltype(&cusolverDnXgetrf) getrf;
  decltype(&cusolverDnXgetrs) getrs;
  decltype(&cusolverDnXpotrf_bufferSize) potrf_size;
  decltype(&cusolverDnXpotrf) potrf;
  decltype(&cusolverDnXgeqrf_bufferSize) geqrf_size;
  decltype(&cusolverDnXgeqrf) geqrf;
  decltype(&cusolverDnXsyevd_bufferSize) syevd_size;
  decltype(&cusolverDnXsyevd) syevd;
  decltype(&cusolverDnXgesvd_bufferSize) gesvd_size;
  decltype(&cusolverDnXgesvd) gesvd;
  decltype(&cusolverDnSorgqr_bufferSize) sorgqr_size;
  decltype(&cusolverDnDorgqr_bufferSize) dorgqr_size;
  decltype(&cusolverDnCungqr_bufferSize) cungqr_size;
  decltype(&cusolverDnZungqr_bufferSize) zungqr_size;
  decltype(&cusolverDnSorgqr) sorgqr;
  decltype(&cusolverDnDorgqr) dorgqr;
  decltype(&cusolverDnCungqr) cungqr;
  decltype(&cusolverDnZungqr) zungqr;
};

const Cusolver& cusolver() {
  static const Cusolver api = [] {
    static detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcusolver", CUSOLVER_VER_MAJOR), "cuSOLVER");
#define EMBER_RESOLVE(name) lib.resolve(&name, #name)
    return Cusolver{EMBER_RESOLVE(cusolverDnCreate),         EMBER_RESOLVE(cusolverDnSetStream),
                    EMBER_RESOLVE(cusolverDnCreateParams),   EMBER_RESOLVE(cusolverDnXgetrf_bufferSize),
                    EMBER_RESOLVE(cusolverDnXgetrf),         EMBER_RESOLVE(cusolverDnXgetrs),
                    EMBER_RESOLVE(cusolverDnXpotrf_bufferSize), EMBER_RESOLVE(cusolverDnXpotrf),
                    EMBER_RESOLVE(cusolverDnXgeqrf_bufferSize), EMBER_RESOLVE(cusolverDnXgeqrf),
                    EMBER_RESOLVE(cusolverDnXsyevd_bufferSize), EMBER_RESOLVE(cusolverDnXsyevd),
                    EMBER_RESOLVE(cusolverDnXgesvd_bufferSize), EMBER_RESOLVE(cusolverDnXgesvd),
                    EMBER_RESOLVE(cusolverDnSorgqr_bufferSize), EMBER_RESOLVE(cusolverDnDorgqr_bufferSize),
                    EMBER_RESOLVE(cusolverDnCungqr_bufferSize), EMBER_RESOLVE(cusolverDnZungqr_bufferSize),
                    EMBER_RESOLVE(cusolverDnSorgqr),         EMBER_RESOLVE(cusolverDnDorgqr),
                    EMBER_RESOLVE(cusolverDnCungqr),         EMBER_RESOLVE(cusolverDnZungqr)};
#undef EMBER_RESOLVE
  }();
  return api;
}

const char* status_name(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "an unknown cuSOLVER status";
  }
}

#define EMBER_CUSOLVER_CHECK(expr)                                                                     \
  do {                                                                                                 \
    const cusolverStatus_t ember_cusolver_st_ = (expr);                                                \
    EMBER_CHECK(ember_cusolver_st_ == CUSOLVER_STATUS_SUCCESS, "cuSOLVER error: ",                     \
                status_name(ember_cusolver_st_), " (", int(ember_cusolver_st_), ") in ", #expr);       \
  } while (0)

// A handle (and default parameters) per device and thread (cuSOLVER handles are not
// thread-safe), bound to the current stream at each call. Never destroyed: the driver may be
// gone at exit.
struct Session {
  cusolverDnHandle_t handle;
  cusolverDnParams_t params;
  cudaStream_t stream;
};

Session session_for(const Tensor& a) {
  const DeviceIndex dev = a.device().index();
  thread_local std::array<cusolverDnHandle_t, kMaxDevices> handles{};
  thread_local std::array<cusolverDnParams_t, kMaxDevices> params{};
  cusolverDnHandle_t& h = handles[size_t(dev)];
  if (!h) {
    EMBER_CUSOLVER_CHECK(cusolver().create(&h));
    EMBER_CUSOLVER_CHECK(cusolver().create_params(&params[size_t(dev)]));
  }
  const cudaStream_t stream = getCurrentCUDAStream(dev).stream();
  EMBER_CUSOLVER_CHECK(cusolver().set_stream(h, stream));
  return {h, params[size_t(dev)], stream};
}

cudaDataType type_of(ScalarType t) {
  switch (t) {
    case kFloat: return CUDA_R_32F;
    case kDouble: return CUDA_R_64F;
    case kComplexFloat: return CUDA_C_32F;
    case kComplexDouble: return CUDA_C_64F;
    default: EMBER_CHECK_TYPE(false, "cuSOLVER: expected float, double, complex64 or complex128, got ", t);
  }
  return CUDA_R_32F;
}
cudaDataType real_type_of(ScalarType t) { return type_of(toRealValueType(t)); }

// A batch of packed column-major matrices (colmajor_copy's layout) on one CUDA device.
struct Matrices {
  char* data;
  int64_t rows, cols, count, bytes_each;
  char* at(int64_t i) const { return data + i * bytes_each; }
};
Matrices matrices_of(const Tensor& t, const char* what) {
  EMBER_CHECK(t.is_cuda() && t.dim() >= 2, "cuSOLVER ", what, ": expected a batch of matrices on a CUDA device, got ",
              t.sizes(), " on ", t.device());
  const int64_t rows = t.size(-2), cols = t.size(-1);
  EMBER_INTERNAL_ASSERT(t.transpose(-2, -1).is_contiguous(), "cuSOLVER ", what,
                        ": matrices must be column-major and packed one after another, got strides ", t.strides());
  int64_t count = 1;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) count *= t.size(d);
  return {static_cast<char*>(t.data_ptr()), rows, cols, count, rows * cols * int64_t(t.element_size())};
}

// Device and host workspaces of the sizes a _bufferSize query answered.
struct Workspace {
  Tensor device;
  std::vector<char> host;
  void* d() { return device.numel() ? device.data_ptr() : nullptr; }
  void* h() { return host.empty() ? nullptr : host.data(); }
};
Workspace workspace(const Tensor& like, size_t device_bytes, size_t host_bytes) {
  Workspace w;
  w.device = empty({int64_t(std::max<size_t>(device_bytes, 1))}, like.options().dtype(kByte));
  w.host.resize(host_bytes);
  return w;
}

int* int_ptr(const Tensor& t, int64_t i) { return static_cast<int*>(t.data_ptr()) + i; }

// ---- the routines ----------------------------------------------------------------------------

void getrf(const Tensor& a, const Tensor& pivots, const Tensor& infos) {
  CUDAGuard guard(a.device());
  const Matrices A = matrices_of(a, "getrf");
  const Session s = session_for(a);
  const int64_t m = A.rows, n = A.cols, k = std::min(m, n), lda = std::max<int64_t>(m, 1);
  const cudaDataType t = type_of(a.scalar_type());
  const int64_t kk = std::max<int64_t>(k, 1);  // ipiv's row stride
  Tensor ipiv = empty({A.count, kk}, a.options().dtype(kLong));
  size_t dbytes = 0, hbytes = 0;
  EMBER_CUSOLVER_CHECK(cusolver().getrf_size(s.handle, s.params, m, n, t, A.data, lda, t, &dbytes, &hbytes));
  Workspace w = workspace(a, dbytes, hbytes);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(cusolver().getrf(s.handle, s.params, m, n, t, A.at(i), lda, ipiv.data_ptr<int64_t>() + i * kk,
                                          t, w.d(), dbytes, w.h(), hbytes, int_ptr(infos, i)));
  if (k > 0) pivots.copy_(ipiv.narrow(1, 0, k).reshape(pivots.sizes()));
}

void getrs(const Tensor& lu, const Tensor& pivots, const Tensor& b, char trans) {
  CUDAGuard guard(lu.device());
  const Matrices A = matrices_of(lu, "getrs"), B = matrices_of(b, "getrs");
  EMBER_INTERNAL_ASSERT(A.count == B.count && A.rows == A.cols && B.rows == A.rows, "cuSOLVER getrs: shapes ",
                        lu.sizes(), " and ", b.sizes());
  const Session s = session_for(lu);
  const int64_t n = A.rows, ld = std::max<int64_t>(n, 1);
  const cudaDataType t = type_of(lu.scalar_type());
  const cublasOperation_t op = trans == 'N' ? CUBLAS_OP_N : trans == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C;
  const Tensor ipiv = pivots.to(kLong).contiguous();
  Tensor info = empty({A.count}, lu.options().dtype(kInt));
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(cusolver().getrs(s.handle, s.params, op, n, B.cols, t, A.at(i), ld,
                                          ipiv.data_ptr<int64_t>() + i * n, t, B.at(i), ld, int_ptr(info, i)));
}

void potrf(const Tensor& a, bool upper, const Tensor& infos) {
  CUDAGuard guard(a.device());
  const Matrices A = matrices_of(a, "potrf");
  const Session s = session_for(a);
  const int64_t n = A.rows, ld = std::max<int64_t>(n, 1);
  const cudaDataType t = type_of(a.scalar_type());
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  size_t dbytes = 0, hbytes = 0;
  EMBER_CUSOLVER_CHECK(cusolver().potrf_size(s.handle, s.params, uplo, n, t, A.data, ld, t, &dbytes, &hbytes));
  Workspace w = workspace(a, dbytes, hbytes);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(cusolver().potrf(s.handle, s.params, uplo, n, t, A.at(i), ld, t, w.d(), dbytes, w.h(),
                                          hbytes, int_ptr(infos, i)));
}

void geqrf(const Tensor& a, const Tensor& tau) {
  CUDAGuard guard(a.device());
  const Matrices A = matrices_of(a, "geqrf");
  const Session s = session_for(a);
  const int64_t m = A.rows, n = A.cols, k = std::min(m, n), lda = std::max<int64_t>(m, 1);
  const cudaDataType t = type_of(a.scalar_type());
  EMBER_INTERNAL_ASSERT(tau.is_contiguous() && tau.numel() == A.count * k, "cuSOLVER geqrf: tau ", tau.sizes());
  char* tau_base = static_cast<char*>(tau.data_ptr());
  const int64_t tau_bytes = k * int64_t(tau.element_size());
  size_t dbytes = 0, hbytes = 0;
  EMBER_CUSOLVER_CHECK(cusolver().geqrf_size(s.handle, s.params, m, n, t, A.data, lda, t, tau_base, t, &dbytes, &hbytes));
  Workspace w = workspace(a, dbytes, hbytes);
  Tensor info = empty({A.count}, a.options().dtype(kInt));
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(cusolver().geqrf(s.handle, s.params, m, n, t, A.at(i), lda, t, tau_base + i * tau_bytes, t,
                                          w.d(), dbytes, w.h(), hbytes, int_ptr(info, i)));
}

// orgqr (real) / ungqr (complex): 32-bit sizes, workspace in elements.
template <class T, class SizeFn, class RunFn>
void orgqr_typed(const Tensor& a, const Tensor& tau, const Session& s, const Matrices& A, int k, SizeFn size_fn,
                 RunFn run_fn) {
  const int m = int(A.rows), n = int(A.cols), lda = std::max(m, 1);
  T* base = reinterpret_cast<T*>(A.data);
  const T* tau_base = static_cast<const T*>(tau.data_ptr());
  int lwork = 0;
  EMBER_CUSOLVER_CHECK(size_fn(s.handle, m, n, k, base, lda, tau_base, &lwork));
  Tensor work = empty({std::max(lwork, 1)}, a.options());
  Tensor info = empty({A.count}, a.options().dtype(kInt));
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(run_fn(s.handle, m, n, k, reinterpret_cast<T*>(A.at(i)), lda, tau_base + i * k,
                                static_cast<T*>(work.data_ptr()), lwork, int_ptr(info, i)));
}

void orgqr(const Tensor& a, const Tensor& tau) {
  CUDAGuard guard(a.device());
  const Matrices A = matrices_of(a, "orgqr");
  EMBER_CHECK(A.rows <= INT_MAX && A.cols <= INT_MAX && A.rows * A.cols <= INT_MAX, "cuSOLVER orgqr: matrices of ",
              A.rows, " x ", A.cols, " exceed its 32-bit sizes");
  const Tensor t = tau.contiguous();
  const int k = int(t.size(-1));
  if (k == 0) {  // no reflectors: Q's first columns are the identity's
    a.zero_();
    a.diagonal(0, -2, -1).fill_(1);
    return;
  }
  EMBER_INTERNAL_ASSERT(t.numel() == A.count * k, "cuSOLVER orgqr: tau ", t.sizes(), " for ", A.count, " matrices");
  const Session s = session_for(a);
  const Cusolver& c = cusolver();
  switch (a.scalar_type()) {
    case kFloat: return orgqr_typed<float>(a, t, s, A, k, c.sorgqr_size, c.sorgqr);
    case kDouble: return orgqr_typed<double>(a, t, s, A, k, c.dorgqr_size, c.dorgqr);
    case kComplexFloat: return orgqr_typed<cuComplex>(a, t, s, A, k, c.cungqr_size, c.cungqr);
    case kComplexDouble: return orgqr_typed<cuDoubleComplex>(a, t, s, A, k, c.zungqr_size, c.zungqr);
    default: type_of(a.scalar_type());
  }
}

void syevd(const Tensor& a, const Tensor& w, bool vectors, bool upper, const Tensor& infos) {
  CUDAGuard guard(a.device());
  const Matrices A = matrices_of(a, "syevd");
  const Session s = session_for(a);
  const int64_t n = A.rows, ld = std::max<int64_t>(n, 1);
  const cudaDataType t = type_of(a.scalar_type()), rt = real_type_of(a.scalar_type());
  const cusolverEigMode_t jobz = vectors ? CUSOLVER_EIG_MODE_VECTOR : CUSOLVER_EIG_MODE_NOVECTOR;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  EMBER_INTERNAL_ASSERT(w.is_contiguous() && w.numel() == A.count * n, "cuSOLVER syevd: w ", w.sizes());
  char* w_base = static_cast<char*>(w.data_ptr());
  const int64_t w_bytes = n * int64_t(w.element_size());
  size_t dbytes = 0, hbytes = 0;
  EMBER_CUSOLVER_CHECK(cusolver().syevd_size(s.handle, s.params, jobz, uplo, n, t, A.data, ld, rt, w_base, t, &dbytes,
                                             &hbytes));
  Workspace ws = workspace(a, dbytes, hbytes);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(cusolver().syevd(s.handle, s.params, jobz, uplo, n, t, A.at(i), ld, rt, w_base + i * w_bytes,
                                          t, ws.d(), dbytes, ws.h(), hbytes, int_ptr(infos, i)));
}

void gesvd(const Tensor& a, const Tensor& sv, const Tensor& u, const Tensor& vh, char jobz, const Tensor& infos) {
  CUDAGuard guard(a.device());
  const Matrices A = matrices_of(a, "gesvd");
  const int64_t m = A.rows, n = A.cols;
  EMBER_INTERNAL_ASSERT(m >= n, "cuSOLVER gesvd: needs m >= n, got ", m, " x ", n);
  const Session s = session_for(a);
  const cudaDataType t = type_of(a.scalar_type()), rt = real_type_of(a.scalar_type());
  const bool vectors = jobz != 'N';
  const signed char job = static_cast<signed char>(jobz);
  Matrices U{nullptr, m, 0, 0, 0}, V{nullptr, n, 0, 0, 0};
  if (vectors) U = matrices_of(u, "gesvd"), V = matrices_of(vh, "gesvd");
  EMBER_INTERNAL_ASSERT(sv.is_contiguous() && sv.numel() == A.count * n, "cuSOLVER gesvd: s ", sv.sizes());
  char* s_base = static_cast<char*>(sv.data_ptr());
  const int64_t s_bytes = n * int64_t(sv.element_size());
  const int64_t lda = std::max<int64_t>(m, 1), ldu = lda, ldvt = std::max<int64_t>(n, 1);
  size_t dbytes = 0, hbytes = 0;
  EMBER_CUSOLVER_CHECK(cusolver().gesvd_size(s.handle, s.params, job, job, m, n, t, A.data, lda, rt, s_base, t, U.data,
                                             ldu, t, V.data, ldvt, t, &dbytes, &hbytes));
  Workspace w = workspace(a, dbytes, hbytes);
  for (int64_t i = 0; i < A.count; ++i)
    EMBER_CUSOLVER_CHECK(cusolver().gesvd(s.handle, s.params, job, job, m, n, t, A.at(i), lda, rt, s_base + i * s_bytes,
                                          t, vectors ? U.at(i) : nullptr, ldu, t, vectors ? V.at(i) : nullptr, ldvt, t,
                                          w.d(), dbytes, w.h(), hbytes, int_ptr(infos, i)));
}

const DeviceLapack kCusolverLapack{&getrf, &getrs, &potrf, &geqrf, &orgqr, &syevd, &gesvd};
const DeviceLapack* cusolver_lapack() { return &kCusolverLapack; }

const KernelRegistrar<DeviceLapackFn> lapack_reg("device_lapack", kCUDA, CpuCapability::Default, &cusolver_lapack);

}  // namespace
}  // namespace ember::cuda
