// The matmul family's CUDA kernel: the row-major strided-batched GEMM of blas.h on cuBLAS
// (cublasGemmStridedBatchedEx_64: 64-bit sizes) on the current stream. Row-major C = op(A) op(B) is
// column-major C^T = op(B)^T op(A)^T, so cuBLAS gets B first, A second, n x m.
// Float uses TF32 tensor cores only when allowed (Context::setAllowTF32CuBLAS, off by
// default as in PyTorch since 1.12); Half and BFloat16 accumulate in float. As in PyTorch,
// integer GEMMs are not implemented on CUDA. cuBLAS is opened on first use (Note [CUDA
// libraries loaded on first use], ember/cuda/lazy_library.h).
//
// Note [GEMM with bias on cuBLASLt]
// addmm(bias, x, w) with a bias broadcast along the rows, alpha = beta = 1 (linear layers,
// as PyTorch's addmm_out_cuda_impl does with cublasLt "gemm_and_bias") runs as one
// cublasLtMatmul with the BIAS epilogue: the bias is added as the result is written, instead
// of copying it into the output and reading the output back into the GEMM. float (TF32 when
// allowed), half and bfloat16, one matrix; cuBLASLt's heuristic picks the algorithm for the
// operands' alignments and a workspace from the caching allocator. When it offers none the
// caller takes the cuBLAS path ("gemm_bias" answers false).
#include <cublasLt.h>
#include <cublas_v2.h>

#include <array>

#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/ops/blas.h"
#include "ember/ops/functions.h"
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

// ---- cuBLASLt: GEMM with a bias epilogue (Note [GEMM with bias on cuBLASLt]) ----------------

struct CublasLt {
  decltype(&cublasLtCreate) create;
  decltype(&cublasLtMatmulDescCreate) desc_create;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&cublasLtMatrixLayoutCreate) layout_create;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic;
  decltype(&cublasLtMatmul) matmul;
};

const CublasLt& cublas_lt() {
  static const CublasLt api = [] {
    static detail::LazyLibrary lib(EMBER_CUDA_SONAME("libcublasLt", CUBLAS_VER_MAJOR), "cuBLASLt");
#define EMBER_RESOLVE(name) lib.resolve(&name, #name)
    return CublasLt{EMBER_RESOLVE(cublasLtCreate),           EMBER_RESOLVE(cublasLtMatmulDescCreate),
                    EMBER_RESOLVE(cublasLtMatmulDescDestroy),  EMBER_RESOLVE(cublasLtMatmulDescSetAttribute),
                    EMBER_RESOLVE(cublasLtMatrixLayoutCreate), EMBER_RESOLVE(cublasLtMatrixLayoutDestroy),
                    EMBER_RESOLVE(cublasLtMatmulPreferenceCreate), EMBER_RESOLVE(cublasLtMatmulPreferenceDestroy),
                    EMBER_RESOLVE(cublasLtMatmulPreferenceSetAttribute), EMBER_RESOLVE(cublasLtMatmulAlgoGetHeuristic),
                    EMBER_RESOLVE(cublasLtMatmul)};
#undef EMBER_RESOLVE
  }();
  return api;
}

