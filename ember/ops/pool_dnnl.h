// CPU pooling kernels for ember/nn/functional/pooling.cpp: max and average pooling through oneDNN
// (float32 and bfloat16, 1 to 3 spatial dims, forward and backward, channels-last kept
// with no layout conversion), and a direct kernel giving max pooling's values with
// PyTorch's flat per-plane int64 indices for any window geometry (regular or adaptive)
// in every floating dtype and layout.
#pragma once
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::pool_detail {

enum class PoolKind { Max, AvgIncludePad, AvgExcludePad };

struct PoolShape {
  // Per spatial dim. pad_r covers ceil_mode's extra window (>= pad_l then); dilation >= 1.
  std::vector<int64_t> kernel, stride, pad_l, pad_r, dilation;
};

// True when oneDNN pools this input: a CPU float32 or bfloat16 (N, C, spatial...) tensor of
// 3 to 5 dims, non-empty, with no element count beyond oneDNN's int range.
bool dnnl_supported(const Tensor& input);
// The layout pooling keeps: ChannelsLast(3d) for a channels-last 4-D (5-D) input.
MemoryFormat pool_format(const Tensor& input);

// Pools `input`. With `workspace` (max pooling whose gradient will be asked for) the
// training primitive runs and stores where each maximum came from for the backward.
Tensor dnnl_pool_forward(const Tensor& input, const PoolShape& s, PoolKind kind, Tensor* workspace = nullptr);
// The input gradient (of `input_sizes`, laid out as `format`) from the output gradient.
Tensor dnnl_pool_backward(const Tensor& grad_output, IntArrayRef input_sizes, MemoryFormat format, const PoolShape& s,
                          PoolKind kind, const Tensor& workspace);

// The windows along one spatial dim: output o reads positions begin[o], begin[o] + step, ...
// below end[o] (only positions inside the input: padding is already cut off).
struct WindowDim {
  int64_t in = 1;
  std::vector<int64_t> begin, end;
  int64_t step = 1;
};
// Max over the windows of (N, C, spatial...) and the index of each maximum in its
// (spatial...) plane, flattened, as PyTorch's max_poolNd_with_indices (the first maximum;
// NaN wins; a window of only -inf gives its first position). Outputs take the input's
// layout. Float types only.
// On a device, the kernel registered as "max_pool_indices" for it (MaxPoolIndicesFn) fills
// out and idx, allocated as on the CPU.
std::pair<Tensor, Tensor> max_pool_indices(const Tensor& input, const std::vector<WindowDim>& dims, const char* op);
using MaxPoolIndicesFn = void (*)(const Tensor& input, const std::vector<WindowDim>& dims, const Tensor& out,
                                  const Tensor& idx);

}  // namespace ember::pool_detail
