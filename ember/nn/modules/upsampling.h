// Upsample (LibTorch's torch/nn/modules/upsampling.h), which runs F::interpolate
// (ember/nn/functional/upsampling.h) with its options (ember/nn/options/upsampling.h).
#pragma once
#include "ember/nn/functional/upsampling.h"
#include "ember/nn/module.h"
#include "ember/nn/options/upsampling.h"

namespace ember::nn {

class UpsampleImpl : public Cloneable<UpsampleImpl> {
 public:
  explicit UpsampleImpl(const UpsampleOptions& options = {}) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input);
  UpsampleOptions options;
};
TORCH_MODULE(Upsample);

}  // namespace ember::nn
