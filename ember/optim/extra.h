// The rest of torch.optim: Adadelta, Adamax, NAdam, RAdam and LBFGS, and the schedulers
// CosineAnnealingWarmRestarts, OneCycleLR, LinearLR, ConstantLR, SequentialLR and
// ReduceLROnPlateau, with PyTorch 1.13's defaults, update rules and lr sequences.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/optim/more.h"

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

struct LBFGSOptions : OptimizerOptions {
  LBFGSOptions(double lr = 1) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(LBFGSOptions)
  EMBER_OPT_FIELD(LBFGSOptions, double, lr, 1);
  EMBER_OPT_FIELD(LBFGSOptions, int64_t, max_iter, 20);
  EMBER_OPT_FIELD(LBFGSOptions, std::optional<int64_t>, max_eval, std::nullopt);  // unset: max_iter * 5 / 4
  EMBER_OPT_FIELD(LBFGSOptions, double, tolerance_grad, 1e-7);
  EMBER_OPT_FIELD(LBFGSOptions, double, tolerance_change, 1e-9);
  EMBER_OPT_FIELD(LBFGSOptions, int64_t, history_size, 100);
  EMBER_OPT_FIELD(LBFGSOptions, std::optional<std::string>, line_search_fn, std::nullopt);  // or "strong_wolfe"
  // max_eval is -1 when unset; line_search_fn is the bool "line_search_strong_wolfe".
  void visit(OptionVisitor& v) override;
};
// L-BFGS (torch.optim.LBFGS): up to max_iter quasi-Newton iterations per step(closure), with a
// fixed step lr or a strong-Wolfe line search. One parameter group; step() requires the closure.
//
// Note [LBFGS state]: PyTorch keeps the flat vectors (over all parameters) in the first
// parameter's state. Here state_ holds each flat vector split into per-parameter pieces shaped
// like their parameter (a NamedParamState each, unlike LibTorch's one LBFGSParamState), so
// state_dict()/load_state_dict() carry them with their shape checks:
// every parameter has "d", "prev_flat_grad", "old_dirs_<i>" and "old_stps_<i>" (PyTorch's lists,
// i < history length, oldest first), and the first parameter also the 0-dim float64 scalars "t",
// "H_diag", "prev_loss", "ro_<i>", "func_evals" and "n_iter". (No dots in the names: checkpoint
// archives nest on dots.) step() gathers them into flat vectors and splits them back, so a
// state_dict round trip resumes identically. Not stored: PyTorch's "al" (scratch, rewritten
// before it is read). Scalars are computed in double even for float32 parameters (PyTorch
// rounds them to the parameter dtype), and load_state_dict converts the scalars to the first
// parameter's dtype when that parameter has a single element.
class LBFGS : public Optimizer {
 public:
  LBFGS(std::vector<Tensor> params, LBFGSOptions options = {});
  LBFGS(std::vector<OptimizerParamGroup> groups, LBFGSOptions options = {});
  Tensor step(LossClosure closure) override;

 protected:
  void check_state(const OptimizerStateDict& dict, const std::vector<const Tensor*>& params,
                   const std::vector<const OptimizerOptions*>& options) const override;

 private:
  struct History;
  History load_history();
  void save_history(const History& h);
  Tensor gather_flat_grad() const;
  void add_to_params(double t, const Tensor& d);
};

// ---- schedulers ---------------------------------------------------------------------------
// SGDR: eta_min + (base - eta_min) (1 + cos(pi T_cur / T_i)) / 2, restarting when T_cur reaches
// T_i, T_i = T_0 T_mult^k. T_cur and T_i are counted in integers, as step() does in PyTorch
// (its step(epoch) form uses a float log that can land one cycle off).
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0);

 protected:
  double lr_at(size_t, double base_lr) const override;
  int64_t t_0_, t_mult_;
  double eta_min_;
};

