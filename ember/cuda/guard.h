// Device and stream guards (c10::DeviceGuard, c10::cuda::CUDAGuard, OptionalCUDAGuard,
// CUDAStreamGuard): set the current device or stream for a scope and restore it after.
#pragma once
#include <optional>

#include "ember/cuda/stream.h"

namespace ember {

namespace cuda {

class CUDAGuard {
 public:
  explicit CUDAGuard(DeviceIndex index);
  explicit CUDAGuard(Device device);
  CUDAGuard(const CUDAGuard&) = delete;
  CUDAGuard& operator=(const CUDAGuard&) = delete;
  ~CUDAGuard();
  void set_device(Device device);
  void reset_device(Device device) { set_device(device); }
  void set_index(DeviceIndex index);
  Device original_device() const { return Device(kCUDA, original_); }
  Device current_device() const { return Device(kCUDA, current_); }

 private:
  DeviceIndex original_ = -1, current_ = -1;
};

// A CUDAGuard that may hold nothing (constructed without a device, or from nullopt).
class OptionalCUDAGuard {
 public:
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(std::optional<Device> device) { if (device) set_device(*device); }
  explicit OptionalCUDAGuard(std::optional<DeviceIndex> index) { if (index) set_index(*index); }
  void set_device(Device device) { device.is_cuda() ? set_index(device.index()) : void(); }
  void set_index(DeviceIndex index) {
    if (guard_) guard_->set_index(index);
    else guard_.emplace(index);
  }
  void reset() { guard_.reset(); }
  std::optional<Device> original_device() const {
    return guard_ ? std::optional<Device>(guard_->original_device()) : std::nullopt;
  }
  std::optional<Device> current_device() const {
    return guard_ ? std::optional<Device>(guard_->current_device()) : std::nullopt;
  }

 private:
  std::optional<CUDAGuard> guard_;
};

// Makes `stream` current on its device (and its device current) for the scope.
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(CUDAStream stream);
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  ~CUDAStreamGuard();
  void reset_stream(CUDAStream stream);
  CUDAStream original_stream() const { return original_stream_; }
  CUDAStream current_stream() const { return current_stream_; }
  Device original_device() const { return Device(kCUDA, original_device_); }
  Device current_device() const { return current_stream_.device(); }

 private:
  CUDAStream original_stream_, current_stream_;
  DeviceIndex original_device_;
};

}  // namespace cuda

// c10::DeviceGuard: for a CUDA device, a CUDAGuard; for the CPU and meta, nothing.
class DeviceGuard {
 public:
  explicit DeviceGuard(Device device) { if (device.is_cuda()) guard_.emplace(device); }
  Device original_device() const { return guard_ ? guard_->original_device() : Device(kCPU); }
  Device current_device() const { return guard_ ? guard_->current_device() : Device(kCPU); }

 private:
  std::optional<cuda::CUDAGuard> guard_;
};

}  // namespace ember
