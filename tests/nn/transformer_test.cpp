// scaled_dot_product_attention, MultiheadAttention and the transformer modules against PyTorch
// (tests/golden/gen_rnn_transformer.py): outputs and gradients of inputs and parameters;
// gradcheck in both modes; parameter names, cloning, masks and errors.
#include <torch/torch.h>

#include <cmath>
#include <functional>
#include <sstream>

#include "test_util.h"

namespace ember::test {
// Defined in rnn_test.cpp (same binary): compares a module or function with a golden case.
using GoldenInputs = std::function<Tensor(const std::string&)>;
void expect_matches_pytorch(const std::string& name, const std::shared_ptr<nn::Module>& module,
                            const std::function<std::vector<Tensor>(const GoldenInputs&)>& run);
}  // namespace ember::test

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;
using ember::test::expect_matches_pytorch;
using ember::test::GoldenInputs;
using V = std::vector<torch::Tensor>;
const torch::Tensor none;  // an absent mask

V pair(const std::tuple<torch::Tensor, torch::Tensor>& t) { return {std::get<0>(t), std::get<1>(t)}; }

TEST(AttentionGolden, MultiheadAttentionWithBoolMaskAndKeyPadding) {
  nn::MultiheadAttention mha(6, 2);
  expect_matches_pytorch("mha", mha.ptr(), [&](const GoldenInputs& in) {
    return pair(mha(in("query"), in("key"), in("value"), in("key_padding_mask"), true, in("attn_mask")));
  });
}

TEST(AttentionGolden, MultiheadAttentionKdimVdimBiasKvZeroAttnBatchFirstPerHeadWeights) {
  nn::MultiheadAttention mha(
      nn::MultiheadAttentionOptions(6, 3).kdim(4).vdim(5).add_bias_kv(true).add_zero_attn(true).batch_first(true));
  expect_matches_pytorch("mha_kv", mha.ptr(), [&](const GoldenInputs& in) {
    return pair(mha(in("query"), in("key"), in("value"), in("key_padding_mask"), true, in("attn_mask"), false));
  });
}

TEST(AttentionGolden, UnbatchedSelfAttentionWithFloatKeyPadding) {
  nn::MultiheadAttention mha(4, 2);
  expect_matches_pytorch("mha_unbatched", mha.ptr(), [&](const GoldenInputs& in) {
    return pair(mha(in("x"), in("x"), in("x"), in("key_padding_mask")));
  });
}

TEST(AttentionGolden, ScaledDotProductAttention) {
  for (const char* name : {"sdpa", "sdpa_bool"})
    expect_matches_pytorch(name, nullptr, [](const GoldenInputs& in) {
      return V{F::scaled_dot_product_attention(in("q"), in("k"), in("v"), in("attn_mask"))};
    });
  expect_matches_pytorch("sdpa_causal", nullptr, [](const GoldenInputs& in) {
    return V{F::scaled_dot_product_attention(in("q"), in("k"), in("v"), {}, 0.0, /*is_causal=*/true)};
  });
}

TEST(TransformerGolden, EncoderLayers) {
  nn::TransformerEncoderLayer post(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16));
  expect_matches_pytorch("enc_layer", post.ptr(), [&](const GoldenInputs& in) {
    return V{post(in("src"), in("src_mask"), in("src_key_padding_mask"))};
  });
  nn::TransformerEncoderLayer pre(nn::TransformerEncoderLayerOptions(8, 2)
                                      .dim_feedforward(16)
                                      .activation(torch::kGELU)
                                      .layer_norm_eps(1e-6)
                                      .batch_first(true)
                                      .norm_first(true));
  expect_matches_pytorch("enc_layer_norm_first", pre.ptr(),
                         [&](const GoldenInputs& in) { return V{pre(in("src"), in("src_mask"))}; });
}

TEST(TransformerGolden, DecoderLayers) {
  nn::TransformerDecoderLayer post(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16));
  expect_matches_pytorch("dec_layer", post.ptr(), [&](const GoldenInputs& in) {
    return V{post(in("tgt"), in("memory"), in("tgt_mask"), none, none, in("memory_key_padding_mask"))};
  });
  nn::TransformerDecoderLayer pre(nn::TransformerDecoderLayerOptions(8, 2)
                                      .dim_feedforward(16)
                                      .activation(torch::kGELU)
                                      .batch_first(true)
                                      .norm_first(true));
  expect_matches_pytorch("dec_layer_norm_first", pre.ptr(), [&](const GoldenInputs& in) {
    return V{pre(in("tgt"), in("memory"), in("tgt_mask"), in("memory_mask"), in("tgt_key_padding_mask"))};
  });
}

