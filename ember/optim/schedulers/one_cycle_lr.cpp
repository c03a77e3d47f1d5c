#include "ember/optim/schedulers/one_cycle_lr.h"

#include <cmath>
#include <cstring>
#include <numbers>

namespace ember::optim {

namespace {

// Sets the momentum that OneCycleLR cycles: the options' "betas.0" when they have betas (as
// torch's use_beta1), else "momentum". False when they have neither.
bool set_momentum(OptimizerOptions& options, double value) {
  struct Setter : OptionVisitor {
    using OptionVisitor::field;
    const char* name;
    double value;
    bool found = false;
    void field(const char* n, double& v) override {
      if (std::strcmp(n, name) == 0) v = value, found = true;
    }
    void field(const char*, int64_t&) override {}
    void field(const char*, bool&) override {}
  };
  for (const char* name : {"betas.0", "momentum"}) {
    Setter s;
    s.name = name, s.value = value;
    options.visit(s);
    if (s.found) return true;
  }
  return false;
}

int64_t one_cycle_total_steps(const OneCycleLROptions& o) {
  if (o.total_steps()) {
    EMBER_CHECK(*o.total_steps() > 0, "Expected positive integer total_steps, but got ", *o.total_steps());
    return *o.total_steps();
  }
  EMBER_CHECK(o.epochs() && o.steps_per_epoch(), "You must define either total_steps OR (epochs AND steps_per_epoch)");
  EMBER_CHECK(*o.epochs() > 0, "Expected positive integer epochs, but got ", *o.epochs());
  EMBER_CHECK(*o.steps_per_epoch() > 0, "Expected positive integer steps_per_epoch, but got ", *o.steps_per_epoch());
  return *o.epochs() * *o.steps_per_epoch();
}
}  // namespace

OneCycleLR::OneCycleLR(Optimizer& optimizer, double max_lr, const OneCycleLROptions& options)
    : OneCycleLR(optimizer, std::vector<double>(optimizer.param_groups().size(), max_lr), options) {}

OneCycleLR::OneCycleLR(Optimizer& optimizer, std::vector<double> max_lrs, const OneCycleLROptions& o)
    : LRScheduler(optimizer), options_(o), total_steps_(one_cycle_total_steps(o)), max_lrs_(std::move(max_lrs)) {
  const double total = double(total_steps_), pct = o.pct_start();
  if (o.three_phase()) {
    phases_ = {{pct * total - 1, 0, 1, 0, 1}, {2 * pct * total - 2, 1, 0, 1, 0}, {total - 1, 0, 2, 0, 0}};
  } else {
    phases_ = {{pct * total - 1, 0, 1, 0, 1}, {total - 1, 1, 2, 1, 0}};
  }
  EMBER_CHECK(pct >= 0 && pct <= 1, "Expected float between 0 and 1 pct_start, but got ", pct);
  EMBER_CHECK(o.anneal_strategy() == "cos" || o.anneal_strategy() == "linear",
              "anneal_strategy must by one of 'cos' or 'linear', instead got ", o.anneal_strategy());
  EMBER_CHECK(max_lrs_.size() == base_lrs_.size(), "expected ", base_lrs_.size(), " values for max_lr, got ",
              max_lrs_.size());
  EMBER_CHECK(!o.cycle_momentum() || set_momentum(*optimizer.defaults().clone(), 0),
              "optimizer must support momentum with `cycle_momentum` option enabled");
  epoch_ = -1, step();  // PyTorch's initial step: the lr (and momentum) of step 0
}

double OneCycleLR::lr_at(size_t group, double) const {
  EMBER_CHECK(epoch_ <= total_steps_, "Tried to step ", epoch_ + 1, " times. The specified number of total steps is ",
              total_steps_);
  const OneCycleLROptions& o = options_;
  const double initial = max_lrs_[group] / o.div_factor();
  const double lrs[3] = {initial, max_lrs_[group], initial / o.final_div_factor()};
  const double momenta[2] = {o.max_momentum(), o.base_momentum()};
  auto anneal = [cos = o.anneal_strategy() == "cos"](double start, double end, double pct) {
    return cos ? end + (start - end) / 2.0 * (std::cos(std::numbers::pi * pct) + 1) : (end - start) * pct + start;
  };
  double start_step = 0;
  for (size_t i = 0;; ++i) {
    const Phase& ph = phases_[i];
    if (double(epoch_) <= ph.end_step || i + 1 == phases_.size()) {
      const double pct = (double(epoch_) - start_step) / (ph.end_step - start_step);
      if (o.cycle_momentum())
        set_momentum(optimizer_.param_groups()[group].options(),
                     anneal(momenta[ph.start_momentum], momenta[ph.end_momentum], pct));
      return anneal(lrs[ph.start_lr], lrs[ph.end_lr], pct);
    }
    start_step = ph.end_step;
  }
}

}  // namespace ember::optim
