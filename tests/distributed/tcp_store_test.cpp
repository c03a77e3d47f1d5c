// TCPStore and its server: protocol, client threads and processes, hostile and dying peers, shutdown, frame limit.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/distributed/store.h"
#include "store_test_util.h"
#include "test_util.h"

namespace ember::distributed {
namespace {

using namespace std::chrono_literals;
using store_testing::bound_socket;
using store_testing::expect_children_succeed;
using store_testing::fork_child;
using store_testing::kTestTimeout;
using store_testing::rendezvous;

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

// ---- TCPStore --------------------------------------------------------------------------

// A raw client that speaks bytes, with 5 s receive/send timeouts so nothing here hangs.
class RawSocket {
 public:
  explicit RawSocket(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(port);
    EXPECT_EQ(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  }
  ~RawSocket() { ::close(fd_); }
  void send(const std::string& s) {
    size_t done = 0;
    while (done < s.size()) {
      ssize_t n = ::send(fd_, s.data() + done, s.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return;  // the server may close early; that is what some tests expect
      done += size_t(n);
    }
  }
  void shutdown_write() { ::shutdown(fd_, SHUT_WR); }
  // Reads one reply frame's body ("" on EOF or timeout).
  std::string reply() {
    std::string len = read(4);
    if (len.size() < 4) return "";
    uint32_t n;
    std::memcpy(&n, len.data(), 4);
    return read(n);
  }
  // True once the server has closed the connection (whatever it sent before), false if it
  // stays open for 5 s.
  bool closed_by_server() {
    char buf[4096];
    while (true) {
      ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
    }
  }

 private:
  std::string read(size_t n) {
    std::string out(n, '\0');
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::recv(fd_, out.data() + got, n - got, 0);
      if (r <= 0) return out.substr(0, got);
      got += size_t(r);
    }
    return out;
  }
  int fd_;
};

// Frames written by hand from Note [TCPStore protocol] (independent of the implementation's
// own encoder).
std::string u8(uint8_t v) { return std::string(1, char(v)); }
std::string le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string le64(int64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string field(const std::string& s) { return le32(uint32_t(s.size())) + s; }
std::string frame(const std::string& body) { return le32(uint32_t(body.size())) + body; }
std::string hello() { return frame(u8(1) + le32(0x53424d45) + le32(1) + u8(0)); }

std::unique_ptr<TCPStore> master_store(std::optional<int> world_size = std::nullopt,
                                       std::chrono::milliseconds timeout = kTestTimeout) {
  return std::make_unique<TCPStore>("127.0.0.1", 0, world_size, true, timeout, true);
}

TEST(TCPStore, PortZeroPicksAFreePort) {
  auto m = master_store();
  EXPECT_NE(m->port(), 0);
  EXPECT_EQ(m->host(), "127.0.0.1");
  TCPStore c("localhost", m->port(), std::nullopt, false, kTestTimeout);
  c.set("x", "y");
  EXPECT_EQ(m->get_to_str("x"), "y");
  EXPECT_EQ(c.port(), m->port());
}

TEST(TCPStore, ProtocolAsDocumented) {
  auto m = master_store();
  m->set("pre", "existing");
  RawSocket s(m->port());
  s.send(hello());
  EXPECT_EQ(s.reply(), u8(0) + le32(0x53424d45) + le32(1));
  s.send(frame(u8(2) + field("k") + field("v1")));  // SET
  EXPECT_EQ(s.reply(), u8(0));
  s.send(frame(u8(3) + field("pre") + le64(100)));  // GET
  EXPECT_EQ(s.reply(), u8(0) + field("existing"));
  s.send(frame(u8(4) + field("n") + le64(-3)));  // ADD
  EXPECT_EQ(s.reply(), u8(0) + le64(-3));
  s.send(frame(u8(4) + field("k") + le64(1)));  // ADD on text: ERROR with a message
  std::string err = s.reply();
  ASSERT_GE(err.size(), 5u);
  EXPECT_EQ(err[0], 2);
  EXPECT_NE(err.find("not a 64-bit integer"), std::string::npos);
  s.send(frame(u8(5) + field("k") + field("v1") + field("v2")));  // CAS
  EXPECT_EQ(s.reply(), u8(0) + field("v2"));
  s.send(frame(u8(6) + le32(2) + field("k") + field("zz")));  // CHECK
  EXPECT_EQ(s.reply(), u8(0) + u8(0));
  s.send(frame(u8(7) + le32(2) + field("k") + field("zz") + le64(20)));  // WAIT, times out
  EXPECT_EQ(s.reply(), u8(1) + le32(1) + field("zz"));
  s.send(frame(u8(3) + field("zz") + le64(20)));  // GET, times out
  EXPECT_EQ(s.reply(), u8(1));
  s.send(frame(u8(8) + field("k")));  // DELETE
  EXPECT_EQ(s.reply(), u8(0) + u8(1));
  s.send(frame(u8(9)));  // NUMKEYS: pre, n
  EXPECT_EQ(s.reply(), u8(0) + le64(2));
  EXPECT_EQ(m->get_to_str("n"), "-3");
}


TEST(TCPStore, OneObjectSharedByThreads) {
  // A call blocked in get() on one thread does not hold up calls on the same object from
  // another thread (each call borrows a connection of its own).
  auto m = master_store();
  TCPStore c("127.0.0.1", m->port(), std::nullopt, false, kTestTimeout);
  std::jthread getter([&] { EXPECT_EQ(c.get_to_str("k"), "ok"); });
  c.set("k", "ok");
  getter.join();
  std::jthread waiter([&] { m->wait({"k2"}); });
  m->set("k2", "");
  waiter.join();
}

TEST(TCPStore, ClientThreadsWaitForWorkers) {
  constexpr int kWorld = 5;
  uint16_t port;
  int fd = bound_socket(port);  // the port is known before the master exists
  std::vector<std::jthread> ranks;
  std::atomic<int> failures{0};
  for (int r = 1; r < kWorld; ++r)
    ranks.emplace_back([&, r] {
      try {
        TCPStore c("127.0.0.1", port, kWorld, false, kTestTimeout);  // retries until the master listens
        rendezvous(c, r, kWorld);
        c.wait({"master-done"});
      } catch (const std::exception& e) {
        ADD_FAILURE() << "rank " << r << ": " << e.what();
        ++failures;
      }
    });
  TCPStoreOptions opts;
  opts.is_server = true;
  opts.num_workers = kWorld;
  opts.timeout = kTestTimeout;
  opts.master_listen_fd = fd;
  TCPStore m("127.0.0.1", opts);  // returns once all kWorld stores joined
  EXPECT_EQ(m.port(), port);
  rendezvous(m, 0, kWorld);
  EXPECT_EQ(m.add("counter", 0), 50 * kWorld);
  m.set("master-done", "");
  for (auto& t : ranks) t.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(TCPStore, ForkedProcessesRendezvous) {
  constexpr int kWorld = 4;
  uint16_t port;
  int fd = bound_socket(port);
  std::vector<pid_t> kids;
  for (int r = 1; r < kWorld; ++r)
    kids.push_back(fork_child([&, r] {
      ::close(fd);
      TCPStore c("127.0.0.1", port, kWorld, false, kTestTimeout);
      rendezvous(c, r, kWorld);
      // The last request of every child: the master shuts down only after all of them, so
      // none sees the server go away.
      if (c.add("children-done", 1) == kWorld - 1) c.set("all-children-done", "");
    }));
  TCPStoreOptions opts;
  opts.is_server = true;
  opts.num_workers = kWorld;
  opts.timeout = kTestTimeout;
  opts.master_listen_fd = fd;
  {
    TCPStore m("127.0.0.1", opts);
    rendezvous(m, 0, kWorld);
    EXPECT_EQ(m.add("counter", 0), 50 * kWorld);
    m.wait({"all-children-done"});
    // addr/0..3, counter, finished, all-finished, children-done, all-children-done
    EXPECT_EQ(m.num_keys(), kWorld + 5);
  }
  expect_children_succeed(kids);
}

TEST(TCPStore, WaitForWorkersTimesOut) {
  EXPECT_ERROR_WITH(master_store(3, 100ms), "waiting for workers: 1 of 3 stores joined");
  // Without wait_for_workers the master returns at once.
  TCPStore m("127.0.0.1", 0, 3, true, 100ms, /*wait_for_workers=*/false);
  EXPECT_ERROR_WITH(TCPStore("127.0.0.1", 0, 0, true, 100ms), "world_size must be >= 1");
}

TEST(TCPStore, ConnectRetriesUntilTheTimeout) {
  uint16_t port;
  int fd = bound_socket(port);  // bound, not listening: connections are refused
  EXPECT_ERROR_WITH(TCPStore("127.0.0.1", port, std::nullopt, false, 100ms),
                    "could not connect to the store server at 127.0.0.1:" + std::to_string(port) + " within 100 ms");
  ::close(fd);
  EXPECT_ERROR_WITH(TCPStore("no-such-host.invalid", 1, std::nullopt, false, 100ms), "cannot resolve");
}

TEST(TCPStore, RejectsMalformedClientsAndKeepsServing) {
  auto m = master_store();
  m->set("keep", "me");
  const std::string body_set = u8(2) + field("a") + field("b");
  std::vector<std::pair<std::string, std::string>> cases = {
      {"http", "GET / HTTP/1.1\r\nHost: x\r\n\r\n"},                // length 0x20544547: too large
      {"huge length", le32(0xffffffffu) + "xyz"},
      {"zero length", le32(0)},
      {"no hello first", frame(body_set)},
      {"bad magic", frame(u8(1) + le32(0x12345678) + le32(1) + u8(0))},
      {"bad version", frame(u8(1) + le32(0x53424d45) + le32(99) + u8(0))},
      {"second hello", hello() + hello()},
      {"unknown command", hello() + frame(u8(99))},
      {"field past the end", hello() + frame(u8(2) + le32(1000) + "ab")},
      {"key count past the end", hello() + frame(u8(6) + le32(0x40000000))},
      {"trailing bytes", hello() + frame(body_set + "junk")},
      {"negative timeout", hello() + frame(u8(3) + field("keep") + le64(-5))},
      {"request while pending", hello() + frame(u8(3) + field("nope") + le64(0)) + frame(u8(9))},
  };
  for (const auto& [name, bytes] : cases) {
    RawSocket s(m->port());
    s.send(bytes);
    EXPECT_TRUE(s.closed_by_server()) << name;
  }
  {  // half a frame, then the client goes away
    RawSocket s(m->port());
    s.send(hello() + le32(100) + "only-part");
  }
  EXPECT_FALSE(m->check({"a"}));  // no malformed SET got through
  TCPStore c("127.0.0.1", m->port(), std::nullopt, false, kTestTimeout);
  EXPECT_EQ(c.get_to_str("keep"), "me");
  c.set("after", "ok");
  EXPECT_EQ(m->get_to_str("after"), "ok");
}

TEST(TCPStore, SurvivesRandomFrames) {
  auto m = master_store();
  m->set("keep", "me");
  std::mt19937 rng(1234);
  for (int i = 0; i < 200; ++i) {
    RawSocket s(m->port());
    std::string junk;
    int frames = 1 + int(rng() % 3);
    for (int f = 0; f < frames; ++f) {
      std::string body = u8(uint8_t(1 + rng() % 10));
      size_t n = rng() % 40;
      for (size_t j = 0; j < n; ++j) body += char(rng() % 4 == 0 ? rng() % 3 : rng());  // small numbers often
      junk += rng() % 8 ? frame(body) : body;  // sometimes without a length
    }
    s.send((rng() % 4 ? hello() : "") + junk);
    s.shutdown_write();  // a frame may claim more bytes than sent: our end of stream ends it
    EXPECT_TRUE(s.closed_by_server()) << "case " << i;
  }
  TCPStore c("127.0.0.1", m->port(), std::nullopt, false, kTestTimeout);
  EXPECT_EQ(c.get_to_str("keep"), "me");
  EXPECT_EQ(c.add("fresh-counter", 2), 2);
}

TEST(TCPStore, ClientKilledWhileWaitingDoesNotHurtTheServer) {
  uint16_t port;
  int fd = bound_socket(port);
  pid_t kid = fork_child([&] {
    ::close(fd);
    TCPStore c("127.0.0.1", port, std::nullopt, false, kTestTimeout);
    c.set("child-waiting", "");
    c.get("never-set");  // killed while blocked here
  });
  TCPStoreOptions opts;
  opts.is_server = true;
  opts.timeout = kTestTimeout;
  opts.master_listen_fd = fd;
  TCPStore m("127.0.0.1", opts);
  m.wait({"child-waiting"});
  ::kill(kid, SIGKILL);
  int status;
  ::waitpid(kid, &status, 0);
  m.set("never-set", "now it is");  // the server answers, or has dropped, a dead client
  EXPECT_EQ(m.add("still-serving", 1), 1);
  TCPStore c("127.0.0.1", m.port(), std::nullopt, false, kTestTimeout);
  EXPECT_EQ(c.get_to_str("never-set"), "now it is");
}

// A fake server on a listening socket: accepts one connection and runs `act` on it.
class FakeServer {
 public:
  explicit FakeServer(std::function<void(int)> act) {
    fd_ = bound_socket(port_);
    ::listen(fd_, 4);
    thread_ = std::jthread([this, act] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c >= 0) {
        act(c);
        ::close(c);
      }
    });
  }
  ~FakeServer() {
    ::shutdown(fd_, SHUT_RDWR);  // unblocks accept() if nobody came
    thread_.join();
    ::close(fd_);
  }
  uint16_t port() const { return port_; }

 private:
  int fd_;
  uint16_t port_;
  std::jthread thread_;
};

std::string read_some(int fd, size_t n) {
  std::string s(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::recv(fd, s.data() + got, n - got, 0);
    if (r <= 0) break;
    got += size_t(r);
  }
  return s.substr(0, got);
}

TEST(TCPStore, ServerDyingMidReplyIsAClearError) {
  {  // half a reply, then the server is gone
    FakeServer fake([](int c) {
      read_some(c, 14);  // the HELLO frame
      std::string partial = le32(9) + u8(0) + "EM";
      ::send(c, partial.data(), partial.size(), MSG_NOSIGNAL);
    });
    EXPECT_ERROR_WITH(TCPStore("127.0.0.1", fake.port(), std::nullopt, false, kTestTimeout),
                      "lost the connection to the store server at 127.0.0.1:" + std::to_string(fake.port()));
  }
  {  // a server that never answers: the timeout ends the wait
    std::atomic<bool> done{false};
    FakeServer fake([&](int c) {
      while (!done) std::this_thread::sleep_for(1ms);
    });
    EXPECT_ERROR_WITH(TCPStore("127.0.0.1", fake.port(), std::nullopt, false, 100ms),
                      "no reply from the store server");
    done = true;
  }
  {  // something that is not a store server
    FakeServer fake([](int c) {
      read_some(c, 14);
      std::string http = "HTTP/1.1 400 Bad Request\r\n\r\n";
      ::send(c, http.data(), http.size(), MSG_NOSIGNAL);
    });
    EXPECT_ERROR_WITH(TCPStore("127.0.0.1", fake.port(), std::nullopt, false, kTestTimeout),
                      "is it an ember store server?");
  }
}

TEST(TCPStore, MasterShutdownWhileAClientBlocksInGet) {
  auto m = master_store();
  uint16_t port = m->port();
  TCPStore c("127.0.0.1", port, std::nullopt, false, 5s), c2("127.0.0.1", port, std::nullopt, false, 5s);
  std::string get_error, wait_error;
  std::jthread getter([&] {
    try {
      c.get("never");
    } catch (const Error& e) {
      get_error = e.what();
    }
  });
  std::jthread waiter([&] {
    try {
      c2.wait({"never-either"});
    } catch (const Error& e) {
      wait_error = e.what();
    }
  });
  // Let both calls reach the server (order only: the outcome is the same if they don't).
  std::this_thread::sleep_for(50ms);
  m.reset();  // stops the server with the client connected and blocked
  getter.join();
  waiter.join();
  std::string where = "store server at 127.0.0.1:" + std::to_string(port);
  EXPECT_NE(get_error.find("TCPStore.get(key 'never')"), std::string::npos) << get_error;
  EXPECT_NE(get_error.find("lost the connection to the " + where), std::string::npos) << get_error;
  EXPECT_NE(wait_error.find("lost the connection"), std::string::npos) << wait_error;
  // Later calls fail at once instead of waiting for a server that is gone.
  EXPECT_ERROR_WITH(c.set("k", "v"), "127.0.0.1:" + std::to_string(port));
}

TEST(TCPStore, LargeValuesAndTheFrameLimit) {
  auto m = master_store();
  TCPStore c("127.0.0.1", m->port(), std::nullopt, false, kTestTimeout);
  std::vector<uint8_t> big(12 << 20);
  std::mt19937 rng(7);
  for (auto& b : big) b = uint8_t(rng());
  c.set("big", big);
  EXPECT_EQ(m->get("big"), big);
  EXPECT_ERROR_WITH(c.set("huge", std::vector<uint8_t>((64 << 20) + 1)), "exceeds the protocol's limit");
  EXPECT_EQ(c.add("after", 1), 1);  // the connection is still in step
}

}  // namespace
}  // namespace ember::distributed
