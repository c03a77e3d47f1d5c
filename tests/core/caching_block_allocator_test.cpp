// The stream-ordered caching block allocator (the CUDA allocator's logic) against a fake
// device: host memory with a capacity limit, every device allocation and free counted, and
// events the test completes by hand. Checks rounding and pools, steady state without device
// allocations, best fit, splitting and merging back into whole segments, stream ordering and
// record_stream, empty_cache, the retry and the out-of-memory error, and the statistics.
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "ember/core/caching_block_allocator.h"
#include "test_util.h"

namespace ember::test {
namespace {

using CBA = CachingBlockAllocator;
constexpr size_t kMiB = size_t(1) << 20;

class FakeDevice final : public BlockBackend {
 public:
  explicit FakeDevice(size_t capacity) : capacity_(capacity) {}
  ~FakeDevice() override {
    for (auto& [p, n] : live_) std::free(p);
    for (auto* e : events_) delete e;
  }
  void* alloc(size_t bytes) override {
    if (used_ + bytes > capacity_) return nullptr;
    void* p = std::aligned_alloc(512, bytes);
    live_[p] = bytes;
    used_ += bytes;
    ++allocs;
    return p;
  }
  void free(void* p) override {
    auto it = live_.find(p);
    ASSERT_TRUE(it != live_.end()) << "free of a pointer the device did not allocate";
    used_ -= it->second;
    live_.erase(it);
    std::free(p);
    ++frees;
  }
  struct FakeEvent {
    Stream stream;
    bool done = false;
  };
  Event record(Stream s) override {
    auto* e = new FakeEvent{s};
    events_.insert(e);
    return e;
  }
  bool done(Event e) override { return static_cast<FakeEvent*>(e)->done; }
  void wait(Event e) override {
    static_cast<FakeEvent*>(e)->done = true;
    ++waits;
  }
  void destroy(Event e) override {
    events_.erase(static_cast<FakeEvent*>(e));
    delete static_cast<FakeEvent*>(e);
  }
  std::string describe() override { return "fake device; " + std::to_string(capacity_ >> 20) + " MiB total capacity"; }
  // Completes every event recorded on `s` (the stream's work finished).
  void finish(Stream s) {
    for (auto* e : events_)
      if (e->stream == s) e->done = true;
  }
  size_t pending_events() const { return events_.size(); }
  size_t used() const { return used_; }

  int allocs = 0, frees = 0, waits = 0;

