// Intra-op parallelism over OpenMP: parallel_for splits [begin, end) into chunks of at
// least grain_size and runs them on the ember thread pool. Nested calls run serially.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace ember {

int get_num_threads();
inline void init_num_threads() {}  // LibTorch's per-thread OpenMP setup; ember's pool needs none
void set_num_threads(int n);
int get_thread_num();
bool in_parallel_region();
// CPUs this process may run on (sched_getaffinity), the default thread count.
int num_available_cpus();

namespace detail {
void parallel_run(int64_t begin, int64_t end, int64_t grain,
                  void (*fn)(const void*, int64_t, int64_t), const void* ctx);
}

// f(chunk_begin, chunk_end) is called on disjoint chunks covering [begin, end).
template <class F>
void parallel_for(int64_t begin, int64_t end, int64_t grain_size, const F& f) {
  if (begin >= end) return;
  if (end - begin <= grain_size || in_parallel_region() || get_num_threads() == 1) {
    f(begin, end);
    return;
  }
  detail::parallel_run(begin, end, grain_size,
                       [](const void* c, int64_t b, int64_t e) { (*static_cast<const F*>(c))(b, e); }, &f);
}

// LibTorch's parallel_reduce: f(chunk_begin, chunk_end, ident) on disjoint chunks of at least
// grain_size, then the chunk results combined with sf (starting from ident).
template <class scalar_t, class F, class SF>
scalar_t parallel_reduce(int64_t begin, int64_t end, int64_t grain_size, const scalar_t ident, const F& f,
                         const SF& sf) {
  if (begin >= end) return ident;
  if (end - begin <= grain_size || in_parallel_region() || get_num_threads() == 1) return f(begin, end, ident);
  const int64_t step = std::max<int64_t>(grain_size, 1);
  const int64_t chunks = (end - begin + step - 1) / step;
  std::vector<scalar_t> partial(size_t(chunks), ident);
  parallel_for(0, chunks, 1, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const int64_t lo = begin + c * step;
      partial[size_t(c)] = f(lo, std::min(end, lo + step), ident);
    }
  });
  scalar_t r = ident;
  for (const scalar_t& p : partial) r = sf(r, p);
  return r;
}

// Inter-op parallelism (LibTorch's second pool, for running ops concurrently): ember runs ops
// one at a time on the intra-op pool, so the count is recorded and reported, nothing more.
int get_num_interop_threads();
void set_num_interop_threads(int n);

}  // namespace ember
