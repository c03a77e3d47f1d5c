// Options of the embeddings (LibTorch's torch/nn/options/embedding.h): Embedding and
// EmbeddingBag, their from_pretrained options, and the functionals' EmbeddingFuncOptions and
// EmbeddingBagFuncOptions (modules: ember/nn/modules/embedding.h).
#pragma once
#include <optional>
#include <utility>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

namespace functional {
struct EmbeddingFuncOptions {
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;  // accepted; the weight's gradient is dense
};
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
struct EmbeddingFromPretrainedOptions {
  TORCH_ARG(bool, freeze) = true;
  TORCH_ARG(std::optional<int64_t>, padding_idx) = std::nullopt;
  TORCH_ARG(std::optional<double>, max_norm) = std::nullopt;
  TORCH_ARG(double, norm_type) = 2.0;
  TORCH_ARG(bool, scale_grad_by_freq) = false;
  TORCH_ARG(bool, sparse) = false;
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
}  // namespace functional

}  // namespace ember::nn
