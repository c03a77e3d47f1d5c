// RAdam (torch.optim.RAdam): options, per-parameter state and the optimizer, with
// PyTorch 1.13's defaults and update rule.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/detail/adam_options.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

// (PyTorch 1.13's NAdam and RAdam have no `maximize`.)
struct RAdamOptions : OptimizerOptions {
  RAdamOptions(double lr = 1e-3) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(RAdamOptions)
  EMBER_OPT_FIELD(RAdamOptions, double, lr, 1e-3);
  EMBER_OPT_FIELD(RAdamOptions, Betas, betas, Betas(0.9, 0.999));
  EMBER_OPT_FIELD(RAdamOptions, double, eps, 1e-8);
  EMBER_OPT_FIELD(RAdamOptions, double, weight_decay, 0);
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("betas", betas_), v.field("eps", eps_), v.field("weight_decay", weight_decay_);
  }
};
// m, v as Adam; rho_t = rho_inf - 2 t b2^t / (1 - b2^t) with rho_inf = 2 / (1 - b2) - 1. Once
// rho_t > 5 the step is Adam's times the rectification r_t; before, p -= lr m / (1 - b1^t).
// State "exp_avg", "exp_avg_sq".
struct RAdamParamState : OptimizerCloneableParamState<RAdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, exp_avg);
  TORCH_ARG(Tensor, exp_avg_sq);

 public:
  void visit(ParamStateVisitor& v) override {
    v.step(step_), v.tensor("exp_avg", exp_avg_), v.tensor("exp_avg_sq", exp_avg_sq_);
  }
};
class RAdam : public Optimizer {
 public:
  RAdam(std::vector<Tensor> params, RAdamOptions options = {});
  RAdam(std::vector<OptimizerParamGroup> groups, RAdamOptions options = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<RAdamParamState>();
  }
};

}  // namespace ember::optim
