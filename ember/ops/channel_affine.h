// Internal: y = x * scale[c] + shift[c] over the channel dim (dim 1) of an (N, C, ...) tensor,
// the inference form of batch/instance/group norm with running statistics. The per-channel
// factors stay in the compute type (float for half/bfloat16/float, double for double), so a
// bfloat16 activation is scaled by a float scale as PyTorch does, not by a rounded one.
#pragma once
#include <optional>

#include "ember/core/tensor.h"
#include "ember/ops/op_def.h"

namespace ember {

// The input viewed as [outer, C, inner] in memory order: contiguous (inner = spatial size)
// or channels-last (inner = 1, outer = N * spatial).
struct ChannelAffinePlan {
  const char* in = nullptr;
  char* out = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  int64_t outer = 1, channels = 1, inner = 1;
  const void* scale = nullptr;  // C values of the compute type
  const void* shift = nullptr;
};
using ChannelAffineFn = void (*)(const ChannelAffinePlan&);

// x * scale + shift with per-channel scale/shift (1-d, C values), in x's layout; nullopt when
// the fast kernel does not apply (other layouts or dtypes, or autograd would need a graph).
std::optional<Tensor> channel_affine(const Tensor& x, const Tensor& scale, const Tensor& shift);

}  // namespace ember
