// The CPU caching allocator.
//
// Note [CPU caching allocator]
// Touching a fresh 4 KiB page costs about 13 us on our machines, 0.4 us with huge pages,
// so an allocator that unmaps large blocks on free makes every out-of-place op on a large
// tensor pay for page faults. This allocator never returns a block to the OS on free: it
// keeps it in a size-class free list and hands it out again. Small blocks (< 1 MiB) come
// from the C heap, rounded to 64-byte classes in quarter-power-of-two steps. Large blocks
// are rounded to a sixteenth of the power of two below them (64 KiB steps from 1 MiB, 2 MiB
// steps from 32 MiB), mmap'ed at 2 MiB alignment and madvise'd MADV_HUGEPAGE (the whole 2 MiB
// pages of a block get huge pages, its tail 4 KiB ones), and are reused by exact size. Cached bytes are capped (EMBER_CPU_CACHE_LIMIT_MB, default 8 GiB);
// past the cap, freed blocks go back to the OS. empty_cache() releases everything cached.
#include "ember/core/allocator.h"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "ember/core/error.h"

namespace ember {

namespace {

constexpr size_t kLargeThreshold = size_t(1) << 20;
constexpr size_t kHugePage = size_t(2) << 20;

size_t round_size(size_t n) {
  if (n == 0) n = 1;
  if (n <= 512) return (n + 63) & ~size_t(63);
  const size_t p = size_t(1) << (63 - __builtin_clzll(n - 1));  // largest power of two < n
  if (n >= kLargeThreshold) {
    // Sixteenth-power-of-two classes up to 2 MiB steps: at most 6.25% waste (a 12 MiB
    // tensor, say an optimizer's state shard, took 14 MiB with plain 2 MiB rounding).
    const size_t step = std::min(kHugePage, p / 16);
    return (n + step - 1) / step * step;
  }
  // quarter-power-of-two classes: at most 25% waste
  const size_t step = p / 4;
  return (n + step - 1) / step * step;
}

class CpuCachingAllocator final : public Allocator {
 public:
  CpuCachingAllocator() {
    if (const char* s = std::getenv("EMBER_CPU_CACHE_LIMIT_MB")) cache_limit_ = size_t(std::atoll(s)) << 20;
  }

  DataPtr allocate(size_t nbytes) override {
    size_t size = round_size(nbytes);
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> g(mu_);
      ++stats_.num_allocs;
      std::vector<void*>* list = cached(size, /*create=*/false);
      if (list && !list->empty()) {
        p = list->back();
        list->pop_back();
        cached_bytes_ -= size;
      }
      if (p) note_alloc(size, nbytes);
    }
    if (!p) {
      p = os_alloc(size);
      if (!p) {
        // Out of memory: release the cache and try once more.
        empty();
        p = os_alloc(size);
      }
      EMBER_CHECK(p != nullptr, "CPU allocator: out of memory allocating ", nbytes,
                  " bytes (", double(nbytes) / (1 << 30), " GiB)");
      std::lock_guard<std::mutex> g(mu_);
      ++stats_.num_os_allocs;
      stats_.reserved_bytes += size;
      note_alloc(size, nbytes);
    }
    // The context carries the requested size (the block's is its size class), so freeing needs
    // no lookup.
    return DataPtr(p, reinterpret_cast<void*>(nbytes), &CpuCachingAllocator::free_block, Device(kCPU));
  }

  void release(void* p, size_t nbytes) {
    const size_t size = round_size(nbytes);
    std::lock_guard<std::mutex> g(mu_);
    stats_.allocated_bytes -= size;
    stats_.requested_bytes -= nbytes;
    if (cached_bytes_ + size > cache_limit_) {
      stats_.reserved_bytes -= size;
      os_free(p, size);
      return;
    }
    cached(size, /*create=*/true)->push_back(p);
    cached_bytes_ += size;
  }

  void empty() {
    std::lock_guard<std::mutex> g(mu_);
    auto release_all = [&](size_t size, std::vector<void*>& list) {
      for (void* p : list) {
        stats_.reserved_bytes -= size;
        os_free(p, size);
      }
      list.clear();
    };
    for (auto& [size, list] : free_) release_all(size, list);
    free_.clear();
    for (size_t i = 0; i < kTinyClasses; ++i) release_all((i + 1) * 64, tiny_[i]);
    cached_bytes_ = 0;
  }

