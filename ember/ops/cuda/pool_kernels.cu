// CUDA max pooling with indices (pool_detail::max_pool_indices on a device): a thread per
// output element scans its window as the CPU kernel does (the first maximum; NaN wins, a
// later NaN over an earlier one, as PyTorch's CPU kernel), for any window geometry
// (regular or adaptive: the windows' bounds travel as a table) and layout. The derivative
// gathers and scatters at the indices (gather and scatter_add on the device).
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"
#include "ember/ops/pool_dnnl.h"

namespace ember::cuda {
namespace {

struct PoolGeom {
  int64_t C, O[3], in1, in2, step[3];
  int64_t xs_n, xs_c, xs[3];  // input strides (elements)
  int64_t os_n, os_c, os[3];  // output strides
  int64_t begin_at[3], end_at[3];  // where each dim's bounds start in the table
};

template <class T>
__global__ void __launch_bounds__(kThreads)
max_pool_kernel(const T* x, T* y, int64_t* yi, int64_t total, PoolGeom g, const int64_t* table) {
  using A = compute_t<T>;
  for (int64_t t = int64_t(blockIdx.x) * kThreads + threadIdx.x; t < total; t += int64_t(gridDim.x) * kThreads) {
    int64_t r = t;
    const int64_t o2 = r % g.O[2];
    r /= g.O[2];
    const int64_t o1 = r % g.O[1];
    r /= g.O[1];
    const int64_t o0 = r % g.O[0];
    const int64_t plane = r / g.O[0], n = plane / g.C, c = plane % g.C;
    const T* xp = x + n * g.xs_n + c * g.xs_c;
    const int64_t b0 = table[g.begin_at[0] + o0], e0 = table[g.end_at[0] + o0];
    const int64_t b1 = table[g.begin_at[1] + o1], e1 = table[g.end_at[1] + o1];
    const int64_t b2 = table[g.begin_at[2] + o2], e2 = table[g.end_at[2] + o2];
    A best = -std::numeric_limits<A>::infinity();
    int64_t at = (b0 * g.in1 + b1) * g.in2 + b2;
    for (int64_t p0 = b0; p0 < e0; p0 += g.step[0])
      for (int64_t p1 = b1; p1 < e1; p1 += g.step[1])
        for (int64_t p2 = b2; p2 < e2; p2 += g.step[2]) {
          const A v = A(xp[p0 * g.xs[0] + p1 * g.xs[1] + p2 * g.xs[2]]);
          if (v > best || v != v) best = v, at = (p0 * g.in1 + p1) * g.in2 + p2;
        }
    const int64_t o = n * g.os_n + c * g.os_c + o0 * g.os[0] + o1 * g.os[1] + o2 * g.os[2];
    y[o] = convert<T>(best);
    yi[o] = at;
  }
}

void max_pool_indices_kernel(const Tensor& input, const std::vector<pool_detail::WindowDim>& wd, const Tensor& out,
                             const Tensor& idx) {
  const size_t d = wd.size();
  // Three spatial dims always: missing leading ones have one window of one position.
  pool_detail::WindowDim unit;
  unit.begin = {0}, unit.end = {1};
  const pool_detail::WindowDim* w[3] = {&unit, &unit, &unit};
  PoolGeom g{};
  for (int k = 0; k < 3; ++k) g.xs[k] = g.os[k] = 0;
  for (size_t i = 0; i < d; ++i) {
    w[3 - d + i] = &wd[i];
    g.xs[3 - d + i] = input.stride(2 + int64_t(i));
    g.os[3 - d + i] = out.stride(2 + int64_t(i));
  }
  g.C = input.size(1);
  g.in1 = w[1]->in, g.in2 = w[2]->in;
  g.xs_n = input.stride(0), g.xs_c = input.stride(1), g.os_n = out.stride(0), g.os_c = out.stride(1);
  // The bounds table: begin and end of each dim, one after another.
  std::vector<int64_t> table;
  for (int k = 0; k < 3; ++k) {
    g.O[k] = int64_t(w[k]->begin.size());
    g.step[k] = w[k]->step;
    g.begin_at[k] = int64_t(table.size());
    table.insert(table.end(), w[k]->begin.begin(), w[k]->begin.end());
    g.end_at[k] = int64_t(table.size());
    table.insert(table.end(), w[k]->end.begin(), w[k]->end.end());
  }
  Tensor host = empty({int64_t(table.size())}, TensorOptions().dtype(kLong));
  std::copy(table.begin(), table.end(), host.data_ptr<int64_t>());
  // Pinned and non-blocking: the host does not wait for the GPU's queue on every call.
  const Tensor dev_table = host.pin_memory().to(input.device(), /*non_blocking=*/true);
  const int64_t total = out.numel();
  CUDAGuard guard(input.device().index());
  cudaStream_t stream = getCurrentCUDAStream(input.device().index()).stream();
  visit_dtype<kFloatingTypes>(input.scalar_type(), "max_pool", [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_kernel<T><<<grid_for(total), kThreads, 0, stream>>>(
        static_cast<const T*>(input.data_ptr()), static_cast<T*>(out.data_ptr()), idx.data_ptr<int64_t>(), total, g,
        dev_table.data_ptr<int64_t>());
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

const KernelRegistrar<pool_detail::MaxPoolIndicesFn> max_pool_reg("max_pool_indices", kCUDA, CpuCapability::Default,
                                                                   &max_pool_indices_kernel);

}  // namespace
}  // namespace ember::cuda
