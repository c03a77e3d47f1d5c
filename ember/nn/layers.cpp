#include "ember/nn/layers.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/init.h"
#include "ember/ops/functions.h"
#include <cmath>

namespace ember {

namespace {
// PyTorch's _dropout_impl, for the four kinds: one Bernoulli(1 - p) draw per element (per
// (N, C) channel for feature dropout) into a contiguous noise tensor, in PyTorch's order, so
// that a seeded program drops what LibTorch drops. Plain dropout scales the kept values by
// 1 / (1 - p); alpha dropout computes x * a * keep + b with b = a * alpha' * (p + keep - 1),
// where alpha' = SELU's -scale * alpha and a restores unit variance.
Tensor dropout_impl(const Tensor& input, double p, bool train, bool feature, bool alpha, bool inplace) {
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

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const int64_t k = int64_t(normalized_shape.size());
  EMBER_CHECK(k >= 1 && input.dim() >= k, "layer_norm: normalized_shape ", normalized_shape,
              " does not fit input of shape ", input.sizes());
  EMBER_CHECK(input.sizes().slice(size_t(input.dim() - k)) == normalized_shape, "layer_norm: Given normalized_shape=",
              normalized_shape, ", expected input with shape [*, ", normalized_shape, "], but got input of size ",
              input.sizes());
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - k; d < input.dim(); ++d) dims.push_back(d);
  auto [var, mean] = var_mean(input, IntArrayRef(dims), std::optional<int64_t>(0), /*keepdim=*/true);
  Tensor out = input.sub(mean).mul(var.add(eps).rsqrt());
  if (weight.defined()) out = out.mul(weight);
  if (bias.defined()) out = out.add(bias);
  return out;
}
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return functional::layer_norm(input, IntArrayRef(options.normalized_shape()), options.weight(), options.bias(),
                                options.eps());
}

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm, double norm_type, bool scale_grad_by_freq, bool /*sparse*/) {
  check_defined(input, "embedding", "input");
  check_defined(weight, "embedding", "weight");
  EMBER_CHECK_TYPE(input.scalar_type() == kLong || input.scalar_type() == kInt,
                   "embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                   "Long, Int; but got ", input.scalar_type());
  EMBER_CHECK(weight.dim() == 2, "embedding: weight must be 2-D, got ", weight.sizes());
  if (padding_idx) {
    const int64_t n = weight.size(0);
    EMBER_CHECK(*padding_idx < n && *padding_idx >= -n, "embedding: Padding_idx must be within num_embeddings");
    if (*padding_idx < 0) *padding_idx += n;
  }
  Tensor idx = input.reshape({-1}).to(kLong);
  if (idx.numel() > 0) {  // checked here so that the error names embedding, not index_select
    const auto [lo, hi] = aminmax(idx);
    const int64_t min = lo.item<int64_t>(), max = hi.item<int64_t>();
    EMBER_CHECK_INDEX(min >= 0 && max < weight.size(0), "embedding: index out of range in self (index ",
                      min < 0 ? min : max, " with num_embeddings ", weight.size(0), ")");
  }
  if (max_norm) {
    // The referenced rows are renormalized in place to max_norm, as PyTorch's embedding_renorm_.
    NoGradGuard g;
    Tensor w = weight;
    Tensor ids = std::get<0>(_unique(idx));
    Tensor rows = w.index_select(0, ids);
    Tensor norms = linalg::vector_norm(rows, norm_type, IntArrayRef{1}, true);
    Tensor scale = where(norms.gt(*max_norm), norms.add(1e-7).reciprocal().mul(*max_norm), ones_like(norms));
    w.index_copy_(0, ids, rows.mul(scale));
  }
  Tensor out = weight.index_select(0, idx);
  if (scale_grad_by_freq && out.requires_grad()) {
    // Each row's gradient is divided by how often its index occurs in the input.
    Tensor scale;
    {
      NoGradGuard g;
      Tensor count = zeros({weight.size(0)}, weight.options().requires_grad(false))
                         .index_add(0, idx, ones({idx.numel()}, weight.options().requires_grad(false)));
      scale = count.index_select(0, idx).reciprocal().unsqueeze(1);
    }
    out.register_hook([scale](const Tensor& grad) { return grad.mul(scale); });
  }
  if (padding_idx) {
    // The padding row receives no gradient (PyTorch's rule).
    Tensor pad = idx.eq(*padding_idx).unsqueeze(1);
    out = where(pad, out.detach(), out);
  }
  DimVector shape(input.sizes());
  shape.push_back(weight.size(1));
  return out.view(shape);
}
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options) {
  return functional::embedding(input, weight, options.padding_idx(), options.max_norm(), options.norm_type(),
                               options.scale_grad_by_freq(), options.sparse());
}

namespace {
Tensor normalize_denominator(const Tensor& input, double p, int64_t dim, double eps) {
  int64_t d = dim;
  return linalg::vector_norm(input, p, IntArrayRef(&d, 1), /*keepdim=*/true).clamp_min(eps).expand_as(input);
}
}  // namespace
Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  return input.div(normalize_denominator(input, p, dim, eps));
}
Tensor normalize(const Tensor& input, NormalizeFuncOptions options) {
  if (!options.out()) return functional::normalize(input, options.p(), options.dim(), options.eps());
  return div_out(*options.out(), input, normalize_denominator(input, options.p(), options.dim(), options.eps()));
}

