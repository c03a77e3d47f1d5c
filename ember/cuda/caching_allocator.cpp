// The CUDA caching allocator (device memory) and the pinned host memory allocator.
#include "ember/cuda/caching_allocator.h"

#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"

namespace ember::cuda {

namespace {

std::string gib(size_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", double(bytes) / double(size_t(1) << 30));
  return buf;
}

// cudaMalloc, cudaFree and events of one device for the CachingBlockAllocator.
class DeviceBackend final : public BlockBackend {
 public:
  explicit DeviceBackend(DeviceIndex index) : index_(index) {}
  void* alloc(size_t bytes) override {
    CUDAGuard g(index_);
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, bytes);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    EMBER_CUDA_CHECK(e);
    return p;
  }
  void free(void* ptr) override {
    CUDAGuard g(index_);
    EMBER_CUDA_CHECK(cudaFree(ptr));
  }
  Event record(Stream stream) override {
    CUDAGuard g(index_);
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(e, reinterpret_cast<cudaStream_t>(stream)));
    return e;
  }
  bool done(Event e) override {
    return detail::query_done(cudaEventQuery(static_cast<cudaEvent_t>(e)), "cudaEventQuery");
  }
  void wait(Event e) override { EMBER_CUDA_CHECK(cudaEventSynchronize(static_cast<cudaEvent_t>(e))); }
  void destroy(Event e) override { (void)cudaEventDestroy(static_cast<cudaEvent_t>(e)); }
  std::string describe() override {
    CUDAGuard g(index_);
    size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
      (void)cudaGetLastError();
      return "GPU " + std::to_string(int(index_));
    }
    return "GPU " + std::to_string(int(index_)) + "; " + gib(total) + " total capacity; " + gib(free_bytes) + " free";
  }

 private:
  DeviceIndex index_;
};

struct DeviceState {
  explicit DeviceState(DeviceIndex i) : index(i), backend(i), blocks(backend) {}
  DeviceIndex index;
  DeviceBackend backend;
  CachingBlockAllocator blocks;
};

class CudaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override { return allocate_on(nbytes, Device(kCUDA)); }

  DataPtr allocate_on(size_t nbytes, Device device) override {
    EMBER_CHECK(is_available(), "cannot allocate ", nbytes, " bytes on ", device,
                ": CUDA is not available (no NVIDIA driver or GPU found; torch::cuda::is_available() is false)");
    const DeviceIndex index = device.has_index() ? device.index() : current_device();
    EMBER_CHECK(index < device_count(), "cannot allocate on ", device, ": this process sees ", device_count(),
                " CUDA device(s)");
    DeviceState& s = state(index);
    CUDAGuard g(index);
    void* p = s.blocks.malloc(nbytes, reinterpret_cast<uintptr_t>(getCurrentCUDAStream(index).stream()));
    return DataPtr(p, &s, &release, Device(kCUDA, index));
  }

  void copy_data(void* dest, const void* src, size_t n) const override {
    if (n == 0) return;
    EMBER_CUDA_CHECK(cudaMemcpyAsync(dest, src, n, cudaMemcpyDeviceToDevice, getCurrentCUDAStream().stream()));
  }

  DeviceState& state(DeviceIndex index) {
    std::lock_guard<std::mutex> g(mu_);
    auto& s = devices_[size_t(index)];
    if (!s) s = std::make_unique<DeviceState>(index);
    return *s;
  }
  // The state of a device that has allocated, or null.
  DeviceState* existing(DeviceIndex index) {
    std::lock_guard<std::mutex> g(mu_);
    return devices_[size_t(index)].get();
  }

  static void release(void* ctx, void* data) {
    if (data) static_cast<DeviceState*>(ctx)->blocks.free(data);
  }

 private:
  std::mutex mu_;
  std::array<std::unique_ptr<DeviceState>, kMaxDevices> devices_;
};

// Never destroyed: tensors may be freed during static destruction, after which the CUDA
// runtime may already be gone; the driver reclaims device memory at exit.
CudaAllocator& cuda_allocator() {
  static auto* a = new CudaAllocator();
  return *a;
}
const bool g_registered = [] {
  set_allocator(kCUDA, &cuda_allocator());
  return true;
}();

