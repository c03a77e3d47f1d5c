#include "ember/nn/modules/conv.h"

#include <cctype>
#include <cmath>
#include <ostream>

#include "ember/nn/functional/padding.h"
#include "ember/nn/init.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace {
// What LibTorch's conv modules print after the padding: each option that is not its default.
template <size_t D>
void conv_print_tail(std::ostream& s, const ExpandingArray<D>& dilation, const ExpandingArray<D>& output_padding,
                     int64_t groups, bool bias, const std::string& padding_mode) {
  if (*dilation != *ExpandingArray<D>(1)) s << ", dilation=" << dilation;
  if (*output_padding != *ExpandingArray<D>(0)) s << ", output_padding=" << output_padding;
  if (groups != 1) s << ", groups=" << groups;
  if (!bias) s << ", bias=false";
  if (padding_mode != "zeros") {
    // LibTorch prints the enum's name: kReflect, kReplicate, kCircular.
    std::string name = padding_mode;
    if (!name.empty()) name[0] = char(std::toupper(static_cast<unsigned char>(name[0])));
    s << ", padding_mode=k" << name;
  }
  s << ")";
}
}  // namespace

template <size_t D, class Derived>
ConvNdImpl<D, Derived>::ConvNdImpl(ConvOptions<D> options_) : options(std::move(options_)) {
  reset();
}

template <size_t D, class Derived>
void ConvNdImpl<D, Derived>::reset() {
  EMBER_CHECK(options.groups() > 0, "groups must be a positive integer");
  EMBER_CHECK(options.in_channels() % options.groups() == 0, "in_channels must be divisible by groups");
  EMBER_CHECK(options.out_channels() % options.groups() == 0, "out_channels must be divisible by groups");
  EMBER_CHECK(options.kernel_size().size() == D, "kernel_size must have ", D, " values");
  const std::string& mode = options.padding_mode();
  EMBER_CHECK(mode == "zeros" || mode == "reflect" || mode == "replicate" || mode == "circular",
              "padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular', but got padding_mode='",
              mode, "'");
  std::vector<int64_t> wshape = {options.out_channels(), options.in_channels() / options.groups()};
  wshape.insert(wshape.end(), options.kernel_size().begin(), options.kernel_size().end());
  this->weight = this->register_parameter("weight", ember::empty(wshape));
  this->bias = this->register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(),
                                        options.bias());
  reset_parameters();
}

namespace {
// PyTorch's _ConvNd.reset_parameters: kaiming-uniform(a = sqrt(5)) weights, bias uniform in
// +-1/sqrt(fan_in) (fan_in of the weight as stored, also for transposed convolutions).
void init_conv_parameters(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = 1.0 / std::sqrt(double(fan_in));
    init::uniform_(bias, -bound, bound);
  }
}
}  // namespace

template <size_t D, class Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  init_conv_parameters(weight, bias);
}

template <size_t D, class Derived>
void ConvNdImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::Conv" << D << "d(" << options.in_channels() << ", " << options.out_channels()
    << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (const auto* mode = std::get_if<std::string>(&options.padding())) {
    s << ", padding='" << *mode << "'";
  } else {
    ExpandingArray<D> pad(std::get<std::vector<int64_t>>(options.padding()));
    if (*pad != *ExpandingArray<D>(0)) s << ", padding=" << pad;
  }
  conv_print_tail<D>(s, options.dilation(), ExpandingArray<D>(0), options.groups(), options.bias(),
                     options.padding_mode());
}

template <size_t D, class Derived>
Tensor ConvNdImpl<D, Derived>::forward(const Tensor& input) {
  static constexpr const char* kNames[] = {"", "conv1d", "conv2d", "conv3d"};
  const std::string& mode = options.padding_mode();
  if (mode == "zeros")
    return functional::conv_nd(input, weight, bias, options.stride(), options.padding(), options.dilation(),
                               options.groups(), D, kNames[D]);
  // Other modes pad the input first (PyTorch's _reversed_padding_repeated_twice: last dim
  // first; 'same' splits dilation * (k - 1) with the extra element on the right).
  std::vector<int64_t> pad;
  for (size_t i = D; i-- > 0;) {
    int64_t l = 0, r = 0;
    if (const auto* s = std::get_if<std::string>(&options.padding())) {
      if (*s == "same") {
        const int64_t total = options.dilation()[i] * (options.kernel_size()[i] - 1);
        l = total / 2, r = total - l;
      }
    } else {
      const auto& p = std::get<std::vector<int64_t>>(options.padding());
      l = r = p.size() == 1 ? p[0] : p.at(i);
    }
    pad.insert(pad.end(), {l, r});
  }
  const PadMode pm = mode == "reflect" ? PadMode::Reflect : mode == "replicate" ? PadMode::Replicate : PadMode::Circular;
  return functional::conv_nd(pad_nd(input, pad, pm), weight, bias, options.stride(), std::vector<int64_t>(D, 0),
                             options.dilation(), options.groups(), D, kNames[D]);
}

