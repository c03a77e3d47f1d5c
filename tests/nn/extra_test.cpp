// The remaining activation modules, containers, Unflatten, Bilinear and margin losses
// against their definitions.
#include <torch/torch.h>

#include <cmath>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

TEST(Extra, Activations) {
  torch::Tensor x = torch::linspace(-4, 4, 17, torch::kDouble);
  EXPECT_TRUE(tensors_close(torch::nn::ReLU6()(x), x.clamp(0, 6)));
  EXPECT_TRUE(tensors_close(torch::nn::Softsign()(x), x / (x.abs() + 1)));
  EXPECT_TRUE(tensors_close(torch::nn::ELU(torch::nn::ELUOptions().alpha(0.5))(x),
                            torch::where(x > 0, x, (x.exp() - 1) * 0.5)));
  EXPECT_TRUE(tensors_close(torch::nn::Hardtanh()(x), x.clamp(-1, 1)));
  EXPECT_TRUE(tensors_close(torch::nn::Softplus()(x), (x.exp() + 1).log()));
  EXPECT_TRUE(tensors_close(torch::nn::Threshold(0.5, -2.0)(x), torch::where(x > 0.5, x, torch::full_like(x, -2.0))));
  EXPECT_TRUE(tensors_close(torch::nn::Mish()(x), x * ((x.exp() + 1).log()).tanh()));
  EXPECT_TRUE(tensors_close(torch::nn::Hardswish()(x), x * (x + 3).clamp(0, 6) / 6));
  torch::nn::PReLU prelu(torch::nn::PReLUOptions().num_parameters(3));
  torch::Tensor img = torch::randn({2, 3, 4});
  torch::Tensor w = prelu->weight.detach().view({1, 3, 1});
  EXPECT_TRUE(tensors_close(prelu(img), torch::where(img >= 0, img, img * w)));
  prelu(img).sum().backward();
  EXPECT_TRUE(prelu->weight.grad().defined());
  EXPECT_ERROR_WITH(torch::nn::Hardtanh(torch::nn::HardtanhOptions().min_val(2).max_val(1)), "greater than min_val");
}

TEST(Extra, Containers) {
  torch::nn::ModuleList list(torch::nn::Linear(2, 3), torch::nn::ReLU());
  list->push_back(torch::nn::Linear(3, 1));
  EXPECT_EQ(list->size(), 3u);
  EXPECT_EQ(list->named_parameters().keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  torch::Tensor x = torch::randn({4, 2});
  for (const auto& m : *list) {
    if (auto* lin = m->as<torch::nn::Linear>()) x = lin->forward(x);
    else if (auto* relu = m->as<torch::nn::ReLU>()) x = relu->forward(x);
  }
  EXPECT_EQ(x.sizes(), torch::IntArrayRef({4, 1}));
  auto copy = std::dynamic_pointer_cast<torch::nn::ModuleListImpl>(list->clone());
  ASSERT_TRUE(copy);
  EXPECT_FALSE(copy->parameters()[0].is_same(list->parameters()[0]));
  EXPECT_TRUE(copy->parameters()[0].equal(list->parameters()[0]));
  torch::nn::ModuleDict dict;
  dict->insert("enc", torch::nn::Linear(2, 2).ptr());
  dict->insert("dec", torch::nn::Linear(2, 2).ptr());
  EXPECT_EQ(dict->keys(), (std::vector<std::string>{"enc", "dec"}));
  EXPECT_TRUE(dict->contains("dec"));
  dict->pop("enc");
  EXPECT_EQ(dict->size(), 1u);
  EXPECT_ERROR_WITH((*dict)["enc"], "Module 'enc' is not defined");
}

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

TEST(Extra, MarginLosses) {
  torch::Tensor x1 = torch::tensor({0.5, -1.0, 2.0}, torch::kDouble), x2 = torch::tensor({1.0, -2.0, 2.5}, torch::kDouble);
  torch::Tensor y = torch::tensor({1.0, -1.0, 1.0}, torch::kDouble);
  EXPECT_NEAR(F::margin_ranking_loss(x1, x2, y, 0.1, torch::kSum).item<double>(),
              std::max(0.0, -(0.5 - 1.0) + 0.1) + std::max(0.0, (-1.0 + 2.0) + 0.1) + std::max(0.0, -(2.0 - 2.5) + 0.1),
              1e-12);
  EXPECT_NEAR(F::hinge_embedding_loss(x1, y, 1.0, torch::kSum).item<double>(), 0.5 + 2.0 + std::max(0.0, 1.0 + 1.0),
              1e-12);
  torch::Tensor u = torch::tensor({{1.0, 0.0}, {0.0, 1.0}}, torch::kDouble), v = torch::tensor({{1.0, 1.0}, {0.0, 2.0}}, torch::kDouble);
  torch::Tensor t = torch::tensor({1.0, -1.0}, torch::kDouble);
  EXPECT_NEAR(F::cosine_embedding_loss(u, v, t, 0.5, torch::kSum).item<double>(), (1 - std::sqrt(0.5)) + 0.5, 1e-12);
  torch::Tensor an = torch::zeros({1, 2}, torch::kDouble), po = torch::tensor({{3.0, 4.0}}, torch::kDouble),
                ne = torch::tensor({{1.0, 0.0}}, torch::kDouble);
  const double dp = std::hypot(3 - 1e-6, 4 - 1e-6), dn = std::hypot(1 - 1e-6, 1e-6);
  EXPECT_NEAR(F::triplet_margin_loss(an, po, ne, 1.0).item<double>(), dp - dn + 1.0, 1e-9);
}

}  // namespace
