// Attention and transformer modules with LibTorch's names and PyTorch's semantics:
// MultiheadAttention, TransformerEncoderLayer/DecoderLayer, TransformerEncoder/Decoder and
// Transformer (the functionals: ember/nn/functional/transformer.h; the options:
// ember/nn/options/transformer.h). Everything composes differentiable ops, so reverse and
// forward mode apply.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>

#include "ember/nn/functional/transformer.h"
#include "ember/nn/init.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/dropout.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/normalization.h"
#include "ember/nn/options/transformer.h"

namespace ember::nn {

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

// (These options hold a layer module, hence here rather than in ember/nn/options/transformer.h.)
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
