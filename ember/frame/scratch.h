// Large, reusable blocks of memory for the frame's kernels and the buffers they produce.
#pragma once
#include <cstddef>

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
// release_scratch_memory() returns them. A block sized for the worst case (the CSV reader's
// string bytes) gives its unused tail back with scratch_trim.
void* scratch_alloc(size_t bytes);  // raises on failure
void scratch_free(void* p);         // for scratch_alloc's blocks (null is fine)
void release_scratch_memory();
// Returns the pages of a block from scratch_alloc past its first `used` bytes to the OS
// (they read as zeros if touched again); the block itself stays allocated. A no-op for
// small blocks.
void scratch_trim(void* p, size_t used);

}  // namespace ember::frame
