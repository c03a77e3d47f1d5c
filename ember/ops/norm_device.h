// Internal: fused layer / group normalization on a device (nn/functional/normalization.cpp ->
// ops/cuda/norm_kernels.cu). Note [Fused normalization on devices] is in normalization.cpp.
#pragma once
#include <cstdint>

#include "ember/core/tensor.h"

namespace ember {

// A contiguous input viewed as `rows` rows of `cols` elements, each normalized by its own
// mean and variance (biased, over the row). The affine weight and bias are per channel:
// element (r, j) has channel (r % groups) * channels_per_group + j / inner. layer_norm:
// groups 1, channels_per_group = cols, inner 1 (channel = column); group_norm on (N, C, *):
// rows N * G, cols (C / G) * inner, inner the spatial size.
struct NormGeometry {
  int64_t rows = 0, cols = 0;
  int64_t groups = 1, channels_per_group = 0, inner = 1;
  double eps = 1e-5;
};

// y = (x - mean) * rstd * weight + bias per row; writes y (x's dtype and shape, contiguous)
// and mean, rstd (rows elements, float; double for double input). weight / bias may be
// undefined; when defined they have x's dtype and device, one value per channel.
using NormForwardFn = void (*)(const Tensor& x, const Tensor& weight, const Tensor& bias, const NormGeometry& g,
                               const Tensor& y, const Tensor& mean, const Tensor& rstd);
// dx of that y from dy (contiguous, x's shape and dtype), x, the saved mean and rstd, and
// the weight (may be undefined): dx = rstd (dy w - mean(dy w) - xhat mean(dy w xhat)).
using NormBackwardFn = void (*)(const Tensor& dy, const Tensor& x, const Tensor& mean, const Tensor& rstd,
                                const Tensor& weight, const NormGeometry& g, const Tensor& dx);

}  // namespace ember

namespace ember::norm_detail {

// Testing only: while one is alive on this thread, CPU tensors take the fused path with these
// kernels (tests/nn/fused_norm_glue_test.cpp), so the op-level code runs without a GPU.
class ScopedFusedNormForCpu {
 public:
  ScopedFusedNormForCpu(NormForwardFn forward, NormBackwardFn backward);
  ~ScopedFusedNormForCpu();
  ScopedFusedNormForCpu(const ScopedFusedNormForCpu&) = delete;
  ScopedFusedNormForCpu& operator=(const ScopedFusedNormForCpu&) = delete;

 private:
  NormForwardFn previous_forward_;
  NormBackwardFn previous_backward_;
};

}  // namespace ember::norm_detail
