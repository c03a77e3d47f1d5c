#include "ember/optim/rmsprop.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::optim {

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions o) : RMSprop(one_group(std::move(params)), o) {}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> groups, RMSpropOptions o)
    : Optimizer(std::vector<OptimizerParamGroup>{}, std::make_unique<RMSpropOptions>(o)) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.eps() >= 0, "Invalid epsilon value: ", o.eps());
  EMBER_CHECK(o.alpha() >= 0, "Invalid alpha value: ", o.alpha());
  EMBER_CHECK(o.momentum() >= 0, "Invalid momentum value: ", o.momentum());
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  for (const auto& g : groups) add_param_group(g);
}

std::optional<Optimizer::StateSchema> RMSprop::state_schema(const OptimizerOptions& group_options) const {
  const auto& o = static_cast<const RMSpropOptions&>(group_options);
  StateSchema s{.tensors = {"square_avg"}, .step = true};
  if (o.momentum() > 0) s.tensors.push_back("momentum_buffer");
  if (o.centered()) s.tensors.push_back("grad_avg");
  return s;
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = o.weight_decay() != 0 ? p.grad().add(p, o.weight_decay()) : p.grad();
      auto& st = state_of<RMSpropParamState>(p);
      if (!st.square_avg().defined()) {
        st.square_avg(zeros_like(p));
        if (o.momentum() > 0) st.momentum_buffer(zeros_like(p));
        if (o.centered()) st.grad_avg(zeros_like(p));
      }
      st.step(st.step() + 1);
      Tensor& v = st.square_avg();
      v.mul_(o.alpha()).addcmul_(g, g, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        Tensor& m = state_slot(st.grad_avg(), p);
        m.mul_(o.alpha()).add_(g, 1 - o.alpha());
        avg = v.addcmul(m, m, -1).sqrt().add(o.eps());
      } else {
        avg = v.sqrt().add(o.eps());
      }
      if (o.momentum() > 0) {
        Tensor& b = state_slot(st.momentum_buffer(), p);
        b.mul_(o.momentum()).addcdiv_(g, avg);
        p.add_(b, -o.lr());
      } else {
        p.addcdiv_(g, avg, -o.lr());
      }
    }
  }
  return loss;
}

}  // namespace ember::optim
