// GradScaler's unscale on CUDA (Note [Unscaling without a sync per parameter] in
// ember/amp/grad_scaler.cpp): one pass over a dense gradient's memory multiplies it by the
// inverse scale and raises the device flag found_inf (a float32 [1] tensor) at any inf or
// NaN. Every writer writes 1.0, so the unordered stores need no atomics.
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

template <class T>
__global__ void __launch_bounds__(kThreads)
unscale_kernel(T* g, int64_t n, float* found_inf, compute_t<T> inv_scale) {
  using C = compute_t<T>;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const C v = C(g[i]);
    if (!::isfinite(v)) *found_inf = 1.0f;
    g[i] = convert<T>(C(v * inv_scale));
  }
}

void amp_unscale(const Tensor& grad, const Tensor& found_inf, double inv_scale) {
  EMBER_INTERNAL_ASSERT(grad.is_non_overlapping_and_dense() && found_inf.scalar_type() == kFloat &&
                            found_inf.device() == grad.device(),
                        "amp_unscale: expected a dense gradient and a float32 flag on its device");
  const int64_t n = grad.numel();
  if (n == 0) return;
  CUDAGuard guard(grad.device().index());
  cudaStream_t stream = getCurrentCUDAStream(grad.device().index()).stream();
  visit_dtype<kFloatingTypes>(grad.scalar_type(), "unscale_", [&](auto tag) {
    using T = typename decltype(tag)::type;
    unscale_kernel<T><<<grid_for(n), kThreads, 0, stream>>>(static_cast<T*>(grad.data_ptr()), n,
                                                            found_inf.data_ptr<float>(), compute_t<T>(inv_scale));
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

using AmpUnscaleFn = void (*)(const Tensor&, const Tensor&, double);
const KernelRegistrar<AmpUnscaleFn> amp_unscale_reg("amp_unscale", kCUDA, CpuCapability::Default, &amp_unscale);

}  // namespace
}  // namespace ember::cuda
