// Adagrad (LibTorch's torch/optim/adagrad.h): options, per-parameter state and the optimizer,
// following torch.optim's formulas.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdagradOptions : OptimizerOptions {
  AdagradOptions(double lr = 1e-2) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(AdagradOptions)
  EMBER_OPT_FIELD(AdagradOptions, double, lr, 1e-2);
  EMBER_OPT_FIELD(AdagradOptions, double, lr_decay, 0);
  EMBER_OPT_FIELD(AdagradOptions, double, weight_decay, 0);
  EMBER_OPT_FIELD(AdagradOptions, double, initial_accumulator_value, 0);
  EMBER_OPT_FIELD(AdagradOptions, double, eps, 1e-10);
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("lr_decay", lr_decay_), v.field("weight_decay", weight_decay_);
    v.field("initial_accumulator_value", initial_accumulator_value_), v.field("eps", eps_);
  }
};
struct AdagradParamState : OptimizerCloneableParamState<AdagradParamState> {
  TORCH_ARG(Tensor, sum);
  TORCH_ARG(int64_t, step) = 0;

 public:
  void visit(ParamStateVisitor& v) override { v.tensor("sum", sum_), v.step(step_); }
};
// clr = lr / (1 + (t - 1) lr_decay); s += g^2; p -= clr g / (sqrt(s) + eps). Every parameter's
// state exists from the start (sum = initial_accumulator_value, step 0), as in LibTorch.
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<Tensor> params, AdagradOptions options = {});
  Adagrad(std::vector<OptimizerParamGroup> groups, AdagradOptions options = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdagradParamState>();
  }
};

}  // namespace ember::optim
