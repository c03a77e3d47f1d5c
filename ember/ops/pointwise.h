// The pointwise op driver: builds a TensorIterator with the op's dtype rule, checks the
// dtypes, finds the kernel for the device and runs it. Used by ops/pointwise.cpp.
#pragma once
#include <vector>

#include "ember/core/tracing.h"
#include "ember/ops/math.h"
#include "ember/ops/op_def.h"
#include "ember/ops/pointwise_table.h"
#include "ember/ops/tensor_iterator.h"

namespace ember {

using PointwiseFn = void (*)(TensorIterator&, const PointwiseArgs&);
using PointwiseOp = OpDef<PointwiseFn>;

// Runs op over inputs; `out` may be undefined (allocated), an out= tensor, or the first
// input for in-place variants (inplace = true).
Tensor run_pointwise(const PointwiseOp& op, Tensor out, std::initializer_list<Tensor> inputs,
                     const PointwiseArgs& args = {}, bool inplace = false);

// The runner of a row's traced op (Note [Tracing hooks]): inputs as run_pointwise recorded them
// (an out= tensor first), attributes s0..s3 (the scalar arguments) and mode ("inplace", "out").
std::vector<Tensor> run_traced_pointwise(const tracing::TracedOp& op, const std::vector<Tensor>& inputs,
                                         const tracing::Attrs& attrs);

// A row's scalar arguments as its traced node records them (attributes s0..s3).
PointwiseArgs traced_pointwise_args(const tracing::Attrs& attrs, std::string_view op);

// The reverse-mode derivative of a row's traced node, on plain tensors, by the row's own vjp:
// the gradients of `inputs` given `grad`, the gradient of `result` (undefined where needs[i] is
// false or the formula gives none). Shapes and dtypes are the formula's: the caller sums
// broadcast gradients and casts, as the engine does. The JIT traces it to derive fused backward
// graphs (Note [Fused backward] in ember/jit/autodiff.cpp).
std::vector<Tensor> traced_pointwise_vjp(const tracing::TracedOp& op, const std::vector<Tensor>& inputs,
                                         const Tensor& result, const tracing::Attrs& attrs, const Tensor& grad,
                                         const std::vector<bool>& needs);

namespace autograd {
// The autograd path of run_pointwise (ember/ops/pointwise_autograd.cpp).
Tensor differentiable_pointwise(const PointwiseOp& op, Tensor out, std::initializer_list<Tensor> inputs,
                                const PointwiseArgs& args, bool inplace);
}  // namespace autograd

// The input dtypes a row's kernel can meet: a row whose result kind promotes bool and integer
// inputs to the default float dtype (IntToFloat) never gets them, so its kernels are not
// instantiated for them (a quarter of the table's kernels, CPU and CUDA).
constexpr DtypeSet kernel_dtypes(DtypeSet accepted, ResultKind kind) {
  const bool promoted = kind == ResultKind::IntToFloat || kind == ResultKind::IntToFloatToReal;
  return promoted ? accepted - (kIntegralTypes | kBoolType) : accepted;
}

// The table's entries, one per row (defined in ember/ops/pointwise_entries.cpp).
#define EMBER_DECLARE_PW_OP(op, ...) extern PointwiseOp op##_op;
EMBER_UNARY_OPS(EMBER_DECLARE_PW_OP)
EMBER_BINARY_OPS(EMBER_DECLARE_PW_OP)
EMBER_TERNARY_OPS(EMBER_DECLARE_PW_OP)
#undef EMBER_DECLARE_PW_OP


}  // namespace ember
