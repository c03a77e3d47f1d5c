// Issue 18's fuser figures (bench/jit_bench.sh): a chain of pointwise ops over 16M floats run
// eagerly, traced and fused (one LLVM kernel), and as a hand-written single-pass C++ loop
// (std::tanh, -O3 -march=native -ffast-math: gcc vectorizes it with glibc's libmvec, as the fused
// kernel is; OpenMP over the same threads); and the compile time per fused
// kernel over many distinct groups. Medians of timed batches (bench_util.h).
#include <torch/torch.h>

#include <cmath>
#include <cstdio>

#include "bench_util.h"
#include "ember/jit/jit.h"

namespace jit = ember::jit;

// tanh-GELU written out: 8 pointwise ops (3 mul, add, mul, tanh, add, mul, plus the 0.5 * x).
torch::Tensor gelu_chain(const torch::Tensor& x) {
  return 0.5 * x * (1 + torch::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}

void hand_loop(const float* x, float* y, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + std::tanh(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  }
}

int main() {
  torch::NoGradGuard no_grad;
  const int64_t n = 16 << 20;
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({n});
  torch::Tensor y = torch::empty({n});
  auto traced = jit::trace([](const std::vector<torch::Tensor>& in) { return std::vector<torch::Tensor>{gelu_chain(in[0])}; },
                           {x});
  std::printf("graph nodes %zu, fused nodes %zu\n%s", traced.graph().nodes().size(), traced.fused_graph().nodes().size(),
              jit::fusion_report(traced.fused_graph()).c_str());
  const double eager = bench::time_per_iter([&] { (void)gelu_chain(x); }, 0.2);
  const double fused = bench::time_per_iter([&] { (void)traced.forward(x); }, 0.2);
  const double hand = bench::time_per_iter([&] { hand_loop(x.data_ptr<float>(), y.data_ptr<float>(), n); }, 0.2);
  const double diff = (traced.forward(x) - gelu_chain(x)).abs().max().item<double>();
  std::printf("tanh-GELU chain, 16M floats, %d threads: eager %.2f ms, fused %.2f ms, hand-written loop %.2f ms\n",
              torch::get_num_threads(), eager * 1e3, fused * 1e3, hand * 1e3);
  std::printf("  fused / eager speedup %.2fx (target >= 4), fused vs hand loop %.2fx (target >= 0.9); max |fused - eager| %.2e\n",
              eager / fused, hand / fused, diff);
  // Compile time: distinct groups (a different constant makes a different kernel).
  jit::reset_stats();
  const int kernels = 40;
  for (int k = 0; k < kernels; ++k) {
    const double c = 0.01 * (k + 1);
    auto t = jit::trace(
        [c](const std::vector<torch::Tensor>& in) {
          return std::vector<torch::Tensor>{torch::sigmoid(in[0] * c + 1).mul(in[0]).tanh() - in[0].exp() * 0.5};
        },
        {torch::randn({1024})});
    (void)t.forward(torch::randn({1024}));
  }
  const jit::Stats s = jit::stats();
  std::printf("compile time per fused kernel: %.1f ms (mean over %lld kernels; target <= 50 ms)\n",
              1e3 * s.compile_seconds / double(s.kernels_compiled), (long long)s.kernels_compiled);
  return 0;
}
