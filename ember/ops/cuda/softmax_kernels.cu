// CUDA kernels of softmax and log_softmax over a contiguous input viewed as
// [outer, len, inner] (ScanPlan): with inner == 1 a warp takes a row (lanes stride along it;
// max, then sum of exponentials, then the scaled write, each reduced by warp shuffles);
// otherwise a thread takes a column (neighbouring threads read neighbouring elements).
// Half and BFloat16 compute in float (along a non-last dim the caller converts to float
// first, as on the CPU); double in double.
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/reduce.h"

namespace ember::cuda {
namespace {

constexpr int kSoftmaxThreads = 256;

template <class A>
__device__ __forceinline__ A warp_max(A v) {
  for (int s = 16; s > 0; s >>= 1) {
    const A o = __shfl_xor_sync(0xffffffffu, v, s);
    v = o > v || o != o ? o : v;  // NaN wins
  }
  return v;
}
template <class A>
__device__ __forceinline__ A warp_sum(A v) {
  for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(0xffffffffu, v, s);
  return v;
}
__device__ __forceinline__ float exp_of(float x) { return ::expf(x); }
__device__ __forceinline__ double exp_of(double x) { return ::exp(x); }
__device__ __forceinline__ float log_of(float x) { return ::logf(x); }
__device__ __forceinline__ double log_of(double x) { return ::log(x); }

template <class S, class A>
__global__ void __launch_bounds__(kSoftmaxThreads)
softmax_rows_kernel(const S* in, S* out, int64_t rows, int64_t len, bool log) {
  const int64_t row = int64_t(blockIdx.x) * (kSoftmaxThreads / 32) + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp leaves together
  const int lane = threadIdx.x % 32;
  const S* x = in + row * len;
  S* y = out + row * len;
  A m = -std::numeric_limits<A>::infinity();
  for (int64_t i = lane; i < len; i += 32) {
    const A v = A(x[i]);
    m = v > m || v != v ? v : m;
  }
  m = warp_max(m);
  A sum = 0;
  for (int64_t i = lane; i < len; i += 32) sum += exp_of(A(x[i]) - m);
  sum = warp_sum(sum);
  const A shift = m + log_of(sum), scale = A(1) / sum;
  for (int64_t i = lane; i < len; i += 32) {
    const A v = A(x[i]);
    y[i] = convert<S>(log ? v - shift : exp_of(v - m) * scale);
  }
}

template <class S, class A>
__global__ void __launch_bounds__(kSoftmaxThreads)
softmax_cols_kernel(const S* in, S* out, int64_t outer, int64_t len, int64_t inner, bool log) {
  const int64_t c = int64_t(blockIdx.x) * kSoftmaxThreads + threadIdx.x;
  if (c >= outer * inner) return;
  const int64_t o = c / inner, j = c - o * inner;
  const S* x = in + o * len * inner + j;
  S* y = out + o * len * inner + j;
  A m = -std::numeric_limits<A>::infinity();
  for (int64_t i = 0; i < len; ++i) {
    const A v = A(x[i * inner]);
    m = v > m || v != v ? v : m;
  }
  A sum = 0;
  for (int64_t i = 0; i < len; ++i) sum += exp_of(A(x[i * inner]) - m);
  const A shift = m + log_of(sum), scale = A(1) / sum;
  for (int64_t i = 0; i < len; ++i) {
    const A v = A(x[i * inner]);
    y[i * inner] = convert<S>(log ? v - shift : exp_of(v - m) * scale);
  }
}

void softmax_kernel(const ScanPlan& p, bool log) {
  visit_dtype<kFloatingTypes>(p.in_dtype, log ? "log_softmax" : "softmax", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using A = std::conditional_t<std::is_same_v<S, double>, double, float>;
    const auto* in = reinterpret_cast<const S*>(p.in);
    auto* out = reinterpret_cast<S*>(p.out);
    cudaStream_t stream = getCurrentCUDAStream().stream();
    if (p.inner == 1) {
      constexpr int64_t kRowsPerBlock = kSoftmaxThreads / 32;
      softmax_rows_kernel<S, A><<<unsigned((p.outer + kRowsPerBlock - 1) / kRowsPerBlock), kSoftmaxThreads, 0, stream>>>(
          in, out, p.outer, p.len, log);
    } else {
      const int64_t cols = p.outer * p.inner;
      softmax_cols_kernel<S, A><<<unsigned((cols + kSoftmaxThreads - 1) / kSoftmaxThreads), kSoftmaxThreads, 0, stream>>>(
          in, out, p.outer, p.len, p.inner, log);
    }
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

const KernelRegistrar<SoftmaxFn> r_softmax("softmax", kCUDA, CpuCapability::Default, &softmax_kernel);

}  // namespace
}  // namespace ember::cuda
