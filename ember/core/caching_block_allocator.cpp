// The stream-ordered caching block allocator.
//
// Note [Caching block allocator]
// A device allocation (cudaMalloc) costs tens of microseconds to milliseconds and
// synchronizes the device, and cudaFree synchronizes too, so device memory is allocated in
// segments that are never returned while the program runs (only by empty_cache() or when an
// allocation would fail otherwise) and handed out as blocks, as c10's CUDA caching allocator
// does:
// * Requests round up to 512 bytes. Requests up to 1 MiB come from the small pool, whose
//   segments are 2 MiB; larger ones from the large pool, whose segments are 20 MiB for
//   requests under 10 MiB and the request rounded up to 2 MiB otherwise.
// * A free block is found by best fit (smallest size, then lowest address) among the free
//   blocks of the same stream, and split when the rest is worth keeping (at least 512 bytes
//   in the small pool, more than 1 MiB in the large one). A freed block merges with free
//   neighbours of its segment, so a segment whose blocks are all free is one block again.
// * Blocks are stream-ordered: a block freed on stream S is reused at once, but only by work
//   on S, which the device runs after everything S already queued. A block that other streams
//   used (record_stream) is held back until an event recorded on each of them at free()
//   time has passed.
// * When the device is out of memory, the allocator waits for held-back blocks, returns every
//   entirely free segment to the device and tries once more; then raises OutOfMemoryError
//   saying what was asked for, what is allocated and what is reserved.
#include "ember/core/caching_block_allocator.h"

#include <algorithm>
#include <cstdio>

#include "ember/core/error.h"

namespace ember {

namespace {
std::string format_size(size_t bytes) {
  char buf[64];
  if (bytes < 1024) std::snprintf(buf, sizeof buf, "%zu bytes", bytes);
  else if (bytes < (size_t(1) << 20)) std::snprintf(buf, sizeof buf, "%.2f KiB", double(bytes) / 1024);
  else if (bytes < (size_t(1) << 30)) std::snprintf(buf, sizeof buf, "%.2f MiB", double(bytes) / (1 << 20));
  else std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / (1 << 30));
  return buf;
}
}  // namespace

