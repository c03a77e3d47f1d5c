#include "ember/data/datapipes/distributed.h"

#include "ember/distributed/store.h"

namespace ember::data::datapipes {

StoreRankSync::StoreRankSync(std::shared_ptr<distributed::Store> store, int64_t rank, int64_t world_size,
                             std::string prefix)
    : store_(std::move(store)), rank_(rank), world_(world_size), prefix_(std::move(prefix)) {
  // Loaders sharing a store must not share keys: the n-th rank group each rank makes on a
  // store gets the n-th namespace (ranks make their loaders in the same order). One
  // counter key per rank stays in the store.
  const int64_t n = store_->add(prefix_ + "groups/" + std::to_string(rank_), 1);
  prefix_ += std::to_string(n) + "/";
  EMBER_CHECK(store_, "DistributedReadingService: null store");
  EMBER_CHECK(world_size >= 1 && rank >= 0 && rank < world_size,
              "DistributedReadingService: expected 0 <= rank < world_size, got rank ", rank, " of ", world_size);
}

std::shared_ptr<StoreRankSync> StoreRankSync::from_env() {
  auto env = distributed::rendezvous_env();
  return std::make_shared<StoreRankSync>(distributed::store_from_env(), env.rank, env.world_size);
}

uint64_t StoreRankSync::broadcast_seed(int64_t epoch, uint64_t seed) {
  std::string key = prefix_ + "seed/" + std::to_string(epoch);
  if (rank_ == 0) store_->set(key, std::to_string(seed));
  std::string got = store_->get_to_str(key);
  char* end = nullptr;
  uint64_t v = std::strtoull(got.c_str(), &end, 10);
  EMBER_CHECK(!got.empty() && *end == 0, "DistributedReadingService: bad seed '", got, "' in the store");
  // The last rank to read removes the key.
  if (store_->add(key + "/read", 1) == world_) {
    store_->delete_key(key);
    store_->delete_key(key + "/read");
  }
  return v;
}

bool StoreRankSync::all_have(int64_t epoch, int64_t step, bool mine) {
  if (world_ == 1) return mine;
  std::string p = prefix_ + std::to_string(epoch) + "/" + std::to_string(step) + "/";
  store_->add(p + "have", mine ? 1 : 0);
  if (store_->add(p + "arrived", 1) == world_) store_->set(p + "done", std::to_string(store_->add(p + "have", 0)));
  bool all = store_->get_to_str(p + "done") == std::to_string(world_);
  if (store_->add(p + "read", 1) == world_) {
    for (const char* k : {"have", "arrived", "done", "read"}) store_->delete_key(p + k);
  }
  return all;
}

}  // namespace ember::data::datapipes
