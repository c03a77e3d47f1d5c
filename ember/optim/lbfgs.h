// L-BFGS (LibTorch's torch/optim/lbfgs.h): options and the optimizer, with PyTorch 1.13's
// defaults and update rule.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct LBFGSOptions : OptimizerOptions {
  LBFGSOptions(double lr = 1) : lr_(lr) {}
  EMBER_OPTIONS_COMMON(LBFGSOptions)
  EMBER_OPT_FIELD(LBFGSOptions, double, lr, 1);
  EMBER_OPT_FIELD(LBFGSOptions, int64_t, max_iter, 20);
  EMBER_OPT_FIELD(LBFGSOptions, std::optional<int64_t>, max_eval, std::nullopt);  // unset: max_iter * 5 / 4
  EMBER_OPT_FIELD(LBFGSOptions, double, tolerance_grad, 1e-7);
  EMBER_OPT_FIELD(LBFGSOptions, double, tolerance_change, 1e-9);
  EMBER_OPT_FIELD(LBFGSOptions, int64_t, history_size, 100);
  EMBER_OPT_FIELD(LBFGSOptions, std::optional<std::string>, line_search_fn, std::nullopt);  // or "strong_wolfe"
  // max_eval is -1 when unset; line_search_fn is the bool "line_search_strong_wolfe".
  void visit(OptionVisitor& v) override;
};
// L-BFGS (torch.optim.LBFGS): up to max_iter quasi-Newton iterations per step(closure), with a
// fixed step lr or a strong-Wolfe line search. One parameter group; step() requires the closure.
//
// Note [LBFGS state]: PyTorch keeps the flat vectors (over all parameters) in the first
// parameter's state. Here state_ holds each flat vector split into per-parameter pieces shaped
// like their parameter (a NamedParamState each, unlike LibTorch's one LBFGSParamState), so
// state_dict()/load_state_dict() carry them with their shape checks:
// every parameter has "d", "prev_flat_grad", "old_dirs_<i>" and "old_stps_<i>" (PyTorch's lists,
// i < history length, oldest first), and the first parameter also the 0-dim float64 scalars "t",
// "H_diag", "prev_loss", "ro_<i>", "func_evals" and "n_iter". (No dots in the names: checkpoint
// archives nest on dots.) step() gathers them into flat vectors and splits them back, so a
// state_dict round trip resumes identically. Not stored: PyTorch's "al" (scratch, rewritten
// before it is read). Scalars are computed in double even for float32 parameters (PyTorch
// rounds them to the parameter dtype), and load_state_dict converts the scalars to the first
// parameter's dtype when that parameter has a single element.
class LBFGS : public Optimizer {
 public:
  LBFGS(std::vector<Tensor> params, LBFGSOptions options = {});
  LBFGS(std::vector<OptimizerParamGroup> groups, LBFGSOptions options = {});
  Tensor step(LossClosure closure) override;

 protected:
  void check_state(const OptimizerStateDict& dict, const std::vector<const Tensor*>& params,
                   const std::vector<const OptimizerOptions*>& options) const override;

 private:
  struct History;
  History load_history();
  void save_history(const History& h);
  Tensor gather_flat_grad() const;
  void add_to_params(double t, const Tensor& d);
};

}  // namespace ember::optim
