// DataPipes loaders: DataLoader2 with worker threads and processes, distributed reading, make_data_loader.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "datapipes_test_util.h"
#include "ember/core/generator.h"
#include "ember/core/json.h"
#include "ember/data/data.h"
#include "ember/data/datapipes.h"
#include "ember/distributed/store.h"
#include "ember/ops/functions.h"

using namespace ember;
using namespace ember::data;
using namespace ember::data::datapipes;
using ember::test::error_of;
using ember::test::range;
using ember::test::V;

TEST(DataLoaderPipes, WorkersShardEveryElementOnce) {
  for (bool ordered : {true, false}) {
    auto pipe = IterableWrapper(range(1000)).shuffle().sharding_filter().map([](int x) { return x + 1; });
    DataLoader2 loader(pipe, std::make_shared<MultiProcessingReadingService>(3, 2, nullptr, ordered));
    V seen;
    for (int x : loader) seen.push_back(x);
    V sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, range(1000, 1)) << "ordered=" << ordered;
  }
  // In order, a fixed seed gives the same sequence every run, whatever the thread timing.
  auto pipe = IterableWrapper(range(500)).shuffle().sharding_filter().shuffle(20);
  auto run = [&](int64_t workers) {
    DataLoader2 loader(pipe, std::make_shared<MultiProcessingReadingService>(workers));
    loader.seed(123);
    return V(loader.begin(), loader.end());
  };
  auto r1 = run(2), r2 = run(2);
  EXPECT_EQ(r1, r2);
  EXPECT_EQ(r1.size(), 500u);
  // Epochs differ from each other.
  DataLoader2 loader(pipe, std::make_shared<MultiProcessingReadingService>(2));
  loader.seed(123);
  V e1(loader.begin(), loader.end()), e2(loader.begin(), loader.end());
  EXPECT_EQ(e1, r1);
  EXPECT_NE(e1, e2);
}

TEST(DataLoaderPipes, ForgottenShardingIsAnError) {
  auto pipe = IterableWrapper(range(10)).map([](int x) { return x; });
  DataLoader2 loader(pipe, std::make_shared<MultiProcessingReadingService>(2));
  std::string err = error_of([&] { loader.begin(); });
  EXPECT_NE(err.find("has no sharding_filter"), std::string::npos) << err;
  // One worker needs none.
  DataLoader2 one(pipe, std::make_shared<MultiProcessingReadingService>(1));
  EXPECT_EQ(V(one.begin(), one.end()), range(10));
  DataLoader2 in_process(pipe, std::make_shared<InProcessReadingService>());
  EXPECT_EQ(V(in_process.begin(), in_process.end()), range(10));
}

