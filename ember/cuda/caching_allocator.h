// The CUDA caching allocator (c10::cuda::CUDACachingAllocator): one CachingBlockAllocator
// per device (Note [Caching block allocator]) over cudaMalloc/cudaFree, allocating on the
// current stream of the device. Tensors get their memory from it through
// get_allocator(kCUDA).
#pragma once
#include "ember/core/allocator.h"
#include "ember/core/caching_block_allocator.h"
#include "ember/cuda/stream.h"

namespace ember::cuda::CUDACachingAllocator {

Allocator* get();
DeviceStats getDeviceStats(DeviceIndex device);
void resetPeakStats(DeviceIndex device);
void resetAccumulatedStats(DeviceIndex device);
void emptyCache();
// Marks memory from this allocator as used by `stream` (Note [Caching block allocator]).
void recordStream(const DataPtr& ptr, CUDAStream stream);
// True when `ptr` is memory of this allocator (recordStream applies to it).
bool owns(const DataPtr& ptr);
// Raw blocks on the current device and stream, outside any tensor.
void* raw_alloc(size_t nbytes);
void* raw_alloc_with_stream(size_t nbytes, cudaStream_t stream);
void raw_delete(void* ptr);

}  // namespace ember::cuda::CUDACachingAllocator

namespace ember::cuda {
// Note [Pinned host memory]: a non-blocking copy that used the pinned block holding
// `host_ptr` records its stream, so the block is not reused before the copy finished. False
// when the pointer is not pinned memory from pinned_host_allocator().
bool record_pinned_use(const void* host_ptr, cudaStream_t stream);
// Returns the cached pinned blocks to the driver.
void empty_pinned_cache();
}  // namespace ember::cuda
