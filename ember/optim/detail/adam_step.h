// The update that Adam and AdamW share (ember/optim/adam.cpp, adamw.cpp) and their state
// schema.
#pragma once
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ops/functions.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

template <class Options, class State>
void adam_step(std::vector<OptimizerParamGroup>& groups, bool decoupled, const std::function<State&(const Tensor&)>& state_of) {
  for (OptimizerParamGroup& group : groups) {
    const auto& o = static_cast<const Options&>(group.options());
    auto [b1, b2] = o.betas();
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = o.maximize() ? p.grad().neg() : p.grad();
      if (decoupled) p.mul_(1 - o.lr() * o.weight_decay());
      else if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      State& st = state_of(p);
      Tensor& m = state_slot(st.exp_avg(), p);
      Tensor& v = state_slot(st.exp_avg_sq(), p);
      if (o.amsgrad()) state_slot(st.max_exp_avg_sq(), p);
      st.step(st.step() + 1);
      const int64_t step = st.step();
      m.mul_(b1).add_(g, 1 - b1);
      v.mul_(b2).addcmul_(g, g.conj(), 1 - b2);
      const double bc1 = 1 - std::pow(b1, double(step)), bc2 = 1 - std::pow(b2, double(step));
      Tensor denom;
      if (o.amsgrad()) {
        Tensor& vmax = st.max_exp_avg_sq();
        vmax = maximum(vmax, v);
        denom = vmax.sqrt().div(std::sqrt(bc2)).add(o.eps());
      } else {
        denom = v.sqrt().div(std::sqrt(bc2)).add(o.eps());
      }
      p.addcdiv_(m, denom, -o.lr() / bc1);
    }
  }
}

inline Optimizer::StateSchema adam_schema(bool amsgrad) {
  std::vector<std::string> tensors = {"exp_avg", "exp_avg_sq"};
  if (amsgrad) tensors.push_back("max_exp_avg_sq");
  return {tensors, {}, true};
}

}  // namespace ember::optim::detail
