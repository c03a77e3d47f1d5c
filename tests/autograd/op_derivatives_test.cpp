// The generic derivative check over the op table: every pointwise op with a differentiable
// (floating or complex) result must have both a vjp and a jvp, and both must agree with
// finite differences (gradcheck with forward mode) and give correct second derivatives
// (gradgradcheck), on non-contiguous and broadcast inputs, in double and complex double.
#include <map>
#include <set>
#include <string>

#include "ember/ops/pointwise.h"
#include "ember/ops/pointwise_ops.h"
#include "test_util.h"

namespace ember::test {
namespace {

using autograd::variable_list;

const std::map<std::string, int>& arity() {
  static const std::map<std::string, int> m = {
#define ARITY1(op, ...) {#op, 1},
#define ARITY2(op, ...) {#op, 2},
#define ARITY3(op, ...) {#op, 3},
      EMBER_UNARY_OPS(ARITY1) EMBER_BINARY_OPS(ARITY2) EMBER_TERNARY_OPS(ARITY3)
#undef ARITY1
#undef ARITY2
#undef ARITY3
  };
  return m;
}

// Scalar arguments the functors read (PyTorch's defaults or typical values).
PointwiseArgs args_for(const std::string& op) {
  if (op == "add" || op == "sub") return {0.75};
  if (op == "lerp_scalar") return {0.3};
  if (op == "addcmul" || op == "addcdiv") return {0.5};
  if (op == "round") return {int64_t(0)};
  if (op == "nan_to_num") return {0.0, 10.0, -10.0};
  if (op == "logit") return {-1.0};
  if (op == "gelu") return {int64_t(0)};
  if (op == "softplus") return {1.5, 20.0};
  if (op == "hardtanh") return {-0.5, 0.5};
  if (op == "leaky_relu") return {0.1};
  if (op == "elu") return {1.0, 1.0, 1.0};
  if (op == "softshrink" || op == "hardshrink") return {0.3};
  if (op == "threshold") return {0.1, 2.0};
  if (op == "clamp_scalar") return {-0.4, 0.6, true, true};
  if (op == "clamp_tensor") return {true, true};  // both bounds given
  if (op == "polygamma") return {int64_t(1)};
  return {};
}

// Inputs inside each op's domain (away from kinks by more than the difference step).
Tensor sample(const std::string& op, int64_t input, IntArrayRef shape, ScalarType dt) {
  Tensor u = rand(shape, dtype(kDouble));  // (0, 1)
  Tensor x;
  if (op == "log" || op == "log1p" || op == "log2" || op == "log10" || op == "sqrt" || op == "rsqrt" || op == "lgamma" ||
      op == "digamma" || op == "reciprocal" || op == "pow" || op == "xlogy" || op == "hypot" || op == "polygamma" ||
      op == "igamma" || op == "igammac" || op == "special_entr")
    x = u.mul(1.5).add(0.3);
  else if (op == "special_ndtri")
    x = u.mul(0.8).add(0.1);
  else if (op == "special_zeta")
    x = input == 0 ? u.add(1.5) : u.add(0.5);
  else if (op == "asin" || op == "acos" || op == "atanh" || op == "erfinv")
    x = u.mul(1.6).sub(0.8);
  else if (op == "acosh")
    x = u.add(1.2);
  else if (op == "logit")
    x = u.mul(0.8).add(0.1);
  else if (op == "div_true" || op == "remainder" || op == "fmod" || op == "addcdiv")
    x = input == (op == "addcdiv" ? 2 : 1) ? u.add(0.5) : u.mul(4).sub(2);
  else
    x = u.mul(4).sub(2);
  if (op == "tan") x = u.mul(2).sub(1);
  if (isComplexType(dt)) x = complex(x, rand(shape, dtype(kDouble)).mul(0.6).sub(0.3));
  return x.to(dt);
}

// Ops whose result is not differentiable or that are not defined on floating types.
// (PyTorch's non_differentiable special functions are left out by their names.)
const std::set<std::string> kPointwiseNotDifferentiable = {"nextafter", "bitwise_not", "logical_not", "signbit"};
bool declared_non_differentiable(const std::string& n) {
  return n.starts_with("special_") && n != "special_erfcx" && n != "special_i0e" && n != "special_i1" &&
         n != "special_i1e" && n != "special_ndtri" && n != "special_log_ndtr" && n != "special_zeta" &&
         n != "special_entr";
}
// PyTorch differentiates these in their second argument only.
bool first_input_not_differentiable(const std::string& n) {
  return n == "igamma" || n == "igammac" || n == "special_zeta";
}

std::vector<std::string> differentiable_ops() {
  std::vector<std::string> r;
  for (OpInfo* info : OpInfo::all()) {
    if (info->fusion != FusionClass::Pointwise || info->result_kind == ResultKind::Bool) continue;
    if (!(info->dtypes.contains(kDouble) || info->dtypes.contains(kComplexDouble))) continue;
    if (kPointwiseNotDifferentiable.count(std::string(info->name)) ||
        declared_non_differentiable(std::string(info->name)))
      continue;
    if (!arity().count(std::string(info->name))) continue;  // copy_/fill_: derivatives in copy.cpp
    r.emplace_back(info->name);
  }
  return r;
}

TEST(OpDerivatives, EveryDifferentiablePointwiseOpHasVjpAndJvp) {
  std::vector<std::string> missing;
  for (const std::string& name : differentiable_ops()) {
    OpInfo* info = OpInfo::find(name);
    if (!info->vjp || !info->jvp) missing.push_back(name);
  }
  EXPECT_TRUE(missing.empty()) << "ops without a derivative: " << ::testing::PrintToString(missing);
  EXPECT_GT(differentiable_ops().size(), 80u);
}

void check_op(const std::string& name, ScalarType dt, bool grad_grad) {
  SCOPED_TRACE(name + " " + torch_name(dt));
  auto* op = static_cast<PointwiseOp*>(OpInfo::find(name));
  ASSERT_NE(op, nullptr);
  const int n = arity().at(name);
  const PointwiseArgs args = args_for(name);
  // Input 0 transposed (non-contiguous); the others broadcast along the first dim.
  variable_list inputs;
  for (int i = 0; i < n; ++i) {
    Tensor t = i == 0 ? sample(name, 0, {4, 3}, dt).t() : sample(name, i, {4}, dt);
    inputs.push_back(i == 0 && first_input_not_differentiable(name) ? t : t.requires_grad_());
  }
  if (name == "div_trunc" || name == "div_floor" || name == "remainder" || name == "fmod") {
    // Quotients between integers (+0.2 .. +0.8), so the difference steps never cross a jump.
    Tensor b = rand({4}, dtype(kDouble)).add(0.5);
    Tensor q = randint(-3, 3, {4, 3}, dtype(kDouble)).add(rand({4, 3}, dtype(kDouble)).mul(0.6).add(0.2));
    inputs = {q.mul(b.unsqueeze(1)).t().requires_grad_(), b.requires_grad_()};
  }
  auto f = [op, args, n](const variable_list& v) {
    if (n == 1) return variable_list{run_pointwise(*op, {}, {v[0]}, args)};
    if (n == 2) return variable_list{run_pointwise(*op, {}, {v[0], v[1]}, args)};
    return variable_list{run_pointwise(*op, {}, {v[0], v[1], v[2]}, args)};
  };
  autograd::GradcheckOptions o;
  o.check_forward_ad = true;
  o.atol = 1e-6;
  EXPECT_TRUE(autograd::gradcheck(f, inputs, o));
  if (grad_grad) EXPECT_TRUE(autograd::gradgradcheck(f, inputs, {}, o));
}

TEST(OpDerivatives, PointwiseOpsMatchFiniteDifferencesInDouble) {
  manual_seed(11);
  for (const std::string& name : differentiable_ops()) {
    if (!OpInfo::find(name)->dtypes.contains(kDouble)) continue;
    try {
      check_op(name, kDouble, /*grad_grad=*/true);
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
}

TEST(OpDerivatives, PointwiseOpsMatchFiniteDifferencesInComplexDouble) {
  manual_seed(12);
  for (const std::string& name : differentiable_ops()) {
    if (!OpInfo::find(name)->dtypes.contains(kComplexDouble)) continue;
    try {
      check_op(name, kComplexDouble, /*grad_grad=*/true);
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace ember::test
