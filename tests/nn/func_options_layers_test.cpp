// torch::nn::functional's options call forms for dropout, layer_norm, embedding, normalize, linear, distances.
#include <torch/torch.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "func_options_test_util.h"
#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::sample;

// ---- dropout, layer_norm, embedding, normalize ---------------------------------------------
TEST(FuncOptionsLayers, Dropout) {
  const torch::Tensor x = sample({8, 6, 3, 2}) + 2;
  const auto seeded = [](auto f) {
    torch::manual_seed(11);
    return f();
  };
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout(x, F::DropoutFuncOptions().p(0.3)); }),
                   seeded([&] { return F::dropout(x, 0.3, true); }));
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout(x); }), seeded([&] { return F::dropout(x, 0.5); }));
  EXPECT_TENSOR_EQ(F::dropout(x, F::DropoutFuncOptions().p(0.9).training(false)), x);
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout2d(x, F::Dropout2dFuncOptions().p(0.4)); }),
                   seeded([&] { return F::dropout2d(x, 0.4, true); }));
  EXPECT_TENSOR_EQ(seeded([&] { return F::dropout3d(x.unsqueeze(2), F::Dropout3dFuncOptions().p(0.4)); }),
                   seeded([&] { return F::dropout3d(x.unsqueeze(2), 0.4, true); }));
  // inplace: the input holds the result
  torch::Tensor y = x.clone();
  const torch::Tensor expect = seeded([&] { return F::dropout(x, 0.3, true); });
  const torch::Tensor got = seeded([&] { return F::dropout(y, F::DropoutFuncOptions().p(0.3).inplace(true)); });
  EXPECT_EQ(got.data_ptr(), y.data_ptr());
  EXPECT_TENSOR_EQ(y, expect);
  torch::Tensor y2 = x.clone();
  seeded([&] { return F::dropout2d(y2, F::Dropout2dFuncOptions().p(0.3).inplace(true)); });
  EXPECT_TENSOR_EQ(y2, seeded([&] { return F::dropout2d(x, 0.3, true); }));
}

TEST(FuncOptionsLayers, Dropout3dChannels) {
  // batched (N, C, D, H, W): whole (n, c) volumes are dropped; unbatched (C, D, H, W): whole c
  const torch::Tensor x = torch::ones({4, 8, 2, 3, 2}, torch::kDouble);
  torch::manual_seed(5);
  const torch::Tensor y = F::dropout3d(x, F::Dropout3dFuncOptions().p(0.5));
  const torch::Tensor per_channel = y.flatten(2);
  EXPECT_TENSOR_EQ(per_channel.amax(2), per_channel.amin(2));
  EXPECT_TRUE(torch::logical_or(per_channel.eq(0), per_channel.eq(2)).all().item<bool>());
  const torch::Tensor u = F::dropout3d(x[0], F::Dropout3dFuncOptions().p(0.5)).flatten(1);
  EXPECT_TENSOR_EQ(u.amax(1), u.amin(1));
  EXPECT_TENSOR_EQ(F::dropout3d(x, F::Dropout3dFuncOptions().training(false)), x);
}

TEST(FuncOptionsLayers, LayerNorm) {
  const torch::Tensor x = sample({3, 2, 4}), w = sample({4}, 1), b = sample({4}, 2);
  const torch::Tensor got = F::layer_norm(x, F::LayerNormFuncOptions({4}).eps(1e-3).weight(w).bias(b));
  EXPECT_TENSOR_EQ(got, F::layer_norm(x, {4}, w, b, 1e-3));
  const torch::Tensor mean = x.mean(-1, true), var = (x - mean).pow(2).mean(-1, true);
  EXPECT_TENSOR_CLOSE(got, (x - mean) / (var + 1e-3).sqrt() * w + b);
  EXPECT_TENSOR_EQ(F::layer_norm(x, F::LayerNormFuncOptions({2, 4})), F::layer_norm(x, {2, 4}));
  EXPECT_ERROR_WITH(F::layer_norm(x, F::LayerNormFuncOptions({3})), "expected input with shape");
}

