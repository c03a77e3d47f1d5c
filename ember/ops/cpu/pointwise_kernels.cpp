// CPU kernels of every op in the pointwise table (compiled once per instruction set).
#include "ember/ops/cpu/loops.h"
#include "ember/ops/cpu/vec_math.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/pointwise_ops.h"

namespace ember::cpu {
inline namespace EMBER_CPU_NS {
namespace {

template <template <class> class F, DtypeSet Set>
void unary_kernel(TensorIterator& it, const PointwiseArgs& args) {
  visit_dtype<Set>(it.input_dtype(0), it.op_name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = typename PwTypes<F, T>::Out;
    EMBER_INTERNAL_ASSERT(it.dtype(0) == scalar_type_of<Out>, it.op_name(), " output ", it.dtype(0));
    F<compute_t<T>> f(args);
    if constexpr (VecMath<F>::available && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
      // SLEEF at full vector width on contiguous runs.
      cpu_kernel_vec<Out, T>(it, f, [](const T* in, T* out, int64_t n) { VecMath<F>::apply(in, out, n); });
    } else if constexpr (VecMath<F>::available && (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)) {
      // Reduced precision: widen a block to float, compute, round back.
      cpu_kernel_vec<Out, T>(it, f, [](const T* in, T* out, int64_t n) {
        constexpr int64_t kBlock = 512;
        alignas(64) float buf[kBlock];
        for (int64_t b = 0; b < n; b += kBlock) {
          int64_t m = std::min(kBlock, n - b);
          for (int64_t i = 0; i < m; ++i) buf[i] = float(in[b + i]);
          VecMath<F>::apply(buf, buf, m);
          for (int64_t i = 0; i < m; ++i) out[b + i] = T(buf[i]);
        }
      });
    } else {
      cpu_kernel<Out, T>(it, f);
    }
  });
}

template <template <class> class F, DtypeSet Set>
void binary_kernel(TensorIterator& it, const PointwiseArgs& args) {
  visit_dtype<Set>(it.input_dtype(0), it.op_name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = typename PwTypes<F, T, T>::Out;
    EMBER_INTERNAL_ASSERT(it.dtype(0) == scalar_type_of<Out>, it.op_name(), " output ", it.dtype(0));
    cpu_kernel<Out, T, T>(it, F<compute_t<T>>(args));
  });
}

template <template <class> class F, DtypeSet Set>
void ternary_kernel(TensorIterator& it, const PointwiseArgs& args) {
  visit_dtype<Set>(it.input_dtype(0), it.op_name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Out = typename PwTypes<F, T, T, T>::Out;
    cpu_kernel<Out, T, T, T>(it, F<compute_t<T>>(args));
  });
}

constexpr CpuCapability kCap = CpuCapability(EMBER_CPU_CAP_INDEX);

#define EMBER_REGISTER_PW(kernel, name, F, dtypes, kind)                                                      \
  const KernelRegistrar<PointwiseFn> name##_reg(#name, kCPU, kCap,                                          \
                                                &kernel<fn::F, kernel_dtypes(dtypes, ResultKind::kind)>);
#define EMBER_REGISTER_UNARY(name, F, dtypes, kind, ...) EMBER_REGISTER_PW(unary_kernel, name, F, dtypes, kind)
#define EMBER_REGISTER_BINARY(name, F, dtypes, kind, ...) EMBER_REGISTER_PW(binary_kernel, name, F, dtypes, kind)
#define EMBER_REGISTER_TERNARY(name, F, dtypes, kind, ...) EMBER_REGISTER_PW(ternary_kernel, name, F, dtypes, kind)
EMBER_UNARY_OPS(EMBER_REGISTER_UNARY)
EMBER_BINARY_OPS(EMBER_REGISTER_BINARY)
EMBER_TERNARY_OPS(EMBER_REGISTER_TERNARY)

}  // namespace
}  // namespace EMBER_CPU_NS
}  // namespace ember::cpu
