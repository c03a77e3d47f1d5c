// The common torch::nn layers as LibTorch 1.13 programs use them: linear and convolution layers,
// normalization, embeddings, recurrent layers with batch_first and tuple states, attention and
// transformers, pooling/upsampling/reshaping layers and activations, with output shapes and
// seeded values. Expected numbers are what LibTorch 1.13 computes.
#include <torch/torch.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "libtorch_test_util.h"

namespace nn = torch::nn;

namespace {

// Compare the first values of a tensor (float values printed with 9 significant digits).
void expect_first(const torch::Tensor& t, const std::vector<double>& expected, double tol = 1e-5) {
  auto flat = t.detach().flatten().to(torch::kDouble);
  ASSERT_GE(flat.numel(), static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(flat[static_cast<int64_t>(i)].item<double>(), expected[i], tol) << "element " << i;
}

using libtorch_test::dims;

}  // namespace

TEST(NnLayersUsage, LinearAndConvolutions) {
  torch::manual_seed(0);
  nn::Linear lin(3, 2);
  expect_first(lin->weight, {-0.00432251766, 0.309715837, -0.475185335, -0.424894601, -0.222368971, 0.154820725});
  expect_first(lin(torch::ones({1, 3})), {-0.181231171, -0.0346679091});
  nn::Linear nobias(nn::LinearOptions(3, 2).bias(false));
  EXPECT_FALSE(nobias->bias.defined());
  EXPECT_EQ(nobias->parameters().size(), 1u);

  nn::Conv1d c1(nn::Conv1dOptions(2, 4, 3).padding(1));
  EXPECT_EQ(dims(c1(torch::randn({5, 2, 10}))), (std::vector<int64_t>{5, 4, 10}));
  nn::Conv2d c2(nn::Conv2dOptions(3, 8, {3, 5}).stride({2, 1}).padding({1, 2}).bias(false));
  EXPECT_EQ(dims(c2->weight), (std::vector<int64_t>{8, 3, 3, 5}));
  EXPECT_EQ(dims(c2(torch::randn({1, 3, 16, 16}))), (std::vector<int64_t>{1, 8, 8, 16}));
  nn::Conv2d same(nn::Conv2dOptions(1, 1, 3).padding(torch::kSame).padding_mode(torch::kReflect));
  EXPECT_EQ(dims(same(torch::randn({1, 1, 7, 9}))), (std::vector<int64_t>{1, 1, 7, 9}));
  nn::Conv2d grouped(nn::Conv2dOptions(4, 8, 1).groups(2));
  EXPECT_EQ(dims(grouped->weight), (std::vector<int64_t>{8, 2, 1, 1}));
  nn::Conv3d c3(nn::Conv3dOptions(1, 2, 2));
  EXPECT_EQ(dims(c3(torch::randn({1, 1, 4, 4, 4}))), (std::vector<int64_t>{1, 2, 3, 3, 3}));
  nn::ConvTranspose2d up(nn::ConvTranspose2dOptions(4, 2, 2).stride(2));
  EXPECT_EQ(dims(up(torch::randn({1, 4, 5, 5}))), (std::vector<int64_t>{1, 2, 10, 10}));
  EXPECT_EQ(dims(up->forward(torch::randn({1, 4, 5, 5}), std::vector<int64_t>{11, 11})), (std::vector<int64_t>{1, 2, 11, 11}));
  nn::ConvTranspose1d up1(nn::ConvTranspose1dOptions(2, 1, 3).stride(2).padding(1).output_padding(1));
  EXPECT_EQ(dims(up1(torch::randn({1, 2, 4}))), (std::vector<int64_t>{1, 1, 8}));
  EXPECT_THROW(c2(torch::randn({1, 4, 16, 16})), c10::Error);

  torch::manual_seed(1);
  nn::Conv2d conv(nn::Conv2dOptions(1, 2, 2));
  auto out = conv(torch::arange(9, torch::kFloat).view({1, 1, 3, 3}));
  expect_first(out, {0.496765018, 0.671461225, 1.02085364, 1.19554996, 0.947536349, 0.928185821, 0.889484704, 0.870134234});
}

TEST(NnLayersUsage, NormalizationLayers) {
  nn::BatchNorm1d bn(3);
  auto x = torch::tensor({{1.0f, 2.0f, 3.0f}, {3.0f, 6.0f, 9.0f}});
  auto y = bn(x);
  EXPECT_TRUE(y.allclose(torch::tensor({{-1.0f, -1.0f, -1.0f}, {1.0f, 1.0f, 1.0f}}), 1e-4, 1e-4));
  EXPECT_TRUE(bn->running_mean.allclose(torch::tensor({0.2f, 0.4f, 0.6f})));
  // running_var uses the unbiased batch variance
  EXPECT_TRUE(bn->running_var.allclose(torch::tensor({0.9f + 0.2f, 0.9f + 0.8f, 0.9f + 1.8f})));
  nn::BatchNorm2d bn2(nn::BatchNorm2dOptions(4).affine(false).momentum(0.5));
  EXPECT_FALSE(bn2->weight.defined());
  EXPECT_EQ(dims(bn2(torch::randn({2, 4, 3, 3}))), (std::vector<int64_t>{2, 4, 3, 3}));
  nn::BatchNorm1d no_stats(nn::BatchNorm1dOptions(2).track_running_stats(false));
  EXPECT_FALSE(no_stats->running_mean.defined());

  nn::LayerNorm ln(nn::LayerNormOptions({4}).eps(1e-5));
  auto l = ln(torch::tensor({{1.0f, 2.0f, 3.0f, 4.0f}}));
  EXPECT_TRUE(l.allclose(torch::tensor({{-1.34163487f, -0.447211623f, 0.447211623f, 1.34163487f}}), 1e-5, 1e-5));
  EXPECT_EQ(dims(ln->weight), (std::vector<int64_t>{4}));
  nn::GroupNorm gn(nn::GroupNormOptions(2, 4));
  auto g = gn(torch::arange(8, torch::kFloat).view({1, 4, 2}));
  EXPECT_NEAR(g.index({0, torch::indexing::Slice(0, 2)}).mean().item<float>(), 0.0f, 1e-6);
  nn::InstanceNorm2d in(nn::InstanceNorm2dOptions(3));
  EXPECT_EQ(dims(in(torch::randn({2, 3, 4, 4}))), (std::vector<int64_t>{2, 3, 4, 4}));
  nn::LocalResponseNorm lrn(2);
  EXPECT_EQ(dims(lrn(torch::ones({1, 4, 2, 2}))), (std::vector<int64_t>{1, 4, 2, 2}));
}

TEST(NnLayersUsage, EmbeddingLayers) {
  torch::manual_seed(3);
  nn::Embedding emb(nn::EmbeddingOptions(10, 3).padding_idx(0));
  EXPECT_TRUE(emb->weight[0].eq(0).all().item<bool>());
  auto out = emb(torch::tensor({{1, 0, 4}, {9, 9, 2}}));
  EXPECT_EQ(dims(out), (std::vector<int64_t>{2, 3, 3}));
  expect_first(emb->weight[1], {0.0715277344, 0.664839387, -0.286780298});
  out.sum().backward();
  EXPECT_TRUE(emb->weight.grad()[0].eq(0).all().item<bool>());
  EXPECT_TRUE(emb->weight.grad()[9].eq(2).all().item<bool>());

  auto weights = torch::tensor({{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}});
  auto pre = nn::Embedding::from_pretrained(weights);
  EXPECT_FALSE(pre->weight.requires_grad());
  EXPECT_TRUE(pre(torch::tensor({2})).equal(torch::tensor({{5.0f, 6.0f}})));
  auto trainable = nn::Embedding(nn::EmbeddingOptions(3, 2)._weight(weights.clone()));
  EXPECT_TRUE(trainable->weight.equal(weights));

  auto bag = nn::EmbeddingBag::from_pretrained(weights, nn::EmbeddingBagFromPretrainedOptions().mode(torch::kSum));
  auto summed = bag(torch::tensor({0, 1, 2, 2}), torch::tensor({0, 2}));
  EXPECT_TRUE(summed.equal(torch::tensor({{4.0f, 6.0f}, {10.0f, 12.0f}})));
  nn::EmbeddingBag mean_bag(nn::EmbeddingBagOptions(10, 4));
  EXPECT_EQ(dims(mean_bag(torch::tensor({{1, 2}, {3, 4}, {5, 6}}))), (std::vector<int64_t>{3, 4}));
  EXPECT_THROW(emb(torch::tensor({10})), c10::Error);
}

TEST(NnLayersUsage, RecurrentLayers) {
  torch::manual_seed(2);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).batch_first(true));
  auto x = torch::linspace(-1, 1, 2 * 4 * 2).view({2, 4, 2});
  auto [out, state] = lstm(x);
  auto [h, c] = state;
  EXPECT_EQ(dims(out), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(dims(h), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(dims(c), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_TRUE(out.index({torch::indexing::Slice(), -1}).allclose(h[1]));
  expect_first(out, {-0.0843002573, -0.106951565, -0.12151254, -0.124135129, -0.172432154, -0.185250297, -0.143673569, -0.209394276});
  // feeding the state back in
  auto [out2, state2] = lstm->forward(x, state);
  EXPECT_EQ(dims(std::get<0>(state2)), (std::vector<int64_t>{2, 2, 3}));
  std::vector<std::string> names;
  for (auto& p : lstm->named_parameters()) names.push_back(p.key());
  EXPECT_EQ(names.size(), 8u);
  EXPECT_EQ(names[0], "weight_ih_l0");
  EXPECT_EQ(names[7], "bias_hh_l1");
  EXPECT_EQ(dims(lstm->named_parameters()["weight_ih_l0"]), (std::vector<int64_t>{12, 2}));

  nn::GRU gru(nn::GRUOptions(2, 5).bidirectional(true));
  auto [gout, gh] = gru(torch::randn({7, 3, 2}));  // (seq, batch, feature)
  EXPECT_EQ(dims(gout), (std::vector<int64_t>{7, 3, 10}));
  EXPECT_EQ(dims(gh), (std::vector<int64_t>{2, 3, 5}));

  nn::RNN rnn(nn::RNNOptions(4, 6).nonlinearity(torch::kReLU).batch_first(true));
  auto [rout, rh] = rnn(torch::randn({3, 5, 4}), torch::zeros({1, 3, 6}));
  EXPECT_EQ(dims(rout), (std::vector<int64_t>{3, 5, 6}));
  EXPECT_TRUE((rout >= 0).all().item<bool>());

  nn::LSTMCell cell(2, 3);
  auto [hx, cx] = cell(torch::randn({4, 2}));
  EXPECT_EQ(dims(hx), (std::vector<int64_t>{4, 3}));
  nn::GRUCell gcell(2, 3);
  EXPECT_EQ(dims(gcell(torch::randn({4, 2}), torch::zeros({4, 3}))), (std::vector<int64_t>{4, 3}));
}

TEST(NnLayersUsage, AttentionAndTransformer) {
  torch::manual_seed(4);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(8, 2));
  auto q = torch::randn({5, 3, 8});  // (L, N, E)
  auto [attn, weights] = mha(q, q, q);
  EXPECT_EQ(dims(attn), (std::vector<int64_t>{5, 3, 8}));
  EXPECT_EQ(dims(weights), (std::vector<int64_t>{3, 5, 5}));  // averaged over heads
  EXPECT_TRUE(weights.sum(-1).allclose(torch::ones({3, 5})));
  expect_first(attn, {-0.107016534, -0.114001311, 0.064507775, 0.153976873, -0.0258313939, -0.00163039297, -0.136688605, -0.104836732});
  // 1.13's C++ attention adds attn_mask to the logits, so causal masks are float -inf masks
  auto mask = nn::TransformerImpl::generate_square_subsequent_mask(5);
  auto masked = mha->forward(q, q, q, /*key_padding_mask=*/{}, /*need_weights=*/true, /*attn_mask=*/mask);
  EXPECT_EQ(std::get<1>(masked)[0][0][1].item<float>(), 0.0f);

  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(8, 2).dim_feedforward(16).dropout(0.0));
  nn::TransformerEncoder encoder(nn::TransformerEncoderOptions(layer, 3));
  auto src = torch::randn({6, 2, 8});
  auto enc = encoder(src);
  EXPECT_EQ(dims(enc), (std::vector<int64_t>{6, 2, 8}));
  EXPECT_EQ(encoder->layers->size(), 3u);

  nn::Transformer transformer(nn::TransformerOptions(8, 2, 1, 1).dim_feedforward(16));
  auto tgt = torch::randn({4, 2, 8});
  auto tmask = nn::TransformerImpl::generate_square_subsequent_mask(4);
  EXPECT_EQ(tmask[0][1].item<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(tmask[1][0].item<float>(), 0.0f);
  EXPECT_EQ(dims(transformer->forward(src, tgt, /*src_mask=*/torch::Tensor(), /*tgt_mask=*/tmask)), (std::vector<int64_t>{4, 2, 8}));
}

TEST(NnLayersUsage, PoolingUpsamplingAndReshaping) {
  auto img = torch::arange(16, torch::kFloat).view({1, 1, 4, 4});
  nn::MaxPool2d pool(nn::MaxPool2dOptions(2));
  EXPECT_TRUE(pool(img).equal(torch::tensor({{{{5.0f, 7.0f}, {13.0f, 15.0f}}}})));
  nn::AvgPool2d avg(nn::AvgPool2dOptions(2).stride(2));
  EXPECT_TRUE(avg(img).equal(torch::tensor({{{{2.5f, 4.5f}, {10.5f, 12.5f}}}})));
  auto [pooled, idx] = nn::MaxPool2d(2)->forward_with_indices(img);
  EXPECT_TRUE(idx.flatten().equal(torch::tensor({5, 7, 13, 15})));
  nn::MaxUnpool2d unpool(nn::MaxUnpool2dOptions(2));
  EXPECT_EQ(unpool(pooled, idx).sum().item<float>(), 40.0f);
  nn::AdaptiveAvgPool2d gap(nn::AdaptiveAvgPool2dOptions({1, 1}));
  EXPECT_FLOAT_EQ(gap(img).item<float>(), 7.5f);
  nn::AdaptiveMaxPool1d amp(2);
  EXPECT_TRUE(amp(torch::tensor({{{1.0f, 5.0f, 2.0f, 4.0f}}})).equal(torch::tensor({{{5.0f, 4.0f}}})));
  nn::MaxPool1d mp1(nn::MaxPool1dOptions(3).stride(1).padding(1));
  EXPECT_EQ(dims(mp1(torch::randn({2, 3, 10}))), (std::vector<int64_t>{2, 3, 10}));

  nn::Upsample up(nn::UpsampleOptions().scale_factor(std::vector<double>{2, 2}).mode(torch::kNearest));
  auto u = up(torch::tensor({{{{1.0f, 2.0f}}}}));
  EXPECT_TRUE(u.equal(torch::tensor({{{{1.0f, 1.0f, 2.0f, 2.0f}, {1.0f, 1.0f, 2.0f, 2.0f}}}})));
  nn::Upsample bil(nn::UpsampleOptions().size(std::vector<int64_t>{3, 3}).mode(torch::kBilinear).align_corners(true));
  EXPECT_TRUE(bil(torch::tensor({{{{0.0f, 2.0f}, {4.0f, 6.0f}}}}))[0][0][1].allclose(torch::tensor({2.0f, 3.0f, 4.0f})));
  nn::PixelShuffle ps(2);
  EXPECT_EQ(dims(ps(torch::randn({1, 8, 3, 3}))), (std::vector<int64_t>{1, 2, 6, 6}));
  nn::PixelUnshuffle pu(2);
  EXPECT_EQ(dims(pu(torch::randn({1, 2, 6, 6}))), (std::vector<int64_t>{1, 8, 3, 3}));
  nn::Flatten flat;
  EXPECT_EQ(dims(flat(torch::zeros({2, 3, 4}))), (std::vector<int64_t>{2, 12}));
  nn::Flatten flat0(nn::FlattenOptions().start_dim(0));
  EXPECT_EQ(dims(flat0(torch::zeros({2, 3, 4}))), (std::vector<int64_t>{24}));
  nn::Unflatten unflat(nn::UnflattenOptions(1, {3, 4}));
  EXPECT_EQ(dims(unflat(torch::zeros({2, 12}))), (std::vector<int64_t>{2, 3, 4}));
  nn::ZeroPad2d pad(nn::ZeroPad2dOptions({1, 1, 2, 0}));
  EXPECT_EQ(dims(pad(torch::ones({1, 1, 2, 2}))), (std::vector<int64_t>{1, 1, 4, 4}));
  nn::ReflectionPad1d rpad(2);
  EXPECT_TRUE(rpad(torch::tensor({{{1.0f, 2.0f, 3.0f}}})).equal(torch::tensor({{{3.0f, 2.0f, 1.0f, 2.0f, 3.0f, 2.0f, 1.0f}}})));
}

TEST(NnLayersUsage, ActivationModules) {
  auto x = torch::tensor({-2.0f, -0.5f, 0.0f, 1.0f, 3.0f});
  EXPECT_TRUE(nn::ReLU()(x).equal(torch::tensor({0.0f, 0.0f, 0.0f, 1.0f, 3.0f})));
  EXPECT_TRUE(nn::ReLU6()(x * 3).equal(torch::tensor({0.0f, 0.0f, 0.0f, 3.0f, 6.0f})));
  EXPECT_TRUE(nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.1))(x).allclose(torch::tensor({-0.2f, -0.05f, 0.0f, 1.0f, 3.0f})));
  EXPECT_TRUE(nn::ELU()(x).allclose(torch::tensor({-0.864664733f, -0.393469334f, 0.0f, 1.0f, 3.0f})));
  EXPECT_TRUE(nn::GELU()(x).allclose(torch::tensor({-0.0455002785f, -0.154268846f, 0.0f, 0.841344714f, 2.99595976f})));
  EXPECT_TRUE(nn::GELU(nn::GELUOptions().approximate("tanh"))(x).allclose(
      torch::tensor({-0.0454023f, -0.154286f, 0.0f, 0.841192f, 2.99636f}), 1e-4, 1e-5));
  EXPECT_TRUE(nn::SiLU()(x).allclose(x * torch::sigmoid(x)));
  EXPECT_TRUE(nn::Softplus()(torch::tensor({0.0f})).allclose(torch::tensor({std::log(2.0f)})));
  EXPECT_TRUE(nn::Hardtanh()(x).equal(torch::tensor({-1.0f, -0.5f, 0.0f, 1.0f, 1.0f})));
  EXPECT_TRUE(nn::Threshold(0.5, -1)(x).equal(torch::tensor({-1.0f, -1.0f, -1.0f, 1.0f, 3.0f})));
  EXPECT_TRUE(nn::Softmax(0)(torch::tensor({0.0f, 0.0f})).equal(torch::tensor({0.5f, 0.5f})));
  EXPECT_TRUE(nn::LogSoftmax(1)(torch::zeros({1, 4})).allclose(torch::full({1, 4}, -std::log(4.0f))));
  nn::PReLU prelu(nn::PReLUOptions().num_parameters(1).init(0.25));
  EXPECT_TRUE(prelu(x).allclose(torch::tensor({-0.5f, -0.125f, 0.0f, 1.0f, 3.0f})));
  EXPECT_EQ(prelu->parameters().size(), 1u);
  EXPECT_TRUE(nn::Tanhshrink()(torch::tensor({0.0f})).equal(torch::tensor({0.0f})));
  EXPECT_TRUE(nn::Softsign()(torch::tensor({1.0f})).equal(torch::tensor({0.5f})));
  EXPECT_TRUE(nn::Mish()(torch::tensor({0.0f})).equal(torch::tensor({0.0f})));
  EXPECT_TRUE(nn::GLU()(torch::tensor({{1.0f, 0.0f}})).allclose(torch::tensor({{0.5f}})));
  EXPECT_TRUE(nn::Identity()(x).equal(x));
  nn::Functional square([](torch::Tensor t) { return t * t; });
  EXPECT_TRUE(square(x).equal(x.pow(2)));
  nn::Functional leaky(torch::leaky_relu, 0.5);
  EXPECT_FLOAT_EQ(leaky(torch::tensor({-2.0f}))[0].item<float>(), -1.0f);
}

