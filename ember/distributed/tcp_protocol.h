// The TCPStore wire format, shared by its server (tcp_server.cpp) and client
// (tcp_store.cpp); internal to ember::distributed.
#pragma once
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ember/core/error.h"

// Note [TCPStore protocol]
// Both directions send frames: a little-endian u32 body length (1 .. kMaxFrameBytes), then
// the body. Fields inside a body:
//   u8, u32, i64   little-endian integers
//   bytes          u32 length, then that many bytes (never past the frame's end)
//   keys           u32 count, then count x bytes
// A request body is a u8 command and its fields; the reply body is a u8 status and its
// fields: OK (0) with the command's result, TIMEOUT (1), or ERROR (2) with `bytes` message.
//   1 HELLO   u32 magic 'EMBS', u32 version, u8 joins  -> OK u32 magic, u32 version
//             (first frame on every connection; `joins` counts toward wait_for_workers)
//   2 SET     bytes key, bytes value                   -> OK
//   3 GET     bytes key, i64 timeout_ms (0: forever)   -> OK bytes value | TIMEOUT
//   4 ADD     bytes key, i64 delta                     -> OK i64 new value | ERROR
//   5 CAS     bytes key, bytes expected, bytes desired -> OK bytes value now held
//   6 CHECK   keys                                     -> OK u8 all exist
//   7 WAIT    keys, i64 timeout_ms (0: forever)        -> OK | TIMEOUT keys missing
//   8 DELETE  bytes key                                -> OK u8 existed
//   9 NUMKEYS                                          -> OK i64
// GET and WAIT are answered when their keys exist or at their deadline, which the server
// keeps, so a reply always comes and the connection stays in step. A client sends one
// request at a time. The server closes a connection that breaks any rule (bad length,
// unknown command, a field past the end, trailing bytes, no HELLO first, a request while
// one is pending); other connections never notice.

namespace ember::distributed::detail {

static_assert(std::endian::native == std::endian::little, "the TCPStore protocol assumes a little-endian host");

constexpr uint32_t kMagic = 0x53424d45;  // "EMBS" on the wire
constexpr uint32_t kVersion = 1;
constexpr uint32_t kMaxFrameBytes = 64u << 20;  // bounds every buffer a peer can make us fill
constexpr int64_t kMaxTimeoutMs = int64_t(1) << 40;
// A client waits this much longer than the server's deadline for GET/WAIT, so a reply in
// flight at the deadline is not taken for an unresponsive server.
constexpr std::chrono::milliseconds kReplyGrace{1000};

enum Cmd : uint8_t { kHello = 1, kSet, kGet, kAdd, kCompareSet, kCheck, kWait, kDelete, kNumKeys };
enum Status : uint8_t { kOk = 0, kTimeout = 1, kFailed = 2 };

// Builds one frame; `what` names the call in size errors.
class Writer {
 public:
  explicit Writer(std::string what = "TCPStore") : what_(std::move(what)), buf_(4) {}  // room for the length
  Writer& u8(uint8_t v) { buf_.push_back(v); return *this; }
  Writer& u32(uint32_t v) { return raw(&v, 4); }
  Writer& i64(int64_t v) { return raw(&v, 8); }
  Writer& bytes(const void* p, size_t n) {
    EMBER_CHECK(n <= kMaxFrameBytes, what_, ": a key or value of ", n, " bytes exceeds the protocol's limit of ",
                kMaxFrameBytes, " bytes");
    u32(uint32_t(n));
    return raw(p, n);
  }
  Writer& bytes(const std::string& s) { return bytes(s.data(), s.size()); }
  Writer& bytes(const std::vector<uint8_t>& v) { return bytes(v.data(), v.size()); }
  Writer& keys(const std::vector<std::string>& ks) {
    EMBER_CHECK(ks.size() <= kMaxFrameBytes / 4, what_, ": too many keys (", ks.size(), ")");
    u32(uint32_t(ks.size()));
    for (const std::string& k : ks) bytes(k);
    return *this;
  }
  // The frame, its length filled in.
  std::vector<uint8_t> finish() {
    size_t body = buf_.size() - 4;
    EMBER_CHECK(body <= kMaxFrameBytes, what_, ": the message takes ", body, " bytes, more than the protocol's limit of ",
                kMaxFrameBytes, " bytes");
    uint32_t n = uint32_t(body);
    std::memcpy(buf_.data(), &n, 4);
    return std::move(buf_);
  }

 private:
  Writer& raw(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
    return *this;
  }
  std::string what_;
  std::vector<uint8_t> buf_;
};

// A peer broke the protocol; the message says how.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads fields of one frame body; every read is checked against the body's end.
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  uint8_t u8() { return *take(1); }
  uint32_t u32() { uint32_t v; std::memcpy(&v, take(4), 4); return v; }
  int64_t i64() { int64_t v; std::memcpy(&v, take(8), 8); return v; }
  std::string str() {
    uint32_t n = u32();
    const uint8_t* b = take(n);
    return {reinterpret_cast<const char*>(b), n};
  }
  std::vector<uint8_t> vec() {
    uint32_t n = u32();
    const uint8_t* b = take(n);
    return {b, b + n};
  }
  std::vector<std::string> keys() {
    uint32_t n = u32();
    if (n > (n_ - pos_) / 4) throw ProtocolError("key count " + std::to_string(n) + " exceeds the frame");
    std::vector<std::string> ks;
    ks.reserve(n);
    for (uint32_t i = 0; i < n; ++i) ks.push_back(str());
    return ks;
  }
  int64_t timeout_ms() {
    int64_t t = i64();
    if (t < 0 || t > kMaxTimeoutMs) throw ProtocolError("timeout " + std::to_string(t) + " ms out of range");
    return t;
  }
  void done() const {
    if (pos_ != n_) throw ProtocolError(std::to_string(n_ - pos_) + " trailing bytes in a frame");
  }

 private:
  const uint8_t* take(size_t n) {
    if (n > n_ - pos_)
      throw ProtocolError("a field of " + std::to_string(n) + " bytes runs past the frame's end (" +
                          std::to_string(n_ - pos_) + " bytes left)");
    const uint8_t* b = p_ + pos_;
    pos_ += n;
    return b;
  }
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

// A timeout as sent: longer than the protocol allows means forever (Deadline agrees).
inline int64_t wire_timeout(std::chrono::milliseconds t) { return t.count() > kMaxTimeoutMs ? 0 : t.count(); }

inline uint32_t load_u32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

}  // namespace ember::distributed::detail
