// The op registry and run-time choice of the CPU kernel instruction set.
#include "ember/ops/op_def.h"

#include "ember/ops/dispatch.h"

#include <cstdlib>
#include <cstring>
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#include <map>
#include <mutex>
#include <string>

namespace ember {

namespace {
std::vector<OpInfo*>& registry() {
  static std::vector<OpInfo*> r;
  return r;
}
}  // namespace

const std::vector<OpInfo*>& OpInfo::all() { return registry(); }
OpInfo* OpInfo::find(std::string_view name) {
  for (OpInfo* op : registry()) if (op->name == name) return op;
  return nullptr;
}
void OpInfo::register_self() { registry().push_back(this); }

namespace {
struct KernelTable {
  std::mutex mu;
  // (op, device) -> kernel per CPU capability
  std::map<std::pair<std::string, int>, std::array<void*, size_t(CpuCapability::NumCapabilities)>> fns;
};
KernelTable& kernel_table() {
  static KernelTable t;
  return t;
}
}  // namespace

void register_kernel(std::string_view op, DeviceType d, CpuCapability cap, void* fn) {
  auto& t = kernel_table();
  std::lock_guard<std::mutex> g(t.mu);
  t.fns[{std::string(op), int(d)}][size_t(cap)] = fn;
}

void* lookup_kernel(std::string_view op, DeviceType d) {
  auto& t = kernel_table();
  std::lock_guard<std::mutex> g(t.mu);
  auto it = t.fns.find({std::string(op), int(d)});
  if (it == t.fns.end()) return nullptr;
  int best = d == kCPU ? int(best_cpu_capability()) : 0;
  for (int c = best; c >= 0; --c) if (it->second[c]) return it->second[c];
  return nullptr;
}

CpuCapability best_cpu_capability() {
  static const CpuCapability cap = [] {
    // EMBER_CPU_CAPABILITY=default forces the portable kernels (for testing both paths).
    if (const char* env = std::getenv("EMBER_CPU_CAPABILITY"))
      if (std::strcmp(env, "default") == 0) return CpuCapability::Default;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
      return CpuCapability::AVX512;
#elif defined(__aarch64__)
    if (::getauxval(AT_HWCAP) & HWCAP_SVE) return CpuCapability::SVE;  // what the kernel reports
#endif
    return CpuCapability::Default;
  }();
  return cap;
}

}  // namespace ember

namespace ember::detail {
void unsupported_dtype(const char* op, ScalarType t) {
  throw TypeError(str_cat(op, ": not implemented for dtype ", t));
}
}  // namespace ember::detail
