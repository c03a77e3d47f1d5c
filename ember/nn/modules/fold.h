// Unfold and Fold (LibTorch's torch/nn/modules/fold.h): F::unfold / F::fold
// (ember/nn/functional/fold.h) with their options (ember/nn/options/fold.h).
#pragma once
#include "ember/nn/functional/fold.h"
#include "ember/nn/module.h"
#include "ember/nn/options/fold.h"

namespace ember::nn {

class UnfoldImpl : public Cloneable<UnfoldImpl> {
 public:
  explicit UnfoldImpl(const UnfoldOptions& options) : options(options) {}
  explicit UnfoldImpl(ExpandingArray<2> kernel_size) : options(std::move(kernel_size)) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::unfold(input, options); }
  UnfoldOptions options;
};
TORCH_MODULE(Unfold);
class FoldImpl : public Cloneable<FoldImpl> {
 public:
  explicit FoldImpl(const FoldOptions& options) : options(options) {}
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(const Tensor& input) { return functional::fold(input, options); }
  FoldOptions options;
};
TORCH_MODULE(Fold);

}  // namespace ember::nn
