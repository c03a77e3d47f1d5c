// Stores for distributed rendezvous: the Store contract run against every store (HashStore,
// FileStore, TCPStore, PrefixStore), TCPStore with client threads and forked processes,
// hostile and dying peers, master shutdown, FileStore across processes and shared with
// PyTorch's FileStore, and the env:// helper.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include "ember/distributed/store.h"
#include "test_util.h"

namespace ember::distributed {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Generous: a correct store never reaches it in these tests, a broken one fails instead of
// hanging.
constexpr auto kTestTimeout = 10s;

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "ember-store-XXXXXX").string();
    EXPECT_NE(::mkdtemp(t.data()), nullptr);
    path_ = t;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// ---- child processes -------------------------------------------------------------------
// Children are forked while the test process has no other threads, run `body` and leave
// with _exit: 0 on success, 1 with the reason on stderr. An alarm ends a hung child.

[[noreturn]] void child_main(const std::function<void()>& body) {
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

pid_t fork_child(const std::function<void()>& body) {
  pid_t pid = ::fork();
  if (pid == 0) child_main(body);
  EXPECT_GT(pid, 0) << "fork failed";
  return pid;
}

// Reaps the children; a child still running after 30 s is killed and counts as failed.
void expect_children_succeed(const std::vector<pid_t>& pids) {
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

void require(bool cond, const std::string& what) {
  if (!cond) throw std::runtime_error("check failed: " + what);
}

// ---- the Store contract, for every store -----------------------------------------------

// Makes the store under test and further handles onto the same data (a second TCP client,
// a second FileStore on the file, the same HashStore), as other ranks would hold.
class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& kind = GetParam();
    if (kind == "hash") {
      hash_ = std::make_shared<HashStore>();
    } else if (kind == "tcp") {
      master_ = std::make_shared<TCPStore>("127.0.0.1", 0, std::nullopt, true, kTestTimeout);
    } else if (kind == "prefix") {
      hash_ = std::make_shared<HashStore>();
    }
    store_ = handle();
    store_->set_timeout(kTestTimeout);
  }

  std::shared_ptr<Store> handle() {
    const std::string& kind = GetParam();
    if (kind == "hash") return hash_;
    if (kind == "tcp")
      return first_++ ? std::make_shared<TCPStore>("127.0.0.1", master_->port(), std::nullopt, false, kTestTimeout)
                      : std::shared_ptr<Store>(master_);
    if (kind == "file") return std::make_shared<FileStore>(dir_ / "store", -1);
    return std::make_shared<PrefixStore>("job", hash_);
  }

  // `key` quoted as errors name it (a PrefixStore's errors name the full key).
  std::string q(const std::string& key) const { return "'" + (GetParam() == "prefix" ? "job/" + key : key) + "'"; }

  TempDir dir_;
  std::shared_ptr<HashStore> hash_;
  std::shared_ptr<TCPStore> master_;
  int first_ = 0;
  std::shared_ptr<Store> store_;
};

TEST_P(StoreContract, SetGetBytesAndStrings) {
  store_->set("k", "v");
  EXPECT_EQ(store_->get_to_str("k"), "v");
  std::vector<uint8_t> bin = {0, 255, 10, 0, 7};
  store_->set(std::string("bin\0key", 7), bin);
  EXPECT_EQ(store_->get(std::string("bin\0key", 7)), bin);
  store_->set("empty", std::vector<uint8_t>{});
  EXPECT_TRUE(store_->get("empty").empty());
  store_->set("k", "second");
  EXPECT_EQ(store_->get_to_str("k"), "second");
  // Another handle sees the same data.
  EXPECT_EQ(handle()->get_to_str("k"), "second");
}

TEST_P(StoreContract, GetBlocksUntilAnotherThreadSets) {
  auto peer = handle();
  EXPECT_FALSE(store_->check({"late"}));
  std::jthread setter([&] {
    peer->wait({"getter-started"});
    peer->set("late", "value");
  });
  store_->set("getter-started", "1");
  EXPECT_EQ(store_->get_to_str("late"), "value");
  setter.join();
}

TEST_P(StoreContract, ManyWaitersWokenByOneSet) {
  std::vector<std::shared_ptr<Store>> handles;
  for (int i = 0; i < 4; ++i) handles.push_back(handle());
  std::atomic<int> got{0};
  std::vector<std::jthread> ts;
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      if (i % 2) {
        if (handles[i]->get_to_str("go") == "now") ++got;
      } else {
        handles[i]->wait({"go"});
        ++got;
      }
    });
  store_->set("go", "now");
  for (auto& t : ts) t.join();
  EXPECT_EQ(got.load(), 4);
}

