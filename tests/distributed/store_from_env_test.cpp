// The env:// helpers (rendezvous_env, store_from_env): the variables they check, forked ranks meeting at rank 0.
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ember/distributed/store.h"
#include "store_test_util.h"
#include "test_util.h"

namespace ember::distributed {
namespace {

using store_testing::bound_socket;
using store_testing::expect_children_succeed;
using store_testing::fork_child;
using store_testing::kTestTimeout;
using store_testing::rendezvous;

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
