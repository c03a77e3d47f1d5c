// torch.optim's per-parameter loop and gradient helpers, shared by Adadelta, Adamax, NAdam
// and RAdam (ember/optim/adadelta.cpp, adamax.cpp, nadam.cpp, radam.cpp).
#pragma once
#include <memory>
#include <vector>

#include "ember/ops/functions.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// torch.optim's per-parameter loop: update(options, p, state) for every parameter with a
// gradient, the state's step count incremented first.
template <class Options, class S, class F>
void for_each_param(std::vector<OptimizerParamGroup>& groups, ParamStateMap& state, F&& update) {
  for (OptimizerParamGroup& group : groups) {
    const auto& o = static_cast<const Options&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      auto& slot = state[param_key(p)];
      if (!slot) slot = std::make_unique<S>();
      S& st = static_cast<S&>(*slot);
      st.step(st.step() + 1);
      update(o, p, st);
    }
  }
}

// The gradient with maximize and (L2) weight decay applied.
inline Tensor gradient(const Tensor& p, double weight_decay, bool maximize = false) {
  Tensor g = maximize ? p.grad().neg() : p.grad();
  return weight_decay != 0 ? g.add(p, weight_decay) : g;
}

// Complex tensors update as their real views (Adadelta, Adamax), as in PyTorch.
inline Tensor as_real(const Tensor& t) { return t.is_complex() ? view_as_real(t) : t; }

}  // namespace ember::optim::detail
