#include "ember/nn/layers.h"

#include <ostream>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/init.h"
#include "ember/ops/functions.h"

namespace ember::nn {

namespace functional {
Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  if (!training || p == 0) return input;
  Tensor keep;
  {
    NoGradGuard g;
    keep = empty_like(input, {}, MemoryFormat::Contiguous).bernoulli_(1 - p);
  }
  Tensor scaled = p == 1 ? keep : keep.div(1 - p);  // inverted dropout: E[out] = input
  if (inplace) {
    Tensor t = input;
    return t.mul_(scaled);
  }
  return input.mul(scaled);
}

Tensor dropout2d(const Tensor& input, double p, bool training) {
  EMBER_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
  EMBER_CHECK(input.dim() >= 2, "dropout2d: expected an input with at least 2 dims (N, C, ...), got ", input.sizes());
  if (!training || p == 0) return input;
  DimVector shape(input.sizes());
  for (size_t d = 2; d < shape.size(); ++d) shape[d] = 1;
  Tensor keep;
  {
    NoGradGuard g;
    keep = empty(shape, input.options().requires_grad(false)).bernoulli_(1 - p);
  }
  return input.mul(p == 1 ? keep : keep.div(1 - p));
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const int64_t k = int64_t(normalized_shape.size());
  EMBER_CHECK(k >= 1 && input.dim() >= k, "layer_norm: normalized_shape ", normalized_shape,
              " does not fit input of shape ", input.sizes());
  EMBER_CHECK(input.sizes().slice(size_t(input.dim() - k)) == normalized_shape, "Given normalized_shape=",
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

Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx) {
  EMBER_CHECK_TYPE(input.scalar_type() == kLong || input.scalar_type() == kInt,
                   "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
                   "but got ", input.scalar_type());
  EMBER_CHECK(weight.dim() == 2, "embedding: weight must be 2-D, got ", weight.sizes());
  Tensor idx = input.reshape({-1}).to(kLong);
  Tensor out = weight.index_select(0, idx);
  if (padding_idx) {
    // The padding row receives no gradient (PyTorch's rule).
    Tensor pad = idx.eq(*padding_idx).unsqueeze(1);
    out = where(pad, out.detach(), out);
  }
  DimVector shape(input.sizes());
  shape.push_back(weight.size(1));
  return out.view(shape);
}

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  int64_t d = dim;
  Tensor n = linalg::vector_norm(input, p, IntArrayRef(&d, 1), /*keepdim=*/true).clamp_min(eps);
  return input.div(n.expand_as(input));
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
Dropout2dImpl::Dropout2dImpl(const DropoutOptions& options_) : options(options_) { reset(); }
void Dropout2dImpl::reset() {
  EMBER_CHECK(options.p() >= 0 && options.p() <= 1, "dropout probability has to be between 0 and 1, but got ",
              options.p());
}
void Dropout2dImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Dropout2d(p=" << options.p() << ")"; }
Tensor Dropout2dImpl::forward(const Tensor& input) { return functional::dropout2d(input, options.p(), is_training()); }

// ---- Embedding -----------------------------------------------------------------------------
EmbeddingImpl::EmbeddingImpl(EmbeddingOptions options_) : options(std::move(options_)) { reset(); }
void EmbeddingImpl::reset() {
  if (options.padding_idx()) {
    int64_t& p = *options.padding_idx();
    EMBER_CHECK(p < options.num_embeddings() && p >= -options.num_embeddings(),
                "Padding_idx must be within num_embeddings");
    if (p < 0) p += options.num_embeddings();
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
  s << ")";
}
Tensor EmbeddingImpl::forward(const Tensor& input) {
  if (options.max_norm()) {
    // Rows referenced by input are renormalized in place to max_norm (as PyTorch).
    NoGradGuard g;
    Tensor idx = std::get<0>(_unique(input.reshape({-1}).to(kLong)));
    Tensor rows = weight.index_select(0, idx);
    Tensor norms = linalg::vector_norm(rows, options.norm_type(), IntArrayRef{1}, true);
    Tensor scale = where(norms.gt(*options.max_norm()), norms.add(1e-7).reciprocal().mul(*options.max_norm()),
                         ones_like(norms));
    weight.index_copy_(0, idx, rows.mul(scale));
  }
  return functional::embedding(input, weight, options.padding_idx());
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
  s << "torch::nn::LeakyReLU(negative_slope=" << options.negative_slope() << ")";
}
Tensor LeakyReLUImpl::forward(const Tensor& input) { return leaky_relu(input, options.negative_slope()); }
void GELUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::GELU(approximate=" << options.approximate() << ")"; }
Tensor GELUImpl::forward(const Tensor& input) { return gelu(input, options.approximate()); }
void SiLUImpl::pretty_print(std::ostream& s) const { s << "torch::nn::SiLU()"; }
Tensor SiLUImpl::forward(const Tensor& input) { return silu(input); }
void SoftmaxImpl::pretty_print(std::ostream& s) const { s << "torch::nn::Softmax(dim=" << options.dim() << ")"; }
Tensor SoftmaxImpl::forward(const Tensor& input) { return softmax(input, options.dim()); }
void LogSoftmaxImpl::pretty_print(std::ostream& s) const { s << "torch::nn::LogSoftmax(dim=" << options.dim() << ")"; }
Tensor LogSoftmaxImpl::forward(const Tensor& input) { return log_softmax(input, options.dim()); }

}  // namespace ember::nn
