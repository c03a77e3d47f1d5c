// Tensor-core benchmark cases, written against the LibTorch API so the same source builds
// against ember (through compat/torch/torch.h) and against LibTorch. Prints one line per
// case: "<name> <seconds per iteration> <bytes or flops per iteration> <unit>".
// Usage: ops_bench [threads] [filter-substring]
#include <torch/torch.h>

#include "bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using bench::time_per_iter;

using bench::Case;

// A plain C triad (a = b + s * c) over 16M floats: the memory bandwidth reference.
double triad_seconds() {
  const int64_t n = 16 << 20;
  std::vector<float> a(n), b(n, 1.f), c(n, 2.f);
  const float s = 3.f;
  return time_per_iter([&] {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  });
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  std::string filter = argc > 2 ? argv[2] : "";
  torch::set_num_threads(threads);
  torch::manual_seed(0);
  const int64_t N = 16 << 20;
  const double f4 = 4.0;

  auto a = torch::rand({N});
  auto b = torch::rand({N});
  auto m = torch::rand({4096, 4096});
  auto row = torch::rand({4096});
  auto abf = torch::rand({N}).to(torch::kBFloat16);
  auto bbf = torch::rand({N}).to(torch::kBFloat16);
  const int64_t NC = 4 << 20;
  auto c64a = torch::view_as_complex(torch::rand({NC, 2}));
  auto c64b = torch::view_as_complex(torch::rand({NC, 2}));
  auto c32a = c64a.to(torch::kComplexHalf);
  auto c32b = c64b.to(torch::kComplexHalf);
  auto m256a = torch::rand({256, 256}), m256b = torch::rand({256, 256});
  auto m1024a = torch::rand({1024, 1024}), m1024b = torch::rand({1024, 1024});
  auto b64a = torch::rand({64, 256, 256}), b64b = torch::rand({64, 256, 256});
  auto x1 = torch::rand({1}), y1 = torch::rand({1});
  torch::Tensor sink;

  std::vector<Case> cases = {
      {"add_ 16M f32", 12.0 * N, "B", [&] { a.add_(b); }},
      {"mul_ 16M f32", 12.0 * N, "B", [&] { a.mul_(b); }},
      {"add 16M f32", 12.0 * N, "B", [&] { sink = torch::add(a, b); }},
      {"exp 16M f32", 8.0 * N, "B", [&] { sink = b.exp(); }},
      {"tanh 16M f32", 8.0 * N, "B", [&] { sink = b.tanh(); }},
      {"add 16M bf16", 6.0 * N, "B", [&] { sink = abf + bbf; }},
      {"broadcast add 4096x4096+4096 f32", 8.0 * N, "B", [&] { sink = m + row; }},
      {"transpose copy 4096x4096 f32", 8.0 * N, "B", [&] { sink = m.t().contiguous(); }},
      {"sum 16M f32", 4.0 * N, "B", [&] { sink = b.sum(); }},
      {"max rows 4096x4096 f32", 4.0 * N, "B", [&] { sink = std::get<0>(m.max(1)); }},
      {"softmax 4096x4096 f32", 8.0 * N, "B", [&] { sink = torch::softmax(m, -1); }},
      {"mm 256 f32", 2.0 * 256 * 256 * 256, "FLOP", [&] { sink = m256a.mm(m256b); }},
      {"mm 1024 f32", 2.0 * 1024 * 1024 * 1024, "FLOP", [&] { sink = m1024a.mm(m1024b); }},
      {"bmm 64x256x256 f32", 64 * 2.0 * 256 * 256 * 256, "FLOP", [&] { sink = b64a.bmm(b64b); }},
      {"add 1-element f32", 1.0, "op", [&] { sink = x1 + y1; }},
      {"mul 4M complex64", 24.0 * NC, "B", [&] { sink = c64a * c64b; }},
      {"mul 4M complex32", 12.0 * NC, "B", [&] { sink = c32a * c32b; }},
  };
  bench::run_cases(cases, filter);
  if (filter.empty() || std::string("triad").find(filter) != std::string::npos) {
    double s = triad_seconds();
    std::printf("%s\t%.6e\t%.6e\t%s\n", "C triad 16M f32", s, 12.0 * N, "B");
  }
  (void)f4;
  return 0;
}
