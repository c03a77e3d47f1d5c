#include "ember/optim/adagrad.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::optim {

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions o) : Adagrad(one_group(std::move(params)), o) {}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> groups, AdagradOptions o)
    : Optimizer(std::vector<OptimizerParamGroup>{}, std::make_unique<AdagradOptions>(o)) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.lr_decay() >= 0, "Invalid lr_decay value: ", o.lr_decay());
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  EMBER_CHECK(o.initial_accumulator_value() >= 0, "Invalid initial_accumulator_value value: ",
              o.initial_accumulator_value());
  for (const auto& g : groups) add_param_group(g);
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& go = static_cast<const AdagradOptions&>(group.options());
    for (const Tensor& p : group.params())
      state_of<AdagradParamState>(p).sum(full_like(p, go.initial_accumulator_value(), {}, MemoryFormat::Preserve));
  }
}

std::optional<Optimizer::StateSchema> Adagrad::state_schema(const OptimizerOptions&) const {
  return StateSchema{.tensors = {"sum"}, .step = true, .min_step = 0};
}

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = o.weight_decay() != 0 ? p.grad().add(p, o.weight_decay()) : p.grad();
      auto& st = state_of<AdagradParamState>(p);
      if (!st.sum().defined()) st.sum(full_like(p, o.initial_accumulator_value()));
      st.step(st.step() + 1);
      const int64_t t = st.step();
      const double clr = o.lr() / (1 + double(t - 1) * o.lr_decay());
      Tensor& s = st.sum();
      s.addcmul_(g, g, 1);
      p.addcdiv_(g, s.sqrt().add(o.eps()), -clr);
    }
  }
  return loss;
}

}  // namespace ember::optim
