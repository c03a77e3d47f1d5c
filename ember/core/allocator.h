// Allocator and DataPtr: how storage memory is obtained and returned. The CPU allocator
// caches freed blocks instead of returning them to the OS (Note [CPU caching allocator]).
#pragma once
#include <cstddef>
#include <cstdint>

#include "ember/core/device.h"

namespace ember {

constexpr size_t kStorageAlignment = 64;

// An owned pointer with a type-erased deleter: deleter(ctx, data) frees the memory.
class DataPtr {
 public:
  using Deleter = void (*)(void* ctx, void* data);
  DataPtr() = default;
  DataPtr(void* data, void* ctx, Deleter deleter, Device device)
      : data_(data), ctx_(ctx), deleter_(deleter), device_(device) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept { *this = static_cast<DataPtr&&>(o); }
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) {
      clear();
      data_ = o.data_, ctx_ = o.ctx_, deleter_ = o.deleter_, device_ = o.device_;
      o.data_ = o.ctx_ = nullptr;
      o.deleter_ = nullptr;
    }
    return *this;
  }
  ~DataPtr() { clear(); }
  void clear() {
    if (deleter_) deleter_(ctx_, data_);
    data_ = ctx_ = nullptr;
    deleter_ = nullptr;
  }
  void* get() const { return data_; }
  void* context() const { return ctx_; }
  Deleter deleter() const { return deleter_; }
  Device device() const { return device_; }

 private:
  void* data_ = nullptr;
  void* ctx_ = nullptr;
  Deleter deleter_ = nullptr;
  Device device_{kCPU};
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Memory on the device's current index (CUDA: the current device and stream).
  virtual DataPtr allocate(size_t nbytes) = 0;
  // Memory on a given device (a device without index: the current one).
  virtual DataPtr allocate_on(size_t nbytes, Device device) { return allocate(nbytes); }
  // Copies n bytes between two blocks of this allocator (c10::Allocator::copy_data).
  virtual void copy_data(void* dest, const void* src, size_t n) const;
};

// The process-wide allocator for a device type: the CPU's, and CUDA's when ember was built
// with CUDA (ember/cuda/caching_allocator.cpp registers it).
Allocator* get_allocator(DeviceType t);
void set_allocator(DeviceType t, Allocator* a);

struct AllocatorStats {
  int64_t allocated_bytes = 0;       // bytes in live blocks (rounded block sizes)
  int64_t peak_allocated_bytes = 0;  // maximum of allocated_bytes since the last reset
  // What the live blocks were asked for (tensor bytes, before the size classes' rounding), and its
  // maximum since the last reset: PyTorch's requested_bytes. A large block's rounding tail is
  // never touched, so it is never resident: this is the memory tensors need.
  int64_t requested_bytes = 0;
  int64_t peak_requested_bytes = 0;
  int64_t reserved_bytes = 0;        // bytes obtained from the OS: live plus cached
  int64_t num_allocs = 0;            // allocate() calls
  int64_t num_os_allocs = 0;         // allocations that had to go to the OS
};

namespace cpu {
// Statistics of the CPU caching allocator.
AllocatorStats allocator_stats();
void reset_peak_stats();
// Returns every cached (free) block to the OS.
void empty_cache();
}  // namespace cpu

}  // namespace ember
