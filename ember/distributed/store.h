// Key-value stores through which the ranks of a distributed job meet (PyTorch's c10d Store
// API, spelled as in torch.distributed): process groups exchange ids through them and the
// DataLoader's distributed reading service agrees on epoch ends. HashStore lives in one
// process, FileStore in a shared file, TCPStore in a server run by rank 0.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember::distributed {

// Values are bytes; `add` keeps a counter as its decimal text (so get() reads "3"), as in
// PyTorch. Every blocking call ends within its timeout with an ember::Error naming the
// store, the key(s) and the timeout; kNoTimeout waits forever.
class Store {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout = std::chrono::seconds(300);
  static constexpr std::chrono::milliseconds kNoTimeout = std::chrono::milliseconds::zero();

  explicit Store(std::chrono::milliseconds timeout = kDefaultTimeout);
  virtual ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual void set(const std::string& key, const std::vector<uint8_t>& value) = 0;
  void set(const std::string& key, const std::string& value);
  // The value of `key`, waiting up to timeout() for another rank to set it.
  virtual std::vector<uint8_t> get(const std::string& key) = 0;
  std::string get_to_str(const std::string& key);
  // Adds `value` to the counter at `key` (a missing key counts as 0); returns the new value.
  // A key holding something other than an integer is an error.
  virtual int64_t add(const std::string& key, int64_t value) = 0;
  // Sets `key` to `desired` if it holds `expected` (or is missing and `expected` is empty)
  // and returns the value it now holds; when it is missing and `expected` is not empty,
  // returns `expected` and sets nothing (PyTorch's contract).
  virtual std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                           const std::vector<uint8_t>& desired) = 0;
  std::string compare_set(const std::string& key, const std::string& expected, const std::string& desired);
  // Removes `key`; true when it was there.
  virtual bool delete_key(const std::string& key) = 0;
  // True when every key exists (does not wait).
  virtual bool check(const std::vector<std::string>& keys) = 0;
  // The number of keys set by users (a store's own bookkeeping keys are not counted).
  virtual int64_t num_keys() = 0;
  // Waits until every key exists: up to timeout(), or `timeout`.
  void wait(const std::vector<std::string>& keys);
  virtual void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) = 0;

  virtual std::chrono::milliseconds timeout() const;
  virtual void set_timeout(std::chrono::milliseconds timeout);

 private:
  std::atomic<int64_t> timeout_ms_;  // may change while another thread waits
};

// A store in one process's memory; thread safe, waits sleep on a condition variable.
class HashStore : public Store {
 public:
  HashStore();
  ~HashStore() override;
  using Store::compare_set;
  using Store::set;
  using Store::wait;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// TCPStore's full set of options (PyTorch's TCPStoreOptions).
struct TCPStoreOptions {
  uint16_t port = 29500;  // 0 on the server: pick a free port (see TCPStore::port())
  bool is_server = false;
  // How many stores (the server's own included) take part; with wait_workers the server's
  // constructor returns once that many have connected, or fails at the timeout.
  std::optional<int> num_workers;
  bool wait_workers = true;
  std::chrono::milliseconds timeout = Store::kDefaultTimeout;
  // A socket already bound (and possibly listening) for the server to use instead of
  // binding `port`; the store takes ownership. Lets a launcher reserve the port first.
  int master_listen_fd = -1;
};

// A store served over TCP by the master (rank 0), which runs the server in a thread of its
// own and is also a client of it. Clients connect with retries until the timeout. The wire
// protocol is documented in tcp_protocol.h (Note [TCPStore protocol]). One object may be
// used from many threads: each call borrows a connection of its own.
class TCPStore : public Store {
 public:
  TCPStore(std::string host, uint16_t port, std::optional<int> world_size = std::nullopt, bool is_master = false,
           std::chrono::milliseconds timeout = kDefaultTimeout, bool wait_for_workers = true);
  TCPStore(std::string host, const TCPStoreOptions& options);
  // On the master this stops the server: clients still connected get an error naming it.
  ~TCPStore() override;
  using Store::compare_set;
  using Store::set;
  using Store::wait;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  const std::string& host() const;
  uint16_t port() const;  // the server's port (the one it picked when asked for port 0)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A store in a file that processes sharing a filesystem lock with flock(2); the file holds
// an append-only log of records in PyTorch's FileStore format, so torch.distributed's
// FileStore can share it. With world_size >= 0 the last of world_size users to be
// destroyed removes the file; -1 leaves it.
class FileStore : public Store {
 public:
  explicit FileStore(std::string path, int world_size = -1);
  ~FileStore() override;
  using Store::compare_set;
  using Store::set;
  using Store::wait;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;

  const std::string& path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A view of `store` whose keys are prefixed with "<prefix>/", so that several users (process
// groups, data loaders) can share one store. num_keys() and the timeout are the underlying
// store's.
class PrefixStore : public Store {
 public:
  PrefixStore(std::string prefix, std::shared_ptr<Store> store);
  using Store::compare_set;
  using Store::set;
  using Store::wait;
  void set(const std::string& key, const std::vector<uint8_t>& value) override;
  std::vector<uint8_t> get(const std::string& key) override;
  int64_t add(const std::string& key, int64_t value) override;
  std::vector<uint8_t> compare_set(const std::string& key, const std::vector<uint8_t>& expected,
                                   const std::vector<uint8_t>& desired) override;
  bool delete_key(const std::string& key) override;
  bool check(const std::vector<std::string>& keys) override;
  int64_t num_keys() override;
  void wait(const std::vector<std::string>& keys, std::chrono::milliseconds timeout) override;
  std::chrono::milliseconds timeout() const override;
  void set_timeout(std::chrono::milliseconds timeout) override;

  const std::string& prefix() const { return prefix_; }
  const std::shared_ptr<Store>& underlying_store() const { return store_; }

 private:
  std::string prefixed(const std::string& key) const;
  std::string prefix_;
  std::shared_ptr<Store> store_;
};

// The usual environment rendezvous (torchrun's env://): MASTER_ADDR, MASTER_PORT, RANK and
// WORLD_SIZE, checked (missing, not a number, out of range) with errors naming the variable.
struct RendezvousEnv {
  std::string master_addr;
  uint16_t master_port = 0;
  int rank = 0;
  int world_size = 1;
};
RendezvousEnv rendezvous_env();
// The same with world_size / rank given (>= 0) instead of read: their variables are then not
// needed (init_process_group's arguments take precedence over the environment, which is left
// as it is).
RendezvousEnv rendezvous_env(int world_size, int rank);
// A TCPStore at MASTER_ADDR:MASTER_PORT whose master is rank 0; its constructor returns once
// all WORLD_SIZE ranks have connected (or fails at the timeout).
std::shared_ptr<TCPStore> store_from_env(std::chrono::milliseconds timeout = Store::kDefaultTimeout);

}  // namespace ember::distributed
