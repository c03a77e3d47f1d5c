#include "ember/optim/schedulers/lr_scheduler.h"

#include <algorithm>

namespace ember::optim {

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

}  // namespace ember::optim
