// Timing shared by the benchmark programs (built against ember and against LibTorch).
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

// Median of 7 timed batches after 3 warm-up calls (allocator, page faults, primitive
// caches); each batch runs enough iterations to take at least `min_batch_seconds`.
inline double time_per_iter(const std::function<void()>& f, double min_batch_seconds = 0.02) {
  for (int i = 0; i < 3; ++i) f();
  int iters = 1;
  for (;;) {
    auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) f();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s >= min_batch_seconds) break;
    iters *= 2;
  }
  std::vector<double> samples;
  for (int r = 0; r < 7; ++r) {
    auto t0 = Clock::now();
    for (int i = 0; i < iters; ++i) f();
    samples.push_back(std::chrono::duration<double>(Clock::now() - t0).count() / iters);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// One benchmark case: `work` units of `unit` ("B", "FLOP", "op") per call of fn.
struct Case {
  std::string name;
  double work;
  const char* unit;
  std::function<void()> fn;
};

// Times every case whose name contains `filter` and prints "<name>\t<seconds>\t<work>\t<unit>"
// (the lines bench/compare.sh reads).
inline void run_cases(const std::vector<Case>& cases, const std::string& filter, double min_batch_seconds = 0.02) {
  for (const Case& c : cases) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    const double s = time_per_iter(c.fn, min_batch_seconds);
    std::printf("%s\t%.6e\t%.6e\t%s\n", c.name.c_str(), s, c.work, c.unit);
    std::fflush(stdout);
  }
}

}  // namespace bench
