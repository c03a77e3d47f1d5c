// Options of attention and the transformers (LibTorch's torch/nn/options/activation.h,
// transformerlayer.h, transformer.h): MultiheadAttention and F::multi_head_attention_forward,
// the layers' activation and options, and TransformerOptions. TransformerEncoderOptions and
// TransformerDecoderOptions hold a layer module, so they are in ember/nn/modules/transformer.h.
// PyTorch-only options (batch_first, norm_first, layer_norm_eps) are here too.
#pragma once
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/any.h"
#include "ember/nn/enum.h"

namespace ember::nn {

namespace functional {
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

}  // namespace ember::nn
