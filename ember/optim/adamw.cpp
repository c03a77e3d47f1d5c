#include "ember/optim/adamw.h"

#include "ember/autograd/grad_mode.h"
#include "ember/optim/detail/adam_step.h"

namespace ember::optim {

using detail::adam_schema;
using detail::adam_step;

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions options) : AdamW(one_group(std::move(params)), options) {}
AdamW::AdamW(std::vector<OptimizerParamGroup> groups, AdamWOptions options)
    : Optimizer(std::vector<OptimizerParamGroup>{}, check_adam_options(options)) {
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

std::optional<Optimizer::StateSchema> AdamW::state_schema(const OptimizerOptions& group_options) const {
  return adam_schema(static_cast<const AdamWOptions&>(group_options).amsgrad());
}

Tensor AdamW::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  adam_step<AdamWOptions, AdamWParamState>(param_groups_, true,
                                           [this](const Tensor& p) -> AdamWParamState& { return state_of<AdamWParamState>(p); });
  return loss;
}

}  // namespace ember::optim
