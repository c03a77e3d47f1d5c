// The `ember run` launcher (launcher.h).
#include "ember/distributed/launcher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/distributed/store.h"

namespace ember::distributed {

namespace {

using Clock = std::chrono::steady_clock;

int signal_pipe[2] = {-1, -1};

// The signals the launcher passes on to the ranks and then ends with (torchrun's: SIGINT,
// SIGTERM, SIGHUP, SIGQUIT), and the job-control ones it passes on without ending: a terminal's
// Ctrl-Z (SIGTSTP) stops the ranks too (they are in process groups of their own, which the
// terminal does not signal), and `fg` / `bg` (SIGCONT) resumes them.
constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kJobControl[] = {SIGTSTP, SIGCONT};

void on_signal(int sig) {
  const unsigned char s = static_cast<unsigned char>(sig);
  const int saved = errno;
  (void)!::write(signal_pipe[1], &s, 1);
  errno = saved;
}

// One rank's process and its two output streams.
struct Child {
  int rank = 0, local_rank = 0;
  pid_t pid = -1;
  int out = -1, err = -1;  // read ends; -1 once at EOF
  std::string out_line, err_line;
  bool exited = false;
  int status = 0;  // the `ember run` status of this rank: code, or 128 + signal
};

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

void write_all(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += size_t(n);
  }
}

// Appends what fd holds to `line`, writing every complete line prefixed to `dest`. Closes fd
// (and flushes the rest) at EOF.
void drain(int& fd, std::string& line, int dest, int rank) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return;  // EAGAIN: nothing more now
    const std::string prefix = "[rank " + std::to_string(rank) + "]: ";
    if (n == 0) {
      if (!line.empty()) write_all(dest, prefix + line + "\n");
      line.clear();
      ::close(fd);
      fd = -1;
      return;
    }
    line.append(buf, size_t(n));
    size_t start = 0, nl;
    std::string out;
    while ((nl = line.find('\n', start)) != std::string::npos) {
      out += prefix;
      out.append(line, start, nl - start + 1);
      start = nl + 1;
    }
    line.erase(0, start);
    if (!out.empty()) write_all(dest, out);
  }
}

