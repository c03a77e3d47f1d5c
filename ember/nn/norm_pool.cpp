#include "ember/nn/norm_pool.h"

#include <cmath>
#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/init.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  EMBER_CHECK(input.dim() >= 2, "batch_norm: expected an input with at least 2 dims (N, C, ...), got ", input.sizes());
  const int64_t C = input.size(1);
  std::vector<int64_t> dims = {0};
  for (int64_t d = 2; d < input.dim(); ++d) dims.push_back(d);
  DimVector shape(size_t(input.dim()), 1);
  shape[1] = C;
  Tensor mean, var;
  if (training || !running_mean.defined()) {
    int64_t count = input.numel() / std::max<int64_t>(C, 1);
    EMBER_CHECK(count > 1 || !training, "Expected more than 1 value per channel when training, got input size ",
                input.sizes());
    auto [v, m] = var_mean(input, IntArrayRef(dims), std::optional<int64_t>(0), /*keepdim=*/false);
    mean = m;
    var = v;
    if (training && running_mean.defined()) {
      NoGradGuard g;
      Tensor rm = running_mean, rv = running_var;
      rm.mul_(1 - momentum).add_(m.detach(), momentum);
      rv.mul_(1 - momentum).add_(v.detach().mul(double(count) / double(count - 1)), momentum);  // unbiased
    }
  } else {
    mean = running_mean;
    var = running_var;
  }
  // One pass over the input: x * scale + shift, with per-channel scale = w / sqrt(var + eps)
  // and shift = b - mean * scale (the input's layout, e.g. channels-last, is kept).
  Tensor scale = var.add(eps).rsqrt();
  if (weight.defined()) scale = scale.mul(weight);
  Tensor shift = mean.mul(scale).neg();
  if (bias.defined()) shift = shift.add(bias);
  return addcmul(shift.view(shape).to(input.scalar_type()), input, scale.view(shape).to(input.scalar_type()));
}

namespace {
// Output size of a pooling window, PyTorch's rule (ceil_mode windows must start inside
// the input or the left padding).
int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t eff = d * (k - 1) + 1;
  int64_t num = in + 2 * p - eff;
  int64_t out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// (N, C, OH, OW, KH, KW) windows of the input padded with `fill`, and the output size.
Tensor windows(const Tensor& x, IntArrayRef k, IntArrayRef s, IntArrayRef p, IntArrayRef d, bool ceil_mode,
               double fill, int64_t& oh, int64_t& ow) {
  oh = pool_out(x.size(2), k[0], s[0], p[0], d[0], ceil_mode);
  ow = pool_out(x.size(3), k[1], s[1], p[1], d[1], ceil_mode);
  EMBER_CHECK(oh > 0 && ow > 0, "pool2d: the output size is too small (input ", x.sizes(), ", kernel ", k, ")");
  // pad enough on the right for ceil_mode's last window
  const int64_t need_h = (oh - 1) * s[0] + d[0] * (k[0] - 1) + 1, need_w = (ow - 1) * s[1] + d[1] * (k[1] - 1) + 1;
  const int64_t rh = std::max<int64_t>(0, need_h - x.size(2) - p[0]), rw = std::max<int64_t>(0, need_w - x.size(3) - p[1]);
  Tensor xp = constant_pad_nd(x, {p[1], rw, p[0], rh}, fill);
  DimVector sizes = {xp.size(0), xp.size(1), oh, ow, k[0], k[1]};
  DimVector strides = {xp.stride(0), xp.stride(1), xp.stride(2) * s[0], xp.stride(3) * s[1], xp.stride(2) * d[0],
                       xp.stride(3) * d[1]};
  return xp.as_strided(sizes, strides, xp.storage_offset());
}

void pool_args(IntArrayRef kernel, IntArrayRef stride_in, IntArrayRef padding, std::vector<int64_t>& k,
               std::vector<int64_t>& s, std::vector<int64_t>& p, const char* op) {
  k.assign(kernel.begin(), kernel.end());
  if (k.size() == 1) k.push_back(k[0]);
  s.assign(stride_in.begin(), stride_in.end());
  if (s.empty()) s = k;
  if (s.size() == 1) s.push_back(s[0]);
  p.assign(padding.begin(), padding.end());
  if (p.size() == 1) p.push_back(p[0]);
  EMBER_CHECK(k.size() == 2 && s.size() == 2 && p.size() == 2, op, ": expected 2 values for kernel, stride, padding");
  for (int i = 0; i < 2; ++i) {
    EMBER_CHECK(k[i] > 0 && s[i] > 0, op, ": kernel and stride must be positive");
    EMBER_CHECK(p[i] <= k[i] / 2, op, ": pad should be at most half of effective kernel size, but got pad=", p[i],
                ", kernel_size=", k[i]);
  }
}
}  // namespace

Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "max_pool2d: expected 3D or 4D input, got ", input.sizes());
  Tensor x = input.dim() == 3 ? input.unsqueeze(0) : input;
  std::vector<int64_t> k, s, p, d(dilation.begin(), dilation.end());
  pool_args(kernel_size, stride, padding, k, s, p, "max_pool2d");
  if (d.size() == 1) d.push_back(d[0]);
  int64_t oh, ow;
  Tensor win = windows(x, k, s, p, d, ceil_mode, -INFINITY, oh, ow);
  Tensor out = win.amax(IntArrayRef{-2, -1});
  return input.dim() == 3 ? out.squeeze(0) : out;
}

Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, "avg_pool2d: expected 3D or 4D input, got ", input.sizes());
  Tensor x = input.dim() == 3 ? input.unsqueeze(0) : input;
  std::vector<int64_t> k, s, p;
  pool_args(kernel_size, stride, padding, k, s, p, "avg_pool2d");
  int64_t oh, ow;
  Tensor win = windows(x, k, s, p, {1, 1}, ceil_mode, 0.0, oh, ow);
  Tensor sum = win.sum(IntArrayRef{-2, -1});
  // divisor per window: the padded window clipped to input + padding (count_include_pad),
  // or to the input alone
  Tensor ones_in = ones({1, 1, x.size(2), x.size(3)}, x.options().requires_grad(false));
  Tensor ones_pad = count_include_pad ? constant_pad_nd(ones_in, {p[1], p[1], p[0], p[0]}, 1.0)
                                      : constant_pad_nd(ones_in, {p[1], p[1], p[0], p[0]}, 0.0);
  int64_t oh2, ow2;
  Tensor cnt = windows(ones_pad, k, s, {0, 0}, {1, 1}, ceil_mode, 0.0, oh2, ow2).sum(IntArrayRef{-2, -1});
  Tensor out = sum.div(cnt.narrow(2, 0, oh).narrow(3, 0, ow));
  return input.dim() == 3 ? out.squeeze(0) : out;
}
}  // namespace functional

