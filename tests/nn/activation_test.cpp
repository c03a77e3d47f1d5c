// The activation modules of ember/nn/modules/activation.h against their definitions.
#include <torch/torch.h>

#include <cmath>
#include <sstream>

#include "test_util.h"

namespace {

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

}  // namespace
