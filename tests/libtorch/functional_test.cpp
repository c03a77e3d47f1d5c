// torch::nn::functional's options forms and the ATen-level functions LibTorch programs call,
// checked against the positional forms or hand-computed values. Compiles against ember and
// LibTorch alike.
#include <torch/torch.h>

#include <gtest/gtest.h>

namespace F = torch::nn::functional;

TEST(Functional, ConvOptionsForms) {
  torch::manual_seed(0);
  auto x = torch::randn({1, 2, 6, 6});
  auto w = torch::randn({3, 2, 3, 3});
  auto b = torch::randn({3});
  auto y = F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride(2).padding(1));
  EXPECT_EQ(y.sizes(), (std::vector<int64_t>{1, 3, 3, 3}));
  EXPECT_TRUE(y.allclose(torch::conv2d(x, w, b, 2, 1), 1e-5, 1e-6));
  auto same = F::conv2d(x, w, F::Conv2dFuncOptions().padding(torch::kSame));
  EXPECT_EQ(same.sizes(), (std::vector<int64_t>{1, 3, 6, 6}));
  auto plain = F::conv2d(x, w);
  EXPECT_EQ(plain.sizes(), (std::vector<int64_t>{1, 3, 4, 4}));
  auto x1 = torch::randn({2, 4, 9});
  auto w1 = torch::randn({4, 2, 3});
  auto g = F::conv1d(x1, w1, F::Conv1dFuncOptions().groups(2).dilation(2));
  EXPECT_EQ(g.sizes(), (std::vector<int64_t>{2, 4, 5}));
  auto wt = torch::randn({3, 2, 3, 3});
  auto t = F::conv_transpose2d(y, wt, F::ConvTranspose2dFuncOptions().stride(2).padding(1).output_padding(1));
  EXPECT_EQ(t.sizes(), (std::vector<int64_t>{1, 2, 6, 6}));
}

TEST(Functional, AtenDistances) {
  auto a = torch::tensor({{3.0, 4.0}, {1.0, 0.0}}, torch::kDouble);
  auto z = torch::zeros({2, 2}, torch::kDouble);
  EXPECT_TRUE(torch::pairwise_distance(a, z, 2, 0.0).allclose(torch::tensor({5.0, 1.0}, torch::kDouble)));
  EXPECT_TRUE(torch::cosine_similarity(a, a).allclose(torch::ones({2}, torch::kDouble)));
  EXPECT_TRUE(torch::cosine_similarity(a, a, 1, 1e-8)
                  .allclose(F::cosine_similarity(a, a, F::CosineSimilarityFuncOptions().dim(1))));
}
