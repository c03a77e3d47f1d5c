// A stream-ordered caching allocator of device memory, independent of any device API: the
// CUDA backend (ember/cuda/caching_allocator.cpp) binds it to cudaMalloc, cudaFree and CUDA
// events, and the tests drive it with a fake device. See Note [Caching block allocator].
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ember {

// Statistics in c10::CUDACachingAllocator's shape: each Stat per pool (StatType), each with
// its current value, peak, and the totals ever added and removed.
enum class StatType : uint8_t { AGGREGATE = 0, SMALL_POOL = 1, LARGE_POOL = 2, NUM_TYPES = 3 };
struct Stat {
  int64_t current = 0;
  int64_t peak = 0;
  int64_t allocated = 0;
  int64_t freed = 0;
};
using StatArray = std::array<Stat, size_t(StatType::NUM_TYPES)>;

struct DeviceStats {
  StatArray allocation;      // live allocations (blocks handed out, not yet freed)
  StatArray segment;         // device allocations (cudaMalloc) the cache holds
  StatArray active;          // blocks in use, including freed ones still awaiting other streams
  StatArray inactive_split;  // free blocks that are part of a split segment
  StatArray allocated_bytes;
  StatArray reserved_bytes;  // bytes of all segments: allocated plus cached
  StatArray active_bytes;
  StatArray inactive_split_bytes;
  StatArray requested_bytes;  // bytes asked for, before rounding
  int64_t num_alloc_retries = 0;  // device allocations that failed and were retried after freeing the cache
  int64_t num_ooms = 0;           // out-of-memory errors raised
  int64_t num_sync_all_streams = 0;
  int64_t num_device_alloc = 0;
  int64_t num_device_free = 0;
  int64_t oversize_allocations = 0;
  int64_t oversize_segments = 0;
  int64_t max_split_size = -1;  // no limit
};

// What the allocator needs from a device. Streams and events are opaque handles.
class BlockBackend {
 public:
  using Stream = uintptr_t;
  using Event = void*;
  virtual ~BlockBackend() = default;
  // Device memory, or nullptr when the device is out of memory (other failures throw).
  virtual void* alloc(size_t bytes) = 0;
  virtual void free(void* ptr) = 0;
  // An event recorded on `stream` now; done() once the device passed it.
  virtual Event record(Stream stream) = 0;
  virtual bool done(Event e) = 0;
  virtual void wait(Event e) = 0;  // blocks the host until done
  virtual void destroy(Event e) = 0;
  // The device's name and capacity for an out-of-memory message ("GPU 0; 79.19 GiB total
  // capacity; 1.02 GiB free").
  virtual std::string describe() = 0;
};

class CachingBlockAllocator {
 public:
  using Stream = BlockBackend::Stream;

  // The sizes of Note [Caching block allocator].
  static constexpr size_t kMinBlockSize = 512;
  static constexpr size_t kSmallSize = size_t(1) << 20;         // largest request of the small pool
  static constexpr size_t kSmallBuffer = size_t(2) << 20;       // small pool segments
  static constexpr size_t kMinLargeAlloc = size_t(10) << 20;    // below: a kLargeBuffer segment
  static constexpr size_t kLargeBuffer = size_t(20) << 20;
  static constexpr size_t kRoundLarge = size_t(2) << 20;        // larger segments round to this

  explicit CachingBlockAllocator(BlockBackend& backend) : backend_(backend) {}
  ~CachingBlockAllocator();
  CachingBlockAllocator(const CachingBlockAllocator&) = delete;
  CachingBlockAllocator& operator=(const CachingBlockAllocator&) = delete;

  // A block of at least `bytes` for use on `stream` (aligned to 512 bytes; nullptr for 0
  // bytes). Throws OutOfMemoryError when the device has no room even after the cache is freed.
  void* malloc(size_t bytes, Stream stream);
  // Returns a block to the cache. If other streams used it (record_stream), it is reused only
  // once the work they queued before this call has finished.
  void free(void* ptr);
  // Marks the block holding `ptr` as used by `stream` as well as its allocation stream.
  void record_stream(void* ptr, Stream stream);
  // Waits for pending frees and returns every entirely free segment to the device.
  void empty_cache();

  DeviceStats stats() const;
  void reset_peak_stats();
  void reset_accumulated_stats();
  // The size of the block holding `ptr` (after rounding), for tests and diagnostics.
  size_t block_size(void* ptr) const;

  static size_t round_size(size_t bytes);
  // The segment size a request of (rounded) `size` allocates from the device.
  static size_t segment_size(size_t size);

 private:
  struct Block {
    void* ptr;
    size_t size;
    size_t requested = 0;
    Stream stream;
    bool small;
    bool allocated = false;
    bool counted_inactive = false;
    int pending_events = 0;
    Block* prev = nullptr;  // neighbours within the segment
    Block* next = nullptr;
    std::vector<Stream> stream_uses;
    bool is_split() const { return prev || next; }
  };
  struct BlockOrder {
    bool operator()(const Block* a, const Block* b) const {
      if (a->stream != b->stream) return a->stream < b->stream;
      if (a->size != b->size) return a->size < b->size;
      return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
    }
  };
  using Pool = std::set<Block*, BlockOrder>;

  Pool& pool_of(bool small) { return small ? small_pool_ : large_pool_; }
  Block* take_cached(size_t size, Stream stream);
  Block* new_segment(size_t size, Stream stream);
  void pool_insert(Block* b);
  void pool_erase(Block* b);
  void free_block(Block* b);
  void process_events(bool wait);
  void release_free_segments();
  [[noreturn]] void raise_oom(size_t requested);
  void update(StatArray& s, bool small, int64_t delta);

  BlockBackend& backend_;
  mutable std::mutex mu_;
  Pool small_pool_, large_pool_;
  std::unordered_map<void*, Block*> live_;  // allocated blocks by pointer
  std::vector<std::pair<BlockBackend::Event, Block*>> pending_;  // frees awaiting other streams
  DeviceStats stats_;
};

}  // namespace ember