TEST(TransformerGolden, EncoderDecoderAndTransformer) {
  nn::TransformerEncoder encoder(
      nn::TransformerEncoderOptions(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16), 2)
          .norm(nn::AnyModule(nn::LayerNorm(nn::LayerNormOptions({8})))));
  expect_matches_pytorch("encoder", encoder.ptr(), [&](const GoldenInputs& in) {
    return V{encoder(in("src"), none, in("src_key_padding_mask"))};
  });
  nn::TransformerDecoder decoder(
      nn::TransformerDecoderLayer(nn::TransformerDecoderLayerOptions(8, 2).dim_feedforward(16)), 2);
  expect_matches_pytorch("decoder", decoder.ptr(),
                         [&](const GoldenInputs& in) { return V{decoder(in("tgt"), in("memory"), in("tgt_mask"))}; });
  nn::Transformer transformer(nn::TransformerOptions(8, 2, 2, 1).dim_feedforward(16).batch_first(true));
  expect_matches_pytorch("transformer", transformer.ptr(), [&](const GoldenInputs& in) {
    return V{transformer(in("src"), in("tgt"), none, in("tgt_mask"), none, in("src_key_padding_mask"), none,
                         in("src_key_padding_mask"))};
  });
}

TEST(AttentionModules, ParameterNamesWeightsAndMasks) {
  torch::manual_seed(0);
  nn::MultiheadAttention mha(6, 2);
  EXPECT_EQ(mha->named_parameters().keys(),
            (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}));
  EXPECT_EQ(mha->in_proj_weight.sizes(), torch::IntArrayRef({18, 6}));
  EXPECT_TRUE(mha->in_proj_bias.eq(0).all().item<bool>());
  nn::MultiheadAttention sep(nn::MultiheadAttentionOptions(6, 2).kdim(3).vdim(4).bias(false).add_bias_kv(true));
  EXPECT_EQ(sep->named_parameters().keys(), (std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight",
                                                                      "bias_k", "bias_v", "out_proj.weight"}));
  EXPECT_EQ(sep->k_proj_weight.sizes(), torch::IntArrayRef({6, 3}));

  // weights: averaged (N, L, S) rows summing to one; per head (N, H, L, S); none when not needed
  torch::Tensor q = torch::randn({3, 2, 6}), kv = torch::randn({4, 2, 6});
  auto [out, w] = mha(q, kv, kv);
  EXPECT_EQ(out.sizes(), torch::IntArrayRef({3, 2, 6}));
  EXPECT_EQ(w.sizes(), torch::IntArrayRef({2, 3, 4}));
  EXPECT_TRUE(ember::test::tensors_close(w.sum(-1), torch::ones({2, 3})));
  EXPECT_EQ(std::get<1>(mha(q, kv, kv, none, true, none, false)).sizes(), torch::IntArrayRef({2, 2, 3, 4}));
  EXPECT_FALSE(std::get<1>(mha(q, kv, kv, none, false)).defined());
  // a masked key gets zero weight; bool and -inf float masks agree
  torch::Tensor padding = torch::zeros({2, 4}, torch::kBool);
  padding[0][2] = true;
  torch::Tensor wp = std::get<1>(mha(q, kv, kv, padding));
  EXPECT_EQ(wp[0].select(1, 2).abs().sum().item<float>(), 0.f);
  EXPECT_TRUE(wp[1].select(1, 2).gt(0).all().item<bool>());
  torch::Tensor float_padding = torch::zeros({2, 4}).masked_fill(padding, -INFINITY);
  EXPECT_TRUE(
      ember::test::tensors_close(std::get<0>(mha(q, kv, kv, float_padding)), std::get<0>(mha(q, kv, kv, padding))));
  // dropout on the weights only in training
  nn::MultiheadAttention dropping(nn::MultiheadAttentionOptions(6, 2).dropout(0.5));
  torch::Tensor w1 = std::get<1>(dropping(q, kv, kv, none, true, none, false));
  EXPECT_TRUE(w1.eq(0).any().item<bool>());
  dropping->eval();
  EXPECT_FALSE(std::get<1>(dropping(q, kv, kv, none, true, none, false)).eq(0).any().item<bool>());

  torch::Tensor causal = nn::TransformerImpl::generate_square_subsequent_mask(3);
  EXPECT_EQ(causal.isinf().sum().item<int64_t>(), 3);
  EXPECT_EQ(causal[0][1].item<float>(), -INFINITY);
  EXPECT_EQ(causal[1][0].item<float>(), 0.f);
  // sdpa: is_causal is the lower-triangular boolean mask and the -inf float mask
  torch::Tensor a = torch::randn({2, 3, 4}), b = torch::randn({2, 3, 4}), c = torch::randn({2, 3, 5});
  torch::Tensor by_flag = F::scaled_dot_product_attention(a, b, c, {}, 0.0, true);
  EXPECT_TRUE(ember::test::tensors_close(
      by_flag, F::scaled_dot_product_attention(a, b, c, torch::ones({3, 3}, torch::kBool).tril())));
  EXPECT_TRUE(ember::test::tensors_close(by_flag, F::scaled_dot_product_attention(a, b, c, causal)));
}

