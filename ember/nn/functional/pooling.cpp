#include "ember/nn/functional/pooling.h"

#include <cmath>
#include <memory>
#include <ostream>
#include <sstream>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/record.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/pool_dnnl.h"
#include "ember/nn/detail/format.h"

namespace ember {

// The shared implementations (ember/nn/functional/pooling.h), defined below between the helpers.
using nn::detail::adaptive_avg_pool_nd;
using nn::detail::adaptive_max_pool_nd;
using nn::detail::avg_pool_nd;
using nn::detail::lp_pool_nd;
using nn::detail::max_pool_nd;
using nn::detail::max_unpool_nd;
using nn::detail::resolve_output_size;
using nn::detail::unpool_output_size;

namespace {

using pool_detail::PoolKind;
using pool_detail::PoolShape;
using pool_detail::WindowDim;
using pool_detail::pool_format;

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

using nn::detail::join;

// (N, C, spatial...) from a batched or unbatched input of `d` spatial dims.
Tensor batched(const Tensor& input, size_t d, const char* op) {
  check_defined(input, op, "input");
  const int64_t r = input.dim(), n = int64_t(d);
  bool ok = r == n + 1 || r == n + 2;
  for (int64_t i = r - n - 1; ok && i < r; ++i) ok = input.size(i) != 0;
  EMBER_CHECK(ok, op, ": Expected ", n + 1, "D or ", n + 2, "D (batch mode) tensor with optional 0 dim batch size ",
              "for input, but got:", input.sizes());
  return r == n + 1 ? input.unsqueeze(0) : input;
}
Tensor unbatched_like(const Tensor& out, const Tensor& input, size_t d) {
  return input.dim() == int64_t(d) + 1 ? out.squeeze(0) : out;
}

std::vector<int64_t> expand_arg(IntArrayRef v, size_t d, const char* what, const char* op) {
  static const char* kWords[] = {"", "one", "two", "three"};
  EMBER_CHECK(v.size() == 1 || v.size() == d, op, ": ", what, " must either be a single int, or a tuple of ",
              kWords[d], " ints");
  return v.size() == 1 ? std::vector<int64_t>(d, v[0]) : std::vector<int64_t>(v.begin(), v.end());
}

std::string letters(const char* prefix, IntArrayRef v) {
  static const char* kDim[3][3] = {{"W"}, {"H", "W"}, {"T", "H", "W"}};
  std::ostringstream s;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? " " : "") << prefix << kDim[v.size() - 1][i] << ": " << v[i];
  return s.str();
}

// A regular pooling window geometry (kernel, stride, padding, dilation, ceil_mode), checked
// as PyTorch checks it.
struct Pooling {
  std::vector<int64_t> in, k, s, p, dil, out;  // in, out: spatial sizes
  bool ceil_mode = false;

