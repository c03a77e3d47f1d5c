// ember/data/s3 http: the connection pool across fork() while other threads use it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "ember/data/s3/http.h"
#include "test_util.h"

namespace s3 = ember::data::s3;

// fork() while other threads use a connection pool: the child's first request must not hang
// on a pool mutex copied in the locked state (pools register with a fork handler that takes
// their mutexes around fork).
//
// Skipped under AddressSanitizer runtimes that leave their own allocator locks held in the
// child: GCC 12's libasan has no fork handler (no fork interceptor, no pthread_atfork call),
// nor has clang 14's (LLVM added one in llvm-project#75290, "[asan] Install pthread_atfork",
// LLVM 18), and neither exports a way for a library to take those locks around fork. The
// users' threads malloc and free curl's 256 KiB receive buffer (CURLOPT_BUFFERSIZE) on every
// request, so the fork often lands while one of them holds the secondary allocator's spin
// lock, and the child's own malloc of that buffer spins on its copy until SIGALRM. Under two
// busy loops, this test in build-asan failed 6 of 10 repeats (6 of 400 children hung); gdb
// attached to each hung child showed the same stack, every time:
//   #0  __sanitizer::internal_sched_yield ()
//   #1  __sanitizer::StaticSpinMutex::LockSlow ()                 sanitizer_mutex.cpp:24
//   #3  GenericScopedLock<StaticSpinMutex> (mu=<__asan::instance+680>)
//   #4  __sanitizer::LargeMmapAllocator<__asan::AsanMapUnmapCallback, ...>::Allocate
//   #6  __asan::Allocator::Allocate                                asan_allocator.cpp:536
//   #7  __asan::asan_malloc (size=262145)   #8 __interceptor_malloc (size=262145)
//   #9, #10 libcurl.so.4   #11 curl_multi_perform   #12 curl_easy_perform
//   #13 ember::data::s3::detail::HttpPool::perform                 http.cpp:211
// Without ASan nothing of the kind is held: glibc's fork takes malloc's arena locks itself,
// curl takes no process-wide lock in a request (a numeric address, no TLS, no share handle),
// and the pools' mutexes are ember's fork handler's. The Release build passed 200 of 200
// repeats (8000 forks) under the same load.
#if defined(__clang__)
#if __has_feature(address_sanitizer) && __clang_major__ < 18
#define EMBER_TEST_ASAN_WITHOUT_FORK_HANDLER 1
#endif
#elif defined(__SANITIZE_ADDRESS__)  // GCC: 12 is the one checked; revisit when it has the handler
#define EMBER_TEST_ASAN_WITHOUT_FORK_HANDLER 1
#endif
TEST(S3Http, ForkWhileOtherThreadsUseThePool) {
#ifdef EMBER_TEST_ASAN_WITHOUT_FORK_HANDLER
  GTEST_SKIP() << "this ASan runtime takes no locks around fork(): a child forked while another "
                  "thread is in malloc can spin forever on ASan's allocator lock (see the comment above)";
#endif
  // A port with nothing listening: each request fails at once, but takes and returns a handle.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  close(fd);
  s3::detail::HttpRequest req;
  req.method = "GET";
  req.url = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "/bucket/key";
  req.connect_timeout_ms = 2000;

  s3::detail::HttpPool pool;
  std::atomic<bool> stop{false};
  std::atomic<int64_t> requests{0};
  std::vector<std::thread> users;
  for (int t = 0; t < 2; ++t)
    users.emplace_back([&] {
      while (!stop) {
        pool.perform(req);
        ++requests;
      }
    });
  for (int i = 0; i < 40; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      alarm(20);  // a hang ends the child with SIGALRM, which the parent reports
      const s3::detail::HttpResponse r = pool.perform(req);
      _exit(r.curl_code != 0 ? 0 : 3);  // refused: a transport error, as in the parent
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << i << ": status " << status;
  }
  stop = true;
  for (auto& t : users) t.join();
  EXPECT_GT(requests.load(), 40);
}

#undef EMBER_TEST_ASAN_WITHOUT_FORK_HANDLER
