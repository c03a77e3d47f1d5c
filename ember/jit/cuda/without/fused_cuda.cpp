// A build without CUDA: NVRTC is never opened and fused groups on CUDA tensors cannot exist.
#include "ember/jit/cuda_codegen.h"

namespace ember::jit::detail {

NvrtcResult nvrtc_compile(const std::string&, const std::string&, const std::string&) {
  NvrtcResult r;
  r.available = false;
  r.log = "this build of ember has no CUDA (NVRTC is not used)";
  return r;
}

bool run_fused_cuda(FusionGroup&, const std::vector<Tensor>&, std::string* why) {
  *why = "this build of ember has no CUDA";
  return false;
}

}  // namespace ember::jit::detail