size_t CachingBlockAllocator::round_size(size_t bytes) {
  if (bytes < kMinBlockSize) return kMinBlockSize;
  return (bytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t CachingBlockAllocator::segment_size(size_t size) {
  if (size <= kSmallSize) return kSmallBuffer;
  if (size < kMinLargeAlloc) return kLargeBuffer;
  return (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
}

CachingBlockAllocator::~CachingBlockAllocator() {
  // Blocks still allocated belong to tensors that outlive the allocator: leave them.
  process_events(/*wait=*/true);
  release_free_segments();
}

void CachingBlockAllocator::update(StatArray& s, bool small, int64_t delta) {
  for (StatType t : {StatType::AGGREGATE, small ? StatType::SMALL_POOL : StatType::LARGE_POOL}) {
    Stat& x = s[size_t(t)];
    x.current += delta;
    if (delta > 0) x.allocated += delta;
    else x.freed -= delta;
    x.peak = std::max(x.peak, x.current);
  }
}

void CachingBlockAllocator::pool_insert(Block* b) {
  if (b->is_split()) {
    b->counted_inactive = true;
    update(stats_.inactive_split, b->small, 1);
    update(stats_.inactive_split_bytes, b->small, int64_t(b->size));
  }
  pool_of(b->small).insert(b);
}

void CachingBlockAllocator::pool_erase(Block* b) {
  pool_of(b->small).erase(b);
  if (b->counted_inactive) {
    b->counted_inactive = false;
    update(stats_.inactive_split, b->small, -1);
    update(stats_.inactive_split_bytes, b->small, -int64_t(b->size));
  }
}

CachingBlockAllocator::Block* CachingBlockAllocator::take_cached(size_t size, Stream stream) {
  Pool& pool = pool_of(size <= kSmallSize);
  Block key{nullptr, size, 0, stream, false};
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* b = *it;
  pool_erase(b);
  return b;
}

CachingBlockAllocator::Block* CachingBlockAllocator::new_segment(size_t size, Stream stream) {
  const size_t seg = segment_size(size);
  void* p = backend_.alloc(seg);
  if (!p) {
    // Out of memory: give the cache back and try once more.
    ++stats_.num_alloc_retries;
    process_events(/*wait=*/true);
    release_free_segments();
    p = backend_.alloc(seg);
    if (!p) raise_oom(size);
  }
  const bool small = size <= kSmallSize;
  update(stats_.segment, small, 1);
  update(stats_.reserved_bytes, small, int64_t(seg));
  ++stats_.num_device_alloc;
  return new Block{p, seg, 0, stream, small};
}

void CachingBlockAllocator::raise_oom(size_t requested) {
  ++stats_.num_ooms;
  const Stat& alloc = stats_.allocated_bytes[size_t(StatType::AGGREGATE)];
  const Stat& reserved = stats_.reserved_bytes[size_t(StatType::AGGREGATE)];
  throw OutOfMemoryError(ember::detail::str_cat(
      "CUDA out of memory. Tried to allocate ", format_size(requested), " (", backend_.describe(), "; ",
      format_size(size_t(alloc.current)), " already allocated; ", format_size(size_t(reserved.current)),
      " reserved in total by ember). If reserved memory is much larger than allocated memory, "
      "empty_cache() returns the cached part; otherwise use smaller tensors or batches."));
}

void* CachingBlockAllocator::malloc(size_t bytes, Stream stream) {
  if (bytes == 0) return nullptr;
  std::lock_guard<std::mutex> g(mu_);
  process_events(/*wait=*/false);
  const size_t size = round_size(bytes);
  Block* b = take_cached(size, stream);
  if (!b) b = new_segment(size, stream);
  const size_t rest = b->size - size;
  if (b->small ? rest >= kMinBlockSize : rest > kSmallSize) {
    auto* r = new Block{static_cast<char*>(b->ptr) + size, rest, 0, stream, b->small};
    r->prev = b;
    r->next = b->next;
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    pool_insert(r);
  }
  b->allocated = true;
  b->requested = bytes;
  live_.emplace(b->ptr, b);
  update(stats_.allocation, b->small, 1);
  update(stats_.allocated_bytes, b->small, int64_t(b->size));
  update(stats_.active, b->small, 1);
  update(stats_.active_bytes, b->small, int64_t(b->size));
  update(stats_.requested_bytes, b->small, int64_t(bytes));
  return b->ptr;
}

void CachingBlockAllocator::free(void* ptr) {
  if (!ptr) return;
  std::lock_guard<std::mutex> g(mu_);
  auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), "caching allocator: free of a pointer it did not allocate (", ptr, ")");
  Block* b = it->second;
  live_.erase(it);
  update(stats_.allocation, b->small, -1);
  update(stats_.allocated_bytes, b->small, -int64_t(b->size));
  update(stats_.requested_bytes, b->small, -int64_t(b->requested));
  if (b->stream_uses.empty()) {
    free_block(b);
    return;
  }
  for (Stream s : b->stream_uses) {
    pending_.emplace_back(backend_.record(s), b);
    ++b->pending_events;
  }
  b->stream_uses.clear();
}

void CachingBlockAllocator::free_block(Block* b) {
  update(stats_.active, b->small, -1);
  update(stats_.active_bytes, b->small, -int64_t(b->size));
  b->allocated = false;
  b->requested = 0;
  if (Block* p = b->prev; p && !p->allocated) {
    pool_erase(p);
    p->size += b->size;
    p->next = b->next;
    if (b->next) b->next->prev = p;
    delete b;
    b = p;
  }
  if (Block* n = b->next; n && !n->allocated) {
    pool_erase(n);
    b->size += n->size;
    b->next = n->next;
    if (n->next) n->next->prev = b;
    delete n;
  }
  pool_insert(b);
}

void CachingBlockAllocator::process_events(bool wait) {
  if (pending_.empty()) return;
  if (wait) ++stats_.num_sync_all_streams;
  size_t kept = 0;
  for (size_t i = 0; i < pending_.size(); ++i) {
    auto [e, b] = pending_[i];
    if (wait) backend_.wait(e);
    else if (!backend_.done(e)) {
      pending_[kept++] = pending_[i];
      continue;
    }
    backend_.destroy(e);
    if (--b->pending_events == 0) free_block(b);
  }
  pending_.resize(kept);
}

void CachingBlockAllocator::release_free_segments() {
  for (Pool* pool : {&small_pool_, &large_pool_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      if (b->is_split()) {
        ++it;
        continue;
      }
      it = pool->erase(it);
      backend_.free(b->ptr);
      update(stats_.segment, b->small, -1);
      update(stats_.reserved_bytes, b->small, -int64_t(b->size));
      ++stats_.num_device_free;
      delete b;
    }
  }
}

void CachingBlockAllocator::record_stream(void* ptr, Stream stream) {
  std::lock_guard<std::mutex> g(mu_);
  auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), "record_stream: the pointer ", ptr, " is not a block of this allocator");
  Block* b = it->second;
  if (stream == b->stream) return;
  if (std::find(b->stream_uses.begin(), b->stream_uses.end(), stream) == b->stream_uses.end())
    b->stream_uses.push_back(stream);
}

void CachingBlockAllocator::empty_cache() {
  std::lock_guard<std::mutex> g(mu_);
  process_events(/*wait=*/true);
  release_free_segments();
}

DeviceStats CachingBlockAllocator::stats() const {
  std::lock_guard<std::mutex> g(mu_);
  return stats_;
}

namespace {
// Every StatArray of DeviceStats.
std::array<StatArray*, 9> stat_arrays(DeviceStats& d) {
  return {&d.allocation, &d.segment, &d.active, &d.inactive_split, &d.allocated_bytes, &d.reserved_bytes,
          &d.active_bytes, &d.inactive_split_bytes, &d.requested_bytes};
}
}  // namespace

void CachingBlockAllocator::reset_peak_stats() {
  std::lock_guard<std::mutex> g(mu_);
  for (StatArray* s : stat_arrays(stats_))
    for (Stat& x : *s) x.peak = x.current;
}

void CachingBlockAllocator::reset_accumulated_stats() {
  std::lock_guard<std::mutex> g(mu_);
  for (StatArray* s : stat_arrays(stats_))
    for (Stat& x : *s) x.allocated = x.freed = 0;
  stats_.num_alloc_retries = stats_.num_ooms = stats_.num_sync_all_streams = 0;
  stats_.num_device_alloc = stats_.num_device_free = 0;
}

size_t CachingBlockAllocator::block_size(void* ptr) const {
  std::lock_guard<std::mutex> g(mu_);
  auto it = live_.find(ptr);
  EMBER_CHECK(it != live_.end(), "caching allocator: ", ptr, " is not an allocated block");
  return it->second->size;
}

}  // namespace ember
