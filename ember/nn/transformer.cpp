#include "ember/nn/transformer.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "ember/ops/functions.h"

namespace ember::nn {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// A mask as scores to add: boolean (or uint8) true -> -inf, false -> 0; floating unchanged.
Tensor additive_mask(const Tensor& mask, ScalarType dtype, const char* op, const char* what) {
  if (!mask.defined() || isFloatingType(mask.scalar_type())) return mask;
  EMBER_CHECK_TYPE(mask.scalar_type() == kBool || mask.scalar_type() == kByte, op, ": only bool and floating types of ",
                   what, " are supported, not ", mask.scalar_type());
  return zeros(mask.sizes(), TensorOptions().dtype(dtype).device(mask.device())).masked_fill(mask.to(kBool), -kInf);
}

// softmax(q k^T / sqrt(E) + mask) v with dropout on the weights: (output, weights).
std::tuple<Tensor, Tensor> attend(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                  double dropout_p) {
  Tensor scores = matmul(q.div(std::sqrt(double(q.size(-1)))), k.transpose(-2, -1));
  if (mask.defined()) scores = scores.add(mask);
  Tensor weights = functional::dropout(softmax(scores, -1), dropout_p, /*training=*/dropout_p > 0);
  return {matmul(weights, v), weights};
}
}  // namespace

// ---- functional -------------------------------------------------------------------------------
Tensor functional::scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                                const Tensor& attn_mask, double dropout_p, bool is_causal) {
  const char* op = "scaled_dot_product_attention";
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2 && query.size(-1) == key.size(-1) &&
                  key.size(-2) == value.size(-2),
              op, ": expected query (..., L, E), key (..., S, E) and value (..., S, Ev), got query of shape ",
              query.sizes(), ", key of shape ", key.sizes(), " and value of shape ", value.sizes());
  EMBER_CHECK(!(is_causal && attn_mask.defined()), op, ": Explicit attn_mask should not be set when is_causal=True");
  EMBER_CHECK(dropout_p >= 0 && dropout_p <= 1, op, ": dropout_p must be in [0, 1], got ", dropout_p);
  Tensor mask;
  if (is_causal)
    mask = full({query.size(-2), key.size(-2)}, -kInf, query.options().requires_grad(false)).triu(1);
  else if (attn_mask.defined()) {
    EMBER_CHECK_TYPE(attn_mask.scalar_type() == kBool || attn_mask.is_floating_point(), op, ": attn_mask must be bool "
                     "(true: may attend) or floating (added to the scores), got ", attn_mask.scalar_type());
    mask = attn_mask.scalar_type() == kBool ? additive_mask(attn_mask.logical_not(), query.scalar_type(), op, "")
                                            : attn_mask;
  }
  return std::get<0>(attend(query, key, value, mask, dropout_p));
}

