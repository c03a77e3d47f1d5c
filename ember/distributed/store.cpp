// Store's shared surface, the in-process HashStore, PrefixStore and the env:// rendezvous.
// TCPStore is in tcp_store.cpp (client) and tcp_server.cpp, FileStore in file_store.cpp.
#include "ember/distributed/store.h"

#include <algorithm>
#include <charconv>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

#include "ember/core/error.h"
#include "ember/distributed/store_util.h"

namespace ember::distributed {

// ---- helpers ---------------------------------------------------------------------------
namespace detail {

std::string quote(std::string_view key) {
  constexpr size_t kMaxShown = 200;
  static const char* kHex = "0123456789abcdef";
  std::string out = "'";
  for (size_t i = 0; i < key.size() && i < kMaxShown; ++i) {
    unsigned char c = key[i];
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'') {
      out += char(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  if (key.size() > kMaxShown) out += "...";
  return out + "'";
}

std::string quote_list(const std::vector<std::string>& keys) {
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i == 8) return out + ", ... (" + std::to_string(keys.size()) + " keys)";
    out += (i ? ", " : "") + quote(keys[i]);
  }
  return out;
}

int64_t add_to_counter(const char* op, const std::string& key, std::vector<uint8_t>& value, int64_t delta) {
  int64_t old = 0;
  if (!value.empty()) {
    const char* first = reinterpret_cast<const char*>(value.data());
    const char* last = first + value.size();
    auto [end, ec] = std::from_chars(first, last, old);
    EMBER_CHECK(ec == std::errc() && end == last, op, ": key ", quote(key),
                " holds a value that is not a 64-bit integer (", quote({first, value.size()}),
                "), so it cannot be a counter");
  }
  int64_t result;
  EMBER_CHECK(!__builtin_add_overflow(old, delta, &result), op, ": adding ", delta, " to key ", quote(key),
              " (holding ", old, ") overflows int64");
  value = to_bytes(std::to_string(result));
  return result;
}

// Timeouts beyond 2^40 ms (35 years) count as forever, which also keeps now() + timeout
// from overflowing.
Deadline::Deadline(std::chrono::milliseconds timeout)
    : forever_(timeout == Store::kNoTimeout || timeout.count() > (int64_t(1) << 40)),
      at_(forever_ ? Clock::time_point::max() : Clock::now() + timeout) {}

int64_t Deadline::remaining_ms() const {
  if (forever_) return -1;
  auto left = at_ - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  return std::chrono::ceil<std::chrono::milliseconds>(left).count();
}

void throw_get_timeout(const char* store, const std::string& key, std::chrono::milliseconds timeout) {
  EMBER_ERROR(store, ".get: key ", quote(key), " was not set within ", timeout.count(),
              " ms (the store's timeout; set_timeout() changes it)");
}

void throw_wait_timeout(const char* store, const std::vector<std::string>& keys,
                        const std::vector<std::string>& missing, std::chrono::milliseconds timeout) {
  EMBER_ERROR(store, ".wait: timed out after ", timeout.count(), " ms waiting for keys ", quote_list(keys),
              " (missing: ", quote_list(missing), ")");
}

void check_timeout(const char* op, std::chrono::milliseconds timeout) {
  EMBER_CHECK(timeout.count() >= 0, op, ": the timeout must be >= 0 ms (0: wait forever), got ",
              timeout.count(), " ms");
}

}  // namespace detail

using detail::quote;
using detail::to_bytes;

// ---- Store -----------------------------------------------------------------------------

Store::Store(std::chrono::milliseconds timeout) : timeout_ms_(timeout.count()) {
  detail::check_timeout("Store", timeout);
}
Store::~Store() = default;

void Store::set(const std::string& key, const std::string& value) { set(key, to_bytes(value)); }

std::string Store::get_to_str(const std::string& key) {
  std::vector<uint8_t> v = get(key);
  return {v.begin(), v.end()};
}

std::string Store::compare_set(const std::string& key, const std::string& expected, const std::string& desired) {
  std::vector<uint8_t> v = compare_set(key, to_bytes(expected), to_bytes(desired));
  return {v.begin(), v.end()};
}

void Store::wait(const std::vector<std::string>& keys) { wait(keys, timeout()); }

std::chrono::milliseconds Store::timeout() const { return std::chrono::milliseconds(timeout_ms_.load()); }

void Store::set_timeout(std::chrono::milliseconds timeout) {
  detail::check_timeout("Store.set_timeout", timeout);
  timeout_ms_ = timeout.count();
}

// ---- HashStore -------------------------------------------------------------------------

struct HashStore::Impl {
  std::mutex mu;
  std::condition_variable cv;  // notified whenever a key is created or changed
  std::unordered_map<std::string, std::vector<uint8_t>> data;

  // Waits on `lock` until every key exists; false at the deadline.
  bool wait_for(std::unique_lock<std::mutex>& lock, const std::vector<std::string>& keys,
                const detail::Deadline& deadline) {
    auto ready = [&] {
      return std::all_of(keys.begin(), keys.end(), [&](const std::string& k) { return data.count(k) != 0; });
    };
    if (deadline.forever()) {
      cv.wait(lock, ready);
      return true;
    }
    return cv.wait_until(lock, deadline.at(), ready);
  }
};

HashStore::HashStore() : impl_(std::make_unique<Impl>()) {}
HashStore::~HashStore() = default;

void HashStore::set(const std::string& key, const std::vector<uint8_t>& value) {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->data[key] = value;
  }
  impl_->cv.notify_all();
}

