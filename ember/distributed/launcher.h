// The process launcher behind `ember run` (torchrun's single-node and static multi-node
// modes): starts nproc_per_node copies of a program with torchrun's environment (RANK,
// LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT,
// TORCHELASTIC_RESTART_COUNT; OMP_NUM_THREADS=1 with several ranks per node unless it is set),
// each in a process group of its own, prefixes every line they
// print with "[rank R]: ", forwards SIGINT/SIGTERM/SIGHUP/SIGQUIT to them (and passes job
// control on: Ctrl-Z stops the ranks with the launcher, fg / bg resume them), and when one fails ends the
// others (SIGTERM, then SIGKILL after a grace period) and returns that rank's status. Signals
// go to a rank's whole process group, and once every rank has exited whatever they left
// running is killed, so a leftover holding the output pipes cannot keep the launcher waiting. With max_restarts > 0 a failed group
// is started again (the program resumes from its own checkpoint, as with torchrun's
// elastic restarts), up to that many times; with several nodes, all nodes restart together
// (their launchers meet in a store at MASTER_PORT + 1 served by node 0's).
#pragma once
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace ember::distributed {

struct LaunchOptions {
  int nproc_per_node = 1;
  int nnodes = 1;
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  int max_restarts = 0;
  std::chrono::milliseconds kill_grace = std::chrono::seconds(10);  // SIGTERM -> SIGKILL
  // Several nodes with max_restarts > 0: how long a node's launcher waits for the others (to
  // connect, to check in before an attempt). Note [Restarts across nodes] (launcher.cpp).
  std::chrono::milliseconds node_timeout = std::chrono::minutes(5);
  std::vector<std::string> command;  // the program and its arguments
};

// Runs the group to its end; returns the exit status `ember run` exits with: 0 when every
// rank succeeded, else the first failed rank's status (128 + signal for a killed one).
// Progress messages ("ember run: rank 1 exited with status 3; stopping the others") go to
// `log`; the ranks' output goes to this process's stdout / stderr, prefixed.
int launch(const LaunchOptions& options, std::ostream& log);

}  // namespace ember::distributed
