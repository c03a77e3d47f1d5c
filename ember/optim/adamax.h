// Adamax (torch.optim.Adamax): options, per-parameter state and the optimizer, with
// PyTorch 1.13's defaults and update rule.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/detail/adam_options.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamaxOptions : OptimizerOptions {
  AdamaxOptions(double lr = 2e-3) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(AdamaxOptions)
  EMBER_OPT_FIELD(AdamaxOptions, double, lr, 2e-3);
  EMBER_OPT_FIELD(AdamaxOptions, Betas, betas, Betas(0.9, 0.999));
  EMBER_OPT_FIELD(AdamaxOptions, double, eps, 1e-8);
  EMBER_OPT_FIELD(AdamaxOptions, double, weight_decay, 0);
  EMBER_OPT_FIELD(AdamaxOptions, bool, maximize, false);
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("betas", betas_), v.field("eps", eps_), v.field("weight_decay", weight_decay_);
    v.field("maximize", maximize_);
  }
};
// m = b1 m + (1 - b1) g; u = max(b2 u, |g| + eps); p -= lr / (1 - b1^t) * m / u.
// State "exp_avg" (m), "exp_inf" (u).
struct AdamaxParamState : OptimizerCloneableParamState<AdamaxParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, exp_avg);
  TORCH_ARG(Tensor, exp_inf);

 public:
  void visit(ParamStateVisitor& v) override {
    v.step(step_), v.tensor("exp_avg", exp_avg_), v.tensor("exp_inf", exp_inf_);
  }
};
class Adamax : public Optimizer {
 public:
  Adamax(std::vector<Tensor> params, AdamaxOptions options = {});
  Adamax(std::vector<OptimizerParamGroup> groups, AdamaxOptions options = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdamaxParamState>();
  }
};

}  // namespace ember::optim