TEST(NnLayersUsage, DropoutLayers) {
  torch::manual_seed(5);
  nn::Dropout drop(nn::DropoutOptions().p(0.5));
  auto x = torch::ones({1000});
  auto y = drop(x);
  const auto kept = y.ne(0).sum().item<int64_t>();
  EXPECT_GT(kept, 400);
  EXPECT_LT(kept, 600);
  EXPECT_TRUE(y.masked_select(y.ne(0)).eq(2).all().item<bool>());  // survivors scaled by 1/(1-p)
  drop->eval();
  EXPECT_TRUE(drop(x).equal(x));
  nn::Dropout2d d2(nn::Dropout2dOptions(0.5));
  auto z = d2(torch::ones({4, 8, 3, 3}));
  // whole channels are zeroed together
  auto per_channel = z.sum({2, 3});
  EXPECT_TRUE(per_channel.eq(0).logical_or(per_channel.eq(18)).all().item<bool>());
  nn::Dropout inplace(nn::DropoutOptions(1.0).inplace(true));
  auto w = torch::ones({3});
  inplace(w);
  EXPECT_TRUE(w.eq(0).all().item<bool>());
  nn::AlphaDropout ad(0.2);
  ad->eval();
  EXPECT_TRUE(ad(x).equal(x));
  EXPECT_THROW(nn::Dropout(1.5), c10::Error);
}