TEST(FuncOptionsLayers, Embedding) {
  const torch::Tensor idx = torch::tensor(std::vector<int64_t>{0, 2, 0, 3, 1}).view({5});
  const torch::Tensor w0 = sample({4, 3});
  torch::Tensor w = w0.clone().requires_grad_();
  const torch::Tensor got = F::embedding(idx, w, F::EmbeddingFuncOptions().padding_idx(0));
  EXPECT_TENSOR_EQ(got, F::embedding(idx, w, 0));
  EXPECT_TENSOR_EQ(got, w0.index_select(0, idx));
  got.sum().backward();
  EXPECT_TENSOR_EQ(w.grad(), torch::tensor({0.0, 1.0, 1.0, 1.0}, torch::kDouble).view({4, 1}).expand({4, 3}));
  // a negative padding_idx counts from the end
  torch::Tensor w2 = w0.clone().requires_grad_();
  F::embedding(idx, w2, F::EmbeddingFuncOptions().padding_idx(-1)).sum().backward();
  EXPECT_TENSOR_EQ(w2.grad(), torch::tensor({2.0, 1.0, 1.0, 0.0}, torch::kDouble).view({4, 1}).expand({4, 3}));
  EXPECT_ERROR_WITH(F::embedding(idx, w0, F::EmbeddingFuncOptions().padding_idx(4)), "Padding_idx");
  // max_norm renormalizes the referenced rows of weight in place (row 3 unreferenced: kept)
  torch::Tensor wa = w0.clone() * 3, wb = w0.clone() * 3;
  const torch::Tensor ref = torch::tensor(std::vector<int64_t>{0, 1, 1});
  const torch::Tensor r = F::embedding(ref, wa, F::EmbeddingFuncOptions().max_norm(1.0).norm_type(1.0));
  EXPECT_TENSOR_EQ(r, F::embedding(ref, wb, std::nullopt, 1.0, 1.0));
  EXPECT_TENSOR_EQ(wa, wb);
  EXPECT_LE(wa.slice(0, 0, 2).abs().sum(1).max().item<double>(), 1.0 + 1e-6);
  EXPECT_TENSOR_EQ(wa.slice(0, 2, 4), w0.slice(0, 2, 4) * 3);
  // scale_grad_by_freq: each row's gradient divided by its index's count
  torch::Tensor ws = w0.clone().requires_grad_();
  F::embedding(idx, ws, F::EmbeddingFuncOptions().scale_grad_by_freq(true).sparse(true)).sum().backward();
  EXPECT_TENSOR_CLOSE(ws.grad(), torch::ones({4, 3}, torch::kDouble));
  torch::Tensor wp = w0.clone().requires_grad_();
  F::embedding(idx, wp, std::nullopt, std::nullopt, 2.0, /*scale_grad_by_freq=*/true).sum().backward();
  EXPECT_TENSOR_EQ(wp.grad(), ws.grad());
}

TEST(FuncOptionsLayers, Normalize) {
  const torch::Tensor x = sample({3, 5});
  const torch::Tensor got = F::normalize(x, F::NormalizeFuncOptions().p(1).dim(-1).eps(1e-3));
  EXPECT_TENSOR_EQ(got, F::normalize(x, 1.0, -1, 1e-3));
  EXPECT_TENSOR_CLOSE(got, x / x.abs().sum(-1, true).clamp_min(1e-3));
  EXPECT_TENSOR_EQ(F::normalize(x), F::normalize(x, 2.0, 1, 1e-12));
  torch::Tensor out = torch::empty({0}, torch::kDouble);
  const torch::Tensor r = F::normalize(x, F::NormalizeFuncOptions().dim(0).out(out));
  EXPECT_TENSOR_CLOSE(out, F::normalize(x, 2.0, 0));
  EXPECT_EQ(r.data_ptr(), out.data_ptr());
}

TEST(FuncOptionsLayers, LinearAndDistances) {
  const torch::Tensor x = sample({4, 3}), y = sample({4, 3}, 1), w = sample({2, 3}, 2), b = sample({2}, 3);
  EXPECT_TENSOR_CLOSE(F::linear(x, w, b), x.matmul(w.t()) + b);
  EXPECT_TENSOR_CLOSE(F::linear(x, w), x.matmul(w.t()));
  const torch::Tensor w3 = sample({2, 3, 3}, 4);
  EXPECT_TENSOR_CLOSE(F::bilinear(x, y, w3, b), torch::einsum("bi,oij,bj->bo", {x, w3, y}) + b);
  EXPECT_TENSOR_EQ(F::pairwise_distance(x, y, F::PairwiseDistanceFuncOptions().p(1).eps(1e-3).keepdim(true)),
                   F::pairwise_distance(x, y, 1.0, 1e-3, true));
  EXPECT_TENSOR_CLOSE(F::pairwise_distance(x, y, F::PairwiseDistanceFuncOptions().p(1)),
                      (x - y + 1e-6).abs().sum(-1));
  EXPECT_TENSOR_EQ(F::pairwise_distance(x, y), F::pairwise_distance(x, y, 2.0));
  EXPECT_TENSOR_EQ(F::cosine_similarity(x, y, F::CosineSimilarityFuncOptions().dim(0).eps(1e-4)),
                   F::cosine_similarity(x, y, 0, 1e-4));
  EXPECT_TENSOR_CLOSE(F::cosine_similarity(x, y, F::CosineSimilarityFuncOptions().dim(1)),
                      (x * y).sum(1) / (x.norm(2, 1) * y.norm(2, 1)));
  EXPECT_TENSOR_EQ(F::cosine_similarity(x, y), F::cosine_similarity(x, y, 1));
  // pdist: the upper triangle of the distance matrix, row by row
  const torch::Tensor d = F::pdist(x, 3.0);
  std::vector<double> expect;
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = i + 1; j < 4; ++j) expect.push_back((x[i] - x[j]).abs().pow(3).sum().pow(1.0 / 3).item<double>());
  EXPECT_TENSOR_CLOSE(d, torch::tensor(expect, torch::kDouble));
  EXPECT_EQ(F::pdist(x).numel(), 6);
}

}  // namespace
