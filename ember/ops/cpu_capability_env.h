// EMBER_CPU_CAPABILITY=default (or PyTorch's ATEN_CPU_CAPABILITY=default): the portable kernels
// only, for testing both paths: no wide kernel set (op_def.cpp, best_cpu_capability) and no
// instruction-set extension path (arm_bf16.h). Header-only: the Arm smoke test links no library.
#pragma once
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace ember::detail {
inline bool cpu_capability_forced_default() {
  static const bool forced = [] {
    for (const char* name : {"EMBER_CPU_CAPABILITY", "ATEN_CPU_CAPABILITY"})
      if (const char* env = std::getenv(name))
        if (std::strcmp(env, "default") == 0) return true;
    return false;
  }();
  return forced;
}
}  // namespace ember::detail
