// pad (non-constant modes as index maps on the separable kernel), the padding modules,
// pixel_shuffle / pixel_unshuffle (reshape, permute), one_hot, affine_grid (a batched
// matmul on a base grid), and unfold / fold (one gather / index_add over the padded
// image, each the other's adjoint). Error messages are PyTorch 1.13's.
#include "ember/nn/spatial.h"

#include <ostream>

#include "ember/nn/resample.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"

namespace ember {

const char* mode_name(PadMode mode) {
  static const char* const names[] = {"kConstant", "kReflect", "kReplicate", "kCircular"};
  return names[int(mode)];
}

Tensor pad_nd(const Tensor& input, IntArrayRef pad, PadMode mode, double value) {
  const int64_t nd = input.dim(), k = int64_t(pad.size()) / 2;
  EMBER_CHECK(pad.size() % 2 == 0, "Padding length must be divisible by 2");
  EMBER_CHECK(k <= nd, "Padding length too large");
  if (mode == PadMode::Constant) return constant_pad_nd(input, pad, value);
  // Autocast: reflection_pad1d/2d and replication_pad1d/2d/3d, one policy for all five
  // (ember/ops/autocast_list.h, asserted there); PyTorch 1.13 lists neither reflection_pad3d
  // nor circular padding.
  if (mode == PadMode::Replicate || (mode == PadMode::Reflect && k <= 2)) {
    EMBER_AUTOCAST(replication_pad1d, pad_nd(_ac[0], pad, mode, value), &input);
  }
  static const char* const py_names[] = {"constant", "reflect", "replicate", "circular"};
  EMBER_CHECK(value == 0, "Padding mode \"", py_names[int(mode)], "\" doesn't take in value argument");
  if (!(k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2)))
    EMBER_NOT_IMPLEMENTED("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  const bool circular = mode == PadMode::Circular;
  if (circular) {
    EMBER_CHECK(nd == k + 2, "Invalid padding size, expected ", 2 * (nd - 2), " but got ", pad.size());
  } else {
    for (int64_t d = nd == k + 2 ? 1 : 0; d < nd; ++d)
      EMBER_CHECK(input.size(d) != 0, "Expected ", k + 1, "D or ", k + 2, "D (batch mode) tensor with possibly 0 batch "
                  "size and other non-zero dimensions for input, but got: ", input.sizes());
  }
  static const char* const axis[] = {"W", "H", "D"};
  auto plan = std::make_shared<nn::detail::ResamplePlan>();
  plan->name = circular ? "_pad_circular" : std::string(mode == PadMode::Reflect ? "reflection_pad" : "replication_pad") +
                                                std::to_string(k) + "d";
  for (int64_t i = 0; i < k; ++i) {
    const int64_t d = nd - 1 - i, l = pad[2 * i], r = pad[2 * i + 1], n = input.size(d), out = n + l + r;
    if (mode == PadMode::Reflect)
      EMBER_CHECK(l < n && r < n, "Argument #", 4 + 2 * i, ": Padding size should be less than the corresponding "
                  "input dimension, but got: padding (", l, ", ", r, ") at dimension ", d, " of input ", input.sizes());
    if (circular) {
      EMBER_CHECK(l <= n && r <= n, "Padding value causes wrapping around more than once.");
      EMBER_CHECK(out >= 0, "Negative padding value is resulting in an empty dimension");
    } else {
      EMBER_CHECK(out >= 1, "input (", axis[i], ": ", n, ") is too small. Calculated output ", axis[i], ": ", out);
    }
    nn::detail::DimMap m{n, out};
    const int64_t c0 = std::max<int64_t>(-l, 0), kept = n - c0 - std::max<int64_t>(-r, 0);  // circular: the cropped span
    for (int64_t o = 0; o < out; ++o) {
      int64_t j = o - l;
      if (mode == PadMode::Reflect) {
        j = j < 0 ? -j : j >= n ? 2 * (n - 1) - j : j;
      } else if (mode == PadMode::Replicate) {
        j = std::clamp<int64_t>(j, 0, n - 1);
      } else {  // circular pads with the (possibly cropped) content
        int64_t q = o - std::max<int64_t>(l, 0);
        q = q < 0 ? q + kept : q >= kept ? q - kept : q;
        EMBER_CHECK(q >= 0 && q < kept, "Padding value causes wrapping around more than once.");
        j = c0 + q;
      }
      m.add(j);
      m.end_row();
    }
    plan->add(d, std::move(m));
  }
  return nn::detail::resample(input, plan);
}

}  // namespace ember

