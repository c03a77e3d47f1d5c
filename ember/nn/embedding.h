// Embeddings (LibTorch's torch/nn/modules/embedding.h, functional/embedding.h): Embedding
// (padding_idx, max_norm, from_pretrained) and EmbeddingBag (bags reduced by sum, mean or
// max, with offsets, per_sample_weights, padding_idx, from_pretrained), with their
// functionals.
#pragma once
#include <optional>
#include <utility>

#include "ember/nn/enum.h"
#include "ember/nn/module.h"

namespace ember::nn {

namespace functional {
struct EmbeddingFuncOptions {
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;  // accepted; the weight's gradient is dense
};
// Rows of weight; a negative padding_idx counts from the end. With max_norm the referenced
// rows of weight are first renormalized in place (no gradient) to norm_type-norm <= max_norm;
// with scale_grad_by_freq each row's gradient is divided by its index's count in input.
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm = std::nullopt, double norm_type = 2., bool scale_grad_by_freq = false,
                 bool sparse = false);
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});
}  // namespace functional

struct EmbeddingOptions {
  EmbeddingOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.0;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;  // accepted; the weight's gradient is dense
  TORCH_ARG(Tensor, _weight) = {};  // the initial weight, when given
};
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
struct EmbeddingFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.0;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
};
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  // An embedding over the rows of `embeddings` (2-D), frozen (no gradient) unless
  // options.freeze(false).
  static Embedding from_pretrained(const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});
};

// ---- EmbeddingBag ------------------------------------------------------------------------
// torch::kSum, torch::kMean or torch::kMax.
struct EmbeddingBagMode {
  enum Kind { Sum, Mean, Max };
  EmbeddingBagMode(Reduction r);  // NOLINT: kSum / kMean
  EmbeddingBagMode(enumtype::kSum) : kind(Sum) {}  // NOLINT
  EmbeddingBagMode(enumtype::kMean) : kind(Mean) {}  // NOLINT
  EmbeddingBagMode(enumtype::kMax) : kind(Max) {}  // NOLINT
  Kind kind = Mean;
  const char* name() const { return kind == Sum ? "sum" : kind == Mean ? "mean" : "max"; }
};

struct EmbeddingBagOptions {
  EmbeddingBagOptions(int64_t num_embeddings, int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  TORCH_ARG(int64_t, num_embeddings);
  TORCH_ARG(int64_t, embedding_dim);
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, _weight);  // the initial weight, when given
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

struct EmbeddingBagFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};

namespace functional {
struct EmbeddingBagFuncOptions {
  TORCH_ARG(Tensor, offsets);
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(EmbeddingBagMode, mode) = kMean;
  TORCH_ARG(bool, sparse) = false;
  TORCH_ARG(Tensor, per_sample_weights);
  TORCH_ARG(bool, include_last_offset) = false;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
};
// Bags of rows of `weight`: input (B, L) is B bags of L indices; a 1-D input is cut into
// bags at `offsets`. Rows at padding_idx are left out; empty bags give zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});
}  // namespace functional

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
