// The base of the optimizers with LibTorch's torch::optim interface (LibTorch's
// torch/optim/optimizer.h): parameter groups with per-group options, step(), zero_grad(), and
// the base types of options and per-parameter state. Each optimizer has its own file
// (ember/optim/sgd.h, adam.h, ...), the schedulers theirs under ember/optim/schedulers/;
// ember/optim/optim.h includes them all. The update rules follow PyTorch's reference formulas.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "ember/core/arg.h"
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

// The options of an optimizer (one per parameter group). An optimizer's own options derive
// from OptimizerCloneableOptions<Self>, which implements clone(). The defaults of get_lr/set_lr
// throw (LibTorch's do too): options without a learning rate cannot be scheduled.
class OptimizerOptions {
 public:
  virtual ~OptimizerOptions() = default;
  virtual std::unique_ptr<OptimizerOptions> clone() const;
  virtual double get_lr() const;
  virtual void set_lr(double lr);
  // LibTorch's hooks for options defined by users; ember's checkpoints use visit().
  virtual void serialize(serialize::InputArchive& archive);
  virtual void serialize(serialize::OutputArchive& archive) const;
  // Every option, for state_dict()/checkpoints. User-defined options without it save none.
  virtual void visit(OptionVisitor&) {}
};

template <class Derived>
class OptimizerCloneableOptions : public OptimizerOptions {
 public:
  std::unique_ptr<OptimizerOptions> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// Equal when every option visit() names is equal (a fresh copy of each is visited).
bool options_equal(const OptimizerOptions& a, const OptimizerOptions& b);

// The per-parameter state of an optimizer (momentum buffers, moments, step counts), one object
// per parameter in Optimizer::state() keyed by param_key(p), with LibTorch's classes
// (SGDParamState, AdamParamState, ...). visit() names its tensors and step count for
// state_dict() and checkpoints.
struct ParamStateVisitor {
  virtual ~ParamStateVisitor() = default;
  virtual void tensor(const std::string& name, Tensor& t) = 0;  // undefined: not held
  virtual void step(int64_t& step) = 0;                         // 0: no step count
};

class OptimizerParamState {
 public:
  virtual ~OptimizerParamState() = default;
  virtual std::unique_ptr<OptimizerParamState> clone() const;
  virtual void serialize(serialize::InputArchive& archive);
  virtual void serialize(serialize::OutputArchive& archive) const;
  virtual void visit(ParamStateVisitor&) {}
};

template <class Derived>
class OptimizerCloneableParamState : public OptimizerParamState {
 public:
  std::unique_ptr<OptimizerParamState> clone() const override {
    return std::make_unique<Derived>(static_cast<const Derived&>(*this));
  }
};

// Tensors by name and a step count: the state load_state_dict() restores for optimizers that
// do not say which class theirs is (Optimizer::make_param_state), and LBFGS's pieces.
class NamedParamState : public OptimizerCloneableParamState<NamedParamState> {
 public:
  std::map<std::string, Tensor> tensors;
  int64_t step = 0;
  void visit(ParamStateVisitor& v) override {
    for (auto& [name, t] : tensors) v.tensor(name, t);
    v.step(step);
  }
};

// Equal when both hold the same tensors (by name, equal values) and step count, as LibTorch's
// operator== of its state classes.
bool param_states_equal(const OptimizerParamState& a, const OptimizerParamState& b);
template <class S, std::enable_if_t<std::is_base_of_v<OptimizerParamState, S>, int> = 0>
bool operator==(const S& a, const S& b) {
  return param_states_equal(a, b);
}

// Optimizer::state()'s key for a parameter: its TensorImpl's address as text, which is
// c10::guts::to_string(p.unsafeGetTensorImpl()) (LibTorch's key).
std::string param_key(const Tensor& p);
using ParamStateMap = std::unordered_map<std::string, std::unique_ptr<OptimizerParamState>>;

// Helpers for the options structs of the optimizers: clone/get_lr/set_lr, and a
// LibTorch-style chainable option with its getter and member.
#define EMBER_OPTIONS_COMMON(Self)                                                                   \
  std::unique_ptr<OptimizerOptions> clone() const override { return std::make_unique<Self>(*this); } \
  double get_lr() const override { return lr_; }                                                     \
  void set_lr(double lr) override { lr_ = lr; }                                                      \
  friend bool operator==(const Self& a, const Self& b) { return options_equal(a, b); }
#define EMBER_OPT_FIELD(Self, T, name, init) \
  Self& name(T v) {                          \
    name##_ = v;                             \
    return *this;                            \
  }                                          \
  T name() const { return name##_; }         \
  T name##_ = init

class OptimizerParamGroup {
 public:
  OptimizerParamGroup(std::vector<Tensor> params) : params_(std::move(params)) {}  // NOLINT
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

 protected:
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
  // Note [Optimizer state schema]: what step() keeps per parameter, so that load_state_dict
  // refuses state it would later trip over (a missing, unknown, misshapen, undefined or
  // non-floating tensor, a missing or negative step count) with an error naming the tensor,
  // instead of accepting it and failing inside step(). A parameter has either no state or
  // all of it. nullopt (the default, for optimizers defined by users): only shapes are checked.
  struct StateSchema {
    std::vector<std::string> tensors;  // shaped like the parameter (complex iff it is)
    std::vector<std::string> scalars;  // one-element tensors
    bool step = false;                 // a step count (>= min_step) comes with the state
    int64_t min_step = 1;              // 0 where state exists before the first step (Adagrad)
  };
  Optimizer(std::vector<OptimizerParamGroup> param_groups, std::unique_ptr<OptimizerOptions> defaults);
  Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;
  Optimizer(Optimizer&&) = default;

  // One update; `closure` (re)computes the loss, as LibTorch's LossClosure.
  using LossClosure = std::function<Tensor()>;
  virtual Tensor step(LossClosure closure = nullptr) = 0;
  // set_to_none: drop the gradients instead of zeroing them (LibTorch 1.13 and PyTorch 1.12
  // zero them by default).
  void zero_grad(bool set_to_none = false);
  void add_param_group(const OptimizerParamGroup& group);

  std::vector<OptimizerParamGroup>& param_groups() noexcept { return param_groups_; }
  const std::vector<OptimizerParamGroup>& param_groups() const noexcept { return param_groups_; }
  OptimizerOptions& defaults() noexcept { return *defaults_; }
  const OptimizerOptions& defaults() const noexcept { return *defaults_; }
  // The per-parameter state, keyed by param_key(p).
  ParamStateMap& state() noexcept { return state_; }
  const ParamStateMap& state() const noexcept { return state_; }

  // LibTorch's old interface, which warns that it will be removed: the parameters of the first
  // group, adding to them, and how many parameters all groups hold.
  const std::vector<Tensor>& parameters() const noexcept;
  std::vector<Tensor>& parameters() noexcept;
  void add_parameters(const std::vector<Tensor>& parameters);
  size_t size() const noexcept;

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

  // The state of `p`, or nullptr.
  OptimizerParamState* find_state(const Tensor& p) const;
  // The state of `p` as the optimizer's own class S, created empty when `p` has none.
  template <class S>
  S& state_of(const Tensor& p) {
    auto& slot = state_[param_key(p)];
    if (!slot) slot = std::make_unique<S>();
    return static_cast<S&>(*slot);
  }
  // An empty state of this optimizer's class, which load_state_dict() fills through visit().
  // The default is a NamedParamState, which takes any names.
  virtual std::unique_ptr<OptimizerParamState> make_param_state() const;

  std::vector<OptimizerParamGroup> param_groups_;
  ParamStateMap state_;
  std::unique_ptr<OptimizerOptions> defaults_;

  virtual std::optional<StateSchema> state_schema(const OptimizerOptions& group_options) const {
    return std::nullopt;
  }
  // Checks the per-parameter state of a dict about to be loaded: params[i] is parameter i and
  // options[i] the options of its group (the dict's). The default checks state_schema().
  virtual void check_state(const OptimizerStateDict& dict, const std::vector<const Tensor*>& params,
                           const std::vector<const OptimizerOptions*>& options) const;
};

// Tensor& zeros_like(p) the first time: a state tensor created when first used.
Tensor& state_slot(Tensor& t, const Tensor& p);

}  // namespace ember::optim
