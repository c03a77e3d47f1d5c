// Internal: FFTs on a device (ops/fft.cpp -> ops/cuda/fft_cufft.cpp).
//
// Note [Device FFTs]
// torch::fft keeps one op-level implementation (argument checks, promotion, resizing, norm
// modes, autograd, the two-sided spectrum); on a device its three primitives (c2c, r2c, c2r)
// move the transformed dims last, up to three at a time (cuFFT's largest rank), make them
// contiguous and hand them to the device's DeviceFft, registered by name ("device_fft"). A
// transform over more than three dims runs as several. The routines are unnormalised (the op
// scales) and never synchronise the host.
#pragma once
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

struct DeviceFft {
  // In place over the last `rank` (1 to 3) dims of the contiguous complex x, batched over the
  // others; forward: exp(-2 pi i jk/n), backward: exp(+2 pi i jk/n).
  void (*c2c)(const Tensor& x, int64_t rank, bool forward);
  // Forward real-to-complex over the last `rank` dims: contiguous real in (*, n_1 .. n_r) to
  // contiguous complex out (*, n_1 .. n_{r-1}, n_r / 2 + 1).
  void (*r2c)(const Tensor& in, const Tensor& out, int64_t rank);
  // Backward complex-to-real, the inverse layout of r2c; `in` may be overwritten.
  void (*c2r)(const Tensor& in, const Tensor& out, int64_t rank);
};

// What a device registers: KernelRegistrar<DeviceFftFn>("device_fft", kCUDA, ...).
using DeviceFftFn = const DeviceFft* (*)();

namespace fft_detail {

// Testing only: while one is alive on this thread, CPU tensors take the device path with
// `table` (tests/ops/fft_device_glue_test.cpp); a null table turns the device path off again.
class ScopedDeviceFftForCpu {
 public:
  explicit ScopedDeviceFftForCpu(const DeviceFft* table);
  ~ScopedDeviceFftForCpu();
  ScopedDeviceFftForCpu(const ScopedDeviceFftForCpu&) = delete;
  ScopedDeviceFftForCpu& operator=(const ScopedDeviceFftForCpu&) = delete;

 private:
  const DeviceFft* previous_;
};

}  // namespace fft_detail
}  // namespace ember
