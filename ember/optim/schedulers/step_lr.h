// StepLR (LibTorch's torch/optim/schedulers/step_lr.h).
#pragma once
#include <cstdint>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

// LibTorch's StepLR: the lrs are multiplied by gamma at every step_size-th step, counted as
// LibTorch counts them (one step later than PyTorch's Python StepLR: after step_size steps the
// lr is unchanged, after step_size + 1 it has decayed). Inside SequentialLR (a PyTorch Python
// scheduler) it follows the Python closed form.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1);

 protected:
  std::vector<double> get_lrs() override;
  double lr_at(size_t, double base_lr) const override;
  int64_t step_size_;
  double gamma_;
};

}  // namespace ember::optim
