// Options of Unfold / Fold (LibTorch's torch/nn/options/fold.h), which are also F::unfold's and
// F::fold's.
#pragma once
#include <utility>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/expanding_array.h"

namespace ember::nn {

// ---- Unfold / Fold (im2col / col2im over 2 spatial dims) ------------------------------------
struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(std::move(kernel_size)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<2>, kernel_size);
  TORCH_ARG(ExpandingArray<2>, dilation) = 1;
  TORCH_ARG(ExpandingArray<2>, padding) = 0;
  TORCH_ARG(ExpandingArray<2>, stride) = 1;
};
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(std::move(output_size)), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(ExpandingArray<2>, output_size);
  TORCH_ARG(ExpandingArray<2>, kernel_size);
  TORCH_ARG(ExpandingArray<2>, dilation) = 1;
  TORCH_ARG(ExpandingArray<2>, padding) = 0;
  TORCH_ARG(ExpandingArray<2>, stride) = 1;
};
namespace functional {
using UnfoldFuncOptions = UnfoldOptions;
using FoldFuncOptions = FoldOptions;
}  // namespace functional

}  // namespace ember::nn