  Pooling(const Tensor& x, size_t d, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
          bool ceil, const char* op)
      : in(x.sizes().begin() + 2, x.sizes().end()), ceil_mode(ceil) {
    k = expand_arg(kernel, d, "kernel_size", op);
    s = stride.empty() ? k : expand_arg(stride, d, "stride", op);
    p = expand_arg(padding, d, "padding", op);
    dil = expand_arg(dilation, d, "dilation", op);
    for (size_t i = 0; i < d; ++i) {
      EMBER_CHECK(k[i] > 0, op, ": kernel size should be greater than zero, but got ", letters("k", k));
      EMBER_CHECK(s[i] > 0, op, ": stride should be greater than zero, but got ", letters("d", s));
      EMBER_CHECK(dil[i] > 0, op, ": dilation should be greater than zero, but got ", letters("dilation", dil));
      EMBER_CHECK(p[i] >= 0, op, ": pad must be non-negative, but got pad: ", p[i]);
      EMBER_CHECK(p[i] <= k[i] / 2, op, ": pad should be at most half of kernel size, but got pad=", p[i],
                  " and kernel_size=", k[i]);
    }
    bool ok = true;
    for (size_t i = 0; i < d; ++i) {
      int64_t o = floor_div(in[i] + 2 * p[i] - dil[i] * (k[i] - 1) - 1 + (ceil ? s[i] - 1 : 0), s[i]) + 1;
      if (ceil && (o - 1) * s[i] >= in[i] + p[i]) --o;  // the last window starts inside the input or left pad
      out.push_back(o);
      ok = ok && o >= 1;
    }
    EMBER_CHECK(ok, op, ": Given input size: (", x.size(1), "x", join(in, "x"), "). Calculated output size: (", x.size(1),
                "x", join(out, "x"), "). Output size is too small");
  }
  // oneDNN's geometry: the right padding grows to cover ceil_mode's last window.
  PoolShape shape() const {
    PoolShape r{k, s, p, p, dil};
    for (size_t i = 0; i < k.size(); ++i)
      r.pad_r[i] += std::max<int64_t>(0, (out[i] - 1) * s[i] + dil[i] * (k[i] - 1) + 1 - in[i] - 2 * p[i]);
    return r;
  }
  // The windows with the padding cut off.
  std::vector<WindowDim> windows() const {
    std::vector<WindowDim> w(k.size());
    for (size_t i = 0; i < k.size(); ++i) {
      w[i].in = in[i], w[i].step = dil[i];
      for (int64_t o = 0; o < out[i]; ++o) {
        const int64_t start = o * s[i] - p[i];
        w[i].begin.push_back(start < 0 ? start + (-start + dil[i] - 1) / dil[i] * dil[i] : start);
        w[i].end.push_back(std::min(start + dil[i] * (k[i] - 1) + 1, in[i]));
      }
    }
    return w;
  }
};

// PyTorch's adaptive windows: [floor(o * in / out), ceil((o + 1) * in / out)).
std::vector<WindowDim> adaptive_windows(IntArrayRef in, IntArrayRef out) {
  std::vector<WindowDim> w(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    w[i].in = in[i];
    for (int64_t o = 0; o < out[i]; ++o) {
      w[i].begin.push_back(o * in[i] / out[i]);
      w[i].end.push_back(((o + 1) * in[i] + out[i] - 1) / out[i]);
    }
  }
  return w;
}

// ---- max -----------------------------------------------------------------------------------

void check_max_dtype(const Tensor& x, const char* op) {
  EMBER_CHECK_TYPE(isFloatingType(x.scalar_type()), "\"", op, "\" not implemented for '", x.scalar_type(), "'");
}

// t's elements at the flat per-plane indices `idx` (N, C, out...), in t's layout: the
// differentiable form of max pooling (its derivatives gather and scatter at the maxima).
Tensor gather_at(const Tensor& t, const Tensor& idx) {
  return t.flatten(2).gather(2, idx.flatten(2)).view(idx.sizes()).contiguous(pool_format(t));
}
// The transpose of gather_at: g scattered (added) into zeros shaped like `like`.
Tensor scatter_to(const Tensor& g, const Tensor& idx, const Tensor& like) {
  Tensor flat = zeros({like.size(0), like.size(1), like.numel() / std::max<int64_t>(1, like.size(0) * like.size(1))},
                      g.options());
  return flat.scatter_add(2, idx.flatten(2), g.flatten(2)).view(like.sizes()).contiguous(pool_format(like));
}

// Max pooling on oneDNN with its backward; the scatter at the maxima when the backward
// itself is differentiated; the tangent gathered at the maxima in forward mode.
Tensor max_pool_dnnl(const Tensor& x, const PoolShape& s, const std::vector<WindowDim>& w) {
  if (!autograd::maybe_differentiable(x)) return pool_detail::dnnl_pool_forward(x, s, PoolKind::Max);
  auto ws = std::make_shared<Tensor>();
  const std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end());
  const MemoryFormat fmt = pool_format(x);
  return autograd::differentiable(
      "max_pool", {&x}, [&] { return pool_detail::dnnl_pool_forward(x, s, PoolKind::Max, ws.get()); },
      [ws, s, w, sizes, fmt](const autograd::VjpCtx& c) {
        if (!c.grad().defined()) return autograd::variable_list{Tensor()};
        if (!autograd::GradMode::is_enabled())
          return autograd::variable_list{pool_detail::dnnl_pool_backward(c.grad(), sizes, fmt, s, PoolKind::Max, *ws)};
        const Tensor xs = c.saved_tensor(0);
        return autograd::variable_list{scatter_to(c.grad(), pool_detail::max_pool_indices(xs, w, "max_pool").second, xs)};
      },
      [&](const auto& t, const Tensor&) {
        return gather_at(t(0), pool_detail::max_pool_indices(x, w, "max_pool").second);
      },
      {{x}});
}

// Max over `w` of batched x: oneDNN when it applies (`s` given, no indices wanted), else the
// index kernel, with the values gathered at the maxima when a derivative may be needed.
Tensor max_pool_batched(const Tensor& x, const std::vector<WindowDim>& w, const PoolShape* s, Tensor* indices,
                        const char* op) {
  check_max_dtype(x, op);
  if (s && !indices && pool_detail::dnnl_supported(x)) return max_pool_dnnl(x, *s, w);
  auto [values, idx] = pool_detail::max_pool_indices(x, w, op);
  if (indices) *indices = idx;
  return autograd::maybe_differentiable(x) ? gather_at(x, idx) : values;
}

}  // namespace