TEST_P(StoreContract, GetAndWaitTimeOutNamingKeyAndTimeout) {
  store_->set_timeout(50ms);
  EXPECT_EQ(store_->timeout(), 50ms);
  EXPECT_ERROR_WITH(store_->get("missing"), q("missing"));
  EXPECT_ERROR_WITH(store_->get("missing"), "within 50 ms");
  store_->set("a", "1");
  EXPECT_ERROR_WITH(store_->wait({"a", "b"}, 30ms), "(missing: " + q("b") + ")");
  EXPECT_ERROR_WITH(store_->wait({"a", "b"}), "timed out after 50 ms");
  EXPECT_ERROR_WITH(store_->wait({"a"}, -1ms), "timeout must be >= 0");
  store_->wait({"a"}, 30ms);  // present: returns at once
  store_->wait({});
}

TEST_P(StoreContract, AddIsAtomicAcrossThreads) {
  constexpr int kThreads = 6, kAdds = 150;
  std::vector<std::shared_ptr<Store>> handles;
  for (int i = 0; i < kThreads; ++i) handles.push_back(handle());
  std::vector<std::vector<int64_t>> seen(kThreads);
  std::vector<std::jthread> ts;
  for (int i = 0; i < kThreads; ++i)
    ts.emplace_back([&, i] {
      for (int j = 0; j < kAdds; ++j) seen[i].push_back(handles[i]->add("counter", 1));
    });
  for (auto& t : ts) t.join();
  // Every add saw a distinct count: together exactly 1..N.
  std::vector<int64_t> all;
  for (auto& s : seen) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), size_t(kThreads * kAdds));
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], int64_t(i + 1));
  EXPECT_EQ(store_->get_to_str("counter"), std::to_string(kThreads * kAdds));
}

TEST_P(StoreContract, AddKeepsDecimalCounters) {
  EXPECT_EQ(store_->add("n", 5), 5);  // missing counts as 0
  EXPECT_EQ(store_->add("n", -7), -2);
  EXPECT_EQ(store_->get_to_str("n"), "-2");
  store_->set("m", "41");
  EXPECT_EQ(store_->add("m", 1), 42);
  store_->set("text", "forty");
  EXPECT_ERROR_WITH(store_->add("text", 1), "key " + q("text") + " holds a value that is not a 64-bit integer ('forty')");
  EXPECT_EQ(store_->get_to_str("text"), "forty");  // unchanged
  store_->set("big", std::to_string(INT64_MAX));
  EXPECT_ERROR_WITH(store_->add("big", 1), "overflows int64");
  EXPECT_EQ(store_->add("big", -1), INT64_MAX - 1);
}

TEST_P(StoreContract, CompareSet) {
  // Missing key, empty expected: sets.
  EXPECT_EQ(store_->compare_set("c", "", "first"), "first");
  EXPECT_EQ(store_->get_to_str("c"), "first");
  // Matching: replaces.
  EXPECT_EQ(store_->compare_set("c", "first", "second"), "second");
  // Not matching: returns what is there, changes nothing.
  EXPECT_EQ(store_->compare_set("c", "first", "third"), "second");
  EXPECT_EQ(store_->get_to_str("c"), "second");
  // Missing key, non-empty expected: returns expected and sets nothing (PyTorch's contract).
  EXPECT_EQ(store_->compare_set("absent", "x", "y"), "x");
  EXPECT_FALSE(store_->check({"absent"}));
  // A compare_set that creates a key wakes a waiter.
  auto peer = handle();
  std::jthread waiter([&] { EXPECT_EQ(peer->get_to_str("leader"), "rank3"); });
  EXPECT_EQ(store_->compare_set("leader", "", "rank3"), "rank3");
  EXPECT_EQ(store_->compare_set("leader", "", "rank5"), "rank3");  // someone was first
  waiter.join();
}

TEST_P(StoreContract, DeleteKeyAndNumKeys) {
  EXPECT_EQ(store_->num_keys(), 0);
  store_->set("a", "1");
  store_->set("b", "2");
  store_->add("c", 3);
  EXPECT_EQ(store_->num_keys(), 3);
  EXPECT_TRUE(store_->delete_key("b"));
  EXPECT_FALSE(store_->delete_key("b"));
  EXPECT_FALSE(store_->delete_key("never"));
  EXPECT_EQ(store_->num_keys(), 2);
  EXPECT_TRUE(store_->check({"a", "c"}));
  EXPECT_FALSE(store_->check({"a", "b"}));
  EXPECT_TRUE(store_->check({}));
  store_->set_timeout(30ms);
  EXPECT_ERROR_WITH(store_->get("b"), q("b"));
  store_->set("b", "again");
  EXPECT_EQ(store_->get_to_str("b"), "again");
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreContract, ::testing::Values("hash", "file", "tcp", "prefix"),
                         [](const auto& info) { return info.param; });

