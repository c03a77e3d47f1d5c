// The op registry and run-time choice of the CPU kernel instruction set.
#include "ember/ops/op_def.h"

#include "ember/ops/config.h"
#include "ember/ops/cpu_capability_env.h"
#include "ember/ops/dispatch.h"

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
  std::array<bool, size_t(CpuCapability::NumCapabilities)> cpu_sets{};  // the sets this build compiled
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
  if (d == kCPU) t.cpu_sets[size_t(cap)] = true;
}

// The widest instruction set this CPU runs that this build compiled kernels for (config.h).
int detail::cpu_kernel_set_in_use() {
  auto& t = kernel_table();
  std::lock_guard<std::mutex> g(t.mu);
  int c = int(best_cpu_capability());
  while (c > 0 && !t.cpu_sets[c]) --c;
  return c;
}

void* lookup_kernel(std::string_view op, DeviceType d) {
  auto& t = kernel_table();
  std::lock_guard<std::mutex> g(t.mu);
  auto it = t.fns.find({std::string(op), int(d)});
  if (it == t.fns.end()) return nullptr;
  int best = d == kCPU ? int(best_cpu_capability()) : 0;
  for (int c = best; c >= 0; --c) if (it->second[c]) return it->second[c];
  // Only wider sets than this CPU (or EMBER_CPU_CAPABILITY=default) allows: a build for another
  // machine (EMBER_CPU_CAPABILITIES without "default", as `make test` builds on an AVX-512 one).
  for (int c = best + 1; c < int(CpuCapability::NumCapabilities); ++c)
    EMBER_CHECK(!it->second[c], op, ": this build has CPU kernels only for instruction sets this CPU does not run ",
                "(or that EMBER_CPU_CAPABILITY=default excludes): rebuild with 'default' in EMBER_CPU_CAPABILITIES");
  return nullptr;
}

CpuCapability best_cpu_capability() {
  static const CpuCapability cap = [] {
    if (detail::cpu_capability_forced_default()) return CpuCapability::Default;
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