namespace nn::detail {
// max_pool1d/2d/3d (functions and modules, without indices) traced as one op with its dimension
// count (Note [Tracing hooks]).
namespace {
const tracing::TracedOpDef max_pool_traced{{"max_pool", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  const int64_t d = tracing::int_attr(a, "d", "max_pool");
  EMBER_CHECK(d >= 1 && d <= 3, "max_pool: dimension count must be 1, 2 or 3");
  return {std::get<0>(max_pool_nd(in.at(0), size_t(d), tracing::ints_attr(a, "kernel_size", "max_pool"),
                                  tracing::ints_attr(a, "stride", "max_pool"), tracing::ints_attr(a, "padding", "max_pool"),
                                  tracing::ints_attr(a, "dilation", "max_pool"), tracing::bool_attr(a, "ceil_mode", "max_pool"),
                                  false, d == 1 ? "max_pool1d" : d == 2 ? "max_pool2d" : "max_pool3d"))};
}}};
}  // namespace

std::tuple<Tensor, Tensor> max_pool_nd(const Tensor& input, size_t d, IntArrayRef kernel, IntArrayRef stride,
                                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool with_indices,
                                       const char* op) {
  if (tracing::active() && !with_indices) {
    tracing::OpScope scope;
    auto r = max_pool_nd(input, d, kernel, stride, padding, dilation, ceil_mode, false, op);
    scope.record(max_pool_traced, {input},
                 {{"d", Scalar(int64_t(d))}, {"kernel_size", tracing::ints(kernel)}, {"stride", tracing::ints(stride)},
                  {"padding", tracing::ints(padding)}, {"dilation", tracing::ints(dilation)}, {"ceil_mode", Scalar(ceil_mode)}},
                 {std::get<0>(r)});
    return r;
  }
  // Autocast: PyTorch 1.13 lists max_pool3d (float32) but not max_pool3d_with_indices.
  if (d == 3 && !with_indices) {
    EMBER_AUTOCAST(max_pool3d,
                   max_pool_nd(_ac[0], d, kernel, stride, padding, dilation, ceil_mode, with_indices, op), &input);
  }
  const Tensor x = batched(input, d, op);
  const Pooling g(x, d, kernel, stride, padding, dilation, ceil_mode, op);
  const PoolShape s = g.shape();
  Tensor idx;
  Tensor out = max_pool_batched(x, g.windows(), &s, with_indices ? &idx : nullptr, op);
  return {unbatched_like(out, input, d), with_indices ? unbatched_like(idx, input, d) : Tensor()};
}
}  // namespace nn::detail

