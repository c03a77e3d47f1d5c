// Connectionist temporal classification loss (torch.nn.CTCLoss / F::ctc_loss), as a
// composite of differentiable ops over time (the forward recursion in log space), so both
// autograd modes and higher-order gradients work. Unreachable states carry a large
// negative finite log probability instead of -inf, which keeps every gradient finite; an
// input too short for its target gives an infinite loss (zero_infinity: 0, zero gradient).
// The gradient with respect to log_probs is the exact one (minus the state occupancy);
// PyTorch's kernel returns exp(log_probs) minus the occupancy there, which only agrees after
// log_softmax's backward. Through log_softmax, as CTC is used, the two are the same.
// Module: ember/nn/modules/ctc.h; options: ember/nn/options/ctc.h.
#pragma once
#include <vector>

#include "ember/core/tensor.h"
#include "ember/nn/enum.h"
#include "ember/nn/options/ctc.h"

namespace ember::nn {

namespace functional {

// log_probs (T, N, C) or (T, C) (log-softmax outputs); targets (N, S) padded, or 1-D holding
// every target back to back; input_lengths / target_lengths (N) (or scalars unbatched).
// Reduction kMean divides each loss by its target length, then averages over the batch.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, Reduction reduction = kMean,
                bool zero_infinity = false);
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths, IntArrayRef target_lengths,
                int64_t blank = 0, Reduction reduction = kMean, bool zero_infinity = false);

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, const CTCLossFuncOptions& options);

}  // namespace functional

}  // namespace ember::nn
