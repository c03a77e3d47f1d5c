// TCPStore's client: a pool of connections to the master's server (tcp_server.cpp), each
// used by one call at a time with a deadline on every wait. See Note [TCPStore protocol].
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include "ember/core/error.h"
#include "ember/distributed/store.h"
#include "ember/distributed/store_util.h"
#include "ember/distributed/tcp_protocol.h"
#include "ember/distributed/tcp_server.h"

namespace ember::distributed {

namespace {

using namespace detail;  // the protocol's names
using detail::quote;


void set_nodelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// One connection to the server. Any failure mid-request leaves the stream out of step, so
// it marks the connection broken and the pool drops it.
class Connection {
 public:
  Connection(int fd, std::string where) : fd_(fd), where_(std::move(where)) {}
  ~Connection() { ::close(fd_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  bool broken() const { return broken_; }

  // Sends a request frame and returns the reply body. `what` names the call in errors;
  // `deadline` bounds the whole exchange.
  std::vector<uint8_t> round_trip(const std::vector<uint8_t>& frame, const Deadline& deadline,
                                  const std::string& what) {
    broken_ = true;  // until the reply is fully read
    size_t sent = 0;
    while (sent < frame.size()) {
      ssize_t n = ::send(fd_, frame.data() + sent, frame.size() - sent, MSG_NOSIGNAL);
      if (n >= 0) {
        sent += size_t(n);
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        await(POLLOUT, deadline, what);
      } else if (errno != EINTR) {
        lost(what, errno_text(errno));
      }
    }
    uint8_t header[4];
    read_exact(header, 4, deadline, what);
    uint32_t len = load_u32(header);
    EMBER_CHECK(len >= 1 && len <= kMaxFrameBytes, what, ": malformed reply from ", where_, " (frame length ", len,
                "); is it an ember store server?");
    std::vector<uint8_t> body(len);
    read_exact(body.data(), len, deadline, what);
    broken_ = false;
    return body;
  }

 private:
  void read_exact(uint8_t* p, size_t n, const Deadline& deadline, const std::string& what) {
    size_t got = 0;
    while (got < n) {
      ssize_t r = ::recv(fd_, p + got, n - got, 0);
      if (r > 0) {
        got += size_t(r);
      } else if (r == 0) {
        lost(what, "the server closed it");
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        await(POLLIN, deadline, what);
      } else if (errno != EINTR) {
        lost(what, errno_text(errno));
      }
    }
  }

  // Waits for the socket to be ready for `events` until the deadline.
  void await(short events, const Deadline& deadline, const std::string& what) {
    while (true) {
      int64_t left = deadline.remaining_ms();
      EMBER_CHECK(left != 0, what, ": no reply from the store server at ", where_, " within the timeout; the server ",
                  "is unresponsive");
      pollfd p{fd_, events, 0};
      int r = ::poll(&p, 1, int(std::min<int64_t>(left, 1 << 30)));
      if (r > 0) return;  // ready, or an error/hangup the next send/recv reports
      if (r < 0 && errno != EINTR) lost(what, errno_text(errno));
    }
  }

  [[noreturn]] void lost(const std::string& what, const std::string& why) {
    EMBER_ERROR(what, ": lost the connection to the store server at ", where_, " (", why,
                "); the master store (rank 0) has shut down or crashed");
  }

  int fd_;
  std::string where_;
  bool broken_ = false;
};

std::string where(const std::string& host, uint16_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

// One connection attempt to each address of host:port within the deadline; the connected
// socket, or -1 with `err` set.
int try_connect(const std::string& host, uint16_t port, const Deadline& deadline, std::string& err) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  int gai = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (gai != 0) {
    EMBER_CHECK(gai == EAI_AGAIN, "TCPStore: cannot resolve the store host ", quote(host), ": ", ::gai_strerror(gai));
    err = ::gai_strerror(gai);
    return -1;
  }
  int fd = -1;
  for (addrinfo* ai = res; ai && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
      err = errno_text(errno);
      continue;
    }
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int64_t left = deadline.remaining_ms();
      int pr;
      while ((pr = ::poll(&p, 1, int(std::min<int64_t>(left < 0 ? 1 << 30 : left, 1 << 30)))) < 0 && errno == EINTR) {
      }
      int soerr = ETIMEDOUT;
      socklen_t len = sizeof(soerr);
      if (pr > 0) ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len);
      rc = soerr == 0 ? 0 : -1;
      errno = soerr;
    }
    if (rc != 0) {
      err = errno_text(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd >= 0) set_nodelay(fd);
  return fd;
}

}  // namespace

// ---- TCPStore --------------------------------------------------------------------------

struct TCPStore::Impl {
  std::string host;
  uint16_t port = 0;
  std::string where;
  std::unique_ptr<detail::TCPServer> server;  // the master's
  std::mutex pool_mu;
  std::vector<std::unique_ptr<Connection>> idle;  // connections no call is using

