// functional::grid_sample as a composite of differentiable ops: grid coordinates are
// unnormalized and mapped by the padding mode (aten/src/ATen/native/GridSampler.h, with
// its gradient conventions: clipped borders pass no gradient, reflections flip its sign),
// then the corner values are gathered from the flattened input and blended. Bilinear and
// nearest for 4-D and 5-D inputs, bicubic (A = -0.75) for 4-D.
// affine_grid: a batched matmul on a base grid.
#include "ember/nn/functional/vision.h"

#include <array>
#include <cmath>

#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"

namespace ember::nn::functional {

namespace {
using PaddingMode = GridSamplePaddingMode;

// grid value in [-1, 1] -> pixel coordinate.
Tensor unnormalize(const Tensor& c, int64_t size, bool align_corners) {
  return align_corners ? c.add(1).div(2).mul(double(size - 1)) : c.add(1).mul(double(size)).sub(1).div(2);
}

// Clamps to [0, size - 1]; the borders count as outside for the gradient, as PyTorch.
Tensor clip(const Tensor& c, int64_t size) {
  const Tensor inside = c.gt(0).logical_and(c.lt(double(size - 1)));
  return where(inside, c, c.clamp(0.0, double(size - 1)).detach());
}

// Reflects c into [twice_low / 2, twice_high / 2].
Tensor reflect(const Tensor& c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return zeros_like(c);
  const double lo = double(twice_low) / 2, span = double(twice_high - twice_low) / 2;
  const Tensor a = c.sub(lo).abs(), extra = a.fmod(span);
  const Tensor odd = a.div(span).floor().detach().fmod(2).eq(1);
  return where(odd, extra.neg().add(span + lo), extra.add(lo));
}

Tensor apply_padding(const Tensor& c, int64_t size, PaddingMode mode, bool align_corners) {
  if (mode == PaddingMode::Border) return clip(c, size);
  if (mode == PaddingMode::Reflection)
    return clip(align_corners ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1), size);
  return c;
}

// Keys' cubic convolution weights of the 4 taps around a point at fraction t.
std::array<Tensor, 4> cubic_weights(const Tensor& t) {
  const double A = -0.75;
  auto near = [&](const Tensor& x) { return x.mul(A + 2).sub(A + 3).mul(x).mul(x).add(1); };
  auto far = [&](const Tensor& x) { return x.mul(A).sub(5 * A).mul(x).add(8 * A).mul(x).sub(4 * A); };
  const Tensor u = t.neg().add(1);
  return {far(t.add(1)), near(t), near(u), far(u.add(1))};
}
}  // namespace

