// Internal: sampling on a device (ops/random.cpp -> ops/cuda/random_kernels.cu).
//
// Note [Device sampling]
// A device sampler fills a contiguous tensor in parallel: element i draws the four 32-bit
// numbers of Philox4x32-10 at counter offset + i under the generator's seed
// (Philox4x32::draw in ember/core/generator.h), and the op reserves numel() counters from the generator first
// (GeneratorImpl::reserve_philox, under its lock). So a seeded program draws the same
// numbers however the kernel is launched, and consecutive calls never share counters.
// The numbers are not PyTorch's CUDA stream (which depends on its launch configuration);
// the distributions are the same. Non-contiguous tensors are filled through a contiguous
// temporary.
#pragma once
#include <cstdint>

#include "ember/core/tensor.h"
#include "ember/ops/op_def.h"

namespace ember {

enum class DeviceSampler : uint8_t {
  Uniform,          // [a, b)
  Normal,           // mean a, std b
  LogNormal,        // exp(normal(a, b))
  Exponential,      // rate a
  Cauchy,           // median a, scale b
  Geometric,        // success probability a: the number of trials, >= 1
  Bernoulli,        // probability a
  BernoulliTensor,  // probability p[i] (float or double, contiguous, the output's shape)
  Random,           // base + bits % range; range 0: every 64-bit value
};

struct DeviceSampleArgs {
  DeviceSampler kind = DeviceSampler::Uniform;
  double a = 0, b = 0;
  uint64_t range = 0;
  int64_t base = 0;
  Tensor p;
  uint64_t seed = 0, offset = 0;
};

// Fills `out` (contiguous, on the kernel's device).
using DeviceSampleFn = void (*)(const Tensor& out, const DeviceSampleArgs& args);

}  // namespace ember
