// Thread-local autocast state with LibTorch's at::autocast names: whether autocast is on
// for CPU and for CUDA, the lower-precision dtype of each, the weight-cast cache switch and
// the nesting depth of autocast regions. The casting itself lives in ember/ops/autocast.h
// (it needs ops); the user-facing RAII region is ember::amp::autocast.
#pragma once
#include "ember/core/dtype.h"

namespace ember::autocast {

bool is_enabled();  // CUDA
void set_enabled(bool enabled);
bool is_cpu_enabled();
void set_cpu_enabled(bool enabled);
ScalarType get_autocast_gpu_dtype();  // default float16
void set_autocast_gpu_dtype(ScalarType dtype);
ScalarType get_autocast_cpu_dtype();  // default bfloat16
void set_autocast_cpu_dtype(ScalarType dtype);
bool is_autocast_cache_enabled();
void set_autocast_cache_enabled(bool enabled);
int increment_nesting();  // returns the new depth
int decrement_nesting();
// Drops the cached lower-precision copies of weights (defined in ember/ops/autocast.cpp).
void clear_cache();

// True when autocast is on for some device and not suspended: the one check ops make.
bool any_active();

// Suspends autocast while an op runs on inputs it has already cast (inner ops keep them).
struct SuspendGuard {
  SuspendGuard();
  ~SuspendGuard();
  SuspendGuard(const SuspendGuard&) = delete;
  SuspendGuard& operator=(const SuspendGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace ember::autocast
