// The matmul family's CUDA kernel: the row-major strided-batched GEMM of blas.h on cuBLAS
// (cublasGemmStridedBatchedEx_64: 64-bit sizes) on the current stream. Row-major C = op(A) op(B) is
// column-major C^T = op(B)^T op(A)^T, so cuBLAS gets B first, A second, n x m.
// Float uses TF32 tensor cores only when allowed (Context::setAllowTF32CuBLAS, off by
// default as in PyTorch since 1.12); Half and BFloat16 accumulate in float. As in PyTorch,
// integer GEMMs are not implemented on CUDA. cuBLAS is opened on first use (Note [CUDA
// libraries loaded on first use], ember/cuda/lazy_library.h).
#include <cublas_v2.h>

#include <array>

#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/ops/blas.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

// The cuBLAS entry points ember calls, typed from cublas_api.h.
struct Cublas {
  decltype(&cublasCreate_v2) create;
  decltype(&cublasSetStream_v2) set_stream;
  decltype(&cublasGemmStridedBatchedEx_64) gemm_strided_batched_ex;
  decltype(&cublasGetStatusString) status_string;
};

const Cublas& cublas() {
  static const Cublas api = [] {
    static detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcublas", CUBLAS_VER_MAJOR), "cuBLAS");
    return Cublas{lib.resolve(&cublasCreate_v2, "cublasCreate_v2"),
                  lib.resolve(&cublasSetStream_v2, "cublasSetStream_v2"),
                  lib.resolve(&cublasGemmStridedBatchedEx_64, "cublasGemmStridedBatchedEx_64"),
                  lib.resolve(&cublasGetStatusString, "cublasGetStatusString")};
  }();
  return api;
}

#define EMBER_CUBLAS_CHECK(expr)                                                                       \
  do {                                                                                                 \
    const cublasStatus_t ember_cublas_st_ = (expr);                                                    \
    EMBER_CHECK(ember_cublas_st_ == CUBLAS_STATUS_SUCCESS, "cuBLAS error: ",                           \
                cublas().status_string(ember_cublas_st_), " in ", #expr);                              \
  } while (0)

// One handle per device and thread (cuBLAS handles are not thread-safe), bound to the
// current stream at each call. Never destroyed: the driver may be gone at exit.
cublasHandle_t handle(DeviceIndex index) {
  thread_local std::array<cublasHandle_t, kMaxDevices> handles{};
  cublasHandle_t& h = handles[size_t(index)];
  if (!h) EMBER_CUBLAS_CHECK(cublas().create(&h));
  return h;
}

cublasOperation_t op_of(BlasTrans t) {
  return t == BlasTrans::N ? CUBLAS_OP_N : t == BlasTrans::T ? CUBLAS_OP_T : CUBLAS_OP_C;
}

void cuda_gemm(const GemmArgs& g) {
  cudaDataType_t type;
  cublasComputeType_t compute;
  // alpha and beta in the compute precision (cuBLAS reads them from host memory).
  alignas(16) unsigned char alpha[16], beta[16];
  auto put = [](unsigned char* dst, auto v) { std::memcpy(dst, &v, sizeof v); };
  const Complex<double> a = g.alpha.toComplexDouble(), b = g.beta.toComplexDouble();
  switch (g.dtype) {
    case kFloat:
      type = CUDA_R_32F;
      compute = globalContext().allowTF32CuBLAS() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
      put(alpha, float(a.real())), put(beta, float(b.real()));
      break;
    case kDouble:
      type = CUDA_R_64F, compute = CUBLAS_COMPUTE_64F;
      put(alpha, a.real()), put(beta, b.real());
      break;
    case kHalf:
    case kBFloat16:
      type = g.dtype == kHalf ? CUDA_R_16F : CUDA_R_16BF, compute = CUBLAS_COMPUTE_32F;
      put(alpha, float(a.real())), put(beta, float(b.real()));
      break;
    case kComplexFloat:
      type = CUDA_C_32F, compute = CUBLAS_COMPUTE_32F;
      put(alpha, Complex<float>(float(a.real()), float(a.imag()))), put(beta, Complex<float>(float(b.real()), float(b.imag())));
      break;
    case kComplexDouble:
      type = CUDA_C_64F, compute = CUBLAS_COMPUTE_64F;
      put(alpha, a), put(beta, b);
      break;
    default:
      EMBER_CHECK_TYPE(false, "\"addmm_cuda\" not implemented for '", g.dtype, "' (CUDA matrix products take "
                       "floating and complex types)");
  }
  const DeviceIndex dev = current_device();
  cublasHandle_t h = handle(dev);
  EMBER_CUBLAS_CHECK(cublas().set_stream(h, getCurrentCUDAStream(dev).stream()));
  EMBER_CUBLAS_CHECK(cublas().gemm_strided_batched_ex(
      h, op_of(g.tb), op_of(g.ta), g.n, g.m, g.k, alpha, g.b, type, g.ldb, g.stride_b, g.a, type, g.lda, g.stride_a,
      beta, g.c, type, g.ldc, g.stride_c, g.batch, compute, CUBLAS_GEMM_DEFAULT));
}

#define EMBER_CUDA_GEMM_REG(opname) \
  const KernelRegistrar<GemmFn> opname##_cuda_reg(#opname, kCUDA, CpuCapability::Default, &cuda_gemm);
EMBER_CUDA_GEMM_REG(mm) EMBER_CUDA_GEMM_REG(bmm) EMBER_CUDA_GEMM_REG(addmm) EMBER_CUDA_GEMM_REG(baddbmm)
EMBER_CUDA_GEMM_REG(addbmm) EMBER_CUDA_GEMM_REG(mv) EMBER_CUDA_GEMM_REG(addmv) EMBER_CUDA_GEMM_REG(dot)
EMBER_CUDA_GEMM_REG(vdot)
#undef EMBER_CUDA_GEMM_REG

}  // namespace
}  // namespace ember::cuda
