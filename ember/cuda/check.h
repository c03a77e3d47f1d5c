// EMBER_CUDA_CHECK: raises ember::Error for a failed CUDA runtime call, naming the call, the
// CUDA error and where it happened (OutOfMemoryError for cudaErrorMemoryAllocation). For
// ember's CUDA sources only: it includes the CUDA runtime headers.
#pragma once
#include <cuda_runtime_api.h>

#include "ember/core/error.h"

namespace ember::cuda::detail {
[[noreturn]] void raise_cuda_error(cudaError_t err, const char* call, const char* file, int line);

// The answer of cudaStreamQuery / cudaEventQuery: done (true), not yet (false), or an error.
inline bool query_done(cudaError_t err, const char* call) {
  if (err == cudaSuccess) return true;
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();  // not an error: clear it
    return false;
  }
  raise_cuda_error(err, call, __FILE__, __LINE__);
}
}  // namespace ember::cuda::detail

#define EMBER_CUDA_CHECK(expr)                                                              \
  do {                                                                                      \
    const cudaError_t ember_cuda_err_ = (expr);                                             \
    if (EMBER_UNLIKELY(ember_cuda_err_ != cudaSuccess))                                     \
      ::ember::cuda::detail::raise_cuda_error(ember_cuda_err_, #expr, __FILE__, __LINE__);  \
  } while (0)
