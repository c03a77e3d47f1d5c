// Optimizers with LibTorch's torch::optim interface: parameter groups with per-group
// options, step(), zero_grad(). The update rules follow PyTorch's reference formulas.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/core/tensor.h"

namespace ember::serialize {
class OutputArchive;
class InputArchive;
}  // namespace ember::serialize

namespace ember::optim {

// Visits every hyper-parameter of an options struct by name (checkpoints read and write
// options through it, so a new option is saved by naming it once).
struct OptionVisitor {
  virtual ~OptionVisitor() = default;
  virtual void field(const char* name, double& value) = 0;
  virtual void field(const char* name, int64_t& value) = 0;
  virtual void field(const char* name, bool& value) = 0;
  void field(const char* name, std::tuple<double, double>& value);  // name.0, name.1
};

struct OptimizerOptions {
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const = 0;
  virtual double get_lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // Every option, for state_dict()/checkpoints. User-defined options without it save none.
  virtual void visit(OptionVisitor&) {}
};

// Helpers for the options structs of the optimizers: clone/get_lr/set_lr, and a
// LibTorch-style chainable option with its getter and member.
#define EMBER_OPTIONS_COMMON(Self)                                                                   \
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<Self>(*this); } \
  double get_lr() const override { return lr_; }                                                     \
  void set_lr(double lr) override { lr_ = lr; }
#define EMBER_OPT_FIELD(Self, T, name, init) \
  Self& name(T v) {                          \
    name##_ = v;                             \
    return *this;                            \
  }                                          \
  T name() const { return name##_; }         \
  T name##_ = init

// The checks of Adam-like options (lr, eps, betas in [0, 1), weight_decay), as torch.optim's
// messages; returns a copy of the options.
template <class O>
std::unique_ptr<OptimizerOptions> check_adam_options(const O& o) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.eps() >= 0, "Invalid epsilon value: ", o.eps());
  auto [b1, b2] = o.betas();
  EMBER_CHECK(b1 >= 0 && b1 < 1, "Invalid beta parameter at index 0: ", b1);
  EMBER_CHECK(b2 >= 0 && b2 < 1, "Invalid beta parameter at index 1: ", b2);
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  return o.clone();
}

class OptimizerParamGroup {
 public:
  explicit OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}
  OptimizerParamGroup(std::vector<Tensor> params, std::unique_ptr<OptimizerOptions> options)
      : params_(std::move(params)), options_(std::move(options)) {}
  OptimizerParamGroup(const OptimizerParamGroup& g)
      : params_(g.params_), options_(g.options_ ? g.options_->clone() : nullptr) {}
  bool has_options() const { return options_ != nullptr; }
  OptimizerOptions& options() {
    EMBER_CHECK(options_ != nullptr, "param group has no options");
    return *options_;
  }
  const OptimizerOptions& options() const {
    EMBER_CHECK(options_ != nullptr, "param group has no options");
    return *options_;
  }
  void set_options(std::unique_ptr<OptimizerOptions> options) { options_ = std::move(options); }
  std::vector<Tensor>& params() { return params_; }
  const std::vector<Tensor>& params() const { return params_; }

 private:
  std::vector<Tensor> params_;
  std::unique_ptr<OptimizerOptions> options_;
};

// Optimizer::state_dict(): each group's options and parameter indices (parameters are
// numbered across groups in order, as torch.optim numbers them), and per-parameter state
// (tensors such as "exp_avg", and the step count) by parameter index.
struct OptimizerStateDict {
  struct Group {
    std::unique_ptr<OptimizerOptions> options;
    std::vector<int64_t> params;
    Group() = default;
    Group(const Group& g) : options(g.options ? g.options->clone() : nullptr), params(g.params) {}
    Group(Group&&) = default;
    Group& operator=(Group g) { options = std::move(g.options); params = std::move(g.params); return *this; }
  };
  struct ParamState {
    std::map<std::string, Tensor> tensors;
    int64_t step = 0;  // 0: the optimizer keeps no step count for this parameter
  };
  std::vector<Group> param_groups;
  std::map<int64_t, ParamState> state;
};

