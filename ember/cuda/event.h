// CUDA events as in at::cuda::CUDAEvent: created lazily on the device of the first record,
// recorded on a stream, waited for by another stream (block) or by the host (synchronize),
// and timed against each other (elapsed_time, for events created with timing enabled).
#pragma once
#include "ember/cuda/stream.h"

namespace ember::cuda {

// cudaEvent flags (the CUDA runtime's values).
constexpr unsigned int kEventDefault = 0x00;        // cudaEventDefault: timing enabled
constexpr unsigned int kEventBlockingSync = 0x01;   // cudaEventBlockingSync
constexpr unsigned int kEventDisableTiming = 0x02;  // cudaEventDisableTiming

class CUDAEvent {
 public:
  // As in PyTorch, timing is off unless asked for (CUDAEvent(cudaEventDefault)).
  explicit CUDAEvent(unsigned int flags = kEventDisableTiming) : flags_(flags) {}
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  CUDAEvent(CUDAEvent&& o) noexcept { *this = std::move(o); }
  CUDAEvent& operator=(CUDAEvent&& o) noexcept;
  ~CUDAEvent();

  bool isCreated() const { return event_ != nullptr; }
  DeviceIndex device_index() const { return device_index_; }
  cudaEvent_t event() const { return event_; }
  operator cudaEvent_t() const { return event_; }  // NOLINT
  bool was_recorded() const { return recorded_; }

  // Records on the current stream of the current device / on `stream`.
  void record();
  void record(const CUDAStream& stream);
  void recordOnce(const CUDAStream& stream) { if (!recorded_) record(stream); }
  // Makes `stream` wait (on the device) for the work this event marks.
  void block(const CUDAStream& stream);
  // Whether the marked work has finished (true for an event never recorded).
  bool query() const;
  void synchronize() const;
  // Milliseconds from this event to `end` (both recorded, both with timing).
  float elapsed_time(const CUDAEvent& end) const;

 private:
  void create(DeviceIndex index);
  unsigned int flags_ = kEventDisableTiming;
  bool recorded_ = false;
  DeviceIndex device_index_ = -1;
  cudaEvent_t event_ = nullptr;
};

}  // namespace ember::cuda
