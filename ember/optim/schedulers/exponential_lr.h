// ExponentialLR (torch.optim.lr_scheduler.ExponentialLR): the lrs are multiplied by gamma at
// every step.
#pragma once
#include <cstdint>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma);

 protected:
  double lr_at(size_t, double base_lr) const override;
  double gamma_;
};

}  // namespace ember::optim
