#include "ember/optim/schedulers/exponential_lr.h"

#include <cmath>

namespace ember::optim {

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma) : LRScheduler(optimizer), gamma_(gamma) {}
double ExponentialLR::lr_at(size_t, double base) const { return base * std::pow(gamma_, double(epoch_)); }

}  // namespace ember::optim
