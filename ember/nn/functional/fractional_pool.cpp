// Fractional max pooling (Graham, 2014): pooling windows of a fixed size placed at
// pseudo-random, non-overlapping-on-average offsets drawn from one uniform sample per plane and
// dimension (PyTorch's interval rule), for 2-d and 3-d inputs, batched or not. The windows are
// gathered from the input, so autograd follows the maxima as for max_pool.
// The fractional functionals of ember/nn/functional/pooling.h; FractionalMaxPool2d/3d are in
// ember/nn/modules/pooling.cpp.
#include "ember/nn/functional/pooling.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember {

namespace {
// PyTorch's generate_intervals: output_size window starts in [0, input - pool], computed in
// the samples' precision.
template <class T>
void intervals(T sample, int64_t input, int64_t output, int64_t pool, int64_t* out) {
  if (output > 1) {
    const T alpha = T(input - pool) / T(output - 1);
    for (int64_t i = 0; i < output - 1; ++i) out[i] = int64_t(int((T(i) + sample) * alpha) - int(sample * alpha));
  }
  if (output > 0) out[output - 1] = input - pool;
}

// D spatial dims; x is batched [N, C, spatial...]. samples [N, C, D] give one sample per dim in
// PyTorch's order (2-d: W then H; 3-d: T, H, W).
std::tuple<Tensor, Tensor> fractional_pool(const char* op, const Tensor& x, IntArrayRef kernel, IntArrayRef output,
                                           const Tensor& samples, int D) {
  const int64_t N = x.size(0), C = x.size(1);
  std::vector<int64_t> in(static_cast<size_t>(D)), ks(kernel.begin(), kernel.end()), os(output.begin(), output.end());
  int64_t plane = 1, window = 1, outs = 1;
  for (int d = 0; d < D; ++d) {
    in[size_t(d)] = x.size(2 + d);
    static const char* kNames[3] = {"time", "height", "width"};
    const char* name = kNames[3 - D + d];
    EMBER_CHECK(os[size_t(d)] + ks[size_t(d)] - 1 <= in[size_t(d)], op, "(): pool ", name, " ", ks[size_t(d)],
                " too large relative to input ", name, " ", in[size_t(d)]);
    plane *= in[size_t(d)], window *= ks[size_t(d)], outs *= os[size_t(d)];
  }
  EMBER_CHECK(samples.dim() == 3 && samples.size(0) == N && samples.size(1) == C && samples.size(2) == D, op,
              ": expected _random_samples of shape [", N, ", ", C, ", ", D, "], got ", samples.sizes());
  // Window starts per plane and dim, then the flat input index of every (output, offset).
  Tensor index = ember::empty({N, C, outs * window}, TensorOptions().dtype(kLong));
  int64_t* idx = index.data_ptr<int64_t>();
  const Tensor s = samples.detach().to(x.scalar_type() == kDouble ? kDouble : kFloat).contiguous();
  std::vector<std::vector<int64_t>> starts(static_cast<size_t>(D));
  for (int64_t p = 0; p < N * C; ++p) {
    for (int d = 0; d < D; ++d) {
      // 2-d samples are (W, H); 3-d (T, H, W).
      const int64_t which = D == 2 ? 1 - d : d;
      starts[size_t(d)].assign(size_t(os[size_t(d)]), 0);
      if (s.scalar_type() == kDouble)
        intervals(s.data_ptr<double>()[p * D + which], in[size_t(d)], os[size_t(d)], ks[size_t(d)],
                  starts[size_t(d)].data());
      else
        intervals(s.data_ptr<float>()[p * D + which], in[size_t(d)], os[size_t(d)], ks[size_t(d)],
                  starts[size_t(d)].data());
    }
    int64_t* w = idx + p * outs * window;
    std::vector<int64_t> o(size_t(D), 0), k(size_t(D), 0);
    for (int64_t oi = 0; oi < outs; ++oi) {
      int64_t rem = oi;
      for (int d = D - 1; d >= 0; --d) o[size_t(d)] = rem % os[size_t(d)], rem /= os[size_t(d)];
      for (int64_t ki = 0; ki < window; ++ki) {
        int64_t r = ki, flat = 0;
        for (int d = D - 1; d >= 0; --d) k[size_t(d)] = r % ks[size_t(d)], r /= ks[size_t(d)];
        for (int d = 0; d < D; ++d) flat = flat * in[size_t(d)] + starts[size_t(d)][size_t(o[size_t(d)])] + k[size_t(d)];
        *w++ = flat;
      }
    }
  }
  std::vector<int64_t> out_shape{N, C};
  out_shape.insert(out_shape.end(), os.begin(), os.end());
  const Tensor vals = x.reshape({N, C, plane}).gather(2, index).view({N, C, outs, window});
  auto [best, arg] = vals.max(-1);
  const Tensor where = index.view({N, C, outs, window}).gather(-1, arg.unsqueeze(-1)).squeeze(-1);
  return {best.view(out_shape), where.view(out_shape)};
}

std::tuple<Tensor, Tensor> fractional_pool_entry(const char* op, const Tensor& input, IntArrayRef kernel,
                                                 IntArrayRef output, const Tensor& samples, int D) {
  check_defined(input, op, "input");
  EMBER_CHECK(input.dim() == D + 1 || input.dim() == D + 2, op, "(): Expected ", D + 1, "D or ", D + 2,
              "D tensor, but got: ", input.sizes());
  for (int64_t i = 1; i < input.dim(); ++i)
    EMBER_CHECK(input.size(i) > 0, op, "(): Expected input to have non-zero size for non-batch dimensions, but got ",
                input.sizes(), " with dimension ", i, " being empty.");
  const bool batched = input.dim() == D + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  auto [out, idx] = fractional_pool(op, x, kernel, output, samples, D);
  if (!batched) return {out.squeeze(0), idx.squeeze(0)};
  return {out, idx};
}
}  // namespace

