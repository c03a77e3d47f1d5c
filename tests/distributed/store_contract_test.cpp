// The Store contract run against every store (HashStore, FileStore, TCPStore, PrefixStore), and PrefixStore.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ember/distributed/store.h"
#include "store_test_util.h"
#include "test_util.h"

namespace ember::distributed {
namespace {

using namespace std::chrono_literals;
using store_testing::kTestTimeout;
using store_testing::TempDir;

// ---- the Store contract, for every store -----------------------------------------------

// Makes the store under test and further handles onto the same data (a second TCP client,
// a second FileStore on the file, the same HashStore), as other ranks would hold.
class StoreContract : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& kind = GetParam();
    if (kind == "hash") {
      hash_ = std::make_shared<HashStore>();
    } else if (kind == "tcp") {
      master_ = std::make_shared<TCPStore>("127.0.0.1", 0, std::nullopt, true, kTestTimeout);
    } else if (kind == "prefix") {
      hash_ = std::make_shared<HashStore>();
    }
    store_ = handle();
    store_->set_timeout(kTestTimeout);
  }

  std::shared_ptr<Store> handle() {
    const std::string& kind = GetParam();
    if (kind == "hash") return hash_;
    if (kind == "tcp")
      return first_++ ? std::make_shared<TCPStore>("127.0.0.1", master_->port(), std::nullopt, false, kTestTimeout)
                      : std::shared_ptr<Store>(master_);
    if (kind == "file") return std::make_shared<FileStore>(dir_ / "store", -1);
    return std::make_shared<PrefixStore>("job", hash_);
  }

  // `key` quoted as errors name it (a PrefixStore's errors name the full key).
  std::string q(const std::string& key) const { return "'" + (GetParam() == "prefix" ? "job/" + key : key) + "'"; }

  TempDir dir_{"ember-store"};
  std::shared_ptr<HashStore> hash_;
  std::shared_ptr<TCPStore> master_;
  int first_ = 0;
  std::shared_ptr<Store> store_;
};

TEST_P(StoreContract, SetGetBytesAndStrings) {
  store_->set("k", "v");
  EXPECT_EQ(store_->get_to_str("k"), "v");
  std::vector<uint8_t> bin = {0, 255, 10, 0, 7};
  store_->set(std::string("bin\0key", 7), bin);
  EXPECT_EQ(store_->get(std::string("bin\0key", 7)), bin);
  store_->set("empty", std::vector<uint8_t>{});
  EXPECT_TRUE(store_->get("empty").empty());
  store_->set("k", "second");
  EXPECT_EQ(store_->get_to_str("k"), "second");
  // Another handle sees the same data.
  EXPECT_EQ(handle()->get_to_str("k"), "second");
}

TEST_P(StoreContract, GetBlocksUntilAnotherThreadSets) {
  auto peer = handle();
  EXPECT_FALSE(store_->check({"late"}));
  std::jthread setter([&] {
    peer->wait({"getter-started"});
    peer->set("late", "value");
  });
  store_->set("getter-started", "1");
  EXPECT_EQ(store_->get_to_str("late"), "value");
  setter.join();
}

TEST_P(StoreContract, ManyWaitersWokenByOneSet) {
  std::vector<std::shared_ptr<Store>> handles;
  for (int i = 0; i < 4; ++i) handles.push_back(handle());
  std::atomic<int> got{0};
  std::vector<std::jthread> ts;
  for (int i = 0; i < 4; ++i)
    ts.emplace_back([&, i] {
      if (i % 2) {
        if (handles[i]->get_to_str("go") == "now") ++got;
      } else {
        handles[i]->wait({"go"});
        ++got;
      }
    });
  store_->set("go", "now");
  for (auto& t : ts) t.join();
  EXPECT_EQ(got.load(), 4);
}

TEST_P(StoreContract, GetAndWaitTimeOutNamingKeyAndTimeout) {
  store_->set_timeout(50ms);
  EXPECT_EQ(store_->timeout(), 50ms);
  EXPECT_ERROR_WITH(store_->get("missing"), q("missing"));
  EXPECT_ERROR_WITH(store_->get("missing"), "within 50 ms");
  store_->set("a", "1");
  EXPECT_ERROR_WITH(store_->wait({"a", "b"}, 30ms), "(missing: " + q("b") + ")");
  EXPECT_ERROR_WITH(store_->wait({"a", "b"}), "timed out after 50 ms");
  EXPECT_ERROR_WITH(store_->wait({"a"}, -1ms), "timeout must be >= 0");
  store_->wait({"a"}, 30ms);  // present: returns at once
  store_->wait({});
}