// ---- PrefixStore -----------------------------------------------------------------------

TEST(PrefixStore, PrefixesKeysInTheUnderlyingStore) {
  auto base = std::make_shared<HashStore>();
  PrefixStore a("pg0", base), b("pg1", base);
  a.set("rank", "A");
  b.set("rank", "B");
  EXPECT_EQ(base->get_to_str("pg0/rank"), "A");
  EXPECT_EQ(b.get_to_str("rank"), "B");
  EXPECT_EQ(a.add("n", 2), 2);
  EXPECT_EQ(base->get_to_str("pg0/n"), "2");
  EXPECT_FALSE(b.check({"n"}));
  EXPECT_EQ(a.num_keys(), 3);  // the underlying store's count, as in PyTorch
  a.set_timeout(20ms);
  EXPECT_EQ(base->timeout(), 20ms);
  EXPECT_ERROR_WITH(b.wait({"n"}), "'pg1/n'");
  EXPECT_EQ(a.underlying_store(), base);
  EXPECT_ERROR_WITH(PrefixStore("x", nullptr), "underlying store is null");
}

// ---- TCPStore --------------------------------------------------------------------------

// A socket bound to a free port on 127.0.0.1 (not listening): reserves the port.
int bound_socket(uint16_t& port) {
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

// The usual rendezvous: every rank publishes something, waits for the others', and all
// count into one counter. `store` is rank `rank`'s view.
void rendezvous(Store& store, int rank, int world) {
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

// ---- FileStore -------------------------------------------------------------------------

TEST(FileStore, ForkedProcessesShareTheFile) {
  constexpr int kWorld = 4;
  TempDir dir;
  std::string path = dir / "rendezvous";
  std::vector<pid_t> kids;
  for (int r = 1; r < kWorld; ++r)
    kids.push_back(fork_child([&, r] {
      FileStore s(path, kWorld);
      s.set_timeout(kTestTimeout);
      rendezvous(s, r, kWorld);
    }));
  {
    FileStore s(path, kWorld);
    s.set_timeout(kTestTimeout);
    rendezvous(s, 0, kWorld);
    EXPECT_EQ(s.add("counter", 0), 50 * kWorld);
    expect_children_succeed(kids);  // their stores are gone; ours is the last
    EXPECT_TRUE(fs::exists(path));
  }
  EXPECT_FALSE(fs::exists(path)) << "the last of world_size users removes the file";
}

TEST(FileStore, LastUserRemovesTheFile) {
  TempDir dir;
  std::string path = dir / "f";
  auto a = std::make_unique<FileStore>(path, 2);
  auto b = std::make_unique<FileStore>(path, 2);
  a->set("k", "v");
  a.reset();
  EXPECT_TRUE(fs::exists(path));
  EXPECT_EQ(b->get_to_str("k"), "v");
  b.reset();
  EXPECT_FALSE(fs::exists(path));
  { FileStore keep(path, -1); }  // no fixed group size: the file stays
  EXPECT_TRUE(fs::exists(path));
}

TEST(FileStore, BadFilesAndPaths) {
  TempDir dir;
  EXPECT_ERROR_WITH(FileStore(dir / "no-such-dir/f"), "cannot open");
  EXPECT_ERROR_WITH(FileStore(""), "path is empty");
  EXPECT_ERROR_WITH(FileStore(dir / "g", -2), "world_size must be >= 0");
  {
    std::ofstream(dir / "corrupt", std::ios::binary) << std::string("\x03\x00\x00\x00/ab\xff\xff\x00\x00", 11);
    EXPECT_ERROR_WITH(FileStore(dir / "corrupt"), "is corrupt at offset 7: a field of 65535 bytes runs past the end");
  }
  {
    std::ofstream(dir / "short", std::ios::binary) << std::string("\x02\x00", 2);
    EXPECT_ERROR_WITH(FileStore(dir / "short"), "is corrupt at offset 0");
  }
}

TEST(FileStore, SharedWithPyTorchFileStore) {
  TempDir dir;
  std::string path = dir / "shared";
  FileStore s(path, -1);
  s.set_timeout(kTestTimeout);
  s.set("from_ember", std::string("ember\0bytes", 11));
  s.add("counter", 2);
  std::string script = dir / "peer.py";
  std::ofstream(script) << "import sys, datetime\n"
                           "from torch.distributed import FileStore\n"
                           "s = FileStore(sys.argv[1], -1)\n"
                           "s.set_timeout(datetime.timedelta(seconds=10))\n"
                           "assert s.get('from_ember') == b'ember\\x00bytes', s.get('from_ember')\n"
                           "assert s.add('counter', 5) == 7\n"
                           "s.set('from_python', b'py\\xff\\x00')\n"
                           "assert s.compare_set('cas', '', 'first') == b'first'\n"
                           "assert s.delete_key('counter')\n"
                           "s.set('counter', '100')\n";
  std::string cmd = "/usr/bin/python3 " + script + " " + path + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof(buf), p)) out.append(buf, n);
  int rc = ::pclose(p);
  if (rc != 0 && out.find("No module named 'torch'") != std::string::npos)
    GTEST_SKIP() << "/usr/bin/python3 has no torch: " << out;
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(s.get_to_str("from_python"), std::string("py\xff\0", 4));
  EXPECT_EQ(s.get_to_str("cas"), "first");
  EXPECT_EQ(s.add("counter", 1), 101);
  EXPECT_EQ(s.num_keys(), 4);  // from_ember, counter, from_python, cas
}

