// Window functions for spectral analysis (torch::hann_window, hamming_window, blackman_window,
// bartlett_window, kaiser_window), computed as PyTorch 1.13 computes them; `periodic` windows
// are the symmetric window one longer, without its last point (what stft expects).
#include <cmath>

#include "ember/ops/functions.h"

namespace ember {

namespace {
// Checks the length and dtype; returns the length to compute (one more when periodic), or -1
// when the answer is trivial (written to `trivial`).
int64_t window_setup(const char* op, int64_t n, bool periodic, const TensorOptions& o, Tensor& trivial) {
  EMBER_CHECK(n >= 0, op, " requires non-negative window_length, got window_length=", n);
  const ScalarType t = o.dtype();
  EMBER_CHECK_TYPE(isFloatingType(t), op, " expects floating point dtypes, got: ", t);
  if (n == 0) {
    trivial = empty({0}, o.dtype(t));
    return -1;
  }
  if (n == 1) {
    trivial = ones({1}, o.dtype(t));
    return -1;
  }
  return periodic ? n + 1 : n;
}
Tensor finish(Tensor w, bool periodic, const TensorOptions& o) {
  if (periodic) w = w.narrow(0, 0, w.size(0) - 1);
  if (o.requires_grad()) w.requires_grad_(true);
  return w;
}
TensorOptions no_grad(const TensorOptions& o) {
  TensorOptions r = o.requires_grad(false);
  return r.has_dtype() ? r : r.dtype(get_default_dtype());
}
}  // namespace

Tensor hamming_window(int64_t window_length, bool periodic, double alpha, double beta, const TensorOptions& options) {
  Tensor trivial;
  const int64_t n = window_setup("hamming_window", window_length, periodic, options, trivial);
  if (n < 0) return trivial;
  Tensor w = arange(n, no_grad(options));
  w.mul_(M_PI * 2. / double(n - 1)).cos_().mul_(-beta).add_(alpha);
  return finish(w, periodic, options);
}
Tensor hamming_window(int64_t window_length, const TensorOptions& options) {
  return hamming_window(window_length, true, 0.54, 0.46, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return hamming_window(window_length, periodic, 0.54, 0.46, options);
}
Tensor hamming_window(int64_t window_length, bool periodic, double alpha, const TensorOptions& options) {
  return hamming_window(window_length, periodic, alpha, 0.46, options);
}
Tensor hann_window(int64_t window_length, const TensorOptions& options) {
  return hann_window(window_length, true, options);
}
Tensor hann_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  EMBER_CHECK(window_length >= 0, "hann_window requires non-negative window_length, got window_length=",
              window_length);
  return hamming_window(window_length, periodic, 0.5, 0.5, options);
}
Tensor blackman_window(int64_t window_length, const TensorOptions& options) {
  return blackman_window(window_length, true, options);
}
Tensor blackman_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  Tensor trivial;
  const int64_t n = window_setup("blackman_window", window_length, periodic, options, trivial);
  if (n < 0) return trivial;
  Tensor w = arange(n, no_grad(options)).mul_(M_PI / double(n - 1));
  w = w.mul(4).cos_().mul_(0.08).sub(w.mul(2).cos_().mul_(0.5)).add(0.42);
  return finish(w, periodic, options);
}
Tensor bartlett_window(int64_t window_length, const TensorOptions& options) {
  return bartlett_window(window_length, true, options);
}
Tensor bartlett_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  Tensor trivial;
  const int64_t n = window_setup("bartlett_window", window_length, periodic, options, trivial);
  if (n < 0) return trivial;
  Tensor w = arange(n, no_grad(options)).mul_(2. / double(n - 1));
  const int64_t first_half = ((n - 1) >> 1) + 1;
  w.narrow(0, first_half, n - first_half).mul_(-1).add_(2);
  return finish(w, periodic, options);
}
Tensor kaiser_window(int64_t window_length, const TensorOptions& options) {
  return kaiser_window(window_length, true, 12.0, options);
}
Tensor kaiser_window(int64_t window_length, bool periodic, const TensorOptions& options) {
  return kaiser_window(window_length, periodic, 12.0, options);
}
Tensor kaiser_window(int64_t window_length, bool periodic, double beta, const TensorOptions& options) {
  Tensor trivial;
  const int64_t n = window_setup("kaiser_window", window_length, periodic, options, trivial);
  if (n < 0) return trivial;
  const TensorOptions o = no_grad(options);
  const double a = double(n - 1) / 2.0;
  const Tensor x = arange(n, o.dtype(kDouble)).sub(a).div(a);
  Tensor w = x.square().neg().add(1).sqrt().mul(beta).i0().div(std::cyl_bessel_i(0.0, beta)).to(o.dtype());
  return finish(w, periodic, options);
}

}  // namespace ember
