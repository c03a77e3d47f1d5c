// Options of the convolutions (LibTorch's torch/nn/options/conv.h): ConvPadding, ConvOptions
// and ConvTransposeOptions for the modules of ember/nn/modules/conv.h, ConvFuncOptions and
// ConvTransposeFuncOptions for the functionals of ember/nn/functional/conv.h.
#pragma once
#include <initializer_list>
#include <string>
#include <variant>
#include <vector>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "ember/nn/expanding_array.h"

namespace ember::nn {

// padding: explicit sizes per spatial dim (one number for all), or "same" / "valid".
struct ConvPadding : std::variant<std::vector<int64_t>, std::string> {
  using variant::variant;
  ConvPadding(int64_t v) : variant(std::vector<int64_t>{v}) {}  // NOLINT
  ConvPadding(int v) : ConvPadding(int64_t(v)) {}  // NOLINT
  ConvPadding(std::initializer_list<int64_t> l) : variant(std::vector<int64_t>(l)) {}
  ConvPadding(const char* s) : variant(std::string(s)) {}  // NOLINT
  ConvPadding(enumtype::kValid) : variant(std::string("valid")) {}  // NOLINT: torch::kValid
  ConvPadding(enumtype::kSame) : variant(std::string("same")) {}  // NOLINT: torch::kSame
};

namespace functional {
// LibTorch's options forms: F::conv2d(x, w, F::Conv2dFuncOptions().stride(2).padding(1)).
template <size_t D>
struct ConvFuncOptions {
  TORCH_ARG(Tensor, bias) = Tensor();
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ConvPadding, padding) = std::vector<int64_t>(D, 0);  // sizes, or torch::kValid / kSame
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

template <size_t D>
struct ConvTransposeFuncOptions {
  TORCH_ARG(Tensor, bias) = Tensor();
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;
}  // namespace functional

template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ConvPadding, padding) = std::vector<int64_t>(D, 0);
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(std::string, padding_mode) = "zeros";  // or reflect / replicate / circular (torch::kReflect ...)
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(std::move(kernel_size)) {}
  TORCH_ARG(int64_t, in_channels);
  TORCH_ARG(int64_t, out_channels);
  TORCH_ARG(ExpandingArray<D>, kernel_size);
  TORCH_ARG(ExpandingArray<D>, stride) = 1;
  TORCH_ARG(ExpandingArray<D>, padding) = 0;
  TORCH_ARG(ExpandingArray<D>, output_padding) = 0;
  TORCH_ARG(int64_t, groups) = 1;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(ExpandingArray<D>, dilation) = 1;
  TORCH_ARG(std::string, padding_mode) = "zeros";  // the only mode PyTorch allows here
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

}  // namespace ember::nn
