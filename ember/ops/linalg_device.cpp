// The lookup of a device's DeviceLapack (Note [Device linear algebra], linalg_device.h).
#include "ember/ops/linalg_device.h"

#include "ember/ops/op_def.h"

namespace ember::linalg_detail {

namespace {
thread_local const DeviceLapack* cpu_stand_in = nullptr;
}

bool on_device_lapack(const Tensor& A) { return !A.is_cpu() || cpu_stand_in != nullptr; }

const DeviceLapack& device_lapack(const Tensor& A, const char* api) {
  if (A.is_cpu() && cpu_stand_in) return *cpu_stand_in;
  const auto fn = reinterpret_cast<DeviceLapackFn>(lookup_kernel("device_lapack", A.device().type()));
  EMBER_CHECK(fn != nullptr, api, ": linear algebra on ", A.device(), " is not supported");
  return *fn();
}

std::vector<int> host_infos(const Tensor& infos) {
  const Tensor h = infos.to(kCPU).contiguous();
  const int32_t* p = h.data_ptr<int32_t>();
  return std::vector<int>(p, p + h.numel());
}

ScopedDeviceLapackForCpu::ScopedDeviceLapackForCpu(const DeviceLapack* table) : previous_(cpu_stand_in) {
  cpu_stand_in = table;
}
ScopedDeviceLapackForCpu::~ScopedDeviceLapackForCpu() { cpu_stand_in = previous_; }

}  // namespace ember::linalg_detail
