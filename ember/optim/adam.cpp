#include "ember/optim/adam.h"

#include "ember/autograd/grad_mode.h"
#include "ember/optim/detail/adam_step.h"

namespace ember::optim {

using detail::adam_schema;
using detail::adam_step;

Adam::Adam(std::vector<Tensor> params, AdamOptions options) : Adam(one_group(std::move(params)), options) {}
Adam::Adam(std::vector<OptimizerParamGroup> groups, AdamOptions options)
    : Optimizer(std::vector<OptimizerParamGroup>{}, check_adam_options(options)) {
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

std::optional<Optimizer::StateSchema> Adam::state_schema(const OptimizerOptions& group_options) const {
  return adam_schema(static_cast<const AdamOptions&>(group_options).amsgrad());
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  adam_step<AdamOptions, AdamParamState>(param_groups_, false,
                                         [this](const Tensor& p) -> AdamParamState& { return state_of<AdamParamState>(p); });
  return loss;
}

}  // namespace ember::optim
