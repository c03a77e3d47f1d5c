// The `make demo` program: a short tour of ember's tensor core, written against the
// LibTorch API. (The training demo replaces it when nn and optim land.)
#include <torch/torch.h>

#include <chrono>
#include <iostream>

int main() {
  torch::manual_seed(0);
  std::cout << "ember demo: tensors, broadcasting, dtypes, reductions, views\n\n";
  auto a = torch::arange(12, torch::kFloat).view({3, 4});
  std::cout << "a = arange(12).view({3, 4}):\n" << a << "\n\n";
  auto b = torch::tensor({1.0, 10.0, 100.0, 1000.0});
  std::cout << "a * b (broadcast):\n" << a * b << "\n\n";
  std::cout << "a.t().contiguous() is_contiguous: " << a.t().contiguous().is_contiguous() << "\n";
  std::cout << "a.sum(1):\n" << a.sum(1) << "\n\n";
  auto h = a.to(torch::kBFloat16).exp();
  std::cout << "exp(a) in bfloat16 (row 0): " << h[0] << "\n\n";
  auto i = torch::tensor({1, 2, 3});
  std::cout << "int / int -> " << (i / 2).dtype() << ", int + 0.5 -> " << (i + 0.5).dtype() << "\n";
  auto t0 = std::chrono::steady_clock::now();
  auto x = torch::rand({2048, 2048});
  auto y = x.matmul(x);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "2048x2048 matmul: " << ms << " ms, mean " << y.mean().item<double>() << "\n";
  return 0;
}
