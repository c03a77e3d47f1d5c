// ConstantLR (torch.optim.lr_scheduler.ConstantLR), with PyTorch 1.13's lr sequence.
#pragma once
#include <cstdint>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

// base * factor until epoch total_iters, then base.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5);

 protected:
  double lr_at(size_t, double base_lr) const override;
  double factor_;
  int64_t total_iters_;
};

}  // namespace ember::optim
