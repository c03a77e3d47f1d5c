// NVRTC compilation and launch of the fuser's CUDA kernels (cuda_codegen.h, Note [CUDA code
// generator] in ember/jit/cuda_codegen.cpp). CUDA builds only (ember/jit/cuda/without/ otherwise).
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <map>
#include <mutex>

#include "ember/core/error.h"
#include "ember/cuda/check.h"
#include "ember/cuda/guard.h"
#include "ember/cuda/lazy_library.h"
#include "ember/cuda/stream.h"
#include "ember/jit/cuda_codegen.h"
#include "ember/jit/fusion_group.h"
#include "ember/jit/kernel_cache.h"
#include "ember/ops/tensor_iterator.h"

namespace ember::jit::detail {

namespace {

struct Nvrtc {
  decltype(&nvrtcCreateProgram) create = nullptr;
  decltype(&nvrtcCompileProgram) compile = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetPTXSize) ptx_size = nullptr;
  decltype(&nvrtcGetPTX) ptx = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
  decltype(&nvrtcDestroyProgram) destroy = nullptr;
  decltype(&nvrtcVersion) version = nullptr;
  std::string error;  // why NVRTC cannot be used
};

const Nvrtc& nvrtc() {
  static const Nvrtc n = [] {
    Nvrtc r;
    static cuda::detail::LazyLibrary lib("libnvrtc.so." + std::to_string(CUDART_VERSION / 1000), "NVRTC");
    try {
      r.create = lib.resolve(&nvrtcCreateProgram, "nvrtcCreateProgram");
      r.compile = lib.resolve(&nvrtcCompileProgram, "nvrtcCompileProgram");
      r.log_size = lib.resolve(&nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
      r.log = lib.resolve(&nvrtcGetProgramLog, "nvrtcGetProgramLog");
      r.ptx_size = lib.resolve(&nvrtcGetPTXSize, "nvrtcGetPTXSize");
      r.ptx = lib.resolve(&nvrtcGetPTX, "nvrtcGetPTX");
      r.cubin_size = lib.resolve(&nvrtcGetCUBINSize, "nvrtcGetCUBINSize");
      r.cubin = lib.resolve(&nvrtcGetCUBIN, "nvrtcGetCUBIN");
      r.destroy = lib.resolve(&nvrtcDestroyProgram, "nvrtcDestroyProgram");
      r.version = lib.resolve(&nvrtcVersion, "nvrtcVersion");
    } catch (const std::exception& e) {
      r.create = nullptr;
      r.error = e.what();
    }
    return r;
  }();
  return n;
}

struct Driver {
  decltype(&cuModuleLoadData) load = nullptr;
  decltype(&cuModuleGetFunction) function = nullptr;
  decltype(&cuLaunchKernel) launch = nullptr;
  decltype(&cuGetErrorString) error_string = nullptr;
  std::string error;
};

const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    static cuda::detail::LazyLibrary lib("libcuda.so.1", "the CUDA driver");
    try {
      r.load = lib.resolve(&cuModuleLoadData, "cuModuleLoadData");
      r.function = lib.resolve(&cuModuleGetFunction, "cuModuleGetFunction");
      r.launch = lib.resolve(&cuLaunchKernel, "cuLaunchKernel");
      r.error_string = lib.resolve(&cuGetErrorString, "cuGetErrorString");
    } catch (const std::exception& e) {
      r.load = nullptr;
      r.error = e.what();
    }
    return r;
  }();
  return d;
}

std::string driver_error(CUresult r) {
  const char* s = nullptr;
  if (driver().error_string) driver().error_string(r, &s);
  return s ? s : "CUDA driver error " + std::to_string(int(r));
}

static_assert(kMaxKernelOperands == kMaxIteratorOperands, "a fused group's operands are an iterator's");

// The host side of the kernel's argument (the generated EmberFusedArgs, the same layout).
struct FusedArgs {
  char* data[kMaxKernelOperands];
  int64_t strides[kMaxKernelOperands][kMaxKernelDims];
  int64_t sizes[kMaxKernelDims];
  int ndim;
  int64_t n;
};

struct LoadedKernel {
  CUfunction function = nullptr;
  std::string error;
};

std::mutex g_mutex;
std::map<std::pair<std::string, int>, LoadedKernel>& loaded_kernels() {  // (group key, device)
  static std::map<std::pair<std::string, int>, LoadedKernel> m;
  return m;
}

