// functional::interpolate (Upsample runs it): PyTorch 1.13's argument rules (torch/nn/functional.py)
// and coordinate rules (aten/src/ATen/native/UpSample.h), one DimMap per resized dim run by
// the separable kernel (ember/nn/resample.h) in PyTorch's order, last dim first. Coordinates
// are computed in the input's precision (float for float32 and below), nearest indices in
// float, as PyTorch does, so results agree to rounding.
#include "ember/nn/functional/upsampling.h"

#include <cmath>
#include <sstream>
#include <ostream>

#include "ember/nn/resample.h"
#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/nn/detail/format.h"

namespace ember {
const char* mode_name(InterpolateMode mode) {
  static const char* const names[] = {"kNearest", "kLinear", "kBilinear", "kBicubic", "kTrilinear", "kArea",
                                      "kNearestExact"};
  return names[int(mode)];
}

}  // namespace ember

namespace ember::nn {

namespace {
using detail::DimMap;
using std::optional;

template <class T>
T scales_value(double scale, int64_t in, int64_t out) {
  return scale > 0 ? T(1.0 / scale) : T(in) / T(out);
}
template <class T>
T pixel_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? T(in - 1) / T(out - 1) : T(0);
  return scales_value<T>(scale, in, out);
}
template <class T>
T source_index(T scale, int64_t o, bool align_corners, bool cubic) {
  if (align_corners) return scale * T(o);
  const T s = scale * (T(o) + T(0.5)) - T(0.5);
  return !cubic && s < 0 ? T(0) : s;
}

DimMap nearest_map(int64_t in, int64_t out, double scale, bool exact) {
  DimMap m{in, out};
  const float s = scales_value<float>(scale, in, out);
  for (int64_t o = 0; o < out; ++o) {
    int64_t i = exact ? int64_t(std::floor(float((double(o) + 0.5) * double(s)))) : int64_t(std::floor(float(o) * s));
    if (!exact && out == 2 * in) i = o >> 1;
    m.add(std::min(i, in - 1));
    m.end_row();
  }
  return m;
}

template <class T>
DimMap linear_map(int64_t in, int64_t out, bool align_corners, double scale) {
  DimMap m{in, out};
  const T s = pixel_scale<T>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const T real = source_index<T>(s, o, align_corners, false);
    const int64_t i0 = std::min(int64_t(real), in - 1);
    const T l1 = std::min(std::max(real - T(i0), T(0)), T(1));
    m.add(i0, double(T(1) - l1));
    m.add(i0 + (i0 < in - 1 ? 1 : 0), double(l1));
    m.end_row();
  }
  return m;
}

// Keys' cubic convolution with A = -0.75 (PyTorch's get_cubic_upsample_coefficients).
template <class T>
void cubic_coefficients(T t, T c[4]) {
  const T A = -0.75;
  auto near = [&](T x) { return ((A + 2) * x - (A + 3)) * x * x + 1; };
  auto far = [&](T x) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; };
  c[0] = far(t + 1);
  c[1] = near(t);
  c[2] = near(1 - t);
  c[3] = far(2 - t);
}

template <class T>
DimMap cubic_map(int64_t in, int64_t out, bool align_corners, double scale) {
  DimMap m{in, out};
  const T s = pixel_scale<T>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const T real = source_index<T>(s, o, align_corners, true);
    const int64_t i = int64_t(std::floor(float(real)));
    T c[4];
    cubic_coefficients<T>(real - T(i), c);
    for (int64_t j = 0; j < 4; ++j) m.add(std::clamp<int64_t>(i - 1 + j, 0, in - 1), double(c[j]));
    m.end_row();
  }
  return m;
}

// Adaptive average pooling windows (mode "area").
template <class T>
DimMap area_map(int64_t in, int64_t out) {
  DimMap m{in, out};
  for (int64_t o = 0; o < out; ++o) {
    const int64_t a = int64_t(std::floor(float(o * in) / float(out)));
    const int64_t b = int64_t(std::ceil(float((o + 1) * in) / float(out)));
    for (int64_t i = a; i < b; ++i) m.add(i, double(T(1) / T(b - a)));
    m.end_row();
  }
  return m;
}

