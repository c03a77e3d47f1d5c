// Fused multi-tensor SGD, Adam and AdamW on CUDA (Note [Fused optimizer steps] in
// ember/ops/optim_fused.h): one launch per group of up to kTensors parameters; each block
// updates a chunk of one tensor, found from the blocks' prefix table in the launch arguments.
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/op_def.h"
#include "ember/ops/optim_fused.h"

namespace ember::cuda {
namespace {

constexpr int kTensors = 32;
constexpr int64_t kChunk = 8192;  // elements per block

// Which tensor and elements each block of a launch updates: the blocks of tensor k are
// [first_block[k], first_block[k + 1]), kChunk elements each.
struct Chunks {
  int64_t numel[kTensors];
  int64_t first_block[kTensors + 1];
  int count;
  __device__ void locate(int64_t b, int& k, int64_t& begin, int64_t& end) const {
    k = 0;
    while (k + 1 < count && first_block[k + 1] <= b) ++k;
    begin = (b - first_block[k]) * kChunk;
    end = begin + kChunk < numel[k] ? begin + kChunk : numel[k];
  }
};

// Launches over `tensors` in groups of kTensors: fill(L, k, tensor) copies one tensor's
// pointers into the launch arguments L, start_kernel(L, blocks, stream) launches.
template <class Launch, class Tensors, class Fill, class Start>
void launch_in_groups(Device device, const Tensors& tensors, const Fill& fill, const Start& start_kernel) {
  CUDAGuard guard(device.index());
  for (size_t start = 0; start < tensors.size(); start += kTensors) {
    Launch L{};
    L.chunks.count = int(std::min<size_t>(kTensors, tensors.size() - start));
    int64_t blocks = 0;
    for (int k = 0; k < L.chunks.count; ++k) {
      const auto& t = tensors[start + size_t(k)];
      fill(L, k, t);
      L.chunks.numel[k] = t.numel;
      L.chunks.first_block[k] = blocks;
      blocks += (t.numel + kChunk - 1) / kChunk;
    }
    L.chunks.first_block[L.chunks.count] = blocks;
    if (blocks == 0) continue;
    EMBER_CHECK(blocks < (int64_t(1) << 31), "fused optimizer step: too many elements in one launch");
    start_kernel(L, unsigned(blocks), getCurrentCUDAStream(device.index()).stream());
    EMBER_CUDA_CHECK(cudaGetLastError());
  }
}

struct AdamLaunch {
  void* param[kTensors];
  const void* grad[kTensors];
  void* exp_avg[kTensors];
  void* exp_avg_sq[kTensors];
  void* max_exp_avg_sq[kTensors];
  double bc1[kTensors], bc2[kTensors];
  Chunks chunks;
};

template <class T>
__global__ void __launch_bounds__(kThreads) adam_kernel(const __grid_constant__ AdamLaunch L, FusedAdamArgs a) {
  using C = compute_t<T>;
  int k;
  int64_t begin, end;
  L.chunks.locate(blockIdx.x, k, begin, end);
  T* p = static_cast<T*>(L.param[k]);
  const T* g = static_cast<const T*>(L.grad[k]);
  T* m = static_cast<T*>(L.exp_avg[k]);
  T* v = static_cast<T*>(L.exp_avg_sq[k]);
  T* vmax = static_cast<T*>(L.max_exp_avg_sq[k]);
  const C lr = C(a.lr), b1 = C(a.beta1), b2 = C(a.beta2), eps = C(a.eps), wd = C(a.weight_decay);
  const C step = C(-a.lr / L.bc1[k]), bc2_sqrt = C(::sqrt(L.bc2[k]));
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    C grad = C(g[i]);
    if (a.maximize) grad = -grad;
    C param = C(p[i]);
    if (a.decoupled) param *= C(1) - lr * wd;
    else if (a.weight_decay != 0) grad += wd * param;
    const C mm = b1 * C(m[i]) + (C(1) - b1) * grad;
    const C vv = b2 * C(v[i]) + (C(1) - b2) * grad * grad;
    m[i] = convert<T>(mm);
    v[i] = convert<T>(vv);
    C used = vv;
    if (a.amsgrad) {
      const C old = C(vmax[i]);
      used = (vv > old || vv != vv) ? vv : old;  // NaN propagates, as maximum()
      vmax[i] = convert<T>(used);
    }
    const C denom = ::sqrt(used) / bc2_sqrt + eps;
    p[i] = convert<T>(param + step * mm / denom);
  }
}

void adam_fused(Device device, const FusedAdamArgs& args, const std::vector<FusedAdamTensor>& tensors) {
  visit_dtype<kFloatingTypes>(args.dtype, "fused Adam", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_in_groups<AdamLaunch>(
        device, tensors,
        [](AdamLaunch& L, int k, const FusedAdamTensor& t) {
          L.param[k] = t.param, L.grad[k] = t.grad, L.exp_avg[k] = t.exp_avg, L.exp_avg_sq[k] = t.exp_avg_sq;
          L.max_exp_avg_sq[k] = t.max_exp_avg_sq, L.bc1[k] = t.bias_correction1, L.bc2[k] = t.bias_correction2;
        },
        [&](const AdamLaunch& L, unsigned blocks, cudaStream_t stream) {
          adam_kernel<T><<<blocks, kThreads, 0, stream>>>(L, args);
        });
  });
}

struct SgdLaunch {
  void* param[kTensors];
  const void* grad[kTensors];
  void* buf[kTensors];
  bool first[kTensors];
  Chunks chunks;
};

template <class T>
__global__ void __launch_bounds__(kThreads) sgd_kernel(const __grid_constant__ SgdLaunch L, FusedSgdArgs a) {
  using C = compute_t<T>;
  int k;
  int64_t begin, end;
  L.chunks.locate(blockIdx.x, k, begin, end);
  T* p = static_cast<T*>(L.param[k]);
  const T* g = static_cast<const T*>(L.grad[k]);
  T* buf = static_cast<T*>(L.buf[k]);
  const C mom = C(a.momentum), damp = C(a.dampening), wd = C(a.weight_decay);
  const C lr = C(a.maximize ? a.lr : -a.lr);
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) {
    C grad = C(g[i]);
    const C param = C(p[i]);
    if (a.weight_decay != 0) grad += wd * param;
    if (a.momentum != 0) {
      const C bv = L.first[k] ? grad : mom * C(buf[i]) + (C(1) - damp) * grad;
      buf[i] = convert<T>(bv);
      grad = a.nesterov ? grad + mom * bv : bv;
    }
    p[i] = convert<T>(param + lr * grad);
  }
}

void sgd_fused(Device device, const FusedSgdArgs& args, const std::vector<FusedSgdTensor>& tensors) {
  visit_dtype<kFloatingTypes>(args.dtype, "fused SGD", [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_in_groups<SgdLaunch>(
        device, tensors,
        [](SgdLaunch& L, int k, const FusedSgdTensor& t) {
          L.param[k] = t.param, L.grad[k] = t.grad, L.buf[k] = t.momentum_buffer, L.first[k] = t.first;
        },
        [&](const SgdLaunch& L, unsigned blocks, cudaStream_t stream) {
          sgd_kernel<T><<<blocks, kThreads, 0, stream>>>(L, args);
        });
  });
}

const KernelRegistrar<FusedSgdFn> sgd_fused_reg("sgd_fused", kCUDA, CpuCapability::Default, &sgd_fused);
const KernelRegistrar<FusedAdamFn> adam_fused_reg("adam_fused", kCUDA, CpuCapability::Default, &adam_fused);

}  // namespace
}  // namespace ember::cuda
