#include "ember/optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <typeinfo>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::optim {

Optimizer::Optimizer(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

Tensor Optimizer::evaluate(const LossClosure& closure) {
  if (!closure) return Tensor();
  AutoGradMode enable(true);
  return closure();
}

std::vector<OptimizerParamGroup> Optimizer::one_group(std::vector<Tensor> params) {
  return {OptimizerParamGroup(std::move(params))};
}

void Optimizer::add_param_group(const OptimizerParamGroup& group) {
  OptimizerParamGroup g(group);
  if (!g.has_options()) g.set_options(defaults_->clone());
  for (size_t i = 0; i < g.params().size(); ++i) {
    const Tensor& p = g.params()[i];
    EMBER_CHECK(p.defined(), "optimizer: a parameter is undefined");
    for (size_t j = 0; j < i; ++j)
      EMBER_CHECK(!g.params()[j].is_same(p), "optimizer got duplicate parameters in one parameter group");
    EMBER_CHECK(p.is_leaf(), "optimizer: can't optimize a non-leaf Tensor");
    for (const OptimizerParamGroup& other : groups_)
      for (const Tensor& q : other.params())
        EMBER_CHECK(!q.is_same(p), "some parameters appear in more than one parameter group");
  }
  groups_.push_back(std::move(g));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (OptimizerParamGroup& g : groups_)
    for (Tensor& p : g.params()) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad().reset();
      } else {
        NoGradGuard ng;
        p.mutable_grad().zero_();
      }
    }
}

std::vector<Tensor> Optimizer::parameters() const {
  std::vector<Tensor> r;
  for (const OptimizerParamGroup& g : groups_) r.insert(r.end(), g.params().begin(), g.params().end());
  return r;
}

SGD::SGD(std::vector<Tensor> params, const SGDOptions& options) : SGD(one_group(std::move(params)), options) {}

SGD::SGD(std::vector<OptimizerParamGroup> groups, const SGDOptions& options)
    : Optimizer({}, std::make_unique<SGDOptions>(options)) {
  EMBER_CHECK(options.lr() >= 0, "Invalid learning rate: ", options.lr());
  EMBER_CHECK(options.momentum() >= 0, "Invalid momentum value: ", options.momentum());
  EMBER_CHECK(options.weight_decay() >= 0, "Invalid weight_decay value: ", options.weight_decay());
  EMBER_CHECK(!options.nesterov() || (options.momentum() > 0 && options.dampening() == 0),
              "Nesterov momentum requires a momentum and zero dampening");
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

Tensor SGD::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : groups_) {
    const auto& o = static_cast<const SGDOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = p.grad();
      if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      if (o.momentum() != 0) {
        auto& st = state_[p.unsafeGetTensorImpl()];
        auto it = st.find("momentum_buffer");
        if (it == st.end()) {
          it = st.emplace("momentum_buffer", g.clone()).first;
        } else {
          it->second.mul_(o.momentum()).add_(g, 1 - o.dampening());
        }
        g = o.nesterov() ? g.add(it->second, o.momentum()) : it->second;
      }
      p.add_(g, o.maximize() ? o.lr() : -o.lr());
    }
  }
  return loss;
}


std::optional<Optimizer::StateSchema> SGD::state_schema(const OptimizerOptions& group_options) const {
  const auto& o = static_cast<const SGDOptions&>(group_options);
  if (o.momentum() == 0) return StateSchema{};
  return StateSchema{.tensors = {"momentum_buffer"}};
}

Adam::Adam(std::vector<Tensor> params, const AdamOptions& options) : Adam(one_group(std::move(params)), options) {}
Adam::Adam(std::vector<OptimizerParamGroup> groups, const AdamOptions& options)
    : Adam(std::move(groups), std::make_unique<AdamOptions>(options), false) {}
Adam::Adam(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults, bool decoupled)
    : Optimizer({}, std::move(defaults)), decoupled_(decoupled) {
  (void)check_adam_options(static_cast<const AdamOptions&>(*defaults_));
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}
AdamW::AdamW(std::vector<Tensor> params, const AdamOptions& options) : AdamW(one_group(std::move(params)), options) {}
AdamW::AdamW(std::vector<OptimizerParamGroup> groups, const AdamOptions& options)
    : Adam(std::move(groups), options.clone(), true) {}

std::optional<Optimizer::StateSchema> Adam::state_schema(const OptimizerOptions& group_options) const {
  StateSchema s{.tensors = {"exp_avg", "exp_avg_sq"}, .step = true};
  if (static_cast<const AdamOptions&>(group_options).amsgrad()) s.tensors.push_back("max_exp_avg_sq");
  return s;
}

