#include "ember/optim/more.h"

#include <algorithm>
#include <cmath>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/functions.h"

namespace ember::optim {

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions o) : RMSprop(one_group(std::move(params)), o) {}

RMSprop::RMSprop(std::vector<OptimizerParamGroup> groups, RMSpropOptions o)
    : Optimizer(std::vector<OptimizerParamGroup>{}, std::make_unique<RMSpropOptions>(o)) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.eps() >= 0, "Invalid epsilon value: ", o.eps());
  EMBER_CHECK(o.alpha() >= 0, "Invalid alpha value: ", o.alpha());
  EMBER_CHECK(o.momentum() >= 0, "Invalid momentum value: ", o.momentum());
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  for (const auto& g : groups) add_param_group(g);
}

std::optional<Optimizer::StateSchema> RMSprop::state_schema(const OptimizerOptions& group_options) const {
  const auto& o = static_cast<const RMSpropOptions&>(group_options);
  StateSchema s{.tensors = {"square_avg"}, .step = true};
  if (o.momentum() > 0) s.tensors.push_back("momentum_buffer");
  if (o.centered()) s.tensors.push_back("grad_avg");
  return s;
}

Tensor RMSprop::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = static_cast<const RMSpropOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = o.weight_decay() != 0 ? p.grad().add(p, o.weight_decay()) : p.grad();
      auto& st = state_of<RMSpropParamState>(p);
      if (!st.square_avg().defined()) {
        st.square_avg(zeros_like(p));
        if (o.momentum() > 0) st.momentum_buffer(zeros_like(p));
        if (o.centered()) st.grad_avg(zeros_like(p));
      }
      st.step(st.step() + 1);
      Tensor& v = st.square_avg();
      v.mul_(o.alpha()).addcmul_(g, g, 1 - o.alpha());
      Tensor avg;
      if (o.centered()) {
        Tensor& m = state_slot(st.grad_avg(), p);
        m.mul_(o.alpha()).add_(g, 1 - o.alpha());
        avg = v.addcmul(m, m, -1).sqrt().add(o.eps());
      } else {
        avg = v.sqrt().add(o.eps());
      }
      if (o.momentum() > 0) {
        Tensor& b = state_slot(st.momentum_buffer(), p);
        b.mul_(o.momentum()).addcdiv_(g, avg);
        p.add_(b, -o.lr());
      } else {
        p.addcdiv_(g, avg, -o.lr());
      }
    }
  }
  return loss;
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions o) : Adagrad(one_group(std::move(params)), o) {}

Adagrad::Adagrad(std::vector<OptimizerParamGroup> groups, AdagradOptions o)
    : Optimizer(std::vector<OptimizerParamGroup>{}, std::make_unique<AdagradOptions>(o)) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.lr_decay() >= 0, "Invalid lr_decay value: ", o.lr_decay());
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  EMBER_CHECK(o.initial_accumulator_value() >= 0, "Invalid initial_accumulator_value value: ",
              o.initial_accumulator_value());
  for (const auto& g : groups) add_param_group(g);
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& go = static_cast<const AdagradOptions&>(group.options());
    for (const Tensor& p : group.params())
      state_of<AdagradParamState>(p).sum(full_like(p, go.initial_accumulator_value(), {}, MemoryFormat::Preserve));
  }
}

std::optional<Optimizer::StateSchema> Adagrad::state_schema(const OptimizerOptions&) const {
  return StateSchema{.tensors = {"sum"}, .step = true, .min_step = 0};
}

Tensor Adagrad::step(LossClosure closure) {
  Tensor loss = evaluate(closure);
  NoGradGuard no_grad;
  for (OptimizerParamGroup& group : param_groups_) {
    const auto& o = static_cast<const AdagradOptions&>(group.options());
    for (Tensor& p : group.params()) {
      if (!p.grad().defined()) continue;
      Tensor g = o.weight_decay() != 0 ? p.grad().add(p, o.weight_decay()) : p.grad();
      auto& st = state_of<AdagradParamState>(p);
      if (!st.sum().defined()) st.sum(full_like(p, o.initial_accumulator_value()));
      st.step(st.step() + 1);
      const int64_t t = st.step();
      const double clr = o.lr() / (1 + double(t - 1) * o.lr_decay());
      Tensor& s = st.sum();
      s.addcmul_(g, g, 1);
      p.addcdiv_(g, s.sqrt().add(o.eps()), -clr);
    }
  }
  return loss;
}

