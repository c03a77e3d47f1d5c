// Shared oneDNN plumbing for the matmul (linalg_dnnl.cpp) and convolution (conv_dnnl.cpp)
// paths: the CPU engine, dtype mapping, the per-thread stream and scratchpad, and the
// OpenMP thread count oneDNN reads when it creates and runs a primitive.
#pragma once
#include <dnnl.hpp>
#include <omp.h>

#include <cstddef>

#include "ember/core/dtype.h"

namespace ember::dnnl_common {

dnnl::engine& engine();
// The calling thread's stream (a dnnl::stream must not be shared between threads).
dnnl::stream& stream();
// A per-thread buffer of at least `bytes` (64-byte aligned; reused across calls).
void* scratchpad(size_t bytes);

inline dnnl::memory::data_type dnnl_type(ScalarType t) {
  return t == kBFloat16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

// Sets the calling thread's OpenMP thread count for one oneDNN call, restores it after
// (Note [oneDNN thread count] in linalg_dnnl.cpp).
struct OmpThreads {
  int saved = -1;
  OmpThreads(int n, bool nested) {
    if (!nested && omp_get_max_threads() != n) saved = omp_get_max_threads(), omp_set_num_threads(n);
  }
  ~OmpThreads() {
    if (saved > 0) omp_set_num_threads(saved);
  }
  OmpThreads(const OmpThreads&) = delete;
  OmpThreads& operator=(const OmpThreads&) = delete;
};

}  // namespace ember::dnnl_common