Tensor Adam::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : groups_) {
    const auto& o = static_cast<const AdamOptions&>(group.options());
    auto [b1, b2] = o.betas();
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = o.maximize() ? p.grad().neg() : p.grad();
      if (decoupled_) p.mul_(1 - o.lr() * o.weight_decay());
      else if (o.weight_decay() != 0) g = g.add(p, o.weight_decay());
      auto& st = state_[p.unsafeGetTensorImpl()];
      if (!st.count("exp_avg")) {
        st["exp_avg"] = zeros_like(p, {}, MemoryFormat::Preserve);
        st["exp_avg_sq"] = zeros_like(p, {}, MemoryFormat::Preserve);
        if (o.amsgrad()) st["max_exp_avg_sq"] = zeros_like(p, {}, MemoryFormat::Preserve);
      }
      const int64_t step = ++steps_[p.unsafeGetTensorImpl()];
      Tensor& m = st["exp_avg"];
      Tensor& v = st["exp_avg_sq"];
      m.mul_(b1).add_(g, 1 - b1);
      v.mul_(b2).addcmul_(g, g.conj(), 1 - b2);
      const double bc1 = 1 - std::pow(b1, double(step)), bc2 = 1 - std::pow(b2, double(step));
      Tensor denom;
      if (o.amsgrad()) {
        Tensor& vmax = st["max_exp_avg_sq"];
        vmax = maximum(vmax, v);
        denom = vmax.sqrt().div(std::sqrt(bc2)).add(o.eps());
      } else {
        denom = v.sqrt().div(std::sqrt(bc2)).add(o.eps());
      }
      p.addcdiv_(m, denom, -o.lr() / bc1);
    }
  }
  return loss;
}

}  // namespace ember::optim

namespace ember::optim {

void OptionVisitor::field(const char* name, std::tuple<double, double>& value) {
  const std::string n(name);
  field((n + ".0").c_str(), std::get<0>(value));
  field((n + ".1").c_str(), std::get<1>(value));
}

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict d;
  int64_t index = 0;
  for (const OptimizerParamGroup& g : groups_) {
    OptimizerStateDict::Group group;
    group.options = g.options().clone();
    for (const Tensor& p : g.params()) {
      group.params.push_back(index);
      const TensorImpl* key = p.unsafeGetTensorImpl();
      auto st = state_.find(key);
      auto step = steps_.find(key);
      if (st != state_.end() || step != steps_.end()) {
        OptimizerStateDict::ParamState& ps = d.state[index];
        if (st != state_.end())
          for (const auto& [name, t] : st->second) ps.tensors[name] = t.detach().clone();
        if (step != steps_.end()) ps.step = step->second;
      }
      ++index;
    }
    d.param_groups.push_back(std::move(group));
  }
  return d;
}

namespace {
// Every floating-point option finite and the learning rate non-negative: options come from
// checkpoints too (a corrupted "lr" must not reach step()).
struct FiniteOptions : OptionVisitor {
  size_t group = 0;
  using OptionVisitor::field;
  void field(const char* name, double& v) override {
    EMBER_CHECK(std::isfinite(v), "Optimizer::load_state_dict: option '", name, "' of parameter group ", group,
                " is ", v, " (expected a finite number)");
  }
  void field(const char*, int64_t&) override {}
  void field(const char*, bool&) override {}
};

std::string join_names(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::string out;
  for (const auto* list : {&a, &b})
    for (const std::string& n : *list) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}
}  // namespace