namespace {

// ---- average -------------------------------------------------------------------------------

// out = scale * (sum over window) / prod_i div[i][o_i]: every average pooling (regular in
// each padding mode, divisor_override, adaptive) is separable this way.
struct AvgSpec {
  std::vector<WindowDim> w;
  std::vector<std::vector<int64_t>> div;
  double scale = 1;
};

// Per dim: the (out, in) matrix averaging each window, on `device`.
std::vector<Tensor> avg_matrices(const AvgSpec& a, ScalarType dtype, Device device) {
  std::vector<Tensor> m;
  for (size_t i = 0; i < a.w.size(); ++i) {
    const WindowDim& w = a.w[i];
    const int64_t O = int64_t(w.begin.size());
    std::vector<double> v(size_t(O * w.in), 0.0);
    for (int64_t o = 0; o < O; ++o)
      for (int64_t p = w.begin[size_t(o)]; p < w.end[size_t(o)]; p += w.step)
        v[size_t(o * w.in + p)] = 1.0 / double(a.div[i][size_t(o)]);
    Tensor host = from_blob(v.data(), {O, w.in}, TensorOptions().dtype(kDouble)).to(dtype, false, true);
    // A device gets it pinned and without a wait for its queue.
    m.push_back(device.is_cpu() ? host : host.pin_memory().to(device, /*non_blocking=*/true));
  }
  return m;
}

// x's spatial dims each multiplied by m[i] (or its transpose: the backward), in x's layout.
Tensor separable(const Tensor& x, const std::vector<Tensor>& m, bool transpose, MemoryFormat fmt) {
  Tensor y = x;
  for (size_t i = 0; i < m.size(); ++i) {
    const int64_t dim = 2 + int64_t(i);
    y = matmul(y.movedim(dim, -1), transpose ? m[i] : m[i].t()).movedim(-1, dim);
  }
  return y.contiguous(fmt);
}

Tensor avg_composite(const Tensor& x, const AvgSpec& a) {
  Tensor y = separable(x, avg_matrices(a, x.scalar_type(), x.device()), false, pool_format(x));
  return a.scale == 1 ? y : y.mul(a.scale);
}

// Average pooling on oneDNN (kind: its divisor rule, `a` the same op as a spec) with its
// backward; the transposed matrices when the backward is differentiated; linear in forward mode.
Tensor avg_pool_dnnl(const Tensor& x, const PoolShape& s, PoolKind kind, const AvgSpec& a) {
  if (!autograd::maybe_differentiable(x)) return pool_detail::dnnl_pool_forward(x, s, kind);
  const std::vector<int64_t> sizes(x.sizes().begin(), x.sizes().end());
  const MemoryFormat fmt = pool_format(x);
  return autograd::differentiable(
      "avg_pool", {&x}, [&] { return pool_detail::dnnl_pool_forward(x, s, kind); },
      [s, kind, a, sizes, fmt](const autograd::VjpCtx& c) {
        if (!c.grad().defined()) return autograd::variable_list{Tensor()};
        if (autograd::GradMode::is_enabled()) {
          const Tensor& g = c.grad();
          return autograd::variable_list{separable(g, avg_matrices(a, g.scalar_type(), g.device()), true, fmt)};
        }
        return autograd::variable_list{pool_detail::dnnl_pool_backward(c.grad(), sizes, fmt, s, kind, Tensor())};
      },
      [&](const auto& t, const Tensor&) { return avg_pool_dnnl(t(0), s, kind, a); });
}

// The per-dim spec of a regular average pooling; `mode`: PyTorch's divisor (include or
// exclude padding, or 1 with divisor_override) or oneDNN's (kernel size, valid count).
enum class Divisor { IncludePad, ExcludePad, One, Kernel };
AvgSpec regular_spec(const Pooling& g, Divisor mode) {
  AvgSpec a{g.windows(), {}, 1};
  for (size_t i = 0; i < g.k.size(); ++i) {
    std::vector<int64_t> div;
    for (int64_t o = 0; o < g.out[i]; ++o) {
      const int64_t start = o * g.s[i] - g.p[i];
      switch (mode) {
        case Divisor::IncludePad: div.push_back(std::min(start + g.k[i], g.in[i] + g.p[i]) - start); break;
        case Divisor::ExcludePad: div.push_back(a.w[i].end[size_t(o)] - a.w[i].begin[size_t(o)]); break;
        case Divisor::One: div.push_back(1); break;
        case Divisor::Kernel: div.push_back(g.k[i]); break;
      }
    }
    a.div.push_back(div);
  }
  return a;
}

Tensor avg_pool_batched(const Tensor& x, const Pooling& g, bool count_include_pad,
                        std::optional<int64_t> divisor_override, const char* op) {
  const ScalarType t = x.scalar_type();
  EMBER_CHECK_TYPE(!isComplexType(t) && t != kBool, "\"", op, "\" not implemented for '", t, "'");
  EMBER_CHECK(!divisor_override || *divisor_override != 0, op, ": divisor must be not zero");
  if (isIntegralType(t, false))  // C++ integer division of the window sums, as PyTorch
    return avg_pool_batched(x.to(kDouble), g, count_include_pad, divisor_override, op).trunc().to(t);
  const Divisor mode = divisor_override ? Divisor::One : count_include_pad ? Divisor::IncludePad : Divisor::ExcludePad;
  AvgSpec want = regular_spec(g, mode);
  if (divisor_override) want.scale = 1.0 / double(*divisor_override);
  if (!pool_detail::dnnl_supported(x)) return avg_composite(x, want);
  // oneDNN divides by the kernel size or the valid count; a ratio map corrects the rest
  // (divisor_override, and ceil_mode windows reaching past the right padding).
  const PoolKind kind = mode == Divisor::ExcludePad ? PoolKind::AvgExcludePad : PoolKind::AvgIncludePad;
  const AvgSpec have = regular_spec(g, kind == PoolKind::AvgExcludePad ? Divisor::ExcludePad : Divisor::Kernel);
  Tensor out = avg_pool_dnnl(x, g.shape(), kind, have);
  Tensor ratio;
  bool uniform = true;
  for (size_t i = 0; i < g.k.size(); ++i) {
    std::vector<double> r;
    for (size_t o = 0; o < have.div[i].size(); ++o) {
      r.push_back(double(have.div[i][o]) / double(want.div[i][o]));
      uniform = uniform && r.back() == r.front();
    }
    std::vector<int64_t> shape(g.k.size() + 2, 1);
    shape[2 + i] = int64_t(r.size());
    Tensor ri = from_blob(r.data(), shape, TensorOptions().dtype(kDouble)).clone();
    ratio = ratio.defined() ? ratio.mul(ri) : ri;
  }
  if (uniform) {
    const double k = ratio.flatten()[0].item<double>() * want.scale;
    return k == 1 ? out : out.mul(k);
  }
  return out.mul(ratio.mul(want.scale).to(t));
}

}  // namespace

