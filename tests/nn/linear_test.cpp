// Unflatten and Bilinear (ember/nn/modules/linear.h) against their definitions.
#include <torch/torch.h>

#include <cmath>

#include "test_util.h"

namespace {

using ember::test::tensors_close;

TEST(Extra, UnflattenAndBilinear) {
  torch::nn::Unflatten unflat(1, std::vector<int64_t>{2, 3});
  EXPECT_EQ(unflat(torch::zeros({4, 6})).sizes(), torch::IntArrayRef({4, 2, 3}));
  torch::nn::Bilinear bil(3, 4, 2);
  torch::Tensor a = torch::randn({5, 3}), b = torch::randn({5, 4});
  torch::Tensor expect = torch::empty({5, 2});
  for (int64_t o = 0; o < 2; ++o) expect.select(1, o).copy_((a.mm(bil->weight[o]) * b).sum(1) + bil->bias[o]);
  EXPECT_TRUE(tensors_close(bil(a, b), expect, 1e-5, 1e-5));
  EXPECT_LE(bil->weight.abs().max().item<float>(), 1 / std::sqrt(3.0f) + 1e-6f);
}

}  // namespace