DeviceIndex stats_index(DeviceIndex index) {
  if (index < 0) return current_device();
  EMBER_CHECK(index < device_count(), "CUDA memory statistics: invalid device index ", int(index),
              " (this process sees ", device_count(), " CUDA device(s))");
  return index;
}
DeviceStats stats_of(DeviceIndex index) {
  if (!is_available()) return {};  // as PyTorch before CUDA is initialized: empty statistics
  DeviceState* s = cuda_allocator().existing(stats_index(index));
  return s ? s->blocks.stats() : DeviceStats{};
}
const Stat& aggregate(const StatArray& a) { return a[size_t(StatType::AGGREGATE)]; }
}  // namespace

namespace CUDACachingAllocator {
Allocator* get() { return &cuda_allocator(); }
DeviceStats getDeviceStats(DeviceIndex device) { return stats_of(device); }
void resetPeakStats(DeviceIndex device) {
  if (!is_available()) return;
  if (DeviceState* s = cuda_allocator().existing(stats_index(device))) s->blocks.reset_peak_stats();
}
void resetAccumulatedStats(DeviceIndex device) {
  if (!is_available()) return;
  if (DeviceState* s = cuda_allocator().existing(stats_index(device))) s->blocks.reset_accumulated_stats();
}
void emptyCache() {
  for (int64_t i = 0; i < device_count(); ++i)
    if (DeviceState* s = cuda_allocator().existing(DeviceIndex(i))) s->blocks.empty_cache();
}
void recordStream(const DataPtr& ptr, CUDAStream stream) {
  if (!ptr.get()) return;
  EMBER_CHECK(ptr.deleter() == &CudaAllocator::release, "recordStream: the memory at ", ptr.get(),
              " was not allocated by the CUDA caching allocator");
  static_cast<DeviceState*>(ptr.context())->blocks.record_stream(ptr.get(),
                                                                 reinterpret_cast<uintptr_t>(stream.stream()));
}
bool owns(const DataPtr& ptr) { return ptr.get() && ptr.deleter() == &CudaAllocator::release; }
void* raw_alloc(size_t nbytes) { return raw_alloc_with_stream(nbytes, getCurrentCUDAStream().stream()); }
void* raw_alloc_with_stream(size_t nbytes, cudaStream_t stream) {
  DeviceIndex i = current_device();
  return cuda_allocator().state(i).blocks.malloc(nbytes, reinterpret_cast<uintptr_t>(stream));
}
void raw_delete(void* ptr) {
  if (!ptr) return;
  cudaPointerAttributes attr{};
  EMBER_CUDA_CHECK(cudaPointerGetAttributes(&attr, ptr));
  EMBER_CHECK(attr.type == cudaMemoryTypeDevice, "raw_delete: ", ptr, " is not device memory");
  DeviceState* s = cuda_allocator().existing(DeviceIndex(attr.device));
  EMBER_CHECK(s != nullptr, "raw_delete: ", ptr, " was not allocated by the CUDA caching allocator");
  s->blocks.free(ptr);
}
}  // namespace CUDACachingAllocator

int64_t memory_allocated(DeviceIndex index) { return aggregate(stats_of(index).allocated_bytes).current; }
int64_t max_memory_allocated(DeviceIndex index) { return aggregate(stats_of(index).allocated_bytes).peak; }
int64_t memory_reserved(DeviceIndex index) { return aggregate(stats_of(index).reserved_bytes).current; }
int64_t max_memory_reserved(DeviceIndex index) { return aggregate(stats_of(index).reserved_bytes).peak; }
DeviceStats memory_stats(DeviceIndex index) { return stats_of(index); }
void reset_peak_memory_stats(DeviceIndex index) { CUDACachingAllocator::resetPeakStats(index); }
void empty_cache() {
  if (is_available()) CUDACachingAllocator::emptyCache();
}

