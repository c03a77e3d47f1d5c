// `ember run` (ember/distributed/launcher.h), run as a user runs it: torchrun's environment
// per rank, output prefixed by rank, a failing rank stopping the others with its status,
// --max-restarts, signal forwarding, multi-node rank numbering and usage errors. The ranks
// are /bin/sh one-liners, so the launcher is tested apart from the process groups (which
// tests/distributed/distributed_api_test covers).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_run.h"
#include "test_util.h"

namespace ember_run_test {

using Outcome = ember::test::CliOutcome;
// `ember run <args>`.
Outcome run(const std::string& args) { return ember::test::run_cli("run " + args); }

std::vector<std::string> lines_with(const std::string& text, const std::string& needle) {
  std::vector<std::string> r;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l.find(needle) != std::string::npos) r.push_back(l);
  std::sort(r.begin(), r.end());
  return r;
}

TEST(EmberRun, TorchrunEnvironmentAndPrefixedOutput) {
  const Outcome r = run("--nproc-per-node 3 --master-port 29611 /bin/sh -c "
                        "'echo env $RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE $GROUP_RANK $MASTER_ADDR $MASTER_PORT; "
                        "echo to stderr >&2'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_with(r.output, " env "),
            (std::vector<std::string>{"[rank 0]: env 0 0 3 3 0 127.0.0.1 29611", "[rank 1]: env 1 1 3 3 0 127.0.0.1 29611",
                                      "[rank 2]: env 2 2 3 3 0 127.0.0.1 29611"}));
  EXPECT_EQ(lines_with(r.output, "to stderr").size(), 3u) << r.output;
  // torchrun's OMP_NUM_THREADS=1 for several ranks per node (unless set).
  ::unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(lines_with(run("--nproc-per-node 2 /bin/sh -c 'echo threads $OMP_NUM_THREADS'").output, "threads 1").size(), 2u);
  EXPECT_EQ(lines_with(run("--nproc-per-node 1 /bin/sh -c 'echo threads x$OMP_NUM_THREADS'").output, "threads x").size(), 1u);
  // The second node of two: global ranks 2 and 3.
  const Outcome n = run("--nproc-per-node 2 --nnodes 2 --node-rank 1 --master-addr 10.0.0.1 /bin/sh -c "
                        "'echo env $RANK $LOCAL_RANK $WORLD_SIZE $GROUP_RANK $MASTER_ADDR'");
  EXPECT_EQ(lines_with(n.output, " env "),
            (std::vector<std::string>{"[rank 2]: env 2 0 4 1 10.0.0.1", "[rank 3]: env 3 1 4 1 10.0.0.1"}));
}

TEST(EmberRun, AFailingRankStopsTheOthersWithItsStatus) {
  const auto t0 = std::chrono::steady_clock::now();
  const Outcome r = run("--nproc-per-node 3 /bin/sh -c 'if [ $RANK = 2 ]; then exit 5; fi; sleep 60'");
  EXPECT_EQ(r.status, 5) << r.output;
  EXPECT_NE(r.output.find("rank 2 exited with status 5; stopping the other ranks"), std::string::npos) << r.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30)) << "the sleeping ranks were not stopped";
  EXPECT_EQ(run("--nproc-per-node 1 /no/such/program").status, 127);
}

TEST(EmberRun, MaxRestartsRestartsTheGroup) {
  // Succeeds on the third attempt only.
  const Outcome r = run("--nproc-per-node 2 --max-restarts 2 /bin/sh -c '[ $TORCHELASTIC_RESTART_COUNT = 2 ]'");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_with(r.output, "restarting the group").size(), 2u) << r.output;
  const Outcome fail = run("--nproc-per-node 1 --max-restarts 1 /bin/sh -c 'exit 4'");
  EXPECT_EQ(fail.status, 4) << fail.output;
  EXPECT_EQ(lines_with(fail.output, "restarting the group").size(), 1u) << fail.output;
}

// `ember run --nproc-per-node 2 /bin/sh -c <script>` in the background, its output read here:
// for the tests that signal the launcher while its ranks run.
struct Background {
  pid_t pid = -1;
  int fd = -1;
  std::string text;

