#include "ember/optim/optimizer.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <typeinfo>

#include "ember/autograd/grad_mode.h"
#include "ember/core/warning.h"
#include "ember/ops/functions.h"

namespace ember::optim {

// ---- options and states ---------------------------------------------------------------------
std::unique_ptr<OptimizerOptions> OptimizerOptions::clone() const {
  EMBER_ERROR("OptimizerOptions::clone() is not implemented by ", typeid(*this).name(),
              " (derive it from OptimizerCloneableOptions<", typeid(*this).name(), ">)");
}
double OptimizerOptions::get_lr() const {
  EMBER_ERROR("OptimizerOptions::get_lr() is not implemented by ", typeid(*this).name(),
              ": override get_lr() and set_lr() for schedulers to change its learning rate");
}
void OptimizerOptions::set_lr(double) {
  EMBER_ERROR("OptimizerOptions::set_lr() is not implemented by ", typeid(*this).name(),
              ": override get_lr() and set_lr() for schedulers to change its learning rate");
}
void OptimizerOptions::serialize(serialize::InputArchive&) {}
void OptimizerOptions::serialize(serialize::OutputArchive&) const {}

std::unique_ptr<OptimizerParamState> OptimizerParamState::clone() const {
  EMBER_ERROR("OptimizerParamState::clone() is not implemented by ", typeid(*this).name(),
              " (derive it from OptimizerCloneableParamState<", typeid(*this).name(), ">)");
}
void OptimizerParamState::serialize(serialize::InputArchive&) {}
void OptimizerParamState::serialize(serialize::OutputArchive&) const {}

namespace {
// Every option of a struct as text, in visit() order.
struct OptionText : OptionVisitor {
  std::vector<std::string> values;
  using OptionVisitor::field;
  void field(const char* name, double& v) override { values.push_back(ember::detail::str_cat(name, "=", v)); }
  void field(const char* name, int64_t& v) override { values.push_back(ember::detail::str_cat(name, "=", v)); }
  void field(const char* name, bool& v) override { values.push_back(ember::detail::str_cat(name, "=", v)); }
};
std::vector<std::string> option_text(const OptimizerOptions& o) {
  OptionText text;
  o.clone()->visit(text);
  return text.values;
}
}  // namespace

bool options_equal(const OptimizerOptions& a, const OptimizerOptions& b) {
  return typeid(a) == typeid(b) && option_text(a) == option_text(b);
}

namespace {
struct StateCollector : ParamStateVisitor {
  std::vector<std::pair<std::string, Tensor>> tensors;
  int64_t steps = 0;
  void tensor(const std::string& name, Tensor& t) override { tensors.emplace_back(name, t); }
  void step(int64_t& s) override { steps = s; }
};
}  // namespace

bool param_states_equal(const OptimizerParamState& a, const OptimizerParamState& b) {
  if (typeid(a) != typeid(b)) return false;
  StateCollector ca, cb;
  a.clone()->visit(ca);
  b.clone()->visit(cb);
  if (ca.steps != cb.steps || ca.tensors.size() != cb.tensors.size()) return false;
  for (size_t i = 0; i < ca.tensors.size(); ++i) {
    const auto& [na, ta] = ca.tensors[i];
    const auto& [nb, tb] = cb.tensors[i];
    if (na != nb || ta.defined() != tb.defined()) return false;
    if (ta.defined() && !ember::equal(ta, tb)) return false;
  }
  return true;
}

std::string param_key(const Tensor& p) {
  std::ostringstream out;
  out << static_cast<const void*>(p.unsafeGetTensorImpl());
  return out.str();
}

Tensor& state_slot(Tensor& t, const Tensor& p) {
  if (!t.defined()) t = zeros_like(p, {}, MemoryFormat::Preserve);
  return t;
}

// ---- Optimizer ---------------------------------------------------------------------------------
Optimizer::Optimizer(std::vector<OptimizerParamGroup> groups, std::unique_ptr<OptimizerOptions> defaults)
    : defaults_(std::move(defaults)) {
  EMBER_CHECK(defaults_ != nullptr, "Optimizer: the default options are null");
  for (const OptimizerParamGroup& g : groups) add_param_group(g);
}

Optimizer::Optimizer(std::vector<Tensor> parameters, std::unique_ptr<OptimizerOptions> defaults)
    : Optimizer(one_group(std::move(parameters)), std::move(defaults)) {}

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
    for (const OptimizerParamGroup& other : param_groups_)
      for (const Tensor& q : other.params())
        EMBER_CHECK(!q.is_same(p), "some parameters appear in more than one parameter group");
  }
  param_groups_.push_back(std::move(g));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (OptimizerParamGroup& g : param_groups_)
    for (Tensor& p : g.params()) {
      if (!p.grad().defined()) continue;
      if (set_to_none) {
        p.mutable_grad().reset();
      } else {
        NoGradGuard ng;
        p.mutable_grad().detach_();
        p.mutable_grad().zero_();
      }
    }
}

