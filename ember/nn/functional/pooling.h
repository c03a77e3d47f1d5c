// Pooling functionals with LibTorch's names and PyTorch 1.13's semantics: max pooling (dilation,
// ceil_mode, indices), average pooling (count_include_pad, divisor_override), adaptive,
// LP, fractional max pooling and max unpooling, 1d/2d/3d, as nn::functional calls taking
// options (ember/nn/options/pooling.h) and as ATen's positional ops (torch::max_pool2d).
// Unbatched inputs work as in PyTorch. float32/bfloat16 run on oneDNN with its own
// backward (ember/ops/pool_dnnl.h); other dtypes, indices and adaptive windows go through
// differentiable composites (max: a gather at the maxima, average: one matrix per dim).
#pragma once
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/options/pooling.h"

namespace ember {
// ATen's fractional max pooling: (values, flat indices into each plane) for one window size and
// output size, with the windows fixed by random_samples [N, C, 2 or 3].
std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples);
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples);
// ATen's positional forms. One value in kernel_size/stride/padding/dilation stands for
// every spatial dim; an empty stride means the kernel size. Indices are PyTorch's: flat
// positions in each (spatial...) plane, int64.
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  IntArrayRef dilation = 1, bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                                                   IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                   bool ceil_mode = false);
Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = 0,
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size);
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size);
Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size);
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size);
// output_size: the spatial sizes of the result.
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding);
}  // namespace ember

namespace ember::nn {

namespace functional {
// The positional forms (F::max_pool2d(x, {2, 2}, {2, 2}), ...).
using ::ember::avg_pool1d;
using ::ember::avg_pool2d;
using ::ember::avg_pool3d;
using ::ember::max_pool1d;
using ::ember::max_pool2d;
using ::ember::max_pool3d;

Tensor max_pool1d(const Tensor& input, const MaxPool1dFuncOptions& options);
Tensor max_pool2d(const Tensor& input, const MaxPool2dFuncOptions& options);
Tensor max_pool3d(const Tensor& input, const MaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& input, const MaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const MaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& input, const MaxPool3dFuncOptions& options);
Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& options);
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& options);
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& options);
Tensor adaptive_max_pool1d(const Tensor& input, const AdaptiveMaxPool1dFuncOptions& options);
Tensor adaptive_max_pool2d(const Tensor& input, const AdaptiveMaxPool2dFuncOptions& options);
Tensor adaptive_max_pool3d(const Tensor& input, const AdaptiveMaxPool3dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool1dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& input,
                                                            const AdaptiveMaxPool3dFuncOptions& options);
Tensor adaptive_avg_pool1d(const Tensor& input, const AdaptiveAvgPool1dFuncOptions& options);
Tensor adaptive_avg_pool2d(const Tensor& input, const AdaptiveAvgPool2dFuncOptions& options);
Tensor adaptive_avg_pool3d(const Tensor& input, const AdaptiveAvgPool3dFuncOptions& options);
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& options);
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& options);
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, const MaxUnpool1dFuncOptions& options);
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, const MaxUnpool2dFuncOptions& options);
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, const MaxUnpool3dFuncOptions& options);

std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options);
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options);
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options);
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options);
}  // namespace functional

namespace detail {
// The implementations behind ATen's pooling ops, the functionals and the modules
// (ember/nn/functional/pooling.cpp); `op` names the op in error messages.
std::tuple<Tensor, Tensor> max_pool_nd(const Tensor& input, size_t d, IntArrayRef kernel, IntArrayRef stride,
                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool with_indices,
                                       const char* op);
Tensor avg_pool_nd(const Tensor& input, size_t d, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                   bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, const char* op);
Tensor adaptive_avg_pool_nd(const Tensor& input, size_t d, IntArrayRef out_size, const char* op);
std::tuple<Tensor, Tensor> adaptive_max_pool_nd(const Tensor& input, size_t d, IntArrayRef out_size, bool with_indices,
                                                const char* op);
Tensor lp_pool_nd(const Tensor& input, size_t d, double norm_type, IntArrayRef kernel, IntArrayRef stride,
                  bool ceil_mode, const char* op);
Tensor max_unpool_nd(const Tensor& input, const Tensor& indices, size_t d, IntArrayRef output_size, const char* op);
// PyTorch's _unpool_output_size.
std::vector<int64_t> unpool_output_size(const Tensor& input, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                        const std::optional<std::vector<int64_t>>& given);

// The adaptive output size with nullopt entries taken from the input.
template <class Sizes>
std::vector<int64_t> resolve_output_size(const Tensor& input, const Sizes& sizes) {
  std::vector<int64_t> r;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if constexpr (std::is_same_v<std::decay_t<decltype(sizes[i])>, std::optional<int64_t>>)
      r.push_back(sizes[i] ? *sizes[i] : input.size(input.dim() - int64_t(sizes.size()) + int64_t(i)));
    else
      r.push_back(sizes[i]);
  }
  return r;
}
}  // namespace detail

}  // namespace ember::nn