template <size_t D, class Derived>
ConvTransposeNdImpl<D, Derived>::ConvTransposeNdImpl(ConvTransposeOptions<D> options_) : options(std::move(options_)) {
  reset();
}

template <size_t D, class Derived>
void ConvTransposeNdImpl<D, Derived>::reset() {
  EMBER_CHECK(options.groups() > 0, "groups must be a positive integer");
  EMBER_CHECK(options.in_channels() % options.groups() == 0, "in_channels must be divisible by groups");
  EMBER_CHECK(options.out_channels() % options.groups() == 0, "out_channels must be divisible by groups");
  EMBER_CHECK(options.padding_mode() == "zeros", "Only \"zeros\" padding mode is supported for ConvTranspose", D, "d");
  std::vector<int64_t> wshape = {options.in_channels(), options.out_channels() / options.groups()};
  wshape.insert(wshape.end(), options.kernel_size().begin(), options.kernel_size().end());
  this->weight = this->register_parameter("weight", ember::empty(wshape));
  this->bias = this->register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(),
                                        options.bias());
  reset_parameters();
}

template <size_t D, class Derived>
void ConvTransposeNdImpl<D, Derived>::reset_parameters() {
  init_conv_parameters(weight, bias);
}

template <size_t D, class Derived>
void ConvTransposeNdImpl<D, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::ConvTranspose" << D << "d(" << options.in_channels() << ", " << options.out_channels()
    << ", kernel_size=" << options.kernel_size() << ", stride=" << options.stride();
  if (*options.padding() != *ExpandingArray<D>(0)) s << ", padding=" << options.padding();
  conv_print_tail<D>(s, options.dilation(), options.output_padding(), options.groups(), options.bias(),
                     options.padding_mode());
}

template <size_t D, class Derived>
Tensor ConvTransposeNdImpl<D, Derived>::forward(const Tensor& input,
                                                const std::optional<std::vector<int64_t>>& output_size) {
  static constexpr const char* kNames[] = {"", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
  std::vector<int64_t> output_padding = options.output_padding();
  if (output_size) {
    // PyTorch's _output_padding: the spatial sizes (the last D of output_size) minus the
    // smallest output, each below the stride.
    const std::vector<int64_t>& os = *output_size;
    EMBER_CHECK(os.size() == D || os.size() == D + 2 || os.size() == D + 1, kNames[D], ": output_size must have ", D,
                " or ", D + 2, " elements (got ", os.size(), ")");
    for (size_t i = 0; i < D; ++i) {
      const int64_t in = input.size(input.dim() - int64_t(D) + int64_t(i));
      const int64_t smallest = (in - 1) * options.stride()[i] - 2 * options.padding()[i] +
                               options.dilation()[i] * (options.kernel_size()[i] - 1) + 1;
      const int64_t want = os[os.size() - D + i];
      EMBER_CHECK(want >= smallest && want < smallest + options.stride()[i], kNames[D], ": requested an output size of ",
                  IntArrayRef(os), ", but valid sizes range from ", smallest, " to ", smallest + options.stride()[i] - 1,
                  " (for an input of ", input.sizes(), ")");
      output_padding[i] = want - smallest;
    }
  }
  return functional::conv_transpose_nd(input, weight, bias, options.stride(), options.padding(), output_padding,
                                       options.groups(), options.dilation(), D, kNames[D]);
}

template class ConvTransposeNdImpl<1, ConvTranspose1dImpl>;
template class ConvTransposeNdImpl<2, ConvTranspose2dImpl>;
template class ConvTransposeNdImpl<3, ConvTranspose3dImpl>;
template class ConvNdImpl<1, Conv1dImpl>;
template class ConvNdImpl<2, Conv2dImpl>;
template class ConvNdImpl<3, Conv3dImpl>;

}  // namespace ember::nn
