// Timing shared by the benchmark programs (built against ember and against LibTorch).
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
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

}  // namespace bench
