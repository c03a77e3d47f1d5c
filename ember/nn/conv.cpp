#include "ember/nn/conv.h"

#include <cmath>
#include <ostream>

#include "ember/nn/init.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/ops/autocast.h"
#include "ember/ops/conv_dnnl.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
namespace {
// Explicit (left, right) pads per spatial dim from the padding spec.
std::vector<std::pair<int64_t, int64_t>> resolve_padding(const ConvPadding& padding, IntArrayRef kernel,
                                                         IntArrayRef stride, IntArrayRef dilation, const char* op) {
  const size_t d = kernel.size();
  std::vector<std::pair<int64_t, int64_t>> r(d);
  if (const auto* s = std::get_if<std::string>(&padding)) {
    EMBER_CHECK(*s == "same" || *s == "valid", op, ": Invalid padding string '", *s,
                "', should be one of {'valid', 'same'}");
    if (*s == "valid") return r;
    for (size_t i = 0; i < d; ++i) {
      EMBER_CHECK(stride[i] == 1, op, ": padding='same' is not supported for strided convolutions");
      const int64_t total = dilation[i] * (kernel[i] - 1);
      r[i] = {total / 2, total - total / 2};
    }
    return r;
  }
  const auto& v = std::get<std::vector<int64_t>>(padding);
  std::vector<int64_t> p = v.size() == 1 ? std::vector<int64_t>(d, v[0]) : v;
  EMBER_CHECK(p.size() == d, op, ": expected ", d, " padding values, got ", p.size());
  for (size_t i = 0; i < d; ++i) {
    EMBER_CHECK(p[i] >= 0, op, ": negative padding is not supported");
    r[i] = {p[i], p[i]};
  }
  return r;
}

// Convolution of (N, C, *spatial) with (O, C / groups, *kernel) through windows of the
// padded input: im2col as strided views, then one GEMM per group. Differentiable to any
// order in both modes; the path for dtypes oneDNN does not take (float64, half, complex).
Tensor conv_composite(const Tensor& x, const Tensor& weight, const Tensor& bias, const conv_detail::ConvShape& cs) {
  const size_t d = cs.stride.size();
  std::vector<int64_t> pad_list;  // constant_pad_nd order: last dim first
  for (size_t i = d; i-- > 0;) pad_list.insert(pad_list.end(), {cs.pad_l[i], cs.pad_r[i]});
  Tensor xp = constant_pad_nd(x, pad_list, 0);
  // windows: (N, C, o_1..o_d, k_1..k_d)
  Tensor win = xp;
  std::vector<int64_t> kernel(weight.sizes().begin() + 2, weight.sizes().end());
  for (size_t i = 0; i < d; ++i) {
    const int64_t span = cs.dilation[i] * (kernel[i] - 1) + 1;
    win = win.unfold(2 + int64_t(i), span, cs.stride[i]);  // appends a dim of size span
    if (cs.dilation[i] > 1) win = win.as_strided(
        [&] { DimVector s(win.sizes()); s.back() = kernel[i]; return s; }(),
        [&] { DimVector s(win.strides()); s.back() *= cs.dilation[i]; return s; }(), win.storage_offset());
  }
  const int64_t N = x.size(0), C = x.size(1), O = weight.size(0), G = cs.groups;
  std::vector<int64_t> out_spatial(win.sizes().begin() + 2, win.sizes().begin() + 2 + int64_t(d));
  int64_t L = 1, K = 1;
  for (int64_t s : out_spatial) L *= s;
  for (int64_t k : kernel) K *= k;
  // (N, G, C/G, L..., K...) -> (N, G, L, C/G * K)
  std::vector<int64_t> perm = {0};
  for (size_t i = 0; i < d; ++i) perm.push_back(2 + int64_t(i));
  perm.push_back(1);
  for (size_t i = 0; i < d; ++i) perm.push_back(2 + int64_t(d + i));
  Tensor cols = win.permute(perm).reshape({N, L, G, (C / G) * K}).permute({0, 2, 1, 3});  // (N, G, L, CK)
  Tensor w = weight.reshape({G, O / G, (C / G) * K});                                        // (G, O/G, CK)
  Tensor out = matmul(cols, w.transpose(-2, -1).unsqueeze(0));                               // (N, G, L, O/G)
  out = out.permute({0, 1, 3, 2}).reshape({N, O, L});
  std::vector<int64_t> shape = {N, O};
  shape.insert(shape.end(), out_spatial.begin(), out_spatial.end());
  out = out.reshape(shape);
  if (bias.defined()) {
    std::vector<int64_t> bshape(d + 2, 1);
    bshape[1] = O;
    out = out.add(bias.view(bshape));
  }
  return out;
}

// A batched convolution with resolved geometry: oneDNN for float32/bfloat16 on CPU (its
// own backward primitives; the composite formula when a higher-order graph is built),
// the composite otherwise.
Tensor convolution(const Tensor& x, const Tensor& weight, const Tensor& bias, const conv_detail::ConvShape& cs) {
  if (!conv_detail::dnnl_supported(x, weight, bias)) return conv_composite(x, weight, bias, cs);
  if (!autograd::maybe_differentiable(x, weight, bias)) return conv_detail::dnnl_conv_forward(x, weight, bias, cs);
  const std::vector<int64_t> x_sizes(x.sizes().begin(), x.sizes().end());
  const MemoryFormat x_format = conv_detail::conv_output_format(x, weight);
  const int64_t d = x.dim() - 2;
  return autograd::differentiable(
      "convolution", {&x, &weight, &bias}, [&] { return conv_detail::dnnl_conv_forward(x, weight, bias, cs); },
      [cs, x_sizes, x_format, d](const autograd::VjpCtx& c) {
        const Tensor& g = c.grad();
        const Tensor xs = c.saved_tensor(0), ws = c.saved_tensor(1);
        std::vector<int64_t> reduce = {0};
        for (int64_t i = 0; i < d; ++i) reduce.push_back(2 + i);
        Tensor gx, gw;
        if (autograd::GradMode::is_enabled()) {
          // create_graph: the composite formula's gradients are differentiable again.
          std::vector<Tensor> inputs;
          if (c.needs_input_grad(0)) inputs.push_back(xs);
          if (c.needs_input_grad(1)) inputs.push_back(ws);
          if (!inputs.empty()) {
            auto grads = autograd::grad({conv_composite(xs, ws, Tensor(), cs)}, inputs, {g}, true, true, true);
            size_t k = 0;
            if (c.needs_input_grad(0)) gx = grads[k++];
            if (c.needs_input_grad(1)) gw = grads[k++];
          }
        } else {
          if (c.needs_input_grad(0)) gx = conv_detail::dnnl_conv_backward_data(g, ws, x_sizes, x_format, cs);
          if (c.needs_input_grad(1)) gw = conv_detail::dnnl_conv_backward_weights(g, xs, ws.sizes(), false, cs).first;
        }
        return autograd::variable_list{gx, gw, c.needs_input_grad(2) ? g.sum(reduce) : Tensor()};
      },
      [&](const auto& t, const Tensor&) {
        // Linear in each argument: conv(tx, w) + conv(x, tw) + tb.
        Tensor r;
        if (t(0).defined()) r = convolution(t(0), weight, Tensor(), cs);
        if (t(1).defined()) {
          Tensor term = convolution(x, t(1), Tensor(), cs);
          r = r.defined() ? r.add(term) : term;
        }
        if (t(2).defined()) {
          std::vector<int64_t> bshape(size_t(d) + 2, 1);
          bshape[1] = weight.size(0);
          Tensor tb = t(2).view(bshape);
          r = r.defined() ? r.add(tb) : tb.expand(conv_detail::dnnl_output_sizes(x.sizes(), weight.sizes(), cs)).clone();
        }
        return r;
      },
      {{x}, {weight}});
}

}  // namespace

