// Micro-benchmark of ember::frame column compute on 10M rows (not run in CI): sum and mean of
// float64 and int64 columns, a float predicate and the filter it drives, and str.lower on
// short strings (ASCII, and with some non-ASCII rows). The data mirrors the frame benchmark
// of issue 6: int64 key with 1,000 distinct values, float64 value, short string.
//
//   g++ -O2 -std=c++20 -I. -Icompat bench/frame_compute_bench.cpp -Lbuild -lember \
//       -Wl,-rpath,$PWD/build -o build/bench/frame_compute_bench
//   OMP_NUM_THREADS=2 build/bench/frame_compute_bench [rows]
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "ember/core/parallel.h"
#include "ember/frame/compute/compute.h"
#include "ember/frame/frame.h"

using namespace ember::frame;

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 10'000'000;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  std::vector<int64_t> key(size_t(n), 0);
  std::vector<double> value(size_t(n), 0.0);
  for (int64_t i = 0; i < n; ++i) {
    key[size_t(i)] = int64_t(rng() % 1000);
    value[size_t(i)] = unif(rng);
  }
  const char* words[] = {"alpha", "Beta", "GAMMA", "delta", "Epsilon", "zeta", "Eta", "THETA"};
  const char* accented[] = {"Élan", "Straße", "Ωmega", "Ärger"};
  StringBuilder ascii_b, mixed_b;
  ascii_b.reserve(n);
  mixed_b.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t r = rng();
    std::string s = words[r % 8];
    s += std::to_string(r % 100);
    ascii_b.append(s);
    mixed_b.append(i % 10 == 0 ? std::string(accented[(r >> 8) % 4]) + std::to_string(r % 100) : s);
  }
  const Column k = column(key);
  const Column v = column(value);
  const Column s_ascii = ascii_b.finish();
  const Column s_mixed = mixed_b.finish();
  std::vector<std::optional<double>> with_nulls(value.begin(), value.end());
  for (int64_t i = 0; i < n; i += 7) with_nulls[size_t(i)] = std::nullopt;
  const Column vn = column(with_nulls);

  std::printf("ember::frame compute, %lld rows, %d threads (median of 7 batches, ms)\n", (long long)n,
              ember::get_num_threads());
  auto report = [](const char* name, double seconds) { std::printf("  %-34s %9.2f\n", name, seconds * 1e3); };
  volatile double sink = 0;
  report("sum float64", bench::time_per_iter([&] { sink = sink + v.sum().as_double(); }));
  report("mean float64", bench::time_per_iter([&] { sink = sink + v.mean(); }));
  report("sum int64", bench::time_per_iter([&] { sink = sink + double(k.sum().as_int()); }));
  report("mean float64 (1/7 null)", bench::time_per_iter([&] { sink = sink + vn.mean(); }));
  Column mask;
  report("v > 0.5 (predicate)", bench::time_per_iter([&] { mask = v > 0.5; }));
  report("filter float64 by mask", bench::time_per_iter([&] { sink = sink + double(v.filter(mask).size()); }));
  report("filter(v > 0.5) end to end", bench::time_per_iter([&] { sink = sink + double(v.filter(v > 0.5).size()); }));
  report("filter string by mask", bench::time_per_iter([&] { sink = sink + double(s_ascii.filter(mask).size()); }));
  report("str.lower (ASCII)", bench::time_per_iter([&] { sink = sink + double(s_ascii.str().lower().size()); }));
  report("str.lower (10% non-ASCII)", bench::time_per_iter([&] { sink = sink + double(s_mixed.str().lower().size()); }));
  const Column s1m = s_ascii.slice(0, std::min<int64_t>(n, 1'000'000));
  report("str.lower (ASCII, 1M rows)", bench::time_per_iter([&] { sink = sink + double(s1m.str().lower().size()); }));
  return sink == 12345.678 ? 1 : 0;
}
