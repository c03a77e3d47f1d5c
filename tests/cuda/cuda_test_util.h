// Shared by the CUDA tests: the skip for machines without a GPU.
#pragma once
#include <gtest/gtest.h>

#include "ember/core/dtype.h"
#include "ember/cuda/cuda.h"

// Skips the test, saying why, unless CUDA and a GPU are present.
#define EMBER_REQUIRE_GPU()                                                                         \
  do {                                                                                              \
    if (!::ember::cuda::is_available())                                                             \
      GTEST_SKIP() << (::ember::cuda::is_built() ? "no CUDA GPU on this machine (ember has CUDA)"   \
                                                 : "ember was built without CUDA");                 \
  } while (0)

namespace ember::test {
// The relative tolerance of a CUDA result against the CPU's: the device's math functions and
// order of accumulation differ from the CPU's in the last bits of each precision.
inline double cuda_rtol(ScalarType dt) {
  switch (dt) {
    case kHalf: case kBFloat16: case kComplexHalf: return 2e-2;
    case kFloat: case kComplexFloat: return 2e-4;
    case kDouble: case kComplexDouble: return 1e-9;
    default: return 0;  // integers and bool: exact
  }
}
}  // namespace ember::test
