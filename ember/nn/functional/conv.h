// The convolution functionals (LibTorch's torch/nn/functional/conv.h): conv1d/2d/3d and
// conv_transpose1d/2d/3d, positional and in LibTorch's options form (ember/nn/options/conv.h),
// over one shared implementation per kind (conv_nd, conv_transpose_nd). float32 and bfloat16
// run on oneDNN (ember/ops/conv_dnnl.h); other dtypes through im2col (strided windows) and one
// batched GEMM, so both autograd modes apply.
#pragma once
#include <type_traits>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/options/conv.h"

namespace ember::nn {

namespace functional {
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1, 1},
              const ConvPadding& padding = std::vector<int64_t>{0, 0}, IntArrayRef dilation = {1, 1}, int64_t groups = 1);
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
              const ConvPadding& padding = std::vector<int64_t>{0}, IntArrayRef dilation = {1}, int64_t groups = 1);
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1, 1, 1},
              const ConvPadding& padding = std::vector<int64_t>{0, 0, 0}, IntArrayRef dilation = {1, 1, 1},
              int64_t groups = 1);
// Transposed convolutions (LibTorch's argument order): weight (in, out / groups, k...),
// output size (in - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1.
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0}, int64_t groups = 1,
                        IntArrayRef dilation = {1});
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0}, int64_t groups = 1,
                        IntArrayRef dilation = {1});
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias = {}, IntArrayRef stride = {1},
                        IntArrayRef padding = {0}, IntArrayRef output_padding = {0}, int64_t groups = 1,
                        IntArrayRef dilation = {1});
Tensor conv_transpose_nd(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation,
                         size_t d, const char* op);
// The shared implementation of conv1d/2d/3d over d spatial dims (`op` names it in errors).
Tensor conv_nd(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
               const ConvPadding& padding, IntArrayRef dilation, int64_t groups, size_t d, const char* op);

// (Templates constrained to the options type, so that F::conv2d(x, w) with both forms' defaults
// picks the positional form instead of being ambiguous.)
#define EMBER_CONV_OPTIONS_FORM(name, D, OptionsT, call)                                    \
  template <class O = OptionsT, std::enable_if_t<std::is_same_v<O, OptionsT>, int> = 0>     \
  Tensor name(const Tensor& input, const Tensor& weight, const O& options = {}) {          \
    return call;                                                                            \
  }
EMBER_CONV_OPTIONS_FORM(conv1d, 1, Conv1dFuncOptions,
                        conv_nd(input, weight, options.bias(), options.stride(), options.padding(),
                                options.dilation(), options.groups(), 1, "conv1d"))
EMBER_CONV_OPTIONS_FORM(conv2d, 2, Conv2dFuncOptions,
                        conv_nd(input, weight, options.bias(), options.stride(), options.padding(),
                                options.dilation(), options.groups(), 2, "conv2d"))
EMBER_CONV_OPTIONS_FORM(conv3d, 3, Conv3dFuncOptions,
                        conv_nd(input, weight, options.bias(), options.stride(), options.padding(),
                                options.dilation(), options.groups(), 3, "conv3d"))
EMBER_CONV_OPTIONS_FORM(conv_transpose1d, 1, ConvTranspose1dFuncOptions,
                        conv_transpose_nd(input, weight, options.bias(), options.stride(), options.padding(),
                                          options.output_padding(), options.groups(), options.dilation(), 1,
                                          "conv_transpose1d"))
EMBER_CONV_OPTIONS_FORM(conv_transpose2d, 2, ConvTranspose2dFuncOptions,
                        conv_transpose_nd(input, weight, options.bias(), options.stride(), options.padding(),
                                          options.output_padding(), options.groups(), options.dilation(), 2,
                                          "conv_transpose2d"))
EMBER_CONV_OPTIONS_FORM(conv_transpose3d, 3, ConvTranspose3dFuncOptions,
                        conv_transpose_nd(input, weight, options.bias(), options.stride(), options.padding(),
                                          options.output_padding(), options.groups(), options.dilation(), 3,
                                          "conv_transpose3d"))
#undef EMBER_CONV_OPTIONS_FORM
}  // namespace functional

}  // namespace ember::nn
