// CUDA events.
#include "ember/cuda/event.h"

#include <utility>

#include "ember/cuda/check.h"
#include "ember/cuda/guard.h"

namespace ember::cuda {

CUDAEvent& CUDAEvent::operator=(CUDAEvent&& o) noexcept {
  if (this != &o) {
    std::swap(flags_, o.flags_);
    std::swap(recorded_, o.recorded_);
    std::swap(device_index_, o.device_index_);
    std::swap(event_, o.event_);
  }
  return *this;
}

CUDAEvent::~CUDAEvent() {
  if (!event_) return;
  try {
    CUDAGuard g(device_index_);
    (void)cudaEventDestroy(event_);
  } catch (...) {
    // The driver is gone (exit) or the context broken: nothing left to release.
  }
}

void CUDAEvent::create(DeviceIndex index) {
  CUDAGuard g(index);
  EMBER_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
  device_index_ = index;
}

void CUDAEvent::record() { record(getCurrentCUDAStream()); }

void CUDAEvent::record(const CUDAStream& stream) {
  if (!event_) create(stream.device_index());
  EMBER_CHECK(device_index_ == stream.device_index(), "CUDAEvent::record: the event was created on cuda:",
              int(device_index_), " and cannot be recorded on a stream of cuda:", int(stream.device_index()));
  CUDAGuard g(device_index_);
  EMBER_CUDA_CHECK(cudaEventRecord(event_, stream.stream()));
  recorded_ = true;
}

void CUDAEvent::block(const CUDAStream& stream) {
  if (!event_) return;  // nothing recorded: nothing to wait for
  CUDAGuard g(stream.device_index());
  EMBER_CUDA_CHECK(cudaStreamWaitEvent(stream.stream(), event_, 0));
}

bool CUDAEvent::query() const {
  return !event_ || detail::query_done(cudaEventQuery(event_), "cudaEventQuery");
}

void CUDAEvent::synchronize() const {
  if (event_) EMBER_CUDA_CHECK(cudaEventSynchronize(event_));
}

float CUDAEvent::elapsed_time(const CUDAEvent& end) const {
  EMBER_CHECK(!(flags_ & kEventDisableTiming) && !(end.flags_ & kEventDisableTiming),
              "CUDAEvent::elapsed_time: both events must be created with timing enabled "
              "(CUDAEvent(cudaEventDefault))");
  EMBER_CHECK(recorded_ && end.recorded_, "CUDAEvent::elapsed_time: both events must be recorded first");
  float ms = 0;
  CUDAGuard g(device_index_);
  EMBER_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, end.event_));
  return ms;
}

}  // namespace ember::cuda