// Antialiased (Pillow-style) filters: the triangle or the cubic with a = -0.5, stretched by
// the downscaling factor and normalized per output.
template <class T>
DimMap antialias_map(int64_t in, int64_t out, bool align_corners, double scale, bool cubic) {
  DimMap m{in, out};
  const T s = pixel_scale<T>(in, out, align_corners, scale);
  const int interp = cubic ? 4 : 2;
  const T support = s >= 1 ? T(interp * 0.5) * s : T(interp * 0.5), invscale = s >= 1 ? T(1) / s : T(1);
  auto filter = [&](T x) -> T {
    x = std::abs(x);
    if (!cubic) return x < 1 ? 1 - x : 0;
    const T a = -0.5;
    if (x < 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
    return x < 2 ? (((x - 5) * x + 8) * x - 4) * a : 0;
  };
  for (int64_t o = 0; o < out; ++o) {
    const T center = s * T(double(o) + 0.5);
    const int64_t lo = std::max<int64_t>(int64_t(double(center - support) + 0.5), 0);
    const int64_t n = std::min<int64_t>(int64_t(double(center + support) + 0.5), in) - lo;
    std::vector<T> w(size_t(std::max<int64_t>(n, 0)));
    T total = 0;
    for (int64_t j = 0; j < n; ++j) total += w[j] = filter(T((double(j + lo) - double(center) + 0.5) * double(invscale)));
    for (int64_t j = 0; j < n; ++j) m.add(lo + j, double(total != 0 ? w[j] / total : w[j]));
    m.end_row();
  }
  return m;
}

const char* plan_name(InterpolateMode mode, int64_t d, bool antialias) {
  static const char* const names[][3] = {
      {"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
      {"upsample_linear1d", "upsample_linear1d", "upsample_linear1d"},
      {"upsample_bilinear2d", "upsample_bilinear2d", "upsample_bilinear2d"},
      {"upsample_bicubic2d", "upsample_bicubic2d", "upsample_bicubic2d"},
      {"upsample_trilinear3d", "upsample_trilinear3d", "upsample_trilinear3d"},
      {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"},
      {"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"}};
  if (antialias) return mode == InterpolateMode::Bilinear ? "_upsample_bilinear2d_aa" : "_upsample_bicubic2d_aa";
  return names[int(mode)][d - 1];
}

using nn::detail::list;
using nn::detail::list_of;

}  // namespace

namespace functional {

Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options) {
  // Autocast: PyTorch's area mode of a 5-D input is adaptive_avg_pool3d (float32); the
  // upsampling ops are on no list.
  if (options.mode() == InterpolateMode::Area && input.dim() == 5) {
    EMBER_AUTOCAST(adaptive_avg_pool3d, interpolate(_ac[0], options), &input);
  }
  const InterpolateMode mode = options.mode();
  static const char* const py_names[] = {"nearest", "linear", "bilinear", "bicubic", "trilinear", "area",
                                         "nearest-exact"};
  const bool point_mode =
      mode == InterpolateMode::Nearest || mode == InterpolateMode::Area || mode == InterpolateMode::NearestExact;
  EMBER_CHECK(!point_mode || !options.align_corners(), "align_corners option can only be set with the interpolating "
              "modes: linear | bilinear | bicubic | trilinear");
  const bool align_corners = options.align_corners().value_or(false);
  const int64_t dim = input.dim() - 2;
  std::vector<int64_t> spatial(input.sizes().begin() + std::min<int64_t>(2, input.dim()), input.sizes().end());
  const auto& size = options.size();
  const auto& scale = options.scale_factor();
  EMBER_CHECK(!(size && scale), "only one of size or scale_factor should be defined");
  EMBER_CHECK(size || scale, "either size or scale_factor should be defined");
  optional<std::vector<int64_t>> out_size;
  optional<std::vector<double>> scales;
  if (size) {
    // As LibTorch (its options hold lists): one entry per spatial dim, no broadcasting.
    EMBER_CHECK(int64_t(size->size()) == dim, "Input and output must have the same "
                "number of spatial dimensions, but got input with spatial dimensions of ", list(spatial),
                " and output size of ", list(*size), ". Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                "and output size in (o1, o2, ...,oK) format.");
    out_size = *size;
  } else {
    EMBER_CHECK(int64_t(scale->size()) == dim, "Input and scale_factor must have "
                "the same number of spatial dimensions, but got input with spatial dimensions of ", list(spatial),
                " and scale_factor of shape ", list_of(*scale), ". Please provide input tensor in (N, C, d1, d2, ...,dK) "
                "format and scale_factor in (s1, s2, ...,sK) format.");
    scales = *scale;
  }
  bool recompute = options.recompute_scale_factor().value_or(false);
  EMBER_CHECK(!(recompute && size), "recompute_scale_factor is not meaningful with an explicit size.");
  if (mode == InterpolateMode::Area && !out_size) recompute = true;
  if (scales) {
    out_size.emplace();
    for (int64_t i = 0; i < dim; ++i) out_size->push_back(int64_t(std::floor(double(spatial[i]) * (*scales)[i])));
    if (recompute) scales.reset();
  }
  const bool bicubic = mode == InterpolateMode::Bicubic;
  EMBER_CHECK(!options.antialias() || ((mode == InterpolateMode::Bilinear || bicubic) && input.dim() == 4),
              "Anti-alias option is only supported for bilinear and bicubic modes");
  // The modes tied to a dimension.
  const int64_t need = mode == InterpolateMode::Linear ? 1 : mode == InterpolateMode::Bilinear || bicubic ? 2
                       : mode == InterpolateMode::Trilinear ? 3 : 0;
  EMBER_CHECK(dim >= 1 && dim <= 3, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ", input.dim(),
              "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got ",
              py_names[int(mode)], ")");
  EMBER_CHECK(need == 0 || need == dim, "Got ", input.dim(), "D input, but ", py_names[int(mode)], " mode needs ",
              need + 2, "D input");
  static const char* const axis[][3] = {{"W"}, {"H", "W"}, {"D", "H", "W"}};
  auto sizes_text = [&](const std::vector<int64_t>& v) {
    std::string s;
    for (int64_t i = 0; i < dim; ++i) s += std::string(i ? ", " : "") + axis[dim - 1][i] + ": " + std::to_string(v[i]);
    return s;
  };
  bool positive = true;
  for (int64_t i = 0; i < dim; ++i) positive = positive && spatial[i] > 0 && (*out_size)[i] > 0;
  EMBER_CHECK(positive, "Input and output sizes should be greater than 0, but got input (", sizes_text(spatial),
              ") output (", sizes_text(*out_size), ")");
  EMBER_CHECK(input.numel() != 0 || input.size(1) != 0, "Non-empty ", input.dim(),
              "D data tensor expected but got a tensor with sizes ", input.sizes());

  auto plan = std::make_shared<detail::ResamplePlan>();
  plan->name = plan_name(mode, dim, options.antialias());
  const bool dbl = input.scalar_type() == kDouble;
  for (int64_t i = dim - 1; i >= 0; --i) {  // the last dim first, as PyTorch's separable kernel
    const int64_t in = spatial[i], out = (*out_size)[i];
    if (in == out) continue;
    const double s = scales ? (*scales)[i] : 0.0;  // <= 0: none given
    DimMap m;
    if (options.antialias()) m = dbl ? antialias_map<double>(in, out, align_corners, s, bicubic)
                                     : antialias_map<float>(in, out, align_corners, s, bicubic);
    else if (mode == InterpolateMode::Nearest || mode == InterpolateMode::NearestExact)
      m = nearest_map(in, out, s, mode == InterpolateMode::NearestExact);
    else if (mode == InterpolateMode::Area) m = dbl ? area_map<double>(in, out) : area_map<float>(in, out);
    else if (bicubic) m = dbl ? cubic_map<double>(in, out, align_corners, s) : cubic_map<float>(in, out, align_corners, s);
    else m = dbl ? linear_map<double>(in, out, align_corners, s) : linear_map<float>(in, out, align_corners, s);
    plan->add(2 + i, std::move(m));
  }
  return detail::resample(input, plan);
}

}  // namespace functional

}  // namespace ember::nn
