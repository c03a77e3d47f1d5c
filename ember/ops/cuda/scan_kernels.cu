// CUDA kernels of cumsum and cumprod over a contiguous input viewed as [outer, len, inner]
// (ScanPlan): a thread per line, neighbouring threads on neighbouring lines (coalesced when
// inner > 1). Accumulators as on the CPU: int64 for bool and integers, double, complex128.
// cummax/cummin and logcumsumexp have no CUDA kernel yet: they say so.
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/reduce.h"

namespace ember::cuda {
namespace {

constexpr int kScanThreads = 256;

template <class S>
using scan_acc_t = std::conditional_t<std::is_integral_v<S>, int64_t,
                                      std::conditional_t<is_complex_v<compute_t<S>>, Complex<double>, double>>;
template <class S>
using scan_out_t = std::conditional_t<std::is_integral_v<S>, int64_t, S>;

template <class S, bool kProd>
__global__ void __launch_bounds__(kScanThreads)
scan_kernel(const S* in, scan_out_t<S>* out, int64_t outer, int64_t len, int64_t inner) {
  using A = scan_acc_t<S>;
  const int64_t line = int64_t(blockIdx.x) * kScanThreads + threadIdx.x;
  if (line >= outer * inner) return;
  const int64_t o = line / inner, j = line - o * inner;
  const int64_t base = o * len * inner + j;
  A acc = A(kProd ? 1 : 0);
  for (int64_t i = 0; i < len; ++i) {
    const A v = convert<A>(in[base + i * inner]);
    if constexpr (kProd) acc = acc * v;
    else acc += v;
    out[base + i * inner] = convert<scan_out_t<S>>(acc);
  }
}

template <bool kProd>
void cumsum_cumprod_kernel(const ScanPlan& p) {
  visit_dtype<kAllTypes>(p.in_dtype, kProd ? "cumprod" : "cumsum", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using Out = scan_out_t<S>;
    EMBER_INTERNAL_ASSERT(p.out_dtype == scalar_type_of<Out>, "cumsum on CUDA: output dtype ", p.out_dtype);
    const int64_t lines = p.outer * p.inner;
    scan_kernel<S, kProd><<<unsigned((lines + kScanThreads - 1) / kScanThreads), kScanThreads, 0,
                            getCurrentCUDAStream().stream()>>>(reinterpret_cast<const S*>(p.in),
                                                               reinterpret_cast<Out*>(p.out), p.outer, p.len, p.inner);
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

const KernelRegistrar<ScanFn> r_cumsum("cumsum", kCUDA, CpuCapability::Default, &cumsum_cumprod_kernel<false>);
const KernelRegistrar<ScanFn> r_cumprod("cumprod", kCUDA, CpuCapability::Default, &cumsum_cumprod_kernel<true>);

}  // namespace
}  // namespace ember::cuda
