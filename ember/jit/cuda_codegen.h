// The fuser's CUDA code generator (internal to ember::jit; Note [CUDA code generator] in
// cuda_codegen.cpp).
#pragma once
#include <string>
#include <vector>

#include "ember/core/macros.h"
#include "ember/core/tensor.h"
#include "ember/jit/kernel_spec.h"

namespace ember::jit {
class Graph;
struct FusionGroup;

namespace detail {

// The CUDA C++ of a fused group's kernel: `extern "C" __global__ void <name>(EmberFusedArgs)`.
EMBER_API std::string cuda_kernel_source(const KernelSpec& spec, const std::string& name);

// NVRTC's compilation of `source` for `arch`: "sm_90" gives a CUDA binary (cubin), "compute_90"
// PTX. `available` is false when NVRTC cannot be opened (then `log` says why).
struct NvrtcResult {
  bool available = true;
  std::string code, log;
};
EMBER_API NvrtcResult nvrtc_compile(const std::string& source, const std::string& name, const std::string& arch);

// Each fused group of g compiled for `arch` by NVRTC (tests; needs no GPU): its source and result.
struct CudaGroupReport {
  std::string source;
  NvrtcResult result;
};
EMBER_API std::vector<CudaGroupReport> compile_cuda_groups(const Graph& g, const std::string& arch);

// Runs a fused group on CUDA tensors (outputs already allocated on their device): false, with
// *why, when it cannot (no NVRTC or driver, too many dimensions); the caller then runs the ops.
bool run_fused_cuda(FusionGroup& group, const std::vector<Tensor>& operands, std::string* why);

}  // namespace detail
}  // namespace ember::jit