TEST(TransformerModules, NamesCloneAndPrinting) {
  torch::manual_seed(1);
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).dropout(0.0));
  const std::vector<std::string> names{"self_attn.in_proj_weight",
                                       "self_attn.in_proj_bias",
                                       "self_attn.out_proj.weight",
                                       "self_attn.out_proj.bias",
                                       "linear1.weight",
                                       "linear1.bias",
                                       "linear2.weight",
                                       "linear2.bias",
                                       "norm1.weight",
                                       "norm1.bias",
                                       "norm2.weight",
                                       "norm2.bias"};
  EXPECT_EQ(layer->named_parameters().keys(), names);
  nn::TransformerEncoder encoder(layer, 2);
  EXPECT_EQ(encoder->named_parameters().size(), 24u);
  EXPECT_TRUE(encoder->named_parameters().contains("layers.1.norm2.bias"));
  EXPECT_FALSE(encoder->named_parameters().contains("norm.weight"));
  // the layers are clones: equal values, separate tensors; member handles follow the clone
  auto p = encoder->named_parameters();
  EXPECT_TRUE(p["layers.0.linear1.weight"].equal(p["layers.1.linear1.weight"]));
  EXPECT_FALSE(p["layers.0.linear1.weight"].is_same(p["layers.1.linear1.weight"]));
  auto* second = &encoder->layers->at<nn::TransformerEncoderLayerImpl>(1);
  EXPECT_TRUE(second->linear1->weight.is_same(p["layers.1.linear1.weight"]));
  EXPECT_TRUE(second->self_attn->out_proj->weight.is_same(p["layers.1.self_attn.out_proj.weight"]));
  torch::Tensor x = torch::randn({3, 2, 4});
  EXPECT_TRUE(ember::test::tensors_close(encoder(x), layer(layer(x))));
  auto copy = std::dynamic_pointer_cast<nn::TransformerEncoderImpl>(encoder->clone());
  ASSERT_TRUE(copy);
  EXPECT_TRUE(copy->forward(x).equal(encoder(x)));
  {
    torch::NoGradGuard g;
    copy->layers->at<nn::TransformerEncoderLayerImpl>(0).linear2->bias.add_(1);
  }
  EXPECT_FALSE(copy->forward(x).equal(encoder(x)));

  nn::Transformer t(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(8));
  auto tp = t->named_parameters();
  EXPECT_TRUE(tp.contains("encoder.layers.0.self_attn.in_proj_weight"));
  EXPECT_TRUE(tp.contains("decoder.layers.0.multihead_attn.out_proj.bias"));
  EXPECT_TRUE(tp.contains("decoder.norm.weight"));
  EXPECT_EQ(t(torch::randn({5, 2, 4}), torch::randn({3, 2, 4})).sizes(), torch::IntArrayRef({3, 2, 4}));
  std::ostringstream s;
  s << *layer;
  // LibTorch 1.13 prints these two by class name alone, without options.
  EXPECT_EQ(s.str().rfind("torch::nn::TransformerEncoderLayerImpl(\n", 0), 0u) << s.str();
  EXPECT_NE(s.str().find("(self_attn): torch::nn::MultiheadAttention(\n    (out_proj): torch::nn::Linear(in_features=4"), std::string::npos) << s.str();
  // a custom activation
  nn::TransformerEncoderLayer custom(
      nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(8).activation([](const torch::Tensor& v) { return v; }));
  EXPECT_EQ(custom(x).sizes(), x.sizes());
}

