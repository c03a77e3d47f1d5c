// The CUDA runtime: devices, synchronization, properties and error reporting.
#include <cuda_runtime_api.h>

#include <mutex>
#include <vector>

#include "ember/core/generator.h"
#include "ember/core/seed_hooks.h"
#include "ember/cuda/check.h"
#include "ember/cuda/cuda.h"
#include "ember/cuda/guard.h"

namespace ember::cuda {

namespace detail {
void raise_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  (void)cudaGetLastError();  // clear the sticky error of a non-fatal failure
  std::string msg = ember::detail::str_cat("CUDA error: ", cudaGetErrorString(err), " (", cudaGetErrorName(err),
                                           ") in ", call, " at ", file, ":", line);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemoryError(msg);
  throw Error(msg);
}
}  // namespace detail

bool is_built() { return true; }

int64_t device_count() {
  // Asked once: the answer cannot change while the process runs (CUDA_VISIBLE_DEVICES is read
  // at the runtime's start).
  static const int64_t n = [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      (void)cudaGetLastError();  // no driver or no device: CUDA is simply not available
      return int64_t(0);
    }
    return int64_t(count);
  }();
  return n;
}

bool is_available() { return device_count() > 0; }

namespace {
void check_index(DeviceIndex index, const char* what) {
  EMBER_CHECK(is_available(), what, ": CUDA is not available (no NVIDIA driver or GPU found; "
              "torch::cuda::is_available() is false)");
  EMBER_CHECK(index >= 0 && index < device_count(), what, ": invalid device index ", int(index),
              " (this process sees ", device_count(), " CUDA device(s))");
}
}  // namespace

DeviceIndex current_device() {
  EMBER_CHECK(is_available(), "current_device: CUDA is not available (no NVIDIA driver or GPU found)");
  int d = 0;
  EMBER_CUDA_CHECK(cudaGetDevice(&d));
  return DeviceIndex(d);
}

void set_device(DeviceIndex index) {
  check_index(index, "set_device");
  EMBER_CUDA_CHECK(cudaSetDevice(index));
}

void synchronize(int64_t device_index) {
  DeviceIndex i = device_index < 0 ? current_device() : DeviceIndex(device_index);
  check_index(i, "synchronize");
  CUDAGuard g(i);
  EMBER_CUDA_CHECK(cudaDeviceSynchronize());
}

DeviceProperties get_device_properties(DeviceIndex index) {
  DeviceIndex i = index < 0 ? current_device() : index;
  check_index(i, "get_device_properties");
  cudaDeviceProp p{};
  EMBER_CUDA_CHECK(cudaGetDeviceProperties(&p, i));
  DeviceProperties r;
  r.name = p.name;
  r.major = p.major;
  r.minor = p.minor;
  r.total_memory = int64_t(p.totalGlobalMem);
  r.multi_processor_count = p.multiProcessorCount;
  return r;
}

// A GPU and a cuDNN library that opens (ops/cuda/conv_cudnn.cpp: convolutions use it).
bool cudnn_available_impl();
bool cudnn_is_available() { return cudnn_available_impl(); }

// ---- generators ----
// One default generator per device; the CUDA random kernels draw Philox numbers from its
// seed and counter (GeneratorImpl::reserve_philox).
void manual_seed(uint64_t seed) {
  if (!is_available()) return;  // as PyTorch: seeding CUDA without a GPU is silently a no-op
  default_cuda_generator().set_current_seed(seed);
}
void manual_seed_all(uint64_t seed) {
  for (int64_t i = 0; i < device_count(); ++i) default_cuda_generator(DeviceIndex(i)).set_current_seed(seed);
}
namespace {
// torch::manual_seed seeds every GPU too (ember/core/seed_hooks.h).
const bool cuda_seeded_with_the_cpu = (ember::detail::add_manual_seed_hook(&manual_seed_all), true);
}  // namespace

const Generator& default_cuda_generator(DeviceIndex index) {
  if (index < 0) index = current_device();
  static std::once_flag once;
  static std::vector<Generator> gens;
  std::call_once(once, [] {
    for (int64_t i = 0; i < device_count(); ++i)
      gens.push_back(make_generator<GeneratorImpl>(GeneratorImpl::kDefaultSeed, Device(kCUDA, DeviceIndex(i))));
  });
  check_index(index, "default_cuda_generator");
  return gens[size_t(index)];
}

}  // namespace ember::cuda