Tensor grid_sample(const Tensor& input, const Tensor& grid, const GridSampleFuncOptions& options) {
  EMBER_AUTOCAST(grid_sampler, grid_sample(_ac[0], _ac[1], options), &input, &grid);
  const int64_t nd = input.dim(), d = nd - 2;
  EMBER_CHECK(nd >= 1 && grid.dim() >= 1 && input.size(0) == grid.size(0), "grid_sampler(): expected grid and input "
              "to have same batch size, but got input with sizes ", input.sizes(), " and grid with sizes ", grid.sizes());
  EMBER_CHECK(grid.size(-1) == d, "grid_sampler(): expected grid to have size ", d,
              " in last dimension, but got grid with sizes ", grid.sizes());
  for (int64_t i = 2; i < nd; ++i)
    EMBER_CHECK(input.size(i) > 0, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has "
                "sizes ", input.sizes(), " with dimension ", i, " being empty");
  EMBER_CHECK((d == 2 || d == 3) && grid.dim() == nd, "grid_sampler(): expected ", d == 2 ? 4 : 5,
              "D input and grid with same number of dimensions, but got input with sizes ", input.sizes(),
              " and grid with sizes ", grid.sizes());
  const GridSampleMode mode = options.mode();
  EMBER_CHECK(mode != GridSampleMode::Bicubic || d == 2, "grid_sampler(): bicubic interpolation only supports 4D input");
  EMBER_CHECK_TYPE(input.is_floating_point(), "\"grid_sampler_", d, "d_cpu\" not implemented for '",
                   input.scalar_type(), "'");
  EMBER_CHECK_TYPE(grid.scalar_type() == input.scalar_type(), "expected scalar type ", input.scalar_type(),
                   " but found ", grid.scalar_type());
  const bool align = options.align_corners().value_or(false);
  const PaddingMode padding = options.padding_mode();
  const int64_t n = input.size(0), c = input.size(1);
  DimVector spatial(input.sizes().begin() + 2, input.sizes().end()), out_shape{n, c};
  for (int64_t i = 1; i < nd - 1; ++i) out_shape.push_back(grid.size(i));
  int64_t points = 1, volume = 1;
  for (int64_t i = 0; i < d; ++i) points *= grid.size(1 + i), volume *= spatial[i];
  const Tensor flat = input.reshape({n, c, volume}), g = grid.reshape({n, points, d});
  // coordinate along input dim 2 + j comes from grid component d - 1 - j
  std::vector<Tensor> coord(static_cast<size_t>(d));
  for (int64_t j = 0; j < d; ++j) coord[j] = unnormalize(g.select(2, d - 1 - j), spatial[j], align);

  // Sum of weight * input at integer positions idx (N, points) per dim; out-of-range taps read 0.
  Tensor out;
  auto accumulate = [&](const std::vector<Tensor>& idx, Tensor weight) {
    Tensor valid, lin = zeros({n, points}, dtype(kLong));
    for (int64_t j = 0; j < d; ++j) {
      const Tensor ok = idx[j].ge(0).logical_and(idx[j].lt(spatial[j]));
      valid = valid.defined() ? valid.logical_and(ok) : ok;
      lin = lin.mul(spatial[j]).add(idx[j].clamp(int64_t(0), spatial[j] - 1));
    }
    weight = where(valid, weight, zeros_like(weight));
    const Tensor v = flat.gather(2, lin.unsqueeze(1).expand({n, c, points})).mul(weight.unsqueeze(1));
    out = out.defined() ? out.add(v) : v;
  };

  if (mode == GridSampleMode::Bicubic) {
    // taps at floor(x) - 1 .. floor(x) + 2, each mapped by the padding mode
    std::vector<Tensor> base(2);
    std::vector<std::array<Tensor, 4>> w(2);
    for (int64_t j = 0; j < 2; ++j) {
      base[j] = coord[j].floor().detach();
      w[j] = cubic_weights(coord[j].sub(base[j]));
    }
    for (int64_t a = 0; a < 4; ++a)
      for (int64_t b = 0; b < 4; ++b) {
        std::vector<Tensor> idx(2);
        for (int64_t j = 0; j < 2; ++j) {
          const Tensor tap = base[j].add(double((j == 0 ? a : b) - 1));
          idx[j] = apply_padding(tap, spatial[j], padding, align).trunc().to(kLong);
        }
        accumulate(idx, w[0][a].mul(w[1][b]));
      }
  } else {
    for (int64_t j = 0; j < d; ++j) coord[j] = apply_padding(coord[j], spatial[j], padding, align);
    if (mode == GridSampleMode::Nearest) {
      std::vector<Tensor> idx(static_cast<size_t>(d));
      for (int64_t j = 0; j < d; ++j) idx[j] = coord[j].detach().round().to(kLong);
      accumulate(idx, ones({n, points}, input.options()));
    } else {
      std::vector<Tensor> lo(static_cast<size_t>(d)), frac(static_cast<size_t>(d));
      for (int64_t j = 0; j < d; ++j) {
        const Tensor f = coord[j].floor().detach();
        lo[j] = f.to(kLong);
        frac[j] = coord[j].sub(f);
      }
      for (int64_t corner = 0; corner < (int64_t(1) << d); ++corner) {
        std::vector<Tensor> idx(static_cast<size_t>(d));
        Tensor weight;
        for (int64_t j = 0; j < d; ++j) {
          const bool hi = (corner >> j) & 1;
          idx[j] = hi ? lo[j].add(1) : lo[j];
          const Tensor wj = hi ? frac[j] : frac[j].neg().add(1);
          weight = weight.defined() ? weight.mul(wj) : wj;
        }
        accumulate(idx, weight);
      }
    }
  }
  return out.view(out_shape);
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

}  // namespace ember::nn::functional
