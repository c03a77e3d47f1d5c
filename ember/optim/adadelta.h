// Adadelta (torch.optim.Adadelta): options, per-parameter state and the optimizer, with
// PyTorch 1.13's defaults and update rule.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdadeltaOptions : OptimizerOptions {
  AdadeltaOptions(double lr = 1.0) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(AdadeltaOptions)
  EMBER_OPT_FIELD(AdadeltaOptions, double, lr, 1.0);
  EMBER_OPT_FIELD(AdadeltaOptions, double, rho, 0.9);
  EMBER_OPT_FIELD(AdadeltaOptions, double, eps, 1e-6);
  EMBER_OPT_FIELD(AdadeltaOptions, double, weight_decay, 0);
  EMBER_OPT_FIELD(AdadeltaOptions, bool, maximize, false);
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("rho", rho_), v.field("eps", eps_), v.field("weight_decay", weight_decay_);
    v.field("maximize", maximize_);
  }
};
// v = rho v + (1 - rho) g^2; delta = sqrt(u + eps) / sqrt(v + eps) * g; u = rho u + (1 - rho) delta^2;
// p -= lr delta. State "square_avg" (v), "acc_delta" (u).
struct AdadeltaParamState : OptimizerCloneableParamState<AdadeltaParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, square_avg);
  TORCH_ARG(Tensor, acc_delta);

 public:
  void visit(ParamStateVisitor& v) override {
    v.step(step_), v.tensor("square_avg", square_avg_), v.tensor("acc_delta", acc_delta_);
  }
};
class Adadelta : public Optimizer {
 public:
  Adadelta(std::vector<Tensor> params, AdadeltaOptions options = {});
  Adadelta(std::vector<OptimizerParamGroup> groups, AdadeltaOptions options = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdadeltaParamState>();
  }
};

}  // namespace ember::optim
