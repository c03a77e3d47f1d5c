#include "ember/nn/functional/conv.h"

#include <cmath>

#include "ember/autograd/autograd.h"
#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/autocast.h"
#include "ember/ops/conv_device.h"
#include "ember/ops/conv_dnnl.h"
#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"

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

// A complex convolution through three real ones (PyTorch's Gauss trick): with a = conv(xr,
// wr) + br, b = conv(xi, wi), c = conv(xr + xi, wr + wi) + br + bi, the result is
// (a - b) + i (c - a - b). complex32 computes in complex64. Gradients follow through the
// real parts (conjugate Wirtinger, as PyTorch).
template <class RealConv>
Tensor complex_conv(const RealConv& real_conv, const Tensor& x, const Tensor& weight, const Tensor& bias,
                    const char* op) {
  EMBER_CHECK(weight.scalar_type() == x.scalar_type() && (!bias.defined() || bias.scalar_type() == x.scalar_type()),
              op, ": expected input, weight and bias of one dtype, got ", x.scalar_type(), ", ", weight.scalar_type(),
              bias.defined() ? ", " : "", bias.defined() ? bias.scalar_type() : x.scalar_type());
  const ScalarType t = x.scalar_type(), c = t == kComplexHalf ? kComplexFloat : t;
  const Tensor xc = x.to(c), wc = weight.to(c), bc = bias.defined() ? bias.to(c) : Tensor();
  const Tensor xr = real(xc), xi = imag(xc), wr = real(wc), wi = imag(wc);
  const Tensor br = bc.defined() ? real(bc) : Tensor();
  const Tensor a = real_conv(xr, wr, br), b = real_conv(xi, wi, Tensor());
  const Tensor cc = real_conv(xr.add(xi), wr.add(wi), bc.defined() ? br.add(imag(bc)) : Tensor());
  return complex(a.sub(b), cc.sub(a).sub(b)).to(t);
}

// oneDNN's primitives as a DeviceConv (Note [Device convolutions]).
bool dnnl_supports(const Tensor& x, const Tensor& weight, const Tensor& bias, const conv_detail::ConvShape& cs,
                   bool transposed) {
  bool ok = conv_detail::dnnl_supported(x, weight, bias);
  if (transposed)
    for (int64_t r : cs.pad_r) ok = ok && r >= 0;
  return ok;
}
const conv_detail::DeviceConv kDnnlConv{&dnnl_supports, &conv_detail::dnnl_conv_forward,
                                        &conv_detail::dnnl_conv_backward_data,
                                        &conv_detail::dnnl_conv_backward_weights};

// The primitives that compute this convolution: oneDNN's on the CPU, the device's (cuDNN)
// on CUDA; null for the composite.
const conv_detail::DeviceConv* primitives_for(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                              const conv_detail::ConvShape& cs, bool transposed) {
  if (x.is_cpu()) return dnnl_supports(x, weight, bias, cs, transposed) ? &kDnnlConv : nullptr;
  const auto fn = reinterpret_cast<conv_detail::DeviceConvFn>(lookup_kernel("device_conv", x.device().type()));
  if (!fn) return nullptr;
  const conv_detail::DeviceConv* p = fn();
  return p->supports(x, weight, bias, cs, transposed) ? p : nullptr;
}