namespace nn::detail {
namespace {
const char* pool_name(const char* stem, int64_t d) {
  static const char* names[2][3] = {{"avg_pool1d", "avg_pool2d", "avg_pool3d"},
                                    {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"}};
  EMBER_CHECK(d >= 1 && d <= 3, stem, ": dimension count must be 1, 2 or 3");
  return names[std::string_view(stem) == "avg_pool" ? 0 : 1][d - 1];
}
// Traced (Note [Tracing hooks]).
const tracing::TracedOpDef avg_pool_traced{{"avg_pool", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  const int64_t d = tracing::int_attr(a, "d", "avg_pool");
  return {avg_pool_nd(in.at(0), size_t(d), tracing::ints_attr(a, "kernel_size", "avg_pool"), tracing::ints_attr(a, "stride", "avg_pool"),
                      tracing::ints_attr(a, "padding", "avg_pool"), tracing::bool_attr(a, "ceil_mode", "avg_pool"),
                      tracing::bool_attr(a, "count_include_pad", "avg_pool"),
                      tracing::optional_int_attr(a, "divisor_override", "avg_pool"), pool_name("avg_pool", d))};
}}};
const tracing::TracedOpDef adaptive_avg_pool_traced{{"adaptive_avg_pool", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  const int64_t d = tracing::int_attr(a, "d", "adaptive_avg_pool");
  return {adaptive_avg_pool_nd(in.at(0), size_t(d), tracing::ints_attr(a, "output_size", "adaptive_avg_pool"),
                               pool_name("adaptive_avg_pool", d))};
}}};
}  // namespace

Tensor avg_pool_nd(const Tensor& input, size_t d, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                   bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override, const char* op) {
  if (tracing::active())
    return tracing::traced_call(avg_pool_traced, {input},
                                {{"d", Scalar(int64_t(d))}, {"kernel_size", tracing::ints(kernel)}, {"stride", tracing::ints(stride)},
                                 {"padding", tracing::ints(padding)}, {"ceil_mode", Scalar(ceil_mode)},
                                 {"count_include_pad", Scalar(count_include_pad)},
                                 {"divisor_override", tracing::optional_int(divisor_override)}},
                                [&] { return avg_pool_nd(input, d, kernel, stride, padding, ceil_mode, count_include_pad,
                                                         divisor_override, op); });
  // Autocast: avg_pool3d runs in float32; avg_pool1d/2d are on no list, so the composite's
  // matmuls must not run in bfloat16 either (None: inputs kept, autocast suspended inside).
  EMBER_AUTOCAST_WITH(
      d == 3 ? autocast::policies("avg_pool3d") : AutocastPolicies{},
      avg_pool_nd(_ac[0], d, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override, op), &input);
  const Tensor x = batched(input, d, op);
  const Pooling g(x, d, kernel, stride, padding, 1, ceil_mode, op);
  return unbatched_like(avg_pool_batched(x, g, count_include_pad, divisor_override, op), input, d);
}
}  // namespace nn::detail

namespace {

// ---- adaptive ------------------------------------------------------------------------------

// Batched input of an adaptive pooling, its output size checked (one value: every dim).
Tensor adaptive_input(const Tensor& input, size_t d, std::vector<int64_t>& output_size, const char* op) {
  const int64_t n = int64_t(d);
  EMBER_CHECK(input.dim() == n + 1 || input.dim() == n + 2, op, "(): Expected ", n + 1, "D or ", n + 2,
              "D tensor, but got: ", input.sizes());
  for (int64_t i = input.dim() - n; i < input.dim(); ++i)
    EMBER_CHECK(input.size(i) > 0, op, "(): Expected input to have non-zero size for non-batch dimensions, but input ",
                "has sizes ", input.sizes(), " with dimension ", i, " being empty");
  if (output_size.size() == 1) output_size.resize(d, output_size[0]);
  EMBER_CHECK(output_size.size() == d, op, ": output_size must be ", d);
  for (int64_t o : output_size)
    EMBER_CHECK(o >= 0, op, ": elements of output_size must be greater than or equal to 0 but received {",
                join(output_size, ", "), "}");
  return input.dim() == n + 1 ? input.unsqueeze(0) : input;
}

// When every spatial size divides by its output size the windows are a regular pooling.
bool divisible(const Tensor& x, IntArrayRef out) {
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] == 0 || x.size(2 + int64_t(i)) % out[i] != 0) return false;
  return true;
}
std::vector<int64_t> kernel_of(const Tensor& x, IntArrayRef out) {
  std::vector<int64_t> k;
  for (size_t i = 0; i < out.size(); ++i) k.push_back(x.size(2 + int64_t(i)) / out[i]);
  return k;
}

}  // namespace

