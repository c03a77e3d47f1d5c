// c10::Stream: a device-independent handle of a stream of work (which device, and an id the
// device's runtime understands: for CUDA the cudaStream_t). Device backends convert to and
// from it (c10::cuda::CUDAStream); Tensor::record_stream takes it.
#pragma once
#include <cstdint>
#include <ostream>

#include "ember/core/device.h"

namespace ember {

using StreamId = int64_t;

class Stream {
 public:
  enum Unsafe { UNSAFE };
  enum Default { DEFAULT };
  // A stream from its parts, as a backend hands them out (id 0: the default stream).
  Stream(Unsafe, Device device, StreamId id) : device_(device), id_(id) {}
  // The default stream of `device`.
  Stream(Default, Device device) : device_(device), id_(0) {}

  Device device() const noexcept { return device_; }
  DeviceType device_type() const noexcept { return device_.type(); }
  DeviceIndex device_index() const noexcept { return device_.index(); }
  StreamId id() const noexcept { return id_; }
  bool operator==(const Stream& o) const noexcept { return device_ == o.device_ && id_ == o.id_; }
  bool operator!=(const Stream& o) const noexcept { return !(*this == o); }

 private:
  Device device_;
  StreamId id_;
};

inline std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "stream " << s.id() << " on device " << s.device();
}

}  // namespace ember
