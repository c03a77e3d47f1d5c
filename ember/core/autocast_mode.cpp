#include "ember/core/autocast_mode.h"

#include "ember/core/error.h"

namespace ember::autocast {

namespace {
thread_local bool t_cuda = false, t_cpu = false, t_suspended = false, t_cache = true;
thread_local ScalarType t_gpu_dtype = kHalf, t_cpu_dtype = kBFloat16;
thread_local int t_nesting = 0;
}  // namespace

bool is_enabled() { return t_cuda; }
void set_enabled(bool enabled) { t_cuda = enabled; }
bool is_cpu_enabled() { return t_cpu; }
void set_cpu_enabled(bool enabled) { t_cpu = enabled; }
ScalarType get_autocast_gpu_dtype() { return t_gpu_dtype; }
void set_autocast_gpu_dtype(ScalarType dtype) {
  EMBER_CHECK(dtype == kHalf || dtype == kBFloat16, "autocast: CUDA autocast supports float16 and bfloat16, got ",
              dtype);
  t_gpu_dtype = dtype;
}
ScalarType get_autocast_cpu_dtype() { return t_cpu_dtype; }
void set_autocast_cpu_dtype(ScalarType dtype) {
  EMBER_CHECK(dtype == kBFloat16, "autocast: CPU autocast supports only bfloat16 (as PyTorch 1.12), got ", dtype);
  t_cpu_dtype = dtype;
}
bool is_autocast_cache_enabled() { return t_cache; }
void set_autocast_cache_enabled(bool enabled) { t_cache = enabled; }
int increment_nesting() { return ++t_nesting; }
int decrement_nesting() { return --t_nesting; }
bool any_active() { return (t_cpu || t_cuda) && !t_suspended; }

SuspendGuard::SuspendGuard() : prev_(t_suspended) { t_suspended = true; }
SuspendGuard::~SuspendGuard() { t_suspended = prev_; }

}  // namespace ember::autocast