namespace nn::detail {
Tensor adaptive_avg_pool_nd(const Tensor& input, size_t d, IntArrayRef out_size, const char* op) {
  if (tracing::active())
    return tracing::traced_call(adaptive_avg_pool_traced, {input},
                                {{"d", Scalar(int64_t(d))}, {"output_size", tracing::ints(out_size)}},
                                [&] { return adaptive_avg_pool_nd(input, d, out_size, op); });
  // Autocast: adaptive_avg_pool3d runs in float32, the others as they are (see avg_pool_nd).
  EMBER_AUTOCAST_WITH(d == 3 ? autocast::policies("adaptive_avg_pool3d") : AutocastPolicies{},
                      adaptive_avg_pool_nd(_ac[0], d, out_size, op), &input);
  std::vector<int64_t> output_size(out_size.begin(), out_size.end());
  const Tensor x = adaptive_input(input, d, output_size, op);
  const ScalarType t = x.scalar_type();
  EMBER_CHECK_TYPE(isFloatingType(t), "\"", op, "\" not implemented for '", t, "'");
  Tensor out;
  if (divisible(x, output_size) && pool_detail::dnnl_supported(x)) {  // (global pooling too)
    const std::vector<int64_t> k = kernel_of(x, output_size);
    out = avg_pool_batched(x, Pooling(x, d, k, k, 0, 1, false, op), true, std::nullopt, op);
  } else {
    AvgSpec a{adaptive_windows(x.sizes().slice(2), output_size), {}, 1};
    for (const WindowDim& w : a.w) {
      std::vector<int64_t> div;
      for (size_t o = 0; o < w.begin.size(); ++o) div.push_back(w.end[o] - w.begin[o]);
      a.div.push_back(div);
    }
    out = avg_composite(x, a);
  }
  return unbatched_like(out, input, d);
}

std::tuple<Tensor, Tensor> adaptive_max_pool_nd(const Tensor& input, size_t d, IntArrayRef out_size,
                                                bool with_indices, const char* op) {
  if (d == 3) {  // autocast: adaptive_max_pool3d runs in float32 (with or without indices)
    EMBER_AUTOCAST(adaptive_max_pool3d, adaptive_max_pool_nd(_ac[0], d, out_size, with_indices, op), &input);
  }
  std::vector<int64_t> output_size(out_size.begin(), out_size.end());
  const Tensor x = adaptive_input(input, d, output_size, op);
  check_max_dtype(x, op);
  Tensor idx, out;
  if (!with_indices && divisible(x, output_size)) {
    const std::vector<int64_t> k = kernel_of(x, output_size);
    const Pooling g(x, d, k, k, 0, 1, false, op);
    const PoolShape s = g.shape();
    out = max_pool_batched(x, g.windows(), &s, nullptr, op);
  } else {
    out = max_pool_batched(x, adaptive_windows(x.sizes().slice(2), output_size), nullptr, &idx, op);
  }
  return {unbatched_like(out, input, d), with_indices ? unbatched_like(idx, input, d) : Tensor()};
}

// ---- LP and unpooling ----------------------------------------------------------------------

Tensor lp_pool_nd(const Tensor& input, size_t d, double norm_type, IntArrayRef kernel, IntArrayRef stride,
                  bool ceil_mode, const char* op) {
  const Tensor out = avg_pool_nd(input.pow(norm_type), d, kernel, stride, 0, ceil_mode, true, std::nullopt, op);
  double k = 1;
  for (int64_t v : expand_arg(kernel, d, "kernel_size", op)) k *= double(v);
  return out.sign().mul(out.abs().relu()).mul(k).pow(1.0 / norm_type);
}

Tensor max_unpool_nd(const Tensor& input, const Tensor& indices, size_t d, IntArrayRef output_size, const char* op) {
  // Autocast: max_unpool2d/3d run in float32 (PyTorch's max_unpool1d is max_unpool2d).
  EMBER_AUTOCAST_WITH(d == 3 ? autocast::policies("max_unpool3d") : autocast::policies("max_unpool2d"),
                      max_unpool_nd(_ac[0], indices, d, output_size, op), &input);
  const int64_t n = int64_t(std::max<size_t>(d, 2));
  EMBER_CHECK(input.dim() == int64_t(d) + 1 || input.dim() == int64_t(d) + 2, "Input to max_unpooling", n,
              "d should be a ", n + 1, "d or ", n + 2, "d Tensor, but got a tensor with ", input.dim(), " dimensions.");
  EMBER_CHECK_TYPE(indices.scalar_type() == kLong, "elements in indices should be type int64 but got: ",
                   indices.scalar_type());
  EMBER_CHECK(indices.sizes() == input.sizes(), "Expected shape of indices to be same as that of the input tensor (",
              input.sizes(), ") but got indices tensor with shape: ", indices.sizes());
  EMBER_CHECK(output_size.size() == d, op, ": expected ", d, " output sizes, got ", output_size.size());
  const Tensor x = input.dim() == int64_t(d) + 1 ? input.unsqueeze(0) : input;
  const Tensor idx = indices.dim() == int64_t(d) + 1 ? indices.unsqueeze(0) : indices;
  int64_t L = 1;
  for (int64_t o : output_size) L *= o;
  {
    const Tensor ic = idx.contiguous();
    const int64_t* p = ic.data_ptr<int64_t>();
    for (int64_t i = 0; i < ic.numel(); ++i)
      EMBER_CHECK(p[i] >= 0 && p[i] < L, "Found an invalid max index: ", p[i], " (output volumes are of size ",
                  join(output_size, "x"), ")");
  }
  std::vector<int64_t> shape{x.size(0), x.size(1)};
  shape.insert(shape.end(), output_size.begin(), output_size.end());
  Tensor out = zeros({x.size(0), x.size(1), L}, x.options())
                   .scatter(2, idx.flatten(2), x.flatten(2))
                   .view(shape)
                   .contiguous(pool_format(x));
  return input.dim() == int64_t(d) + 1 ? out.squeeze(0) : out;
}

// PyTorch's _unpool_output_size.
std::vector<int64_t> unpool_output_size(const Tensor& input, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                        const std::optional<std::vector<int64_t>>& given) {
  const size_t d = k.size();
  std::vector<int64_t> def;
  for (size_t i = 0; i < d; ++i) def.push_back((input.size(input.dim() - int64_t(d) + int64_t(i)) - 1) * s[i] + k[i] - 2 * p[i]);
  if (!given) return def;
  std::vector<int64_t> out = *given;
  if (out.size() == d + 2) out.erase(out.begin(), out.begin() + 2);
  EMBER_CHECK(out.size() == d, "output_size should be a sequence containing ", d, " or ", d + 2,
              " elements, but it has a length of '", given->size(), "'");
  for (size_t i = 0; i < d; ++i)
    EMBER_CHECK(def[i] - s[i] < out[i] && out[i] < def[i] + s[i], "invalid output_size \"(", join(out, ", "),
                ")\" (dim ", i, " must be between ", def[i] - s[i], " and ", def[i] + s[i], ")");
  return out;
}

}  // namespace nn::detail

