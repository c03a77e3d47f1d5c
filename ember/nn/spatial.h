// Spatial ops of torch::nn::functional with LibTorch's names and PyTorch 1.13 semantics:
// pad (constant / reflect / replicate / circular) and the padding modules, interpolate and
// Upsample, pixel_shuffle / pixel_unshuffle, one_hot, affine_grid / grid_sample, and
// unfold / fold (im2col / col2im). Resampling and non-constant padding run on one
// separable CPU kernel (ember/nn/resample.h); the rest are composites of differentiable ops.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/init.h"
#include "ember/nn/module.h"

namespace ember {

// PadMode, InterpolateMode, GridSampleMode, GridSamplePaddingMode and LibTorch's constants for
// them (torch::kReflect, ...): ember/nn/enum.h.


// LibTorch's enumtype::get_enum_name spelling: "kBilinear", ...
const char* mode_name(InterpolateMode mode);
const char* mode_name(PadMode mode);

// torch.nn.functional.pad: pad = (last-dim left, last-dim right, 2nd-last left, ...).
// Non-constant modes pad 1-3 trailing dims of a (batch, channel, *) or (channel, *) input
// (circular: batched only) and keep a channels-last input channels-last.
Tensor pad_nd(const Tensor& input, IntArrayRef pad, PadMode mode = PadMode::Constant, double value = 0);

}  // namespace ember

namespace ember::nn {

namespace functional {

struct PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT
  TORCH_ARG(std::vector<int64_t>, pad);
  TORCH_ARG(PadMode, mode) = PadMode::Constant;
  TORCH_ARG(double, value) = 0;
};
Tensor pad(const Tensor& input, const PadFuncOptions& options);

struct InterpolateFuncOptions {
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(InterpolateMode, mode) = InterpolateMode::Nearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
  TORCH_ARG(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  // Pillow-style antialiasing when downsampling (bilinear and bicubic, 4-D input).
  TORCH_ARG(bool, antialias) = false;

 public:
};
// Size and scale_factor take one value per spatial dim, or one value for all of them.
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {});

struct GridSampleFuncOptions {
  TORCH_ARG(GridSampleMode, mode) = GridSampleMode::Bilinear;
  TORCH_ARG(GridSamplePaddingMode, padding_mode) = GridSamplePaddingMode::Zeros;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;
};
// input (N, C, H, W) with grid (N, Ho, Wo, 2), or (N, C, D, H, W) with (N, Do, Ho, Wo, 3)
// (bicubic: 4-D only); grid[..., 0] indexes the last dim.
Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options = {});
// theta (N, 2, 3) with size (N, C, H, W), or (N, 3, 4) with (N, C, D, H, W).
Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners = false);

Tensor pixel_shuffle(const Tensor& input, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& input, int64_t downscale_factor);
// int64 (..., num_classes); num_classes = -1 takes max + 1.
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);

}  // namespace functional

// ---- padding modules ------------------------------------------------------------------
template <size_t D>
struct ReflectionPadOptions {
  ReflectionPadOptions(ExpandingArray<D * 2> padding) : padding_(std::move(padding)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct ReplicationPadOptions {
  ReplicationPadOptions(ExpandingArray<D * 2> padding) : padding_(std::move(padding)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<D * 2>, padding);
};
template <size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<D * 2> padding, double value) : padding_(std::move(padding)), value_(value) {}
  TORCH_ARG(ExpandingArray<D * 2>, padding);
  TORCH_ARG(double, value);
};
struct ZeroPad2dOptions {
  ZeroPad2dOptions(ExpandingArray<4> padding) : padding_(std::move(padding)) {}  // NOLINT
  TORCH_ARG(ExpandingArray<4>, padding);
};

// One module template for every fixed-mode padding: Options carries padding (and value).
template <size_t D, class Derived, class Options, PadMode M>
class PadImplBase : public Cloneable<Derived> {
 public:
  explicit PadImplBase(const Options& options) : options(options) { reset(); }
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  Options options;
};

#define EMBER_PAD_MODULE(Name, D, Options, Mode, ...)                                                   \
  class Name##Impl : public PadImplBase<D, Name##Impl, Options, PadMode::Mode> {                        \
   public:                                                                                              \
    using PadImplBase<D, Name##Impl, Options, PadMode::Mode>::PadImplBase;                              \
    __VA_ARGS__                                                                                         \
  };                                                                                                    \
  TORCH_MODULE(Name)
#define EMBER_PAD_ARRAY_CTOR(Name, D, Options) \
  explicit Name##Impl(ExpandingArray<D * 2> padding) : Name##Impl(Options(std::move(padding))) {}
