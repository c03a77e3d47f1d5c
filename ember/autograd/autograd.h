// Reverse-mode entry points with LibTorch's names (torch::autograd::grad / backward).
#pragma once
#include <optional>
#include <vector>

#include "ember/autograd/grad_mode.h"
#include "ember/core/tensor.h"

namespace ember::autograd {

using Variable = Tensor;  // LibTorch's name for a tensor in autograd code

using variable_list = std::vector<Tensor>;
using ::ember::AutoGradMode;  // torch::autograd::AutoGradMode, as LibTorch's grad_mode.h

// LibTorch's make_variable: `data` as a leaf (sharing its storage, no history) that requires
// grad as asked. (allow_tensor_metadata_change has no effect: ember never forbids it.)
inline Variable make_variable(const Tensor& data, bool requires_grad = false,
                              bool allow_tensor_metadata_change = true) {
  (void)allow_tensor_metadata_change;
  Tensor v = data.detach();
  if (requires_grad) v.requires_grad_(true);
  return v;
}

// Gradients of `outputs` (weighted by `grad_outputs`, which may be omitted for scalar
// outputs) with respect to `inputs`. retain_graph defaults to create_graph. An input the
// outputs do not depend on is an error unless allow_unused (then its gradient is undefined).
variable_list grad(const variable_list& outputs, const variable_list& inputs, const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false);

// Accumulates gradients of `tensors` into the leaves' .grad() (only into `inputs` when
// given).
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const variable_list& inputs = {});

}  // namespace ember::autograd
