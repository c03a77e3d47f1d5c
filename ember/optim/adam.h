// Adam (LibTorch's torch/optim/adam.h): options, per-parameter state and the optimizer.
#pragma once
#include <memory>
#include <optional>
#include <vector>

#include "ember/optim/detail/adam_options.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamOptions : OptimizerOptions {
  EMBER_ADAM_OPTIONS(AdamOptions, 0)
};

struct AdamParamState : OptimizerCloneableParamState<AdamParamState> {
  TORCH_ARG(int64_t, step) = 0;
  TORCH_ARG(Tensor, exp_avg);
  TORCH_ARG(Tensor, exp_avg_sq);
  TORCH_ARG(Tensor, max_exp_avg_sq) = {};

 public:
  void visit(ParamStateVisitor& v) override {
    v.step(step_), v.tensor("exp_avg", exp_avg_), v.tensor("exp_avg_sq", exp_avg_sq_);
    v.tensor("max_exp_avg_sq", max_exp_avg_sq_);
  }
};

// torch.optim.Adam / AdamW: m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// p -= lr / (1 - b1^t) * m / (sqrt(v_or_vmax) / sqrt(1 - b2^t) + eps). Adam adds wd * p to g;
// AdamW scales p by (1 - lr * wd) first.
class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  Adam(std::vector<OptimizerParamGroup> groups, AdamOptions options = {});
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  std::unique_ptr<OptimizerParamState> make_param_state() const override {
    return std::make_unique<AdamParamState>();
  }
};

}  // namespace ember::optim