const LoadedKernel& kernel_for(const FusionGroup& group, int device) {
  std::lock_guard<std::mutex> lock(g_mutex);
  LoadedKernel& k = loaded_kernels()[{group.key, device}];
  if (k.function || !k.error.empty()) return k;
  if (!nvrtc().create) return k.error = "NVRTC cannot be opened: " + nvrtc().error, k;
  if (!driver().load) return k.error = "the CUDA driver cannot be opened: " + driver().error, k;
  int major = 0, minor = 0;
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  EMBER_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  const std::string name = "ember_fused_" + std::to_string(fnv1a(group.key));
  const std::string source = cuda_kernel_source(group.spec, name);
  int nv_major = 0, nv_minor = 0;
  nvrtc().version(&nv_major, &nv_minor);
  const std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
  const std::string cache_key = source + "\n" + arch + ";nvrtc " + std::to_string(nv_major) + "." + std::to_string(nv_minor);
  std::string code;
  if (std::optional<std::string> cached = read_cached_kernel(cache_key, "cubin")) {
    code = std::move(*cached);
  } else {
    NvrtcResult r = nvrtc_compile(source, name, arch);
    if (r.code.empty()) r = nvrtc_compile(source, name, "compute_" + std::to_string(major) + std::to_string(minor));
    if (r.code.empty()) return k.error = "NVRTC could not compile the kernel for " + arch + ": " + r.log, k;
    code = std::move(r.code);
    write_cached_kernel(cache_key, "cubin", code);
  }
  cuda::CUDAGuard guard(static_cast<DeviceIndex>(device));
  EMBER_CUDA_CHECK(cudaFree(nullptr));  // the device's primary context, current on this thread
  CUmodule module = nullptr;
  if (CUresult r = driver().load(&module, code.data()); r != CUDA_SUCCESS)
    return k.error = "the CUDA driver could not load the kernel: " + driver_error(r), k;
  if (CUresult r = driver().function(&k.function, module, name.c_str()); r != CUDA_SUCCESS)
    return k.error = "the CUDA kernel has no entry point " + name + ": " + driver_error(r), k;
  return k;
}

}  // namespace

NvrtcResult nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch) {
  NvrtcResult r;
  const Nvrtc& n = nvrtc();
  if (!n.create) {
    r.available = false;
    r.log = n.error;
    return r;
  }
  nvrtcProgram prog = nullptr;
  if (n.create(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    r.log = "nvrtcCreateProgram failed";
    return r;
  }
  const std::string arch_flag = "--gpu-architecture=" + arch;
  const char* options[] = {arch_flag.c_str(), "--std=c++17", "-default-device"};
  const nvrtcResult compiled = n.compile(prog, 3, options);
  size_t log_size = 0;
  n.log_size(prog, &log_size);
  if (log_size > 1) {
    r.log.resize(log_size);
    n.log(prog, r.log.data());
    r.log.resize(log_size - 1);
  }
  if (compiled == NVRTC_SUCCESS) {
    size_t size = 0;
    const bool cubin = arch.rfind("sm_", 0) == 0;
    if (cubin ? n.cubin_size(prog, &size) == NVRTC_SUCCESS : n.ptx_size(prog, &size) == NVRTC_SUCCESS) {
      r.code.resize(size);
      if ((cubin ? n.cubin(prog, r.code.data()) : n.ptx(prog, r.code.data())) != NVRTC_SUCCESS) r.code.clear();
    }
  }
  n.destroy(&prog);
  return r;
}

bool run_fused_cuda(FusionGroup& group, const std::vector<Tensor>& operands, std::string* why) {
  const int device = operands.front().device().index();
  const LoadedKernel& k = kernel_for(group, device);
  if (!k.function) {
    *why = k.error;
    return false;
  }
  TensorIteratorConfig cfg;
  cfg.set_op_name("jit fused (CUDA)");
  cfg.promote_inputs_to_common_dtype(false).cast_common_dtype_to_outputs(false).check_all_same_dtype(false);
  for (const Tensor& t : operands) cfg.add_input(t);  // the outputs first (Note [Pointwise fusion])
  TensorIterator it = cfg.build();
  if (it.numel() == 0) return true;
  if (it.ndim() > kMaxKernelDims) {
    *why = "the fused kernel takes at most " + std::to_string(kMaxKernelDims) + " dimensions";
    return false;
  }
  FusedArgs a{};
  a.ndim = it.ndim();
  a.n = it.numel();
  for (int d = 0; d < it.ndim(); ++d) a.sizes[d] = it.shape()[size_t(d)];
  for (int k2 = 0; k2 < it.ntensors(); ++k2) {
    a.data[k2] = it.data_ptr(k2);
    for (int d = 0; d < it.ndim(); ++d) a.strides[k2][d] = it.strides(k2)[size_t(d)];
  }
  const unsigned threads = 256;
  const int64_t blocks = std::min<int64_t>((a.n + threads - 1) / threads, int64_t(1) << 20);
  cuda::CUDAGuard guard(static_cast<DeviceIndex>(device));
  void* params[] = {&a};
  const CUstream stream = cuda::getCurrentCUDAStream(static_cast<DeviceIndex>(device)).stream();
  if (CUresult r = driver().launch(k.function, unsigned(blocks), 1, 1, threads, 1, 1, 0, stream, params, nullptr);
      r != CUDA_SUCCESS)
    EMBER_ERROR("jit: launching a fused CUDA kernel failed: ", driver_error(r));
  return true;
}

}  // namespace ember::jit::detail
