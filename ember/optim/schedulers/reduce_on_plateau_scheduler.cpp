#include "ember/optim/schedulers/reduce_on_plateau_scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ember::optim {

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, SchedulerMode mode, double factor, int64_t patience,
                                     double threshold, ThresholdMode threshold_mode, int64_t cooldown,
                                     std::vector<double> min_lr, double eps)
    : optimizer_(optimizer), mode_(mode), factor_(factor), patience_(patience), threshold_(threshold),
      threshold_mode_(threshold_mode), cooldown_(cooldown), min_lrs_(std::move(min_lr)), eps_(eps),
      best_(mode == min ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity()) {
  EMBER_CHECK(factor < 1.0, "Factor should be < 1.0.");
  const size_t groups = optimizer.param_groups().size();
  if (min_lrs_.size() <= 1) min_lrs_.assign(groups, min_lrs_.empty() ? 0.0 : min_lrs_[0]);
  EMBER_CHECK(min_lrs_.size() == groups, "expected ", groups, " min_lrs, got ", min_lrs_.size());
}

bool ReduceLROnPlateau::is_better(double a) const {
  if (mode_ == min) return threshold_mode_ == rel ? a < best_ * (1 - threshold_) : a < best_ - threshold_;
  return threshold_mode_ == rel ? a > best_ * (threshold_ + 1) : a > best_ + threshold_;
}

void ReduceLROnPlateau::step(double metric) {
  ++epoch_;
  if (is_better(metric)) {
    best_ = metric, num_bad_epochs_ = 0;
  } else {
    ++num_bad_epochs_;
  }
  if (cooldown_counter_ > 0) --cooldown_counter_, num_bad_epochs_ = 0;  // bad epochs in cooldown don't count
  if (num_bad_epochs_ <= patience_) return;
  auto& groups = optimizer_.param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].options().get_lr(), new_lr = std::max(old_lr * factor_, min_lrs_.at(i));
    if (old_lr - new_lr > eps_) groups[i].options().set_lr(new_lr);
  }
  cooldown_counter_ = cooldown_, num_bad_epochs_ = 0;
}

json::Value ReduceLROnPlateau::state_dict() const {
  json::Value best = std::isfinite(best_) ? json::Value(best_) : json::Value(best_ > 0 ? "inf" : best_ < 0 ? "-inf" : "nan");
  return json::Object{{"last_epoch", epoch_}, {"best", best}, {"num_bad_epochs", num_bad_epochs_},
                      {"cooldown_counter", cooldown_counter_}};
}

void ReduceLROnPlateau::load_state_dict(const json::Value& state) {
  for (const char* k : {"last_epoch", "best", "num_bad_epochs", "cooldown_counter"})
    EMBER_CHECK(state.is_object() && state.find(k), "ReduceLROnPlateau::load_state_dict: missing '", k, "' in ",
                json::dump(state));
  const json::Value& best = *state.find("best");
  if (best.is_string()) {
    const std::string& b = best.as_string();
    EMBER_CHECK(b == "inf" || b == "-inf" || b == "nan", "ReduceLROnPlateau::load_state_dict: bad best '", b, "'");
    best_ = b == "inf" ? std::numeric_limits<double>::infinity()
            : b == "-inf" ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else {
    best_ = best.as_double("best");
  }
  epoch_ = state.find("last_epoch")->as_int("last_epoch");
  num_bad_epochs_ = state.find("num_bad_epochs")->as_int("num_bad_epochs");
  cooldown_counter_ = state.find("cooldown_counter")->as_int("cooldown_counter");
}

std::vector<double> ReduceLROnPlateau::get_last_lr() const {
  std::vector<double> r;
  for (const auto& g : optimizer_.param_groups()) r.push_back(g.options().get_lr());
  return r;
}

}  // namespace ember::optim
