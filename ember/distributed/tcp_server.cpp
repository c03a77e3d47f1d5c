// The TCPStore server: one poll(2) loop over the listening socket, a wake-up pipe and every
// connection, with bounded buffers and per-connection protocol errors (a client that breaks
// the protocol is disconnected; the others never notice).
#include "ember/distributed/tcp_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "ember/distributed/tcp_protocol.h"

namespace ember::distributed::detail {

namespace {

constexpr size_t kReadChunk = 64 << 10;
constexpr int kMaxChunksPerTurn = 16;  // one busy client cannot starve the others


void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL, 0);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

void set_nodelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

}  // namespace

// The server's state: the data and every connection. One thread runs poll() over the
// listening socket, a wake-up pipe and the connections; everything below is touched by that
// thread only, except the join count.
struct TCPServer::Impl {
  explicit Impl(int listen_fd) : listen_fd_(listen_fd) {
    if (::pipe2(wake_, O_NONBLOCK | O_CLOEXEC) != 0) {
      int err = errno;
      ::close(listen_fd_);
      EMBER_ERROR("TCPStore: cannot create the server's wake-up pipe: ", errno_text(err));
    }
    set_nonblocking(listen_fd_);
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = addr.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port)
                                       : ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
    thread_ = std::thread([this] { loop(); });
  }

  // Stops the loop and closes every connection: clients blocked in a call see the close.
  ~Impl() {
    stop_ = true;
    char b = 1;
    while (::write(wake_[1], &b, 1) < 0 && errno == EINTR) {
    }
    thread_.join();
    ::close(wake_[0]);
    ::close(wake_[1]);
  }

  uint16_t port() const { return port_; }

  // Waits until `n` stores have joined or the deadline passes; returns how many joined.
  int wait_for_workers(int n, const Deadline& deadline) {
    std::unique_lock<std::mutex> lock(join_mu_);
    auto enough = [&] { return joined_ >= n; };
    if (deadline.forever())
      join_cv_.wait(lock, enough);
    else
      join_cv_.wait_until(lock, deadline.at(), enough);
    return joined_;
  }

  struct Pending {
    Cmd cmd;  // kGet or kWait
    std::vector<std::string> keys;
    Deadline deadline;
  };
  struct Conn {
    explicit Conn(int f) : fd(f) {}
    int fd;
    std::vector<uint8_t> in;  // received bytes; in_pos..end not yet handled
    size_t in_pos = 0;
    std::vector<uint8_t> out;  // reply bytes; out_pos..end not yet sent
    size_t out_pos = 0;
    bool hello = false;
    bool closing = false;  // closed at the end of this loop turn
    std::optional<Pending> pending;
    bool out_pending() const { return out_pos < out.size(); }
  };

  void loop() {
    std::vector<pollfd> fds;
    while (!stop_) {
      fds.clear();
      fds.push_back({wake_[0], POLLIN, 0});
      bool accepting = Clock::now() >= accept_paused_until_;
      fds.push_back({accepting ? listen_fd_ : -1, POLLIN, 0});
      for (auto& [fd, c] : conns_) fds.push_back({fd, short(c.out_pending() ? POLLOUT : POLLIN), 0});
      int timeout = poll_timeout_ms(accepting);
      int r = ::poll(fds.data(), fds.size(), timeout);
      if (r < 0) {
        if (errno == EINTR) continue;
        std::fprintf(stderr, "ember TCPStore server: poll failed: %s; stopping\n", std::strerror(errno));
        break;
      }
      if (fds[0].revents) drain_wake();
      if (stop_) break;
      if (fds[1].revents) accept_all();
      for (size_t i = 2; i < fds.size(); ++i) {
        if (!fds[i].revents) continue;
        auto it = conns_.find(fds[i].fd);
        if (it == conns_.end()) continue;
        Conn& c = it->second;
        try {
          if (fds[i].revents & POLLOUT) {
            flush(c);
            if (!c.out_pending()) handle_frames(c);
          } else {
            receive(c);
          }
        } catch (const std::exception& e) {  // e.g. bad_alloc: lose this client, keep serving
          drop(c, e.what());
        }
      }
      expire_deadlines();
      for (auto it = conns_.begin(); it != conns_.end();) {
        if (it->second.closing) {
          ::close(it->first);
          it = conns_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& [fd, c] : conns_) ::close(fd);
    conns_.clear();
    ::close(listen_fd_);
  }

  int poll_timeout_ms(bool accepting) const {
    int64_t t = -1;
    for (const auto& [fd, c] : conns_) {
      if (!c.pending || c.pending->deadline.forever()) continue;
      int64_t left = c.pending->deadline.remaining_ms();
      t = t < 0 ? left : std::min(t, left);
    }
    if (!accepting) t = t < 0 ? 100 : std::min<int64_t>(t, 100);
    return int(std::min<int64_t>(t, 1 << 30));
  }

  void drain_wake() {
    char buf[64];
    while (::read(wake_[0], buf, sizeof(buf)) > 0) {
    }
  }

  void accept_all() {
    while (true) {
      int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        // Out of descriptors: the pending connection would keep poll() ready, so stop
        // accepting for a moment instead of spinning.
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
          accept_paused_until_ = Clock::now() + std::chrono::milliseconds(100);
        return;
      }
      set_nodelay(fd);
      conns_.try_emplace(fd, fd);
    }
  }

  void drop(Conn& c, const std::string& why) {
    (void)why;  // a broken client is not the server's error; nothing is logged
    c.closing = true;
  }

  void receive(Conn& c) {
    uint8_t buf[kReadChunk];
    for (int turn = 0; turn < kMaxChunksPerTurn && !c.closing; ++turn) {
      ssize_t n = ::recv(c.fd, buf, sizeof(buf), 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return drop(c, errno_text(errno));
      }
      if (n == 0) return drop(c, "closed by the client");
      c.in.insert(c.in.end(), buf, buf + n);
      handle_frames(c);
      // While a reply waits to be sent, take no more input (bounds what a client that
      // does not read can make us buffer).
      if (c.out_pending()) return;
    }
  }

  // Handles every complete frame in c.in while the connection can take a reply.
  void handle_frames(Conn& c) {
    while (!c.closing && !c.out_pending()) {
      size_t avail = c.in.size() - c.in_pos;
      if (avail < 4) break;
      uint32_t len = load_u32(c.in.data() + c.in_pos);
      if (len == 0 || len > kMaxFrameBytes) return drop(c, "bad frame length");
      if (avail - 4 < len) break;
      if (c.pending) return drop(c, "a request while one is pending");
      try {
        handle(c, Reader(c.in.data() + c.in_pos + 4, len));
      } catch (const ProtocolError& e) {
        return drop(c, e.what());
      }
      c.in_pos += 4 + size_t(len);
    }
    if (c.in_pos == c.in.size()) {
      c.in.clear();
      c.in_pos = 0;
    } else if (c.in_pos >= kReadChunk) {
      c.in.erase(c.in.begin(), c.in.begin() + ptrdiff_t(c.in_pos));
      c.in_pos = 0;
    }
  }

  void reply(Conn& c, Writer& w) {
    std::vector<uint8_t> frame = w.finish();
    if (c.out_pos == c.out.size()) {
      c.out.clear();
      c.out_pos = 0;
    }
    c.out.insert(c.out.end(), frame.begin(), frame.end());
    flush(c);
  }

  void flush(Conn& c) {
    while (c.out_pending() && !c.closing) {
      ssize_t n = ::send(c.fd, c.out.data() + c.out_pos, c.out.size() - c.out_pos, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return drop(c, errno_text(errno));
      }
      c.out_pos += size_t(n);
    }
  }

  bool has_all(const std::vector<std::string>& keys) const {
    return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return data_.count(k) != 0; });
  }

  // Answers a pending GET/WAIT whose keys now all exist.
  void answer(Conn& c) {
    Writer w;
    w.u8(kOk);
    if (c.pending->cmd == kGet) w.bytes(data_.at(c.pending->keys[0]));
    c.pending.reset();
    reply(c, w);
  }

  // `key` was created or changed: wake the waiters it completes.
  void key_changed(const std::string& key) {
    for (auto& [fd, c] : conns_) {
      if (c.closing || !c.pending) continue;
      const auto& ks = c.pending->keys;
      if (std::find(ks.begin(), ks.end(), key) != ks.end() && has_all(ks)) answer(c);
    }
  }

  void expire_deadlines() {
    for (auto& [fd, c] : conns_) {
      if (c.closing || !c.pending || !c.pending->deadline.passed()) continue;
      Writer w;
      w.u8(kTimeout);
      if (c.pending->cmd == kWait) {
        std::vector<std::string> missing;
        for (const std::string& k : c.pending->keys)
          if (!data_.count(k)) missing.push_back(k);
        w.keys(missing);
      }
      c.pending.reset();
      reply(c, w);
    }
  }

  void handle(Conn& c, Reader r) {
    uint8_t cmd = r.u8();
    if (!c.hello && cmd != kHello) throw ProtocolError("the first request is not HELLO");
    Writer w;
    switch (cmd) {
      case kHello: {
        uint32_t magic = r.u32(), version = r.u32();
        uint8_t joins = r.u8();
        r.done();
        if (c.hello || magic != kMagic || version != kVersion) throw ProtocolError("bad HELLO");
        c.hello = true;
        if (joins) {
          std::lock_guard<std::mutex> lock(join_mu_);
          ++joined_;
          join_cv_.notify_all();
        }
        w.u8(kOk).u32(kMagic).u32(kVersion);
        return reply(c, w);
      }
      case kSet: {
        std::string key = r.str();
        std::vector<uint8_t> value = r.vec();
        r.done();
        data_[key] = std::move(value);
        w.u8(kOk);
        reply(c, w);
        return key_changed(key);
      }
      case kGet: {
        std::string key = r.str();
        int64_t timeout = r.timeout_ms();
        r.done();
        c.pending = Pending{kGet, {std::move(key)}, Deadline(std::chrono::milliseconds(timeout))};
        if (has_all(c.pending->keys)) answer(c);
        return;
      }
      case kAdd: {
        std::string key = r.str();
        int64_t delta = r.i64();
        r.done();
        std::vector<uint8_t> value;
        if (auto it = data_.find(key); it != data_.end()) value = it->second;
        int64_t result;
        try {
          result = detail::add_to_counter("TCPStore.add", key, value, delta);
        } catch (const Error& e) {
          w.u8(kFailed).bytes(std::string(e.what()));
          return reply(c, w);
        }
        data_[key] = std::move(value);
        w.u8(kOk).i64(result);
        reply(c, w);
        return key_changed(key);
      }
      case kCompareSet: {
        std::string key = r.str();
        std::vector<uint8_t> expected = r.vec(), desired = r.vec();
        r.done();
        auto it = data_.find(key);
        bool changed = false;
        w.u8(kOk);
        if (it == data_.end()) {
          if (expected.empty()) {
            data_.emplace(key, desired);
            changed = true;
            w.bytes(desired);
          } else {
            w.bytes(expected);
          }
        } else if (it->second == expected) {
          it->second = desired;
          changed = true;
          w.bytes(desired);
        } else {
          w.bytes(it->second);
        }
        reply(c, w);
        if (changed) key_changed(key);
        return;
      }
      case kCheck: {
        std::vector<std::string> keys = r.keys();
        r.done();
        w.u8(kOk).u8(has_all(keys) ? 1 : 0);
        return reply(c, w);
      }
      case kWait: {
        std::vector<std::string> keys = r.keys();
        int64_t timeout = r.timeout_ms();
        r.done();
        c.pending = Pending{kWait, std::move(keys), Deadline(std::chrono::milliseconds(timeout))};
        if (has_all(c.pending->keys)) answer(c);
        return;
      }
      case kDelete: {
        std::string key = r.str();
        r.done();
        w.u8(kOk).u8(data_.erase(key) ? 1 : 0);
        return reply(c, w);
      }
      case kNumKeys: {
        r.done();
        w.u8(kOk).i64(int64_t(data_.size()));
        return reply(c, w);
      }
      default:
        throw ProtocolError("unknown command " + std::to_string(cmd));
    }
  }

  int listen_fd_;
  int wake_[2] = {-1, -1};
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  Clock::time_point accept_paused_until_{};
  std::unordered_map<std::string, std::vector<uint8_t>> data_;
  std::map<int, Conn> conns_;  // by descriptor
  std::mutex join_mu_;
  std::condition_variable join_cv_;
  int joined_ = 0;  // stores that said HELLO with `joins` (guarded by join_mu_)
};

TCPServer::TCPServer(int listen_fd) : impl_(std::make_unique<Impl>(listen_fd)) {}
TCPServer::~TCPServer() = default;
uint16_t TCPServer::port() const { return impl_->port(); }
int TCPServer::wait_for_workers(int n, const Deadline& deadline) { return impl_->wait_for_workers(n, deadline); }

int listen_on(uint16_t port) {
  int last_err = 0;
  for (int family : {AF_INET6, AF_INET}) {
    int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last_err = errno;
      continue;
    }
    int one = 1, zero = 0;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    int rc;
    if (family == AF_INET6) {
      ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_addr = in6addr_any;
      a.sin6_port = htons(port);
      rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_ANY);
      a.sin_port = htons(port);
      rc = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    }
    if (rc == 0 && ::listen(fd, SOMAXCONN) == 0) return fd;
    last_err = errno;
    ::close(fd);
    EMBER_CHECK(last_err != EADDRINUSE, "TCPStore: cannot listen on port ", port,
                ": address already in use (another job's store, or pick a free port with port 0)");
  }
  EMBER_ERROR("TCPStore: cannot listen on port ", port, ": ", errno_text(last_err));
}

}  // namespace ember::distributed::detail
