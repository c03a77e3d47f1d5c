// The TCPStore server: run by the master store in a thread of its own (internal to
// ember::distributed; see Note [TCPStore protocol]).
#pragma once
#include <cstdint>
#include <memory>

#include "ember/distributed/store_util.h"

namespace ember::distributed::detail {

// Serves the store's data to any number of connections from one poll(2) loop. The
// destructor stops the loop and closes every connection, so clients blocked in a call see
// the close at once.
class TCPServer {
 public:
  // Takes ownership of `listen_fd`, a bound, listening socket.
  explicit TCPServer(int listen_fd);
  ~TCPServer();
  TCPServer(const TCPServer&) = delete;
  TCPServer& operator=(const TCPServer&) = delete;

  uint16_t port() const;
  // Waits until `n` stores have joined (said HELLO with `joins`) or the deadline passes;
  // returns how many joined.
  int wait_for_workers(int n, const Deadline& deadline);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A listening socket on every interface at `port` (0: any free port): IPv6 accepting IPv4
// too where the host has IPv6, else IPv4.
int listen_on(uint16_t port);

}  // namespace ember::distributed::detail
