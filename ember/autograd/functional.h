// Functional transforms with torch.autograd.functional's names and options, and gradient
// checks against finite differences (torch.autograd.gradcheck / gradgradcheck).
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ember/autograd/autograd.h"

namespace ember::autograd {

using Fn = std::function<variable_list(const variable_list&)>;

namespace functional {

// Returns {func(inputs), v^T J}. v defaults to ones for a single-element output.
std::pair<variable_list, variable_list> vjp(const Fn& func, const variable_list& inputs, const variable_list& v = {},
                                            bool create_graph = false, bool strict = false);
// Returns {func(inputs), J v}, computed in forward mode.
std::pair<variable_list, variable_list> jvp(const Fn& func, const variable_list& inputs, const variable_list& v = {},
                                            bool create_graph = false, bool strict = false);
// J[i][j]: d output i / d input j, of shape output_i.sizes() + input_j.sizes().
// strategy: "reverse-mode" (one backward per output element) or "forward-mode" (one jvp
// per input element).
std::vector<variable_list> jacobian(const Fn& func, const variable_list& inputs, bool create_graph = false,
                                    bool strict = false, const std::string& strategy = "reverse-mode");
// H[i][j] = d^2 f / d input_i d input_j for a scalar func.
std::vector<variable_list> hessian(const std::function<Tensor(const variable_list&)>& func,
                                   const variable_list& inputs, bool create_graph = false, bool strict = false,
                                   const std::string& outer_jacobian_strategy = "reverse-mode");
// {f(inputs), H v}: forward-over-reverse.
std::pair<Tensor, variable_list> hvp(const std::function<Tensor(const variable_list&)>& func,
                                     const variable_list& inputs, const variable_list& v, bool create_graph = false,
                                     bool strict = false);
// {f(inputs), v^T H}: reverse-over-reverse.
std::pair<Tensor, variable_list> vhp(const std::function<Tensor(const variable_list&)>& func,
                                     const variable_list& inputs, const variable_list& v, bool create_graph = false,
                                     bool strict = false);

}  // namespace functional

struct GradcheckOptions {
  double eps = 1e-6;
  double atol = 1e-5;
  double rtol = 1e-3;
  bool raise_exception = true;
  // fast: compare v^T J u for random u, v (one backward, two forwards per input) instead
  // of the full Jacobian.
  bool fast_mode = false;
  bool check_backward_ad = true;
  // Also check forward mode: J u by jvp against the same finite differences and against
  // the reverse-mode Jacobian.
  bool check_forward_ad = false;
};

// Checks the derivatives of func at inputs (which should be double / complex double and
// require grad) against central finite differences. Complex inputs and outputs are
// checked as pairs of real ones, with PyTorch's convention for complex gradients.
bool gradcheck(const Fn& func, const variable_list& inputs, const GradcheckOptions& options = {});
// gradcheck of the gradient: d/d(inputs, grad_outputs) of grad(func(inputs), inputs, grad_outputs).
bool gradgradcheck(const Fn& func, const variable_list& inputs, const variable_list& grad_outputs = {},
                   const GradcheckOptions& options = {});

}  // namespace ember::autograd
