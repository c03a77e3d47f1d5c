// LayerNorm, F::layer_norm and F::normalize (ember/nn/normalization.h) against their
// definitions. (The other normalization layers against PyTorch: norm_test.cpp.)
#include <torch/torch.h>

#include "test_util.h"

namespace {

namespace F = torch::nn::functional;
using ember::test::tensors_close;

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

}  // namespace
