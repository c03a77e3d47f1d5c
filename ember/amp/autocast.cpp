#include "ember/amp/autocast.h"

#include "ember/core/error.h"

namespace ember::amp {

autocast::autocast(DeviceType device_type, std::optional<ScalarType> dtype, bool enabled,
                   std::optional<bool> cache_enabled)
    : device_(device_type) {
  EMBER_CHECK(device_type == kCPU || device_type == kCUDA, "autocast: device_type must be cpu or cuda, got ",
              Device(device_type));
  const bool cuda = device_type == kCUDA;
  prev_enabled_ = cuda ? ember::autocast::is_enabled() : ember::autocast::is_cpu_enabled();
  prev_dtype_ = cuda ? ember::autocast::get_autocast_gpu_dtype() : ember::autocast::get_autocast_cpu_dtype();
  prev_cache_ = ember::autocast::is_autocast_cache_enabled();
  if (dtype) {
    if (cuda) ember::autocast::set_autocast_gpu_dtype(*dtype);
    else ember::autocast::set_autocast_cpu_dtype(*dtype);
  }
  if (cuda) ember::autocast::set_enabled(enabled);
  else ember::autocast::set_cpu_enabled(enabled);
  if (cache_enabled) ember::autocast::set_autocast_cache_enabled(*cache_enabled);
  ember::autocast::increment_nesting();
}

autocast::~autocast() {
  if (ember::autocast::decrement_nesting() == 0) ember::autocast::clear_cache();
  if (device_ == kCUDA) {
    ember::autocast::set_enabled(prev_enabled_);
    ember::autocast::set_autocast_gpu_dtype(prev_dtype_);
  } else {
    ember::autocast::set_cpu_enabled(prev_enabled_);
    ember::autocast::set_autocast_cpu_dtype(prev_dtype_);
  }
  ember::autocast::set_autocast_cache_enabled(prev_cache_);
}

}  // namespace ember::amp
