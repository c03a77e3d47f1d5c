// Internal helpers shared by the linear-algebra files (linalg*.cpp): the tensor-level GEMM
// driver, small checks and shape helpers.
#pragma once
#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

#include "ember/core/dtype.h"
#include "ember/core/parallel.h"

#include "ember/core/tensor.h"
#include "ember/ops/blas.h"

namespace ember::linalg_detail {

// c (B, m, n) = beta * c + alpha * a (B, m, k) @ b (B, k, n), any strides (a and b may have
// batch stride 0). Passes strided operands to BLAS as transposes/leading dimensions when a
// last stride is 1, copies otherwise; computes into a temporary when c's layout or an alias
// forbids writing it directly. Half and ComplexHalf compute in Float/ComplexFloat.
// beta == 0 never reads c.
void gemm_into(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& alpha, const Scalar& beta,
               const char* op);

// The GEMM family's op-table entries (linalg_gemm.cpp), for their metadata (autocast).
}  // namespace ember::linalg_detail
namespace ember {
template <class Fn> struct OpDef;
extern OpDef<GemmFn> mm_op, bmm_op, addmm_op, baddbmm_op, addbmm_op;
}  // namespace ember
namespace ember::linalg_detail {

// The conjugate transpose of the last two dims (PyTorch's Tensor.mH).
inline Tensor mH(const Tensor& t) { return t.transpose(-2, -1).conj(); }
// The batch dims of a stack of matrices: all but the last two.
inline std::vector<int64_t> batch_shape(const Tensor& a) {
  return std::vector<int64_t>(a.sizes().begin(), a.sizes().end() - 2);
}
// `shape` followed by `tail`.
inline std::vector<int64_t> with(std::vector<int64_t> shape, std::initializer_list<int64_t> tail) {
  shape.insert(shape.end(), tail);
  return shape;
}

// Runs g on the device's kernel of the op-table entry for `op` (linalg_gemm.cpp).
void run_gemm(GemmArgs& g, Device d, const char* op);

// out (m x n, contiguous) = a (m x k) @ b (k x n) + bias (n, added to every row) through the
// device's GEMM-with-bias kernel (Note [GEMM with bias on cuBLASLt]); false, having done
// nothing, when the device has none or these operands do not fit it.
bool gemm_bias_into(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias);

// t summed over `dims` (kept as size-1 dims), computed as a matrix-vector product with ones.
Tensor sum_dims_keepdim(const Tensor& t, IntArrayRef dims);

// PyTorch's C++ type names, as its error messages print them ("float", "c10::Half").
const char* cpp_type_name(ScalarType t);

// "Expected all tensors to be on the same device..." when the tensors disagree.
void check_same_device(const char* op, std::initializer_list<const Tensor*> tensors);

// The types a GEMM accepts (not Bool): errors as PyTorch, naming the op.
void check_gemm_dtype(const char* op, ScalarType t);

}  // namespace ember::linalg_detail

namespace ember::linalg_detail {

// The checks every LAPACK-backed op starts with, worded as PyTorch's: at least 2 dims,
// square when `square`, a float/double/complex64/complex128 CPU tensor.
void check_lapack_input(const Tensor& A, const char* api, bool square);

// A copy of A (..., m, n) whose matrices are column-major and packed one after another:
// the layout LAPACK reads and overwrites. The result has A's logical values.
Tensor colmajor_copy(const Tensor& A);

// The dtypes LAPACK computes in.
inline constexpr DtypeSet kLapackTypes{kFloat, kDouble, kComplexFloat, kComplexDouble};

// Runs f(i) for every matrix i of a batch in parallel, several matrices per task when one
// matrix costs less than ~32K flops (`work`: an estimate of one matrix's flops).
template <class F>
void for_each_matrix(int64_t batch, int64_t work, const F& f) {
  blas::sync_threads();
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(work, 1));
  parallel_for(0, batch, grain, [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) f(i);
  });
}

// The first failed batch element (LAPACK info != 0), or -1.
template <class Int>
int64_t first_failure(const std::vector<Int>& infos) {
  for (size_t i = 0; i < infos.size(); ++i)
    if (infos[i] != 0) return int64_t(i);
  return -1;
}

// Product of the batch sizes of A (all dims but the last two).
int64_t batch_count(const Tensor& A);

// "api: (Batch element i): " when the input was batched, "api: " otherwise.
std::string lapack_error_prefix(const char* api, bool batched, int64_t index);

}  // namespace ember::linalg_detail