class Optimizer {
 public:
  Optimizer(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update; `closure` (re)computes the loss, as LibTorch's LossClosure.
  using LossClosure = std::function<Tensor()>;
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  void zero_grad(bool set_to_none = true);
  void add_param_group(const OptimizerParamGroup& group);

  std::vector<OptimizerParamGroup>& param_groups() { return groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const { return groups_; }
  const OptimizerOptions& defaults() const { return *defaults_; }
  // Every parameter of every group.
  std::vector<Tensor> parameters() const;

  // A deep copy of the options and state (torch.optim's state_dict); load_state_dict checks
  // that the groups and parameter shapes match and copies the state in.
  OptimizerStateDict state_dict() const;
  void load_state_dict(const OptimizerStateDict& dict);
  // The state dict in an archive ("param_groups.<i>.options.<name>", "state.<index>.<name>");
  // defined in ember/serialize.
  virtual void save(serialize::OutputArchive& archive) const;
  virtual void load(serialize::InputArchive& archive);

 protected:
  // Runs the closure (if any) with grad mode on and returns its loss.
  static Tensor evaluate(const LossClosure& closure);
  static std::vector<OptimizerParamGroup> one_group(std::vector<Tensor> params);

  std::vector<OptimizerParamGroup> groups_;
  std::unique_ptr<OptimizerOptions> defaults_;
  // Per-parameter state (momentum buffers, moments), keyed by the parameter's TensorImpl.
  std::map<const TensorImpl*, std::map<std::string, Tensor>> state_;
  std::map<const TensorImpl*, int64_t> steps_;

  // Note [Optimizer state schema]: what step() keeps per parameter, so that load_state_dict
  // refuses state it would later trip over (a missing, unknown, misshapen, undefined or
  // non-floating tensor, a missing or negative step count) with an error naming the tensor,
  // instead of accepting it and failing inside step(). A parameter has either no state or
  // all of it. nullopt (the default, for optimizers defined by users): only shapes are checked.
  struct StateSchema {
    std::vector<std::string> tensors;  // shaped like the parameter (complex iff it is)
    std::vector<std::string> scalars;  // one-element tensors
    bool step = false;                 // a step count (>= 1) comes with the state
  };
  virtual std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const {
    return std::nullopt;
  }
  // Checks the per-parameter state of a dict about to be loaded: params[i] is parameter i and
  // options[i] the options of its group (the dict's). The default checks state_schema().
  virtual void check_state(const OptimizerStateDict& dict, const std::vector<const Tensor*>& params,
                           const std::vector<const OptimizerOptions*>& options) const;
};

struct SGDOptions : OptimizerOptions {
  explicit SGDOptions(double lr) : lr_(lr) {}
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<SGDOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
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

// Stochastic gradient descent with momentum, dampening, Nesterov, weight decay and
// maximize, as torch.optim.SGD:
//   g = grad (+ wd * p); b = mu * b + (1 - dampening) * g (b = g on the first step);
//   g = nesterov ? g + mu * b : b; p -= lr * g (+= when maximizing).
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, const SGDOptions& options);
  SGD(std::vector<OptimizerParamGroup> groups, const SGDOptions& options);
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
};

struct AdamOptions : OptimizerOptions {
  explicit AdamOptions(double lr = 1e-3) : lr_(lr) {}
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamOptions>(*this); }
  double get_lr() const override { return lr_; }
  void set_lr(double lr) override { lr_ = lr; }
  AdamOptions& lr(double v) { lr_ = v; return *this; }
  double lr() const { return lr_; }
  AdamOptions& betas(std::tuple<double, double> v) { betas_ = v; return *this; }
  std::tuple<double, double> betas() const { return betas_; }
  AdamOptions& eps(double v) { eps_ = v; return *this; }
  double eps() const { return eps_; }
  AdamOptions& weight_decay(double v) { weight_decay_ = v; return *this; }
  double weight_decay() const { return weight_decay_; }
  AdamOptions& amsgrad(bool v) { amsgrad_ = v; return *this; }
  bool amsgrad() const { return amsgrad_; }
  AdamOptions& maximize(bool v) { maximize_ = v; return *this; }
  bool maximize() const { return maximize_; }

  double lr_;
  std::tuple<double, double> betas_{0.9, 0.999};
  double eps_ = 1e-8, weight_decay_ = 0;
  bool amsgrad_ = false, maximize_ = false;
  void visit(OptionVisitor& v) override {
    v.field("lr", lr_), v.field("betas", betas_), v.field("eps", eps_), v.field("weight_decay", weight_decay_);
    v.field("amsgrad", amsgrad_), v.field("maximize", maximize_);
  }
};

// AdamW: Adam with decoupled weight decay (default 1e-2), as torch.optim.AdamW.
struct AdamWOptions : AdamOptions {
  explicit AdamWOptions(double lr = 1e-3) : AdamOptions(lr) { weight_decay_ = 1e-2; }
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<AdamWOptions>(*this); }
};

// torch.optim.Adam / AdamW: m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// p -= lr / (1 - b1^t) * m / (sqrt(v_or_vmax) / sqrt(1 - b2^t) + eps). Adam adds wd * p to g;
// AdamW scales p by (1 - lr * wd) first.
class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, const AdamOptions& options = AdamOptions());
  Adam(std::vector<OptimizerParamGroup> groups, const AdamOptions& options = AdamOptions());
  Tensor step(LossClosure closure = nullptr) override;

 protected:
  Adam(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults, bool decoupled);
  std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const override;
  bool decoupled_ = false;
};
class AdamW : public Adam {
 public:
  // (AdamWOptions(lr).weight_decay(...) yields AdamOptions&, so both are accepted.)
  AdamW(std::vector<Tensor> params, const AdamOptions& options = AdamWOptions());
  AdamW(std::vector<OptimizerParamGroup> groups, const AdamOptions& options = AdamWOptions());
};

}  // namespace ember::optim