  ~Impl() {
    idle.clear();  // our own connections first, then the server
    server.reset();
  }

  // Connects and says HELLO; with `retry`, keeps trying until the deadline (the master may
  // not be up yet), else a refused connection fails at once (the server is gone).
  std::unique_ptr<Connection> connect(const Deadline& deadline, bool retry, bool joins, std::chrono::milliseconds timeout) {
    std::string err;
    auto delay = std::chrono::milliseconds(5);
    int fd;
    while ((fd = try_connect(host, port, deadline, err)) < 0) {
      EMBER_CHECK(retry && !deadline.passed(), "TCPStore: could not connect to the store server at ", where,
                  retry ? " within " + std::to_string(timeout.count()) + " ms" : std::string(), " (last error: ", err,
                  "); is the master (rank 0) running and reachable?");
      int64_t left = deadline.remaining_ms();
      auto nap = left < 0 ? delay : std::min(delay, std::chrono::milliseconds(left));
      std::this_thread::sleep_for(nap);
      delay = std::min(delay * 2, std::chrono::milliseconds(100));
    }
    auto conn = std::make_unique<Connection>(fd, where);
    Writer w("TCPStore");
    w.u8(kHello).u32(kMagic).u32(kVersion).u8(joins ? 1 : 0);
    std::vector<uint8_t> body = conn->round_trip(w.finish(), deadline, "TCPStore: connecting");
    Reader r(body.data(), body.size());
    bool ok = false;
    try {
      ok = r.u8() == kOk && r.u32() == kMagic && r.u32() == kVersion;
      r.done();
    } catch (const ProtocolError&) {
      ok = false;
    }
    EMBER_CHECK(ok, "TCPStore: the server at ", where, " does not speak the ember store protocol (version ", kVersion,
                ")");
    return conn;
  }

  // Runs one request on a pooled connection within `timeout`; for a GET/WAIT (`waits`), the
  // server keeps that deadline and the client allows a grace period beyond it.
  std::vector<uint8_t> call(Writer& w, const std::string& what, std::chrono::milliseconds timeout, bool waits) {
    std::vector<uint8_t> frame = w.finish();
    Deadline deadline(timeout == kNoTimeout || !waits ? timeout : timeout + kReplyGrace);
    std::unique_ptr<Connection> conn;
    {
      std::lock_guard<std::mutex> lock(pool_mu);
      if (!idle.empty()) {
        conn = std::move(idle.back());
        idle.pop_back();
      }
    }
    if (!conn) conn = connect(Deadline(timeout), /*retry=*/false, /*joins=*/false, timeout);
    std::vector<uint8_t> body = conn->round_trip(frame, deadline, what);  // throws: conn dropped
    {
      std::lock_guard<std::mutex> lock(pool_mu);
      idle.push_back(std::move(conn));
    }
    EMBER_CHECK(!body.empty(), what, ": empty reply from the store server at ", where);
    if (body[0] == kFailed) {
      Reader r(body.data() + 1, body.size() - 1);
      std::string msg;
      try {
        msg = r.str();
      } catch (const ProtocolError&) {
        msg = "(unreadable error)";
      }
      EMBER_ERROR(msg);
    }
    return body;
  }