std::tuple<Tensor, Tensor> fractional_max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return fractional_pool_entry("fractional_max_pool2d", input, kernel_size, output_size, random_samples, 2);
}
std::tuple<Tensor, Tensor> fractional_max_pool3d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef output_size,
                                                 const Tensor& random_samples) {
  return fractional_pool_entry("fractional_max_pool3d", input, kernel_size, output_size, random_samples, 3);
}

namespace nn {
namespace functional {
namespace {
template <size_t D>
std::tuple<Tensor, Tensor> fractional_with_options(const Tensor& input, const FractionalMaxPoolOptions<D>& o) {
  check_defined(input, D == 2 ? "fractional_max_pool2d" : "fractional_max_pool3d", "input");
  EMBER_CHECK(o.output_size() || o.output_ratio(), "FractionalMaxPool", D, "d requires specifying either ",
              "an output size, or a pooling ratio");
  std::vector<int64_t> output;
  if (o.output_size()) {
    output.assign((*o.output_size())->begin(), (*o.output_size())->end());
  } else {
    for (size_t d = 0; d < D; ++d)
      output.push_back(int64_t(double(input.size(input.dim() - int64_t(D) + int64_t(d))) * (*o.output_ratio())->at(d)));
  }
  Tensor samples = o._random_samples();
  if (!samples.defined()) {
    const int64_t n_batch = input.dim() == int64_t(D) + 1 ? 1 : input.size(0);
    samples = ember::rand({n_batch, input.size(-int64_t(D) - 1), int64_t(D)}, input.options().requires_grad(false));
  }
  const std::vector<int64_t> kernel((*o.kernel_size()).begin(), (*o.kernel_size()).end());
  return D == 2 ? ember::fractional_max_pool2d(input, kernel, output, samples)
                : ember::fractional_max_pool3d(input, kernel, output, samples);
}
}  // namespace
std::tuple<Tensor, Tensor> fractional_max_pool2d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool2dFuncOptions& options) {
  return fractional_with_options<2>(input, options);
}
Tensor fractional_max_pool2d(const Tensor& input, const FractionalMaxPool2dFuncOptions& options) {
  return std::get<0>(fractional_with_options<2>(input, options));
}
std::tuple<Tensor, Tensor> fractional_max_pool3d_with_indices(const Tensor& input,
                                                              const FractionalMaxPool3dFuncOptions& options) {
  return fractional_with_options<3>(input, options);
}
Tensor fractional_max_pool3d(const Tensor& input, const FractionalMaxPool3dFuncOptions& options) {
  return std::get<0>(fractional_with_options<3>(input, options));
}
}  // namespace functional

}  // namespace nn
}  // namespace ember
