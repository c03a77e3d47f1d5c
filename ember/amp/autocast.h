// Automatic mixed precision (torch.autocast / torch.cpu.amp.autocast): inside an autocast
// region, matmul-like ops (mm, bmm, addmm, baddbmm, addbmm, matmul, linear, conv) run in
// the lower-precision dtype, losses run in float32, and cat/stack promote to the widest
// input; see ember/ops/autocast.h for the rules. Regions nest; the cache of cast weights
// lives until the outermost region ends.
//
//   ember::amp::autocast region(kCPU);             // bfloat16 on CPU
//   auto loss = criterion(model(x), y);            // bfloat16 matmuls, float32 loss
#pragma once
#include <optional>

#include "ember/core/autocast_mode.h"
#include "ember/core/device.h"

namespace ember::amp {

class autocast {
 public:
  // dtype: the device's default when absent (CPU bfloat16, CUDA float16). enabled=false
  // turns autocast off inside the region.
  explicit autocast(DeviceType device_type, std::optional<ScalarType> dtype = std::nullopt, bool enabled = true,
                    std::optional<bool> cache_enabled = std::nullopt);
  ~autocast();
  autocast(const autocast&) = delete;
  autocast& operator=(const autocast&) = delete;

 private:
  DeviceType device_;
  bool prev_enabled_, prev_cache_;
  ScalarType prev_dtype_;
};

}  // namespace ember::amp
