// NAdam (torch.optim.NAdam): options, per-parameter state and the optimizer, with
// PyTorch 1.13's defaults and update rule.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/detail/adam_options.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

// (PyTorch 1.13's NAdam and RAdam have no `maximize`.)
struct NAdamOptions : OptimizerOptions {
  NAdamOptions(double lr = 2e-3) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(NAdamOptions)
  EMBER_OPT_FIELD(NAdamOptions, double, lr, 2e-3);
  EMBER_OPT_FIELD(NAdamOptions, Betas, betas, Betas(0.9, 0.999));
  EMBER_OPT_FIELD(NAdamOptions, double, eps, 1e-8);
  EMBER_OPT_FIELD(NAdamOptions, double, weight_decay, 0);
  EMBER_OPT_FIELD(NAdamOptions, double, momentum_decay, 4e-3);
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("betas", betas_), v.field("eps", eps_), v.field("weight_decay", weight_decay_);
    v.field("momentum_decay", momentum_decay_);
  }
};
// mu_t = b1 (1 - 0.96^(t psi) / 2); m, v as Adam; with P_t = mu_1 ... mu_t and
// d = sqrt(v / (1 - b2^t)) + eps: p -= lr (1 - mu_t) / (1 - P_t) g / d + lr mu_{t+1} / (1 - P_{t+1}) m / d.
// State "exp_avg", "exp_avg_sq" and "mu_product" (P_t, a 0-dim float32 tensor as in PyTorch).
struct NAdamParamState : OptimizerCloneableParamState<NAdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, mu_product);
  TORCH_ARG(Tensor, exp_avg);
  TORCH_ARG(Tensor, exp_avg_sq);

 public:
  void visit(ParamStateVisitor& v) override {
    v.step(step_), v.tensor("mu_product", mu_product_), v.tensor("exp_avg", exp_avg_);
    v.tensor("exp_avg_sq", exp_avg_sq_);
  }
};
class NAdam : public Optimizer {
 public:
  NAdam(std::vector<Tensor> params, NAdamOptions options = {});
  NAdam(std::vector<OptimizerParamGroup> groups, NAdamOptions options = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<NAdamParamState>();
  }
};

}  // namespace ember::optim
