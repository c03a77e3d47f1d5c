// RMSprop (LibTorch's torch/optim/rmsprop.h): options, per-parameter state and the optimizer,
// following torch.optim's formulas.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions : OptimizerOptions {
  RMSpropOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(RMSpropOptions)
  EMBER_OPT_FIELD(RMSpropOptions, double, lr, 1e-2);
  EMBER_OPT_FIELD(RMSpropOptions, double, alpha, 0.99);
  EMBER_OPT_FIELD(RMSpropOptions, double, eps, 1e-8);
  EMBER_OPT_FIELD(RMSpropOptions, double, weight_decay, 0);
  EMBER_OPT_FIELD(RMSpropOptions, double, momentum, 0);
  EMBER_OPT_FIELD(RMSpropOptions, bool, centered, false);
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("alpha", alpha_), v.field("eps", eps_), v.field("weight_decay", weight_decay_);
    v.field("momentum", momentum_), v.field("centered", centered_);
  }
};
struct RMSpropParamState : OptimizerCloneableParamState<RMSpropParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, square_avg);
  TORCH_ARG(Tensor, momentum_buffer) = {};
  TORCH_ARG(Tensor, grad_avg) = {};

 public:
  void visit(ParamStateVisitor& v) override {
    v.step(step_), v.tensor("square_avg", square_avg_), v.tensor("momentum_buffer", momentum_buffer_);
    v.tensor("grad_avg", grad_avg_);
  }
};
// v = a v + (1 - a) g^2; avg = sqrt(v - (centered ? m^2 : 0)) + eps (m = a m + (1 - a) g);
// momentum: b = mu b + g / avg, p -= lr b; else p -= lr g / avg.
class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Tensor> params, RMSpropOptions options = {});
  RMSprop(std::vector<OptimizerParamGroup> groups, RMSpropOptions options = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<RMSpropParamState>();
  }
};

}  // namespace ember::optim
