// ReduceLROnPlateau (LibTorch's torch/optim/schedulers/reduce_on_plateau_scheduler.h), with
// PyTorch 1.13's lr sequence.
#pragma once
#include <cstdint>
#include <vector>

#include "ember/core/json.h"
#include "ember/optim/optimizer.h"

namespace ember::optim {

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