// ---- pinned host memory ----
// Note [Pinned host memory]: cudaHostAlloc is slower than cudaMalloc (it maps pages for the
// device), so pinned blocks are cached by size class (powers of two) like device blocks. A
// block that a non-blocking copy used is reused only after the copy finished: the copy records
// an event on its stream (record_pinned_use) and the block waits for it after free.
namespace {
class PinnedAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    EMBER_CHECK(is_available(), "pin_memory: cannot allocate pinned host memory: CUDA is not available "
                "(no NVIDIA driver or GPU found)");
    if (nbytes == 0) return DataPtr(nullptr, nullptr, nullptr, Device(kCPU));
    size_t size = size_t(1) << (64 - __builtin_clzll((nbytes - 1) | 1));
    if (size < 512) size = 512;
    std::lock_guard<std::mutex> g(mu_);
    reclaim();
    void* p = nullptr;
    auto& list = free_[size];
    if (!list.empty()) {
      p = list.back();
      list.pop_back();
    } else {
      cudaError_t e = cudaHostAlloc(&p, size, cudaHostAllocDefault);
      if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        release_cached();
        e = cudaHostAlloc(&p, size, cudaHostAllocDefault);
      }
      EMBER_CUDA_CHECK(e);
    }
    blocks_[p] = Block{size, {}};
    return DataPtr(p, this, &release, Device(kCPU));
  }
  // The copy that just read or wrote `ptr` on `stream` must finish before its block is reused.
  bool record_use(const void* ptr, cudaStream_t stream) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = blocks_.upper_bound(const_cast<void*>(ptr));
    if (it == blocks_.begin()) return false;
    --it;
    if (static_cast<const char*>(ptr) >= static_cast<char*>(it->first) + it->second.size) return false;
    cudaEvent_t e = nullptr;
    EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    EMBER_CUDA_CHECK(cudaEventRecord(e, stream));
    it->second.events.push_back(e);
    return true;
  }
  void empty() {
    std::lock_guard<std::mutex> g(mu_);
    reclaim(/*wait=*/true);
    release_cached();
  }

 private:
  struct Block {
    size_t size;
    std::vector<cudaEvent_t> events;
  };
  static void release(void* ctx, void* data) {
    auto* self = static_cast<PinnedAllocator*>(ctx);
    std::lock_guard<std::mutex> g(self->mu_);
    self->pending_.push_back(data);
    self->reclaim();
  }
  // Moves freed blocks whose copies finished to the free lists.
  void reclaim(bool wait = false) {
    size_t kept = 0;
    for (void* p : pending_) {
      Block& b = blocks_.at(p);
      bool done = true;
      for (cudaEvent_t& e : b.events) {
        if (!e) continue;
        if (wait) (void)cudaEventSynchronize(e);
        if (!detail::query_done(cudaEventQuery(e), "cudaEventQuery")) {
          done = false;
          continue;
        }
        (void)cudaEventDestroy(e);
        e = nullptr;
      }
      if (!done) {
        pending_[kept++] = p;
        continue;
      }
      free_[b.size].push_back(p);
      blocks_.erase(p);
    }
    pending_.resize(kept);
  }
  void release_cached() {
    for (auto& [size, list] : free_) {
      for (void* p : list) (void)cudaFreeHost(p);
      list.clear();
    }
  }
  std::mutex mu_;
  std::map<void*, Block> blocks_;  // handed out or pending, by address
  std::vector<void*> pending_;
  std::map<size_t, std::vector<void*>> free_;
};
PinnedAllocator& pinned() {
  static auto* a = new PinnedAllocator();
  return *a;
}
}  // namespace

Allocator* pinned_host_allocator() { return &pinned(); }
bool record_pinned_use(const void* host_ptr, cudaStream_t stream) { return pinned().record_use(host_ptr, stream); }
void empty_pinned_cache() { pinned().empty(); }

bool is_pinned(const void* host_ptr) {
  if (!is_available() || !host_ptr) return false;
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, host_ptr) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  return attr.type == cudaMemoryTypeHost;
}

}  // namespace ember::cuda

namespace ember {
// Declared in core (ember/core/tensor.h); the CUDA runtime defines it.
void Tensor::record_stream(Stream s) const {
  EMBER_CHECK(defined(), "record_stream: undefined tensor");
  EMBER_CHECK(is_cuda(), "record_stream: expected a CUDA tensor, got one on ", device());
  EMBER_CHECK(s.device_type() == kCUDA, "record_stream: expected a CUDA stream, got ", s);
  cuda::CUDACachingAllocator::recordStream(storage().unsafeGetStorageImpl()->data_ptr, cuda::CUDAStream(s));
}
}  // namespace ember
