// ember/cuda's API in a build without CUDA (-DEMBER_CUDA=OFF or no nvcc): CUDA is never
// available; what needs a device says that ember was built without it.
#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/cuda/caching_allocator.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/event.h"
#include "ember/cuda/guard.h"

namespace ember::cuda {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  EMBER_ERROR(what, ": ember was built without CUDA (configure with -DEMBER_CUDA=ON on a machine with "
              "the CUDA toolkit); torch::cuda::is_available() is false");
}
}  // namespace

bool is_built() { return false; }
bool is_available() { return false; }
int64_t device_count() { return 0; }
bool cudnn_is_available() { return false; }
DeviceIndex current_device() { no_cuda("current_device"); }
void set_device(DeviceIndex) { no_cuda("set_device"); }
void synchronize(int64_t) { no_cuda("synchronize"); }
const Generator& default_cuda_generator(DeviceIndex) { no_cuda("default_cuda_generator"); }
void manual_seed(uint64_t) {}  // as PyTorch: seeding CUDA without CUDA does nothing
void manual_seed_all(uint64_t) {}
// No device ever allocated: the statistics are zero, the cache is empty.
int64_t memory_allocated(DeviceIndex) { return 0; }
int64_t max_memory_allocated(DeviceIndex) { return 0; }
int64_t memory_reserved(DeviceIndex) { return 0; }
int64_t max_memory_reserved(DeviceIndex) { return 0; }
DeviceStats memory_stats(DeviceIndex) { return {}; }
void reset_peak_memory_stats(DeviceIndex) {}
void empty_cache() {}
Allocator* pinned_host_allocator() { no_cuda("pin_memory"); }
bool is_pinned(const void*) { return false; }
bool record_pinned_use(const void*, cudaStream_t) { return false; }
void empty_pinned_cache() {}
DeviceProperties get_device_properties(DeviceIndex) { no_cuda("get_device_properties"); }

CUDAStream::CUDAStream(Stream) : device_(kCUDA), stream_(nullptr) { no_cuda("CUDAStream"); }
bool CUDAStream::query() const { no_cuda("CUDAStream::query"); }
void CUDAStream::synchronize() const { no_cuda("CUDAStream::synchronize"); }
int CUDAStream::priority() const { no_cuda("CUDAStream::priority"); }
std::pair<int, int> CUDAStream::priority_range() { no_cuda("CUDAStream::priority_range"); }
std::ostream& operator<<(std::ostream& os, const CUDAStream& s) { return os << "stream " << s.id(); }
CUDAStream getDefaultCUDAStream(DeviceIndex) { no_cuda("getDefaultCUDAStream"); }
CUDAStream getCurrentCUDAStream(DeviceIndex) { no_cuda("getCurrentCUDAStream"); }
void setCurrentCUDAStream(CUDAStream) { no_cuda("setCurrentCUDAStream"); }
CUDAStream getStreamFromPool(bool, DeviceIndex) { no_cuda("getStreamFromPool"); }
CUDAStream getStreamFromPool(int, DeviceIndex) { no_cuda("getStreamFromPool"); }
CUDAStream getStreamFromExternal(cudaStream_t, DeviceIndex) { no_cuda("getStreamFromExternal"); }

CUDAGuard::CUDAGuard(DeviceIndex) { no_cuda("CUDAGuard"); }
CUDAGuard::CUDAGuard(Device) { no_cuda("CUDAGuard"); }
CUDAGuard::~CUDAGuard() = default;
void CUDAGuard::set_device(Device) { no_cuda("CUDAGuard::set_device"); }
void CUDAGuard::set_index(DeviceIndex) { no_cuda("CUDAGuard::set_index"); }
CUDAStreamGuard::CUDAStreamGuard(CUDAStream s) : original_stream_(s), current_stream_(s), original_device_(-1) {
  no_cuda("CUDAStreamGuard");
}
CUDAStreamGuard::~CUDAStreamGuard() = default;
void CUDAStreamGuard::reset_stream(CUDAStream) { no_cuda("CUDAStreamGuard::reset_stream"); }

CUDAEvent& CUDAEvent::operator=(CUDAEvent&& o) noexcept {
  flags_ = o.flags_;
  return *this;
}
CUDAEvent::~CUDAEvent() = default;
void CUDAEvent::record() { no_cuda("CUDAEvent::record"); }
void CUDAEvent::record(const CUDAStream&) { no_cuda("CUDAEvent::record"); }
void CUDAEvent::block(const CUDAStream&) { no_cuda("CUDAEvent::block"); }
bool CUDAEvent::query() const { return true; }  // never recorded
void CUDAEvent::synchronize() const {}
float CUDAEvent::elapsed_time(const CUDAEvent&) const { no_cuda("CUDAEvent::elapsed_time"); }
void CUDAEvent::create(DeviceIndex) { no_cuda("CUDAEvent"); }

namespace CUDACachingAllocator {
Allocator* get() { no_cuda("CUDACachingAllocator::get"); }
DeviceStats getDeviceStats(DeviceIndex) { return {}; }
void resetPeakStats(DeviceIndex) {}
void resetAccumulatedStats(DeviceIndex) {}
void emptyCache() {}
void recordStream(const DataPtr&, CUDAStream) { no_cuda("CUDACachingAllocator::recordStream"); }
void* raw_alloc(size_t) { no_cuda("CUDACachingAllocator::raw_alloc"); }
void* raw_alloc_with_stream(size_t, cudaStream_t) { no_cuda("CUDACachingAllocator::raw_alloc"); }
void raw_delete(void*) { no_cuda("CUDACachingAllocator::raw_delete"); }
}  // namespace CUDACachingAllocator

}  // namespace ember::cuda

namespace ember {
void Tensor::record_stream(Stream s) const {
  EMBER_CHECK(defined(), "record_stream: undefined tensor");
  EMBER_CHECK(false, "record_stream: ember was built without CUDA (the tensor is on ", device(), ", the stream ", s,
              ")");
}
}  // namespace ember
