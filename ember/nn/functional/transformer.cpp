#include "ember/nn/functional/transformer.h"

#include <cmath>
#include <limits>
#include <ostream>

#include "ember/nn/functional/dropout.h"
#include "ember/nn/functional/linear.h"
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

}  // namespace ember::nn
