// Random sampling and FFT benchmark cases, written against the LibTorch API so the same
// source builds against ember and against LibTorch (BENCH=random_fft_bench bench/compare.sh).
// The samplers draw PyTorch's CPU stream on both (ember's default generator is MT19937 with
// PyTorch's transforms), so the two do the same work element by element.
// Prints "<name> <seconds per iteration> <work> <unit>" per case.
// Usage: random_fft_bench [threads] [filter-substring]
#include <torch/torch.h>

#include "bench_util.h"

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using bench::Case;

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  std::string filter = argc > 2 ? argv[2] : "";
  torch::set_num_threads(threads);
  torch::manual_seed(0);

  const int64_t n = 1 << 22;
  auto f32 = torch::empty({n});
  auto f64 = torch::empty({n}, torch::kDouble);
  auto b = torch::empty({n}, torch::kBool);
  auto x = torch::randn({256, 4096});
  auto z = torch::randn({512, 512}, torch::kComplexFloat);
  auto d = torch::randn({64, 1000}, torch::kDouble);
  auto prime = torch::randn({64, 1031}, torch::kDouble);
  auto spectrum = torch::fft::rfft(x);

  const double bytes32 = double(n) * 4, bytes64 = double(n) * 8;
  std::vector<Case> cases = {
      {"normal_ f32 4M", bytes32, "B", [&] { f32.normal_(); }},
      {"normal_ f64 4M", bytes64, "B", [&] { f64.normal_(); }},
      {"uniform_ f32 4M", bytes32, "B", [&] { f32.uniform_(-1, 1); }},
      {"random_(0,100) f32 4M", bytes32, "B", [&] { f32.random_(0, 100); }},
      {"bernoulli_(0.3) bool 4M", double(n), "B", [&] { b.bernoulli_(0.3); }},
      {"randperm 4M", double(n) * 8, "B", [&] { torch::randperm(n); }},
      {"dropout train f32 4M", bytes32 * 2, "B", [&] { torch::dropout(f32, 0.5, true); }},
      {"rfft 256x4096 f32", 0, "", [&] { torch::fft::rfft(x); }},
      {"irfft 256x2049 c64", 0, "", [&] { torch::fft::irfft(spectrum); }},
      {"fft2 512x512 c64", 0, "", [&] { torch::fft::fft2(z); }},
      {"fft dim0 64x1000 f64", 0, "", [&] { torch::fft::fft(d, c10::nullopt, 0); }},
      {"fft 64x1031 (prime) f64", 0, "", [&] { torch::fft::fft(prime); }},
  };
  bench::run_cases(cases, filter);
}