const std::vector<Tensor>& Optimizer::parameters() const noexcept {
  EMBER_WARN("Optimizer::parameters() will be removed in PyTorch 1.6 (it returns the parameters of the "
             "first parameter group); use param_groups() instead");
  static const std::vector<Tensor> none;
  return param_groups_.empty() ? none : param_groups_.front().params();
}

std::vector<Tensor>& Optimizer::parameters() noexcept {
  EMBER_WARN("Optimizer::parameters() will be removed in PyTorch 1.6 (it returns the parameters of the "
             "first parameter group); use param_groups() instead");
  if (param_groups_.empty()) param_groups_.emplace_back(std::vector<Tensor>{}, defaults_->clone());
  return param_groups_.front().params();
}

void Optimizer::add_parameters(const std::vector<Tensor>& parameters) {
  EMBER_WARN("Optimizer::add_parameters() will be removed in PyTorch 1.6; use add_param_group() instead");
  if (param_groups_.empty()) {
    add_param_group(OptimizerParamGroup(parameters));
    return;
  }
  auto& params = param_groups_.front().params();
  for (const Tensor& p : parameters) {
    for (const OptimizerParamGroup& other : param_groups_)
      for (const Tensor& q : other.params())
        EMBER_CHECK(!q.is_same(p), "some parameters appear in more than one parameter group");
    EMBER_CHECK(p.defined() && p.is_leaf(), "optimizer: can't optimize an undefined or non-leaf Tensor");
    params.push_back(p);
  }
}

size_t Optimizer::size() const noexcept {
  EMBER_WARN("Optimizer::size() will be removed in PyTorch 1.6");
  size_t n = 0;
  for (const OptimizerParamGroup& g : param_groups_) n += g.params().size();
  return n;
}

OptimizerParamState* Optimizer::find_state(const Tensor& p) const {
  auto it = state_.find(param_key(p));
  return it == state_.end() ? nullptr : it->second.get();
}

std::unique_ptr<OptimizerParamState> Optimizer::make_param_state() const {
  return std::make_unique<NamedParamState>();
}

}  // namespace ember::optim

