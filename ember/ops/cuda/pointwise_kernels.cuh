// CUDA kernels of every op in the pointwise table: the CPU's functors
// (ember/ops/pointwise_ops.h) driven by the CUDA elementwise engine (loops.cuh), for the same
// dtypes as on the CPU. The table's kernels are compiled in kPointwiseParts translation units
// (pointwise_kernels_<part>.cu, each defining EMBER_CUDA_PW_PART): the rows are dealt out in
// turn, so the parts compile in parallel and a change rebuilds a part, not the whole table.
#pragma once
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/op_def.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/pointwise_ops.h"

#ifndef EMBER_CUDA_PW_PART
#error "define EMBER_CUDA_PW_PART before including pointwise_kernels.cuh"
#endif

namespace ember::cuda {
namespace {

constexpr int kPointwiseParts = 6;

// Set::value: the row's dtypes (a class-type value as a template argument directly does not
// survive nvcc's host code generation).
template <template <class> class F, class Set, int Arity>
void pointwise_kernel(TensorIterator& it, const PointwiseArgs& args) {
  visit_dtype<Set::value>(it.input_dtype(0), it.op_name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Arity == 1) gpu_kernel<typename PwTypes<F, T>::Out, T>(it, F<compute_t<T>>(args));
    else if constexpr (Arity == 2) gpu_kernel<typename PwTypes<F, T, T>::Out, T, T>(it, F<compute_t<T>>(args));
    else gpu_kernel<typename PwTypes<F, T, T, T>::Out, T, T, T>(it, F<compute_t<T>>(args));
  });
}

// Registers (and so instantiates) a row's kernel only in the part the row is dealt to.
template <bool Here>
struct PartRegistrar {
  template <template <class> class F, class Set, int Arity>
  static bool add(const char* name) {
    if constexpr (Here) register_kernel(name, kCUDA, CpuCapability::Default,
                                        reinterpret_cast<void*>(&pointwise_kernel<F, Set, Arity>));
    return Here;
  }
};

constexpr int kRowBase = __COUNTER__;
#define EMBER_CUDA_PW_ROW(name, F, dtypes, kind, arity)                                           \
  struct name##_dtypes {                                                                           \
    static constexpr DtypeSet value = kernel_dtypes(dtypes, ResultKind::kind);                     \
  };                                                                                               \
  const bool name##_cuda_reg =                                                                     \
      PartRegistrar<(__COUNTER__ - kRowBase - 1) % kPointwiseParts == EMBER_CUDA_PW_PART>::template \
          add<fn::F, name##_dtypes, arity>(#name);
#define EMBER_CUDA_PW_UNARY(name, F, dtypes, kind, ...) EMBER_CUDA_PW_ROW(name, F, dtypes, kind, 1)
#define EMBER_CUDA_PW_BINARY(name, F, dtypes, kind, ...) EMBER_CUDA_PW_ROW(name, F, dtypes, kind, 2)
#define EMBER_CUDA_PW_TERNARY(name, F, dtypes, kind, ...) EMBER_CUDA_PW_ROW(name, F, dtypes, kind, 3)
EMBER_UNARY_OPS(EMBER_CUDA_PW_UNARY)
EMBER_BINARY_OPS(EMBER_CUDA_PW_BINARY)
EMBER_TERNARY_OPS(EMBER_CUDA_PW_TERNARY)
#undef EMBER_CUDA_PW_ROW
#undef EMBER_CUDA_PW_UNARY
#undef EMBER_CUDA_PW_BINARY
#undef EMBER_CUDA_PW_TERNARY

}  // namespace
}  // namespace ember::cuda
