// parallel_for (Note [Thread pools] in ember/core/parallel.cpp): every index exactly once in
// the chunks of OpenMP's static schedule, grain, nesting, exceptions, concurrent callers,
// thread counts, and a forked child with one thread (what forked DataLoader workers use).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/parallel.h"

namespace ember {
namespace {

struct Threads {  // set_num_threads for a scope
  explicit Threads(int n) : saved(get_num_threads()) { set_num_threads(n); }
  ~Threads() { set_num_threads(saved); }
  int saved;
};

TEST(ParallelFor, EveryIndexOnceInStaticChunks) {
  for (int nt : {1, 2, 3, 4, 7}) {
    Threads t(nt);
    for (int64_t n : {1, 2, 5, 64, 1000, 100003}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      std::mutex mu;
      std::set<std::pair<int64_t, int64_t>> chunks;
      parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
        EXPECT_TRUE(in_parallel_region() || nt == 1 || n == 1);
        EXPECT_LT(get_thread_num(), nt);
        for (int64_t i = b; i < e; ++i) hits[size_t(i)]++;
        std::lock_guard<std::mutex> g(mu);
        chunks.insert({b, e});
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[size_t(i)].load(), 1) << "nt=" << nt << " n=" << n << " i=" << i;
      // The chunks: ceil(n / k) long for k = min(threads, n) (the last one shorter).
      const int64_t k = std::min<int64_t>(nt, n), len = (n + k - 1) / k;
      for (const auto& [b, e] : chunks) {
        EXPECT_EQ(b % len, 0);
        EXPECT_EQ(e, std::min(n, b + len));
      }
    }
  }
  EXPECT_FALSE(in_parallel_region());
}

TEST(ParallelFor, GrainBoundsTheChunks) {
  Threads t(4);
  std::atomic<int> calls{0};
  parallel_for(0, 100, 60, [&](int64_t b, int64_t e) {
    ++calls;
    EXPECT_GE(e - b, 40);
  });
  EXPECT_EQ(calls.load(), 2);
  calls = 0;
  parallel_for(0, 100, 100, [&](int64_t, int64_t) { ++calls; });  // one chunk, on this thread
  EXPECT_EQ(calls.load(), 1);
  parallel_for(5, 5, 1, [&](int64_t, int64_t) { ADD_FAILURE() << "empty range ran"; });
}

TEST(ParallelFor, NestedCallsRunSerially) {
  Threads t(2);
  std::atomic<int64_t> sum{0};
  parallel_for(0, 4, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const std::thread::id self = std::this_thread::get_id();
      parallel_for(0, 100, 1, [&](int64_t b2, int64_t e2) {
        EXPECT_EQ(std::this_thread::get_id(), self);  // inner chunks stay on this thread
        EXPECT_EQ(b2, 0);
        EXPECT_EQ(e2, 100);
        sum += e2 - b2;
      });
    }
  });
  EXPECT_EQ(sum.load(), 400);
}

TEST(ParallelFor, AnExceptionReachesTheCallerAfterEveryChunk) {
  Threads t(3);
  for (int round = 0; round < 50; ++round) {
    std::atomic<int> done{0};
    EXPECT_THROW(parallel_for(0, 3, 1,
                              [&](int64_t b, int64_t) {
                                if (b == round % 3) throw std::runtime_error("chunk failed");
                                ++done;
                              }),
                 std::runtime_error);
    EXPECT_EQ(done.load(), 2);  // the other chunks ran to the end first
  }
  std::atomic<int> n{0};
  parallel_for(0, 30, 1, [&](int64_t b, int64_t e) { n += int(e - b); });
  EXPECT_EQ(n.load(), 30);
}

TEST(ParallelFor, ConcurrentCallersAndManyShortJobs) {
  Threads t(2);
  std::vector<std::thread> callers;
  std::atomic<int64_t> total{0};
  for (int c = 0; c < 4; ++c)
    callers.emplace_back([&] {
      for (int j = 0; j < 500; ++j) {
        std::atomic<int64_t> s{0};
        parallel_for(0, 1000, 1, [&](int64_t b, int64_t e) {
          int64_t x = 0;
          for (int64_t i = b; i < e; ++i) x += i;
          s += x;
        });
        ASSERT_EQ(s.load(), 999 * 1000 / 2);
        total += 1;
      }
    });
  for (auto& th : callers) th.join();
  EXPECT_EQ(total.load(), 2000);
}

TEST(ParallelFor, ThreadCountChanges) {
  for (int nt : {2, 6, 1, 3}) {
    Threads t(nt);
    std::mutex mu;
    std::set<int> nums;
    parallel_for(0, 600, 1, [&](int64_t, int64_t) {
      std::lock_guard<std::mutex> g(mu);
      nums.insert(get_thread_num());
    });
    EXPECT_EQ(int(nums.size()), nt);  // one chunk per thread, numbered 0 .. nt - 1
    EXPECT_EQ(*nums.rbegin(), nt - 1);
  }
  EXPECT_THROW(set_num_threads(0), std::exception);
}

TEST(ParallelFor, ForkedChildWithOneThread) {
  Threads t(2);
  std::atomic<int> n{0};
  parallel_for(0, 10, 1, [&](int64_t b, int64_t e) { n += int(e - b); });  // the team exists in the parent
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    set_num_threads(1);  // as DataLoader's worker processes do
    std::atomic<int> m{0};
    for (int j = 0; j < 100; ++j) parallel_for(0, 10, 1, [&](int64_t b, int64_t e) { m += int(e - b); });
    _exit(m.load() == 1000 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

// Note [Parallel regions after fork]: a child forked after the parent's team started runs
// single-threaded by itself (a region with more threads would hang there), and asking it for
// more threads is a clear error.
TEST(ParallelFor, ForkedChildRunsSingleThreadedByItself) {
  Threads t(2);
  std::atomic<int> n{0};
  parallel_for(0, 10, 1, [&](int64_t b, int64_t e) { n += int(e - b); });
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    alarm(20);  // a hang ends the child with SIGALRM
    std::atomic<int> m{0};
    for (int j = 0; j < 100; ++j) parallel_for(0, 10, 1, [&](int64_t b, int64_t e) { m += int(e - b); });
    bool refused = false;
    try {
      set_num_threads(2);
    } catch (const Error& e) {
      refused = std::string(e.what()).find("forked") != std::string::npos;
    }
    _exit(m.load() == 1000 && get_num_threads() == 1 && refused ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
  EXPECT_EQ(get_num_threads(), 2);  // the parent keeps its threads
}

}  // namespace
}  // namespace ember