TEST(DataLoaderPipes, WorkerErrorsTimeoutsAndShutdown) {
  auto failing = IterableWrapper(range(100)).sharding_filter().map([](int x) {
    if (x == 37) throw std::runtime_error("cannot decode sample 37");
    return x;
  });
  DataLoader2 loader(failing, std::make_shared<MultiProcessingReadingService>(2));
  std::string err = error_of([&] {
    for (int x : loader) (void)x;
  });
  EXPECT_NE(err.find("DataLoader worker 1 raised an error: cannot decode sample 37"), std::string::npos) << err;

  std::atomic<bool> release{false};
  auto slow = IterableWrapper(range(4)).sharding_filter().map([&](int x) {
    while (x == 2 && !release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return x;
  });
  DataLoader2 timed(slow, std::make_shared<MultiProcessingReadingService>(2, 2, nullptr, true, std::chrono::milliseconds(50)));
  err = error_of([&] {
    for (int x : timed) (void)x;
  });
  EXPECT_NE(err.find("timed out after 50 ms waiting for worker 0"), std::string::npos) << err;
  release = true;

  // Destroying a loader mid-epoch, with workers blocked on full queues, returns promptly.
  {
    DataLoader2 big(IterableWrapper(range(100000)).sharding_filter(), std::make_shared<MultiProcessingReadingService>(2, 1));
    auto it = big.begin();
    ++it;
  }
  // worker_init runs once per worker, in the worker.
  std::atomic<int> inits{0};
  DataLoader2 init(IterableWrapper(range(10)).sharding_filter(),
                   std::make_shared<MultiProcessingReadingService>(2, 2, [&](int64_t id, int64_t n) {
                     EXPECT_EQ(n, 2);
                     inits += int(id) + 1;
                   }));
  EXPECT_EQ(V(init.begin(), init.end()).size(), 10u);
  EXPECT_EQ(inits.load(), 3);
}

TEST(DataLoaderPipes, StateDictResumesWithTheSameRemainingOrder) {
  auto pipe = IterableWrapper(range(300)).shuffle().sharding_filter().map([](int x) { return x * 2; }).batch(4);
  auto rs = std::make_shared<MultiProcessingReadingService>(2);
  DataLoader2 a(pipe, rs);
  a.seed(9);
  std::vector<V> full;
  json::Value state;
  for (auto& b : a) {
    full.push_back(b);
    if (full.size() == 17) state = json::parse(json::dump(a.state_dict()));
  }
  DataLoader2 b(pipe, std::make_shared<MultiProcessingReadingService>(2));
  b.load_state_dict(state);
  std::vector<V> rest(b.begin(), b.end());
  EXPECT_EQ(rest, std::vector<V>(full.begin() + 17, full.end()));
  // The next epoch after the resumed one proceeds normally.
  EXPECT_FALSE(std::vector<V>(b.begin(), b.end()).empty());
  DataLoader2 c(pipe, std::make_shared<MultiProcessingReadingService>(3));
  c.load_state_dict(state);
  std::string err = error_of([&] { c.begin(); });
  EXPECT_NE(err.find("the state has 2 workers, this loader 3"), std::string::npos) << err;
}

namespace {
// Ranks as threads of one process, in step through a shared table (tests the protocol that
// DistributedReadingService runs over a Store).
class LocalRanks {
 public:
  explicit LocalRanks(int64_t world) : world_(world) {}
  class Rank : public RankSync {
   public:
    Rank(LocalRanks* g, int64_t r) : g_(g), r_(r) {}
    int64_t rank() const override { return r_; }
    int64_t world_size() const override { return g_->world_; }
    uint64_t broadcast_seed(int64_t epoch, uint64_t seed) override {
      std::unique_lock<std::mutex> lock(g_->m_);
      if (r_ == 0) g_->seeds_[epoch] = seed;
      g_->cv_.notify_all();
      g_->cv_.wait(lock, [&] { return g_->seeds_.count(epoch) > 0; });
      return g_->seeds_[epoch];
    }
    bool all_have(int64_t epoch, int64_t step, bool mine) override {
      std::unique_lock<std::mutex> lock(g_->m_);
      auto& s = g_->steps_[{epoch, step}];
      s.first += 1;
      s.second += mine;
      g_->cv_.notify_all();
      g_->cv_.wait(lock, [&] { return s.first == g_->world_; });
      return s.second == g_->world_;
    }

   private:
    LocalRanks* g_;
    int64_t r_;
  };
  int64_t world_;
  std::mutex m_;
  std::condition_variable cv_;
  std::map<int64_t, uint64_t> seeds_;
  std::map<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>> steps_;
};
}  // namespace

TEST(DataLoaderPipes, DistributedRanksShardAndEndTogether) {
  // 103 elements over 2 ranks x 2 workers: shards of 26/26/26/25. Every rank must stop at
  // the same step, and nothing appears twice.
  LocalRanks group(2);
  std::vector<V> got(2);
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      auto pipe = IterableWrapper(range(103)).shuffle().sharding_filter();
      auto rs = std::make_shared<SequentialReadingService>(std::vector<std::shared_ptr<ReadingServiceInterface>>{
          std::make_shared<DistributedReadingService>(std::make_shared<LocalRanks::Rank>(&group, r)),
          std::make_shared<MultiProcessingReadingService>(2)});
      DataLoader2 loader(pipe, rs);
      manual_seed(uint64_t(r) + 100);  // different local generators: rank 0's seed must win
      for (int x : loader) got[size_t(r)].push_back(x);
    });
  }
  for (auto& t : ranks) t.join();
  EXPECT_EQ(got[0].size(), got[1].size());
  std::set<int> all(got[0].begin(), got[0].end());
  for (int x : got[1]) EXPECT_TRUE(all.insert(x).second) << x << " appeared on both ranks";
  EXPECT_GE(all.size(), 100u);
}

