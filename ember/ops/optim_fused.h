// Internal: fused multi-tensor optimizer steps on a device (ember/optim/detail/adam_step.h
// -> ember/ops/cuda/optim_kernels.cu).
//
// Note [Fused optimizer steps]
// On CUDA, SGD's, Adam's and AdamW's update of every parameter of a group that qualifies (a real
// floating dtype; parameter, gradient and state dense with the same strides, of one dtype,
// on one device) runs
// as one kernel launch per 32 tensors instead of seven to nine launches per parameter. Each
// element is updated in the compute type (float for half and bfloat16) and rounded once
// when stored, as PyTorch's fused=True does, so results agree with the per-op path to the
// rounding of its intermediate steps. Other parameters (complex, strided, CPU) take the
// per-op path. The kernels are found by name ("adam_fused", "sgd_fused"), as device-only
// kernels.
#pragma once
#include <algorithm>
#include <tuple>
#include <vector>

#include "ember/core/device.h"
#include "ember/core/dtype.h"
#include "ember/ops/op_def.h"

namespace ember {

struct FusedAdamTensor {
  void* param;
  const void* grad;
  void* exp_avg;
  void* exp_avg_sq;
  void* max_exp_avg_sq;  // null without amsgrad
  int64_t numel;
  double bias_correction1, bias_correction2;  // 1 - beta^step of this parameter's step
};

struct FusedAdamArgs {
  ScalarType dtype;
  double lr, beta1, beta2, eps, weight_decay;
  bool decoupled, amsgrad, maximize;
};

using FusedAdamFn = void (*)(Device device, const FusedAdamArgs& args, const std::vector<FusedAdamTensor>& tensors);

// SGD with momentum, dampening, Nesterov and weight decay ("sgd_fused"); momentum_buffer is
// null without momentum, and `first` makes the step set it to the gradient (PyTorch clones
// the gradient into a new buffer).
struct FusedSgdTensor {
  void* param;
  const void* grad;
  void* momentum_buffer;
  int64_t numel;
  bool first;
};

struct FusedSgdArgs {
  ScalarType dtype;
  double lr, momentum, dampening, weight_decay;
  bool nesterov, maximize;
};

using FusedSgdFn = void (*)(Device device, const FusedSgdArgs& args, const std::vector<FusedSgdTensor>& tensors);

// The tensors of one optimizer group for a device's fused kernel, batched per device and
// dtype; run() launches each batch through the kernel registered as `kernel`.
template <class Fn, class Args, class Entry>
class FusedBatches {
 public:
  explicit FusedBatches(const char* kernel) : kernel_(kernel) {}
  void add(Device device, const Args& args, Entry entry) {
    auto it = std::find_if(batches_.begin(), batches_.end(), [&](const auto& b) {
      return std::get<0>(b) == device && std::get<1>(b).dtype == args.dtype;
    });
    if (it == batches_.end()) it = batches_.insert(batches_.end(), {device, args, {}});
    std::get<2>(*it).push_back(entry);
  }
  void run() const {
    for (const auto& [device, args, entries] : batches_)
      reinterpret_cast<Fn>(lookup_kernel(kernel_, device.type()))(device, args, entries);
  }

 private:
  const char* kernel_;
  std::vector<std::tuple<Device, Args, std::vector<Entry>>> batches_;
};

}  // namespace ember
