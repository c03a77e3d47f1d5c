#include "ember/nn/modules/transformer.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "ember/ops/functions.h"

namespace ember::nn {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();
}  // namespace

// ---- MultiheadAttention -----------------------------------------------------------------------
MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_) : options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t e = options.embed_dim();
  EMBER_CHECK(e > 0 && options.num_heads() > 0, "MultiheadAttention: embed_dim and num_heads must be positive, got ",
              e, " and ", options.num_heads());
  head_dim = e / options.num_heads();
  EMBER_CHECK(head_dim * options.num_heads() == e, "MultiheadAttention: embed_dim must be divisible by num_heads, got ",
              e, " and ", options.num_heads());
  _qkv_same_embed_dim = options.kdim() == e && options.vdim() == e;
  auto param = [&](const char* name, bool used, std::vector<int64_t> shape) {
    return register_parameter(name, used ? ember::empty(shape) : Tensor(), used);
  };
  // PyTorch's registration order (the state_dict's)
  q_proj_weight = param("q_proj_weight", !_qkv_same_embed_dim, {e, e});
  k_proj_weight = param("k_proj_weight", !_qkv_same_embed_dim, {e, options.kdim()});
  v_proj_weight = param("v_proj_weight", !_qkv_same_embed_dim, {e, options.vdim()});
  in_proj_weight = param("in_proj_weight", _qkv_same_embed_dim, {3 * e, e});
  in_proj_bias = param("in_proj_bias", options.bias(), {3 * e});
  bias_k = param("bias_k", options.add_bias_kv(), {1, 1, e});
  bias_v = param("bias_v", options.add_bias_kv(), {1, 1, e});
  out_proj = register_module("out_proj", Linear(LinearOptions(e, e).bias(options.bias())));
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  for (Tensor* w : {&in_proj_weight, &q_proj_weight, &k_proj_weight, &v_proj_weight})
    if (w->defined()) init::xavier_uniform_(*w);
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  for (Tensor* b : {&bias_k, &bias_v})
    if (b->defined()) init::xavier_normal_(*b);
}

void MultiheadAttentionImpl::pretty_print(std::ostream& s) const { s << "torch::nn::MultiheadAttention"; }

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const Tensor& key_padding_mask, bool need_weights,
                                                           const Tensor& attn_mask, bool average_attn_weights) {
  const bool transpose = options.batch_first() && query.dim() == 3;
  auto t = [&](const Tensor& x) { return transpose ? x.transpose(0, 1) : x; };
  auto o = functional::MultiheadAttentionForwardFuncOptions(options.embed_dim(), options.num_heads(), in_proj_weight,
                                                            in_proj_bias, bias_k, bias_v, options.add_zero_attn(),
                                                            options.dropout(), out_proj->weight, out_proj->bias)
               .training(is_training())
               .key_padding_mask(key_padding_mask)
               .need_weights(need_weights)
               .attn_mask(attn_mask)
               .average_attn_weights(average_attn_weights)
               .use_separate_proj_weight(!_qkv_same_embed_dim)
               .q_proj_weight(q_proj_weight)
               .k_proj_weight(k_proj_weight)
               .v_proj_weight(v_proj_weight);
  auto [out, weights] = functional::multi_head_attention_forward(t(query), t(key), t(value), o);
  return {t(out), weights};
}

// ---- the layers ---------------------------------------------------------------------------------

