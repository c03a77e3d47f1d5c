// Conv1d/Conv2d (LibTorch's ConvNdOptions, ConvNd modules, functional::conv1d/conv2d):
// stride, padding (numbers, "same", "valid"), dilation, groups, padding modes, bias, and
// PyTorch's default initialization. This first version computes through im2col (strided
// windows) and one batched GEMM, so both autograd modes apply; the oneDNN fast path and
// channels-last handling are issue 4's next step.
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ember/nn/any.h"
#include "ember/nn/enum.h"
#include "ember/nn/module.h"

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

template <size_t D, class Derived>
class ConvNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvNdImpl(ConvOptions<D> options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  ConvOptions<D> options;
  Tensor weight, bias;
};

class Conv1dImpl : public ConvNdImpl<1, Conv1dImpl> {
 public:
  using ConvNdImpl<1, Conv1dImpl>::ConvNdImpl;
  Conv1dImpl(int64_t in, int64_t out, ExpandingArray<1> k) : ConvNdImpl(Conv1dOptions(in, out, std::move(k))) {}
};
TORCH_MODULE(Conv1d);
class Conv2dImpl : public ConvNdImpl<2, Conv2dImpl> {
 public:
  using ConvNdImpl<2, Conv2dImpl>::ConvNdImpl;
  Conv2dImpl(int64_t in, int64_t out, ExpandingArray<2> k) : ConvNdImpl(Conv2dOptions(in, out, std::move(k))) {}
};
TORCH_MODULE(Conv2d);
class Conv3dImpl : public ConvNdImpl<3, Conv3dImpl> {
 public:
  using ConvNdImpl<3, Conv3dImpl>::ConvNdImpl;
  Conv3dImpl(int64_t in, int64_t out, ExpandingArray<3> k) : ConvNdImpl(Conv3dOptions(in, out, std::move(k))) {}
};
TORCH_MODULE(Conv3d);

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

// ConvTranspose1d/2d/3d: weight (in_channels, out_channels / groups, k...), PyTorch's init.
// forward(input, output_size) picks the output_padding that gives `output_size` (the
// spatial sizes, or with the batch and channel dims).
template <size_t D, class Derived>
class ConvTransposeNdImpl : public Cloneable<Derived> {
 public:
  explicit ConvTransposeNdImpl(ConvTransposeOptions<D> options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<std::vector<int64_t>>())})
  ConvTransposeOptions<D> options;
  Tensor weight, bias;
};
class ConvTranspose1dImpl : public ConvTransposeNdImpl<1, ConvTranspose1dImpl> {
 public:
  using ConvTransposeNdImpl<1, ConvTranspose1dImpl>::ConvTransposeNdImpl;
  ConvTranspose1dImpl(int64_t in, int64_t out, ExpandingArray<1> k)
      : ConvTransposeNdImpl(ConvTranspose1dOptions(in, out, std::move(k))) {}
};
TORCH_MODULE(ConvTranspose1d);
class ConvTranspose2dImpl : public ConvTransposeNdImpl<2, ConvTranspose2dImpl> {
 public:
  using ConvTransposeNdImpl<2, ConvTranspose2dImpl>::ConvTransposeNdImpl;
  ConvTranspose2dImpl(int64_t in, int64_t out, ExpandingArray<2> k)
      : ConvTransposeNdImpl(ConvTranspose2dOptions(in, out, std::move(k))) {}
};
TORCH_MODULE(ConvTranspose2d);
class ConvTranspose3dImpl : public ConvTransposeNdImpl<3, ConvTranspose3dImpl> {
 public:
  using ConvTransposeNdImpl<3, ConvTranspose3dImpl>::ConvTransposeNdImpl;
  ConvTranspose3dImpl(int64_t in, int64_t out, ExpandingArray<3> k)
      : ConvTransposeNdImpl(ConvTranspose3dOptions(in, out, std::move(k))) {}
};
TORCH_MODULE(ConvTranspose3d);

extern template class ConvNdImpl<1, Conv1dImpl>;
extern template class ConvNdImpl<2, Conv2dImpl>;
extern template class ConvNdImpl<3, Conv3dImpl>;
extern template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
extern template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
extern template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;

}  // namespace ember::nn
