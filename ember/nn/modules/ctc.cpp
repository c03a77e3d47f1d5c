#include "ember/nn/modules/ctc.h"

namespace ember::nn {

Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                            const Tensor& target_lengths) {
  return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
}

}  // namespace ember::nn