TEST_P(StoreContract, AddIsAtomicAcrossThreads) {
  constexpr int kThreads = 6, kAdds = 150;
  std::vector<std::shared_ptr<Store>> handles;
  for (int i = 0; i < kThreads; ++i) handles.push_back(handle());
  std::vector<std::vector<int64_t>> seen(kThreads);
  std::vector<std::jthread> ts;
  for (int i = 0; i < kThreads; ++i)
    ts.emplace_back([&, i] {
      for (int j = 0; j < kAdds; ++j) seen[i].push_back(handles[i]->add("counter", 1));
    });
  for (auto& t : ts) t.join();
  // Every add saw a distinct count: together exactly 1..N.
  std::vector<int64_t> all;
  for (auto& s : seen) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), size_t(kThreads * kAdds));
  for (size_t i = 0; i < all.size(); ++i) ASSERT_EQ(all[i], int64_t(i + 1));
  EXPECT_EQ(store_->get_to_str("counter"), std::to_string(kThreads * kAdds));
}

TEST_P(StoreContract, AddKeepsDecimalCounters) {
  EXPECT_EQ(store_->add("n", 5), 5);  // missing counts as 0
  EXPECT_EQ(store_->add("n", -7), -2);
  EXPECT_EQ(store_->get_to_str("n"), "-2");
  store_->set("m", "41");
  EXPECT_EQ(store_->add("m", 1), 42);
  store_->set("text", "forty");
  EXPECT_ERROR_WITH(store_->add("text", 1), "key " + q("text") + " holds a value that is not a 64-bit integer ('forty')");
  EXPECT_EQ(store_->get_to_str("text"), "forty");  // unchanged
  store_->set("big", std::to_string(INT64_MAX));
  EXPECT_ERROR_WITH(store_->add("big", 1), "overflows int64");
  EXPECT_EQ(store_->add("big", -1), INT64_MAX - 1);
}

TEST_P(StoreContract, CompareSet) {
  // Missing key, empty expected: sets.
  EXPECT_EQ(store_->compare_set("c", "", "first"), "first");
  EXPECT_EQ(store_->get_to_str("c"), "first");
  // Matching: replaces.
  EXPECT_EQ(store_->compare_set("c", "first", "second"), "second");
  // Not matching: returns what is there, changes nothing.
  EXPECT_EQ(store_->compare_set("c", "first", "third"), "second");
  EXPECT_EQ(store_->get_to_str("c"), "second");
  // Missing key, non-empty expected: returns expected and sets nothing (PyTorch's contract).
  EXPECT_EQ(store_->compare_set("absent", "x", "y"), "x");
  EXPECT_FALSE(store_->check({"absent"}));
  // A compare_set that creates a key wakes a waiter.
  auto peer = handle();
  std::jthread waiter([&] { EXPECT_EQ(peer->get_to_str("leader"), "rank3"); });
  EXPECT_EQ(store_->compare_set("leader", "", "rank3"), "rank3");
  EXPECT_EQ(store_->compare_set("leader", "", "rank5"), "rank3");  // someone was first
  waiter.join();
}

TEST_P(StoreContract, DeleteKeyAndNumKeys) {
  EXPECT_EQ(store_->num_keys(), 0);
  store_->set("a", "1");
  store_->set("b", "2");
  store_->add("c", 3);
  EXPECT_EQ(store_->num_keys(), 3);
  EXPECT_TRUE(store_->delete_key("b"));
  EXPECT_FALSE(store_->delete_key("b"));
  EXPECT_FALSE(store_->delete_key("never"));
  EXPECT_EQ(store_->num_keys(), 2);
  EXPECT_TRUE(store_->check({"a", "c"}));
  EXPECT_FALSE(store_->check({"a", "b"}));
  EXPECT_TRUE(store_->check({}));
  store_->set_timeout(30ms);
  EXPECT_ERROR_WITH(store_->get("b"), q("b"));
  store_->set("b", "again");
  EXPECT_EQ(store_->get_to_str("b"), "again");
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreContract, ::testing::Values("hash", "file", "tcp", "prefix"),
                         [](const auto& info) { return info.param; });

// ---- PrefixStore -----------------------------------------------------------------------

TEST(PrefixStore, PrefixesKeysInTheUnderlyingStore) {
  auto base = std::make_shared<HashStore>();
  PrefixStore a("pg0", base), b("pg1", base);
  a.set("rank", "A");
  b.set("rank", "B");
  EXPECT_EQ(base->get_to_str("pg0/rank"), "A");
  EXPECT_EQ(b.get_to_str("rank"), "B");
  EXPECT_EQ(a.add("n", 2), 2);
  EXPECT_EQ(base->get_to_str("pg0/n"), "2");
  EXPECT_FALSE(b.check({"n"}));
  EXPECT_EQ(a.num_keys(), 3);  // the underlying store's count, as in PyTorch
  a.set_timeout(20ms);
  EXPECT_EQ(base->timeout(), 20ms);
  EXPECT_ERROR_WITH(b.wait({"n"}), "'pg1/n'");
  EXPECT_EQ(a.underlying_store(), base);
  EXPECT_ERROR_WITH(PrefixStore("x", nullptr), "underlying store is null");
}

}  // namespace
}  // namespace ember::distributed
