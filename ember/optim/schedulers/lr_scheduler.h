// The base of the learning-rate schedulers (LibTorch's torch/optim/schedulers/lr_scheduler.h).
// Each scheduler has its own file in this directory; the schedules follow torch.optim's formulas.
#pragma once
#include <cstdint>
#include <vector>

#include "ember/core/json.h"
#include "ember/optim/optimizer.h"  // also declares serialize::OutputArchive, InputArchive

namespace ember::optim {

// Schedulers set each group's lr from the initial lr and the epoch count (step()).
class LRScheduler {
 public:
  explicit LRScheduler(Optimizer& optimizer);
  virtual ~LRScheduler() = default;
  // LibTorch's step: set the lrs get_lrs() gives, then count the step.
  void step();
  std::vector<double> get_last_lr() const;
  int64_t last_epoch() const { return epoch_; }
  // PyTorch's state_dict(): {"last_epoch", "base_lrs"}; every schedule here is a closed form
  // of them (the optimizer's own state holds the current lrs). load_state_dict checks the
  // group count and restores them, so a resumed run steps on exactly as the saved one.
  json::Value state_dict() const;
  void load_state_dict(const json::Value& state);
  // In a checkpoint archive (as one value under "scheduler_state").
  void save(serialize::OutputArchive& archive) const;
  void load(serialize::InputArchive& archive);

 protected:
  // LibTorch's interface for schedulers written by users: the lrs to set at this step, with
  // step_count_ steps taken before it (get_current_lrs() are the optimizer's lrs now). The
  // default is ember's closed-form schedules (PyTorch's Python ones): it advances epoch_ and
  // asks lr_at for each group.
  virtual std::vector<double> get_lrs();
  std::vector<double> get_current_lrs() const;
  unsigned step_count_ = 0;
  // The lr for group i at epoch `epoch_` (closed form).
  virtual double lr_at(size_t group, double base_lr) const;
  Optimizer& optimizer_;
  std::vector<double> base_lrs_;
  int64_t epoch_ = 0;
  friend class SequentialLR;  // (schedulers/sequential_lr.h) re-bases and restarts the schedulers it runs
};

}  // namespace ember::optim