// Checks the arguments, resolves the padding and runs `convolution`.
Tensor conv_nd(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride_in,
               const ConvPadding& padding, IntArrayRef dilation_in, int64_t groups, size_t d, const char* op) {
  EMBER_AUTOCAST(AutocastPolicy::LowerPrecision,
                 conv_nd(_ac[0], _ac[1], _ac[2], stride_in, padding, dilation_in, groups, d, op), &input, &weight, &bias);
  EMBER_CHECK(weight.dim() == int64_t(d) + 2, op, ": expected a ", d + 2, "-D weight, got ", weight.sizes());
  const bool unbatched = input.dim() == int64_t(d) + 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  EMBER_CHECK(x.dim() == int64_t(d) + 2, op, ": Expected ", d + 1, "D (unbatched) or ", d + 2,
              "D (batched) input, but got input of size: ", input.sizes());
  EMBER_CHECK(groups > 0 && x.size(1) % groups == 0 && weight.size(0) % groups == 0, op, ": groups (", groups,
              ") must divide the input channels (", x.size(1), ") and the output channels (", weight.size(0), ")");
  EMBER_CHECK(weight.size(1) * groups == x.size(1), op, ": Given groups=", groups, ", weight of size ", weight.sizes(),
              ", expected input", input.sizes(), " to have ", weight.size(1) * groups, " channels, but got ",
              x.size(1), " channels instead");
  std::vector<int64_t> stride(stride_in.begin(), stride_in.end()), dilation(dilation_in.begin(), dilation_in.end());
  if (stride.size() == 1) stride.assign(d, stride[0]);
  if (dilation.size() == 1) dilation.assign(d, dilation[0]);
  std::vector<int64_t> kernel(weight.sizes().begin() + 2, weight.sizes().end());
  auto pads = resolve_padding(padding, kernel, stride, dilation, op);
  conv_detail::ConvShape cs{stride, {}, {}, dilation, groups};
  for (size_t i = 0; i < d; ++i) {
    const int64_t span = dilation[i] * (kernel[i] - 1) + 1, padded = x.size(2 + int64_t(i)) + pads[i].first + pads[i].second;
    EMBER_CHECK(padded >= span, op, ": Calculated padded input size per channel: (", padded, "). Kernel size: (", span,
                "). Kernel size can't be greater than actual input size");
    cs.pad_l.push_back(pads[i].first);
    cs.pad_r.push_back(pads[i].second);
  }
  Tensor out = convolution(x, weight, bias, cs);
  return unbatched ? out.squeeze(0) : out;
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              const ConvPadding& padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d");
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              const ConvPadding& padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d");
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              const ConvPadding& padding, IntArrayRef dilation, int64_t groups) {
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d");
}
}  // namespace functional

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
  EMBER_CHECK(options.padding_mode() == "zeros", "Conv: padding_mode '", options.padding_mode(),
              "' is not implemented yet (only 'zeros')");
  std::vector<int64_t> wshape = {options.out_channels(), options.in_channels() / options.groups()};
  wshape.insert(wshape.end(), options.kernel_size().begin(), options.kernel_size().end());
  this->weight = this->register_parameter("weight", ember::empty(wshape));
  this->bias = this->register_parameter("bias", options.bias() ? ember::empty({options.out_channels()}) : Tensor(),
                                        options.bias());
  reset_parameters();
}