TEST(AttentionGradcheck, AttentionAndLayersInBothModes) {
  torch::manual_seed(2);
  torch::autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  auto dbl = [](torch::IntArrayRef s) { return torch::randn(s, torch::dtype(torch::kDouble).requires_grad(true)); };
  torch::Tensor mask = torch::randn({3, 4}, torch::kDouble);
  EXPECT_TRUE(
      torch::autograd::gradcheck([&](const V& v) { return V{F::scaled_dot_product_attention(v[0], v[1], v[2], mask)}; },
                                 {dbl({2, 3, 2}), dbl({2, 4, 2}), dbl({2, 4, 3})}, o));
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).add_bias_kv(true));
  mha->to(torch::kDouble);
  torch::Tensor padding = torch::zeros({1, 3}, torch::kBool);
  padding[0][2] = true;
  EXPECT_TRUE(torch::autograd::gradcheck([&](const V& v) { return pair(mha(v[0], v[1], v[1], padding)); },
                                         {dbl({2, 1, 4}), dbl({3, 1, 4})}, o));
  nn::TransformerEncoderLayer enc(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(6).norm_first(true));
  enc->to(torch::kDouble);
  enc->eval();
  EXPECT_TRUE(torch::autograd::gradcheck([&](const V& v) { return V{enc(v[0])}; }, {dbl({3, 1, 4})}, o));
  nn::TransformerDecoderLayer dec(nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(6).activation(torch::kGELU));
  dec->to(torch::kDouble);
  dec->eval();
  torch::Tensor causal = nn::TransformerImpl::generate_square_subsequent_mask(2).to(torch::kDouble);
  EXPECT_TRUE(torch::autograd::gradcheck([&](const V& v) { return V{dec(v[0], v[1], causal)}; },
                                         {dbl({2, 1, 4}), dbl({3, 1, 4})}, o));
}

TEST(AttentionErrors, MessagesNameTheOpTheShapesAndTheExpectation) {
  nn::MultiheadAttention mha(6, 2);
  torch::Tensor q = torch::randn({3, 2, 6}), kv = torch::randn({4, 2, 6});
  EXPECT_ERROR_WITH(mha(torch::randn({3, 2, 5}), kv, kv), "was expecting embedding dimension of 6, but got 5");
  EXPECT_ERROR_WITH(mha(q, torch::randn({4, 6}), kv),
                    "For batched (3-D) `query`, expected `key` and `value` to be 3-D");
  EXPECT_ERROR_WITH(mha(q, kv, kv, none, true, torch::zeros({3, 3})),
                    "The shape of the 2D attn_mask is [3, 3], but should be [3, 4].");
  EXPECT_ERROR_WITH(mha(q, kv, kv, torch::zeros({2, 5}, torch::kBool)),
                    "expecting key_padding_mask shape of (2, 4), but got [2, 5]");
  EXPECT_ERROR_WITH(mha(q, kv, kv, torch::zeros({2, 4}, torch::kLong)),
                    "only bool and floating types of key_padding_mask");
  EXPECT_ERROR_WITH(mha(q, kv, torch::randn({5, 2, 6})), "do not match value's");
  EXPECT_ERROR_WITH(nn::MultiheadAttention(6, 4), "embed_dim must be divisible by num_heads");
  EXPECT_ERROR_WITH(F::scaled_dot_product_attention(q, kv, kv, torch::zeros({3, 4}), 0.0, true),
                    "Explicit attn_mask should not be set when is_causal=True");
  EXPECT_ERROR_WITH(
      F::scaled_dot_product_attention(torch::randn({2, 3, 5}), torch::randn({2, 4, 6}), torch::randn({2, 4, 6})),
      "expected query (..., L, E), key (..., S, E) and value (..., S, Ev)");
  nn::Transformer t(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(8));
  EXPECT_ERROR_WITH(t(torch::randn({5, 2, 4}), torch::randn({3, 3, 4})),
                    "the batch number of src and tgt must be equal");
  EXPECT_ERROR_WITH(t(torch::randn({5, 2, 4}), torch::randn({3, 2, 6})), "must be equal to d_model (4)");
  // (Other activations than kReLU, kGELU and functions do not compile, as in LibTorch.)
  static_assert(!std::is_convertible_v<torch::enumtype::kTanh, nn::TransformerActivation>);
}

}  // namespace
