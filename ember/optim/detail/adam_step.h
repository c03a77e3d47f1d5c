// The update that Adam and AdamW share (ember/optim/adam.cpp, adamw.cpp) and their state
// schema.
#pragma once
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/ops/functions.h"
#include "ember/ops/op_def.h"
#include "ember/ops/optim_fused.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

// Whether p's update can run in a device's fused kernel (Note [Fused optimizer steps]).
// Dense tensors with equal strides (contiguous or channels-last alike): the kernel walks
// their memory in one order.
inline bool fusable(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, const Tensor* vmax) {
  if (p.is_cpu() || !isFloatingType(p.scalar_type()) || !p.is_non_overlapping_and_dense()) return false;
  for (const Tensor* t : {&g, &m, &v, vmax})
    if (t && (t->scalar_type() != p.scalar_type() || t->device() != p.device() || t->strides() != p.strides()))
      return false;
  return true;
}

template <class Options, class State>
void adam_step(std::vector<OptimizerParamGroup>& groups, bool decoupled, const std::function<State&(const Tensor&)>& state_of) {
  for (OptimizerParamGroup& group : groups) {
    const auto& o = static_cast<const Options&>(group.options());
    auto [b1, b2] = o.betas();
    // Parameters for a device's fused kernel, per (device, dtype).
    FusedBatches<FusedAdamFn, FusedAdamArgs, FusedAdamTensor> fused("adam_fused");
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      if (!p.is_cpu() && lookup_kernel("adam_fused", p.device().type())) {
        State& st = state_of(p);
        Tensor& m = state_slot(st.exp_avg(), p);
        Tensor& v = state_slot(st.exp_avg_sq(), p);
        Tensor* vmax = o.amsgrad() ? &state_slot(st.max_exp_avg_sq(), p) : nullptr;
        if (fusable(p, p.grad(), m, v, vmax)) {
          st.step(st.step() + 1);
          const FusedAdamArgs args{p.scalar_type(), o.lr(), b1, b2, o.eps(), o.weight_decay(), decoupled, o.amsgrad(),
                                   o.maximize()};
          fused.add(p.device(), args,
                    {p.data_ptr(), p.grad().data_ptr(), m.data_ptr(), v.data_ptr(), vmax ? vmax->data_ptr() : nullptr,
                     p.numel(), 1 - std::pow(b1, double(st.step())), 1 - std::pow(b2, double(st.step()))});
          for (const Tensor* t : {&p, &m, &v, vmax})
            if (t) t->bump_version();
          continue;
        }
      }
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
    fused.run();
  }
}

inline Optimizer::StateSchema adam_schema(bool amsgrad) {
  std::vector<std::string> tensors = {"exp_avg", "exp_avg_sq"};
  if (amsgrad) tensors.push_back("max_exp_avg_sq");
  return {tensors, {}, true};
}

}  // namespace ember::optim::detail
