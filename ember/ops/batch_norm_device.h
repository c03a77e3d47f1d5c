// Internal: batch normalization on a device (nn/functional/normalization.cpp ->
// ops/cuda/batch_norm_cudnn.cpp). Note [Batch norm on devices] is in normalization.cpp.
#pragma once
#include "ember/core/tensor.h"

namespace ember {

// Every per-channel tensor (weight, bias, running and saved statistics) has C elements of
// the parameter type: double for double input, float otherwise; weight and bias are always
// given (ones / zeros when the module has none). x is (N, C, *) with 0 to 3 spatial dims, in
// its suggested layout (contiguous or channels-last); y and dx are allocated in that layout.
struct DeviceBatchNorm {
  // Whether the device computes batch norm of this input, in training or inference mode.
  bool (*supports)(const Tensor& input, bool training);
  // Statistics over every dim but 1 (the variance biased); y = (x - mean) * invstd * weight +
  // bias; save_mean / save_invstd for the backward. running_mean / running_var (undefined
  // or both given) become (1 - momentum) r + momentum s, with the unbiased variance.
  void (*forward_training)(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                           const Tensor& running_var, double momentum, double eps, const Tensor& y,
                           const Tensor& save_mean, const Tensor& save_invstd);
  // y from the running statistics.
  void (*forward_inference)(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                            const Tensor& running_var, double eps, const Tensor& y);
  // dx, dweight, dbias of forward_training's y from dy and the saved statistics.
  void (*backward)(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& save_mean,
                   const Tensor& save_invstd, double eps, const Tensor& dx, const Tensor& dweight, const Tensor& dbias);
};

// What a device registers: KernelRegistrar<DeviceBatchNormFn>("device_batch_norm", kCUDA, ...).
using DeviceBatchNormFn = const DeviceBatchNorm* (*)();

namespace norm_detail {
// Testing only: while one is alive on this thread, CPU tensors take the device path with
// `table` (tests/nn/fused_norm_glue_test.cpp).
class ScopedDeviceBatchNormForCpu {
 public:
  explicit ScopedDeviceBatchNormForCpu(const DeviceBatchNorm* table);
  ~ScopedDeviceBatchNormForCpu();
  ScopedDeviceBatchNormForCpu(const ScopedDeviceBatchNormForCpu&) = delete;
  ScopedDeviceBatchNormForCpu& operator=(const ScopedDeviceBatchNormForCpu&) = delete;

 private:
  const DeviceBatchNorm* previous_;
};
}  // namespace norm_detail

}  // namespace ember
