// Issue 18's fuser figures (bench/jit_bench.sh): a chain of pointwise ops over 16M floats run
// eagerly, traced and fused (one LLVM kernel), and as a hand-written single-pass C++ loop
// (std::tanh, -O3 -march=native -ffast-math: gcc vectorizes it with glibc's libmvec, as the fused
// kernel is; OpenMP over the same threads); the compile time per fused kernel over many
// distinct groups; LayerNorm + residual + dropout forward and backward and a
// TransformerEncoderLayer training step, traced against eager; and the compilations of a training
// loop over varying batch sizes. Medians of timed batches (bench_util.h).
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

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

// LayerNorm(residual + dropout(x)) on [8192, 1024], forward and backward, traced vs eager.
void layer_norm_residual_dropout() {
  torch::manual_seed(0);
  auto ln = torch::nn::LayerNorm(torch::nn::LayerNormOptions({1024}));
  auto drop = torch::nn::Dropout(0.1);
  auto fn = [&](const std::vector<torch::Tensor>& in) { return std::vector<torch::Tensor>{ln(in[0] + drop(in[1]))}; };
  const torch::Tensor residual = torch::randn({8192, 1024}, torch::requires_grad());
  const torch::Tensor x = torch::randn({8192, 1024}, torch::requires_grad());
  const torch::Tensor g = torch::randn({8192, 1024});
  auto traced = jit::trace(fn, {residual, x});
  auto step = [&](const std::function<std::vector<torch::Tensor>(const std::vector<torch::Tensor>&)>& f) {
    torch::Tensor y = f({residual, x})[0];
    y.backward(g);
  };
  const double eager = bench::time_per_iter([&] { step(fn); }, 0.5);
  const double fused = bench::time_per_iter([&] { step([&](const std::vector<torch::Tensor>& in) { return traced.forward(in); }); }, 0.5);
  std::printf("LayerNorm + residual + dropout [8192, 1024] forward+backward: eager %.2f ms, traced %.2f ms: %.2fx (target >= 2)\n%s",
              eager * 1e3, fused * 1e3, eager / fused, jit::fusion_report(traced.fused_graph()).c_str());
}

// One training step (forward, backward, SGD) of a TransformerEncoderLayer, traced vs eager.
void transformer_step() {
  torch::manual_seed(0);
  auto layer = torch::nn::TransformerEncoderLayer(torch::nn::TransformerEncoderLayerOptions(256, 4).dim_feedforward(1024));
  torch::optim::SGD opt(layer->parameters(), 0.01);
  const torch::Tensor src = torch::randn({64, 16, 256});
  auto traced = jit::trace(layer, {src});
  auto step = [&](auto&& forward) {
    opt.zero_grad();
    forward(src).square().mean().backward();
    opt.step();
  };
  const double eager = bench::time_per_iter([&] { step([&](const torch::Tensor& t) { return layer(t); }); }, 0.5);
  const double fused = bench::time_per_iter([&] { step([&](const torch::Tensor& t) { return traced.forward(t); }); }, 0.5);
  std::printf("TransformerEncoderLayer(256, 4, ff 1024) training step, src [64, 16, 256]: eager %.2f ms, traced %.2f ms: %.2fx (target >= 1.3)\n",
              eager * 1e3, fused * 1e3, eager / fused);
}

// A training loop over varying batch sizes: traces and compilations.
void variable_batches() {
  torch::manual_seed(0);
  auto net = torch::nn::Sequential(torch::nn::Linear(64, 128), torch::nn::Functional(std::function<torch::Tensor(torch::Tensor)>(
                                                                      [](torch::Tensor t) { return gelu_chain(t); })),
                                   torch::nn::Dropout(0.1), torch::nn::Linear(128, 10));
  torch::optim::SGD opt(net->parameters(), 0.01);
  auto traced = jit::trace(net, {torch::randn({32, 64})});
  jit::reset_stats();
  int steps = 0;
  for (int64_t batch : {32, 17, 64, 5, 128, 33, 64, 7, 250, 32}) {
    opt.zero_grad();
    traced.forward(torch::randn({batch, 64})).logsumexp(1).mean().backward();
    opt.step();
    ++steps;
  }
  const jit::Stats s = jit::stats();
  std::printf("training loop over %d batches of 9 sizes: %lld traces (%lld size-generic), %lld kernels compiled, %lld fused runs, "
              "%lld op-by-op fallbacks\n",
              steps, (long long)s.traces, (long long)s.dynamic_graphs, (long long)s.kernels_compiled, (long long)s.fused_runs,
              (long long)s.fused_fallbacks);
}

// Row statistics on [8192, 1024], forward: standardized by the row's mean and std (std_mean over
// the last dimension fuses as means) and the row's maximum of 2x (amax fuses), traced vs eager.
void row_statistics() {
  torch::NoGradGuard no_grad;
  torch::manual_seed(0);
  auto fn = [](const std::vector<torch::Tensor>& in) {
    const torch::Tensor& x = in[0];
    auto [s, m] = torch::std_mean(x, {-1}, /*unbiased=*/true, /*keepdim=*/true);
    return std::vector<torch::Tensor>{(x - m) / (s + 1e-5), (x * 2).amax(-1)};
  };
  const torch::Tensor x = torch::randn({8192, 1024});
  auto traced = jit::trace(fn, {x});
  const double eager = bench::time_per_iter([&] { (void)fn({x}); }, 0.5);
  const double fused = bench::time_per_iter([&] { (void)traced.forward(std::vector<torch::Tensor>{x}); }, 0.5);
  std::printf("row statistics: (x - mean) / (std + eps) and amax(2x) over [8192, 1024]: eager %.2f ms, traced %.2f ms: %.2fx\n%s",
              eager * 1e3, fused * 1e3, eager / fused, jit::fusion_report(traced.fused_graph()).c_str());
}

// Usage: jit_bench [rows]   (rows: the row statistics only)
int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "rows") {
    row_statistics();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "transformer") {
    transformer_step();
    return 0;
  }
  {
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
  }
  layer_norm_residual_dropout();
  transformer_step();
  row_statistics();
  variable_batches();
  return 0;
}
