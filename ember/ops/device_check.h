// For ops whose only implementation is CPU code (loops over data_ptr, LAPACK, oneDNN): a
// tensor on another device is refused with an error naming the op and the device, instead of
// CPU code reading device memory (a crash, or garbage). tests/cuda/unported_ops_test.cpp
// sweeps the public ops for any that miss it.
#pragma once
#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember {

inline void check_cpu_only(const Tensor& t, const char* op) {
  if (EMBER_UNLIKELY(t.defined() && !t.is_cpu() && !t.is_meta()))
    EMBER_ERROR(op, ": not implemented for ", t.device(), " tensors yet (ember's CUDA backend has no kernel for it); "
                "move the input to the CPU with .cpu()");
}

}  // namespace ember
