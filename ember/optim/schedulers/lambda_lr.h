// LambdaLR (torch.optim.lr_scheduler.LambdaLR): base lr times a function of the epoch.
#pragma once
#include <cstdint>
#include <functional>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class LambdaLR : public LRScheduler {
 public:
  LambdaLR(Optimizer& optimizer, std::function<double(int64_t)> lr_lambda);

 protected:
  double lr_at(size_t, double base_lr) const override;
  std::function<double(int64_t)> lambda_;
};

}  // namespace ember::optim