  AllocatorStats stats() {
    std::lock_guard<std::mutex> g(mu_);
    return stats_;
  }
  void reset_peak() {
    std::lock_guard<std::mutex> g(mu_);
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
    stats_.peak_requested_bytes = stats_.requested_bytes;
  }

  static CpuCachingAllocator& instance() {
    static auto* a = [] {
      auto* alloc = new CpuCachingAllocator();  // never destroyed: outlives static tensors
      // A process forked while another thread holds the lock (data loader worker
      // processes) would deadlock on its first allocation: fork with the lock held.
      pthread_atfork([] { instance().mu_.lock(); }, [] { instance().mu_.unlock(); },
                     [] { instance().mu_.unlock(); });
      return alloc;
    }();
    return *a;
  }

 private:
  static void free_block(void* ctx, void* data) {
    instance().release(data, reinterpret_cast<size_t>(ctx));
  }

  void note_alloc(size_t size, size_t nbytes) {
    stats_.allocated_bytes += size;
    if (stats_.allocated_bytes > stats_.peak_allocated_bytes)
      stats_.peak_allocated_bytes = stats_.allocated_bytes;
    stats_.requested_bytes += nbytes;
    if (stats_.requested_bytes > stats_.peak_requested_bytes)
      stats_.peak_requested_bytes = stats_.requested_bytes;
  }

  static void* os_alloc(size_t size) {
    if (size < kLargeThreshold) {
      void* p = nullptr;
      return posix_memalign(&p, kStorageAlignment, size) == 0 ? p : nullptr;
    }
    // Over-allocate to find a 2 MiB-aligned range, then trim the ends.
    size_t span = size + kHugePage;
    void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    uintptr_t start = reinterpret_cast<uintptr_t>(raw);
    uintptr_t aligned = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (aligned > start) munmap(raw, aligned - start);
    uintptr_t end = start + span, aligned_end = aligned + size;
    if (end > aligned_end) munmap(reinterpret_cast<void*>(aligned_end), end - aligned_end);
    void* p = reinterpret_cast<void*>(aligned);
    madvise(p, size, MADV_HUGEPAGE);
    return p;
  }
  static void os_free(void* p, size_t size) {
    if (size < kLargeThreshold) std::free(p);
    else munmap(p, size);
  }

  // The free list of a size class: blocks of at most 512 bytes (64-byte classes) in an array,
  // the per-op case (scalars, small tensors) without hashing; the others in a hash map.
  std::vector<void*>* cached(size_t size, bool create) {
    if (size <= kTinyClasses * 64) return &tiny_[size / 64 - 1];
    if (create) return &free_[size];
    auto it = free_.find(size);
    return it == free_.end() ? nullptr : &it->second;
  }

  static constexpr size_t kTinyClasses = 8;
  std::mutex mu_;
  std::vector<void*> tiny_[kTinyClasses];
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_bytes_ = 0;
  size_t cache_limit_ = size_t(8) << 30;
  AllocatorStats stats_;
};

// Constant-initialized (zeros before any constructor runs), so a registration from another
// translation unit's static initializer cannot be overwritten by this one's; the CPU's
// allocator is the fallback of its slot.
Allocator* g_allocators[kNumDeviceTypes] = {};

}  // namespace

void Allocator::copy_data(void* dest, const void* src, size_t n) const {
  if (n) std::memcpy(dest, src, n);
}

Allocator* get_allocator(DeviceType t) {
  Allocator* a = g_allocators[int(t)];
  if (t == kCPU && !a) return &CpuCachingAllocator::instance();
  EMBER_CHECK(a != nullptr, "no allocator registered for device type ", t,
              t == kCUDA ? " (ember was built without CUDA or no GPU is present)" : "");
  return a;
}
void set_allocator(DeviceType t, Allocator* a) { g_allocators[int(t)] = a; }

namespace cpu {
AllocatorStats allocator_stats() { return CpuCachingAllocator::instance().stats(); }
void reset_peak_stats() { CpuCachingAllocator::instance().reset_peak(); }
void empty_cache() { CpuCachingAllocator::instance().empty(); }
}  // namespace cpu

}  // namespace ember
