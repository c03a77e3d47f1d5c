// The connectionist temporal classification loss module (torch.nn.CTCLoss), which runs
// F::ctc_loss (ember/nn/functional/ctc.h) with its options (ember/nn/options/ctc.h).
#pragma once
#include "ember/nn/functional/ctc.h"
#include "ember/nn/module.h"
#include "ember/nn/options/ctc.h"

namespace ember::nn {

class CTCLossImpl : public Cloneable<CTCLossImpl> {
 public:
  explicit CTCLossImpl(const CTCLossOptions& options = {}) : options(options) {}
  void pretty_print(std::ostream& stream) const override { stream << "torch::nn::CTCLoss()"; }
  void reset() override {}
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  CTCLossOptions options;
};
TORCH_MODULE(CTCLoss);

}  // namespace ember::nn
