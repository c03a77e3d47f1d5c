// CUDA streams: the default stream, the per-thread current stream and the stream pools.
#include "ember/cuda/stream.h"

#include <array>
#include <atomic>
#include <mutex>
#include <ostream>

#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"

namespace ember::cuda {

namespace {
constexpr int kStreamsPerPool = 32;

DeviceIndex resolve(DeviceIndex index) {
  if (index < 0) return current_device();
  EMBER_CHECK(is_available(), "CUDA stream: CUDA is not available (no NVIDIA driver or GPU found)");
  EMBER_CHECK(index < device_count() && index < kMaxDevices, "CUDA stream: invalid device index ", int(index),
              " (this process sees ", device_count(), " CUDA device(s))");
  return index;
}

// The pools of a device: low- and high-priority streams, created on first use.
struct DevicePools {
  std::once_flag once;
  std::array<cudaStream_t, kStreamsPerPool> low{}, high{};
  std::atomic<uint32_t> next_low{0}, next_high{0};
};
DevicePools g_pools[kMaxDevices];

DevicePools& pools(DeviceIndex index) {
  DevicePools& p = g_pools[index];
  std::call_once(p.once, [&] {
    CUDAGuard g(index);
    int least = 0, greatest = 0;
    EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (int i = 0; i < kStreamsPerPool; ++i) {
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.low[i], cudaStreamNonBlocking, least));
      EMBER_CUDA_CHECK(cudaStreamCreateWithPriority(&p.high[i], cudaStreamNonBlocking, greatest));
    }
  });
  return p;
}

// The current stream per device of this thread; nullptr is the default stream.
thread_local std::array<cudaStream_t, kMaxDevices> t_current{};
}  // namespace

CUDAStream::CUDAStream(Stream stream)
    : device_(stream.device()), stream_(reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(stream.id()))) {
  EMBER_CHECK(stream.device_type() == kCUDA, "CUDAStream: expected a stream of a CUDA device, got ", stream);
}

bool CUDAStream::query() const {
  CUDAGuard g(device_index());
  return detail::query_done(cudaStreamQuery(stream_), "cudaStreamQuery");
}

void CUDAStream::synchronize() const {
  CUDAGuard g(device_index());
  EMBER_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

int CUDAStream::priority() const {
  CUDAGuard g(device_index());
  int p = 0;
  EMBER_CUDA_CHECK(cudaStreamGetPriority(stream_, &p));
  return p;
}

std::pair<int, int> CUDAStream::priority_range() {
  int least = 0, greatest = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  return {least, greatest};
}

std::ostream& operator<<(std::ostream& os, const CUDAStream& s) {
  return os << "stream " << s.id() << " on device " << s.device();
}

CUDAStream getDefaultCUDAStream(DeviceIndex device_index) {
  return CUDAStream(CUDAStream::UNCHECKED, Device(kCUDA, resolve(device_index)), nullptr);
}

CUDAStream getCurrentCUDAStream(DeviceIndex device_index) {
  DeviceIndex i = resolve(device_index);
  return CUDAStream(CUDAStream::UNCHECKED, Device(kCUDA, i), t_current[i]);
}

void setCurrentCUDAStream(CUDAStream stream) { t_current[resolve(stream.device_index())] = stream.stream(); }

CUDAStream getStreamFromPool(bool isHighPriority, DeviceIndex device_index) {
  DeviceIndex i = resolve(device_index);
  DevicePools& p = pools(i);
  cudaStream_t s = isHighPriority ? p.high[p.next_high++ % kStreamsPerPool] : p.low[p.next_low++ % kStreamsPerPool];
  return CUDAStream(CUDAStream::UNCHECKED, Device(kCUDA, i), s);
}

CUDAStream getStreamFromPool(int priority, DeviceIndex device_index) {
  // As c10: priority 0 is the low-priority pool, anything higher (more negative) the high one.
  return getStreamFromPool(priority < 0, device_index);
}

CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index) {
  return CUDAStream(CUDAStream::UNCHECKED, Device(kCUDA, resolve(device_index)), ext_stream);
}

// ---- guards ----
CUDAGuard::CUDAGuard(DeviceIndex index) : original_(cuda::current_device()), current_(original_) { set_index(index); }
CUDAGuard::CUDAGuard(Device device) : CUDAGuard(device.is_cuda() ? device.index() : DeviceIndex(-1)) {
  EMBER_CHECK(device.is_cuda(), "CUDAGuard: expected a CUDA device, got ", device);
}
CUDAGuard::~CUDAGuard() {
  if (current_ != original_) (void)cudaSetDevice(original_);  // never throws from a destructor
}
void CUDAGuard::set_device(Device device) {
  EMBER_CHECK(device.is_cuda(), "CUDAGuard: expected a CUDA device, got ", device);
  set_index(device.index());
}
void CUDAGuard::set_index(DeviceIndex index) {
  if (index < 0 || index == current_) return;  // cuda (no index): stay on the current device
  ember::cuda::set_device(index);
  current_ = index;
}

CUDAStreamGuard::CUDAStreamGuard(CUDAStream stream)
    : original_stream_(getCurrentCUDAStream(stream.device_index())), current_stream_(stream),
      original_device_(cuda::current_device()) {
  if (stream.device_index() != original_device_) set_device(stream.device_index());
  setCurrentCUDAStream(stream);
}
CUDAStreamGuard::~CUDAStreamGuard() {
  t_current[original_stream_.device_index()] = original_stream_.stream();
  if (current_stream_.device_index() != original_device_) (void)cudaSetDevice(original_device_);
}
void CUDAStreamGuard::reset_stream(CUDAStream stream) {
  if (stream.device_index() != current_stream_.device_index()) {
    // Restore the first device's stream, then take over the new device's.
    t_current[original_stream_.device_index()] = original_stream_.stream();
    original_stream_ = getCurrentCUDAStream(stream.device_index());
    set_device(stream.device_index());
  }
  current_stream_ = stream;
  setCurrentCUDAStream(stream);
}

}  // namespace ember::cuda
