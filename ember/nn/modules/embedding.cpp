#include "ember/nn/modules/embedding.h"

#include <cmath>
#include <ostream>
#include <string>

#include "ember/autograd/grad_mode.h"
#include "ember/nn/init.h"
#include "ember/ops/functions.h"

namespace ember::nn {

using detail::wrap_padding_idx;  // (ember/nn/functional/embedding.h)

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

// ---- EmbeddingBag ------------------------------------------------------------------------

EmbeddingBagImpl::EmbeddingBagImpl(EmbeddingBagOptions options_) : options(std::move(options_)) { reset(); }
void EmbeddingBagImpl::reset() {
  options.padding_idx() = wrap_padding_idx(options.padding_idx(), options.num_embeddings());
  if (options._weight().defined()) {
    EMBER_CHECK(options._weight().sizes() == IntArrayRef({options.num_embeddings(), options.embedding_dim()}),
                "Shape of _weight does not match num_embeddings and embedding_dim");
    weight = register_parameter("weight", options._weight());
  } else {
    weight = register_parameter("weight", empty({options.num_embeddings(), options.embedding_dim()}));
    reset_parameters();
  }
}
void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx()) {
    NoGradGuard g;
    weight[*options.padding_idx()].fill_(0);
  }
}
void EmbeddingBagImpl::pretty_print(std::ostream& s) const {
  s << "torch::nn::EmbeddingBag(num_embeddings=" << options.num_embeddings()
    << ", embedding_dim=" << options.embedding_dim();
  // LibTorch's order: each option that is not its default.
  if (options.max_norm()) s << ", max_norm=" << *options.max_norm();
  if (options.norm_type() != 2) s << ", norm_type=" << options.norm_type();
  if (options.scale_grad_by_freq()) s << ", scale_grad_by_freq=true";
  if (options.sparse()) s << ", sparse=true";
  std::string mode = options.mode().name();
  if (mode != "mean") s << ", mode=k" << char(std::toupper(static_cast<unsigned char>(mode[0]))) << mode.substr(1);
  if (options.include_last_offset()) s << ", include_last_offset=true";
  if (options.padding_idx()) s << ", padding_idx=" << *options.padding_idx();
  s << ")";
}
Tensor EmbeddingBagImpl::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  return functional::embedding_bag(input, weight,
                                   functional::EmbeddingBagFuncOptions()
                                       .offsets(offsets)
                                       .max_norm(options.max_norm())
                                       .norm_type(options.norm_type())
                                       .scale_grad_by_freq(options.scale_grad_by_freq())
                                       .mode(options.mode())
                                       .sparse(options.sparse())
                                       .per_sample_weights(per_sample_weights)
                                       .include_last_offset(options.include_last_offset())
                                       .padding_idx(options.padding_idx()));
}
EmbeddingBag EmbeddingBag::from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& o) {
  EMBER_CHECK(embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional");
  EmbeddingBag bag(EmbeddingBagOptions(embeddings.size(0), embeddings.size(1))
                       ._weight(embeddings)
                       .max_norm(o.max_norm())
                       .norm_type(o.norm_type())
                       .scale_grad_by_freq(o.scale_grad_by_freq())
                       .mode(o.mode())
                       .sparse(o.sparse())
                       .include_last_offset(o.include_last_offset())
                       .padding_idx(o.padding_idx()));
  bag->weight.set_requires_grad(!o.freeze());
  return bag;
}

}  // namespace ember::nn