// A batched convolution with resolved geometry: a backend's primitives (oneDNN for
// float32/bfloat16 on CPU, cuDNN on CUDA; their own backward primitives, the composite
// formula when a higher-order graph is built), the composite otherwise.
Tensor convolution(const Tensor& x, const Tensor& weight, const Tensor& bias, const conv_detail::ConvShape& cs) {
  if (x.is_complex() || weight.is_complex())
    return complex_conv([&](const Tensor& a, const Tensor& w, const Tensor& b) { return convolution(a, w, b, cs); },
                        x, weight, bias, "convolution");
  const conv_detail::DeviceConv* prims = primitives_for(x, weight, bias, cs, false);
  if (!prims) return conv_composite(x, weight, bias, cs);
  if (!autograd::maybe_differentiable(x, weight, bias)) return prims->forward(x, weight, bias, cs);
  const std::vector<int64_t> x_sizes(x.sizes().begin(), x.sizes().end());
  const MemoryFormat x_format = conv_detail::conv_output_format(x, weight);
  const int64_t d = x.dim() - 2;
  return autograd::differentiable(
      "convolution", {&x, &weight, &bias}, [&] { return prims->forward(x, weight, bias, cs); },
      [cs, x_sizes, x_format, d, prims](const autograd::VjpCtx& c) {
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
          if (c.needs_input_grad(0)) gx = prims->backward_data(g, ws, x_sizes, x_format, cs);
          if (c.needs_input_grad(1)) gw = prims->backward_weights(g, xs, ws.sizes(), false, cs).first;
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

// The autocast policies of conv1d/2d/3d or conv_transpose1d/2d/3d (d = 1, 2, 3).
AutocastPolicies conv_autocast(size_t d, bool transposed) {
  static constexpr AutocastPolicies kConv[] = {autocast::policies("conv1d"), autocast::policies("conv2d"),
                                               autocast::policies("conv3d")};
  static constexpr AutocastPolicies kTransposed[] = {autocast::policies("conv_transpose1d"),
                                                     autocast::policies("conv_transpose2d"),
                                                     autocast::policies("conv_transpose3d")};
  return (transposed ? kTransposed : kConv)[d - 1];
}

}  // namespace

namespace {
// Traced (Note [Tracing hooks]): conv1d/2d/3d (functions and modules) as one op with its dimension count.
tracing::Attrs conv_attrs(int64_t d, IntArrayRef stride, const ConvPadding& padding, IntArrayRef dilation, int64_t groups) {
  const auto* ints = std::get_if<std::vector<int64_t>>(&padding);
  return {{"d", Scalar(d)}, {"stride", tracing::ints(stride)},
          {"padding", ints ? tracing::Attr(*ints) : tracing::Attr(std::get<std::string>(padding))},
          {"dilation", tracing::ints(dilation)}, {"groups", Scalar(groups)}};
}
std::vector<Tensor> run_conv(const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) {
  const tracing::Attr& pad = tracing::attr(a, "padding", "conv");
  const ConvPadding padding = std::holds_alternative<std::string>(pad) ? ConvPadding(std::get<std::string>(pad))
                                                                       : ConvPadding(tracing::ints_attr(a, "padding", "conv"));
  const std::vector<int64_t> stride = tracing::ints_attr(a, "stride", "conv"), dilation = tracing::ints_attr(a, "dilation", "conv");
  const int64_t groups = tracing::int_attr(a, "groups", "conv");
  const Tensor bias = in.size() > 2 ? in[2] : Tensor();
  const int64_t d = tracing::int_attr(a, "d", "conv");
  EMBER_CHECK(d >= 1 && d <= 3, "conv: dimension count must be 1, 2 or 3, got ", d);
  return {conv_nd(in.at(0), in.at(1), bias, stride, padding, dilation, groups, d, d == 1 ? "conv1d" : d == 2 ? "conv2d" : "conv3d")};
}
const tracing::TracedOpDef conv_traced{{"conv", tracing::Fusion::Opaque, &run_conv}};
}  // namespace

// Checks the arguments, resolves the padding and runs `convolution`.
Tensor conv_nd(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride_in,
               const ConvPadding& padding, IntArrayRef dilation_in, int64_t groups, size_t d, const char* op) {
  if (tracing::active())
    return tracing::traced_call(conv_traced, {input, weight, bias}, conv_attrs(int64_t(d), stride_in, padding, dilation_in, groups),
                                [&] { return conv_nd(input, weight, bias, stride_in, padding, dilation_in, groups, d, op); });
  EMBER_AUTOCAST_WITH(conv_autocast(d, false),
                      conv_nd(_ac[0], _ac[1], _ac[2], stride_in, padding, dilation_in, groups, d, op), &input, &weight,
                      &bias);
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
namespace {
// One value per spatial dim (a single value stands for all).
std::vector<int64_t> per_dim(IntArrayRef v, size_t d, const char* op, const char* what) {
  std::vector<int64_t> r(v.begin(), v.end());
  if (r.size() == 1) r.assign(d, r[0]);
  EMBER_CHECK(r.size() == d, op, ": expected ", d, " values for ", what, ", got ", v.size());
  return r;
}

// x with `l` / `r` elements added (zeros) or removed (negative) at the ends of dim.
Tensor pad_or_crop(const Tensor& x, int64_t dim, int64_t l, int64_t r) {
  Tensor y = x;
  if (l < 0) y = y.narrow(dim, -l, y.size(dim) + l);
  if (r < 0) y = y.narrow(dim, 0, y.size(dim) + r);
  if (l <= 0 && r <= 0) return y;
  std::vector<int64_t> pads(size_t(2 * (y.dim() - 1 - dim)), 0);  // constant_pad_nd order: last dim first
  pads.insert(pads.end(), {std::max<int64_t>(l, 0), std::max<int64_t>(r, 0)});
  return constant_pad_nd(y, pads, 0);
}

// Transposed convolution as a convolution: the input dilated by the stride (zeros between
// elements), padded by dilation * (k - 1) - padding (+ output_padding on the right), and
// the weight with in/out channels swapped per group and the kernel flipped.
Tensor conv_transpose_composite(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                const conv_detail::ConvShape& cs, IntArrayRef output_padding) {
  const int64_t d = x.dim() - 2, G = cs.groups;
  Tensor xd = x;
  for (int64_t i = 0; i < d; ++i) {
    const int64_t dim = 2 + i, s = cs.stride[size_t(i)], n = xd.size(dim);
    if (s > 1) {  // interleave s - 1 zeros after each element, drop the trailing ones
      std::vector<int64_t> zshape(xd.sizes().begin(), xd.sizes().end());
      zshape.insert(zshape.begin() + dim + 1, s - 1);
      Tensor z = zeros(zshape, xd.options());
      xd = cat({xd.unsqueeze(dim + 1), z}, dim + 1).transpose(dim, dim + 1);
      std::vector<int64_t> merged(xd.sizes().begin(), xd.sizes().end());
      merged[size_t(dim)] = n * s;
      merged.erase(merged.begin() + dim + 1);
      xd = xd.transpose(dim, dim + 1).reshape(merged).narrow(dim, 0, (n - 1) * s + 1);
    }
    const int64_t k = weight.size(dim), span = cs.dilation[size_t(i)] * (k - 1);
    xd = pad_or_crop(xd, dim, span - cs.pad_l[size_t(i)], span - cs.pad_l[size_t(i)] + output_padding[size_t(i)]);
  }
  std::vector<int64_t> gshape = {G, weight.size(0) / G, weight.size(1)};
  gshape.insert(gshape.end(), weight.sizes().begin() + 2, weight.sizes().end());
  std::vector<int64_t> wshape = {weight.size(1) * G, weight.size(0) / G};
  wshape.insert(wshape.end(), weight.sizes().begin() + 2, weight.sizes().end());
  std::vector<int64_t> spatial;
  for (int64_t i = 0; i < d; ++i) spatial.push_back(2 + i);
  Tensor w = weight.reshape(gshape).transpose(1, 2).reshape(wshape).flip(spatial);
  conv_detail::ConvShape plain{std::vector<int64_t>(size_t(d), 1), std::vector<int64_t>(size_t(d), 0),
                               std::vector<int64_t>(size_t(d), 0), cs.dilation, G};
  return convolution(xd, w, bias, plain);
}

// Transposed convolution with resolved geometry (cs.pad_r = padding - output_padding): a
// backend's backward-data primitive is the forward (oneDNN for float32/bfloat16, cuDNN), the
// convolution forward and backward-weights primitives its backward; the composite otherwise.
Tensor conv_transpose(const Tensor& x, const Tensor& weight, const Tensor& bias, const conv_detail::ConvShape& cs,
                      IntArrayRef output_padding, const std::vector<int64_t>& out_sizes) {
  if (x.is_complex() || weight.is_complex())
    return complex_conv(
        [&](const Tensor& a, const Tensor& w, const Tensor& b) {
          return conv_transpose(a, w, b, cs, output_padding, out_sizes);
        },
        x, weight, bias, "conv_transpose");
  const conv_detail::DeviceConv* prims = primitives_for(x, weight, bias, cs, true);
  if (!prims) return conv_transpose_composite(x, weight, bias, cs, output_padding);
  const MemoryFormat fmt = conv_detail::conv_output_format(x, weight);
  const int64_t d = x.dim() - 2;
  std::vector<int64_t> bshape(size_t(d) + 2, 1);
  bshape[1] = out_sizes[1];
  auto run = [&] {
    Tensor y = prims->backward_data(x, weight, out_sizes, fmt, cs);
    return bias.defined() ? y.add_(bias.view(bshape)) : y;
  };
  if (!autograd::maybe_differentiable(x, weight, bias)) return run();
  const std::vector<int64_t> op(output_padding.begin(), output_padding.end());
  return autograd::differentiable(
      "convolution_transpose", {&x, &weight, &bias}, run,
      [cs, op, d, prims](const autograd::VjpCtx& c) {
        const Tensor& g = c.grad();
        const Tensor xs = c.saved_tensor(0), ws = c.saved_tensor(1);
        std::vector<int64_t> reduce = {0};
        for (int64_t i = 0; i < d; ++i) reduce.push_back(2 + i);
        Tensor gx, gw;
        if (autograd::GradMode::is_enabled()) {  // create_graph: differentiate the composite
          std::vector<Tensor> inputs;
          if (c.needs_input_grad(0)) inputs.push_back(xs);
          if (c.needs_input_grad(1)) inputs.push_back(ws);
          if (!inputs.empty()) {
            auto grads =
                autograd::grad({conv_transpose_composite(xs, ws, Tensor(), cs, op)}, inputs, {g}, true, true, true);
            size_t k = 0;
            if (c.needs_input_grad(0)) gx = grads[k++];
            if (c.needs_input_grad(1)) gw = grads[k++];
          }
        } else {
          if (c.needs_input_grad(0)) gx = prims->forward(g, ws, Tensor(), cs);
          if (c.needs_input_grad(1)) gw = prims->backward_weights(xs, g, ws.sizes(), false, cs).first;
        }
        return autograd::variable_list{gx, gw, c.needs_input_grad(2) ? g.sum(reduce) : Tensor()};
      },
      [&](const auto& t, const Tensor&) {
        Tensor r;
        if (t(0).defined()) r = conv_transpose(t(0), weight, Tensor(), cs, op, out_sizes);
        if (t(1).defined()) {
          Tensor term = conv_transpose(x, t(1), Tensor(), cs, op, out_sizes);
          r = r.defined() ? r.add(term) : term;
        }
        if (t(2).defined()) {
          Tensor tb = t(2).view(bshape);
          r = r.defined() ? r.add(tb) : tb.expand(out_sizes).clone();
        }
        return r;
      },
      {{x}, {weight}});
}
}  // namespace

Tensor conv_transpose_nd(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride_in,
                         IntArrayRef padding_in, IntArrayRef output_padding_in, int64_t groups,
                         IntArrayRef dilation_in, size_t d, const char* op) {
  // PyTorch 1.13's CPU autocast runs the transposed convolutions in float32.
  EMBER_AUTOCAST_WITH(
      conv_autocast(d, true),
      conv_transpose_nd(_ac[0], _ac[1], _ac[2], stride_in, padding_in, output_padding_in, groups, dilation_in, d, op),
      &input, &weight, &bias);
  EMBER_CHECK(weight.dim() == int64_t(d) + 2, op, ": expected a ", d + 2, "-D weight, got ", weight.sizes());
  const bool unbatched = input.dim() == int64_t(d) + 1;
  Tensor x = unbatched ? input.unsqueeze(0) : input;
  EMBER_CHECK(x.dim() == int64_t(d) + 2, op, ": Expected ", d + 1, "D (unbatched) or ", d + 2,
              "D (batched) input, but got input of size: ", input.sizes());
  EMBER_CHECK(groups > 0 && weight.size(0) % groups == 0, op, ": groups (", groups,
              ") must divide the weight's input channels (", weight.size(0), ")");
  EMBER_CHECK(x.size(1) == weight.size(0), op, ": Given transposed=1, weight of size ", weight.sizes(),
              ", expected input", input.sizes(), " to have ", weight.size(0), " channels, but got ", x.size(1),
              " channels instead");
  const auto stride = per_dim(stride_in, d, op, "stride"), padding = per_dim(padding_in, d, op, "padding"),
             output_padding = per_dim(output_padding_in, d, op, "output_padding"),
             dilation = per_dim(dilation_in, d, op, "dilation");
  conv_detail::ConvShape cs{stride, padding, {}, dilation, groups};
  std::vector<int64_t> out_sizes = {x.size(0), weight.size(1) * groups};
  for (size_t i = 0; i < d; ++i) {
    EMBER_CHECK(stride[i] > 0 && dilation[i] > 0 && padding[i] >= 0, op,
                ": stride and dilation must be positive and padding non-negative");
    EMBER_CHECK(output_padding[i] >= 0 && (output_padding[i] < stride[i] || output_padding[i] < dilation[i]), op,
                ": output padding must be smaller than either stride or dilation, but got output_padding=",
                output_padding[i], ", stride=", stride[i], ", dilation=", dilation[i]);
    const int64_t size = (x.size(2 + int64_t(i)) - 1) * stride[i] - 2 * padding[i] +
                         dilation[i] * (weight.size(2 + int64_t(i)) - 1) + output_padding[i] + 1;
    EMBER_CHECK(size > 0, op, ": the output size is ", size, " along spatial dim ", i, " for input ", input.sizes(),
                " (it must be positive)");
    out_sizes.push_back(size);
    cs.pad_r.push_back(padding[i] - output_padding[i]);
  }
  Tensor out = conv_transpose(x, weight, bias, cs, output_padding, out_sizes);
  return unbatched ? out.squeeze(0) : out;
}

Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 1,
                           "conv_transpose1d");
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 2,
                           "conv_transpose2d");
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                        IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd(input, weight, bias, stride, padding, output_padding, groups, dilation, 3,
                           "conv_transpose3d");
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              const ConvPadding& padding, IntArrayRef dilation, int64_t groups) {
  check_defined(input, "conv3d", "input");
  check_defined(weight, "conv3d", "weight");
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d");
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              const ConvPadding& padding, IntArrayRef dilation, int64_t groups) {
  check_defined(input, "conv2d", "input");
  check_defined(weight, "conv2d", "weight");
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d");
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
              const ConvPadding& padding, IntArrayRef dilation, int64_t groups) {
  check_defined(input, "conv1d", "input");
  check_defined(weight, "conv1d", "weight");
  return conv_nd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d");
}
}  // namespace functional

}  // namespace ember::nn
