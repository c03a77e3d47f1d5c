// BatchNorm and 2-D pooling against their definitions (naive loops in double).
#include <torch/torch.h>

#include <cmath>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

TEST(BatchNorm, TrainingEvalAndRunningStats) {
  torch::manual_seed(0);
  torch::nn::BatchNorm2d bn(torch::nn::BatchNormOptions(3).momentum(0.2));
  bn->to(torch::kDouble);
  torch::Tensor x = torch::randn({4, 3, 5, 2}, torch::kDouble) * 2 + 1;
  torch::Tensor y = bn(x);
  torch::Tensor mean = x.mean({0, 2, 3}), var = x.var({0, 2, 3}, false);
  EXPECT_TRUE(tensors_close(y, (x - mean.view({1, 3, 1, 1})) / (var.view({1, 3, 1, 1}) + 1e-5).sqrt(), 1e-10, 1e-10));
  EXPECT_TRUE(tensors_close(bn->running_mean, mean * 0.2, 1e-12, 1e-12));
  EXPECT_TRUE(tensors_close(bn->running_var, torch::ones({3}, torch::kDouble) * 0.8 + x.var({0, 2, 3}, true) * 0.2,
                            1e-12, 1e-12));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);
  bn->eval();
  torch::Tensor z = bn(x);
  EXPECT_TRUE(tensors_close(z, (x - bn->running_mean.view({1, 3, 1, 1})) /
                                   (bn->running_var.view({1, 3, 1, 1}) + 1e-5).sqrt(), 1e-10, 1e-10));
  EXPECT_EQ(bn->num_batches_tracked.item<int64_t>(), 1);  // eval does not track
  EXPECT_EQ(bn->named_buffers().keys(), (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_ERROR_WITH(bn(torch::randn({2, 3}, torch::kDouble)), "expected 4D input");
  torch::nn::BatchNorm1d bn1(torch::nn::BatchNormOptions(2).affine(false).track_running_stats(false));
  EXPECT_EQ(bn1->parameters().size(), 0u);
  torch::Tensor a = torch::randn({6, 2});
  EXPECT_TRUE(tensors_close(bn1(a).mean(0), torch::zeros({2}), 1e-5, 1e-5));
  // gradients of training-mode batch norm
  torch::Tensor xi = torch::randn({3, 2, 2}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor w = torch::randn({2}, torch::dtype(torch::kDouble).requires_grad(true));
  auto f = [&](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::batch_norm(v[0], {}, {}, v[1], {}, true)};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(f, {xi, w}));
}

// naive pooling over (N, C, H, W)
torch::Tensor naive_pool(const torch::Tensor& x, int64_t k, int64_t s, int64_t p, bool ceil, bool max,
                         bool include_pad) {
  const int64_t H = x.size(2), W = x.size(3);
  auto osz = [&](int64_t in) {
    int64_t num = in + 2 * p - k, o = (ceil ? (num + s - 1) / s : num / s) + 1;
    if (ceil && (o - 1) * s >= in + p) --o;
    return o;
  };
  const int64_t OH = osz(H), OW = osz(W);
  torch::Tensor out = torch::empty({x.size(0), x.size(1), OH, OW}, torch::kDouble);
  for (int64_t n = 0; n < x.size(0); ++n)
    for (int64_t c = 0; c < x.size(1); ++c)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double acc = max ? -INFINITY : 0;
          int64_t cnt = 0;
          const int64_t h0 = i * s - p, w0 = j * s - p;
          const int64_t h1 = std::min(h0 + k, H + p), w1 = std::min(w0 + k, W + p);
          for (int64_t h = h0; h < h0 + k; ++h)
            for (int64_t w = w0; w < w0 + k; ++w) {
              const bool inside = h >= 0 && h < H && w >= 0 && w < W;
              if (inside) acc = max ? std::max(acc, x[n][c][h][w].item<double>()) : acc + x[n][c][h][w].item<double>();
              if (inside || (include_pad && h < h1 && w < w1)) ++cnt;
            }
          out[n][c][i][j].fill_(max ? acc : acc / double(cnt));
        }
  return out;
}

TEST(Pool, MaxAndAvgMatchNaiveLoops) {
  torch::manual_seed(1);
  torch::Tensor x = torch::randn({2, 2, 7, 6}, torch::kDouble);
  for (auto [k, s, p, ceil] : std::vector<std::tuple<int64_t, int64_t, int64_t, bool>>{
           {2, 2, 0, false}, {3, 2, 1, false}, {3, 2, 1, true}, {2, 3, 1, true}}) {
    SCOPED_TRACE(std::to_string(k) + std::to_string(s) + std::to_string(p) + (ceil ? " ceil" : ""));
    EXPECT_TRUE(tensors_close(F::max_pool2d(x, {k, k}, {s, s}, {p, p}, {1, 1}, ceil), naive_pool(x, k, s, p, ceil, true, true)));
    for (bool inc : {true, false})
      EXPECT_TRUE(tensors_close(F::avg_pool2d(x, {k, k}, {s, s}, {p, p}, ceil, inc), naive_pool(x, k, s, p, ceil, false, inc)));
  }
  torch::nn::MaxPool2d mp(torch::nn::Pool2dOptions(2));
  EXPECT_EQ(mp(torch::randn({1, 3, 8, 8})).sizes(), torch::IntArrayRef({1, 3, 4, 4}));
  EXPECT_ERROR_WITH(F::max_pool2d(x, {2, 2}, {2, 2}, {2, 2}), "pad should be at most half");
  torch::Tensor xi = torch::randn({1, 1, 4, 5}, torch::dtype(torch::kDouble).requires_grad(true));
  auto f = [](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::max_pool2d(v[0], {2, 2}, {1, 2}, {1, 0}), F::avg_pool2d(v[0], {3, 3}, {2, 2}, {1, 1})};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(f, {xi}));
}

}  // namespace
