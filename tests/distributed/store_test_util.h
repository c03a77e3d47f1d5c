// Shared by the store tests: a temporary directory, forked children, the ranks' rendezvous, a reserved port.
#pragma once
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed/store.h"
#include "temp_files.h"

namespace ember::distributed::store_testing {

using namespace std::chrono_literals;

// Generous: a correct store never reaches it in these tests, a broken one fails instead of
// hanging.
inline constexpr auto kTestTimeout = 10s;

using ember::test::TempDir;  // tests/temp_files.h

// ---- child processes -------------------------------------------------------------------
// Children are forked while the test process has no other threads, run `body` and leave
// with _exit: 0 on success, 1 with the reason on stderr. An alarm ends a hung child.

[[noreturn]] inline void child_main(const std::function<void()>& body) {
  ::alarm(30);
  int code = 0;
  try {
    body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child %d: %s\n", int(::getpid()), e.what());
    code = 1;
  }
  std::fflush(stderr);
  ::_exit(code);
}

inline pid_t fork_child(const std::function<void()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) child_main(body);
  EXPECT_GT(pid, 0) << "fork failed";
  return pid;
}

// Reaps the children; a child still running after 30 s is killed and counts as failed.
inline void expect_children_succeed(const std::vector<pid_t>& pids) {
  auto deadline = std::chrono::steady_clock::now() + 30s;
  for (pid_t pid : pids) {
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(2ms);
    if (r == 0) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      ADD_FAILURE() << "child " << pid << " did not finish";
      continue;
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child " << pid << " failed (status " << status << ")";
  }
}

inline void require(bool cond, const std::string& what) {
  if (!cond) throw std::runtime_error("check failed: " + what);
}

// A socket bound to a free port on 127.0.0.1 (not listening): reserves the port.
inline int bound_socket(uint16_t& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  port = ntohs(a.sin_port);
  return fd;
}

// The usual rendezvous: every rank publishes something, waits for the others', and all
// count into one counter. `store` is rank `rank`'s view.
inline void rendezvous(Store& store, int rank, int world) {
  store.set("addr/" + std::to_string(rank), "rank-" + std::to_string(rank));
  std::vector<std::string> keys;
  for (int r = 0; r < world; ++r) keys.push_back("addr/" + std::to_string(r));
  store.wait(keys);
  for (int r = 0; r < world; ++r)
    require(store.get_to_str(keys[r]) == "rank-" + std::to_string(r), "value of " + keys[r]);
  for (int i = 0; i < 50; ++i) store.add("counter", 1);
  // A barrier: the last to arrive opens it.
  if (store.add("finished", 1) == world) store.set("all-finished", "");
  store.wait({"all-finished"});
  require(store.get_to_str("counter") == std::to_string(50 * world), "counter after the barrier");
}

}  // namespace ember::distributed::store_testing
