// LinearLR (torch.optim.lr_scheduler.LinearLR), with PyTorch 1.13's lr sequence.
#pragma once
#include <cstdint>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

// base * factor, the factor moving linearly from start_factor to end_factor over total_iters.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5);

 protected:
  double lr_at(size_t, double base_lr) const override;
  double start_, end_;
  int64_t total_iters_;
};

}  // namespace ember::optim
