#include "ember/optim/sgd.h"

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options) : SGD(one_group(std::move(params)), options) {}

SGD::SGD(std::vector<OptimizerParamGroup> groups, SGDOptions options)
    : Optimizer(std::vector<OptimizerParamGroup>{}, std::make_unique<SGDOptions>(options)) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.momentum() >= 0, "Invalid momentum value: ", options.momentum());
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  EMBER_CHECK(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0),
              "Nesterov momentum requires a momentum and zero dampening");
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = p.grad();
      if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        Tensor& buf = state_of<SGDParamState>(p).momentum_buffer();
        if (!buf.defined()) {
          buf = g.clone();
        } else {
          buf.mul_(o.momentum()).add_(g, 1 - o.dampening());
        }
        g = o.nesterov() ? g.add(buf, o.momentum()) : buf;
      }
      p.add_(g, o.maximize() ? o.lr() : -o.lr());
    }
  }
  return loss;
}

std::optional<Optimizer::StateSchema> SGD::state_schema(const OptimizerOptions& group_options) const {
  const auto& o = static_cast<const SGDOptions&>(group_options);
  if (o.momentum() == 0) return StateSchema{};
  return StateSchema{.tensors = {"momentum_buffer"}};
}

}  // namespace ember::optim