 private:
  size_t capacity_;
  size_t used_ = 0;
  std::map<void*, size_t> live_;
  std::set<FakeEvent*> events_;
};

constexpr BlockBackend::Stream kS0 = 1, kS1 = 2;
const Stat& agg(const StatArray& s) { return s[size_t(StatType::AGGREGATE)]; }
const Stat& small_pool(const StatArray& s) { return s[size_t(StatType::SMALL_POOL)]; }
const Stat& large_pool(const StatArray& s) { return s[size_t(StatType::LARGE_POOL)]; }

TEST(CachingBlockAllocator, RoundingAndSegmentSizes) {
  EXPECT_EQ(CBA::round_size(1), 512u);
  EXPECT_EQ(CBA::round_size(512), 512u);
  EXPECT_EQ(CBA::round_size(513), 1024u);
  EXPECT_EQ(CBA::segment_size(512), 2 * kMiB);
  EXPECT_EQ(CBA::segment_size(kMiB), 2 * kMiB);
  EXPECT_EQ(CBA::segment_size(kMiB + 512), 20 * kMiB);
  EXPECT_EQ(CBA::segment_size(10 * kMiB - 512), 20 * kMiB);
  EXPECT_EQ(CBA::segment_size(10 * kMiB), 10 * kMiB);
  EXPECT_EQ(CBA::segment_size(11 * kMiB + 1), 12 * kMiB);
}

TEST(CachingBlockAllocator, SmallBlocksShareOneSegment) {
  FakeDevice dev(64 * kMiB);
  CBA a(dev);
  char* p = static_cast<char*>(a.malloc(1, kS0));
  char* q = static_cast<char*>(a.malloc(700, kS0));
  EXPECT_EQ(dev.allocs, 1);
  EXPECT_EQ(a.block_size(p), 512u);
  EXPECT_EQ(a.block_size(q), 1024u);
  EXPECT_EQ(q, p + 512) << "the second block is split off the first segment";
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u);
  DeviceStats s = a.stats();
  EXPECT_EQ(agg(s.segment).current, 1);
  EXPECT_EQ(agg(s.reserved_bytes).current, int64_t(2 * kMiB));
  EXPECT_EQ(small_pool(s.reserved_bytes).current, int64_t(2 * kMiB));
  EXPECT_EQ(large_pool(s.reserved_bytes).current, 0);
  EXPECT_EQ(agg(s.allocated_bytes).current, 1536);
  EXPECT_EQ(agg(s.requested_bytes).current, 701);
  EXPECT_EQ(agg(s.allocation).current, 2);
  // the rest of the segment is one free split block
  EXPECT_EQ(agg(s.inactive_split).current, 1);
  EXPECT_EQ(agg(s.inactive_split_bytes).current, int64_t(2 * kMiB - 1536));
  a.free(p);
  a.free(q);
  s = a.stats();
  EXPECT_EQ(agg(s.allocated_bytes).current, 0);
  EXPECT_EQ(agg(s.inactive_split).current, 0) << "all blocks merged back into the whole segment";
  EXPECT_EQ(agg(s.reserved_bytes).current, int64_t(2 * kMiB));
  EXPECT_EQ(agg(s.allocated_bytes).peak, 1536);
  EXPECT_EQ(agg(s.allocation).allocated, 2);
  EXPECT_EQ(agg(s.allocation).freed, 2);
}

TEST(CachingBlockAllocator, SteadyStateNeedsNoDeviceAllocation) {
  FakeDevice dev(256 * kMiB);
  CBA a(dev);
  const size_t sizes[] = {4, 1000, 300 * 1024, 3 * kMiB, 12 * kMiB + 7, 40 * kMiB};
  for (int step = 0; step < 50; ++step) {
    std::vector<void*> live;
    for (size_t n : sizes) live.push_back(a.malloc(n, kS0));
    for (void* p : live) a.free(p);
    if (step == 0) EXPECT_GT(dev.allocs, 0);
  }
  DeviceStats s = a.stats();
  EXPECT_EQ(s.num_device_alloc, dev.allocs);
  EXPECT_LE(dev.allocs, 4) << "after the first step every request is served from the cache";
  EXPECT_EQ(dev.frees, 0);
  EXPECT_EQ(agg(s.allocation).allocated, 50 * 6);
}

TEST(CachingBlockAllocator, SplitAndMergeInTheLargePool) {
  FakeDevice dev(256 * kMiB);
  CBA a(dev);
  char* b0 = static_cast<char*>(a.malloc(4 * kMiB, kS0));  // 20 MiB segment, split
  char* b1 = static_cast<char*>(a.malloc(4 * kMiB, kS0));
  char* b2 = static_cast<char*>(a.malloc(4 * kMiB, kS0));
  EXPECT_EQ(dev.allocs, 1);
  EXPECT_EQ(b1, b0 + 4 * kMiB);
  EXPECT_EQ(b2, b1 + 4 * kMiB);
  // Free the middle block: a 4 MiB hole between two live blocks; best fit reuses it for a
  // request that fits, before the 8 MiB tail.
  a.free(b1);
  char* c = static_cast<char*>(a.malloc(3 * kMiB, kS0));
  EXPECT_EQ(c, b1);
  // 1 MiB left of the hole is not worth splitting in the large pool: the block keeps 4 MiB.
  EXPECT_EQ(a.block_size(c), 4 * kMiB);
  a.free(c);
  a.free(b0);
  a.free(b2);
  // Everything merged: the whole 20 MiB segment serves one request without a new allocation.
  char* whole = static_cast<char*>(a.malloc(20 * kMiB - 512 * 3, kS0));
  EXPECT_EQ(whole, b0);
  EXPECT_EQ(dev.allocs, 1);
  a.free(whole);
  // A request the cached segment cannot hold gets its own segment, rounded to 2 MiB.
  void* big = a.malloc(30 * kMiB + 1, kS0);
  EXPECT_EQ(dev.allocs, 2);
  EXPECT_EQ(a.block_size(big), 30 * kMiB + 512);
  EXPECT_EQ(agg(a.stats().reserved_bytes).current, int64_t(20 * kMiB + 32 * kMiB));
  a.free(big);
}

TEST(CachingBlockAllocator, BlocksAreReusedOnlyOnTheirStream) {
  FakeDevice dev(256 * kMiB);
  CBA a(dev);
  void* p = a.malloc(1000, kS0);
  a.free(p);
  void* q = a.malloc(1000, kS1);
  EXPECT_NE(q, p) << "a block freed on stream 0 must not go to stream 1";
  EXPECT_EQ(dev.allocs, 2);
  void* r = a.malloc(1000, kS0);
  EXPECT_EQ(r, p) << "stream 0 reuses its own block at once";
  a.free(q);
  a.free(r);
  // Streams are ordered in the pool: a block of a higher stream must not serve a lower one.
  const BlockBackend::Stream kHigh = 99;
  void* h = a.malloc(3 * kMiB, kHigh);
  a.free(h);
  const int before = dev.allocs;
  void* l = a.malloc(3 * kMiB, kS0);
  EXPECT_NE(l, h);
  EXPECT_EQ(dev.allocs, before + 1) << "stream 0 needed a segment of its own";
  a.free(l);
}

TEST(CachingBlockAllocator, RecordStreamHoldsTheBlockUntilTheOtherStreamIsDone) {
  FakeDevice dev(256 * kMiB);
  CBA a(dev);
  void* p = a.malloc(3 * kMiB, kS0);
  a.record_stream(p, kS1);
  a.record_stream(p, kS1);  // recorded once
  a.record_stream(p, kS0);  // the allocation stream: nothing to do
  a.free(p);
  EXPECT_EQ(dev.pending_events(), 1u);
  DeviceStats s = a.stats();
  EXPECT_EQ(agg(s.allocated_bytes).current, 0) << "freed by the program";
  EXPECT_EQ(agg(s.active_bytes).current, int64_t(3 * kMiB)) << "but still in use by stream 1";
  void* q = a.malloc(3 * kMiB, kS0);
  EXPECT_NE(q, p) << "stream 1 has not finished with the block";
  a.free(q);
  dev.finish(kS1);
  void* r = a.malloc(3 * kMiB, kS0);
  EXPECT_EQ(r, p) << "the event passed: the block is free again";
  EXPECT_EQ(dev.pending_events(), 0u);
  EXPECT_EQ(agg(a.stats().active).current, 1);
  a.free(r);
}

TEST(CachingBlockAllocator, EmptyCacheReturnsOnlyWholeFreeSegments) {
  FakeDevice dev(256 * kMiB);
  CBA a(dev);
  void* keep = a.malloc(100, kS0);           // small segment, stays in use
  void* gone = a.malloc(12 * kMiB, kS0);     // large segment, freed
  void* held = a.malloc(3 * kMiB, kS0);      // freed while stream 1 uses it
  a.record_stream(held, kS1);
  a.free(gone);
  a.free(held);
  EXPECT_EQ(dev.allocs, 3);
  a.empty_cache();
  EXPECT_EQ(dev.frees, 2) << "the 12 MiB segment and, after waiting for stream 1, the 20 MiB one";
  EXPECT_GE(dev.waits, 1);
  DeviceStats s = a.stats();
  EXPECT_EQ(agg(s.reserved_bytes).current, int64_t(2 * kMiB));
  EXPECT_EQ(agg(s.segment).current, 1);
  EXPECT_EQ(s.num_device_free, 2);
  EXPECT_EQ(dev.used(), 2 * kMiB);
  a.free(keep);
  a.empty_cache();
  EXPECT_EQ(dev.used(), 0u);
  EXPECT_EQ(agg(a.stats().reserved_bytes).current, 0);
  EXPECT_EQ(agg(a.stats().reserved_bytes).peak, int64_t(34 * kMiB));
}

TEST(CachingBlockAllocator, OutOfMemoryFreesTheCacheAndRetries) {
  FakeDevice dev(40 * kMiB);
  CBA a(dev);
  void* p = a.malloc(30 * kMiB, kS0);
  a.free(p);  // cached: 30 MiB reserved, nothing allocated
  void* q = a.malloc(20 * kMiB, kS1);  // another stream: the cached block does not fit the rules
  EXPECT_NE(q, nullptr);
  DeviceStats s = a.stats();
  EXPECT_EQ(s.num_alloc_retries, 1);
  EXPECT_EQ(dev.frees, 1) << "the cached 30 MiB segment went back to the device";
  EXPECT_EQ(agg(s.reserved_bytes).current, int64_t(20 * kMiB));
  a.free(q);
}

TEST(CachingBlockAllocator, OutOfMemoryErrorSaysWhatWasAskedAllocatedAndReserved) {
  FakeDevice dev(40 * kMiB);
  CBA a(dev);
  void* p = a.malloc(30 * kMiB, kS0);
  try {
    a.malloc(24 * kMiB, kS0);
    FAIL() << "expected OutOfMemoryError";
  } catch (const OutOfMemoryError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("out of memory"), std::string::npos) << m;
    EXPECT_NE(m.find("Tried to allocate 24.00 MiB"), std::string::npos) << m;
    EXPECT_NE(m.find("30.00 MiB already allocated"), std::string::npos) << m;
    EXPECT_NE(m.find("30.00 MiB reserved"), std::string::npos) << m;
    EXPECT_NE(m.find("fake device; 40 MiB total capacity"), std::string::npos) << m;
  }
  DeviceStats s = a.stats();
  EXPECT_EQ(s.num_ooms, 1);
  EXPECT_EQ(agg(s.allocated_bytes).current, int64_t(30 * kMiB)) << "the failed request changed nothing";
  a.free(p);
  void* q = a.malloc(24 * kMiB, kS0);  // fits in the cached segment now
  EXPECT_EQ(q, p);
  a.free(q);
}

