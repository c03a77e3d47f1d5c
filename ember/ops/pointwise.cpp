// Pointwise ops: the public functions over the pointwise table's entries (defined in
// ops/pointwise_entries.cpp) and the driver that runs them.
#include "ember/ops/pointwise.h"

#include "ember/autograd/functions.h"
#include "ember/autograd/grad_mode.h"

#include "ember/ops/autocast.h"
#include "ember/ops/functions.h"
#include "ember/ops/pointwise_ops.h"
#include "ember/ops/type_promotion.h"

namespace ember {

namespace {
std::string dtype_list(DtypeSet s) {
  std::string r;
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (s.contains(ScalarType(i))) r += (r.empty() ? "" : ", ") + std::string(to_string(ScalarType(i)));
  return r;
}
}  // namespace

namespace {
Tensor run_pointwise_untraced(const PointwiseOp& op, Tensor out, std::initializer_list<Tensor> inputs,
                              const PointwiseArgs& args, bool inplace);

// Records the call as one node of its row's name (Note [Tracing hooks]).
Tensor traced_pointwise(const PointwiseOp& op, Tensor out, std::initializer_list<Tensor> inputs,
                        const PointwiseArgs& args, bool inplace) {
  tracing::OpScope scope;
  Tensor r = run_pointwise_untraced(op, out, inputs, args, inplace);
  const tracing::TracedOp* traced = tracing::find_traced_op(op.name);
  EMBER_INTERNAL_ASSERT(traced, "pointwise row ", op.name, " has no traced op");
  tracing::Attrs attrs;
  for (int i = 0; i < args.n; ++i) attrs.emplace_back("s" + std::to_string(i), args.s[i]);
  const bool mutates = out.defined();
  if (mutates) attrs.emplace_back("mode", std::string(inplace ? "inplace" : "out"));
  std::vector<Tensor> recorded;
  if (mutates && !inplace) recorded.push_back(out);
  recorded.insert(recorded.end(), inputs.begin(), inputs.end());
  scope.record(*traced, recorded, std::move(attrs), {r}, mutates);
  return r;
}
}  // namespace

PointwiseArgs traced_pointwise_args(const tracing::Attrs& attrs, std::string_view op) {
  PointwiseArgs args;
  while (args.n < 4 && tracing::has_attr(attrs, "s" + std::to_string(args.n)))
    args.s[args.n] = tracing::scalar_attr(attrs, "s" + std::to_string(args.n), op), ++args.n;
  return args;
}

std::vector<Tensor> run_traced_pointwise(const tracing::TracedOp& traced, const std::vector<Tensor>& in,
                                         const tracing::Attrs& attrs) {
  const auto& op = *static_cast<const PointwiseOp*>(traced.context);
  const PointwiseArgs args = traced_pointwise_args(attrs, op.name);
  const std::string mode = tracing::has_attr(attrs, "mode") ? tracing::string_attr(attrs, "mode", op.name) : "";
  EMBER_CHECK(mode.empty() || mode == "inplace" || mode == "out", op.name, ": unknown mode '", mode, "'");
  const size_t first = mode == "out" ? 1 : 0;
  const size_t n = in.size() - std::min(first, in.size());
  EMBER_CHECK(n >= 1 && n <= 3, op.name, ": expected 1 to 3 inputs", first ? " after the out= tensor" : "", ", got ", n);
  const Tensor out = mode.empty() ? Tensor() : in[0];
  const bool inplace = mode == "inplace";
  if (n == 1) return {run_pointwise(op, out, {in[first]}, args, inplace)};
  if (n == 2) return {run_pointwise(op, out, {in[first], in[first + 1]}, args, inplace)};
  return {run_pointwise(op, out, {in[first], in[first + 1], in[first + 2]}, args, inplace)};
}

Tensor run_pointwise(const PointwiseOp& op, Tensor out, std::initializer_list<Tensor> inputs,
                     const PointwiseArgs& args, bool inplace) {
  if (EMBER_UNLIKELY(tracing::active())) return traced_pointwise(op, std::move(out), inputs, args, inplace);
  return run_pointwise_untraced(op, std::move(out), inputs, args, inplace);
}

namespace {
Tensor run_pointwise_untraced(const PointwiseOp& op, Tensor out, std::initializer_list<Tensor> inputs,
                              const PointwiseArgs& args, bool inplace) {
  // Autocast by the entry's policy for the inputs' device (ember/ops/autocast_list.h: on CPU
  // no pointwise op is listed, on CUDA exp, log, pow... run in float32). As in PyTorch, only
  // out-of-place calls.
  const auto autocast_here = [&] {
    for (const Tensor& t : inputs)
      if (t.defined()) return op.autocast.on(t.device().type()) != AutocastPolicy::None;
    return false;
  };
  if (EMBER_UNLIKELY(op.autocast.any()) && !inplace && !out.defined() && autocast::any_active() && autocast_here()) {
    const std::vector<Tensor> c = autocast::cast_inputs(op.autocast, std::vector<Tensor>(inputs));
    autocast::SuspendGuard suspend;
    if (c.size() == 1) return run_pointwise(op, {}, {c[0]}, args);
    if (c.size() == 2) return run_pointwise(op, {}, {c[0], c[1]}, args);
    return run_pointwise(op, {}, {c[0], c[1], c[2]}, args);  // the table's ops take 1 to 3 tensors
  }
  // Tensors without autograd metadata (the common case) skip the autograd layer.
  for (const Tensor& t : inputs)
    if (EMBER_UNLIKELY(t.defined() && t.unsafeGetTensorImpl()->autograd_meta() &&
                       (autograd::GradMode::is_enabled() || autograd::forward_ad_enabled())))
      return autograd::differentiable_pointwise(op, std::move(out), inputs, args, inplace);
  TensorIteratorConfig cfg;
  cfg.set_op_name(op.name.data());
  if (inplace) cfg.is_inplace(true);
  cfg.add_output(out);
  for (const Tensor& t : inputs) cfg.add_input(t);
  switch (op.result_kind) {
    case ResultKind::Same: break;
    case ResultKind::IntToFloat: cfg.promote_integer_inputs_to_float(true); break;
    case ResultKind::Bool: cfg.declare_static_output_dtype(kBool); break;
    case ResultKind::ToReal: cfg.output_to_real(true); break;
    case ResultKind::IntToFloatToReal: cfg.promote_integer_inputs_to_float(true).output_to_real(true); break;
  }
  TensorIterator it = cfg.build();
  ScalarType dt = it.common_dtype();
  if (EMBER_UNLIKELY(!op.dtypes.contains(dt))) {
    if (op.name == "neg" && dt == kBool)
      EMBER_ERROR("neg: negation, the `-` operator, on a bool tensor is not supported. If you are "
                  "trying to invert a mask, use the `~` or `logical_not()` operator instead.");
    if (op.name == "sign" && isComplexType(dt))
      EMBER_ERROR("sign: unlike NumPy, sign is not intended to support complex numbers. Please use sgn instead.");
    std::string shapes;
    for (const Tensor& t : inputs) shapes += (shapes.empty() ? "" : ", ") + ember::detail::str_cat(t.sizes(), " ", t.scalar_type());
    EMBER_CHECK_TYPE(false, op.name, ": not implemented for dtype ", dt, " (inputs: ", shapes,
                     "; supported: ", dtype_list(op.dtypes), ")");
  }
  Device dev = it.output(0).device();
  if (dev.is_meta()) return it.output(0);
  PointwiseFn k = op.kernel(dev.type());
  EMBER_CHECK(k != nullptr, op.name, ": no kernel for device ", dev);
  if (it.numel() > 0) k(it, args);
  it.cast_outputs();
  if (out.defined()) out.bump_version();
  return it.output(0);
}
}  // namespace

// ---- unary ----------------------------------------------------------------------
#define EMBER_PW_FN(name, op)                                                            \
  Tensor name(const Tensor& self) { return run_pointwise(op##_op, {}, {self}); }         \
  Tensor& name##_(Tensor& self) { run_pointwise(op##_op, self, {self}, {}, true); return self; } \
  Tensor& name##_out(Tensor& out, const Tensor& self) { run_pointwise(op##_op, out, {self}); return out; }
EMBER_FOR_EACH_UNARY_FN()
#undef EMBER_PW_FN

// square(bool) is pow(bool, 2), which promotes to Long as in PyTorch.
Tensor square(const Tensor& self) {
  return self.scalar_type() == kBool ? pow(self, 2) : run_pointwise(square_op, {}, {self});
}
Tensor& square_(Tensor& self) {
  run_pointwise(square_op, self, {self}, {}, true);
  return self;
}
Tensor& square_out(Tensor& out, const Tensor& self) {
  if (self.scalar_type() == kBool) return pow_out(out, self, scalar_to_tensor(2));
  run_pointwise(square_op, out, {self});
  return out;
}

Tensor relu6(const Tensor& self) { return hardtanh(self, 0, 6); }
Tensor& relu6_(Tensor& self) { return hardtanh_(self, 0, 6); }
Tensor& relu6_out(Tensor& out, const Tensor& self) {
  run_pointwise(hardtanh_op, out, {self}, {0, 6});
  return out;
}

Tensor positive(const Tensor& self) {
  EMBER_CHECK_TYPE(self.scalar_type() != kBool, "positive: the `+` operator on a bool tensor is not supported.");
  return self;
}

namespace {
// PyTorch rounds integers only to 0 decimals (round_cpu is not implemented for them otherwise).
void check_round_decimals(const Tensor& self, int64_t decimals) {
  check_defined(self, "round");
  EMBER_CHECK_TYPE(decimals == 0 || !isIntegralType(self.scalar_type(), /*includeBool=*/true),
                   "round: not implemented for dtype ", self.scalar_type(), " with decimals=", decimals,
                   " (integers round only to 0 decimals)");
}
}  // namespace
Tensor round(const Tensor& self, int64_t decimals) {
  check_round_decimals(self, decimals);
  return run_pointwise(round_op, {}, {self}, {decimals});
}
Tensor& round_(Tensor& self, int64_t decimals) {
  check_round_decimals(self, decimals);
  run_pointwise(round_op, self, {self}, {decimals}, true);
  return self;
}
Tensor angle(const Tensor& self) { return run_pointwise(angle_op, {}, {self}); }
Tensor isnan(const Tensor& self) { return run_pointwise(isnan_op, {}, {self}); }
Tensor isinf(const Tensor& self) { return run_pointwise(isinf_op, {}, {self}); }
Tensor isposinf(const Tensor& self) { return run_pointwise(isposinf_op, {}, {self}); }
Tensor isneginf(const Tensor& self) { return run_pointwise(isneginf_op, {}, {self}); }
Tensor isfinite(const Tensor& self) { return run_pointwise(isfinite_op, {}, {self}); }
Tensor signbit(const Tensor& self) { return run_pointwise(signbit_op, {}, {self}); }
Tensor isreal(const Tensor& self) {
  if (!self.is_complex()) return ones_like(self, dtype(kBool));
  return eq(imag(self), 0);
}
Tensor conj_physical(const Tensor& self) { return run_pointwise(conj_physical_op, {}, {self}); }
Tensor conj(const Tensor& self) { return self.is_complex() ? conj_physical(self) : self; }

namespace {
PointwiseArgs nan_to_num_args(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                              std::optional<double> neginf) {
  double big = 0, small = 0;
  switch (toRealValueType(self.scalar_type())) {
    case kHalf: big = 65504.0; break;
    case kBFloat16: big = double(float(std::numeric_limits<BFloat16>::max())); break;
    case kFloat: big = std::numeric_limits<float>::max(); break;
    default: big = std::numeric_limits<double>::max(); break;
  }
  small = -big;
  return {nan.value_or(0.0), posinf.value_or(big), neginf.value_or(small)};
}
}  // namespace
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  if (self.is_complex()) return complex(nan_to_num(real(self), nan, posinf, neginf), nan_to_num(imag(self), nan, posinf, neginf));
  return run_pointwise(nan_to_num_op, {}, {self}, nan_to_num_args(self, nan, posinf, neginf));
}
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  EMBER_CHECK_TYPE(!self.is_complex(), "nan_to_num_: in-place on complex tensors is not supported");
  run_pointwise(nan_to_num_op, self, {self}, nan_to_num_args(self, nan, posinf, neginf), true);
  return self;
}
Tensor logit(const Tensor& self, std::optional<double> eps) {
  return run_pointwise(logit_op, {}, {self}, {eps.value_or(-1.0)});
}
Tensor& logit_(Tensor& self, std::optional<double> eps) {
  run_pointwise(logit_op, self, {self}, {eps.value_or(-1.0)}, true);
  return self;
}
namespace {
int64_t gelu_mode(std::string_view approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate argument must be either none or tanh, got '", approximate, "'");
  return approximate == "tanh" ? 1 : 0;
}
}  // namespace
Tensor gelu(const Tensor& self, std::string_view approximate) {
  return run_pointwise(gelu_op, {}, {self}, {gelu_mode(approximate)});
}
Tensor& gelu_(Tensor& self, std::string_view approximate) {
  run_pointwise(gelu_op, self, {self}, {gelu_mode(approximate)}, true);
  return self;
}
Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return run_pointwise(softplus_op, {}, {self}, {beta, threshold});
}
namespace {
void check_hardtanh(const Tensor& self, const Scalar& lo, const Scalar& hi) {
  EMBER_CHECK(self.scalar_type() != kBool, "hardtanh: bool inputs are not supported");
  EMBER_CHECK(self.scalar_type() != kByte || (lo.toDouble() >= 0 && hi.toDouble() >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
}
}  // namespace
Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  check_hardtanh(self, min_val, max_val);
  return run_pointwise(hardtanh_op, {}, {self}, {min_val, max_val});
}
Tensor& hardtanh_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  check_hardtanh(self, min_val, max_val);
  run_pointwise(hardtanh_op, self, {self}, {min_val, max_val}, true);
  return self;
}
Tensor leaky_relu(const Tensor& self, const Scalar& slope) { return run_pointwise(leaky_relu_op, {}, {self}, {slope}); }
Tensor& leaky_relu_(Tensor& self, const Scalar& slope) {
  run_pointwise(leaky_relu_op, self, {self}, {slope}, true);
  return self;
}
Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return run_pointwise(elu_op, {}, {self}, {alpha, scale, input_scale});
}
Tensor& elu_(Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  run_pointwise(elu_op, self, {self}, {alpha, scale, input_scale}, true);
  return self;
}
Tensor celu(const Tensor& self, const Scalar& alpha) {
  EMBER_CHECK(alpha.toDouble() != 0, "celu: ZeroDivisionError: alpha must not be 0");
  return elu(self, alpha, 1, 1.0 / alpha.toDouble());
}
Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  EMBER_CHECK(lambd.toDouble() >= 0, "softshrink: lambda must be greater or equal to 0, but found to be ", lambd);
  return run_pointwise(softshrink_op, {}, {self}, {lambd});
}
Tensor hardshrink(const Tensor& self, const Scalar& lambd) { return run_pointwise(hardshrink_op, {}, {self}, {lambd}); }
Tensor threshold(const Tensor& self, const Scalar& th, const Scalar& value) {
  check_scalar_fits(th, self.scalar_type());
  check_scalar_fits(value, self.scalar_type());
  return run_pointwise(threshold_op, {}, {self}, {th, value});
}

Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  check_defined(self, "clamp");
  EMBER_CHECK(min || max, "clamp: at least one of 'min' or 'max' must not be None");
  ResultTypeState st = update_result_type_state(self, {});
  if (min) st = update_result_type_state(*min, st);
  if (max) st = update_result_type_state(*max, st);
  ScalarType t = result_type(st);
  Tensor in = t == self.scalar_type() ? self : self.to(t);
  return run_pointwise(clamp_scalar_op, {}, {in}, {min.value_or(0), max.value_or(0), bool(min), bool(max)});
}
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  EMBER_CHECK(min || max, "clamp_: at least one of 'min' or 'max' must not be None");
  run_pointwise(clamp_scalar_op, self, {self}, {min.value_or(0), max.value_or(0), bool(min), bool(max)}, true);
  return self;
}
// Tensor bounds, either or both: one op (LibTorch's ClampBackward0 node, three edges), a missing
// bound passed as a 0-dim placeholder of self's dtype (changing neither shape nor result type)
// that the kernel and the derivatives ignore.
namespace {
struct ClampBounds {
  Tensor lo, hi;
  PointwiseArgs flags;
};
ClampBounds clamp_bounds(const char* op, const Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max) {
  check_defined(self, op);
  const bool has_lo = min && min->defined(), has_hi = max && max->defined();
  EMBER_CHECK(has_lo || has_hi, op, ": at least one of 'min' or 'max' must not be None");
  const Tensor none = has_lo && has_hi ? Tensor() : zeros({}, self.options().requires_grad(false));
  return {has_lo ? *min : none, has_hi ? *max : none, {has_lo, has_hi}};
}
// Bool tensors clamp against one bound only (PyTorch computes it as maximum / minimum; clamp
// with both bounds is not implemented for Bool there either).
bool bool_one_sided(const Tensor& self, const ClampBounds& b) {
  return !(b.flags.s[0].toBool() && b.flags.s[1].toBool()) &&
         result_type(self, b.flags.s[0].toBool() ? b.lo : b.hi) == kBool;
}
}  // namespace
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  ClampBounds b = clamp_bounds("clamp", self, min, max);
  if (bool_one_sided(self, b)) return b.flags.s[0].toBool() ? maximum(self, b.lo) : minimum(self, b.hi);
  return run_pointwise(clamp_tensor_op, {}, {self, b.lo, b.hi}, b.flags);
}
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  ClampBounds b = clamp_bounds("clamp_", self, min, max);
  if (bool_one_sided(self, b))
    run_pointwise(b.flags.s[0].toBool() ? maximum_op : minimum_op, self,
                  {self, b.flags.s[0].toBool() ? b.lo : b.hi}, {}, true);
  else
    run_pointwise(clamp_tensor_op, self, {self, b.lo, b.hi}, b.flags, true);
  return self;
}
Tensor clamp_min(const Tensor& self, const Scalar& min) { return clamp(self, std::optional<Scalar>(min), std::nullopt); }
Tensor clamp_max(const Tensor& self, const Scalar& max) { return clamp(self, std::nullopt, std::optional<Scalar>(max)); }
Tensor clip(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return clamp(self, min, max);
}

