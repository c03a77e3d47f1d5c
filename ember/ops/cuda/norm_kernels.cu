// CUDA kernels of fused layer / group normalization (ember/ops/norm_device.h): a block per
// row. Forward: Welford statistics of the row (per thread, then merged by cub::BlockReduce),
// then the normalized, scaled and shifted write. Backward to the input: the two row sums
// sum(dy w) and sum(dy w xhat) in one pass, then dx. Half and bfloat16 compute in float,
// double in double; mean and rstd are kept in that precision.
#include <cub/block/block_reduce.cuh>

#include "ember/cuda/guard.h"
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/norm_device.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

constexpr int kNormThreads = 256;
constexpr DtypeSet kNormTypes = kFloatingTypes;

template <class A>
struct Welford {
  A n, mean, m2;
};
struct MergeWelford {
  template <class A>
  __device__ __forceinline__ Welford<A> operator()(const Welford<A>& a, const Welford<A>& b) const {
    if (b.n == A(0)) return a;
    if (a.n == A(0)) return b;
    const A n = a.n + b.n, delta = b.mean - a.mean, wb = b.n / n;
    return {n, a.mean + delta * wb, a.m2 + b.m2 + delta * delta * a.n * wb};
  }
};

template <class A>
struct RowSums {
  A dyw, dyw_xhat;
};
struct AddRowSums {
  template <class A>
  __device__ __forceinline__ RowSums<A> operator()(const RowSums<A>& a, const RowSums<A>& b) const {
    return {a.dyw + b.dyw, a.dyw_xhat + b.dyw_xhat};
  }
};

// The channel of column j in a row whose first channel is c0.
__device__ __forceinline__ int64_t channel_of(const NormGeometry& g, int64_t c0, int64_t j) {
  return c0 + (g.inner == 1 ? j : j / g.inner);
}

template <class S, class A>
__global__ void __launch_bounds__(kNormThreads)
norm_forward_kernel(const S* x, const S* w, const S* b, NormGeometry g, S* y, A* mean, A* rstd) {
  using Reduce = cub::BlockReduce<Welford<A>, kNormThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ A s_mean, s_rstd;
  for (int64_t row = blockIdx.x; row < g.rows; row += gridDim.x) {
    const S* xr = x + row * g.cols;
    S* yr = y + row * g.cols;
    Welford<A> acc{A(0), A(0), A(0)};
    for (int64_t j = threadIdx.x; j < g.cols; j += kNormThreads) {
      const A v = A(xr[j]);
      acc.n += A(1);
      const A d = v - acc.mean;
      acc.mean += d / acc.n;
      acc.m2 += d * (v - acc.mean);
    }
    const Welford<A> total = Reduce(temp).Reduce(acc, MergeWelford{});
    if (threadIdx.x == 0) {
      const A var = total.m2 / A(g.cols);  // biased, as PyTorch's
      s_mean = total.mean;
      s_rstd = A(1) / ::sqrt(var + A(g.eps));
      mean[row] = s_mean;
      rstd[row] = s_rstd;
    }
    __syncthreads();
    const A m = s_mean, r = s_rstd;
    const int64_t c0 = (row % g.groups) * g.channels_per_group;
    for (int64_t j = threadIdx.x; j < g.cols; j += kNormThreads) {
      A v = (A(xr[j]) - m) * r;
      if (w) v *= A(w[channel_of(g, c0, j)]);
      if (b) v += A(b[channel_of(g, c0, j)]);
      yr[j] = convert<S>(v);
    }
    __syncthreads();  // temp and s_* are reused by the next row
  }
}

template <class S, class A>
__global__ void __launch_bounds__(kNormThreads)
norm_backward_kernel(const S* dy, const S* x, const A* mean, const A* rstd, const S* w, NormGeometry g, S* dx) {
  using Reduce = cub::BlockReduce<RowSums<A>, kNormThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ RowSums<A> s_sums;
  for (int64_t row = blockIdx.x; row < g.rows; row += gridDim.x) {
    const S* dyr = dy + row * g.cols;
    const S* xr = x + row * g.cols;
    S* dxr = dx + row * g.cols;
    const A m = mean[row], r = rstd[row];
    const int64_t c0 = (row % g.groups) * g.channels_per_group;
    RowSums<A> acc{A(0), A(0)};
    for (int64_t j = threadIdx.x; j < g.cols; j += kNormThreads) {
      const A gy = A(dyr[j]) * (w ? A(w[channel_of(g, c0, j)]) : A(1));
      acc.dyw += gy;
      acc.dyw_xhat += gy * (A(xr[j]) - m) * r;
    }
    const RowSums<A> total = Reduce(temp).Reduce(acc, AddRowSums{});
    if (threadIdx.x == 0) s_sums = total;
    __syncthreads();
    const A inv_n = A(1) / A(g.cols), a = s_sums.dyw * inv_n, bsum = s_sums.dyw_xhat * inv_n;
    for (int64_t j = threadIdx.x; j < g.cols; j += kNormThreads) {
      const A gy = A(dyr[j]) * (w ? A(w[channel_of(g, c0, j)]) : A(1));
      const A xhat = (A(xr[j]) - m) * r;
      dxr[j] = convert<S>(r * (gy - a - xhat * bsum));
    }
    __syncthreads();
  }
}

unsigned grid_of(int64_t rows) { return unsigned(std::min<int64_t>(rows, int64_t(1) << 20)); }

template <class S>
const S* data_or_null(const Tensor& t) {
  return t.defined() ? static_cast<const S*>(t.data_ptr()) : nullptr;
}

void norm_forward(const Tensor& x, const Tensor& weight, const Tensor& bias, const NormGeometry& g, const Tensor& y,
                  const Tensor& mean, const Tensor& rstd) {
  if (g.rows == 0) return;
  CUDAGuard guard(x.device());
  visit_dtype<kNormTypes>(x.scalar_type(), "layer_norm", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using A = std::conditional_t<std::is_same_v<S, double>, double, float>;
    norm_forward_kernel<S, A><<<grid_of(g.rows), kNormThreads, 0, getCurrentCUDAStream().stream()>>>(
        static_cast<const S*>(x.data_ptr()), data_or_null<S>(weight), data_or_null<S>(bias), g,
        static_cast<S*>(y.data_ptr()), static_cast<A*>(mean.data_ptr()), static_cast<A*>(rstd.data_ptr()));
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

void norm_backward(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd, const Tensor& weight,
                   const NormGeometry& g, const Tensor& dx) {
  if (g.rows == 0) return;
  CUDAGuard guard(x.device());
  visit_dtype<kNormTypes>(x.scalar_type(), "layer_norm_backward", [&](auto tag) {
    using S = typename decltype(tag)::type;
    using A = std::conditional_t<std::is_same_v<S, double>, double, float>;
    norm_backward_kernel<S, A><<<grid_of(g.rows), kNormThreads, 0, getCurrentCUDAStream().stream()>>>(
        static_cast<const S*>(dy.data_ptr()), static_cast<const S*>(x.data_ptr()),
        static_cast<const A*>(mean.data_ptr()), static_cast<const A*>(rstd.data_ptr()), data_or_null<S>(weight), g,
        static_cast<S*>(dx.data_ptr()));
    EMBER_CUDA_CHECK(cudaGetLastError());
  });
}

const KernelRegistrar<NormForwardFn> norm_fwd_reg("norm_forward", kCUDA, CpuCapability::Default, &norm_forward);
const KernelRegistrar<NormBackwardFn> norm_bwd_reg("norm_backward", kCUDA, CpuCapability::Default, &norm_backward);

}  // namespace
}  // namespace ember::cuda