TEST(CachingBlockAllocator, PeakAndAccumulatedStatsReset) {
  FakeDevice dev(256 * kMiB);
  CBA a(dev);
  void* p = a.malloc(5 * kMiB, kS0);
  void* q = a.malloc(5 * kMiB, kS0);
  a.free(q);
  EXPECT_EQ(agg(a.stats().allocated_bytes).peak, int64_t(10 * kMiB));
  a.reset_peak_stats();
  DeviceStats s = a.stats();
  EXPECT_EQ(agg(s.allocated_bytes).peak, int64_t(5 * kMiB));
  EXPECT_EQ(agg(s.allocated_bytes).current, int64_t(5 * kMiB));
  a.reset_accumulated_stats();
  s = a.stats();
  EXPECT_EQ(agg(s.allocation).allocated, 0);
  EXPECT_EQ(s.num_device_alloc, 0);
  EXPECT_EQ(agg(s.allocation).current, 1);
  a.free(p);
}

TEST(CachingBlockAllocator, BadPointersAreErrors) {
  FakeDevice dev(64 * kMiB);
  CBA a(dev);
  EXPECT_EQ(a.malloc(0, kS0), nullptr);
  a.free(nullptr);  // a no-op, as free(nullptr)
  int x = 0;
  EXPECT_ERROR_WITH(a.free(&x), "did not allocate");
  EXPECT_ERROR_WITH(a.record_stream(&x, kS1), "not a block of this allocator");
  void* p = a.malloc(10, kS0);
  a.free(p);
  EXPECT_ERROR_WITH(a.free(p), "did not allocate");
}

}  // namespace
}  // namespace ember::test
