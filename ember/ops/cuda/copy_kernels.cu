// CUDA kernels of copy_ (every dtype pair; a device memcpy for dense same-dtype copies) and
// fill_ (the value travels in the launch arguments: a 0-dim CPU tensor input).
#include "ember/ops/cuda/loops.cuh"
#include "ember/ops/op_def.h"

namespace ember::cuda {
namespace {

struct Identity {
  template <class T>
  EMBER_HD T operator()(T x) const { return x; }
};

// Same dtype: move the bytes (an element type of the right size; no conversion).
void copy_same(TensorIterator& it, size_t isz) {
  if (it.is_contiguous()) {
    CUDAGuard g(it.output(0).device().index());
    EMBER_CUDA_CHECK(cudaMemcpyAsync(it.data_ptr(0), it.data_ptr(1), size_t(it.numel()) * isz,
                                     cudaMemcpyDeviceToDevice, getCurrentCUDAStream().stream()));
    return;
  }
  switch (isz) {
    case 1: gpu_kernel<uint8_t, uint8_t>(it, Identity{}); return;
    case 2: gpu_kernel<uint16_t, uint16_t>(it, Identity{}); return;
    case 4: gpu_kernel<uint32_t, uint32_t>(it, Identity{}); return;
    case 8: gpu_kernel<uint64_t, uint64_t>(it, Identity{}); return;
    case 16: gpu_kernel<Complex<double>, Complex<double>>(it, Identity{}); return;
  }
  EMBER_INTERNAL_ASSERT(false, "copy_: element size ", isz);
}

void copy_kernel(TensorIterator& it) {
  const ScalarType dst_t = it.dtype(0), src_t = it.dtype(1);
  if (dst_t == src_t) return copy_same(it, element_size(dst_t));
  visit_dtype<kAllTypes>(dst_t, "copy_", [&](auto dtag) {
    using D = typename decltype(dtag)::type;
    visit_dtype<kAllTypes>(src_t, "copy_", [&](auto stag) {
      using S = typename decltype(stag)::type;
      gpu_kernel<D, S>(it, Identity{});
    });
  });
}

// fill_: operand 1 is a 0-dim CPU tensor of the output's dtype, passed by value.
void fill_kernel(TensorIterator& it) {
  switch (element_size(it.dtype(0))) {
    case 1: gpu_kernel<uint8_t, uint8_t>(it, Identity{}); return;
    case 2: gpu_kernel<uint16_t, uint16_t>(it, Identity{}); return;
    case 4: gpu_kernel<uint32_t, uint32_t>(it, Identity{}); return;
    case 8: gpu_kernel<uint64_t, uint64_t>(it, Identity{}); return;
    case 16: gpu_kernel<Complex<double>, Complex<double>>(it, Identity{}); return;
  }
}

using IterFn = void (*)(TensorIterator&);
const KernelRegistrar<IterFn> copy_reg("copy_", kCUDA, CpuCapability::Default, &copy_kernel);
const KernelRegistrar<IterFn> fill_reg("fill_", kCUDA, CpuCapability::Default, &fill_kernel);

}  // namespace
}  // namespace ember::cuda