template <size_t D, class Derived>
void ConvNdImpl<D, Derived>::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    auto [fan_in, fan_out] = init::_calculate_fan_in_and_fan_out(weight);
    const double bound = 1.0 / std::sqrt(double(fan_in));
    init::uniform_(bias, -bound, bound);
  }
}

template <size_t D, class Derived>
void ConvNdImpl<D, Derived>::pretty_print(std::ostream& s) const {
  auto list = [&](const std::vector<int64_t>& v) {
    s << "[";
    for (size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
    s << "]";
  };
  s << "torch::nn::Conv" << D << "d(" << options.in_channels() << ", " << options.out_channels() << ", kernel_size=";
  list(options.kernel_size());
  s << ", stride=";
  list(options.stride());
  s << ")";
}

template <size_t D, class Derived>
Tensor ConvNdImpl<D, Derived>::forward(const Tensor& input) {
  static constexpr const char* kNames[] = {"", "conv1d", "conv2d", "conv3d"};
  return functional::conv_nd(input, weight, bias, options.stride(), options.padding(), options.dilation(),
                             options.groups(), D, kNames[D]);
}

template class ConvNdImpl<1, Conv1dImpl>;
template class ConvNdImpl<2, Conv2dImpl>;
template class ConvNdImpl<3, Conv3dImpl>;

}  // namespace ember::nn
