// A LibTorch-style program built against an installed ember.
#include <torch/torch.h>

#include <iostream>

int main() {
  torch::Tensor a = torch::arange(6, torch::kFloat).view({2, 3});
  torch::Tensor b = torch::ones({2, 3});
  torch::Tensor c = (a + b).sum();
  TORCH_CHECK(c.item<float>() == 21.0f, "unexpected sum ", c.item<float>());
  // autograd through the installed headers
  torch::Tensor w = torch::ones({3}, torch::requires_grad());
  torch::Tensor loss = (a.matmul(w) * 2).sum();
  loss.backward();
  TORCH_CHECK(w.grad().allclose(torch::tensor({6.0f, 10.0f, 14.0f})), "unexpected gradient ", w.grad());
  auto g = torch::autograd::grad({(w * w).sum()}, {w});
  TORCH_CHECK(g[0].allclose(torch::full({3}, 2.0f)), "unexpected grad() result");
  std::cout << "consumer ok" << std::endl;
  return 0;
}