std::tuple<Tensor, Tensor> functional::multi_head_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                                                    const Tensor& value_in,
                                                                    const MultiheadAttentionForwardFuncOptions& o) {
  const char* op = "multi_head_attention_forward";
  EMBER_CHECK(query_in.dim() == 2 || query_in.dim() == 3, op, ": query should be unbatched 2D or batched 3D tensor "
              "but received ", query_in.dim(), "-D query tensor");
  const bool batched = query_in.dim() == 3;
  const char* kind = batched ? "batched (3-D)" : "unbatched (2-D)";
  EMBER_CHECK(key_in.dim() == query_in.dim() && value_in.dim() == query_in.dim(), op, ": For ", kind,
              " `query`, expected `key` and `value` to be ", query_in.dim(), "-D but found ", key_in.dim(), "-D and ",
              value_in.dim(), "-D tensors respectively");
  Tensor kpm = o.key_padding_mask(), mask = o.attn_mask();
  EMBER_CHECK(!kpm.defined() || kpm.dim() == query_in.dim() - 1, op, ": For ", kind, " `query`, expected "
              "`key_padding_mask` to be `None` or ", query_in.dim() - 1, "-D but found ", kpm.dim(),
              "-D tensor instead");
  EMBER_CHECK(!mask.defined() || mask.dim() == 2 || mask.dim() == 3, op, ": For ", kind, " `query`, expected "
              "`attn_mask` to be `None`, 2-D or 3-D but found ", mask.dim(), "-D tensor instead");
  const Tensor query = batched ? query_in : query_in.unsqueeze(1);  // (L, N, E)
  const Tensor key = batched ? key_in : key_in.unsqueeze(1), value = batched ? value_in : value_in.unsqueeze(1);
  if (kpm.defined() && !batched) kpm = kpm.unsqueeze(0);

  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2), heads = o.num_heads();
  EMBER_CHECK(embed_dim == o.embed_dim_to_check(), op, ": was expecting embedding dimension of ",
              o.embed_dim_to_check(), ", but got ", embed_dim);
  EMBER_CHECK(heads > 0 && embed_dim % heads == 0, op, ": embed_dim ", embed_dim, " not divisible by num_heads ",
              heads);
  const int64_t head_dim = embed_dim / heads;
  EMBER_CHECK(key.size(0) == value.size(0) && key.size(1) == value.size(1), op, ": key's sequence and batch dims ",
              key.sizes(), " do not match value's ", value.sizes());
  EMBER_CHECK(key.size(1) == bsz, op, ": query's batch size ", bsz, " does not match key's ", key.size(1));

  // input projections
  Tensor w_q, w_k, w_v, b_q, b_k, b_v;
  if (o.use_separate_proj_weight()) {
    EMBER_CHECK(o.q_proj_weight().defined() && o.k_proj_weight().defined() && o.v_proj_weight().defined(), op,
                ": use_separate_proj_weight is true but q_proj_weight, k_proj_weight or v_proj_weight is undefined");
    w_q = o.q_proj_weight(), w_k = o.k_proj_weight(), w_v = o.v_proj_weight();
  } else {
    EMBER_CHECK(o.in_proj_weight().defined(), op,
                ": use_separate_proj_weight is false but in_proj_weight is undefined");
    EMBER_CHECK(key.sizes() == value.sizes(), op, ": key shape ", key.sizes(), " does not match value shape ",
                value.sizes());
    const auto w = o.in_proj_weight().chunk(3);
    w_q = w[0], w_k = w[1], w_v = w[2];
  }
  if (o.in_proj_bias().defined()) {
    const auto b = o.in_proj_bias().chunk(3);
    b_q = b[0], b_k = b[1], b_v = b[2];
  }
  Tensor q = functional::linear(query, w_q, b_q), k = functional::linear(key, w_k, b_k);
  Tensor v = functional::linear(value, w_v, b_v);

  // masks, as scores to add
  mask = additive_mask(mask, q.scalar_type(), op, "attn_mask");
  kpm = additive_mask(kpm, q.scalar_type(), op, "key_padding_mask");
  if (mask.defined()) {
    const std::vector<int64_t> want = mask.dim() == 2 ? std::vector<int64_t>{tgt_len, key.size(0)}
                                                      : std::vector<int64_t>{bsz * heads, tgt_len, key.size(0)};
    EMBER_CHECK(mask.sizes() == IntArrayRef(want), op, ": The shape of the ", mask.dim(), "D attn_mask is ",
                mask.sizes(), ", but should be ", IntArrayRef(want), ".");
    if (mask.dim() == 2) mask = mask.unsqueeze(0);
  }
  auto pad_masks = [&] {
    if (mask.defined()) mask = pad(mask, {0, 1});
    if (kpm.defined()) kpm = pad(kpm, {0, 1});
  };
  if (o.bias_k().defined() || o.bias_v().defined()) {
    EMBER_CHECK(o.bias_k().defined() && o.bias_v().defined(), op, ": bias_k and bias_v must be given together");
    EMBER_CHECK(!o.static_k().defined() && !o.static_v().defined(), op, ": bias cannot be added to static key/value.");
    k = cat({k, o.bias_k().expand({1, bsz, embed_dim})});
    v = cat({v, o.bias_v().expand({1, bsz, embed_dim})});
    pad_masks();
  }

  // heads: (N * heads, len, head_dim)
  auto split_heads = [&](const Tensor& t) { return t.reshape({t.size(0), bsz * heads, head_dim}).transpose(0, 1); };
  auto given = [&](const Tensor& s, const Tensor& t, const char* name) {
    if (!s.defined()) return split_heads(t);
    EMBER_CHECK(s.dim() == 3 && s.size(0) == bsz * heads && s.size(2) == head_dim, op, ": expecting ", name,
                " of shape (", bsz * heads, ", S, ", head_dim, "), but got ", s.sizes());
    return s;
  };
  q = split_heads(q);
  k = given(o.static_k(), k, "static_k");
  v = given(o.static_v(), v, "static_v");
  if (o.add_zero_attn()) {
    k = cat({k, zeros({bsz * heads, 1, head_dim}, k.options().requires_grad(false))}, 1);
    v = cat({v, zeros({bsz * heads, 1, head_dim}, v.options().requires_grad(false))}, 1);
    pad_masks();
  }
  const int64_t src_len = k.size(1);
  if (kpm.defined()) {
    const std::vector<int64_t> want{bsz, src_len};
    EMBER_CHECK(kpm.sizes() == IntArrayRef(want), op, ": expecting key_padding_mask shape of (", bsz, ", ",
                src_len, "), but got ", kpm.sizes());
    kpm = kpm.view({bsz, 1, 1, src_len}).expand({bsz, heads, 1, src_len}).reshape({bsz * heads, 1, src_len});
    mask = mask.defined() ? mask.add(kpm) : kpm;
  }

  auto [out, weights] = attend(q, k, v, mask, o.training() ? o.dropout_p() : 0.0);
  out = out.transpose(0, 1).reshape({tgt_len * bsz, embed_dim});
  out = functional::linear(out, o.out_proj_weight(), o.out_proj_bias()).view({tgt_len, bsz, -1});
  if (!o.need_weights()) {
    weights = Tensor();
  } else {
    weights = weights.view({bsz, heads, tgt_len, src_len});
    if (o.average_attn_weights()) weights = weights.sum(1).div(double(heads));
    if (!batched) weights = weights.squeeze(0);
  }
  return {batched ? out : out.squeeze(1), weights};
}

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
TransformerActivation::TransformerActivation(enumtype::kReLU) : name_("relu") {
  function_ = [](const Tensor& x) { return ember::relu(x); };
}
TransformerActivation::TransformerActivation(enumtype::kGELU) : name_("gelu") {
  function_ = [](const Tensor& x) { return ember::gelu(x); };
}

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
  for (const auto& m : *layers) x = m->as<TransformerEncoderLayerImpl>()->forward(x, src_mask, src_key_padding_mask);
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
  for (const auto& m : *layers)
    x = m->as<TransformerDecoderLayerImpl>()->forward(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                                      memory_key_padding_mask);
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
  return full({sz, sz}, -kInf).triu(1);
}

}  // namespace ember::nn