#define EMBER_CUBLASLT_CHECK(expr)                                                                     \
  do {                                                                                                 \
    const cublasStatus_t ember_lt_st_ = (expr);                                                        \
    EMBER_CHECK(ember_lt_st_ == CUBLAS_STATUS_SUCCESS, "cuBLASLt error ", int(ember_lt_st_), " in ", #expr); \
  } while (0)

cublasLtHandle_t lt_handle(DeviceIndex index) {
  thread_local std::array<cublasLtHandle_t, kMaxDevices> handles{};
  cublasLtHandle_t& h = handles[size_t(index)];
  if (!h) EMBER_CUBLASLT_CHECK(cublas_lt().create(&h));
  return h;
}

// The largest power of two up to 16 dividing the address and the leading dimension's bytes.
uint32_t alignment_of(const void* p, int64_t ld, int64_t elem) {
  uint32_t a = 16;
  while (a > 1 && ((reinterpret_cast<uintptr_t>(p) % a) != 0 || (ld * elem) % a != 0)) a /= 2;
  return a;
}

// The descriptors of one call, destroyed on every exit.
struct LtCall {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~LtCall() {
    const CublasLt& lt = cublas_lt();
    if (pref) lt.pref_destroy(pref);
    for (auto l : {a, b, c})
      if (l) lt.layout_destroy(l);
    if (op) lt.desc_destroy(op);
  }
};

constexpr size_t kLtWorkspace = size_t(32) << 20;

// Row-major C (m x n) = op(A) op(B) + bias (n values, added to every row); g.beta is ignored
// (C is not read). Returns false, having done nothing, when cuBLASLt has no algorithm.
bool cuda_gemm_bias(const GemmArgs& g, const void* bias) {
  cudaDataType_t type;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  switch (g.dtype) {
    case kFloat:
      type = CUDA_R_32F;
      if (globalContext().allowTF32CuBLAS()) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
      break;
    case kHalf: type = CUDA_R_16F; break;
    case kBFloat16: type = CUDA_R_16BF; break;
    default: return false;
  }
  if (g.batch != 1) return false;
  const int64_t elem = g.dtype == kFloat ? 4 : 2;
  const CublasLt& lt = cublas_lt();
  LtCall call;
  // Column-major: C^T (n x m) = op(B)^T (n x k) op(A)^T (k x m) + bias (a column of n).
  EMBER_CUBLASLT_CHECK(lt.desc_create(&call.op, compute, CUDA_R_32F));
  const cublasOperation_t ta = op_of(g.tb), tb = op_of(g.ta);
  const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
  EMBER_CUBLASLT_CHECK(lt.desc_set(call.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  EMBER_CUBLASLT_CHECK(lt.desc_set(call.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  EMBER_CUBLASLT_CHECK(lt.desc_set(call.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
  EMBER_CUBLASLT_CHECK(lt.desc_set(call.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  // The stored shapes: A (the row-major B) is n x k, or k x n when transposed; likewise B.
  const bool a_t = ta != CUBLAS_OP_N, b_t = tb != CUBLAS_OP_N;
  EMBER_CUBLASLT_CHECK(lt.layout_create(&call.a, type, uint64_t(a_t ? g.k : g.n), uint64_t(a_t ? g.n : g.k), g.ldb));
  EMBER_CUBLASLT_CHECK(lt.layout_create(&call.b, type, uint64_t(b_t ? g.m : g.k), uint64_t(b_t ? g.k : g.m), g.lda));
  EMBER_CUBLASLT_CHECK(lt.layout_create(&call.c, type, uint64_t(g.n), uint64_t(g.m), g.ldc));
  EMBER_CUBLASLT_CHECK(lt.pref_create(&call.pref));
  const uint64_t ws_bytes = kLtWorkspace;
  EMBER_CUBLASLT_CHECK(lt.pref_set(call.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes));
  // D's alignment also bounds the bias's (the epilogue reads it as D; PyTorch does the same).
  const uint32_t align_a = alignment_of(g.b, g.ldb, elem), align_b = alignment_of(g.a, g.lda, elem),
                 align_c = std::min(alignment_of(g.c, g.ldc, elem), alignment_of(bias, 0, elem));
  EMBER_CUBLASLT_CHECK(lt.pref_set(call.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof align_a));
  EMBER_CUBLASLT_CHECK(lt.pref_set(call.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof align_b));
  EMBER_CUBLASLT_CHECK(lt.pref_set(call.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_c, sizeof align_c));
  EMBER_CUBLASLT_CHECK(lt.pref_set(call.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_c, sizeof align_c));
  const DeviceIndex dev = current_device();
  cublasLtHandle_t h = lt_handle(dev);
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  if (lt.heuristic(h, call.op, call.a, call.b, call.c, call.c, call.pref, 1, &result, &found) != CUBLAS_STATUS_SUCCESS ||
      found == 0)
    return false;
  const Tensor workspace = empty({int64_t(std::max<size_t>(result.workspaceSize, 1))},
                                 TensorOptions().dtype(kByte).device(Device(kCUDA, dev)));
  const float one = 1, zero = 0;
  EMBER_CUBLASLT_CHECK(lt.matmul(h, call.op, &one, g.b, call.a, g.a, call.b, &zero, g.c, call.c, g.c, call.c,
                                 &result.algo, workspace.data_ptr(), result.workspaceSize,
                                 getCurrentCUDAStream(dev).stream()));
  return true;
}

const KernelRegistrar<GemmBiasFn> gemm_bias_reg("gemm_bias", kCUDA, CpuCapability::Default, &cuda_gemm_bias);

#define EMBER_CUDA_GEMM_REG(opname) \
  const KernelRegistrar<GemmFn> opname##_cuda_reg(#opname, kCUDA, CpuCapability::Default, &cuda_gemm);
EMBER_CUDA_GEMM_REG(mm) EMBER_CUDA_GEMM_REG(bmm) EMBER_CUDA_GEMM_REG(addmm) EMBER_CUDA_GEMM_REG(baddbmm)
EMBER_CUDA_GEMM_REG(addbmm) EMBER_CUDA_GEMM_REG(mv) EMBER_CUDA_GEMM_REG(addmv) EMBER_CUDA_GEMM_REG(dot)
EMBER_CUDA_GEMM_REG(vdot)
#undef EMBER_CUDA_GEMM_REG

}  // namespace
}  // namespace ember::cuda
