// Shared by the S3 tests: server child processes, raw HTTP to 127.0.0.1, test data, and the moto fixture.
#pragma once
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ember/data/io/stream.h"
#include "ember/data/s3/client.h"

namespace s3 = ember::data::s3;

namespace ember::test {

inline const std::string kTestsDir = std::string(EMBER_GOLDEN_DIR) + "/..";

// ---- helpers: child processes and raw HTTP --------------------------------------------

// A child process (a server) that is killed when this object dies, and also if the test
// binary itself dies (PR_SET_PDEATHSIG), so no server outlives a crashed test.
class Child {
 public:
  Child(const std::vector<std::string>& argv, bool capture_stdout) {
    int fds[2] = {-1, -1};
    if (capture_stdout && pipe(fds) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      int devnull = open("/dev/null", O_RDWR);
      dup2(devnull, 0);
      dup2(capture_stdout ? fds[1] : devnull, 1);
      dup2(devnull, 2);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    if (capture_stdout) {
      close(fds[1]);
      out_ = fdopen(fds[0], "r");
    }
  }
  ~Child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_) fclose(out_);
  }
  // The next line of the child's stdout ("" at its end).
  std::string read_line() {
    char buf[256];
    if (!out_ || !fgets(buf, sizeof buf, out_)) return "";
    std::string s(buf);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
};

inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// One HTTP/1.0 exchange with a server on 127.0.0.1; returns the whole response ("" when
// nothing listens).
inline std::string raw_http(int port, const std::string& method, const std::string& path, const std::string& body = "") {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return "";
  }
  std::string req = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  (void)!write(fd, req.data(), req.size());
  std::string resp;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) resp.append(buf, n);
  close(fd);
  return resp;
}

inline bool python_has(const std::string& module) {
  return std::system(("python3 -c 'import " + module + "' >/dev/null 2>&1 </dev/null").c_str()) == 0;
}

inline std::string random_bytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(s.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return s;
}

// Reads a stream to its end in chunks of `chunk` bytes (odd sizes cross part boundaries).
inline std::string drain(ember::data::io::InputStream& s, size_t chunk) {
  std::string out, buf(chunk, '\0');
  while (size_t k = s.read(buf.data(), chunk)) out.append(buf.data(), k);
  return out;
}

// Collects log lines from a client (thread-safe: parts log from worker threads).
struct LogSink {
  std::mutex mu;
  std::vector<std::string> lines;
  std::function<void(const std::string&)> fn() {
    return [this](const std::string& l) {
      std::lock_guard<std::mutex> lock(mu);
      lines.push_back(l);
    };
  }
  std::string all() {
    std::lock_guard<std::mutex> lock(mu);
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }
};

// ---- against moto's S3 server (s3_client_test.cpp, s3_pipes_test.cpp) -----------------------

class S3Moto : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!python_has("moto.server")) {
      skip_reason_ = "moto is not importable by python3 (scripts/install-deps.sh installs moto[server])";
      return;
    }
    port_ = free_port();
    server_ = new Child({"python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", std::to_string(port_)}, false);
    endpoint_ = "http://127.0.0.1:" + std::to_string(port_);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (raw_http(port_, "GET", "/moto-api/").empty()) {
      if (std::chrono::steady_clock::now() > deadline) {
        skip_reason_ = "moto server did not start";  // reported as a failure in SetUp
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    client().create_bucket("ember");
  }
  static void TearDownTestSuite() {
    delete server_;  // kills the server (also on failed tests)
    server_ = nullptr;
  }
  void SetUp() override {
    if (skip_reason_ == "moto server did not start") FAIL() << skip_reason_;
    if (!skip_reason_.empty()) GTEST_SKIP() << skip_reason_;
  }
  static s3::S3Options options() {
    return s3::S3Options().endpoint_url(endpoint_).region("us-east-1").access_key_id("testing")
        .secret_access_key("testing-secret").backoff_base_ms(1);
  }
  static s3::S3Client client() { return s3::S3Client(options()); }

  static inline Child* server_ = nullptr;
  static inline int port_ = 0;
  static inline std::string endpoint_, skip_reason_;
};

}  // namespace ember::test