namespace ember::nn {

namespace functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  return pad_nd(input, options.pad(), options.mode(), options.value());
}

Tensor pixel_shuffle(const Tensor& input, int64_t r) {
  const int64_t nd = input.dim();
  EMBER_CHECK(nd >= 3, "pixel_shuffle expects input to have at least 3 dimensions, but got input with ", nd,
              " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(c % (r * r) == 0, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
              "of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3), split = lead, out = lead;
  split.insert(split.end(), {c / (r * r), r, r, h, w});
  out.insert(out.end(), {c / (r * r), h * r, w * r});
  const int64_t b = int64_t(lead.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  perm.insert(perm.end(), {b, b + 3, b + 1, b + 4, b + 2});
  Tensor y = input.reshape(split).permute(perm).reshape(out);
  return nd == 4 && input.suggest_memory_format() == MemoryFormat::ChannelsLast ? y.contiguous(MemoryFormat::ChannelsLast)
                                                                                : y;
}

Tensor pixel_unshuffle(const Tensor& input, int64_t r) {
  const int64_t nd = input.dim();
  EMBER_CHECK(nd >= 3, "pixel_unshuffle expects input to have at least 3 dimensions, but got input with ", nd,
              " dimension(s)");
  EMBER_CHECK(r > 0, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = input.size(-3), h = input.size(-2), w = input.size(-1);
  EMBER_CHECK(h % r == 0, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=", h,
              " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=", w,
              " is not divisible by ", r);
  std::vector<int64_t> lead(input.sizes().begin(), input.sizes().end() - 3), split = lead, out = lead;
  split.insert(split.end(), {c, h / r, r, w / r, r});
  out.insert(out.end(), {c * r * r, h / r, w / r});
  const int64_t b = int64_t(lead.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < b; ++i) perm.push_back(i);
  perm.insert(perm.end(), {b, b + 2, b + 4, b + 1, b + 3});
  Tensor y = input.reshape(split).permute(perm).reshape(out);
  return nd == 4 && input.suggest_memory_format() == MemoryFormat::ChannelsLast ? y.contiguous(MemoryFormat::ChannelsLast)
                                                                                : y;
}

Tensor one_hot(const Tensor& tensor, int64_t num_classes) {
  EMBER_CHECK(tensor.scalar_type() == kLong, "one_hot is only applicable to index tensor.");
  DimVector shape(tensor.sizes());
  if (tensor.numel() == 0) {
    EMBER_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return empty(shape, tensor.options());
  }
  EMBER_CHECK(tensor.min().item<int64_t>() >= 0, "Class values must be non-negative.");
  const int64_t hi = tensor.max().item<int64_t>();
  if (num_classes == -1) num_classes = hi + 1;
  EMBER_CHECK(num_classes > hi, "Class values must be smaller than num_classes.");
  shape.push_back(num_classes);
  return zeros(shape, tensor.options()).scatter_(-1, tensor.unsqueeze(-1), 1);
}

namespace {
// linspace(-1, 1, n), shrunk to pixel centers without align_corners (affine_grid_generator).
Tensor grid_line(int64_t n, bool align_corners, const TensorOptions& opts) {
  if (n <= 1) return zeros({1}, opts);
  Tensor r = linspace(-1, 1, n, opts);
  return align_corners ? r : r.mul(double(n - 1)).div(double(n));
}
}  // namespace

Tensor affine_grid(const Tensor& theta, IntArrayRef size, bool align_corners) {
  EMBER_CHECK(theta.is_floating_point(), "Expected theta to have floating point type, but got ", theta.scalar_type());
  const int64_t d = int64_t(size.size()) - 2;
  if (d != 2 && d != 3)
    EMBER_NOT_IMPLEMENTED("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
                          "Got size ", size, ".");
  EMBER_CHECK(theta.dim() == 3 && theta.size(1) == d && theta.size(2) == d + 1, "Expected a batch of ", d,
              "D affine matrices of shape Nx", d, "x", d + 1, " for size ", size, ". Got ", theta.sizes(), ".");
  int64_t min_spatial = size[2], min_all = size[0];
  for (int64_t s : size) min_all = std::min(min_all, s);
  for (int64_t i = 2; i < int64_t(size.size()); ++i) min_spatial = std::min(min_spatial, size[i]);
  EMBER_CHECK((align_corners && min_spatial == 1) || min_all > 0, "Expected non-zero, positive output size. Got ",
              size, "");
  EMBER_CHECK(theta.size(0) == size[0], "affine_grid: theta has a batch of ", theta.size(0), " for size ", size);
  // base grid (*spatial, d + 1): coordinate i runs along spatial dim d - 1 - i, then a column of ones
  const TensorOptions opts = theta.options();
  std::vector<int64_t> spatial(size.begin() + 2, size.end());
  std::vector<Tensor> cols;
  for (int64_t i = 0; i < d; ++i) {
    DimVector view(size_t(d), 1);
    view[d - 1 - i] = spatial[d - 1 - i];
    cols.push_back(grid_line(spatial[d - 1 - i], align_corners, opts).view(view).expand(spatial));
  }
  cols.push_back(ones(spatial, opts));
  Tensor base = stack(cols, -1).view({1, -1, d + 1});
  Tensor grid = matmul(base, theta.transpose(1, 2));  // (N, prod(spatial), d)
  std::vector<int64_t> out{size[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(d);
  return grid.view(out);
}

namespace {
// For unfold/fold: the flat index into the padded (Hp x Wp) image of each (kernel offset,
// block) pair, kernel offsets outer, as im2col lays out its columns.
Tensor block_index(int64_t wp, const int64_t blocks[2], const std::vector<int64_t>& k, const std::vector<int64_t>& dil,
                   const std::vector<int64_t>& stride) {
  Tensor idx = empty({k[0] * k[1] * blocks[0] * blocks[1]}, dtype(kLong));
  int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t ki = 0; ki < k[0]; ++ki)
    for (int64_t kj = 0; kj < k[1]; ++kj)
      for (int64_t bi = 0; bi < blocks[0]; ++bi)
        for (int64_t bj = 0; bj < blocks[1]; ++bj) *p++ = (bi * stride[0] + ki * dil[0]) * wp + bj * stride[1] + kj * dil[1];
  return idx;
}

void check_block_args(const std::vector<int64_t>& k, const std::vector<int64_t>& dil, const std::vector<int64_t>& pad,
                      const std::vector<int64_t>& stride) {
  EMBER_CHECK(k[0] > 0 && k[1] > 0, "kernel size should be greater than zero, but got kernel_height: ", k[0],
              " kernel_width: ", k[1]);
  EMBER_CHECK(dil[0] > 0 && dil[1] > 0, "dilation should be greater than zero, but got dilation_height: ", dil[0],
              " dilation_width: ", dil[1]);
  EMBER_CHECK(pad[0] >= 0 && pad[1] >= 0, "padding should be non-negative, but got pad_height: ", pad[0],
              " pad_width: ", pad[1]);
  EMBER_CHECK(stride[0] > 0 && stride[1] > 0, "stride should be greater than zero, but got stride_height: ", stride[0],
              " stride_width: ", stride[1]);
}

// Sliding blocks along one dim (floor division; a kernel larger than the padded size gives 0).
int64_t n_blocks(int64_t size, int64_t k, int64_t dil, int64_t pad, int64_t stride) {
  const int64_t room = size + 2 * pad - (dil * (k - 1) + 1);
  return room < 0 ? 0 : room / stride + 1;
}
}  // namespace

Tensor unfold(const Tensor& input, const UnfoldFuncOptions& o) {
  const auto &k = o.kernel_size(), &dil = o.dilation(), &pad = o.padding(), &stride = o.stride();
  check_block_args(k, dil, pad, stride);
  const int64_t nd = input.dim();
  EMBER_CHECK((nd == 3 || nd == 4) && input.size(nd - 3) != 0 && input.size(nd - 2) != 0 && input.size(nd - 1) != 0,
              "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
              "input, but got: ", input.sizes());
  const Tensor x = nd == 3 ? input.unsqueeze(0) : input;
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  const int64_t blocks[2] = {n_blocks(h, k[0], dil[0], pad[0], stride[0]), n_blocks(w, k[1], dil[1], pad[1], stride[1])};
  EMBER_CHECK(blocks[0] >= 1 && blocks[1] >= 1, "Given input with spatial size (", h, ", ", w, "), kernel_size=(", k[0],
              ", ", k[1], "), dilation=(", dil[0], ", ", dil[1], "), padding=(", pad[0], ", ", pad[1],
              "), calculated shape of the array of sliding blocks as (", blocks[0], ", ", blocks[1],
              "), but its components must be at least one.");
  const int64_t hp = h + 2 * pad[0], wp = w + 2 * pad[1], L = blocks[0] * blocks[1];
  Tensor padded = pad[0] || pad[1] ? constant_pad_nd(x, {pad[1], pad[1], pad[0], pad[0]}, 0) : x;
  Tensor cols = padded.reshape({n, c, hp * wp}).index_select(2, block_index(wp, blocks, k, dil, stride));
  cols = cols.view({n, c * k[0] * k[1], L});
  return nd == 3 ? cols.squeeze(0) : cols;
}

Tensor fold(const Tensor& input, const FoldFuncOptions& o) {
  const auto &out_size = o.output_size(), &k = o.kernel_size(), &dil = o.dilation(), &pad = o.padding(),
             &stride = o.stride();
  check_block_args(k, dil, pad, stride);
  const int64_t nd = input.dim();
  EMBER_CHECK((nd == 2 || nd == 3) && input.size(nd - 2) != 0 && input.size(nd - 1) != 0, "Expected 2D or 3D (batch "
              "mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: ",
              input.sizes());
  const Tensor x = nd == 2 ? input.unsqueeze(0) : input;
  const int64_t planes = x.size(1), L = x.size(2), h = out_size[0], w = out_size[1];
  EMBER_CHECK(planes % (k[0] * k[1]) == 0, "Expected size of input's dimension 1 to be divisible by the product of "
              "kernel_size, but got input.size(1)=", planes, " and kernel_size=(", k[0], ", ", k[1], ").");
  const int64_t blocks[2] = {n_blocks(h, k[0], dil[0], pad[0], stride[0]), n_blocks(w, k[1], dil[1], pad[1], stride[1])};
  EMBER_CHECK(L == blocks[0] * blocks[1], "Given output_size=(", h, ", ", w, "), kernel_size=(", k[0], ", ", k[1],
              "), dilation=(", dil[0], ", ", dil[1], "), padding=(", pad[0], ", ", pad[1], "), stride=(", stride[0],
              ", ", stride[1], "), expected size of input's dimension 2 to match the calculated number of sliding "
              "blocks ", blocks[0], " * ", blocks[1], " = ", blocks[0] * blocks[1], ", but got input.size(2)=", L, ".");
  EMBER_CHECK(blocks[0] >= 1 && blocks[1] >= 1, "Given output_size=(", h, ", ", w, "), kernel_size=(", k[0], ", ", k[1],
              "), dilation=(", dil[0], ", ", dil[1], "), padding=(", pad[0], ", ", pad[1], "), stride=(", stride[0],
              ", ", stride[1], "), calculated shape of the array of sliding blocks as (", blocks[0], ", ", blocks[1],
              "), which is too small (non-positive).");
  const int64_t n = x.size(0), c = planes / (k[0] * k[1]), hp = h + 2 * pad[0], wp = w + 2 * pad[1];
  Tensor img = zeros({n, c, hp * wp}, x.options())
                   .index_add(2, block_index(wp, blocks, k, dil, stride), x.reshape({n, c, k[0] * k[1] * L}))
                   .view({n, c, hp, wp});
  if (pad[0] || pad[1]) img = img.narrow(2, pad[0], h).narrow(3, pad[1], w).contiguous();
  return nd == 2 ? img.squeeze(0) : img;
}

}  // namespace functional

// ---- modules ---------------------------------------------------------------------------------
template <size_t D, class Derived, class Options, PadMode M>
Tensor PadImplBase<D, Derived, Options, M>::forward(const Tensor& input) {
  double value = 0;
  if constexpr (requires(const Options& o) { o.value(); }) value = options.value();
  return pad_nd(input, options.padding(), M, value);
}
template <size_t D, class Derived, class Options, PadMode M>
void PadImplBase<D, Derived, Options, M>::pretty_print(std::ostream& s) const {
  static const char* const kinds[] = {"ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"};
  if constexpr (std::is_same_v<Options, ZeroPad2dOptions>) s << "torch::nn::ZeroPad2d";
  else s << "torch::nn::" << kinds[int(M)] << D << "d";
  s << "(padding=" << IntArrayRef(options.padding());
  if constexpr (requires(const Options& o) { o.value(); }) s << ", value=" << options.value();
  s << ")";
}
template class PadImplBase<1, ReflectionPad1dImpl, ReflectionPadOptions<1>, PadMode::Reflect>;
template class PadImplBase<2, ReflectionPad2dImpl, ReflectionPadOptions<2>, PadMode::Reflect>;
template class PadImplBase<3, ReflectionPad3dImpl, ReflectionPadOptions<3>, PadMode::Reflect>;
template class PadImplBase<1, ReplicationPad1dImpl, ReplicationPadOptions<1>, PadMode::Replicate>;
template class PadImplBase<2, ReplicationPad2dImpl, ReplicationPadOptions<2>, PadMode::Replicate>;
template class PadImplBase<3, ReplicationPad3dImpl, ReplicationPadOptions<3>, PadMode::Replicate>;
template class PadImplBase<2, ZeroPad2dImpl, ZeroPad2dOptions, PadMode::Constant>;
template class PadImplBase<1, ConstantPad1dImpl, ConstantPadOptions<1>, PadMode::Constant>;
template class PadImplBase<2, ConstantPad2dImpl, ConstantPadOptions<2>, PadMode::Constant>;
template class PadImplBase<3, ConstantPad3dImpl, ConstantPadOptions<3>, PadMode::Constant>;

void PixelShuffleImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PixelShuffle(upscale_factor=" << options.upscale_factor() << ")";
}
void PixelUnshuffleImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::PixelUnshuffle(downscale_factor=" << options.downscale_factor() << ")";
}
void UnfoldImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Unfold(kernel_size=" << IntArrayRef(options.kernel_size())
    << ", dilation=" << IntArrayRef(options.dilation()) << ", padding=" << IntArrayRef(options.padding())
    << ", stride=" << IntArrayRef(options.stride()) << ")";
}
void FoldImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Fold(output_size=" << IntArrayRef(options.output_size())
    << ", kernel_size=" << IntArrayRef(options.kernel_size()) << ", dilation=" << IntArrayRef(options.dilation())
    << ", padding=" << IntArrayRef(options.padding()) << ", stride=" << IntArrayRef(options.stride()) << ")";
}

}  // namespace ember::nn
