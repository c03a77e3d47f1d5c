// A LibTorch-style program built against an installed ember.
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::Tensor a = torch::arange(6, torch::kFloat).view({2, 3});
  torch::Tensor b = torch::ones({2, 3});
  torch::Tensor c = (a + b).sum();
  TORCH_CHECK(c.item<float>() == 21.0f, "unexpected sum ", c.item<float>());
  std::cout << "consumer ok" << std::endl;
  return 0;
}