// ---- binary ---------------------------------------------------------------------
namespace {
Tensor wrap(const Scalar& s) { return scalar_to_tensor(s); }
void check_alpha(const char* op, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (alpha.isIntegral(/*include_bool=*/true)) return;  // valid for every dtype (the default, 1)
  ScalarType t = result_type(a, b);
  EMBER_CHECK_TYPE(isFloatingType(t) || isComplexType(t) || alpha.isIntegral(true), op,
                   ": for integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CHECK_TYPE(isComplexType(t) || !alpha.isComplex(), op,
                   ": for non-complex input tensors, argument alpha must not be a complex number.");
  EMBER_CHECK_TYPE(t == kBool ? alpha.isBoolean() || alpha.isIntegral(true) : true, op,
                   ": boolean alpha only supported for Tensor[bool]");
}
void check_int_zero_division(const char* op, const Tensor& a, const Tensor& b) {
  ScalarType t = result_type(a, b);
  if (isIntegralType(t, true) && !b.is_meta() && b.numel() > 0)
    EMBER_CHECK(!eq(b, 0).any().item<bool>(), op, ": ZeroDivisionError (integer division by zero)");
}
}  // namespace

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_alpha("add", self, other, alpha);
  return run_pointwise(add_op, {}, {self, other}, {alpha});
}
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) { return add(self, wrap(other), alpha); }
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_alpha("add", self, other, alpha);
  run_pointwise(add_op, out, {self, other}, {alpha});
  return out;
}
namespace {
void check_sub(const Tensor& self, const Tensor& other) {
  bool a = self.scalar_type() == kBool, b = other.scalar_type() == kBool;
  EMBER_CHECK(!(a && b), "Subtraction, the `-` operator, with two bool tensors is not supported. "
              "Use the `^` or `logical_xor()` operator instead.");
  EMBER_CHECK(!(a || b), "Subtraction, the `-` operator, with a bool tensor is not supported. "
              "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}
}  // namespace
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  check_alpha("sub", self, other, alpha);
  return run_pointwise(sub_op, {}, {self, other}, {alpha});
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) { return sub(self, wrap(other), alpha); }
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  check_alpha("sub", self, other, alpha);
  run_pointwise(sub_op, out, {self, other}, {alpha});
  return out;
}
Tensor subtract(const Tensor& self, const Tensor& other, const Scalar& alpha) { return sub(self, other, alpha); }
Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha) { return sub(other, self, alpha); }
Tensor rsub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  Tensor r = sub(wrap(other), self, alpha);
  // LibTorch records rsub(Tensor, Scalar) as RsubBackward1 with self's edge only (2 - x, which
  // wraps the 2 in a tensor, stays SubBackward0 with two edges).
  auto* node = dynamic_cast<autograd::OpNode*>(r.grad_fn().get());
  if (node && node->hidden_input_ < 0 && node->next_edges().size() == 2) {
    std::vector<autograd::Edge> edges = node->next_edges();
    edges.erase(edges.begin());
    node->set_next_edges(std::move(edges));
    node->hidden_input_ = 0;
    node->name_ = "RsubBackward1";
  }
  return r;
}

