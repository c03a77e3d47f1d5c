// OneCycleLR (torch.optim.lr_scheduler.OneCycleLR), with PyTorch 1.13's lr and momentum
// sequences.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

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

}  // namespace ember::optim
