// The transformer layers' built-in activations (ember/nn/options/transformer.h).
#include "ember/nn/options/transformer.h"

#include "ember/ops/functions.h"

namespace ember::nn {

TransformerActivation::TransformerActivation(enumtype::kReLU) : name_("relu") {
  function_ = [](const Tensor& x) { return ember::relu(x); };
}
TransformerActivation::TransformerActivation(enumtype::kGELU) : name_("gelu") {
  function_ = [](const Tensor& x) { return ember::gelu(x); };
}

}  // namespace ember::nn