  // A reply's fields after an OK status; a short or malformed reply is an error.
  template <class F>
  auto parse(const std::vector<uint8_t>& body, const std::string& what, F&& f) {
    EMBER_CHECK(body[0] == kOk, what, ": unexpected status ", int(body[0]), " from the store server at ", where);
    Reader r(body.data() + 1, body.size() - 1);
    try {
      auto v = f(r);
      r.done();
      return v;
    } catch (const ProtocolError& e) {
      EMBER_ERROR(what, ": malformed reply from the store server at ", where, " (", e.what(), ")");
    }
  }
};

namespace {
TCPStoreOptions make_options(uint16_t port, std::optional<int> world_size, bool is_master,
                             std::chrono::milliseconds timeout, bool wait_for_workers) {
  TCPStoreOptions o;
  o.port = port;
  o.num_workers = world_size;
  o.is_server = is_master;
  o.timeout = timeout;
  o.wait_workers = wait_for_workers;
  return o;
}
}  // namespace

TCPStore::TCPStore(std::string host, uint16_t port, std::optional<int> world_size, bool is_master,
                   std::chrono::milliseconds timeout, bool wait_for_workers)
    : TCPStore(std::move(host), make_options(port, world_size, is_master, timeout, wait_for_workers)) {}

TCPStore::TCPStore(std::string host, const TCPStoreOptions& opts) : Store(opts.timeout), impl_(std::make_unique<Impl>()) {
  EMBER_CHECK(!host.empty(), "TCPStore: the host name is empty");
  EMBER_CHECK(!opts.num_workers || *opts.num_workers >= 1, "TCPStore: world_size must be >= 1 (the stores taking part, ",
              "the master's included), got ", opts.num_workers.value_or(0));
  impl_->host = std::move(host);
  impl_->port = opts.port;
  if (opts.is_server) {
    int fd = opts.master_listen_fd;
    if (fd >= 0) {
      if (::listen(fd, SOMAXCONN) != 0) {
        int err = errno;
        ::close(fd);  // ours now, as documented
        EMBER_ERROR("TCPStore: master_listen_fd ", fd, " cannot listen: ", errno_text(err));
      }
    } else {
      fd = detail::listen_on(opts.port);
    }
    impl_->server = std::make_unique<detail::TCPServer>(fd);
    impl_->port = impl_->server->port();
  }
  impl_->where = where(impl_->host, impl_->port);
  Deadline deadline(opts.timeout);
  impl_->idle.push_back(impl_->connect(deadline, /*retry=*/true, /*joins=*/true, opts.timeout));
  if (impl_->server && opts.wait_workers && opts.num_workers) {
    int n = *opts.num_workers;
    int joined = impl_->server->wait_for_workers(n, deadline);
    EMBER_CHECK(joined >= n, "TCPStore: timed out after ", opts.timeout.count(), " ms waiting for workers: ", joined,
                " of ", n, " stores joined (world_size counts the master's own store) at ", impl_->where);
  }
}

TCPStore::~TCPStore() = default;

const std::string& TCPStore::host() const { return impl_->host; }
uint16_t TCPStore::port() const { return impl_->port; }

void TCPStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  std::string what = "TCPStore.set(key " + quote(key) + ")";
  Writer w(what);
  w.u8(kSet).bytes(key).bytes(value);
  impl_->parse(impl_->call(w, what, timeout(), false), what, [](Reader&) { return 0; });
}

std::vector<uint8_t> TCPStore::get(const std::string& key) {
  std::chrono::milliseconds t = timeout();
  std::string what = "TCPStore.get(key " + quote(key) + ")";
  Writer w(what);
  w.u8(kGet).bytes(key).i64(wire_timeout(t));
  std::vector<uint8_t> body = impl_->call(w, what, t, true);
  if (body[0] == kTimeout) detail::throw_get_timeout("TCPStore", key, t);
  return impl_->parse(body, what, [](Reader& r) { return r.vec(); });
}

int64_t TCPStore::add(const std::string& key, int64_t value) {
  std::string what = "TCPStore.add(key " + quote(key) + ")";
  Writer w(what);
  w.u8(kAdd).bytes(key).i64(value);
  return impl_->parse(impl_->call(w, what, timeout(), false), what, [](Reader& r) { return r.i64(); });
}

std::vector<uint8_t> TCPStore::compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) {
  std::string what = "TCPStore.compare_set(key " + quote(key) + ")";
  Writer w(what);
  w.u8(kCompareSet).bytes(key).bytes(expected).bytes(desired);
  return impl_->parse(impl_->call(w, what, timeout(), false), what, [](Reader& r) { return r.vec(); });
}

bool TCPStore::delete_key(const std::string& key) {
  std::string what = "TCPStore.delete_key(key " + quote(key) + ")";
  Writer w(what);
  w.u8(kDelete).bytes(key);
  return impl_->parse(impl_->call(w, what, timeout(), false), what, [](Reader& r) { return r.u8() != 0; });
}

bool TCPStore::check(const std::vector<std::string>& keys) {
  std::string what = "TCPStore.check(keys " + detail::quote_list(keys) + ")";
  Writer w(what);
  w.u8(kCheck).keys(keys);
  return impl_->parse(impl_->call(w, what, timeout(), false), what, [](Reader& r) { return r.u8() != 0; });
}

int64_t TCPStore::num_keys() {
  std::string what = "TCPStore.num_keys";
  Writer w(what);
  w.u8(kNumKeys);
  return impl_->parse(impl_->call(w, what, timeout(), false), what, [](Reader& r) { return r.i64(); });
}

void TCPStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  detail::check_timeout("TCPStore.wait", timeout);
  std::string what = "TCPStore.wait";
  Writer w(what);
  w.u8(kWait).keys(keys).i64(wire_timeout(timeout));
  std::vector<uint8_t> body = impl_->call(w, what, timeout, true);
  if (body[0] == kTimeout) {
    Reader r(body.data() + 1, body.size() - 1);
    std::vector<std::string> missing;
    try {
      missing = r.keys();
    } catch (const ProtocolError&) {
      missing = {"(unreadable)"};
    }
    detail::throw_wait_timeout("TCPStore", keys, missing, timeout);
  }
  impl_->parse(body, what, [](Reader&) { return 0; });
}

}  // namespace ember::distributed