void Optimizer::check_state(const OptimizerStateDict& dict, const std::vector<const Tensor*>& params,
                            const std::vector<const OptimizerOptions*>& options) const {
  for (const auto& [index, ps] : dict.state) {
    const Tensor& p = *params[size_t(index)];
    const std::string where = "Optimizer::load_state_dict: state of parameter " + std::to_string(index);
    EMBER_CHECK(ps.step >= 0, where, ": step count ", ps.step, " is negative");
    for (const auto& [name, t] : ps.tensors) {
      EMBER_CHECK(t.defined(), where, ": tensor '", name, "' is undefined");
      EMBER_CHECK(t.is_floating_point() || t.is_complex(), where, ": tensor '", name, "' has dtype ", t.scalar_type(),
                  " (optimizer state is floating point)");
    }
    const std::optional<StateSchema> schema = state_schema(*options[size_t(index)]);
    if (!schema) {
      for (const auto& [name, t] : ps.tensors)
        EMBER_CHECK(t.numel() == 1 || t.sizes() == p.sizes(), where, ": tensor '", name, "' has shape ", t.sizes(),
                    " but the parameter has shape ", p.sizes());
      continue;
    }
    if (ps.tensors.empty() && ps.step == 0) continue;  // no state
    auto listed = [](const std::vector<std::string>& v, const std::string& n) {
      return std::find(v.begin(), v.end(), n) != v.end();
    };
    for (const auto& [name, t] : ps.tensors) {
      if (listed(schema->tensors, name)) {
        EMBER_CHECK(t.sizes() == p.sizes(), where, ": tensor '", name, "' has shape ", t.sizes(),
                    " but the parameter has shape ", p.sizes());
        EMBER_CHECK(t.is_complex() == p.is_complex(), where, ": tensor '", name, "' has dtype ", t.scalar_type(),
                    " but the parameter has dtype ", p.scalar_type());
      } else {
        EMBER_CHECK(listed(schema->scalars, name), where, ": unexpected tensor '", name,
                    "' (this optimizer keeps ", join_names(schema->tensors, schema->scalars), ")");
        EMBER_CHECK(t.numel() == 1 && !t.is_complex(), where, ": tensor '", name,
                    "' should hold one real number, got shape ", t.sizes(), " and dtype ", t.scalar_type());
      }
    }
    for (const auto* list : {&schema->tensors, &schema->scalars})
      for (const std::string& name : *list)
        EMBER_CHECK(ps.tensors.count(name), where, ": tensor '", name, "' is missing (this optimizer keeps ",
                    join_names(schema->tensors, schema->scalars), ")");
    if (schema->step)
      EMBER_CHECK(ps.step >= 1, where, ": the step count is missing (expected one >= 1 with the state)");
    else
      EMBER_CHECK(ps.step == 0, where, ": has a step count, which this optimizer does not keep");
  }
}

void Optimizer::load_state_dict(const OptimizerStateDict& dict) {
  EMBER_CHECK(dict.param_groups.size() == groups_.size(), "Optimizer::load_state_dict: loaded state dict has ",
              dict.param_groups.size(), " parameter groups but the optimizer has ", groups_.size());
  std::vector<const Tensor*> params;
  std::vector<const OptimizerOptions*> options;  // each parameter's group options, as loaded
  for (size_t i = 0; i < groups_.size(); ++i) {
    const auto& loaded = dict.param_groups[i];
    EMBER_CHECK(loaded.params.size() == groups_[i].params().size(), "Optimizer::load_state_dict: parameter group ",
                i, " has ", loaded.params.size(), " parameters in the loaded state dict but ",
                groups_[i].params().size(), " in the optimizer");
    EMBER_CHECK(!loaded.options || typeid(*loaded.options) == typeid(groups_[i].options()),
                "Optimizer::load_state_dict: parameter group ", i, " holds options of another optimizer type");
    const OptimizerOptions& o = loaded.options ? *loaded.options : groups_[i].options();
    FiniteOptions finite;
    finite.group = i;
    std::unique_ptr<OptimizerOptions> copy = o.clone();  // visit() takes a mutable struct
    copy->visit(finite);
    EMBER_CHECK(o.get_lr() >= 0, "Optimizer::load_state_dict: parameter group ", i, " has learning rate ",
                o.get_lr(), " (expected >= 0)");
    for (size_t k = 0; k < loaded.params.size(); ++k)
      EMBER_CHECK(loaded.params[k] == int64_t(params.size() + k), "Optimizer::load_state_dict: parameter group ", i,
                  " lists parameter ", loaded.params[k], " at position ", k, " (expected ", params.size() + k,
                  ": parameters are numbered in order across groups)");
    for (const Tensor& p : groups_[i].params()) {
      params.push_back(&p);
      options.push_back(&o);
    }
  }
  for (const auto& [index, ps] : dict.state)
    EMBER_CHECK(index >= 0 && index < int64_t(params.size()), "Optimizer::load_state_dict: state for parameter ",
                index, " but the optimizer has ", params.size(), " parameters");
  check_state(dict, params, options);
  // Checked: now replace options and state.
  for (size_t i = 0; i < groups_.size(); ++i)
    if (dict.param_groups[i].options) groups_[i].set_options(dict.param_groups[i].options->clone());
  state_.clear();
  steps_.clear();
  for (const auto& [index, ps] : dict.state) {
    const Tensor& p = *params[size_t(index)];
    const TensorImpl* key = p.unsafeGetTensorImpl();
    auto& st = state_[key];
    for (const auto& [name, t] : ps.tensors)
      st[name] = t.defined() ? t.detach().to(p.device(), t.numel() == 1 && p.numel() != 1 ? t.scalar_type() : p.scalar_type()).clone() : t;
    if (st.empty()) state_.erase(key);
    if (ps.step > 0) steps_[key] = ps.step;
  }
}

}  // namespace ember::optim
