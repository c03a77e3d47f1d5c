#include "ember/frame/scratch.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/frame/buffer.h"

namespace ember::frame {

namespace {

constexpr size_t kHuge = size_t(1) << 21, kHugeFrom = size_t(4) << 20;

// Note [Scratch memory]: the large blocks handed out (by address, with their sizes) and the
// freed ones kept for reuse, oldest first.
struct ScratchCache {
  std::mutex mu;
  std::unordered_map<void*, size_t> live;
  std::vector<std::pair<void*, size_t>> kept;
  size_t kept_bytes = 0;
  size_t cap = 0;

  ScratchCache() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    const size_t ram = pages > 0 && page > 0 ? size_t(pages) * size_t(page) : size_t(8) << 30;
    cap = std::min(size_t(1) << 30, ram / 8);
  }
  static ScratchCache& get() {
    static ScratchCache* c = [] {
      auto* cache = new ScratchCache;  // never destroyed: frees may come during exit
      // Held across fork, so that a fork while another thread allocates does not leave the
      // child's copy of the mutex locked (forked DataLoader workers use frames).
      pthread_atfork([] { get().mu.lock(); }, [] { get().mu.unlock(); }, [] { get().mu.unlock(); });
      return cache;
    }();
    return *c;
  }
};

}  // namespace

void* scratch_alloc(size_t bytes) {
  if (bytes < kHugeFrom) {
    const size_t size = (std::max<size_t>(bytes, 1) + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
    void* p = std::aligned_alloc(size_t(kBufferAlignment), size);
    EMBER_CHECK(p != nullptr, "frame: out of memory allocating ", size, " bytes");
    return p;
  }
  const size_t size = (bytes + kHuge - 1) / kHuge * kHuge;
  ScratchCache& c = ScratchCache::get();
  {
    // The smallest kept block that fits and wastes at most half of itself; of equal ones the
    // most recently freed: its pages are the likeliest to be mapped already. (A block reserved
    // and never written, such as read_csv's fixed-width region of a column that turned out to
    // be strings, otherwise went to the next read's first column: in a fresh process reads 2
    // and 3 of a 308 MB CSV took 0.45 s instead of 0.18 s, faulting and zeroing its pages.)
    std::lock_guard<std::mutex> g(c.mu);
    size_t best = c.kept.size();
    for (size_t i = 0; i < c.kept.size(); ++i)
      if (c.kept[i].second >= size && c.kept[i].second <= 2 * size &&
          (best == c.kept.size() || c.kept[i].second <= c.kept[best].second))
        best = i;
    if (best < c.kept.size()) {
      auto [p, s] = c.kept[best];
      c.kept.erase(c.kept.begin() + long(best));
      c.kept_bytes -= s;
      c.live[p] = s;
      return p;
    }
  }
  void* p = std::aligned_alloc(kHuge, size);
  EMBER_CHECK(p != nullptr, "frame: out of memory allocating ", size, " bytes");
  ::madvise(p, size, MADV_HUGEPAGE);  // advisory: failure is harmless
  std::lock_guard<std::mutex> g(c.mu);
  c.live[p] = size;
  return p;
}

void scratch_free(void* p) {
  if (p == nullptr) return;
  if (reinterpret_cast<uintptr_t>(p) % kHuge == 0) {  // possibly a large block
    ScratchCache& c = ScratchCache::get();
    std::lock_guard<std::mutex> g(c.mu);
    auto it = c.live.find(p);
    if (it != c.live.end()) {
      const size_t size = it->second;
      c.live.erase(it);
      if (size <= c.cap) {
        while (c.kept_bytes + size > c.cap) {  // make room: the oldest go first
          std::free(c.kept.front().first);
          c.kept_bytes -= c.kept.front().second;
          c.kept.erase(c.kept.begin());
        }
        c.kept.push_back({p, size});
        c.kept_bytes += size;
        return;
      }
    }
  }
  std::free(p);
}

size_t scratch_cache_limit() { return ScratchCache::get().cap; }

void release_scratch_memory() {
  ScratchCache& c = ScratchCache::get();
  std::lock_guard<std::mutex> g(c.mu);
  for (auto& [p, s] : c.kept) std::free(p);
  c.kept.clear();
  c.kept_bytes = 0;
}

OutBuffer::OutBuffer(int64_t bytes) {
  EMBER_CHECK(bytes >= 0 && bytes <= kMaxBufferBytes, "frame: cannot allocate a buffer of ", bytes, " bytes");
  cap_ = (std::max<int64_t>(bytes, 1) + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  p_ = static_cast<uint8_t*>(scratch_alloc(size_t(cap_)));
}

OutBuffer& OutBuffer::operator=(OutBuffer&& o) noexcept {
  if (this != &o) {
    scratch_free(p_);
    p_ = o.p_, cap_ = o.cap_;
    o.p_ = nullptr, o.cap_ = 0;
  }
  return *this;
}

Buffer OutBuffer::finish(int64_t bytes) {
  if (p_ == nullptr) *this = OutBuffer(0);
  EMBER_INTERNAL_ASSERT(bytes >= 0 && bytes <= cap_);
  // Zero the padding up to the block's end, as BufferBuilder does (readers may load it).
  std::memset(p_ + bytes, 0, size_t(cap_ - bytes));
  uint8_t* p = p_;
  p_ = nullptr, cap_ = 0;
  std::shared_ptr<const void> owner(p, [](const void* q) { scratch_free(const_cast<void*>(q)); });
  return Buffer::wrap(p, bytes, std::move(owner));
}

}  // namespace ember::frame
