// Linear-algebra benchmark cases, written against the LibTorch API so the same source builds
// against ember (through compat/torch/torch.h) and against LibTorch. Prints one line per
// case: "<name> <seconds per iteration> <flops per iteration> FLOP" (the format of
// ops_bench.cpp, so bench/compare.sh's table code applies). Build and run like
// bench/compare.sh does for ops_bench.cpp, e.g.
//   g++ -O3 -march=native -std=c++20 -fopenmp bench/linalg_bench.cpp -Icompat -I. \
//       -Lbuild -lember -Wl,-rpath,$PWD/build -o linalg_bench_ember
//   g++ -O3 -march=native -std=c++17 -fopenmp bench/linalg_bench.cpp \
//       -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -o linalg_bench_torch
// Usage: linalg_bench [threads] [filter-substring]
#include <torch/torch.h>

#include "bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

using bench::time_per_iter;

struct Case {
  std::string name;
  double flops;
  std::function<void()> fn;
};

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  std::string filter = argc > 2 ? argv[2] : "";
  torch::set_num_threads(threads);
  torch::manual_seed(0);
  torch::Tensor sink;
  std::vector<Case> cases;
  auto mm_case = [&](int64_t n, torch::ScalarType dt, const char* tag) {
    auto a = torch::rand({n, n}).to(dt), b = torch::rand({n, n}).to(dt);
    cases.push_back({"mm " + std::to_string(n) + " " + tag, 2.0 * n * n * n, [=, &sink] { sink = a.mm(b); }});
  };
  for (int64_t n : {16, 32, 48, 64, 96, 128, 256, 512, 1024, 2048}) mm_case(n, torch::kFloat, "f32");
  for (int64_t n : {64, 256, 1024}) mm_case(n, torch::kDouble, "f64");
  for (int64_t n : {256, 1024}) mm_case(n, torch::kBFloat16, "bf16");
  mm_case(256, torch::kComplexFloat, "c64");
  {
    auto a = torch::rand({1024, 1024}), b = torch::rand({1024, 1024});
    cases.push_back({"mm 1024 f32 A^T", 2.0 * 1024 * 1024 * 1024, [=, &sink] { sink = a.t().mm(b); }});
    cases.push_back({"mm 1024 f32 B^T", 2.0 * 1024 * 1024 * 1024, [=, &sink] { sink = a.mm(b.t()); }});
  }
  {
    auto a = torch::rand({64, 256, 256}), b = torch::rand({64, 256, 256});
    cases.push_back({"bmm 64x256x256 f32", 64 * 2.0 * 256 * 256 * 256, [=, &sink] { sink = a.bmm(b); }});
    auto ad = a.to(torch::kDouble), bd = b.to(torch::kDouble);
    cases.push_back({"bmm 64x256x256 f64", 64 * 2.0 * 256 * 256 * 256, [=, &sink] { sink = ad.bmm(bd); }});
    auto s = torch::rand({512, 64, 64}), t = torch::rand({512, 64, 64});
    cases.push_back({"bmm 512x64x64 f32", 512 * 2.0 * 64 * 64 * 64, [=, &sink] { sink = s.bmm(t); }});
    auto x = torch::rand({32, 128, 512}), w = torch::rand({512, 512});
    cases.push_back({"matmul 32x128x512 @ 512x512 f32", 32 * 128 * 2.0 * 512 * 512, [=, &sink] { sink = x.matmul(w); }});
    auto bias = torch::rand({512}), in = torch::rand({256, 512});
    cases.push_back({"addmm 256x512x512 f32", 2.0 * 256 * 512 * 512, [=, &sink] { sink = torch::addmm(bias, in, w); }});
  }
  {
    auto m = torch::rand({4096, 4096}), v = torch::rand({4096});
    cases.push_back({"mv 4096 f32", 2.0 * 4096 * 4096, [=, &sink] { sink = m.mv(v); }});
    auto x = torch::rand({1 << 20}), y = torch::rand({1 << 20});
    cases.push_back({"dot 1M f32", 2.0 * (1 << 20), [=, &sink] { sink = x.dot(y); }});
  }
  {
    auto a = torch::rand({64, 128, 64}), b = torch::rand({64, 64, 128});
    cases.push_back({"einsum bij,bjk->bik 64x128x64x128", 64 * 2.0 * 128 * 64 * 128,
                     [=, &sink] { sink = torch::einsum("bij,bjk->bik", {a, b}); }});
  }
  {
    auto a = torch::rand({512, 512}).to(torch::kDouble) + torch::eye(512, torch::kDouble) * 512;
    auto b = torch::rand({512, 16}).to(torch::kDouble);
    cases.push_back({"linalg.inv 512 f64", 2.0 * 512 * 512 * 512, [=, &sink] { sink = torch::linalg::inv(a); }});
    cases.push_back({"linalg.solve 512x16 f64", 2.0 / 3 * 512 * 512 * 512, [=, &sink] { sink = torch::linalg::solve(a, b, true); }});
    auto small = torch::rand({256, 8, 8}).to(torch::kDouble) + torch::eye(8, torch::kDouble) * 8;
    cases.push_back({"linalg.inv 256x8x8 f64", 256 * 2.0 * 512, [=, &sink] { sink = torch::linalg::inv(small); }});
  }
  for (auto& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    double s = time_per_iter(c.fn);
    std::printf("%s\t%.6e\t%.6e\tFLOP\n", c.name.c_str(), s, c.flops);
    std::fflush(stdout);
  }
  return 0;
}
