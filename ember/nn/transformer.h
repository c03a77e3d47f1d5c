// Attention and transformers with LibTorch's names and PyTorch's semantics:
// functional::scaled_dot_product_attention, functional::multi_head_attention_forward,
// MultiheadAttention, TransformerEncoderLayer/DecoderLayer, TransformerEncoder/Decoder and
// Transformer. Everything composes differentiable ops (matmul, softmax, ...), so reverse and
// forward mode apply. PyTorch-only options (batch_first, norm_first, layer_norm_eps) are here too.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"


namespace ember::nn {

namespace functional {

// softmax(q k^T / sqrt(E) + mask) v, as PyTorch 2's F.scaled_dot_product_attention: query
// (..., L, E), key (..., S, E), value (..., S, Ev) -> (..., L, Ev). attn_mask broadcasts to
// (..., L, S): boolean (true: may attend) or floating (added to the scores). is_causal: query
// i attends to keys j <= i. Dropout (dropout_p > 0) applies to the attention weights.
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false);

struct MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads, Tensor in_proj_weight,
                                       Tensor in_proj_bias, Tensor bias_k, Tensor bias_v, bool add_zero_attn,
                                       double dropout_p, Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check), num_heads_(num_heads), in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)), bias_k_(std::move(bias_k)), bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn), dropout_p_(dropout_p), out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  TORCH_ARG(int64_t, embed_dim_to_check);
  TORCH_ARG(int64_t, num_heads);
  TORCH_ARG(Tensor, in_proj_weight);
  TORCH_ARG(Tensor, in_proj_bias);
  TORCH_ARG(Tensor, bias_k);
  TORCH_ARG(Tensor, bias_v);
  TORCH_ARG(bool, add_zero_attn);
  TORCH_ARG(double, dropout_p);
  TORCH_ARG(Tensor, out_proj_weight);
  TORCH_ARG(Tensor, out_proj_bias);
  TORCH_ARG(bool, training) = true;
  TORCH_ARG(Tensor, key_padding_mask) = {};
  TORCH_ARG(bool, need_weights) = true;
  TORCH_ARG(Tensor, attn_mask) = {};
  TORCH_ARG(bool, use_separate_proj_weight) = false;
  TORCH_ARG(Tensor, q_proj_weight) = {};
  TORCH_ARG(Tensor, k_proj_weight) = {};
  TORCH_ARG(Tensor, v_proj_weight) = {};
  TORCH_ARG(Tensor, static_k) = {};
  TORCH_ARG(Tensor, static_v) = {};
  TORCH_ARG(bool, average_attn_weights) = true;
};

// PyTorch's F.multi_head_attention_forward: query (L, N, E) or unbatched (L, E), key and value
// (S, N, *) or (S, *). Masks: key_padding_mask (N, S) / (S), attn_mask (L, S) or
// (N * num_heads, L, S); boolean (true: masked out) or floating (added to the scores).
// Returns (output, weights): weights (N, L, S) averaged over heads, or (N, num_heads, L, S);
// undefined when need_weights is false.
std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options);

}  // namespace functional



struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads) : embed_dim_(embed_dim), num_heads_(num_heads) {
    kdim_ = vdim_ = embed_dim;
  }
  TORCH_ARG(int64_t, embed_dim);
  TORCH_ARG(int64_t, num_heads);
  TORCH_ARG(double, dropout) = 0.0;
  TORCH_ARG(bool, bias) = true;
  TORCH_ARG(bool, add_bias_kv) = false;
  TORCH_ARG(bool, add_zero_attn) = false;
  TORCH_ARG(int64_t, kdim);
  TORCH_ARG(int64_t, vdim);
  TORCH_ARG(bool, batch_first) = false;  // PyTorch's option: (N, L, E) inputs and output
};

// Parameters as PyTorch names them: in_proj_weight (3E, E) (or q_proj_weight, k_proj_weight,
// v_proj_weight when kdim/vdim differ from embed_dim) xavier-uniform, in_proj_bias (3E) and
// out_proj.bias zero, bias_k/bias_v (1, 1, E) xavier-normal, out_proj.weight as Linear.
class MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset() override;
  void _reset_parameters();
  void pretty_print(std::ostream& stream) const override;
  // (attn_output, attn_weights); see functional::multi_head_attention_forward.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);
  FORWARD_HAS_DEFAULT_ARGS({3, ::ember::nn::AnyValue(::ember::Tensor())}, {4, ::ember::nn::AnyValue(true)}, {5, ::ember::nn::AnyValue(::ember::Tensor())},
                           {6, ::ember::nn::AnyValue(true)})

  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Linear out_proj = nullptr;
  Tensor in_proj_weight, in_proj_bias, bias_k, bias_v, q_proj_weight, k_proj_weight, v_proj_weight;
  int64_t head_dim = 0;
};
TORCH_MODULE(MultiheadAttention);

// The feed-forward activation: torch::kReLU, torch::kGELU or any Tensor -> Tensor function
// (LibTorch's activation_t).
class TransformerActivation {
 public:
  TransformerActivation(enumtype::kReLU);          // NOLINT
  TransformerActivation(enumtype::kGELU);          // NOLINT
  template <class F, class = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TransformerActivation> &&
                                              std::is_invocable_r_v<Tensor, F, const Tensor&>>>
  TransformerActivation(F function) : function_(std::move(function)), name_("custom") {}  // NOLINT
  Tensor operator()(const Tensor& input) const { return function_(input); }
  const std::string& name() const { return name_; }

