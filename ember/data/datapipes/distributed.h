// DistributedReadingService's rank agreement over a c10d-style Store (TCPStore from the
// environment, or any Store a job already has): rank 0's epoch seed for everyone, and a
// per-step vote so that ranks whose shards are uneven all stop at the first rank's end.
#pragma once
#include <memory>
#include <string>

#include "ember/data/datapipes/runner.h"

namespace ember::distributed {
class Store;
}

namespace ember::data::datapipes {

class StoreRankSync final : public RankSync {
 public:
  StoreRankSync(std::shared_ptr<distributed::Store> store, int64_t rank, int64_t world_size,
                std::string prefix = "ember/data/");
  // torchrun's env:// rendezvous: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE.
  static std::shared_ptr<StoreRankSync> from_env();
  int64_t rank() const override { return rank_; }
  int64_t world_size() const override { return world_; }
  uint64_t broadcast_seed(int64_t epoch, uint64_t seed) override;
  bool all_have(int64_t epoch, int64_t step, bool mine) override;

 private:
  std::shared_ptr<distributed::Store> store_;
  int64_t rank_, world_;
  std::string prefix_;
};

}  // namespace ember::data::datapipes