// Forks one rank with torchrun's environment; its stdout / stderr go to pipes.
Child spawn(const LaunchOptions& o, int local_rank, int restart) {
  Child c;
  c.local_rank = local_rank;
  c.rank = o.node_rank * o.nproc_per_node + local_rank;
  int out[2], err[2];
  EMBER_CHECK(::pipe2(out, O_CLOEXEC) == 0, "ember run: pipe failed: ", std::strerror(errno));
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]), ::close(out[1]);
    EMBER_CHECK(false, "ember run: pipe failed: ", std::strerror(errno));
  }
  // The forwarded signals stay blocked across fork until the child has dropped the
  // launcher's handler: one arriving in between must not run it in the child (where it would
  // write to the launcher's signal pipe, as if the launcher had been signalled).
  sigset_t forwarded, old_mask;
  ::sigemptyset(&forwarded);
  for (int sig : kForwarded) ::sigaddset(&forwarded, sig);
  for (int sig : kJobControl) ::sigaddset(&forwarded, sig);
  ::sigprocmask(SIG_BLOCK, &forwarded, &old_mask);
  const pid_t pid = ::fork();
  if (pid != 0) ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  if (pid < 0) {
    const int e = errno;
    for (int fd : {out[0], out[1], err[0], err[1]}) ::close(fd);
    EMBER_CHECK(false, "ember run: fork failed: ", std::strerror(e));
  }
  if (pid == 0) {
    for (int sig : kForwarded) ::signal(sig, SIG_DFL);
    for (int sig : kJobControl) ::signal(sig, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    ::close(signal_pipe[0]);
    ::close(signal_pipe[1]);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::setpgid(0, 0);  // a process group per rank: stopping a rank stops what it started
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    auto set = [](const char* k, const std::string& v) { ::setenv(k, v.c_str(), 1); };
    set("RANK", std::to_string(c.rank));
    set("LOCAL_RANK", std::to_string(local_rank));
    set("GROUP_RANK", std::to_string(o.node_rank));
    set("WORLD_SIZE", std::to_string(o.nnodes * o.nproc_per_node));
    set("LOCAL_WORLD_SIZE", std::to_string(o.nproc_per_node));
    set("MASTER_ADDR", o.master_addr);
    set("MASTER_PORT", std::to_string(o.master_port));
    set("TORCHELASTIC_RESTART_COUNT", std::to_string(restart));
    set("TORCHELASTIC_MAX_RESTARTS", std::to_string(o.max_restarts));
    // As torchrun: several ranks on one node share its cores, one thread each unless told.
    if (o.nproc_per_node > 1 && !std::getenv("OMP_NUM_THREADS")) set("OMP_NUM_THREADS", "1");
    std::vector<char*> argv;
    for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    std::fprintf(stderr, "ember run: cannot run '%s': %s\n", argv[0], std::strerror(errno));
    std::fflush(stderr);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: no race with the first signal
  ::close(out[1]);
  ::close(err[1]);
  c.pid = pid;
  c.out = out[0], c.err = err[0];
  set_nonblocking(c.out);
  set_nonblocking(c.err);
  return c;
}

int status_of(int wstatus) {
  if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
  return 1;
}

struct Outcome {
  int status = 0;  // 0, or the first failed rank's status
  int failed_rank = -1;
  bool interrupted = false;  // the launcher itself got a signal
  int signal = 0;
  bool other_node_failed = false;
};

// Note [Restarts across nodes]
// With several nodes and --max-restarts, the nodes' launchers restart together, as torchrun's
// agents do: a rank that fails on any node fails the attempt everywhere (each launcher stops
// its ranks), and every node checks in before the next attempt starts, so no rank meets a
// leftover of the last one. They meet in a TCPStore of their own, served by node 0's launcher
// at MASTER_PORT + 1 (the ranks' store is at MASTER_PORT). A node that succeeded waits for the
// others before it ends: a node failing later still restarts everyone. Node 0's launcher,
// which serves the store, leaves last.
class NodeSync {
 public:
  NodeSync(const LaunchOptions& o)
      : node_(o.node_rank), nnodes_(o.nnodes), timeout_(o.node_timeout),
        store_(std::make_shared<TCPStore>(o.master_addr, uint16_t(o.master_port + 1), o.nnodes, o.node_rank == 0,
                                          o.node_timeout, /*wait_for_workers=*/true)) {}

  // How a wait among the nodes ended: done, a signal to this launcher, another launcher
  // stopped by one, or the node timeout.
  struct Waited {
    bool ok = false;
    int signal = 0;
    bool stopped = false;
  };
  // Polls `done` until it holds, watching this launcher's signals and the others' stops (no
  // ranks run meanwhile: job-control signals are ignored here).
  Waited wait_until(const std::function<bool()>& done) {
    const auto until = Clock::now() + timeout_;
    for (;;) {
      if (done()) return {true, 0, false};
      unsigned char sig;
      while (::read(signal_pipe[0], &sig, 1) == 1)
        if (sig != SIGTSTP && sig != SIGCONT) return {false, sig, false};
      if (stopped()) return {false, 0, true};
      if (Clock::now() >= until) return {};
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  // Every node is ready for attempt k (its ranks of attempt k - 1 are gone).
  Waited join(int attempt) {
    const std::string base = "ember_run/join/" + std::to_string(attempt) + "/";
    store_->set(base + std::to_string(node_), "1");
    std::vector<std::string> keys;
    for (int n = 0; n < nnodes_; ++n) keys.push_back(base + std::to_string(n));
    return wait_until([&] { return store_->check(keys); });
  }
  void report_failure(int attempt) { store_->set(failed_key(attempt), std::to_string(node_)); }
  // The node whose group failed in this attempt, or -1.
  int failed_node(int attempt) {
    if (!store_->check({failed_key(attempt)})) return -1;
    return std::atoi(store_->get_to_str(failed_key(attempt)).c_str());
  }
  // A launcher ended by a signal: the others stop their ranks and do not restart.
  void report_stop() { store_->set("ember_run/stopped", std::to_string(node_)); }
  bool stopped() { return store_->check({"ember_run/stopped"}); }
  // This node's ranks succeeded; waits for the others (or a failure among them).
  Waited done(int attempt) {
    const std::string key = "ember_run/done/" + std::to_string(attempt);
    store_->add(key, 1);
    return wait_until([&] { return store_->add(key, 0) >= nnodes_ || failed_node(attempt) >= 0; });
  }
  // The end: node 0 (serving the store) waits for the others to leave. Never throws.
  void leave() noexcept {
    try {
      store_->add("ember_run/left", 1);
      if (node_ == 0) (void)wait_until([&] { return store_->add("ember_run/left", 0) >= nnodes_; });
    } catch (const std::exception&) {
    }
  }
  int nnodes() const { return nnodes_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  static std::string failed_key(int attempt) { return "ember_run/failed/" + std::to_string(attempt); }
  int node_, nnodes_;
  std::chrono::milliseconds timeout_;
  std::shared_ptr<TCPStore> store_;
};

// Runs one attempt of the whole group to its end.
Outcome run_group(const LaunchOptions& o, int restart, std::ostream& log, NodeSync* nodes) {
  std::vector<Child> kids;
  try {
    for (int l = 0; l < o.nproc_per_node; ++l) kids.push_back(spawn(o, l, restart));
  } catch (...) {
    // A rank that cannot be started: the ones already running must not be left behind.
    for (Child& c : kids) {
      ::kill(-c.pid, SIGKILL);
      ::waitpid(c.pid, nullptr, 0);
      ::close(c.out), ::close(c.err);
    }
    throw;
  }
  Outcome result;
  bool stopping = false;
  Clock::time_point kill_at{};
  Clock::time_point next_node_check{};
  // Signals go to each rank's process group (the rank and whatever it started).
  auto stop_others = [&](int sig) {
    for (Child& c : kids)
      if (!c.exited) ::kill(-c.pid, sig);
  };
  for (;;) {
    std::vector<pollfd> fds;
    fds.push_back({signal_pipe[0], POLLIN, 0});
    for (const Child& c : kids) {
      if (c.out >= 0) fds.push_back({c.out, POLLIN, 0});
      if (c.err >= 0) fds.push_back({c.err, POLLIN, 0});
    }
    ::poll(fds.data(), nfds_t(fds.size()), 50);
    // Signals to the launcher: forwarded to every rank; no restart afterwards. Job control is
    // passed on: the ranks stop, then the launcher (it resumes here, and SIGCONT follows).
    unsigned char s;
    while (::read(signal_pipe[0], &s, 1) == 1) {
      if (s == SIGTSTP) {
        // The ranks stop, then the launcher by SIGTSTP's default action (which the kernel
        // discards in an orphaned process group: nobody could resume it there), then the ranks
        // resume with it; a pending SIGTERM-to-SIGKILL grace does not run while stopped.
        log << "ember run: suspended; stopping the ranks too" << std::endl;
        stop_others(SIGSTOP);
        const Clock::time_point stopped_at = Clock::now();
        struct sigaction dfl {}, mine {};
        dfl.sa_handler = SIG_DFL;
        ::sigemptyset(&dfl.sa_mask);
        ::sigaction(SIGTSTP, &dfl, &mine);
        ::raise(SIGTSTP);
        ::sigaction(SIGTSTP, &mine, nullptr);
        stop_others(SIGCONT);
        if (stopping && kill_at != Clock::time_point::max()) kill_at += Clock::now() - stopped_at;
        continue;
      }
      if (s == SIGCONT) {
        stop_others(SIGCONT);
        continue;
      }
      result.interrupted = true;
      result.signal = s;
      log << "ember run: received signal " << int(s) << "; forwarding it to the ranks" << std::endl;
      stop_others(s);
      if (!stopping) stopping = true, kill_at = Clock::now() + o.kill_grace;
    }
    for (Child& c : kids) {
      if (c.out >= 0) drain(c.out, c.out_line, 1, c.rank);
      if (c.err >= 0) drain(c.err, c.err_line, 2, c.rank);
    }
    for (Child& c : kids) {
      if (c.exited) continue;
      int ws = 0;
      if (::waitpid(c.pid, &ws, WNOHANG) != c.pid) continue;
      c.exited = true;
      c.status = status_of(ws);
      if (c.status != 0 && result.failed_rank < 0 && !(stopping && result.interrupted)) {
        if (!stopping) {
          result.status = c.status, result.failed_rank = c.rank;
          if (nodes) {
            try {
              nodes->report_failure(restart);  // the other nodes stop at once, not after this one's grace
            } catch (const std::exception&) {
            }
          }
          log << "ember run: rank " << c.rank << " exited with status " << c.status << "; stopping the other ranks"
              << std::endl;
          stopping = true;
          kill_at = Clock::now() + o.kill_grace;
          stop_others(SIGTERM);
        }
      }
    }
    // Another node's group failed in this attempt: this one stops too.
    if (nodes && !stopping && Clock::now() >= next_node_check) {
      next_node_check = Clock::now() + std::chrono::milliseconds(100);
      int failed = -1;
      bool others_stopped = false;
      try {
        failed = nodes->failed_node(restart);
        others_stopped = nodes->stopped();
      } catch (const std::exception& e) {
        // The nodes' store is gone (node 0's launcher died): no coordinated restart is possible.
        log << "ember run: lost the other nodes (" << e.what() << "); stopping the ranks of this node" << std::endl;
        others_stopped = true;
      }
      if (others_stopped) {
        log << "ember run: another node's launcher was stopped by a signal; stopping the ranks of this node"
            << std::endl;
        result.interrupted = true;
        if (result.status == 0) result.status = 1;
        stopping = true;
        kill_at = Clock::now() + o.kill_grace;
        stop_others(SIGTERM);
      } else if (failed >= 0 && failed != o.node_rank) {
        log << "ember run: node " << failed << "'s group failed; stopping the ranks of this node" << std::endl;
        result.other_node_failed = true;
        if (result.status == 0) result.status = 1;
        stopping = true;
        kill_at = Clock::now() + o.kill_grace;
        stop_others(SIGTERM);
      }
    }
    if (stopping && Clock::now() >= kill_at) {
      stop_others(SIGKILL);
      kill_at = Clock::time_point::max();
    }
    bool all_exited = true;
    for (const Child& c : kids) all_exited = all_exited && c.exited;
    if (all_exited) {
      // What the ranks wrote is in the pipes; a process a rank left behind may hold them
      // open, so take what is there and stop reading (and stop such leftovers).
      for (Child& c : kids) {
        ::kill(-c.pid, SIGKILL);
        for (int* fd : {&c.out, &c.err}) {
          if (*fd < 0) continue;
          drain(*fd, fd == &c.out ? c.out_line : c.err_line, fd == &c.out ? 1 : 2, c.rank);
          if (*fd >= 0) {
            std::string& line = fd == &c.out ? c.out_line : c.err_line;
            if (!line.empty()) write_all(fd == &c.out ? 1 : 2, "[rank " + std::to_string(c.rank) + "]: " + line + "\n");
            line.clear();
            ::close(*fd);
            *fd = -1;
          }
        }
      }
      break;
    }
  }
  if (result.interrupted && result.status == 0) result.status = 128 + result.signal;
  return result;
}

}  // namespace

int launch(const LaunchOptions& o, std::ostream& log) {
  EMBER_CHECK(!o.command.empty(), "ember run: expected a program to run");
  EMBER_CHECK(o.nproc_per_node >= 1, "ember run: --nproc-per-node must be at least 1, got ", o.nproc_per_node);
  EMBER_CHECK(o.nnodes >= 1, "ember run: --nnodes must be at least 1, got ", o.nnodes);
  EMBER_CHECK(o.node_rank >= 0 && o.node_rank < o.nnodes, "ember run: --node-rank ", o.node_rank, " is not in [0, ",
              o.nnodes, ")");
  EMBER_CHECK(o.master_port > 0 && o.master_port < 65536, "ember run: --master-port ", o.master_port,
              " is not a TCP port");
  EMBER_CHECK(o.max_restarts >= 0, "ember run: --max-restarts must not be negative");
  EMBER_CHECK(::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) == 0, "ember run: pipe failed");
  // The launcher's handlers (forwarding), restored on every way out; SIGPIPE ignored so that a
  // closed reader of the ranks' output (`ember run ... | head`) does not kill the launcher.
  struct Handlers {
    std::vector<std::pair<int, struct sigaction>> old;
    Handlers() {
      struct sigaction sa {}, ign{};
      sa.sa_handler = on_signal;
      sa.sa_flags = SA_RESTART;
      ::sigemptyset(&sa.sa_mask);
      ign.sa_handler = SIG_IGN;
      ::sigemptyset(&ign.sa_mask);
      auto install = [&](int sig, const struct sigaction& act) {
        old.emplace_back();
        old.back().first = sig;
        ::sigaction(sig, &act, &old.back().second);
      };
      for (int sig : kForwarded) install(sig, sa);
      for (int sig : kJobControl) install(sig, sa);
      install(SIGPIPE, ign);
    }
    ~Handlers() {
      for (const auto& [sig, act] : old) ::sigaction(sig, &act, nullptr);
      ::close(signal_pipe[0]);
      ::close(signal_pipe[1]);
      signal_pipe[0] = signal_pipe[1] = -1;
    }
  } handlers;
  std::unique_ptr<NodeSync> nodes;
  if (o.nnodes > 1 && o.max_restarts > 0) {
    EMBER_CHECK(o.master_port < 65535, "ember run: with several nodes and --max-restarts the launchers meet at "
                "--master-port + 1, which must be a TCP port too (got ", o.master_port, ")");
    nodes = std::make_unique<NodeSync>(o);
  }
  Outcome r;
  // A wait among the nodes that did not end well ends the job (no restart).
  auto end_by = [&](const NodeSync::Waited& w, const char* waiting_for) {
    r.interrupted = true;
    if (w.signal) {
      r.status = 128 + w.signal;
      log << "ember run: received signal " << w.signal << " while waiting for " << waiting_for << std::endl;
      try {
        nodes->report_stop();
      } catch (const std::exception&) {
      }
    } else {
      r.status = 1;
      log << "ember run: " << (w.stopped ? "another node's launcher was stopped" : "the other nodes did not answer")
          << " while waiting for " << waiting_for
          << (w.stopped ? "" : " within " + std::to_string(nodes->timeout().count()) + " ms") << std::endl;
    }
  };
  for (int attempt = 0;; ++attempt) {
    if (nodes) {
      const NodeSync::Waited w = nodes->join(attempt);
      if (!w.ok) {
        end_by(w, "the nodes to start an attempt");
        break;
      }
    }
    r = run_group(o, attempt, log, nodes.get());
    if (nodes && r.interrupted && r.signal != 0) nodes->report_stop();
    if (nodes && !r.interrupted) {
      if (r.status != 0 && !r.other_node_failed) nodes->report_failure(attempt);
      if (r.status == 0) {
        // Done here: wait for the other nodes, one of which may still fail this attempt.
        const NodeSync::Waited w = nodes->done(attempt);
        if (!w.ok) {
          end_by(w, "the other nodes to finish");
          break;
        }
        const int failed = nodes->failed_node(attempt);
        if (failed >= 0) {
          log << "ember run: node " << failed << "'s group failed" << std::endl;
          r.status = 1, r.other_node_failed = true;
        }
      }
    }
    if (r.status == 0 || r.interrupted || attempt >= o.max_restarts) break;
    log << "ember run: restarting the group (restart " << attempt + 1 << " of " << o.max_restarts << ")" << std::endl;
  }
  if (nodes) nodes->leave();
  return r.status;
}

}  // namespace ember::distributed