namespace {
template <class Tag>
MultiheadAttention self_attention(const detail::TransformerLayerOptions<Tag>& o) {
  return MultiheadAttention(
      MultiheadAttentionOptions(o.d_model(), o.nhead()).dropout(o.dropout()).batch_first(o.batch_first()));
}
LayerNorm layer_norm(int64_t d_model, double eps) { return LayerNorm(LayerNormOptions({d_model}).eps(eps)); }

// The two layouts of a residual sublayer: x + f(norm(x)) (norm_first) or norm(x + f(x)).
template <class F>
Tensor sublayer(const Tensor& x, LayerNorm& norm, bool norm_first, F f) {
  return norm_first ? x.add(f(norm(x))) : norm(x.add(f(x)));
}
// Attention of x over mem (x itself for self-attention), without the weights.
Tensor attention_block(MultiheadAttention& attn, Dropout& drop, const Tensor& x, const Tensor& mem, const Tensor& mask,
                       const Tensor& key_padding_mask) {
  return drop(std::get<0>(attn(x, mem, mem, key_padding_mask, /*need_weights=*/false, mask)));
}
Tensor feed_forward(Linear& linear1, Dropout& inner, Linear& linear2, Dropout& outer,
                    const TransformerActivation& activation, const Tensor& x) {
  return outer(linear2(inner(activation(linear1(x)))));
}
template <class Tag>
void print_layer(std::ostream& s, const char* name, const detail::TransformerLayerOptions<Tag>& o) {
  s << "torch::nn::" << name << "(d_model=" << o.d_model() << ", nhead=" << o.nhead()
    << ", dim_feedforward=" << o.dim_feedforward() << ", dropout=" << o.dropout()
    << ", activation=" << o.activation().name() << ", norm_first=" << (o.norm_first() ? "true" : "false") << ")";
}
// Re-initializes every Linear, LayerNorm and MultiheadAttention below m as at construction
// (innermost first: an attention's own init then zeroes its out_proj bias).
void reset_children(Module& m) {
  auto subs = m.modules(/*include_self=*/false);
  for (auto it = subs.rbegin(); it != subs.rend(); ++it) {
    if (auto* l = (*it)->as<LinearImpl>()) l->reset_parameters();
    if (auto* a = (*it)->as<MultiheadAttentionImpl>()) a->_reset_parameters();
    if (auto* n = (*it)->as<LayerNormImpl>(); n && n->weight.defined()) {
      init::ones_(n->weight);
      init::zeros_(n->bias);
    }
  }
}
}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(TransformerEncoderLayerOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module("self_attn", self_attention(o));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o.d_model(), o.layer_norm_eps()));
  norm2 = register_module("norm2", layer_norm(o.d_model(), o.layer_norm_eps()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() { reset_children(*this); }

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  Tensor x = sublayer(src, norm1, options.norm_first(), [&](const Tensor& y) {
    return attention_block(self_attn, dropout1, y, y, src_mask, src_key_padding_mask);
  });
  return sublayer(x, norm2, options.norm_first(), [&](const Tensor& y) {
    return feed_forward(linear1, dropout, linear2, dropout2, options.activation(), y);
  });
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(TransformerDecoderLayerOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const auto& o = options;
  self_attn = register_module("self_attn", self_attention(o));
  multihead_attn = register_module("multihead_attn", self_attention(o));
  linear1 = register_module("linear1", Linear(o.d_model(), o.dim_feedforward()));
  dropout = register_module("dropout", Dropout(o.dropout()));
  linear2 = register_module("linear2", Linear(o.dim_feedforward(), o.d_model()));
  norm1 = register_module("norm1", layer_norm(o.d_model(), o.layer_norm_eps()));
  norm2 = register_module("norm2", layer_norm(o.d_model(), o.layer_norm_eps()));
  norm3 = register_module("norm3", layer_norm(o.d_model(), o.layer_norm_eps()));
  dropout1 = register_module("dropout1", Dropout(o.dropout()));
  dropout2 = register_module("dropout2", Dropout(o.dropout()));
  dropout3 = register_module("dropout3", Dropout(o.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() { reset_children(*this); }

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                            const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  const bool nf = options.norm_first();
  Tensor x = sublayer(tgt, norm1, nf, [&](const Tensor& y) {
    return attention_block(self_attn, dropout1, y, y, tgt_mask, tgt_key_padding_mask);
  });
  x = sublayer(x, norm2, nf, [&](const Tensor& y) {
    return attention_block(multihead_attn, dropout2, y, memory, memory_mask, memory_key_padding_mask);
  });
  return sublayer(x, norm3, nf, [&](const Tensor& y) {
    return feed_forward(linear1, dropout, linear2, dropout3, options.activation(), y);
  });
}

// ---- the stacks ---------------------------------------------------------------------------------
namespace {
// Registers num_layers clones of `layer` as "layers" and a clone of `norm` (if any) as "norm".
template <class Layer>
void build_stack(Module& self, ModuleList& layers, AnyModule& norm, const Layer& layer, int64_t num_layers,
                 const AnyModule& norm_prototype) {
  EMBER_CHECK(!layer.is_empty(), "Transformer stack: the layer to clone is empty");
  EMBER_CHECK(num_layers >= 0, "Transformer stack: num_layers must be non-negative, got ", num_layers);
  layers = self.register_module("layers", ModuleList());
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(layer->clone());
  norm = AnyModule();
  if (!norm_prototype.is_empty()) {
    norm = norm_prototype.clone_module(norm_prototype.ptr()->clone());
    self.register_module("norm", norm.ptr());
  }
}
}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_) : options(std::move(options_)) {
  reset();
}
void TransformerEncoderImpl::reset() {
  build_stack(*this, layers, norm, options.encoder_layer(), options.num_layers(), options.norm());
}
void TransformerEncoderImpl::reset_parameters() { reset_children(*this); }
Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask) {
  Tensor x = src;
  for (const auto& m : *layers) {
    // As a call of the layer (its hooks and call wrapper run: FSDP units, activation checkpointing).
    auto& layer = *m->as<TransformerEncoderLayerImpl>();
    x = layer.has_forward_hooks() ? detail::call_with_forward_hooks(layer, [&] {
          return detail::call_maybe_wrapped(layer, x, src_mask, src_key_padding_mask);
        })
                                  : layer.forward(x, src_mask, src_key_padding_mask);
  }
  return norm.is_empty() ? x : norm.forward(x);
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_) : options(std::move(options_)) {
  reset();
}
void TransformerDecoderImpl::reset() {
  build_stack(*this, layers, norm, options.decoder_layer(), options.num_layers(), options.norm());
}
void TransformerDecoderImpl::reset_parameters() { reset_children(*this); }
Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                       const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (const auto& m : *layers) {
    auto& layer = *m->as<TransformerDecoderLayerImpl>();  // called as the encoder's layers are
    x = layer.has_forward_hooks() ? detail::call_with_forward_hooks(layer, [&] {
          return detail::call_maybe_wrapped(layer, x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                            memory_key_padding_mask);
        })
                                  : layer.forward(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                                  memory_key_padding_mask);
  }
  return norm.is_empty() ? x : norm.forward(x);
}

// ---- Transformer -----------------------------------------------------------------------------
TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) { reset(); }