// ---- store_from_env --------------------------------------------------------------------

// Sets environment variables for one test and restores them afterwards.
class EnvGuard {
 public:
  ~EnvGuard() {
    for (auto& [k, v] : saved_) v ? ::setenv(k.c_str(), v->c_str(), 1) : ::unsetenv(k.c_str());
  }
  void set(const std::string& k, const char* v) {
    if (!saved_.count(k)) {
      const char* old = std::getenv(k.c_str());
      saved_[k] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    v ? ::setenv(k.c_str(), v, 1) : ::unsetenv(k.c_str());
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

TEST(StoreFromEnv, ChecksTheVariables) {
  EnvGuard env;
  env.set("MASTER_ADDR", "127.0.0.1");
  env.set("MASTER_PORT", "29500");
  env.set("RANK", "1");
  env.set("WORLD_SIZE", "2");
  RendezvousEnv e = rendezvous_env();
  EXPECT_EQ(e.master_addr, "127.0.0.1");
  EXPECT_EQ(e.master_port, 29500);
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.world_size, 2);
  env.set("MASTER_ADDR", nullptr);
  EXPECT_ERROR_WITH(store_from_env(), "MASTER_ADDR is not set");
  env.set("MASTER_ADDR", "127.0.0.1");
  env.set("MASTER_PORT", "http");
  EXPECT_ERROR_WITH(store_from_env(), "MASTER_PORT='http' is not an integer");
  env.set("MASTER_PORT", "70000");
  EXPECT_ERROR_WITH(store_from_env(), "MASTER_PORT=70000 is out of range: expected 1 <= MASTER_PORT <= 65535");
  env.set("MASTER_PORT", "29500");
  env.set("WORLD_SIZE", nullptr);
  EXPECT_ERROR_WITH(store_from_env(), "WORLD_SIZE is not set");
  env.set("WORLD_SIZE", "0");
  EXPECT_ERROR_WITH(store_from_env(), "WORLD_SIZE=0 is out of range");
  env.set("WORLD_SIZE", "2");
  env.set("RANK", "2");
  EXPECT_ERROR_WITH(store_from_env(), "RANK=2 is out of range: expected 0 <= RANK <= 1");
  env.set("RANK", "-1");
  EXPECT_ERROR_WITH(store_from_env(), "RANK=-1 is out of range");
  env.set("RANK", "");
  EXPECT_ERROR_WITH(store_from_env(), "RANK is not set");
}

TEST(StoreFromEnv, ForkedRanksMeetAtRankZero) {
  constexpr int kWorld = 3;
  uint16_t port;
  int fd = bound_socket(port);  // keeps the port from other users until rank 0 listens
  EnvGuard env;
  env.set("MASTER_ADDR", "127.0.0.1");
  env.set("MASTER_PORT", std::to_string(port).c_str());
  env.set("WORLD_SIZE", std::to_string(kWorld).c_str());
  std::vector<pid_t> kids;
  for (int r = 1; r < kWorld; ++r)
    kids.push_back(fork_child([&, r] {
      ::setenv("RANK", std::to_string(r).c_str(), 1);
      auto store = store_from_env(kTestTimeout);
      rendezvous(*store, r, kWorld);
    }));
  env.set("RANK", "0");
  {
    auto store = store_from_env(kTestTimeout);  // returns once all ranks connected
    EXPECT_EQ(store->port(), port);
    rendezvous(*store, 0, kWorld);
    expect_children_succeed(kids);
  }
  ::close(fd);
}

}  // namespace
}  // namespace ember::distributed
