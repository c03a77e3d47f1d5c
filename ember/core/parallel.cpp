// The thread pool behind parallel_for (Note [Thread pool]) and the thread-count settings.
#include "ember/core/parallel.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "ember/core/error.h"

namespace ember {

// Note [Thread pool]
// parallel_for cuts [begin, end) into one contiguous chunk per thread (the same chunks as
// OpenMP's static schedule) and runs them on a pool of get_num_threads() - 1 workers plus the
// calling thread. Any of them may run any chunk: each claims the next unclaimed one, the
// caller included, and the caller returns once every chunk is done. So a worker that is not
// running when a job starts (asleep, or its core taken by another process) costs that job
// nothing: the caller runs the chunk itself. libgomp's team, used before, waits for every
// thread of the team; its threads also spin for a while after each region (libgomp's default
// wait policy), which on a shared 2-core machine took the core from the thread with work:
// a 100k-row frame filter took 42 ms instead of 0.3 ms when the other core was busy, and
// read_csv of 300 MB 0.24 s instead of 0.18 s on a quiet machine (OMP_WAIT_POLICY=passive
// gave the fast times). Here workers spin only briefly (kSpin) before sleeping on a futex
// (std::atomic::wait), so back-to-back parallel_for calls stay cheap and idle workers cost
// nothing. oneDNN keeps its own OpenMP threads (it is built for OpenMP).
//
// The job's fields are written by the caller before it publishes the job in `claim_`
// (epoch, chunk count and next chunk in one word); a worker reads them only after claiming a
// chunk of that epoch with a compare-and-swap, and the caller cannot start the next job
// before that chunk is done, so a worker that wakes late never sees a half-written job. One
// job runs at a time: a parallel_for from another thread while the pool is busy runs its
// chunks on that thread. Nested parallel_for calls run serially (in_parallel_region()).

namespace {

std::atomic<int> g_num_threads{0};
thread_local bool t_in_parallel = false;
thread_local int t_thread_num = 0;

using Clock = std::chrono::steady_clock;
constexpr auto kSpin = std::chrono::microseconds(20);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

// Spins until pred() holds or kSpin passes; returns pred().
template <class Pred>
bool spin_until(const Pred& pred) {
  const auto deadline = Clock::now() + kSpin;
  for (int i = 0;; ++i) {
    if (pred()) return true;
    cpu_relax();
    if ((i & 63) == 63 && Clock::now() > deadline) return pred();
  }
}

class ThreadPool {
 public:
  using Fn = void (*)(const void*, int64_t, int64_t);

  void run(int64_t begin, int64_t end, int nchunks, Fn fn, const void* ctx) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) {  // another thread's job is running: this one runs here
      run_inline(begin, end, nchunks, fn, ctx);
      return;
    }
    ensure_workers(nchunks - 1);
    begin_ = begin;
    end_ = end;
    chunk_ = (end - begin + nchunks - 1) / nchunks;
    fn_ = fn;
    ctx_ = ctx;
    error_ = nullptr;
    remaining_.store(nchunks, std::memory_order_relaxed);
    const uint64_t epoch = (claim_.load(std::memory_order_relaxed) >> 32) + 1;
    claim_.store(epoch << 32 | uint64_t(nchunks) << 16, std::memory_order_release);
    wake_.fetch_add(1, std::memory_order_release);
    wake_.notify_all();
    work(epoch);
    if (!spin_until([&] { return remaining_.load(std::memory_order_acquire) == 0; }))
      for (int r; (r = remaining_.load(std::memory_order_acquire)) != 0;) remaining_.wait(r, std::memory_order_acquire);
    if (error_) std::rethrow_exception(error_);
  }

  // A fresh pool for a forked child: the parent's workers do not exist there.
  static ThreadPool*& instance() {
    static ThreadPool* pool = [] {
      pthread_atfork(nullptr, nullptr, [] { instance() = new ThreadPool; });  // the old one is leaked
      return new ThreadPool;
    }();
    return pool;
  }

