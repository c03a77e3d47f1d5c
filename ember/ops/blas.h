// Internal: the GEMM entry point of the matmul family (mm, bmm, addmm, mv, dot, einsum...).
// One strided-batched, row-major GEMM description; blas.cpp picks the backend per dtype and
// shape (oneDNN, OpenBLAS, or the fallback loops in cpu/gemm_kernels.cpp).
#pragma once
#include <cstdint>

#include "ember/core/scalar.h"

namespace ember {

// How a stored matrix is read: as is, transposed, or conjugate-transposed.
enum class BlasTrans : uint8_t { N, T, C };

// For b in [0, batch):  C_b = alpha * op(A_b) @ op(B_b) + beta * C_b
// with op(A_b) of shape m x k and op(B_b) of shape k x n. All matrices are row-major with
// unit column stride: A_b is stored as m x k (trans N) or k x m (trans T/C) with row stride
// lda; likewise B_b. C_b is m x n with row stride ldc. Batch strides may be 0 for A and B
// (one matrix broadcast over the batch), never for C. All strides count elements.
// beta == 0 never reads C (NaN in C is ignored, as in BLAS and PyTorch).
struct GemmArgs {
  ScalarType dtype = ScalarType::Undefined;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  BlasTrans ta = BlasTrans::N, tb = BlasTrans::N;
  const void* a = nullptr;
  int64_t lda = 1, stride_a = 0;
  const void* b = nullptr;
  int64_t ldb = 1, stride_b = 0;
  void* c = nullptr;
  int64_t ldc = 1, stride_c = 0;
  Scalar alpha = 1, beta = 0;
  // Float: use OpenBLAS even where oneDNN would be chosen (for shapes that change every
  // call, such as the trailing updates of a blocked LU, where creating oneDNN primitives
  // would cost more than the GEMMs).
  bool prefer_blas = false;
};
using GemmFn = void (*)(const GemmArgs&);
// A device-only GEMM with a bias epilogue (Note [GEMM with bias on cuBLASLt]): C = op(A)
// op(B) + bias broadcast along C's rows (n values), alpha 1, C not read. Returns false,
// having done nothing, when the device has no such kernel for these operands.
using GemmBiasFn = bool (*)(const GemmArgs&, const void* bias);

// Runs g on the CPU. Supports the integer types, Float, Double, BFloat16, ComplexFloat and
// ComplexDouble (Half and ComplexHalf are widened by the callers in linalg.cpp).
void cpu_gemm(const GemmArgs& g);

namespace blas {
// Keeps OpenBLAS's thread count in step with ember's get_num_threads() (Note [BLAS threads]).
void sync_threads();
// oneDNN matmul for Float/BFloat16: returns false (having done nothing) when oneDNN has no
// fast implementation for this layout, so the caller can take another path.
bool dnnl_gemm(const GemmArgs& g);
// Whether Float GEMM of this shape should go to oneDNN rather than OpenBLAS.
bool prefer_dnnl_f32(const GemmArgs& g);
// Number of cached oneDNN primitives (for tests) and clearing the cache.
int64_t dnnl_cache_size();
void dnnl_cache_clear();
}  // namespace blas

}  // namespace ember
