// Large, reusable blocks of memory for the frame's kernels and the buffers they produce.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ember/frame/buffer.h"

namespace ember::frame {

// Note [Scratch memory]
// Frame kernels (relational, the CSV reader) write hundreds of MB into fresh memory, and
// first touches of fresh pages (a page fault each, the kernel zeroing the page) can cost more
// than the kernels' own work: 80 MB took 50 ms to fill in 4 KiB pages and 5-9 ms in 2 MiB
// ones on the development VM. So blocks of 4 MiB or more are 2 MiB aligned and marked
// MADV_HUGEPAGE (what numpy does), scratch vectors default-initialize their elements instead
// of zero-filling them, and freed large blocks are kept (up to 1 GiB, at most an eighth of the
// machine's memory) for the next large request that fits them, as jemalloc and mimalloc
// retain memory: repeated operations on large frames then skip the page faults altogether.
// release_scratch_memory() returns them.
void* scratch_alloc(size_t bytes);  // raises on failure
void scratch_free(void* p);         // for scratch_alloc's blocks (null is fine)
void release_scratch_memory();
// The most bytes of freed blocks kept for reuse; a block larger than this is never kept.
size_t scratch_cache_limit();

// A writable, 64-byte aligned block of `bytes` (rounded up to 64) that finish() turns into an
// immutable Buffer. Not zeroed, except the padding after the bytes finish() keeps: the kernel
// writes every byte it hands on.
class OutBuffer {
 public:
  OutBuffer() = default;
  explicit OutBuffer(int64_t bytes);
  OutBuffer(const OutBuffer&) = delete;
  OutBuffer& operator=(const OutBuffer&) = delete;
  OutBuffer(OutBuffer&& o) noexcept : p_(o.p_), cap_(o.cap_) { o.p_ = nullptr, o.cap_ = 0; }
  OutBuffer& operator=(OutBuffer&& o) noexcept;
  ~OutBuffer() { scratch_free(p_); }

  uint8_t* data() { return p_; }
  template <class T> T* as() { return reinterpret_cast<T*>(p_); }
  int64_t capacity() const { return cap_; }
  // The first `bytes` as a Buffer; this OutBuffer is empty afterwards.
  Buffer finish(int64_t bytes);
  Buffer finish() { return finish(cap_); }

 private:
  uint8_t* p_ = nullptr;
  int64_t cap_ = 0;
};

}  // namespace ember::frame
