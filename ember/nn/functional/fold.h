// unfold / fold (LibTorch's torch/nn/functional/fold.h): im2col / col2im over 2 spatial dims.
// Options: ember/nn/options/fold.h.
#pragma once
#include "ember/core/tensor.h"
#include "ember/nn/options/fold.h"

namespace ember::nn {

namespace functional {
// (N, C, H, W) or (C, H, W) -> (N, C * kh * kw, L): the sliding blocks as columns.
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
// (N, C * kh * kw, L) or (C * kh * kw, L) -> (N, C, H, W): overlapping blocks summed.
Tensor fold(const Tensor& input, const FoldFuncOptions& options);
}  // namespace functional

}  // namespace ember::nn