std::vector<uint8_t> HashStore::get(const std::string& key) {
  std::chrono::milliseconds t = timeout();
  std::unique_lock<std::mutex> lock(impl_->mu);
  if (!impl_->wait_for(lock, {key}, detail::Deadline(t))) detail::throw_get_timeout("HashStore", key, t);
  return impl_->data.at(key);
}

int64_t HashStore::add(const std::string& key, int64_t value) {
  int64_t result;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->data.find(key);
    std::vector<uint8_t> v = it == impl_->data.end() ? std::vector<uint8_t>{} : it->second;
    result = detail::add_to_counter("HashStore.add", key, v, value);  // throws before any change
    impl_->data[key] = std::move(v);
  }
  impl_->cv.notify_all();
  return result;
}

std::vector<uint8_t> HashStore::compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                            const std::vector<uint8_t>& desired) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  auto it = impl_->data.find(key);
  if (it == impl_->data.end()) {
    if (!expected.empty()) return expected;
    impl_->data.emplace(key, desired);
  } else if (it->second == expected) {
    it->second = desired;
  } else {
    return it->second;
  }
  lock.unlock();
  impl_->cv.notify_all();
  return desired;
}

bool HashStore::delete_key(const std::string& key) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->data.erase(key) != 0;
}

bool HashStore::check(const std::vector<std::string>& keys) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (const std::string& k : keys)
    if (!impl_->data.count(k)) return false;
  return true;
}

int64_t HashStore::num_keys() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return int64_t(impl_->data.size());
}

void HashStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  detail::check_timeout("HashStore.wait", timeout);
  std::unique_lock<std::mutex> lock(impl_->mu);
  if (impl_->wait_for(lock, keys, detail::Deadline(timeout))) return;
  std::vector<std::string> missing;
  for (const std::string& k : keys)
    if (!impl_->data.count(k)) missing.push_back(k);
  detail::throw_wait_timeout("HashStore", keys, missing, timeout);
}

// ---- PrefixStore -----------------------------------------------------------------------

PrefixStore::PrefixStore(std::string prefix, std::shared_ptr<Store> store)
    : prefix_(std::move(prefix)), store_(std::move(store)) {
  EMBER_CHECK(store_ != nullptr, "PrefixStore: the underlying store is null (prefix ", quote(prefix_), ")");
}

std::string PrefixStore::prefixed(const std::string& key) const { return prefix_ + "/" + key; }

void PrefixStore::set(const std::string& key, const std::vector<uint8_t>& value) { store_->set(prefixed(key), value); }
std::vector<uint8_t> PrefixStore::get(const std::string& key) { return store_->get(prefixed(key)); }
int64_t PrefixStore::add(const std::string& key, int64_t value) { return store_->add(prefixed(key), value); }
std::vector<uint8_t> PrefixStore::compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                              const std::vector<uint8_t>& desired) {
  return store_->compare_set(prefixed(key), expected, desired);
}
bool PrefixStore::delete_key(const std::string& key) { return store_->delete_key(prefixed(key)); }

bool PrefixStore::check(const std::vector<std::string>& keys) {
  std::vector<std::string> p;
  p.reserve(keys.size());
  for (const std::string& k : keys) p.push_back(prefixed(k));
  return store_->check(p);
}

int64_t PrefixStore::num_keys() { return store_->num_keys(); }

void PrefixStore::wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) {
  std::vector<std::string> p;
  p.reserve(keys.size());
  for (const std::string& k : keys) p.push_back(prefixed(k));
  store_->wait(p, timeout);
}

std::chrono::milliseconds PrefixStore::timeout() const { return store_->timeout(); }
void PrefixStore::set_timeout(std::chrono::milliseconds timeout) { store_->set_timeout(timeout); }

// ---- env:// rendezvous -----------------------------------------------------------------

namespace {

std::string env_var(const char* name, const char* what) {
  const char* v = std::getenv(name);
  EMBER_CHECK(v != nullptr && *v != '\0', "store_from_env: environment variable ", name, " is not set (", what,
              "; a launcher such as ember-run or torchrun sets MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE)");
  return v;
}

int64_t env_int(const char* name, const char* what, int64_t lo, int64_t hi) {
  std::string s = env_var(name, what);
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  EMBER_CHECK(ec == std::errc() && end == s.data() + s.size(), "store_from_env: ", name, "=", quote(s),
              " is not an integer (", what, ")");
  EMBER_CHECK(v >= lo && v <= hi, "store_from_env: ", name, "=", v, " is out of range: expected ", lo, " <= ", name,
              " <= ", hi, " (", what, ")");
  return v;
}

}  // namespace

RendezvousEnv rendezvous_env() { return rendezvous_env(-1, -1); }

RendezvousEnv rendezvous_env(int world_size, int rank) {
  RendezvousEnv env;
  env.master_addr = env_var("MASTER_ADDR", "the address of the rank 0 host");
  env.master_port = uint16_t(env_int("MASTER_PORT", "the TCP port of the store on rank 0", 1, 65535));
  env.world_size = world_size >= 0 ? world_size
                                   : int(env_int("WORLD_SIZE", "the number of processes in the job", 1, 1 << 24));
  env.rank = rank >= 0 ? rank : int(env_int("RANK", "this process's rank, 0 .. WORLD_SIZE-1", 0, env.world_size - 1));
  EMBER_CHECK(env.world_size >= 1 && env.rank < env.world_size, "rendezvous: rank ", env.rank, " is not in [0, ",
              env.world_size, ")");
  return env;
}

std::shared_ptr<TCPStore> store_from_env(std::chrono::milliseconds timeout) {
  RendezvousEnv env = rendezvous_env();
  return std::make_shared<TCPStore>(env.master_addr, env.master_port, env.world_size, env.rank == 0, timeout,
                                    /*wait_for_workers=*/true);
}

}  // namespace ember::distributed
