// GPU benchmarks of issue 16's figures, in LibTorch's C++ API (ember built with CUDA; the same
// cases in PyTorch are bench/cuda_bench.py): scripts/gpu-check.sh runs both on the GPU
// machine and prints PyTorch time / ember time per case. Each timed call ends with a device
// synchronize, so the time is the GPU's, not the launch's.
// Output: "<case>\t<seconds>\t<work>\t<unit>" per line (bench/bench_util.h).
#include <torch/torch.h>

#include <cstdio>
#include <string>

#include "bench/bench_util.h"

int main(int argc, char** argv) {
  const std::string filter = argc > 1 ? argv[1] : "";
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "cuda_bench: no CUDA GPU\n");
    return 1;
  }
  const auto f32 = torch::TensorOptions().dtype(torch::kFloat).device(torch::kCUDA);
  const auto bf16 = torch::TensorOptions().dtype(torch::kBFloat16).device(torch::kCUDA);
  const int64_t n = int64_t(256) << 20;
  torch::Tensor a = torch::rand({n}, torch::kFloat).to(torch::kCUDA), b = torch::rand({n}, torch::kFloat).to(torch::kCUDA);
  torch::Tensor c = torch::empty({n}, f32);
  torch::Tensor ah = a.to(torch::kBFloat16), bh = b.to(torch::kBFloat16);
  torch::Tensor x1 = torch::zeros({1}, f32);
  torch::Tensor m1 = torch::randn({8192, 8192}).to(torch::kCUDA, torch::kBFloat16);
  torch::Tensor m2 = torch::randn({8192, 8192}).to(torch::kCUDA, torch::kBFloat16);
  std::vector<bench::Case> cases = {
      // 3 x 1 GiB moved: read a and b, write c.
      {"add 256M f32 (out=)", 3.0 * 4 * n, "B", [&] { torch::add_out(c, a, b); torch::cuda::synchronize(); }},
      {"add 256M f32", 3.0 * 4 * n, "B", [&] { torch::Tensor r = a + b; torch::cuda::synchronize(); }},
      {"add 256M bf16", 3.0 * 2 * n, "B", [&] { torch::Tensor r = ah + bh; torch::cuda::synchronize(); }},
      {"add 256M f32 broadcast row", 2.0 * 4 * n, "B",
       [&] { torch::Tensor r = a.view({n / 1024, 1024}) + b.slice(0, 0, 1024); torch::cuda::synchronize(); }},
      {"copy 256M f32 transposed", 2.0 * 4 * n, "B",
       [&] { c.view({n / 4096, 4096}).copy_(a.view({4096, n / 4096}).t()); torch::cuda::synchronize(); }},
      {"bf16 matmul 8192^3", 2.0 * 8192.0 * 8192.0 * 8192.0, "FLOP",
       [&] { torch::mm(m1, m2); torch::cuda::synchronize(); }},
      // Per-op overhead: a chain of 1,000 one-element adds, one synchronize (time per op).
      {"1000 one-element adds (per op)", 1, "op", [&] {
         torch::Tensor y = x1;
         for (int i = 0; i < 1000; ++i) y = y + 1;
         torch::cuda::synchronize();
       }},
  };
  // The last case's time is for 1,000 ops: report per op.
  for (const bench::Case& k : cases) {
    if (!filter.empty() && k.name.find(filter) == std::string::npos) continue;
    double s = bench::time_per_iter(k.fn, 0.05);
    if (k.name.rfind("1000 ", 0) == 0) s /= 1000;
    std::printf("%s\t%.6e\t%.6e\t%s\n", k.name.c_str(), s, k.work, k.unit);
    std::fflush(stdout);
  }
  (void)bf16;
  return 0;
}