TEST(DataLoaderPipes, MakeDataLoaderTakesPipes) {
  auto pipe = IterableWrapper(range(10)).sharding_filter();
  auto loader = make_data_loader(pipe, DataLoaderOptions().batch_size(4).workers(2));
  std::vector<V> batches;
  for (auto& b : *loader) batches.push_back(b);
  // Each worker batches its own shard (PyTorch's rule for iterable datasets), in order.
  EXPECT_EQ(batches, (std::vector<V>{{0, 2, 4, 6}, {1, 3, 5, 7}, {8}, {9}}));
  auto dropped = make_data_loader(pipe, DataLoaderOptions().batch_size(4).drop_last(true));
  EXPECT_EQ(std::vector<V>(dropped->begin(), dropped->end()), (std::vector<V>{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  std::string err = error_of([&] { make_data_loader(pipe, DataLoaderOptions().batch_size(0)); });
  EXPECT_NE(err.find("batch_size must be positive"), std::string::npos) << err;

  // A map-style pipe goes through LibTorch's loader with a sampler.
  auto map = SequenceWrapper(range(10)).map([](int x) { return x * 10; });
  auto seq = make_data_loader<samplers::SequentialSampler>(map, DataLoaderOptions().batch_size(3));
  std::vector<V> mb;
  for (auto& b : *seq) mb.push_back(b);
  EXPECT_EQ(mb, (std::vector<V>{{0, 10, 20}, {30, 40, 50}, {60, 70, 80}, {90}}));
  auto shuffled = make_data_loader(map, DataLoaderOptions().batch_size(5).workers(2));
  V all;
  for (auto& b : *shuffled) all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (V{0, 10, 20, 30, 40, 50, 60, 70, 80, 90}));
}

TEST(DataLoaderPipes, WorkerProcessesIsolateCrashes) {
  auto rs = [](int64_t n) {
    return std::make_shared<MultiProcessingReadingService>(n, 2, nullptr, true, std::nullopt, /*worker_processes=*/true);
  };
  // Elements of every encodable kind come back intact, in the same order as with threads.
  auto pipe = IterableWrapper(range(40)).shuffle().sharding_filter().map([](int x) {
    return std::make_tuple(x, std::string(size_t(x % 5), 'a'), full({2, 3}, Scalar(double(x)), kFloat),
                           std::map<std::string, std::vector<double>>{{"v", {x * 0.5}}});
  });
  DataLoader2 procs(pipe, rs(2));
  procs.seed(5);
  DataLoader2 threads(pipe, std::make_shared<MultiProcessingReadingService>(2));
  threads.seed(5);
  std::vector<int> order_p, order_t;
  for (auto& [x, s, t, m] : procs) {
    order_p.push_back(x);
    EXPECT_EQ(s.size(), size_t(x % 5));
    EXPECT_EQ(t.sizes(), (IntArrayRef{2, 3}));
    EXPECT_EQ(t.sum().item<float>(), 6.0f * float(x));
    EXPECT_EQ(m.at("v")[0], x * 0.5);
  }
  for (auto& e : threads) order_t.push_back(std::get<0>(e));
  EXPECT_EQ(order_p, order_t);
  EXPECT_EQ(order_p.size(), 40u);

  // A worker that crashes (here: aborts) is reported, naming the signal; the loader lives on.
  auto crashing = IterableWrapper(range(20)).sharding_filter().map([](int x) {
    if (x == 7) std::abort();
    return x;
  });
  DataLoader2 crash(crashing, rs(2));
  std::string err = error_of([&] {
    for (int x : crash) (void)x;
  });
  EXPECT_NE(err.find("worker process 1 ended without finishing its epoch: it was killed by signal 6"), std::string::npos) << err;
  // An exception in a worker process arrives with its message.
  auto throwing = IterableWrapper(range(20)).sharding_filter().map([](int x) {
    if (x == 4) throw std::runtime_error("bad record 4");
    return x;
  });
  DataLoader2 thrower(throwing, rs(2));
  err = error_of([&] {
    for (int x : thrower) (void)x;
  });
  EXPECT_NE(err.find("DataLoader worker 0 raised an error: bad record 4"), std::string::npos) << err;
  // Abandoning an epoch kills the processes without hanging; checkpoints resume as with threads.
  DataLoader2 big(IterableWrapper(range(100000)).sharding_filter(), rs(2));
  auto it = big.begin();
  ++it;
  auto state = big.state_dict();
  DataLoader2 again(IterableWrapper(range(100000)).sharding_filter(), rs(2));
  again.load_state_dict(state);
  EXPECT_EQ(*again.begin(), 2);
}

TEST(DataLoaderPipes, DistributedOverTCPStore) {
  // Two ranks (threads here; the protocol is the same across processes) meet through a
  // real TCPStore: uneven shards end together, rank 0's seed wins, nothing is duplicated.
  auto master = std::make_shared<distributed::TCPStore>("127.0.0.1", 0, 2, true, std::chrono::seconds(30), /*wait_for_workers=*/false);
  uint16_t port = master->port();
  std::vector<V> got(2);
  std::vector<std::thread> ranks;
  for (int64_t r = 0; r < 2; ++r) {
    ranks.emplace_back([&, r] {
      std::shared_ptr<distributed::Store> store = master;
      if (r == 1) store = std::make_shared<distributed::TCPStore>("127.0.0.1", port, 2, false);
      auto pipe = IterableWrapper(range(51)).shuffle().sharding_filter().batch(5);
      DataLoader2 loader(pipe, std::make_shared<DistributedReadingService>(store, r, 2));
      loader.seed(uint64_t(r) + 7);  // different per rank: rank 0's must be used by both
      for (int e = 0; e < 2; ++e)
        for (auto& b : loader) got[size_t(r)].insert(got[size_t(r)].end(), b.begin(), b.end());
    });
  }
  for (auto& t : ranks) t.join();
  // Shards of 26 and 25 in batches of 5: 6 and 5 batches; both ranks stop after 5.
  EXPECT_EQ(got[0].size(), 50u);  // 2 epochs x 5 batches x 5
  EXPECT_EQ(got[1].size(), 50u);
  std::set<int> epoch0(got[0].begin(), got[0].begin() + 25);
  for (size_t i = 0; i < 25; ++i) EXPECT_TRUE(epoch0.insert(got[1][i]).second) << got[1][i] << " on both ranks";
  EXPECT_EQ(master->num_keys(), 2);  // per-step keys cleaned up; each rank's loader counter stays
  // make_data_loader shards across ranks too when given the rank group.
  std::vector<V> loaded(2);
  std::vector<std::thread> loaders;
  for (int64_t r = 0; r < 2; ++r) {
    loaders.emplace_back([&, r] {
      std::shared_ptr<distributed::Store> store = master;
      if (r == 1) store = std::make_shared<distributed::TCPStore>("127.0.0.1", port, 2, false);
      auto loader = make_data_loader(IterableWrapper(range(40)).sharding_filter(), DataLoaderOptions().batch_size(4),
                                     std::make_shared<StoreRankSync>(store, r, 2, "mdl/"));
      for (auto& b : *loader) loaded[size_t(r)].insert(loaded[size_t(r)].end(), b.begin(), b.end());
    });
  }
  for (auto& t : loaders) t.join();
  EXPECT_EQ(loaded[0], (V{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38}));
  EXPECT_EQ(loaded[1], (V{1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, 39}));
  std::string err = error_of([&] { DistributedReadingService(master, 2, 2); });
  EXPECT_NE(err.find("expected 0 <= rank < world_size, got rank 2 of 2"), std::string::npos) << err;
}

// Review fixes: each of these hung, raced, leaked data or lost elements before.
TEST(DataPipesReview, ShutdownMidEpochInvalidatesInsteadOfHanging) {
  DataLoader2 loader(IterableWrapper(range(1000)).sharding_filter(), std::make_shared<MultiProcessingReadingService>(2));
  auto it = loader.begin();
  ++it;
  loader.shutdown();
  std::string err = error_of([&] { ++it; });
  EXPECT_NE(err.find("invalidated"), std::string::npos) << err;
  EXPECT_EQ(V(loader.begin(), loader.end()).size(), 1000u);  // and it starts again
}

TEST(DataPipesReview, WorkersKeepTheirGraphAcrossEpochs) {
  std::atomic<int> reads{0};
  auto pipe = IterableWrapper(range(100)).sharding_filter().map([&](int x) {
    ++reads;
    return x;
  }).in_memory_cache();
  DataLoader2 loader(pipe, std::make_shared<MultiProcessingReadingService>(2));
  for (int e = 0; e < 3; ++e) EXPECT_EQ(V(loader.begin(), loader.end()).size(), 100u);
  EXPECT_EQ(reads.load(), 100);  // epochs 2 and 3 came from each worker's cache
}