template <size_t D, class Derived>
BatchNormImplBase<D, Derived>::BatchNormImplBase(const BatchNormOptions& options_) : options(options_) {
  reset();
}
template <size_t D, class Derived>
void BatchNormImplBase<D, Derived>::reset() {
  const int64_t C = options.num_features();
  if (options.affine()) {
    weight = this->register_parameter("weight", ember::ones({C}));
    bias = this->register_parameter("bias", ember::zeros({C}));
  } else {
    weight = this->register_parameter("weight", Tensor(), false);
    bias = this->register_parameter("bias", Tensor(), false);
  }
  if (options.track_running_stats()) {
    running_mean = this->register_buffer("running_mean", ember::zeros({C}));
    running_var = this->register_buffer("running_var", ember::ones({C}));
    num_batches_tracked = this->register_buffer("num_batches_tracked", ember::zeros({}, dtype(kLong)));
  } else {
    running_mean = this->register_buffer("running_mean", Tensor());
    running_var = this->register_buffer("running_var", Tensor());
    num_batches_tracked = this->register_buffer("num_batches_tracked", Tensor());
  }
}
template <size_t D, class Derived>
void BatchNormImplBase<D, Derived>::reset_running_stats() {
  if (!options.track_running_stats()) return;
  NoGradGuard g;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}
template <size_t D, class Derived>
void BatchNormImplBase<D, Derived>::pretty_print(std::ostream& s) const {
  s << "torch::nn::BatchNorm" << D << "d(" << options.num_features() << ", eps=" << options.eps()
    << ", momentum=" << options.momentum().value_or(-1) << ", affine=" << (options.affine() ? "true" : "false")
    << ", track_running_stats=" << (options.track_running_stats() ? "true" : "false") << ")";
}
template <size_t D, class Derived>
Tensor BatchNormImplBase<D, Derived>::forward(const Tensor& input) {
  if constexpr (D == 1)
    EMBER_CHECK(input.dim() == 2 || input.dim() == 3, "BatchNorm1d: expected 2D or 3D input (got ", input.dim(),
                "D input)");
  else
    EMBER_CHECK(input.dim() == 4, "BatchNorm2d: expected 4D input (got ", input.dim(), "D input)");
  double momentum = options.momentum().value_or(0.0);
  const bool training = this->is_training();
  if (training && options.track_running_stats()) {
    NoGradGuard g;
    num_batches_tracked.add_(1);
    if (!options.momentum()) momentum = 1.0 / double(num_batches_tracked.template item<int64_t>());
  }
  const bool use_batch = training || !options.track_running_stats();
  return functional::batch_norm(input, use_batch && !training ? Tensor() : running_mean,
                                use_batch && !training ? Tensor() : running_var, weight, bias, use_batch, momentum,
                                options.eps());
}
template class BatchNormImplBase<1, BatchNorm1dImpl>;
template class BatchNormImplBase<2, BatchNorm2dImpl>;

void MaxPool2dImpl::pretty_print(std::ostream& s) const { s << "torch::nn::MaxPool2d"; }
Tensor MaxPool2dImpl::forward(const Tensor& input) {
  return functional::max_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.dilation(),
                                options.ceil_mode());
}
void AvgPool2dImpl::pretty_print(std::ostream& s) const { s << "torch::nn::AvgPool2d"; }
Tensor AvgPool2dImpl::forward(const Tensor& input) {
  return functional::avg_pool2d(input, options.kernel_size(), options.stride(), options.padding(), options.ceil_mode(),
                                options.count_include_pad());
}

}  // namespace ember::nn