 private:
  std::function<Tensor(const Tensor&)> function_;
  std::string name_;
};

namespace detail {
// The options of both transformer layers; Tag makes LibTorch's two distinct types.
template <class Tag>
struct TransformerLayerOptions {
  TransformerLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TORCH_ARG(int64_t, d_model);
  TORCH_ARG(int64_t, nhead);
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(TransformerActivation, activation) = kReLU;
  // PyTorch's options:
  TORCH_ARG(double, layer_norm_eps) = 1e-5;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(bool, norm_first) = false;  // x + f(norm(x)) instead of norm(x + f(x))
};
}  // namespace detail
using TransformerEncoderLayerOptions = detail::TransformerLayerOptions<struct TransformerEncoderLayerTag>;
using TransformerDecoderLayerOptions = detail::TransformerLayerOptions<struct TransformerDecoderLayerTag>;

// Self-attention then feed-forward, each with dropout, residual and LayerNorm.
class TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(::ember::Tensor())}, {2, ::ember::nn::AnyValue(::ember::Tensor())})

  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr;
  Dropout dropout1 = nullptr, dropout2 = nullptr;
};
TORCH_MODULE(TransformerEncoderLayer);

// Self-attention, attention over the encoder's memory, then feed-forward.
class TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  FORWARD_HAS_DEFAULT_ARGS({2, ::ember::nn::AnyValue(::ember::Tensor())}, {3, ::ember::nn::AnyValue(::ember::Tensor())}, {4, ::ember::nn::AnyValue(::ember::Tensor())}, {5, ::ember::nn::AnyValue(::ember::Tensor())})

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn = nullptr, multihead_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr, norm2 = nullptr, norm3 = nullptr;
  Dropout dropout1 = nullptr, dropout2 = nullptr, dropout3 = nullptr;
};
TORCH_MODULE(TransformerDecoderLayer);

struct TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
      : encoder_layer_(encoder_layer_options), num_layers_(num_layers) {}
  TORCH_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  TORCH_ARG(AnyModule, norm);  // applied to the output when given (a LayerNorm, usually)
};

struct TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
      : decoder_layer_(decoder_layer_options), num_layers_(num_layers) {}
  TORCH_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  TORCH_ARG(int64_t, num_layers);
  TORCH_ARG(AnyModule, norm);
};

// num_layers clones of encoder_layer ("layers.0", ...), then the optional norm ("norm").
class TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(::ember::Tensor())}, {2, ::ember::nn::AnyValue(::ember::Tensor())})

  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
TORCH_MODULE(TransformerEncoder);

class TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  FORWARD_HAS_DEFAULT_ARGS({2, ::ember::nn::AnyValue(::ember::Tensor())}, {3, ::ember::nn::AnyValue(::ember::Tensor())}, {4, ::ember::nn::AnyValue(::ember::Tensor())}, {5, ::ember::nn::AnyValue(::ember::Tensor())})

  TransformerDecoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
TORCH_MODULE(TransformerDecoder);

struct TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers)
      : d_model_(d_model), nhead_(nhead), num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  TORCH_ARG(int64_t, d_model) = 512;
  TORCH_ARG(int64_t, nhead) = 8;
  TORCH_ARG(int64_t, num_encoder_layers) = 6;
  TORCH_ARG(int64_t, num_decoder_layers) = 6;
  TORCH_ARG(int64_t, dim_feedforward) = 2048;
  TORCH_ARG(double, dropout) = 0.1;
  TORCH_ARG(TransformerActivation, activation) = kReLU;
  TORCH_ARG(double, layer_norm_eps) = 1e-5;
  TORCH_ARG(bool, batch_first) = false;
  TORCH_ARG(bool, norm_first) = false;
  // Used (cloned) instead of the built-in encoder / decoder when set: any module whose forward
  // takes (src, src_mask, src_key_padding_mask) / (tgt, memory, tgt_mask, memory_mask,
  // tgt_key_padding_mask, memory_key_padding_mask) and returns a Tensor.
  TORCH_ARG(AnyModule, custom_encoder);
  TORCH_ARG(AnyModule, custom_decoder);
};

// encoder (a TransformerEncoder with a final LayerNorm, or the custom one) and decoder
// (likewise), held as AnyModules as in LibTorch; every parameter with more than one dim is
// re-initialized xavier-uniform, as PyTorch.
class TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  FORWARD_HAS_DEFAULT_ARGS({2, ::ember::nn::AnyValue(::ember::Tensor())}, {3, ::ember::nn::AnyValue(::ember::Tensor())}, {4, ::ember::nn::AnyValue(::ember::Tensor())}, {5, ::ember::nn::AnyValue(::ember::Tensor())}, {6, ::ember::nn::AnyValue(::ember::Tensor())}, {7, ::ember::nn::AnyValue(::ember::Tensor())})
  // (sz, sz) float mask: -inf above the diagonal, 0 elsewhere (a causal tgt_mask).
  static Tensor generate_square_subsequent_mask(int64_t sz);

  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
TORCH_MODULE(Transformer);

}  // namespace ember::nn