 private:
  static void run_inline(int64_t begin, int64_t end, int nchunks, Fn fn, const void* ctx) {
    const int64_t chunk = (end - begin + nchunks - 1) / nchunks;
    std::exception_ptr err;
    const bool was = t_in_parallel;
    t_in_parallel = true;
    for (int c = 0; c < nchunks; ++c) {
      const int64_t b = begin + c * chunk, e = std::min(end, b + chunk);
      if (b >= e) continue;
      t_thread_num = c;
      try {
        fn(ctx, b, e);
      } catch (...) {
        if (!err) err = std::current_exception();
      }
    }
    t_in_parallel = was;
    t_thread_num = 0;
    if (err) std::rethrow_exception(err);
  }

  // Claims and runs chunks of job `epoch` until none is left.
  void work(uint64_t epoch) {
    for (;;) {
      uint64_t c = claim_.load(std::memory_order_acquire);
      do {
        if (c >> 32 != epoch || (c & 0xFFFF) >= ((c >> 16) & 0xFFFF)) return;
      } while (!claim_.compare_exchange_weak(c, c + 1, std::memory_order_acq_rel, std::memory_order_acquire));
      const int index = int(c & 0xFFFF);
      const int64_t b = begin_ + index * chunk_, e = std::min(end_, b + chunk_);
      if (b < e) {
        t_in_parallel = true;
        t_thread_num = index;
        try {
          fn_(ctx_, b, e);
        } catch (...) {
          std::lock_guard<std::mutex> g(error_mu_);
          if (!error_) error_ = std::current_exception();
        }
        t_in_parallel = false;
        t_thread_num = 0;
      }
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) remaining_.notify_one();
    }
  }

  void worker() {
    uint32_t seen = wake_.load(std::memory_order_acquire);
    for (;;) {
      if (!spin_until([&] { return wake_.load(std::memory_order_acquire) != seen; })) wake_.wait(seen);
      seen = wake_.load(std::memory_order_acquire);
      work(claim_.load(std::memory_order_acquire) >> 32);
    }
  }

  void ensure_workers(int n) {
    while (int(threads_) < n) {
      std::thread t([this] { worker(); });
      pthread_setname_np(t.native_handle(), "ember-worker");
      t.detach();  // workers live as long as the process (the pool is never destroyed)
      ++threads_;
    }
  }

  std::mutex busy_;
  size_t threads_ = 0;
  // The job (see the Note): written under busy_ before the claim word publishes it.
  int64_t begin_ = 0, end_ = 0, chunk_ = 1;
  Fn fn_ = nullptr;
  const void* ctx_ = nullptr;
  std::exception_ptr error_;
  std::mutex error_mu_;
  std::atomic<uint64_t> claim_{0};  // epoch << 32 | chunks << 16 | next chunk
  std::atomic<int> remaining_{0};   // chunks not finished
  std::atomic<uint32_t> wake_{0};   // bumped per job; idle workers wait on it
};

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
  EMBER_CHECK(n <= 0xFFFF, "set_num_threads: ", n, " threads is more than the pool supports (65535)");
  g_num_threads.store(n, std::memory_order_relaxed);
}

int get_thread_num() { return t_in_parallel ? t_thread_num : omp_in_parallel() ? omp_get_thread_num() : 0; }
bool in_parallel_region() { return t_in_parallel || omp_in_parallel(); }

namespace detail {
void parallel_run(int64_t begin, int64_t end, int64_t grain, void (*fn)(const void*, int64_t, int64_t),
                  const void* ctx) {
  const int64_t range = end - begin;
  const int64_t nchunks =
      std::min<int64_t>({get_num_threads(), (range + grain - 1) / std::max<int64_t>(grain, 1), 0xFFFF});
  if (nchunks <= 1) {
    const bool was = t_in_parallel;
    t_in_parallel = true;
    try {
      fn(ctx, begin, end);
    } catch (...) {
      t_in_parallel = was;
      throw;
    }
    t_in_parallel = was;
    return;
  }
  ThreadPool::instance()->run(begin, end, int(nchunks), fn, ctx);
}
}  // namespace detail

}  // namespace ember
