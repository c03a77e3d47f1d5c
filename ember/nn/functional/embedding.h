// The embedding functionals (LibTorch's torch/nn/functional/embedding.h): F::embedding,
// F::embedding_bag and F::one_hot, with their options in ember/nn/options/embedding.h.
#pragma once
#include <optional>

#include "ember/core/tensor.h"
#include "ember/nn/options/embedding.h"

namespace ember::nn {

namespace functional {
// Rows of weight; a negative padding_idx counts from the end. With max_norm the referenced
// rows of weight are first renormalized in place (no gradient) to norm_type-norm <= max_norm;
// with scale_grad_by_freq each row's gradient is divided by its index's count in input.
Tensor embedding(const Tensor& input, const Tensor& weight, std::optional<int64_t> padding_idx,
                 std::optional<double> max_norm = std::nullopt, double norm_type = 2., bool scale_grad_by_freq = false,
                 bool sparse = false);
Tensor embedding(const Tensor& input, const Tensor& weight, const EmbeddingFuncOptions& options = {});

// Bags of rows of `weight`: input (B, L) is B bags of L indices; a 1-D input is cut into
// bags at `offsets`. Rows at padding_idx are left out; empty bags give zeros.
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const EmbeddingBagFuncOptions& options = {});
// int64 (..., num_classes); num_classes = -1 takes max + 1.
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1);
}  // namespace functional

namespace detail {
// padding_idx in [0, n), from PyTorch's [-n, n) (F::embedding_bag's check, and EmbeddingBag's).
std::optional<int64_t> wrap_padding_idx(std::optional<int64_t> p, int64_t n);
}  // namespace detail

}  // namespace ember::nn
