// Attention functionals with PyTorch's semantics: F::scaled_dot_product_attention and
// F::multi_head_attention_forward (in LibTorch's torch/nn/functional/activation.h), composed of
// differentiable ops (matmul, softmax, ...), so reverse and forward mode apply. Options:
// ember/nn/options/transformer.h; the modules: ember/nn/modules/transformer.h.
#pragma once
#include <tuple>

#include "ember/core/tensor.h"
#include "ember/nn/options/transformer.h"

namespace ember::nn {

namespace functional {

// softmax(q k^T / sqrt(E) + mask) v, as PyTorch 2's F.scaled_dot_product_attention: query
// (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). attn_mask broadcasts to
// (..., L, S): boolean (true: may attend) or floating (added to the scores). is_causal: query
// i attends to keys j <= i. Dropout (dropout_p > 0) applies to the attention weights.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false);

// PyTorch's F.multi_head_attention_forward: query (L, N, E) or unbatched (L, E), key and value
// (S, N, *) or (S, *). Masks: key_padding_mask (N, S) / (S), attn_mask (L, S) or
// (N * num_heads, L, S); boolean (true: masked out) or floating (added to the scores).
// Returns (output, weights): weights (N, L, S) averaged over heads, or (N, num_heads, L, S);
// undefined when need_weights is false.
std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options);

}  // namespace functional

}  // namespace ember::nn
