// The CUDA device runtime's public face: whether a GPU is usable, devices, synchronization,
// seeding and the caching allocator's statistics. Declared in every build; in a build
// without CUDA (-DEMBER_CUDA=OFF, or no nvcc) is_available() is false, device_count() is 0
// and the calls that need a device raise an error saying so. torch::cuda:: and c10::cuda::
// are this namespace (compat/torch/torch.h).
#pragma once
#include <cstdint>
#include <string>

#include "ember/core/allocator.h"
#include "ember/core/caching_block_allocator.h"
#include "ember/core/context.h"
#include "ember/core/device.h"
#include "ember/core/generator.h"

namespace ember::cuda {

// The most CUDA devices one process uses.
constexpr int kMaxDevices = 64;

// Whether ember was compiled with CUDA (nvcc found at build time).
bool is_built();
// Whether CUDA can be used here: built with CUDA, a driver, and at least one GPU.
bool is_available();
// GPUs visible to this process (CUDA_VISIBLE_DEVICES applies); 0 without a driver or GPU.
int64_t device_count();
bool cudnn_is_available();

// The calling thread's current device (cudaGetDevice), and setting it.
DeviceIndex current_device();
void set_device(DeviceIndex index);
// Waits until the device (-1: the current one) finished all queued work.
void synchronize(int64_t device_index = -1);

// The default generator of a device (-1: the current one), as
// at::cuda::detail::getDefaultCUDAGenerator.
const Generator& default_cuda_generator(DeviceIndex index = -1);
// Seeds the default CUDA generator of the current device / of every device.
void manual_seed(uint64_t seed);
void manual_seed_all(uint64_t seed);

// The caching allocator (Note [Caching block allocator]): Python torch.cuda's names.
int64_t memory_allocated(DeviceIndex index = -1);
int64_t max_memory_allocated(DeviceIndex index = -1);
int64_t memory_reserved(DeviceIndex index = -1);
int64_t max_memory_reserved(DeviceIndex index = -1);
DeviceStats memory_stats(DeviceIndex index = -1);
void reset_peak_memory_stats(DeviceIndex index = -1);
// Returns the cached, unused device memory of every device to the driver.
void empty_cache();

// Pinned (page-locked) host memory for fast, asynchronous copies (Tensor::pin_memory).
Allocator* pinned_host_allocator();
bool is_pinned(const void* host_ptr);

struct DeviceProperties {
  std::string name;
  int major = 0, minor = 0;  // compute capability
  int64_t total_memory = 0;
  int multi_processor_count = 0;
};
DeviceProperties get_device_properties(DeviceIndex index = -1);

}  // namespace ember::cuda
