// CUDA's DeviceBatchNorm (Note [Batch norm on devices], ember/ops/batch_norm_device.h) on
// cuDNN's batch-norm calls, as PyTorch's cudnn_batch_norm: spatial mode (statistics per
// channel over N and the spatial dims), the persistent variant for channels-last training;
// float and half data with float parameters, double with double; 3-d inputs as 4-d with a
// unit spatial dim. As PyTorch, 2-d inputs, bfloat16 and very large batches take the composite. cuDNN updates the running variance with the unbiased
// estimate, as PyTorch. cuDNN is opened on first use (ops/cuda/cudnn_common.h).
#include <climits>

#include "ember/cuda/guard.h"
#include "ember/ops/batch_norm_device.h"
#include "ember/ops/cuda/cudnn_common.h"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

using namespace cudnn_detail;

// (N, C) and (N, C, L) as (N, C, 1, 1) and (N, C, L, 1); 4-d and 5-d as they are.
Tensor as_4d(const Tensor& t) {
  if (t.dim() == 2) return t.unsqueeze(2).unsqueeze(3);
  if (t.dim() == 3) return t.unsqueeze(3);
  return t;
}
bool channels_last(const Tensor& t) {
  return t.dim() >= 4 && t.suggest_memory_format() != MemoryFormat::Contiguous;
}


// The descriptors of one call: x (and y, dy, dx: the same layout) and the derived
// per-channel descriptor.
struct BnDescs {
  TensorDesc x, bn;
  cudnnBatchNormMode_t mode;
  BnDescs(const Tensor& x4, bool last, bool training) : x(x4, last) {
    mode = training && last ? CUDNN_BATCHNORM_SPATIAL_PERSISTENT : CUDNN_BATCHNORM_SPATIAL;
    EMBER_CUDNN_CHECK(cudnn().create_tensor(&bn.d));
    EMBER_CUDNN_CHECK(cudnn().derive_bn(bn.d, x.d, mode));
  }
};

const void* ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }
void* mut_ptr_or_null(const Tensor& t) { return t.defined() ? t.data_ptr() : nullptr; }

// PyTorch's conditions for cuDNN batch norm (_select_batch_norm_backend): 3-d to 5-d input,
// not bfloat16, and batch sizes cuDNN is known to handle (880801 in training, 65535 in
// inference; larger ones fail or go wrong, PyTorch issue 29744).
bool supports(const Tensor& input, bool training) {
  if (!input.is_cuda() || !globalContext().userEnabledCuDNN() || input.numel() > INT_MAX) return false;
  if (input.dim() < 3 || input.size(0) > (training ? 880801 : 65535)) return false;
  const ScalarType t = input.scalar_type();
  if (!(t == kFloat || t == kHalf || t == kDouble)) return false;
  if (t == kDouble && channels_last(input)) return false;  // no NHWC double kernels
  return cudnn_opens();
}

void forward_training(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                      const Tensor& running_var, double momentum, double eps, const Tensor& y, const Tensor& save_mean,
                      const Tensor& save_invstd) {
  CUDAGuard guard(x.device());
  const bool last = channels_last(x);
  const Tensor x4 = as_4d(x), y4 = as_4d(y);
  const BnDescs d(x4, last, true);
  const Scaling sc;
  const ScalarType t = x.scalar_type();
  EMBER_CUDNN_CHECK(cudnn().bn_forward_training(
      handle_for(x.device().index()), d.mode, sc.one(t), sc.zero(t), d.x.d, x4.data_ptr(), d.x.d, y4.data_ptr(), d.bn.d,
      weight.data_ptr(), bias.data_ptr(), momentum, mut_ptr_or_null(running_mean), mut_ptr_or_null(running_var), eps,
      save_mean.data_ptr(), save_invstd.data_ptr()));
}

void forward_inference(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                       const Tensor& running_var, double eps, const Tensor& y) {
  CUDAGuard guard(x.device());
  const bool last = channels_last(x);
  const Tensor x4 = as_4d(x), y4 = as_4d(y);
  const BnDescs d(x4, last, false);
  const Scaling sc;
  const ScalarType t = x.scalar_type();
  EMBER_CUDNN_CHECK(cudnn().bn_forward_inference(handle_for(x.device().index()), d.mode, sc.one(t), sc.zero(t), d.x.d,
                                                 x4.data_ptr(), d.x.d, y4.data_ptr(), d.bn.d, weight.data_ptr(),
                                                 bias.data_ptr(), ptr_or_null(running_mean), ptr_or_null(running_var),
                                                 eps));
}

void backward(const Tensor& dy, const Tensor& x, const Tensor& weight, const Tensor& save_mean,
              const Tensor& save_invstd, double eps, const Tensor& dx, const Tensor& dweight, const Tensor& dbias) {
  CUDAGuard guard(x.device());
  const bool last = channels_last(x);
  const Tensor x4 = as_4d(x), dy4 = as_4d(dy), dx4 = as_4d(dx);
  const BnDescs d(x4, last, true);  // the forward's mode
  const Scaling sc;
  const ScalarType t = x.scalar_type();
  EMBER_CUDNN_CHECK(cudnn().bn_backward(handle_for(x.device().index()), d.mode, sc.one(t), sc.zero(t), sc.one(t),
                                        sc.zero(t), d.x.d, x4.data_ptr(), d.x.d, dy4.data_ptr(), d.x.d, dx4.data_ptr(),
                                        d.bn.d, weight.data_ptr(), dweight.data_ptr(), dbias.data_ptr(), eps,
                                        save_mean.data_ptr(), save_invstd.data_ptr()));
}

const DeviceBatchNorm kCudnnBatchNorm{&supports, &forward_training, &forward_inference, &backward};
const DeviceBatchNorm* cudnn_batch_norm() { return &kCudnnBatchNorm; }

const KernelRegistrar<DeviceBatchNormFn> bn_reg("device_batch_norm", kCUDA, CpuCapability::Default, &cudnn_batch_norm);

}  // namespace
}  // namespace ember::cuda
