// Convolutions through oneDNN (float32 and bfloat16 on CPU, 1 to 3 spatial dims): forward,
// backward to the input and backward to the weights and bias. The output keeps the
// input's layout: a channels-last input runs on oneDNN's NHWC kernels with no layout
// conversion; a contiguous one is reordered into oneDNN's blocked layout and back, as
// PyTorch does. Weights are reordered into the primitive's layout and the result is cached
// per weight tensor and version, so inference reorders each weight once.
#pragma once
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::conv_detail {

struct ConvShape {
  std::vector<int64_t> stride, pad_l, pad_r, dilation;  // per spatial dim; dilation >= 1
  int64_t groups = 1;
};

// True when oneDNN computes this convolution: CPU float32 or bfloat16 tensors of one
// dtype, a batched input of 3 to 5 dims, no element count beyond oneDNN's int range.
bool dnnl_supported(const Tensor& input, const Tensor& weight, const Tensor& bias);

// (N, O, spatial...) of a convolution of `input` sizes with `weight` sizes.
std::vector<int64_t> dnnl_output_sizes(IntArrayRef input, IntArrayRef weight, const ConvShape& s);

// The layout of a convolution's output: channels-last when the input or the weight is.
MemoryFormat conv_output_format(const Tensor& input, const Tensor& weight);

Tensor dnnl_conv_forward(const Tensor& input, const Tensor& weight, const Tensor& bias, const ConvShape& s);
// Gradient of the input (its sizes and layout given) from the output gradient.
Tensor dnnl_conv_backward_data(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_sizes,
                               MemoryFormat input_format, const ConvShape& s);
// Gradients of the weight (sizes given) and, when `bias`, of the bias.
std::pair<Tensor, Tensor> dnnl_conv_backward_weights(const Tensor& grad_output, const Tensor& input,
                                                     IntArrayRef weight_sizes, bool bias, const ConvShape& s);

}  // namespace ember::conv_detail
