// Conv1d/Conv2d against a naive double-precision convolution, gradients by gradcheck.
#include <torch/torch.h>

#include <cmath>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

// out[n, o, y, x] = b[o] + sum_{c in group(o), i, j} in[n, c, y*s - p + i*d, x*s - p + j*d] w[o, c', i, j]
torch::Tensor naive_conv2d(const torch::Tensor& in, const torch::Tensor& w, const torch::Tensor& b, int64_t s,
                           int64_t p, int64_t d, int64_t groups) {
  const int64_t N = in.size(0), C = in.size(1), H = in.size(2), W = in.size(3), O = w.size(0), KH = w.size(2),
                KW = w.size(3);
  const int64_t OH = (H + 2 * p - d * (KH - 1) - 1) / s + 1, OW = (W + 2 * p - d * (KW - 1) - 1) / s + 1;
  auto a = in.accessor<double, 4>();
  auto k = w.accessor<double, 4>();
  torch::Tensor out = torch::zeros({N, O, OH, OW}, torch::kDouble);
  auto r = out.accessor<double, 4>();
  const int64_t cg = C / groups, og = O / groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t x = 0; x < OW; ++x) {
          double acc = b.defined() ? b[o].item<double>() : 0.0;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t i = 0; i < KH; ++i)
              for (int64_t j = 0; j < KW; ++j) {
                const int64_t yy = y * s - p + i * d, xx = x * s - p + j * d;
                if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
                acc += a[n][(o / og) * cg + c][yy][xx] * k[o][c][i][j];
              }
          r[n][o][y][x] = acc;
        }
  return out;
}

TEST(Conv, Conv2dMatchesTheNaiveConvolution) {
  torch::manual_seed(0);
  torch::Tensor in = torch::randn({2, 4, 9, 8}, torch::kDouble);
  for (int64_t groups : {1, 2}) {
    for (auto [s, p, d] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 0, 1}, {2, 1, 1}, {1, 2, 2}, {2, 1, 2}}) {
      SCOPED_TRACE(std::to_string(groups) + " " + std::to_string(s) + std::to_string(p) + std::to_string(d));
      torch::Tensor w = torch::randn({6, 4 / groups, 3, 2}, torch::kDouble), b = torch::randn({6}, torch::kDouble);
      torch::Tensor got = F::conv2d(in, w, b, {s, s}, std::vector<int64_t>{p, p}, {d, d}, groups);
      EXPECT_TRUE(tensors_close(got, naive_conv2d(in, w, b, s, p, d, groups), 1e-10, 1e-10));
    }
  }
  // "same" keeps the size; unbatched input; the module with PyTorch's default init
  torch::Tensor w = torch::randn({3, 4, 3, 3}, torch::kDouble);
  EXPECT_EQ(F::conv2d(in, w, {}, {1, 1}, std::string("same")).sizes(), torch::IntArrayRef({2, 3, 9, 8}));
  EXPECT_TRUE(tensors_close(F::conv2d(in[0], w), F::conv2d(in, w)[0]));
  torch::nn::Conv2d conv(torch::nn::Conv2dOptions(4, 8, 3).stride({2, 2}).padding(std::vector<int64_t>{1}));
  EXPECT_EQ(conv->weight.sizes(), torch::IntArrayRef({8, 4, 3, 3}));
  EXPECT_LE(conv->weight.abs().max().item<float>(), 1 / std::sqrt(36.0f) + 1e-6f);
  EXPECT_EQ(conv(torch::randn({1, 4, 9, 8})).sizes(), torch::IntArrayRef({1, 8, 5, 4}));
  // conv1d as conv2d with a unit height
  torch::Tensor x1 = torch::randn({2, 4, 10}, torch::kDouble), w1 = torch::randn({5, 4, 3}, torch::kDouble);
  EXPECT_TRUE(tensors_close(F::conv1d(x1, w1, {}, {2}, std::vector<int64_t>{1}),
                            F::conv2d(x1.unsqueeze(2), w1.unsqueeze(2), {}, {1, 2}, std::vector<int64_t>{0, 1}).squeeze(2)));
  EXPECT_ERROR_WITH(F::conv2d(in, torch::randn({3, 3, 3, 3}, torch::kDouble)), "channels");
  EXPECT_ERROR_WITH(F::conv2d(in, w, {}, {2, 2}, std::string("same")), "strided");
  EXPECT_ERROR_WITH(F::conv2d(torch::randn({1, 4, 2, 2}, torch::kDouble), w), "Kernel size can't be greater");
}

TEST(Conv, GradientsByGradcheck) {
  torch::manual_seed(1);
  torch::Tensor x = torch::randn({1, 2, 5, 4}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor w = torch::randn({2, 1, 2, 3}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor b = torch::randn({2}, torch::dtype(torch::kDouble).requires_grad(true));
  auto f = [](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::conv2d(v[0], v[1], v[2], {2, 1}, std::vector<int64_t>{1, 1}, {1, 2}, 2)};
  };
  torch::autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  EXPECT_TRUE(torch::autograd::gradcheck(f, {x, w, b}, o));
}

}  // namespace