TEST(NnLayersUsage, SeededSmallCnnForward) {
  torch::manual_seed(7);
  // The layers that draw weights are made one per statement: the order in which a call's
  // arguments are evaluated is unspecified (GCC makes the last one first, clang the first),
  // and these values were drawn in GCC's order.
  nn::Linear fc(4 * 2 * 2, 3);
  nn::Conv2d conv(nn::Conv2dOptions(1, 4, 3).padding(1));
  nn::Sequential cnn(conv, nn::BatchNorm2d(4), nn::ReLU(), nn::MaxPool2d(2), nn::Flatten(), fc);
  cnn->eval();
  auto img = torch::linspace(0, 1, 16).view({1, 1, 4, 4});
  auto logits = cnn->forward(img);
  EXPECT_EQ(dims(logits), (std::vector<int64_t>{1, 3}));
  expect_first(logits, {0.327015668, -0.0608641654, 0.0416876674});
  auto probs = torch::softmax(logits, 1);
  EXPECT_NEAR(probs.sum().item<float>(), 1.0f, 1e-6);
  int64_t n = 0;
  for (const auto& p : cnn->parameters()) n += p.numel();
  EXPECT_EQ(n, 4 * 9 + 4 + 4 + 4 + 16 * 3 + 3);
}

TEST(NnLayersUsage, PackedSequencesThroughLstm) {
  namespace rnn_utils = torch::nn::utils::rnn;
  torch::manual_seed(11);
  nn::LSTM lstm(nn::LSTMOptions(1, 2).batch_first(true));
  // two sequences of lengths 3 and 1, padded with zeros
  auto padded = torch::tensor({{{1.0f}, {2.0f}, {3.0f}}, {{4.0f}, {0.0f}, {0.0f}}});
  auto lengths = torch::tensor({3, 1});
  auto packed = rnn_utils::pack_padded_sequence(padded, lengths, /*batch_first=*/true);
  EXPECT_TRUE(packed.batch_sizes().equal(torch::tensor({2, 1, 1})));
  EXPECT_TRUE(packed.data().flatten().equal(torch::tensor({1.0f, 4.0f, 2.0f, 3.0f})));
  auto [packed_out, state] = lstm->forward_with_packed_input(packed);
  auto [unpacked, out_lengths] = rnn_utils::pad_packed_sequence(packed_out, /*batch_first=*/true);
  EXPECT_EQ(dims(unpacked), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_TRUE(out_lengths.equal(torch::tensor({3, 1})));
  EXPECT_TRUE(unpacked[1][1].eq(0).all().item<bool>());  // padding stays zero
  // the final hidden state of each sequence is its last real step
  auto h = std::get<0>(state);
  EXPECT_TRUE(h[0][0].allclose(unpacked[0][2]));
  EXPECT_TRUE(h[0][1].allclose(unpacked[1][0]));
  // the same as running the short sequence alone
  auto [alone, alone_state] = lstm(torch::tensor({{{4.0f}}}));
  EXPECT_TRUE(alone[0][0].allclose(unpacked[1][0]));

  auto seqs = std::vector<torch::Tensor>{torch::ones({3}), torch::ones({1}) * 2};
  auto pad = rnn_utils::pad_sequence(seqs, /*batch_first=*/true, /*padding_value=*/-1);
  EXPECT_TRUE(pad.equal(torch::tensor({{1.0f, 1.0f, 1.0f}, {2.0f, -1.0f, -1.0f}})));
  EXPECT_THROW(rnn_utils::pack_padded_sequence(padded, torch::tensor({1, 3}), true), c10::Error);  // not sorted
  auto unsorted = rnn_utils::pack_padded_sequence(padded.flip(0), torch::tensor({1, 3}), true, /*enforce_sorted=*/false);
  EXPECT_TRUE(unsorted.sorted_indices().defined());
}

TEST(NnLayersUsage, InitFunctions) {
  namespace init = torch::nn::init;
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kReLU), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kTanh), 5.0 / 3);
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kLeakyReLU, 0.2), std::sqrt(2.0 / (1 + 0.04)));
  EXPECT_DOUBLE_EQ(init::calculate_gain(torch::kLinear), 1.0);
  auto fans = init::_calculate_fan_in_and_fan_out(torch::empty({8, 4, 3, 3}));
  EXPECT_EQ(std::get<0>(fans), 36);
  EXPECT_EQ(std::get<1>(fans), 72);

  torch::manual_seed(0);
  auto w = torch::empty({256, 128});
  init::xavier_uniform_(w);
  const double bound = std::sqrt(6.0 / (256 + 128));
  EXPECT_LE(w.abs().max().item<float>(), bound);
  init::kaiming_normal_(w, /*a=*/0, torch::kFanOut, torch::kReLU);
  EXPECT_NEAR(w.std().item<float>(), std::sqrt(2.0 / 256), 0.003);
  init::kaiming_uniform_(w, std::sqrt(5.0));
  EXPECT_LE(w.abs().max().item<float>(), 1.0 / std::sqrt(128.0) + 1e-6);
  init::normal_(w, 1.0, 0.01);
  EXPECT_NEAR(w.mean().item<float>(), 1.0f, 0.001);
  init::uniform_(w, -0.1, 0.1);
  EXPECT_LE(w.abs().max().item<float>(), 0.1f);
  init::orthogonal_(w);
  EXPECT_TRUE(w.t().matmul(w).allclose(torch::eye(128), 1e-4, 1e-4));
  auto e = torch::empty({3, 3});
  init::eye_(e);
  EXPECT_TRUE(e.equal(torch::eye(3)));
  init::dirac_(torch::empty({2, 2, 3}));
  auto lin = nn::Linear(3, 3);
  {
    torch::NoGradGuard no_grad;
    lin->weight.fill_(0.5);
    lin->bias.zero_();
  }
  EXPECT_TRUE(lin(torch::ones({1, 3})).equal(torch::full({1, 3}, 1.5f)));
  EXPECT_TRUE(lin->weight.requires_grad());
}