void TransformerImpl::reset() {
  const auto& o = options;
  auto layer_options = [&](auto lo) {
    return lo.dim_feedforward(o.dim_feedforward())
        .dropout(o.dropout())
        .activation(o.activation())
        .layer_norm_eps(o.layer_norm_eps())
        .batch_first(o.batch_first())
        .norm_first(o.norm_first());
  };
  auto final_norm = [&] { return AnyModule(layer_norm(o.d_model(), o.layer_norm_eps())); };
  const auto enc = layer_options(TransformerEncoderLayerOptions(o.d_model(), o.nhead()));
  const auto dec = layer_options(TransformerDecoderLayerOptions(o.d_model(), o.nhead()));
  encoder = o.custom_encoder().is_empty()
                ? AnyModule(TransformerEncoder(TransformerEncoderOptions(enc, o.num_encoder_layers()).norm(final_norm())))
                : o.custom_encoder().clone();
  decoder = o.custom_decoder().is_empty()
                ? AnyModule(TransformerDecoder(TransformerDecoderOptions(dec, o.num_decoder_layers()).norm(final_norm())))
                : o.custom_decoder().clone();
  register_module("encoder", encoder.ptr());
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (const auto& child : children())  // (parameters() would need this module in a shared_ptr already)
    for (Tensor& p : child->parameters())
      if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                                const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                                const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  EMBER_CHECK(src.dim() == tgt.dim() && (src.dim() == 2 || src.dim() == 3), "Transformer: expected src and tgt both "
              "3-D (batched) or both 2-D (unbatched), got src of shape ", src.sizes(), " and tgt of shape ",
              tgt.sizes());
  const int64_t batch_dim = options.batch_first() ? 0 : 1;
  EMBER_CHECK(src.dim() == 2 || src.size(batch_dim) == tgt.size(batch_dim), "Transformer: the batch number of src "
              "and tgt must be equal, got src of shape ", src.sizes(), " and tgt of shape ", tgt.sizes());
  EMBER_CHECK(src.size(-1) == options.d_model() && tgt.size(-1) == options.d_model(), "Transformer: the feature "
              "number of src and tgt must be equal to d_model (", options.d_model(), "), got src of shape ",
              src.sizes(), " and tgt of shape ", tgt.sizes());
  Tensor memory = encoder.forward<Tensor>(src, src_mask, src_key_padding_mask);
  return decoder.forward<Tensor>(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK(sz >= 0, "Input size must be non-negative to generate a valid square subsequent mask, but got ", sz);
  return full({sz, sz}, -kInfinity).triu(1);
}

}  // namespace ember::nn
