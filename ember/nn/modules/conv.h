// Conv1d/2d/3d and ConvTranspose1d/2d/3d (LibTorch's ConvNd modules, torch/nn/modules/conv.h):
// stride, padding (numbers, "same", "valid"), dilation, groups, padding modes, bias, and
// PyTorch's default initialization. Options: ember/nn/options/conv.h; the computation:
// ember/nn/functional/conv.h.
#pragma once
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ember/nn/any.h"
#include "ember/nn/functional/conv.h"
#include "ember/nn/module.h"
#include "ember/nn/options/conv.h"

namespace ember::nn {

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