struct OneCycleLROptions {
  EMBER_OPT_FIELD(OneCycleLROptions, std::optional<int64_t>, total_steps, std::nullopt);  // or epochs * steps_per_epoch
  EMBER_OPT_FIELD(OneCycleLROptions, std::optional<int64_t>, epochs, std::nullopt);
  EMBER_OPT_FIELD(OneCycleLROptions, std::optional<int64_t>, steps_per_epoch, std::nullopt);
  EMBER_OPT_FIELD(OneCycleLROptions, double, pct_start, 0.3);
  EMBER_OPT_FIELD(OneCycleLROptions, std::string, anneal_strategy, "cos");  // or "linear"
  EMBER_OPT_FIELD(OneCycleLROptions, bool, cycle_momentum, true);
  EMBER_OPT_FIELD(OneCycleLROptions, double, base_momentum, 0.85);
  EMBER_OPT_FIELD(OneCycleLROptions, double, max_momentum, 0.95);
  EMBER_OPT_FIELD(OneCycleLROptions, double, div_factor, 25);
  EMBER_OPT_FIELD(OneCycleLROptions, double, final_div_factor, 1e4);
  EMBER_OPT_FIELD(OneCycleLROptions, bool, three_phase, false);
};
// The 1cycle policy: lr anneals max_lr / div_factor -> max_lr over pct_start of total_steps, then
// down to max_lr / (div_factor * final_div_factor) (three_phase: back to the initial lr first).
// With cycle_momentum the optimizer's momentum ("betas" first element when its options have
// betas, else "momentum") cycles the other way between max_momentum and base_momentum, on every
// group; the momentum bounds are one value for all groups. The optimizer's own lr is ignored.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, double max_lr, const OneCycleLROptions& options);
  // One max_lr per parameter group.
  OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, const OneCycleLROptions& options);
  int64_t total_steps() const { return total_steps_; }

 protected:
  // Also sets the group's momentum when cycling it.
  double lr_at(size_t group, double) const override;
  struct Phase {
    double end_step;
    int start_lr, end_lr;  // 0: initial, 1: max, 2: min lr
    int start_momentum, end_momentum;  // 0: max, 1: base momentum
  };
  OneCycleLROptions options_;
  int64_t total_steps_;
  std::vector<double> max_lrs_;
  std::vector<Phase> phases_;
};

// base * factor, the factor moving linearly from start_factor to end_factor over total_iters.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5);

 protected:
  double lr_at(size_t, double base_lr) const override;
  double start_, end_;
  int64_t total_iters_;
};

// base * factor until epoch total_iters, then base.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  double lr_at(size_t, double base_lr) const override;
  double factor_;
  int64_t total_iters_;
};

// Runs schedulers[i] from milestones[i-1] on, restarted at its epoch 0 there. As in PyTorch every
// scheduler starts from the optimizer's lrs before the first scheduler was built (whatever the
// later ones saw when they were built), and only the current one is stepped.
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones);

 protected:
  // Moves the current scheduler to its own epoch and asks it.
  double lr_at(size_t group, double base_lr) const override;
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

// Multiplies each group's lr by `factor` (not below its min_lr, and only by more than eps) once the
// metric given to step() has not improved for more than `patience` epochs, then waits `cooldown`
// epochs. Not an LRScheduler: its lr depends on the metrics, not on the epoch.
class ReduceLROnPlateau {
 public:
  enum SchedulerMode { min, max };
  enum ThresholdMode { rel, abs };
  // min_lr: empty (0), one value for all groups, or one per group.
  ReduceLROnPlateau(Optimizer& optimizer, SchedulerMode mode = min, double factor = 0.1, int64_t patience = 10,
                    double threshold = 1e-4, ThresholdMode threshold_mode = rel, int64_t cooldown = 0,
                    std::vector<double> min_lr = {}, double eps = 1e-8);
  void step(double metric);
  std::vector<double> get_last_lr() const;
  int64_t last_epoch() const { return epoch_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  // {"last_epoch", "best", "num_bad_epochs", "cooldown_counter"} (best may be +-inf: stored
  // as a string then); the lrs live in the optimizer's state.
  json::Value state_dict() const;
  void load_state_dict(const json::Value& state);

 private:
  bool is_better(double a) const;
  Optimizer& optimizer_;
  SchedulerMode mode_;
  double factor_;
  int64_t patience_;
  double threshold_;
  ThresholdMode threshold_mode_;
  int64_t cooldown_;
  std::vector<double> min_lrs_;
  double eps_;
  double best_;  // the best metric so far (starts at the worst value for the mode)
  int64_t num_bad_epochs_ = 0, cooldown_counter_ = 0, epoch_ = 0;
};
// LibTorch's name.
using ReduceLROnPlateauScheduler = ReduceLROnPlateau;

}  // namespace ember::optim