namespace {
const PointwiseOp& div_op_for(const char* fn, std::optional<std::string_view> mode) {
  if (!mode) return div_true_op;
  if (*mode == "trunc") return div_trunc_op;
  if (*mode == "floor") return div_floor_op;
  EMBER_ERROR(fn, ": expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
}
}  // namespace
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) {
  const PointwiseOp& op = div_op_for("div", mode);
  if (mode) check_int_zero_division("div", self, other);
  return run_pointwise(op, {}, {self, other});
}
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string_view> mode) {
  return div(self, wrap(other), mode);
}
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) {
  const PointwiseOp& op = div_op_for("div", mode);
  if (mode) check_int_zero_division("div", self, other);
  run_pointwise(op, out, {self, other});
  return out;
}
Tensor divide(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) { return div(self, other, mode); }

// Binary ops taking (Tensor, Tensor) and (Tensor, Scalar).
#define EMBER_BINARY_API(name, op, pre)                                                          \
  Tensor name(const Tensor& self, const Tensor& other) { pre; return run_pointwise(op##_op, {}, {self, other}); } \
  Tensor name(const Tensor& self, const Scalar& other) { return name(self, wrap(other)); }       \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) {                     \
    pre;                                                                                         \
    run_pointwise(op##_op, out, {self, other});                                                  \
    return out;                                                                                  \
  }
#define EMBER_NO_CHECK (void)0
EMBER_BINARY_API(mul, mul, EMBER_NO_CHECK) EMBER_BINARY_API(multiply, mul, EMBER_NO_CHECK)
EMBER_BINARY_API(remainder, remainder, check_int_zero_division("remainder", self, other))
EMBER_BINARY_API(fmod, fmod, check_int_zero_division("fmod", self, other))
EMBER_BINARY_API(floor_divide, div_floor, check_int_zero_division("floor_divide", self, other))
EMBER_BINARY_API(true_divide, div_true, EMBER_NO_CHECK)
EMBER_BINARY_API(eq, eq, EMBER_NO_CHECK) EMBER_BINARY_API(ne, ne, EMBER_NO_CHECK)
EMBER_BINARY_API(lt, lt, EMBER_NO_CHECK) EMBER_BINARY_API(le, le, EMBER_NO_CHECK)
EMBER_BINARY_API(gt, gt, EMBER_NO_CHECK) EMBER_BINARY_API(ge, ge, EMBER_NO_CHECK)
EMBER_BINARY_API(less, lt, EMBER_NO_CHECK) EMBER_BINARY_API(greater, gt, EMBER_NO_CHECK)
EMBER_BINARY_API(less_equal, le, EMBER_NO_CHECK) EMBER_BINARY_API(greater_equal, ge, EMBER_NO_CHECK)
EMBER_BINARY_API(not_equal, ne, EMBER_NO_CHECK)
EMBER_BINARY_API(logical_and, logical_and, EMBER_NO_CHECK)
EMBER_BINARY_API(logical_or, logical_or, EMBER_NO_CHECK)
EMBER_BINARY_API(logical_xor, logical_xor, EMBER_NO_CHECK)
EMBER_BINARY_API(bitwise_and, bitwise_and, EMBER_NO_CHECK)
EMBER_BINARY_API(bitwise_or, bitwise_or, EMBER_NO_CHECK)
EMBER_BINARY_API(bitwise_xor, bitwise_xor, EMBER_NO_CHECK)
EMBER_BINARY_API(bitwise_left_shift, bitwise_left_shift, EMBER_NO_CHECK)
EMBER_BINARY_API(bitwise_right_shift, bitwise_right_shift, EMBER_NO_CHECK)
EMBER_BINARY_API(xlogy, xlogy, EMBER_NO_CHECK)
#undef EMBER_BINARY_API

// Integer tensors to negative integer *tensor* powers give 1, +-1 or 0 as PyTorch; only a
// negative integer *scalar* exponent is an error there.
Tensor pow(const Tensor& self, const Tensor& exp) { return run_pointwise(pow_op, {}, {self, exp}); }
Tensor pow(const Tensor& self, const Scalar& exp) {
  check_defined(self, "pow");
  EMBER_CHECK(!(isIntegralType(self.scalar_type(), true) && exp.isIntegral(false) && exp.toLong() < 0),
              "Integers to negative integer powers are not allowed.");
  return pow(self, wrap(exp));
}
Tensor pow(const Scalar& self, const Tensor& exp) { return pow(wrap(self), exp); }
Tensor& pow_out(Tensor& out, const Tensor& self, const Tensor& exp) {
  run_pointwise(pow_op, out, {self, exp});
  return out;
}
Tensor float_power(const Tensor& self, const Tensor& exp) {
  ScalarType t = (self.is_complex() || exp.is_complex()) ? kComplexDouble : kDouble;
  return pow(self.to(t), exp.to(t));
}
Tensor float_power(const Tensor& self, const Scalar& exp) {
  ScalarType t = (self.is_complex() || exp.isComplex()) ? kComplexDouble : kDouble;
  return pow(self.to(t), scalar_tensor(exp, dtype(t)));
}
Tensor float_power(const Scalar& self, const Tensor& exp) {
  ScalarType t = (self.isComplex() || exp.is_complex()) ? kComplexDouble : kDouble;
  return pow(scalar_tensor(self, dtype(t)), exp.to(t));
}
Tensor& float_power_out(Tensor& out, const Tensor& self, const Tensor& exp) {
  EMBER_CHECK_TYPE(out.scalar_type() == kDouble || out.scalar_type() == kComplexDouble,
                   "float_power: the output tensor must have dtype Double or ComplexDouble, got ", out.scalar_type());
  return out.copy_(float_power(self, exp)), out;
}
Tensor remainder(const Scalar& self, const Tensor& other) { return remainder(wrap(self), other); }

#define EMBER_BINARY_TENSOR_API(name, op)                                                        \
  Tensor name(const Tensor& self, const Tensor& other) { return run_pointwise(op##_op, {}, {self, other}); } \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) {                     \
    run_pointwise(op##_op, out, {self, other});                                                  \
    return out;                                                                                  \
  }
EMBER_BINARY_TENSOR_API(atan2, atan2) EMBER_BINARY_TENSOR_API(arctan2, atan2)
EMBER_BINARY_TENSOR_API(hypot, hypot) EMBER_BINARY_TENSOR_API(maximum, maximum)
EMBER_BINARY_TENSOR_API(minimum, minimum) EMBER_BINARY_TENSOR_API(fmax, fmax)
EMBER_BINARY_TENSOR_API(fmin, fmin) EMBER_BINARY_TENSOR_API(copysign, copysign)
#undef EMBER_BINARY_TENSOR_API

// nextafter steps in the representation of the result dtype; BFloat16 (which computes in
// float in the table) is stepped on its own bit patterns here.
namespace {
uint16_t bf16_nextafter(uint16_t a, uint16_t b) {
  float fa = detail::bf16_to_f32(a), fb = detail::bf16_to_f32(b);
  if (std::isnan(fa) || std::isnan(fb)) return 0x7fc0;
  if (fa == fb) return b;
  if (fa == 0) return uint16_t((fb > 0 ? 0x0000 : 0x8000) | 1);
  bool up = (fa < fb) == (fa > 0);  // away from zero
  return uint16_t(up ? a + 1 : a - 1);
}
}  // namespace
Tensor nextafter(const Tensor& self, const Tensor& other) {
  if (result_type(self, other) != kBFloat16) return run_pointwise(nextafter_op, {}, {self, other});
  auto shape = broadcast_shapes(self.sizes(), other.sizes());
  Tensor a = self.to(kBFloat16).expand(shape).contiguous(), b = other.to(kBFloat16).expand(shape).contiguous();
  Tensor r = empty(shape, dtype(kBFloat16));
  const BFloat16* pa = a.data_ptr<BFloat16>();
  const BFloat16* pb = b.data_ptr<BFloat16>();
  BFloat16* pr = r.data_ptr<BFloat16>();
  for (int64_t i = 0; i < r.numel(); ++i) pr[i] = BFloat16::from_bits(bf16_nextafter(pa[i].x, pb[i].x));
  return r;
}
Tensor& nextafter_out(Tensor& out, const Tensor& self, const Tensor& other) {
  if (result_type(self, other) != kBFloat16) {
    run_pointwise(nextafter_op, out, {self, other});
    return out;
  }
  return out.copy_(nextafter(self, other)), out;
}
Tensor max(const Tensor& self, const Tensor& other) { return maximum(self, other); }
Tensor min(const Tensor& self, const Tensor& other) { return minimum(self, other); }

// ---- ternary --------------------------------------------------------------------
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  EMBER_CHECK_TYPE(self.scalar_type() == end.scalar_type(), "lerp: expected dtype ", self.scalar_type(),
                   " for `end` but got dtype ", end.scalar_type());
  return run_pointwise(lerp_scalar_op, {}, {self, end}, {weight});
}
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  EMBER_CHECK_TYPE(self.scalar_type() == end.scalar_type() && self.scalar_type() == weight.scalar_type(),
                   "lerp: expected dtype ", self.scalar_type(), " for `end` and `weight` but got ",
                   end.scalar_type(), " and ", weight.scalar_type());
  return run_pointwise(lerp_tensor_op, {}, {self, end, weight});
}
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  return run_pointwise(addcmul_op, {}, {self, t1, t2}, {value});
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  EMBER_CHECK(!(isIntegralType(t1.scalar_type(), true) && isIntegralType(t2.scalar_type(), true)),
              "addcdiv: integer division with addcdiv is no longer supported; use addcmul(self, t1, t2.div(...))"
              " or true division instead (got ", t1.scalar_type(), " and ", t2.scalar_type(), ")");
  return run_pointwise(addcdiv_op, {}, {self, t1, t2}, {value});
}

// Exposed for tensor methods (in-place variants of parametric/ternary ops).
Tensor& pointwise_inplace(const PointwiseOp& op, Tensor& self, std::initializer_list<Tensor> others,
                          const PointwiseArgs& args) {
  std::vector<Tensor> ins{self};
  ins.insert(ins.end(), others.begin(), others.end());
  switch (ins.size()) {
    case 1: run_pointwise(op, self, {ins[0]}, args, true); break;
    case 2: run_pointwise(op, self, {ins[0], ins[1]}, args, true); break;
    default: run_pointwise(op, self, {ins[0], ins[1], ins[2]}, args, true); break;
  }
  return self;
}

}  // namespace ember
