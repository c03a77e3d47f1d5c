#include "ember/optim/schedulers/cosine_annealing_lr.h"

#include <cmath>
#include <numbers>

namespace ember::optim {

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min)
    : LRScheduler(optimizer), t_max_(T_max), eta_min_(eta_min) {
  EMBER_CHECK(T_max > 0, "CosineAnnealingLR: T_max must be positive, got ", T_max);
}
double CosineAnnealingLR::lr_at(size_t, double base) const {
  return eta_min_ + (base - eta_min_) * (1 + std::cos(std::numbers::pi * double(epoch_) / double(t_max_))) / 2;
}

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min)
    : LRScheduler(optimizer), t_0_(T_0), t_mult_(T_mult), eta_min_(eta_min) {
  EMBER_CHECK(T_0 > 0, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK(T_mult >= 1, "Expected integer T_mult >= 1, but got ", T_mult);
}
double CosineAnnealingWarmRestarts::lr_at(size_t, double base) const {
  int64_t t_cur = epoch_, t_i = t_0_;
  if (t_mult_ == 1) {
    t_cur %= t_0_;
  } else {
    for (; t_cur >= t_i; t_i *= t_mult_) t_cur -= t_i;
  }
  return eta_min_ + (base - eta_min_) * (1 + std::cos(std::numbers::pi * double(t_cur) / double(t_i))) / 2;
}

}  // namespace ember::optim
