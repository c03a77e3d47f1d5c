// Internal: convolutions on a device (nn/functional/conv.cpp -> ops/cuda/conv_cudnn.cpp).
//
// Note [Device convolutions]
// A convolution has three primitives (forward, backward to the input, backward to the
// weights) and conv.cpp writes the autograd around them once for every backend: oneDNN's
// on the CPU (conv_dnnl.h) and a device's DeviceConv, registered by name ("device_conv"),
// with the same signatures. A transposed convolution runs backward-data as its forward and
// forward / backward-weights as its backward, as PyTorch does with cuDNN and oneDNN. A
// geometry a backend cannot take (`supports` false) runs the composite (im2col windows and
// one matmul per group), on any device.
#pragma once
#include <utility>

#include "ember/ops/conv_dnnl.h"

namespace ember::conv_detail {

struct DeviceConv {
  // Whether this backend computes the convolution (transposed: the one whose backward-data
  // it runs) of these tensors and geometry.
  bool (*supports)(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvShape& s, bool transposed);
  Tensor (*forward)(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvShape& s);
  // Gradient of the input (its sizes and layout given) from the output gradient.
  Tensor (*backward_data)(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes,
                          MemoryFormat input_format, const ConvShape& s);
  // Gradients of the weight (sizes given) and, when `bias`, of the bias.
  std::pair<Tensor, Tensor> (*backward_weights)(const Tensor& grad_output, const Tensor& input,
                                                IntArrayRef weight_sizes, bool bias, const ConvShape& s);
};

// What a device registers: KernelRegistrar<DeviceConvFn>("device_conv", kCUDA, ...).
using DeviceConvFn = const DeviceConv* (*)();

}  // namespace ember::conv_detail
