#include "ember/nn/functional/dropout.h"

#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/core/tracing_call.h"
#include "ember/ops/functions.h"

namespace ember {

namespace {
Tensor dropout_impl(const Tensor& input, double p, bool train, bool feature, bool alpha, bool inplace);
// Traced (Note [Tracing hooks]): a node that draws its mask at every run.
const tracing::TracedOpDef dropout_traced{{"dropout", tracing::Fusion::Opaque, [](const tracing::TracedOp&, const std::vector<Tensor>& in, const tracing::Attrs& a) -> std::vector<Tensor> {
  return {dropout_impl(in.at(0), tracing::double_attr(a, "p", "dropout"), tracing::bool_attr(a, "train", "dropout"),
                       tracing::bool_attr(a, "feature", "dropout"), tracing::bool_attr(a, "alpha", "dropout"), false)};
}, /*random=*/true}};

// PyTorch's _dropout_impl, for the four kinds: one Bernoulli(1 - p) draw per element (per
// (N, C) channel for feature dropout) into a contiguous noise tensor, in PyTorch's order, so
// that a seeded program drops what LibTorch drops. Plain dropout scales the kept values by
// 1 / (1 - p); alpha dropout computes x * a * keep + b with b = a * alpha' * (p + keep - 1),
// where alpha' = SELU's -scale * alpha and a restores unit variance.
Tensor dropout_impl(const Tensor& input, double p, bool train, bool feature, bool alpha, bool inplace) {
  if (tracing::active() && !inplace)
    return tracing::traced_call(dropout_traced, {input},
                                {{"p", Scalar(p)}, {"train", Scalar(train)}, {"feature", Scalar(feature)}, {"alpha", Scalar(alpha)}},
                                [&] { return dropout_impl(input, p, train, feature, alpha, false); });
  check_defined(input, feature ? "feature_dropout" : "dropout", "input");
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (p == 0 || !train || input.numel() == 0) return input;
  Tensor x = input;
  if (p == 1) return inplace ? x.mul_(zeros({}, input.options().requires_grad(false)))
                             : input.mul(zeros({}, input.options().requires_grad(false)));
  EMBER_CHECK(!feature || input.dim() >= 2, "Feature dropout requires at least 2 dimensions in the input");
  DimVector shape(input.sizes());
  if (feature)
    for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  Tensor noise, shift;
  {
    NoGradGuard g;
    noise = empty(shape, input.options().requires_grad(false), MemoryFormat::Contiguous).bernoulli_(1 - p);
    if (alpha) {
      constexpr double kAlpha = 1.7580993408473766;
      const double a = 1. / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
      shift = noise.add(-1).mul_(kAlpha * a).add_(kAlpha * a * p);
      noise.mul_(a);
    } else {
      noise.div_(1 - p);
    }
  }
  if (!alpha) return inplace ? x.mul_(noise) : input.mul(noise);
  return inplace ? x.mul_(noise).add_(shift) : input.mul(noise).add(shift);
}
}  // namespace

Tensor dropout(const Tensor& input, double p, bool train) { return dropout_impl(input, p, train, false, false, false); }
Tensor dropout_(Tensor& input, double p, bool train) { return dropout_impl(input, p, train, false, false, true); }
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, true, false, false);
}
Tensor feature_dropout_(Tensor& input, double p, bool train) { return dropout_impl(input, p, train, true, false, true); }
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, false, true, false);
}
Tensor alpha_dropout_(Tensor& input, double p, bool train) { return dropout_impl(input, p, train, false, true, true); }
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, true, true, false);
}
Tensor feature_alpha_dropout_(Tensor& input, double p, bool train) {
  return dropout_impl(input, p, train, true, true, true);
}

namespace nn {

namespace functional {
namespace {
// LibTorch's _dropoutNd_helper: an input without its batch dim gets one for the draw, so that
// the noise is per channel either way.
Tensor feature_dropout_nd(Tensor input, double p, bool training, bool inplace, int64_t batched_dim) {
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  const bool batched = input.dim() == batched_dim;
  if (!batched) input = inplace ? input.unsqueeze_(0) : input.unsqueeze(0);
  Tensor r = inplace ? ember::feature_dropout_(input, p, training) : ember::feature_dropout(input, p, training);
  if (!batched) r = inplace ? r.squeeze_(0) : r.squeeze(0);
  return r;
}
}  // namespace

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_defined(input, "dropout", "input");
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  Tensor x = input;
  return inplace ? ember::dropout_(x, p, training) : ember::dropout(input, p, training);
}
Tensor dropout(Tensor input, const DropoutFuncOptions& options) {
  return functional::dropout(input, options.p(), options.training(), options.inplace());
}

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  check_defined(input, "dropout2d", "input");
  return feature_dropout_nd(input, p, training, inplace, 4);
}
Tensor dropout2d(Tensor input, const Dropout2dFuncOptions& options) {
  return functional::dropout2d(input, options.p(), options.training(), options.inplace());
}

Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace) {
  check_defined(input, "dropout3d", "input");
  return feature_dropout_nd(input, p, training, inplace, 5);
}
Tensor dropout3d(Tensor input, const Dropout3dFuncOptions& options) {
  return functional::dropout3d(input, options.p(), options.training(), options.inplace());
}
}  // namespace functional

namespace functional {
Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  Tensor x = input;
  return inplace ? ember::alpha_dropout_(x, p, training) : ember::alpha_dropout(input, p, training);
}
Tensor alpha_dropout(const Tensor& input, const AlphaDropoutFuncOptions& o) {
  return alpha_dropout(input, o.p(), o.training(), o.inplace());
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  Tensor x = input;
  return inplace ? ember::feature_alpha_dropout_(x, p, training) : ember::feature_alpha_dropout(input, p, training);
}
Tensor feature_alpha_dropout(const Tensor& input, const FeatureAlphaDropoutFuncOptions& o) {
  return feature_alpha_dropout(input, o.p(), o.training(), o.inplace());
}
}  // namespace functional

}  // namespace nn
}  // namespace ember
