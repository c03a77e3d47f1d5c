// More optimizers (RMSprop, Adagrad) and learning-rate schedulers (StepLR, MultiStepLR,
// ExponentialLR, CosineAnnealingLR, LambdaLR), following torch.optim's formulas.
#pragma once
#include <functional>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/core/json.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

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

// Schedulers set each group's lr from the initial lr and the epoch count (step()).
class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  // LibTorch's step: set the lrs get_lrs() gives, then count the step.
  void step();
  std::vector<double> get_last_lr() const;
  int64_t last_epoch() const { return epoch_; }
  // PyTorch's state_dict(): {"last_epoch", "base_lrs"}; every schedule here is a closed form
  // of them (the optimizer's own state holds the current lrs). load_state_dict checks the
  // group count and restores them, so a resumed run steps on exactly as the saved one.
  json::Value state_dict() const;
  void load_state_dict(const json::Value& state);
  // In a checkpoint archive (as one value under "scheduler_state").
  void save(serialize::OutputArchive& archive) const;
  void load(serialize::InputArchive& archive);

 protected:
  // LibTorch's interface for schedulers written by users: the lrs to set at this step, with
  // step_count_ steps taken before it (get_current_lrs() are the optimizer's lrs now). The
  // default is ember's closed-form schedules (PyTorch's Python ones): it advances epoch_ and
  // asks lr_at for each group.
  virtual std::vector<double> get_lrs();
  std::vector<double> get_current_lrs() const;
  unsigned step_count_ = 0;
  // The lr for group i at epoch `epoch_` (closed form).
  virtual double lr_at(size_t group, double base_lr) const;
  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t epoch_ = 0;
  friend class SequentialLR;  // (optim/extra.h) re-bases and restarts the schedulers it runs
};

// LibTorch's StepLR: the lrs are multiplied by gamma at every step_size-th step, counted as
// LibTorch counts them (one step later than PyTorch's Python StepLR: after step_size steps the
// lr is unchanged, after step_size + 1 it has decayed). Inside SequentialLR (a PyTorch Python
// scheduler) it follows the Python closed form.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lrs() override;
  double lr_at(size_t, double base_lr) const override;
  int64_t step_size_;
  double gamma_;
};

class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1);

 protected:
  double lr_at(size_t, double base_lr) const override;
  std::vector<int64_t> milestones_;
  double gamma_;
};

class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  double lr_at(size_t, double base_lr) const override;
  double gamma_;
};

class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  double lr_at(size_t, double base_lr) const override;
  int64_t t_max_;
  double eta_min_;
};

class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 protected:
  double lr_at(size_t, double base_lr) const override;
  std::function<double(int64_t)> lambda_;
};

}  // namespace ember::optim