namespace {
template <size_t D>
Tensor max_unpool_options(const Tensor& input, const Tensor& indices, const nn::functional::MaxUnpoolFuncOptions<D>& o,
                          const char* op) {
  return max_unpool_nd(input, indices, D,
                       unpool_output_size(input, o.kernel_size(), o.stride(), o.padding(), o.output_size()), op);
}

}  // namespace

// ---- ATen's positional ops ----------------------------------------------------------------


#define EMBER_POOL_OPS(D)                                                                                            \
  Tensor max_pool##D##d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,        \
                        IntArrayRef dilation, bool ceil_mode) {                                                      \
    return std::get<0>(                                                                                              \
        max_pool_nd(self, D, kernel_size, stride, padding, dilation, ceil_mode, false, "max_pool" #D "d"));          \
  }                                                                                                                  \
  std::tuple<Tensor, Tensor> max_pool##D##d_with_indices(const Tensor& self, IntArrayRef kernel_size,                \
                                                         IntArrayRef stride, IntArrayRef padding,                    \
                                                         IntArrayRef dilation, bool ceil_mode) {                     \
    return max_pool_nd(self, D, kernel_size, stride, padding, dilation, ceil_mode, true, "max_pool" #D "d");         \
  }                                                                                                                  \
  Tensor adaptive_avg_pool##D##d(const Tensor& self, IntArrayRef output_size) {                                      \
    return adaptive_avg_pool_nd(self, D, output_size, "adaptive_avg_pool" #D "d");                                  \
  }                                                                                                                  \
  std::tuple<Tensor, Tensor> adaptive_max_pool##D##d(const Tensor& self, IntArrayRef output_size) {                  \
    return adaptive_max_pool_nd(self, D, output_size, true, "adaptive_max_pool" #D "d");                            \
  }
EMBER_POOL_OPS(1)
EMBER_POOL_OPS(2)
EMBER_POOL_OPS(3)
#undef EMBER_POOL_OPS

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  return avg_pool_nd(self, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, std::nullopt, "avg_pool1d");
}
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool_nd(self, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                     "avg_pool2d");
}
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  return avg_pool_nd(self, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                     "avg_pool3d");
}
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return max_unpool_nd(self, indices, 2, output_size, "max_unpool2d");
}
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef, IntArrayRef) {
  return max_unpool_nd(self, indices, 3, output_size, "max_unpool3d");
}

