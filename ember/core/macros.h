// Compiler and platform macros shared by every layer of ember.
// EMBER_HD marks math that runs on host and device (CUDA kernels reuse the CPU functors).
#pragma once

#if defined(__CUDACC__)
#define EMBER_HD __host__ __device__ __forceinline__
#else
#define EMBER_HD inline __attribute__((always_inline))
#endif

#define EMBER_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMBER_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define EMBER_NOINLINE __attribute__((noinline))
#define EMBER_API __attribute__((visibility("default")))