// ---- schedulers --------------------------------------------------------------------------------
LRScheduler::LRScheduler(Optimizer& optimizer) : optimizer_(optimizer) {
  for (auto& g : optimizer_.param_groups()) base_lrs_.push_back(g.options().get_lr());
}
void LRScheduler::step() {
  const std::vector<double> lrs = get_lrs();
  auto& groups = optimizer_.param_groups();
  EMBER_CHECK(lrs.size() == groups.size(), "LRScheduler::step: Number of learning rates not equal to the number of "
              "param groups\nNumber of learning rates given: ", lrs.size(), "\nNumber of param groups: ",
              groups.size());
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(lrs[i]);
  ++step_count_;
}
std::vector<double> LRScheduler::get_lrs() {
  ++epoch_;
  std::vector<double> lrs = get_current_lrs();
  for (size_t i = 0; i < lrs.size() && i < base_lrs_.size(); ++i) lrs[i] = lr_at(i, base_lrs_[i]);
  return lrs;
}
double LRScheduler::lr_at(size_t, double base_lr) const { return base_lr; }
std::vector<double> LRScheduler::get_current_lrs() const { return get_last_lr(); }
json::Value LRScheduler::state_dict() const {
  json::Array lrs;
  for (double lr : base_lrs_) lrs.push_back(lr);
  return json::Object{{"last_epoch", epoch_}, {"base_lrs", std::move(lrs)}};
}

void LRScheduler::load_state_dict(const json::Value& state) {
  const json::Value* epoch = state.find("last_epoch");
  const json::Value* lrs = state.find("base_lrs");
  EMBER_CHECK(state.is_object() && epoch && lrs && lrs->is_array(),
              "LRScheduler::load_state_dict: expected {\"last_epoch\", \"base_lrs\"}, got ", json::dump(state));
  EMBER_CHECK(lrs->as_array().size() == base_lrs_.size(), "LRScheduler::load_state_dict: the state has ",
              lrs->as_array().size(), " parameter groups, the optimizer ", base_lrs_.size());
  std::vector<double> base;
  for (const auto& v : lrs->as_array()) base.push_back(v.as_double("base_lrs"));
  epoch_ = epoch->as_int("last_epoch");
  step_count_ = unsigned(std::max<int64_t>(epoch_, 0));
  base_lrs_ = std::move(base);
}

std::vector<double> LRScheduler::get_last_lr() const {
  std::vector<double> r;
  for (const auto& g : optimizer_.param_groups()) r.push_back(g.options().get_lr());
  return r;
}

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  EMBER_CHECK(step_size > 0, "StepLR: step_size must be positive, got ", step_size);
}
double StepLR::lr_at(size_t, double base) const { return base * std::pow(gamma_, double(epoch_ / step_size_)); }
std::vector<double> StepLR::get_lrs() {
  ++epoch_;
  std::vector<double> lrs = get_current_lrs();
  if (step_count_ != 0 && step_count_ % uint64_t(step_size_) == 0)
    for (double& lr : lrs) lr *= gamma_;
  return lrs;
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
}
double MultiStepLR::lr_at(size_t, double base) const {
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), epoch_) - milestones_.begin();
  return base * std::pow(gamma_, double(passed));
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) {}
double ExponentialLR::lr_at(size_t, double base) const { return base * std::pow(gamma_, double(epoch_)); }

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
}
double CosineAnnealingLR::lr_at(size_t, double base) const {
  constexpr double kPi = 3.14159265358979323846;
  return eta_min_ + (base - eta_min_) * (1 + std::cos(kPi * double(epoch_) / double(t_max_))) / 2;
}

LambdaLR::LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda)
    : LRScheduler(optimizer), lambda_(std::move(lr_lambda)) {
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) groups[i].options().set_lr(base_lrs_[i] * lambda_(0));
}
double LambdaLR::lr_at(size_t, double base) const { return base * lambda_(epoch_); }

}  // namespace ember::optim