Tensor leaky_relu(const Tensor& input, double negative_slope) { return ::ember::leaky_relu(input, negative_slope); }
Tensor leaky_relu(Tensor input, const LeakyReLUFuncOptions& options) {
  return options.inplace() ? ::ember::leaky_relu_(input, options.negative_slope())
                           : ::ember::leaky_relu(input, options.negative_slope());
}
Tensor gelu(const Tensor& input, std::string_view approximate) { return ::ember::gelu(input, approximate); }
Tensor gelu(const Tensor& input, const GELUFuncOptions& options) {
  return ::ember::gelu(input, options.approximate());
}
Tensor softmax(const Tensor& input, const SoftmaxFuncOptions& options) {
  return ::ember::softmax(input, options.dim(), options.dtype());
}
Tensor log_softmax(const Tensor& input, const LogSoftmaxFuncOptions& options) {
  return ::ember::log_softmax(input, options.dim(), options.dtype());
}
}  // namespace functional

// ---- Dropout ---------------------------------------------------------------------------------
DropoutImpl::DropoutImpl(const DropoutOptions& options_) : options(options_) { reset(); }
void DropoutImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void DropoutImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Dropout(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
}
Tensor DropoutImpl::forward(const Tensor& input) {
  return functional::dropout(input, options.p(), is_training(), options.inplace());
}
Dropout2dImpl::Dropout2dImpl(const Dropout2dOptions& options_) : options(options_) { reset(); }
void Dropout2dImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void Dropout2dImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Dropout2d(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
}
Tensor Dropout2dImpl::forward(const Tensor& input) {
  return functional::dropout2d(input, options.p(), is_training(), options.inplace());
}
Dropout3dImpl::Dropout3dImpl(const Dropout3dOptions& options_) : options(options_) { reset(); }
void Dropout3dImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void Dropout3dImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Dropout3d(p=" << options.p() << ", inplace=" << (options.inplace() ? "true" : "false") << ")";
}
Tensor Dropout3dImpl::forward(const Tensor& input) {
  return functional::dropout3d(input, options.p(), is_training(), options.inplace());
}

// ---- Embedding -----------------------------------------------------------------------------
EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) { reset(); }
void EmbeddingImpl::reset() {
  if (options.padding_idx()) {
    int64_t& p = *options.padding_idx();
    EMBER_CHECK(p < options.num_embeddings() && p >= -options.num_embeddings(),
                "Padding_idx must be within num_embeddings");
    if (p < 0) p += options.num_embeddings();
  }
  if (options._weight().defined()) {
    EMBER_CHECK(options._weight().sizes() == IntArrayRef({options.num_embeddings(), options.embedding_dim()}),
                "Shape of _weight does not match num_embeddings and embedding_dim");
    weight = register_parameter("weight", options._weight());
    return;
  }
  weight = register_parameter("weight", empty({options.num_embeddings(), options.embedding_dim()}));
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard g;
    weight[*options.padding_idx()].fill_(0);
  }
}
void EmbeddingImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::Embedding(num_embeddings=" << options.num_embeddings()
    << ", embedding_dim=" << options.embedding_dim();
  if (options.padding_idx()) s << ", padding_idx=" << *options.padding_idx();
  if (options.max_norm()) s << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) s << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) s << ", scale_grad_by_freq=true";
  if (options.sparse()) s << ", sparse=true";
  s << ")";
}
Tensor EmbeddingImpl::forward(const Tensor& input) {
  return functional::embedding(input, weight, options.padding_idx(), options.max_norm(), options.norm_type(),
                               options.scale_grad_by_freq(), options.sparse());
}

// ---- LayerNorm -----------------------------------------------------------------------------
LayerNormImpl::LayerNormImpl(LayerNormOptions options_) : options(std::move(options_)) { reset(); }
void LayerNormImpl::reset() {
  if (options.elementwise_affine()) {
    weight = register_parameter("weight", ones(options.normalized_shape()));
    bias = register_parameter("bias", zeros(options.normalized_shape()));
  } else {
    weight = register_parameter("weight", Tensor(), false);
    bias = register_parameter("bias", Tensor(), false);
  }
}
void LayerNormImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::LayerNorm([";
  for (size_t i = 0; i < options.normalized_shape().size(); ++i) s << (i ? ", " : "") << options.normalized_shape()[i];
  s << "], eps=" << options.eps() << ", elementwise_affine=" << (options.elementwise_affine() ? "true" : "false") << ")";
}
Tensor LayerNormImpl::forward(const Tensor& input) {
  return functional::layer_norm(input, options.normalized_shape(), weight, bias, options.eps());
}

// ---- activations ---------------------------------------------------------------------------
void LeakyReLUImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::LeakyReLU(negative_slope=" << options.negative_slope();
  if (options.inplace()) s << ", inplace=true";
  s << ")";
}
Tensor LeakyReLUImpl::forward(Tensor input) { return functional::leaky_relu(std::move(input), options); }
void GELUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::GELU()"; }  // as LibTorch (no options)
Tensor GELUImpl::forward(const Tensor& input) { return functional::gelu(input, options); }
void SiLUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::SiLU()"; }
Tensor SiLUImpl::forward(const Tensor& input) { return silu(input); }
void SoftmaxImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softmax(dim=" << options.dim() << ")"; }
Tensor SoftmaxImpl::forward(const Tensor& input) { return softmax(input, options.dim()); }
void LogSoftmaxImpl::pretty_print(std::ostream& s) const { s << "torch::nn::LogSoftmax(dim=" << options.dim() << ")"; }
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return log_softmax(input, options.dim()); }

Embedding Embedding::from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& o) {
  EMBER_CHECK(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
  Embedding e(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                  ._weight(embeddings)
                  .padding_idx(o.padding_idx())
                  .max_norm(o.max_norm())
                  .norm_type(o.norm_type())
                  .scale_grad_by_freq(o.scale_grad_by_freq())
                  .sparse(o.sparse()));
  e->weight.set_requires_grad(!o.freeze());
  return e;
}

}  // namespace nn
}  // namespace ember