namespace nn {

// ---- nn::functional with options -----------------------------------------------------------

namespace functional {
#define EMBER_POOL_FUNCTIONAL(D)                                                                                     \
  Tensor max_pool##D##d(const Tensor& input, const MaxPool##D##dFuncOptions& o) {                                    \
    return ::ember::max_pool##D##d(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(), o.ceil_mode());    \
  }                                                                                                                  \
  std::tuple<Tensor, Tensor> max_pool##D##d_with_indices(const Tensor& input, const MaxPool##D##dFuncOptions& o) {   \
    return ::ember::max_pool##D##d_with_indices(input, o.kernel_size(), o.stride(), o.padding(), o.dilation(),       \
                                                o.ceil_mode());                                                      \
  }                                                                                                                  \
  Tensor adaptive_max_pool##D##d(const Tensor& input, const AdaptiveMaxPool##D##dFuncOptions& o) {                   \
    return std::get<0>(adaptive_max_pool_nd(input, D, resolve_output_size(input, o.output_size()), false,            \
                                            "adaptive_max_pool" #D "d"));                                            \
  }                                                                                                                  \
  std::tuple<Tensor, Tensor> adaptive_max_pool##D##d_with_indices(const Tensor& input,                               \
                                                                  const AdaptiveMaxPool##D##dFuncOptions& o) {       \
    return adaptive_max_pool_nd(input, D, resolve_output_size(input, o.output_size()), true,                         \
                                "adaptive_max_pool" #D "d");                                                         \
  }                                                                                                                  \
  Tensor adaptive_avg_pool##D##d(const Tensor& input, const AdaptiveAvgPool##D##dFuncOptions& o) {                   \
    return ::ember::adaptive_avg_pool##D##d(input, resolve_output_size(input, o.output_size()));                     \
  }                                                                                                                  \
  Tensor max_unpool##D##d(const Tensor& input, const Tensor& indices, const MaxUnpool##D##dFuncOptions& o) {         \
    return max_unpool_options<D>(input, indices, o, "max_unpool" #D "d");                                            \
  }
EMBER_POOL_FUNCTIONAL(1)
EMBER_POOL_FUNCTIONAL(2)
EMBER_POOL_FUNCTIONAL(3)
#undef EMBER_POOL_FUNCTIONAL

Tensor avg_pool1d(const Tensor& input, const AvgPool1dFuncOptions& o) {
  return ::ember::avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad());
}
Tensor avg_pool2d(const Tensor& input, const AvgPool2dFuncOptions& o) {
  return ::ember::avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                             o.divisor_override());
}
Tensor avg_pool3d(const Tensor& input, const AvgPool3dFuncOptions& o) {
  return ::ember::avg_pool3d(input, o.kernel_size(), o.stride(), o.padding(), o.ceil_mode(), o.count_include_pad(),
                             o.divisor_override());
}
Tensor lp_pool1d(const Tensor& input, const LPPool1dFuncOptions& o) {
  return lp_pool_nd(input, 1, o.norm_type(), o.kernel_size(), o.stride(), o.ceil_mode(), "lp_pool1d");
}
Tensor lp_pool2d(const Tensor& input, const LPPool2dFuncOptions& o) {
  return lp_pool_nd(input, 2, o.norm_type(), o.kernel_size(), o.stride(), o.ceil_mode(), "lp_pool2d");
}
}  // namespace functional

}  // namespace nn
}  // namespace ember