  explicit Background(const char* script) : Background(std::vector<std::string>{"--nproc-per-node", "2"}, script) {}
  // `ember run <options> /bin/sh -c <script>`.
  Background(const std::vector<std::string>& options, const char* script) {
    std::vector<std::string> args{EMBER_CLI, "run"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"/bin/sh", "-c", script});
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (::pipe(out) != 0) return;
    pid = ::fork();
    if (pid == 0) {
      // A process group of its own whose parent (this test) is in another one of the session:
      // not orphaned, so SIGTSTP's default action stops it (as under a shell's job control).
      ::setpgid(0, 0);
      ::dup2(out[1], 1);
      ::dup2(out[1], 2);
      ::execv(EMBER_CLI, argv.data());
      ::_exit(127);
    }
    ::close(out[1]);
    fd = out[0];
  }
  // A test that stopped early leaves nothing running: the launcher ends its ranks on SIGTERM.
  ~Background() {
    if (pid > 0 && !finished) {
      ::kill(pid, SIGCONT);
      ::kill(pid, SIGTERM);
      finish();
    }
    if (fd >= 0) ::close(fd);
  }
  // Reads until `n` lines contain `needle`; false at the end of the output first.
  bool read_until(const std::string& needle, size_t n) {
    char buf[1024];
    while (lines_with(text, needle).size() < n) {
      const ssize_t got = ::read(fd, buf, sizeof buf);
      if (got <= 0) return false;
      text.append(buf, size_t(got));
    }
    return true;
  }
  // Reads to the end and returns the launcher's wait status.
  int finish() {
    char buf[1024];
    for (ssize_t got; (got = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, size_t(got));
    int status = 0;
    ::waitpid(pid, &status, 0);
    finished = true;
    return status;
  }
  bool finished = false;
};

TEST(EmberRun, SignalsAreForwardedToTheRanks) {
  Background launcher("trap 'echo got TERM; exit 7' TERM; echo ready; sleep 60 & wait");
  ASSERT_GT(launcher.pid, 0);
  // Wait until both ranks are up, then signal the launcher.
  ASSERT_TRUE(launcher.read_until("ready", 2)) << launcher.text;
  ::kill(launcher.pid, SIGTERM);
  const int status = launcher.finish();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM) << launcher.text;
  EXPECT_EQ(lines_with(launcher.text, "got TERM").size(), 2u) << launcher.text;
}

// A process's state letter from /proc (R, S, T for stopped...), '?' when it is gone.
char state_of(pid_t pid) {
  std::FILE* f = std::fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "r");
  if (!f) return '?';
  int read_pid = 0;
  char comm[256] = {}, state = '?';
  const int n = std::fscanf(f, "%d (%255[^)]) %c", &read_pid, comm, &state);
  std::fclose(f);
  return n == 3 ? state : '?';
}

TEST(EmberRun, CtrlZStopsTheRanksAndFgResumesThemAndSigquitIsForwarded) {
  Background launcher("trap 'echo got QUIT; exit 9' QUIT; echo ready $$; while :; do :; done");
  const pid_t pid = launcher.pid;
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(launcher.read_until("ready", 2)) << launcher.text;
  const std::string& text = launcher.text;
  std::vector<pid_t> ranks;
  for (const std::string& l : lines_with(text, "ready")) ranks.push_back(pid_t(std::stol(l.substr(l.rfind(' ') + 1))));
  auto wait_for = [&](auto&& done) {
    for (int i = 0; i < 200 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return done();
  };
  // Ctrl-Z: the launcher stops, and so do the ranks (the terminal would signal the launcher's
  // process group only). The ranks spin in shell builtins: a rank stopped inside a vfork for
  // an external command would show 'D', not 'T'.
  ::kill(pid, SIGTSTP);
  EXPECT_TRUE(wait_for([&] { return state_of(pid) == 'T'; })) << "the launcher stopped";
  EXPECT_TRUE(wait_for([&] { return state_of(ranks[0]) == 'T' && state_of(ranks[1]) == 'T'; }))
      << "the ranks stopped: " << state_of(ranks[0]) << state_of(ranks[1]);
  // fg: all resume.
  ::kill(pid, SIGCONT);
  EXPECT_TRUE(wait_for([&] { return state_of(ranks[0]) != 'T' && state_of(ranks[1]) != 'T'; }))
      << "the ranks resumed: " << state_of(ranks[0]) << state_of(ranks[1]);
  // SIGQUIT goes on to the ranks, and the launcher ends with it.
  ::kill(pid, SIGQUIT);
  const int status = launcher.finish();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGQUIT) << text;
  EXPECT_EQ(lines_with(text, "got QUIT").size(), 2u) << text;
}

// A port P with P + 1 free too (the ranks' store and the launchers'), found by binding.
int free_port_pair() {
  for (int tries = 0; tries < 50; ++tries) {
    auto bind_to = [](int port) {
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(uint16_t(port));
      if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        return std::pair<int, int>{-1, 0};
      }
      socklen_t len = sizeof a;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
      return std::pair<int, int>{fd, int(ntohs(a.sin_port))};
    };
    const auto [fd0, p] = bind_to(0);
    if (fd0 < 0 || p >= 65535) continue;
    const auto [fd1, q] = bind_to(p + 1);
    ::close(fd0);
    if (fd1 >= 0) {
      ::close(fd1);
      return p;
    }
  }
  return 29641;
}