namespace ember::optim {

void OptionVisitor::field(const char* name, std::tuple<double, double>& value) {
  const std::string n(name);
  field((n + ".0").c_str(), std::get<0>(value));
  field((n + ".1").c_str(), std::get<1>(value));
}

namespace {
// Reads a state's tensors and step count into a state dict entry.
struct StateReader : ParamStateVisitor {
  OptimizerStateDict::ParamState out;
  void tensor(const std::string& name, Tensor& t) override {
    if (t.defined()) out.tensors[name] = t.detach().clone();
  }
  void step(int64_t& step) override { out.step = step; }
};
// Writes a state dict entry into a state (its names were checked by check_state()).
struct StateWriter : ParamStateVisitor {
  const OptimizerStateDict::ParamState* in;
  const Tensor* param;
  size_t used = 0;
  void tensor(const std::string& name, Tensor& t) override {
    auto it = in->tensors.find(name);
    if (it == in->tensors.end()) {
      t = Tensor();
      return;
    }
    ++used;
    const Tensor& v = it->second;
    // Shaped like the parameter: its dtype and device; one-element scalars keep their dtype.
    const bool scalar = v.numel() == 1 && param->numel() != 1;
    t = v.detach().to(param->device(), scalar ? v.scalar_type() : param->scalar_type()).clone();
  }
  void step(int64_t& step) override { step = in->step; }
};
}  // namespace

OptimizerStateDict Optimizer::state_dict() const {
  OptimizerStateDict d;
  int64_t index = 0;
  for (const OptimizerParamGroup& g : param_groups_) {
    OptimizerStateDict::Group group;
    group.options = g.options().clone();
    for (const Tensor& p : g.params()) {
      group.params.push_back(index);
      if (OptimizerParamState* st = find_state(p)) {
        StateReader reader;
        st->visit(reader);
        if (!reader.out.tensors.empty() || reader.out.step != 0) d.state[index] = std::move(reader.out);
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
      EMBER_CHECK(ps.step >= schema->min_step, where, ": the step count is missing (expected one >= ",
                  schema->min_step, " with the state)");
    else
      EMBER_CHECK(ps.step == 0, where, ": has a step count, which this optimizer does not keep");
  }
}

void Optimizer::load_state_dict(const OptimizerStateDict& dict) {
  EMBER_CHECK(dict.param_groups.size() == param_groups_.size(), "Optimizer::load_state_dict: loaded state dict has ",
              dict.param_groups.size(), " parameter groups but the optimizer has ", param_groups_.size());
  std::vector<const Tensor*> params;
  std::vector<const OptimizerOptions*> options;  // each parameter's group options, as loaded
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    const auto& loaded = dict.param_groups[i];
    EMBER_CHECK(loaded.params.size() == param_groups_[i].params().size(), "Optimizer::load_state_dict: parameter group ",
                i, " has ", loaded.params.size(), " parameters in the loaded state dict but ",
                param_groups_[i].params().size(), " in the optimizer");
    EMBER_CHECK(!loaded.options || typeid(*loaded.options) == typeid(param_groups_[i].options()),
                "Optimizer::load_state_dict: parameter group ", i, " holds options of another optimizer type");
    const OptimizerOptions& o = loaded.options ? *loaded.options : param_groups_[i].options();
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
    for (const Tensor& p : param_groups_[i].params()) {
      params.push_back(&p);
      options.push_back(&o);
    }
  }
  for (const auto& [index, ps] : dict.state)
    EMBER_CHECK(index >= 0 && index < int64_t(params.size()), "Optimizer::load_state_dict: state for parameter ",
                index, " but the optimizer has ", params.size(), " parameters");
  check_state(dict, params, options);
  // Checked: now replace options and state.
  for (size_t i = 0; i < param_groups_.size(); ++i)
    if (dict.param_groups[i].options) param_groups_[i].set_options(dict.param_groups[i].options->clone());
  state_.clear();
  for (const auto& [index, ps] : dict.state) {
    const Tensor& p = *params[size_t(index)];
    std::unique_ptr<OptimizerParamState> st = make_param_state();
    if (auto* named = dynamic_cast<NamedParamState*>(st.get())) {
      for (const auto& [name, t] : ps.tensors) named->tensors[name] = Tensor();
    }
    StateWriter writer;
    writer.in = &ps;
    writer.param = &p;
    st->visit(writer);
    EMBER_CHECK(writer.used == ps.tensors.size(), "Optimizer::load_state_dict: state of parameter ", index,
                " has tensors that ", typeid(*st).name(), " does not hold");
    if (!ps.tensors.empty() || ps.step != 0) state_[param_key(p)] = std::move(st);
  }
}

}  // namespace ember::optim
