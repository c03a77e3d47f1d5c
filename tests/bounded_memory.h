// Bounded-memory checks for readers of untrusted input: run a read in a forked child and
// measure how it ended and the child's peak resident memory, above that of a child that
// does nothing (the pages shared with the parent at fork count in both). A reader given a
// file that claims terabytes must refuse it fast and never allocate what the claim says.
#pragma once
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>

#include "ember/core/error.h"

namespace ember::test {

struct BoundedRun {
  enum Outcome { kReturned, kEmberError, kOtherException, kCrashed } outcome = kCrashed;
  std::string what;       // the exception's message
  double peak_mb = 0;     // peak RSS above a child that does nothing
  double seconds = 0;
};

namespace detail {
// The child's peak RSS in KB and how it ended; `what` gets what it wrote to the pipe.
inline long run_child(const std::function<void()>& fn, int& code, std::string& what) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ::alarm(60);
    int c = 0;
    std::string msg;
    try {
      fn();
    } catch (const Error& e) {
      c = 1, msg = e.what();
    } catch (const std::exception& e) {
      c = 2, msg = e.what();
    } catch (...) {
      c = 2, msg = "unknown exception";
    }
    if (!msg.empty() && ::write(fds[1], msg.data(), msg.size()) < 0) c = 3;
    ::_exit(c);
  }
  ::close(fds[1]);
  char buf[4096];
  for (ssize_t k; (k = ::read(fds[0], buf, sizeof buf)) > 0;) what.append(buf, size_t(k));
  ::close(fds[0]);
  int status = 0;
  struct rusage ru {};
  if (::wait4(pid, &status, 0, &ru) != pid) return -1;
  code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  return ru.ru_maxrss;
}
}  // namespace detail

inline BoundedRun run_bounded(const std::function<void()>& read) {
  int code = 0;
  std::string ignored;
  const long base = detail::run_child([] {}, code, ignored);
  BoundedRun r;
  const auto t0 = std::chrono::steady_clock::now();
  const long peak = detail::run_child(read, code, r.what);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.peak_mb = double(peak - base) / 1024.0;
  r.outcome = code == 0 ? BoundedRun::kReturned : code == 1 ? BoundedRun::kEmberError
            : code == 2 ? BoundedRun::kOtherException : BoundedRun::kCrashed;
  if (code < 0) r.what = "killed by signal " + std::to_string(-code);
  return r;
}

// The reader refused the input with an ember::Error containing `needle`, within 100 MB and
// 10 seconds.
#define EXPECT_REFUSED_WITHIN_BOUNDS(stmt, needle)                                                    \
  do {                                                                                                \
    const ::ember::test::BoundedRun run_ = ::ember::test::run_bounded([&] { stmt; });                 \
    EXPECT_EQ(run_.outcome, ::ember::test::BoundedRun::kEmberError) << #stmt << ": " << run_.what;   \
    EXPECT_NE(run_.what.find(needle), std::string::npos) << #stmt << ": " << run_.what;              \
    EXPECT_LT(run_.peak_mb, 100.0) << #stmt << " peaked " << run_.peak_mb << " MB above an idle child"; \
    EXPECT_LT(run_.seconds, 10.0) << #stmt;                                                           \
  } while (0)

}  // namespace ember::test