TEST(EmberRun, NodesRestartTogether) {
  // Two "nodes" (two launchers on this machine): node 1's rank fails in the first attempt while
  // node 0's would wait forever; node 0 stops its rank, both restart, the second attempt
  // succeeds everywhere (Note [Restarts across nodes]).
  const std::string script =
      "'if [ $TORCHELASTIC_RESTART_COUNT = 0 ]; then if [ $GROUP_RANK = 1 ]; then exit 3; fi; sleep 60; fi; "
      "echo attempt $TORCHELASTIC_RESTART_COUNT ok'";
  const int port = free_port_pair();
  auto node = [&](int n, int restarts) {
    return std::async(std::launch::async, [=] {
      return run("--nnodes 2 --node-rank " + std::to_string(n) + " --nproc-per-node 1 --master-port " +
                 std::to_string(port) + " --max-restarts " + std::to_string(restarts) + " /bin/sh -c " + script);
    });
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto a = node(0, 1), b = node(1, 1);
  const Outcome r0 = a.get(), r1 = b.get();
  EXPECT_EQ(r0.status, 0) << r0.output;
  EXPECT_EQ(r1.status, 0) << r1.output;
  EXPECT_NE(r0.output.find("node 1's group failed; stopping the ranks of this node"), std::string::npos) << r0.output;
  EXPECT_EQ(lines_with(r0.output, "attempt 1 ok").size(), 1u) << r0.output;
  EXPECT_EQ(lines_with(r1.output, "attempt 1 ok").size(), 1u) << r1.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(40)) << "node 0's sleeping rank was stopped";
  // Node 1 fails every attempt: out of restarts, both launchers fail (node 1 with its rank's
  // status), node 0 without waiting for its rank's sleep.
  const std::string always = "'if [ $GROUP_RANK = 1 ]; then exit 3; fi; sleep 60'";
  const int port2 = free_port_pair();
  auto fail = [&](int n) {
    return std::async(std::launch::async, [=] {
      return run("--nnodes 2 --node-rank " + std::to_string(n) + " --nproc-per-node 1 --master-port " +
                 std::to_string(port2) + " --max-restarts 1 /bin/sh -c " + always);
    });
  };
  const auto t1 = std::chrono::steady_clock::now();
  auto c = fail(0), d = fail(1);
  const Outcome f0 = c.get(), f1 = d.get();
  EXPECT_EQ(f0.status, 1) << f0.output;
  EXPECT_EQ(f1.status, 3) << f1.output;
  EXPECT_EQ(lines_with(f0.output, "restarting the group").size(), 1u) << f0.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t1, std::chrono::seconds(40));
}

TEST(EmberRun, ASignalToAFinishedNodeStopsEveryNode) {
  // Node 0's rank is done and its launcher waits for node 1's (which sleeps): SIGTERM to node
  // 0's launcher ends it at once, and node 1's launcher stops its rank and ends too.
  const std::string port = std::to_string(free_port_pair());
  std::future<Outcome> other = std::async(std::launch::async, [&] {
    return run("--nnodes 2 --node-rank 1 --nproc-per-node 1 --master-port " + port +
               " --max-restarts 1 /bin/sh -c 'echo started; sleep 60'");
  });
  Background node0({"--nnodes", "2", "--node-rank", "0", "--nproc-per-node", "1", "--master-port", port,
                    "--max-restarts", "1"},
                   "echo done here");
  ASSERT_GT(node0.pid, 0);
  ASSERT_TRUE(node0.read_until("done here", 1)) << node0.text;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // into its wait for node 1
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(node0.pid, SIGTERM);
  const int status = node0.finish();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 128 + SIGTERM) << node0.text;
  const Outcome r1 = other.get();
  EXPECT_NE(r1.status, 0) << r1.output;
  EXPECT_NE(r1.output.find("stopping the ranks of this node"), std::string::npos) << r1.output;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30)) << "node 1's sleeping rank was stopped";
}

// The DDP example (examples/ddp_digits.cpp): two ranks reach the single-process accuracy and
// end with bitwise-identical parameters.
TEST(EmberRun, DdpDigitsExampleMatchesOneProcess) {
  auto accuracy = [](const std::string& out) {
    const size_t at = out.find("held-out accuracy ");
    EXPECT_NE(at, std::string::npos) << out;
    return at == std::string::npos ? 0.0 : std::stod(out.substr(at + 18));
  };
  FILE* pipe = ::popen((std::string(EMBER_DDP_EXAMPLE) + " 2>&1").c_str(), "r");
  std::string single;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) single.append(buf, n);
  EXPECT_EQ(::pclose(pipe), 0) << single;
  const Outcome two = run("--nproc-per-node 2 --master-port 29641 " + std::string(EMBER_DDP_EXAMPLE));
  EXPECT_EQ(two.status, 0) << two.output;
  EXPECT_NE(two.output.find("world 2, held-out accuracy"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find("parameters identical on every rank"), std::string::npos) << two.output;
  EXPECT_GE(accuracy(single), 0.95) << single;
  EXPECT_GE(accuracy(two.output), accuracy(single) - 0.02) << two.output;
}

TEST(EmberRun, UsageErrors) {
  EXPECT_EQ(run("").status, 2);
  EXPECT_EQ(run("--nproc-per-node 0 true").status, 2);
  const Outcome r = run("--nnodes 2 --node-rank 2 true");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("--node-rank 2 is not in [0, 2)"), std::string::npos) << r.output;
}

}  // namespace ember_run_test
