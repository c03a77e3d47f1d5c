// SGD (LibTorch's torch/optim/sgd.h): options, per-parameter state and the optimizer.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct SGDOptions : OptimizerOptions {
  SGDOptions(double lr) : lr_(lr) {}  // NOLINT: SGD(params, 0.01) as in LibTorch
  EMBER_OPTIONS_COMMON(SGDOptions)
  EMBER_OPT_FIELD(SGDOptions, double, lr, 0);
  EMBER_OPT_FIELD(SGDOptions, double, momentum, 0);
  EMBER_OPT_FIELD(SGDOptions, double, dampening, 0);
  EMBER_OPT_FIELD(SGDOptions, double, weight_decay, 0);
  EMBER_OPT_FIELD(SGDOptions, bool, nesterov, false);
  EMBER_OPT_FIELD(SGDOptions, bool, maximize, false);
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("momentum", momentum_), v.field("dampening", dampening_);
    v.field("weight_decay", weight_decay_), v.field("nesterov", nesterov_), v.field("maximize", maximize_);
  }
};

struct SGDParamState : OptimizerCloneableParamState<SGDParamState> {
  TORCH_ARG(Tensor, momentum_buffer);

 public:
  void visit(ParamStateVisitor& v) override { v.tensor("momentum_buffer", momentum_buffer_); }
};

// Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and
// maximize, as torch.optim.SGD:
//   g = grad (+ wd * p); b = mu * b + (1 - dampening) * g (b = g on the first step);
//   g = nesterov ? g + mu * b : b; p -= lr * g (+= when maximizing).
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  SGD(std::vector<OptimizerParamGroup> groups, SGDOptions options);
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<SGDParamState>();
  }
};

}  // namespace ember::optim
