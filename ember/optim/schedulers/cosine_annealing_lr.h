// Cosine annealing: CosineAnnealingLR and CosineAnnealingWarmRestarts (SGDR), as
// torch.optim.lr_scheduler's.
#pragma once
#include <cstdint>

#include "ember/optim/optimizer.h"
#include "ember/optim/schedulers/lr_scheduler.h"

namespace ember::optim {

class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0);

 protected:
  double lr_at(size_t, double base_lr) const override;
  int64_t t_max_;
  double eta_min_;
};

// SGDR: eta_min + (base - eta_min) (1 + cos(pi T_cur / T_i)) / 2, restarting when T_cur reaches
// T_i, T_i = T_0 T_mult^k. T_cur and T_i are counted in integers, as step() does in PyTorch
// (its step(epoch) form uses a float log that can land one cycle off).
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0);

 protected:
  double lr_at(size_t, double base_lr) const override;
  int64_t t_0_, t_mult_;
  double eta_min_;
};

}  // namespace ember::optim
