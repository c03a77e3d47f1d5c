// Activation checkpointing (torch.utils.checkpoint.checkpoint): fn runs without keeping its
// intermediate tensors for backward; backward runs it again, with grad mode on, from the saved
// inputs, and differentiates that recomputation (nested: the reentrant variant). The random
// state (CPU default generator) and autocast settings of the first run are restored for the
// recomputation, so dropout masks and dtypes are the same. Unlike PyTorch's reentrant variant,
// parameters used inside fn get their gradients even when no input requires grad.
//
//   Tensor h = ember::utils::checkpoint([&](const Tensor& x) { return block(x); }, h0);
#pragma once
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::utils {

using TensorList = std::vector<Tensor>;

// fn(inputs) -> outputs, checkpointed. preserve_rng_state: restore the random state for the
// recomputation (PyTorch's default): the CPU's default generator and those of the CUDA
// devices the inputs are on. Backward through it twice, or with create_graph, is an error.
TensorList checkpoint(std::function<TensorList(const TensorList&)> fn, const TensorList& inputs,
                      bool preserve_rng_state = true);

// A function of tensors returning one tensor: checkpoint(fn, x, y, ...).
template <class F, class... Ts>
  requires(sizeof...(Ts) > 0 && (std::is_convertible_v<const Ts&, const Tensor&> && ...))
Tensor checkpoint(F fn, const Ts&... inputs) {
  auto run = [fn = std::move(fn)](const TensorList& in) mutable {
    return [&]<size_t... I>(std::index_sequence<I...>) { return TensorList{Tensor(fn(in[I]...))}; }(
        std::index_sequence_for<Ts...>{});
  };
  return checkpoint(std::function<TensorList(const TensorList&)>(std::move(run)), TensorList{Tensor(inputs)...})[0];
}

}  // namespace ember::utils
