// Internal: what ember's cuDNN users share (ops/cuda/conv_cudnn.cpp, ops/cuda/batch_norm_cudnn.cpp):
// the entry points, opened on first use (Note [CUDA libraries loaded on first use]), one
// handle per device and thread on the current stream, dtypes and tensor descriptors.
#pragma once
#include <cudnn.h>

#include "ember/core/tensor.h"
#include "ember/cuda/cuda.h"

namespace ember::cuda::cudnn_detail {

// The cuDNN entry points ember calls, typed from cudnn_ops.h / cudnn_cnn.h
// (the convolution and batch-norm API that cuDNN 9 keeps beside its graph API).
struct Cudnn {
  decltype(&cudnnCreate) create;
  decltype(&cudnnSetStream) set_stream;
  decltype(&cudnnGetErrorString) error_string;
  decltype(&cudnnCreateTensorDescriptor) create_tensor;
  decltype(&cudnnSetTensorNdDescriptor) set_tensor;
  decltype(&cudnnDestroyTensorDescriptor) destroy_tensor;
  decltype(&cudnnCreateFilterDescriptor) create_filter;
  decltype(&cudnnSetFilterNdDescriptor) set_filter;
  decltype(&cudnnDestroyFilterDescriptor) destroy_filter;
  decltype(&cudnnCreateConvolutionDescriptor) create_conv;
  decltype(&cudnnSetConvolutionNdDescriptor) set_conv;
  decltype(&cudnnSetConvolutionGroupCount) set_groups;
  decltype(&cudnnSetConvolutionMathType) set_math;
  decltype(&cudnnDestroyConvolutionDescriptor) destroy_conv;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) fwd_heuristic;
  decltype(&cudnnFindConvolutionForwardAlgorithm) fwd_find;
  decltype(&cudnnGetConvolutionForwardWorkspaceSize) fwd_workspace;
  decltype(&cudnnConvolutionForward) fwd;
  decltype(&cudnnGetConvolutionBackwardDataAlgorithm_v7) bwd_data_heuristic;
  decltype(&cudnnFindConvolutionBackwardDataAlgorithm) bwd_data_find;
  decltype(&cudnnGetConvolutionBackwardDataWorkspaceSize) bwd_data_workspace;
  decltype(&cudnnConvolutionBackwardData) bwd_data;
  decltype(&cudnnGetConvolutionBackwardFilterAlgorithm_v7) bwd_filter_heuristic;
  decltype(&cudnnFindConvolutionBackwardFilterAlgorithm) bwd_filter_find;
  decltype(&cudnnGetConvolutionBackwardFilterWorkspaceSize) bwd_filter_workspace;
  decltype(&cudnnConvolutionBackwardFilter) bwd_filter;
  decltype(&cudnnDeriveBNTensorDescriptor) derive_bn;
  decltype(&cudnnBatchNormalizationForwardTraining) bn_forward_training;
  decltype(&cudnnBatchNormalizationForwardInference) bn_forward_inference;
  decltype(&cudnnBatchNormalizationBackward) bn_backward;
};


// The entry points; raises (naming cuDNN and the library) when it cannot be opened.
const Cudnn& cudnn();
// Whether cuDNN opens on this machine (never raises).
bool cudnn_opens();

#define EMBER_CUDNN_CHECK(expr)                                                                        \
  do {                                                                                                 \
    const cudnnStatus_t ember_cudnn_st_ = (expr);                                                      \
    EMBER_CHECK(ember_cudnn_st_ == CUDNN_STATUS_SUCCESS, "cuDNN error: ",                              \
                cudnn().error_string(ember_cudnn_st_), " in ", #expr);                                 \
  } while (0)

// The handle of device `dev` for this thread, bound to the device's current stream.
cudnnHandle_t handle_for(DeviceIndex dev);

// cuDNN's type of float, double, half and bfloat16 (an error for the rest).
cudnnDataType_t data_type(ScalarType t);

// A tensor descriptor of t, dense in the contiguous or the channels-last layout, with the
// layout's own strides: a size-1 dim's stride is arbitrary in ember (as in PyTorch) and
// cuDNN would misread the layout from it.
struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc(const Tensor& t, bool channels_last);
  // A descriptor of `sizes` in type `type`, contiguous.
  TensorDesc(IntArrayRef sizes, cudnnDataType_t type);
  TensorDesc() = default;
  ~TensorDesc();
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

// alpha = 1, beta = 0 in cuDNN's scaling type: double for double data, float otherwise.
struct Scaling {
  double d1 = 1, d0 = 0;
  float f1 = 1, f0 = 0;
  const void* one(ScalarType t) const { return t == kDouble ? static_cast<const void*>(&d1) : &f1; }
  const void* zero(ScalarType t) const { return t == kDouble ? static_cast<const void*>(&d0) : &f0; }
};

}  // namespace ember::cuda::cudnn_detail
