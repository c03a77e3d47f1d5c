#include "ember/nn/init.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::nn::init {

double calculate_gain(Nonlinearity n, double param) {
  switch (n) {
    case Nonlinearity::Tanh: return 5.0 / 3;
    case Nonlinearity::ReLU: return std::sqrt(2.0);
    case Nonlinearity::LeakyReLU: return std::sqrt(2.0 / (1 + param * param));
    case Nonlinearity::SELU: return 3.0 / 4;
    default: return 1.0;  // linear, conv*, sigmoid
  }
}

std::tuple<int64_t, int64_t> _calculate_fan_in_and_fan_out(const Tensor& tensor) {
  EMBER_CHECK(tensor.dim() >= 2, "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < tensor.dim(); ++d) receptive *= tensor.size(d);
  return {tensor.size(1) * receptive, tensor.size(0) * receptive};
}

namespace {
double fan(const Tensor& t, FanMode mode) {
  auto [in, out] = _calculate_fan_in_and_fan_out(t);
  return double(mode == FanMode::FanIn ? in : out);
}
}  // namespace

Tensor uniform_(Tensor tensor, double low, double high) {
  NoGradGuard g;
  return tensor.uniform_(low, high);
}
Tensor normal_(Tensor tensor, double mean, double std) {
  NoGradGuard g;
  return tensor.normal_(mean, std);
}
Tensor constant_(Tensor tensor, Scalar value) {
  NoGradGuard g;
  return tensor.fill_(value);
}
Tensor zeros_(Tensor tensor) { return constant_(tensor, 0); }
Tensor ones_(Tensor tensor) { return constant_(tensor, 1); }

Tensor eye_(Tensor matrix) {
  NoGradGuard g;
  EMBER_CHECK(matrix.dim() == 2, "Only tensors with 2 dimensions are supported");
  matrix.zero_();
  matrix.diagonal().fill_(1);
  return matrix;
}

Tensor dirac_(Tensor tensor) {
  NoGradGuard g;
  const int64_t nd = tensor.dim();
  EMBER_CHECK(nd >= 3 && nd <= 5, "Only tensors with 3, 4, or 5 dimensions are supported");
  tensor.zero_();
  const int64_t n = std::min(tensor.size(0), tensor.size(1));
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = tensor.select(0, i).select(0, i);
    const int64_t spatial = t.dim();
    for (int64_t d = 0; d < spatial; ++d) t = t.select(0, t.size(0) / 2);
    t.fill_(1);
  }
  return tensor;
}

Tensor xavier_uniform_(Tensor tensor, double gain) {
  auto [in, out] = _calculate_fan_in_and_fan_out(tensor);
  const double std = gain * std::sqrt(2.0 / double(in + out));
  const double a = std::sqrt(3.0) * std;
  return init::uniform_(tensor, -a, a);
}
Tensor xavier_normal_(Tensor tensor, double gain) {
  auto [in, out] = _calculate_fan_in_and_fan_out(tensor);
  return init::normal_(tensor, 0, gain * std::sqrt(2.0 / double(in + out)));
}

Tensor kaiming_uniform_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  const double std = calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode));
  const double bound = std::sqrt(3.0) * std;
  return init::uniform_(tensor, -bound, bound);
}
Tensor kaiming_normal_(Tensor tensor, double a, FanMode mode, Nonlinearity nonlinearity) {
  return init::normal_(tensor, 0, calculate_gain(nonlinearity, a) / std::sqrt(fan(tensor, mode)));
}

// As LibTorch: QR of a float standard normal matrix, signs fixed by R's diagonal.
Tensor orthogonal_(Tensor tensor, double gain) {
  NoGradGuard g;
  EMBER_CHECK(tensor.dim() >= 2, "Only tensors with 2 or more dimensions are supported");
  const int64_t rows = tensor.size(0), cols = tensor.numel() / rows;
  Tensor flat = randn({rows, cols});
  if (rows < cols) flat = flat.t();
  auto [q, r] = linalg::qr(flat);
  q = q.mul(diag(r, 0).sign());  // uniform over the orthogonal group
  if (rows < cols) q = q.t();
  tensor.view_as(q).copy_(q);
  tensor.mul_(gain);
  return tensor;
}

// As LibTorch: normal values, then ceil(sparsity * rows) zeros per column at randperm's rows.
Tensor sparse_(Tensor tensor, double sparsity, double std) {
  NoGradGuard g;
  EMBER_CHECK(tensor.dim() == 2, "Only tensors with 2 dimensions are supported");
  const int64_t rows = tensor.size(0), cols = tensor.size(1);
  const auto num_zeros = int64_t(std::ceil(sparsity * double(rows)));
  tensor.normal_(0, std);
  for (int64_t c = 0; c < cols; ++c) {
    Tensor zero_rows = randperm(rows, dtype(kLong)).slice(0, 0, num_zeros);
    tensor.select(1, c).index_fill_(0, zero_rows, 0);
  }
  return tensor;
}

// As PyTorch's (Python) trunc_normal_: inverse-CDF sampling in the tensor's own dtype.
Tensor trunc_normal_(Tensor tensor, double mean, double std, double a, double b) {
  NoGradGuard g;
  auto norm_cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double l = norm_cdf((a - mean) / std), u = norm_cdf((b - mean) / std);
  tensor.uniform_(2 * l - 1, 2 * u - 1);
  tensor.erfinv_();
  tensor.mul_(std * std::sqrt(2.0));
  tensor.add_(mean);
  tensor.clamp_(a, b);
  return tensor;
}

}  // namespace ember::nn::init
