// Intra-op parallelism over OpenMP: parallel_for splits [begin, end) into chunks of at
// least grain_size and runs them on the ember thread pool. Nested calls run serially.
#pragma once
#include <cstdint>
#include <functional>

namespace ember {

int get_num_threads();
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

}  // namespace ember
