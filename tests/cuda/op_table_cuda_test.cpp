// Every op of the op table has a CUDA kernel, or is listed here with the reason it has none
// (issue 16: "or an explicit error naming the op and device that a test lists"). Kernel
// registration needs no GPU, so this runs on every machine with a CUDA build.
#include <map>
#include <string>

#include "ember/cuda/cuda.h"
#include "ember/ops/op_def.h"
#include "test_util.h"

namespace ember::test {
namespace {

TEST(CudaOpTable, EveryOpHasACudaKernelOrIsListed) {
  if (!cuda::is_built()) GTEST_SKIP() << "ember was built without CUDA";
  // Ops that are CPU code paths by design; a CUDA tensor takes another path before them.
  const std::map<std::string, std::string> cpu_only = {
      {"channel_affine", "the CPU's fused scale-and-shift of batch norm; other devices take the composite"},
      {"_gemm_fallback", "OpenBLAS for shapes oneDNN does not plan well; CUDA GEMMs go to cuBLAS"},
  };
  std::string missing, stale;
  for (const OpInfo* op : OpInfo::all()) {
    const std::string name(op->name);
    const bool has = lookup_kernel(op->name, kCUDA) != nullptr;
    if (!has && !cpu_only.count(name)) missing += (missing.empty() ? "" : ", ") + name;
    if (has && cpu_only.count(name)) stale += (stale.empty() ? "" : ", ") + name;
  }
  EXPECT_TRUE(missing.empty()) << "ops without a CUDA kernel and not listed: " << missing;
  EXPECT_TRUE(stale.empty()) << "listed as CPU-only but with a CUDA kernel: " << stale;
  // The device-only kernels the ops look up by name.
  for (const char* name : {"copy_across_devices", "device_sample", "max_pool_indices", "amp_unscale", "adam_fused", "sgd_fused"})
    EXPECT_NE(lookup_kernel(name, kCUDA), nullptr) << name;
}

}  // namespace
}  // namespace ember::test
