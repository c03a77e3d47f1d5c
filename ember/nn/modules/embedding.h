// Embedding modules (LibTorch's torch/nn/modules/embedding.h): Embedding
// (padding_idx, max_norm, from_pretrained) and EmbeddingBag (bags reduced by sum, mean or
// max, with offsets, per_sample_weights, padding_idx, from_pretrained). Options:
// ember/nn/options/embedding.h; functionals: ember/nn/functional/embedding.h.
#pragma once
#include "ember/nn/functional/embedding.h"
#include "ember/nn/module.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn {

// weight ~ N(0, 1) (or options._weight), the padding row zero, as PyTorch.
class EmbeddingImpl : public Cloneable<EmbeddingImpl> {
 public:
  EmbeddingImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingImpl(EmbeddingOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingImpl(EmbeddingOptions options);
  void reset() override;
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  EmbeddingOptions options;
  Tensor weight;
};
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  // An embedding over the rows of `embeddings` (2-D), frozen (no gradient) unless
  // options.freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

// ---- EmbeddingBag ------------------------------------------------------------------------

class EmbeddingBagImpl : public Cloneable<EmbeddingBagImpl> {
 public:
  EmbeddingBagImpl(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBagImpl(EmbeddingBagOptions(num_embeddings, embedding_dim)) {}
  explicit EmbeddingBagImpl(EmbeddingBagOptions options);
  void reset() override;
  void reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  EmbeddingBagOptions options;
  Tensor weight;
};
class EmbeddingBag : public ModuleHolder<EmbeddingBagImpl> {
 public:
  using ModuleHolder<EmbeddingBagImpl>::ModuleHolder;
  // A bag over the rows of `embeddings` (2-D), frozen (no gradient) unless options.freeze(false).
  static EmbeddingBag from_pretrained(const Tensor& embeddings, const EmbeddingBagFromPretrainedOptions& options = {});
};

}  // namespace ember::nn
