// CUDA streams as in c10::cuda: a current stream per device and thread (the default stream
// until set), a pool of streams to hand out, and a guard that sets the current stream for a
// scope. Kernels and copies that ember queues go to the current stream of their device.
#pragma once
#include <cstdint>
#include <iosfwd>

#include "ember/core/device.h"
#include "ember/core/stream.h"

// The CUDA runtime's own handle types (the same declarations as <cuda_runtime_api.h>), so
// these headers need no CUDA headers.
typedef struct CUstream_st* cudaStream_t;  // NOLINT
typedef struct CUevent_st* cudaEvent_t;    // NOLINT

namespace ember::cuda {

class CUDAStream {
 public:
  enum Unchecked { UNCHECKED };
  CUDAStream(Unchecked, Device device, cudaStream_t stream) : device_(device), stream_(stream) {}
  // From a generic stream of a CUDA device (c10::cuda::CUDAStream(c10::Stream)).
  explicit CUDAStream(Stream stream);

  // The generic handle (c10::Stream): implicit, as in c10.
  operator Stream() const { return unwrap(); }  // NOLINT
  Stream unwrap() const { return Stream(Stream::UNSAFE, device_, id()); }

  cudaStream_t stream() const { return stream_; }
  operator cudaStream_t() const { return stream_; }  // NOLINT: implicit as in c10
  Device device() const { return device_; }
  DeviceIndex device_index() const { return device_.index(); }
  DeviceType device_type() const { return kCUDA; }
  // A number that identifies the stream (its handle; 0 for the default stream).
  int64_t id() const { return int64_t(reinterpret_cast<uintptr_t>(stream_)); }
  bool is_default() const { return stream_ == nullptr; }
  // Whether all work queued on the stream has finished.
  bool query() const;
  // Blocks the host until all work queued on the stream has finished.
  void synchronize() const;
  int priority() const;
  bool operator==(const CUDAStream& o) const { return device_ == o.device_ && stream_ == o.stream_; }
  bool operator!=(const CUDAStream& o) const { return !(*this == o); }

  // The range of stream priorities (lower numbers run first), as cudaDeviceGetStreamPriorityRange.
  static std::pair<int, int> priority_range();

 private:
  Device device_;
  cudaStream_t stream_;
};
std::ostream& operator<<(std::ostream& os, const CUDAStream& s);

// The stream ember uses on a device when none was set: the device's default stream.
CUDAStream getDefaultCUDAStream(DeviceIndex device_index = -1);
// The calling thread's current stream on a device (-1: the current device).
CUDAStream getCurrentCUDAStream(DeviceIndex device_index = -1);
void setCurrentCUDAStream(CUDAStream stream);
// A stream from the device's pool (32 per priority, handed out round robin).
CUDAStream getStreamFromPool(bool isHighPriority = false, DeviceIndex device_index = -1);
CUDAStream getStreamFromPool(int priority, DeviceIndex device_index = -1);
// Wraps a stream created elsewhere (ember never destroys it).
CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index);

}  // namespace ember::cuda
