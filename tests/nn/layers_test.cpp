// Dropout, Embedding, LayerNorm and the activation modules against their definitions.
#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

TEST(Layers, DropoutScalesAndIsIdentityInEval) {
  torch::manual_seed(0);
  torch::nn::Dropout drop(0.25);
  torch::Tensor x = torch::ones({200000});
  torch::Tensor y = drop(x);
  const double kept = y.ne(0).to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(kept, 0.75, 0.005);
  EXPECT_TRUE(y.masked_select(y.ne(0)).eq(1 / 0.75f).all().item<bool>());  // inverted dropout
  drop->eval();
  EXPECT_TRUE(drop(x).equal(x));
  EXPECT_ERROR_WITH(torch::nn::Dropout(1.5), "between 0 and 1");
  torch::Tensor c = F::dropout2d(torch::ones({4, 64, 3, 3}), 0.5, true);
  // whole channels are zero or all kept
  torch::Tensor per = c.sum({2, 3});
  EXPECT_TRUE(per.eq(0).logical_or(per.eq(18)).all().item<bool>());
  // gradient flows through the mask
  torch::Tensor w = torch::ones({1000}, torch::requires_grad());
  F::dropout(w, 0.5, true).sum().backward();
  EXPECT_TRUE(w.grad().eq(0).logical_or(w.grad().eq(2)).all().item<bool>());
}

TEST(Layers, EmbeddingLooksUpRowsAndSkipsThePaddingGradient) {
  torch::manual_seed(1);
  torch::nn::Embedding emb(torch::nn::EmbeddingOptions(10, 4).padding_idx(0));
  EXPECT_EQ(emb->weight[0].abs().sum().item<float>(), 0.f);
  torch::Tensor idx = torch::tensor(std::vector<int64_t>{3, 0, 3, 7}).view({2, 2});
  torch::Tensor out = emb(idx);
  EXPECT_EQ(out.sizes(), torch::IntArrayRef({2, 2, 4}));
  EXPECT_TRUE(out[1][1].equal(emb->weight[7]));
  out.sum().backward();
  EXPECT_EQ(emb->weight.grad()[0].abs().sum().item<float>(), 0.f);  // padding row
  EXPECT_TRUE(tensors_close(emb->weight.grad()[3], torch::full({4}, 2.f)));  // used twice
  torch::nn::Embedding capped(torch::nn::EmbeddingOptions(5, 3).max_norm(1.0));
  capped(torch::tensor(std::vector<int64_t>{1, 2}));
  EXPECT_LE(capped->weight[1].norm().item<float>(), 1.0f + 1e-5f);
  EXPECT_ERROR_WITH(emb(torch::tensor({1.0f})), "indices");
}

TEST(Layers, LayerNormMatchesItsFormula) {
  torch::manual_seed(2);
  torch::Tensor x = torch::randn({3, 4, 5}, torch::kDouble);
  torch::nn::LayerNorm ln(torch::nn::LayerNormOptions({4, 5}));
  ln->to(torch::kDouble);
  torch::Tensor mean = x.mean({1, 2}, true), var = x.var({1, 2}, false, true);
  EXPECT_TRUE(tensors_close(ln(x), (x - mean) / (var + 1e-5).sqrt(), 1e-10, 1e-10));
  EXPECT_EQ(ln->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  torch::Tensor w = torch::randn({5}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor b = torch::randn({5}, torch::dtype(torch::kDouble).requires_grad(true));
  torch::Tensor xi = x.clone().requires_grad_();
  auto f = [](const std::vector<torch::Tensor>& v) {
    return std::vector<torch::Tensor>{F::layer_norm(v[0], {5}, v[1], v[2])};
  };
  EXPECT_TRUE(torch::autograd::gradcheck(f, {xi, w, b}));
  EXPECT_ERROR_WITH(F::layer_norm(x, {4}), "expected input with shape");
  torch::Tensor n = F::normalize(x, 2.0, 1);
  EXPECT_TRUE(tensors_close(n.norm(2, {1}), torch::ones({3, 5}, torch::kDouble)));
}

TEST(Layers, ActivationModules) {
  torch::Tensor x = torch::linspace(-3, 3, 13);
  EXPECT_TRUE(tensors_close(torch::nn::LeakyReLU(torch::nn::LeakyReLUOptions().negative_slope(0.2))(x),
                            torch::where(x > 0, x, x * 0.2)));
  EXPECT_TRUE(tensors_close(torch::nn::GELU()(x), x * 0.5 * (1 + torch::erf(x / std::sqrt(2.0)))));
  EXPECT_TRUE(tensors_close(torch::nn::SiLU()(x), x * torch::sigmoid(x)));
  EXPECT_TRUE(tensors_close(torch::nn::Softmax(0)(x).sum(), torch::tensor(1.f)));
  EXPECT_TRUE(tensors_close(torch::nn::LogSoftmax(0)(x).exp().sum(), torch::tensor(1.f)));
  std::ostringstream s;
  s << *torch::nn::Dropout(0.3);
  EXPECT_EQ(s.str(), "torch::nn::Dropout(p=0.3, inplace=false)");
}

TEST(Embedding, FromPretrained) {
  const torch::Tensor w = torch::arange(12, torch::kFloat).view({4, 3});
  auto frozen = torch::nn::Embedding::from_pretrained(w);
  EXPECT_FALSE(frozen->weight.requires_grad());
  EXPECT_TRUE(frozen(torch::tensor({int64_t(2), int64_t(0)})).equal(w.index_select(0, torch::tensor({int64_t(2), int64_t(0)}))));
  auto tuned = torch::nn::Embedding::from_pretrained(w, torch::nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(1));
  EXPECT_TRUE(tuned->weight.requires_grad());
  tuned(torch::tensor({int64_t(1), int64_t(3)})).sum().backward();
  EXPECT_TRUE(tuned->weight.grad()[1].equal(torch::zeros({3})));  // the padding row gets no gradient
  EXPECT_TRUE(tuned->weight.grad()[3].equal(torch::ones({3})));
}

}  // namespace
