// Shared by the CUDA tests: the skip for machines without a GPU.
#pragma once
#include <gtest/gtest.h>

#include "ember/cuda/cuda.h"

// Skips the test, saying why, unless CUDA and a GPU are present.
#define EMBER_REQUIRE_GPU()                                                                         \
  do {                                                                                              \
    if (!::ember::cuda::is_available())                                                             \
      GTEST_SKIP() << (::ember::cuda::is_built() ? "no CUDA GPU on this machine (ember has CUDA)"   \
                                                 : "ember was built without CUDA");                 \
  } while (0)
