// Internal: the reduction engine's plan and kernel signatures, shared by ops/reduce*.cpp
// (dim parsing, dtype rules, output allocation, plan building) and the per-ISA kernels in
// ops/cpu/reduce*_kernels.cpp, scan_kernels.cpp and softmax_kernels.cpp.
#pragma once
#include <bitset>
#include <optional>

#include "ember/core/tensor.h"
#include "ember/ops/op_def.h"

namespace ember {

constexpr int kMaxReduceDims = 16;
using DimMask = std::bitset<64>;

// Note [Reduction plan]
// A reduction reads `in` and writes one value per kept position into `out` (and, for ops
// with two results, `out2`). The plan lists the kept dims and the reduced dims separately,
// each innermost (smallest input stride) first, with size-1 dims dropped and mergeable
// neighbours coalesced. Strides count elements. There is always at least one kept and one
// reduced dim (of size 1 when the op has none). Index-producing ops keep the reduced dims
// in logical order, so the linear reduced index is the index the user sees.
struct ReducePlan {
  const char* in = nullptr;
  char* out = nullptr;
  char* out2 = nullptr;
  ScalarType in_dtype = ScalarType::Undefined, out_dtype = ScalarType::Undefined,
             out2_dtype = ScalarType::Undefined;
  int nk = 0, nr = 0;
  int64_t ksize[kMaxReduceDims], kin[kMaxReduceDims], kout[kMaxReduceDims], kout2[kMaxReduceDims];
  int64_t rsize[kMaxReduceDims], rin[kMaxReduceDims];
  int64_t num_outputs = 1, reduce_numel = 1;
};

// Scalar parameters of a reduction kernel.
struct ReduceArgs {
  double p = 0;            // norm order; the divisor of mean
  bool mean = false;       // sum: divide by p
  int64_t correction = 1;  // var/std
  bool take_sqrt = false;  // std
  bool with_values = true; // max/min(dim) also write values (argmax: indices only)
};

using ReduceFn = void (*)(const ReducePlan&, const ReduceArgs&);
using ReduceOp = OpDef<ReduceFn>;

// A scan along one dim of a contiguous tensor viewed as [outer, len, inner].
struct ScanPlan {
  const char* in = nullptr;
  char* out = nullptr;
  char* out2 = nullptr;  // indices of cummax/cummin
  ScalarType in_dtype = ScalarType::Undefined, out_dtype = ScalarType::Undefined;
  int64_t outer = 1, len = 1, inner = 1;
};
using ScanFn = void (*)(const ScanPlan&);
// Softmax: same [outer, len, inner] view; `log` selects log_softmax.
using SoftmaxFn = void (*)(const ScanPlan&, bool log);

// ---- helpers shared by the reduce*.cpp files -------------------------------------------
// Wraps and checks a dim list; an absent or empty list means every dim.
DimMask make_dim_mask(OptionalIntArrayRef dims, int64_t ndim, const char* op);
// The result shape of reducing `sizes` over `mask`.
DimVector reduced_shape(IntArrayRef sizes, const DimMask& mask, bool keepdim);
// Errors like PyTorch when a reduction without identity meets a zero-size reduced dim.
void check_nonempty_reduction(const Tensor& self, const DimMask& mask, const char* op);
// Reduces `in` over `mask` into out (and out2), both already shaped reduced_shape(.., keepdim).
void run_reduction(const ReduceOp& op, const Tensor& in, const DimMask& mask, bool keepdim,
                   const Tensor& out, const Tensor& out2, const ReduceArgs& args,
                   bool preserve_order = false);
// Allocates the result of a reduction (dtype `out_dtype`) and runs it.
Tensor reduce_to(const ReduceOp& op, const Tensor& in, const DimMask& mask, bool keepdim,
                 ScalarType out_dtype, const ReduceArgs& args = {});

// The registered ops (defined in reduce.cpp).
extern ReduceOp sum_op, nansum_op, prod_op, all_op, any_op, count_nonzero_op, vector_norm_op,
    var_mean_op, amax_op, amin_op, aminmax_op, max_dim_op, min_dim_op;

}  // namespace ember