EMBER_PAD_MODULE(ReflectionPad1d, 1, ReflectionPadOptions<1>, Reflect, EMBER_PAD_ARRAY_CTOR(ReflectionPad1d, 1, ReflectionPadOptions<1>));
EMBER_PAD_MODULE(ReflectionPad2d, 2, ReflectionPadOptions<2>, Reflect, EMBER_PAD_ARRAY_CTOR(ReflectionPad2d, 2, ReflectionPadOptions<2>));
EMBER_PAD_MODULE(ReflectionPad3d, 3, ReflectionPadOptions<3>, Reflect, EMBER_PAD_ARRAY_CTOR(ReflectionPad3d, 3, ReflectionPadOptions<3>));
EMBER_PAD_MODULE(ReplicationPad1d, 1, ReplicationPadOptions<1>, Replicate, EMBER_PAD_ARRAY_CTOR(ReplicationPad1d, 1, ReplicationPadOptions<1>));
EMBER_PAD_MODULE(ReplicationPad2d, 2, ReplicationPadOptions<2>, Replicate, EMBER_PAD_ARRAY_CTOR(ReplicationPad2d, 2, ReplicationPadOptions<2>));
EMBER_PAD_MODULE(ReplicationPad3d, 3, ReplicationPadOptions<3>, Replicate, EMBER_PAD_ARRAY_CTOR(ReplicationPad3d, 3, ReplicationPadOptions<3>));
EMBER_PAD_MODULE(ZeroPad2d, 2, ZeroPad2dOptions, Constant, EMBER_PAD_ARRAY_CTOR(ZeroPad2d, 2, ZeroPad2dOptions));
#define EMBER_CONSTANT_PAD_CTOR(Name, D) \
  Name##Impl(ExpandingArray<D * 2> padding, double value) : Name##Impl(ConstantPadOptions<D>(std::move(padding), value)) {}
EMBER_PAD_MODULE(ConstantPad1d, 1, ConstantPadOptions<1>, Constant, EMBER_CONSTANT_PAD_CTOR(ConstantPad1d, 1));
EMBER_PAD_MODULE(ConstantPad2d, 2, ConstantPadOptions<2>, Constant, EMBER_CONSTANT_PAD_CTOR(ConstantPad2d, 2));
EMBER_PAD_MODULE(ConstantPad3d, 3, ConstantPadOptions<3>, Constant, EMBER_CONSTANT_PAD_CTOR(ConstantPad3d, 3));
#undef EMBER_CONSTANT_PAD_CTOR
#undef EMBER_PAD_ARRAY_CTOR
#undef EMBER_PAD_MODULE
using ReflectionPad1dOptions = ReflectionPadOptions<1>;
using ReflectionPad2dOptions = ReflectionPadOptions<2>;
using ReflectionPad3dOptions = ReflectionPadOptions<3>;
using ReplicationPad1dOptions = ReplicationPadOptions<1>;
using ReplicationPad2dOptions = ReplicationPadOptions<2>;
using ReplicationPad3dOptions = ReplicationPadOptions<3>;
using ConstantPad1dOptions = ConstantPadOptions<1>;
using ConstantPad2dOptions = ConstantPadOptions<2>;
using ConstantPad3dOptions = ConstantPadOptions<3>;

// ---- Upsample ---------------------------------------------------------------------------
struct UpsampleOptions {
  TORCH_ARG(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TORCH_ARG(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TORCH_ARG(InterpolateMode, mode) = InterpolateMode::Nearest;
  TORCH_ARG(std::optional<bool>, align_corners) = std::nullopt;

 public:
};
class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UpsampleOptions options;
};
TORCH_MODULE(Upsample);

// ---- PixelShuffle / PixelUnshuffle --------------------------------------------------------
struct PixelShuffleOptions {
  PixelShuffleOptions(int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT
  TORCH_ARG(int64_t, upscale_factor);
};
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT
  TORCH_ARG(int64_t, downscale_factor);
};
class PixelShuffleImpl : public Cloneable<PixelShuffleImpl> {
 public:
  explicit PixelShuffleImpl(const PixelShuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::pixel_shuffle(input, options.upscale_factor()); }
  PixelShuffleOptions options;
};
TORCH_MODULE(PixelShuffle);
class PixelUnshuffleImpl : public Cloneable<PixelUnshuffleImpl> {
 public:
  explicit PixelUnshuffleImpl(const PixelUnshuffleOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::pixel_unshuffle(input, options.downscale_factor()); }
  PixelUnshuffleOptions options;
};
TORCH_MODULE(PixelUnshuffle);

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
using PixelShuffleFuncOptions = PixelShuffleOptions;
using PixelUnshuffleFuncOptions = PixelUnshuffleOptions;
// (N, C, H, W) or (C, H, W) -> (N, C * kh * kw, L): the sliding blocks as columns.
Tensor unfold(const Tensor& input, const UnfoldFuncOptions& options);
// (N, C * kh * kw, L) or (C * kh * kw, L) -> (N, C, H, W): overlapping blocks summed.
Tensor fold(const Tensor& input, const FoldFuncOptions& options);
inline Tensor pixel_shuffle(const Tensor& input, const PixelShuffleFuncOptions& o) {
  return pixel_shuffle(input, o.upscale_factor());
}
inline Tensor pixel_unshuffle(const Tensor& input, const PixelUnshuffleFuncOptions& o) {
  return pixel_unshuffle(input, o.downscale_factor());
}
}  // namespace functional
class UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  explicit UnfoldImpl(const UnfoldOptions& options) : options(options) {}
  explicit UnfoldImpl(ExpandingArray<2> kernel_size) : options(std::move(kernel_size)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::unfold(input, options); }
  UnfoldOptions options;
};
TORCH_MODULE(Unfold);
class FoldImpl : public Cloneable<FoldImpl> {
 public:
  explicit FoldImpl(const FoldOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::fold(input, options); }
  FoldOptions options;
};
TORCH_MODULE(Fold);

}  // namespace ember::nn
