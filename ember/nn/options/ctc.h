// Options of the connectionist temporal classification loss (LibTorch's CTCLossOptions, in
// its torch/nn/options/loss.h): F::ctc_loss's options, which are also CTCLoss's.
#pragma once
#include "ember/core/arg.h"
#include "ember/core/tensor.h"
#include "ember/nn/enum.h"

namespace ember::nn {

namespace functional {
struct CTCLossFuncOptions {
  TORCH_ARG(int64_t, blank) = 0;
  TORCH_ARG(Reduction, reduction) = kMean;
  TORCH_ARG(bool, zero_infinity) = false;
};
}  // namespace functional

using CTCLossOptions = functional::CTCLossFuncOptions;

}  // namespace ember::nn
