// OpenMP-backed thread pool settings and the parallel_for driver.
#include "ember/core/parallel.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>

#include "ember/core/error.h"

namespace ember {

// Note [Thread pools]
// parallel_for runs on the OpenMP team, which oneDNN also uses: one set of threads for
// tensor kernels, BLAS pieces (Note [BLAS threads]) and oneDNN primitives. libgomp's threads
// spin for a while after each region, so kernels run back to back (a training step) find them
// awake. An own pool was tried (2026-12-01: workers spinning 20 us then sleeping on a futex,
// the caller running the chunks no worker had claimed, so that a descheduled worker cannot
// stall a region): at 2 threads a transformer-encoder training step took 70 ms on it against
// 49 ms on the OpenMP team and ResNet-18 bfloat16 inference 42 vs 33 ms (its workers and
// oneDNN's OpenMP threads contended for the cores, and its workers fell asleep between
// kernels); for the frame's kernels alone it made no difference on a quiet machine (read_csv
// 0.17-0.18 s either way) and was slower on 100k-row filter+sort (1.7 vs 1.15 ms median),
// better only in the tail under load (p90 2.4 vs 5.2 ms with one core busy). So one pool.
// OMP_WAIT_POLICY=passive is the remedy on a machine shared with other work. libgomp's team
// does not survive fork (an OpenMP region in a forked child hangs): forked DataLoader workers
// run with one thread, as PyTorch's do.

namespace {
std::atomic<int> g_num_threads{0};
thread_local bool t_in_parallel = false;

// Note [Parallel regions after fork]: libgomp's thread team does not survive fork(), and an
// OpenMP region in a child forked after the parent ran one hangs (seen: a checkpoint saved in
// a forked child never finished its first fill). So a child forked after the team started
// runs single-threaded: ember's parallel_for and, through omp_set_num_threads, oneDNN's and
// OpenBLAS's OpenMP regions, as PyTorch's forked workers do; asking it for more threads is an
// error that says why. A child forked before any region keeps its thread count.
// The handler is registered when the first region starts, after the OpenMP runtime has set
// itself up: LLVM's libomp registers its own fork handlers then, and the child's handlers run
// in registration order, so ours calls omp_set_num_threads only once libomp has reset its
// locks in the child (registered earlier, it hung there: seen with the clang build).
std::atomic<bool> g_team_started{false};
std::atomic<bool> g_forked_after_team{false};

void after_fork_in_child() {
  g_forked_after_team.store(true, std::memory_order_relaxed);
  g_num_threads.store(1, std::memory_order_relaxed);
  omp_set_num_threads(1);
}

void note_team_start() {
  static std::once_flag once;
  std::call_once(once, [] {
    (void)omp_get_max_threads();  // sets the runtime up (and its fork handlers) if nothing did yet
    pthread_atfork(nullptr, nullptr, after_fork_in_child);
    g_team_started.store(true, std::memory_order_relaxed);
  });
}
}  // namespace

int num_available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

int get_num_threads() {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n > 0) return n;
  n = num_available_cpus();
  if (const char* env = std::getenv("OMP_NUM_THREADS")) {
    int v = std::atoi(env);
    if (v > 0) n = v;
  }
  g_num_threads.store(n, std::memory_order_relaxed);
  return n;
}

void set_num_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_threads: expected a positive number of threads, got ", n);
  EMBER_CHECK(n == 1 || !g_forked_after_team.load(std::memory_order_relaxed), "set_num_threads(", n,
              "): this process was forked after its parent ran parallel regions, and OpenMP's threads do not "
              "survive fork(); a forked child runs with one thread (Note [Parallel regions after fork])");
  g_num_threads.store(n, std::memory_order_relaxed);
}

namespace {
std::atomic<int> g_num_interop_threads{0};
}  // namespace
int get_num_interop_threads() {
  const int n = g_num_interop_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : num_available_cpus();
}
void set_num_interop_threads(int n) {
  EMBER_CHECK(n > 0, "set_num_interop_threads expects a positive integer, got ", n);
  g_num_interop_threads.store(n, std::memory_order_relaxed);
}

int get_thread_num() { return t_in_parallel ? omp_get_thread_num() : 0; }
bool in_parallel_region() { return t_in_parallel || omp_in_parallel(); }

namespace detail {
void parallel_run(int64_t begin, int64_t end, int64_t grain,
                  void (*fn)(const void*, int64_t, int64_t), const void* ctx) {
  int64_t range = end - begin;
  int64_t nthreads = std::min<int64_t>(get_num_threads(), (range + grain - 1) / std::max<int64_t>(grain, 1));
  std::exception_ptr err;
  std::mutex err_mu;
  if (!g_team_started.load(std::memory_order_relaxed)) note_team_start();
#pragma omp parallel num_threads(nthreads)
  {
    int64_t tid = omp_get_thread_num(), nt = omp_get_num_threads();
    int64_t chunk = (range + nt - 1) / nt;
    int64_t b = begin + tid * chunk, e = std::min(end, b + chunk);
    if (b < e) {
      t_in_parallel = true;
      try {
        fn(ctx, b, e);
      } catch (...) {
        std::lock_guard<std::mutex> g(err_mu);
        if (!err) err = std::current_exception();
      }
      t_in_parallel = false;
    }
  }
  if (err) std::rethrow_exception(err);
}
}  // namespace detail

}  // namespace ember
