// What the options of the Adam family share: the Betas type (Adam, AdamW, Adamax, NAdam,
// RAdam), Adam's and AdamW's option fields, and the checks of Adam-like options.
#pragma once
#include <memory>
#include <tuple>

#include "ember/optim/optimizer.h"

namespace ember::optim {

// The checks of Adam-like options (lr, eps, betas in [0, 1), weight_decay), as torch.optim's
// messages; returns a copy of the options.
template <class O>
std::unique_ptr<OptimizerOptions> check_adam_options(const O& o) {
  EMBER_CHECK(o.lr() >= 0, "Invalid learning rate: ", o.lr());
  EMBER_CHECK(o.eps() >= 0, "Invalid epsilon value: ", o.eps());
  auto [b1, b2] = o.betas();
  EMBER_CHECK(b1 >= 0 && b1 < 1, "Invalid beta parameter at index 0: ", b1);
  EMBER_CHECK(b2 >= 0 && b2 < 1, "Invalid beta parameter at index 1: ", b2);
  EMBER_CHECK(o.weight_decay() >= 0, "Invalid weight_decay value: ", o.weight_decay());
  return o.clone();
}

// The options of Adam (and, with weight decay 1e-2, of AdamW).
using Betas = std::tuple<double, double>;
#define EMBER_ADAM_OPTIONS(Self, default_weight_decay)                                                 \
  Self(double lr = 1e-3) : lr_(lr) {} /* NOLINT */                                                     \
  EMBER_OPTIONS_COMMON(Self)                                                                           \
  EMBER_OPT_FIELD(Self, double, lr, 1e-3);                                                             \
  EMBER_OPT_FIELD(Self, Betas, betas, (Betas{0.9, 0.999}));                                              \
  EMBER_OPT_FIELD(Self, double, eps, 1e-8);                                                            \
  EMBER_OPT_FIELD(Self, double, weight_decay, default_weight_decay);                                   \
  EMBER_OPT_FIELD(Self, bool, amsgrad, false);                                                         \
  EMBER_OPT_FIELD(Self, bool, maximize, false);                                                        \
  void visit(OptionVisitor& v) override {                                                              \
    v.field("lr", lr_), v.field("betas", betas_), v.field("eps", eps_);                                \
    v.field("weight_decay", weight_decay_), v.field("amsgrad", amsgrad_), v.field("maximize", maximize_); \
  }

}  // namespace ember::optim
