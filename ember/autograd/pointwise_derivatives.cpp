// Derivatives of the pointwise ops (the vjp and jvp slots of their op-table entries), and
// the autograd path of the pointwise driver.
//
// Complex inputs follow PyTorch's convention: for a holomorphic f the vjp is
// grad * conj(f'(z)) and the jvp is tangent * f'(z). Broadcasting and dtype differences
// are left to the engine (Note [Autograd graph]), so a formula may return a gradient of
// the output's shape.
#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

#include "ember/autograd/autograd_meta.h"
#include "ember/autograd/record.h"
#include "ember/ops/functions.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/special.h"

namespace ember::autograd {

Tensor JvpCtx::tangent(size_t i) const {
  Tensor t = tangent_of(i);
  return t.defined() ? t : zeros_like(inputs[i], {}, MemoryFormat::Contiguous);
}

namespace {

constexpr double kPi = 3.14159265358979323846;

struct PointwiseDerivative {
  VjpFn vjp;
  JvpFn jvp;
};

using Map = std::unordered_map<std::string_view, PointwiseDerivative>;

// Unary ops defined by their derivative f'(x) (x the input, y the result, a the args).
#define UNARY_DERIVATIVE(name, ...)                                                         \
  Tensor d_##name(const Tensor& x, const Tensor& y, const PointwiseArgs& a) {                \
    (void)x, (void)y, (void)a;                                                              \
    return __VA_ARGS__;                                                                      \
  }
UNARY_DERIVATIVE(exp, y)
UNARY_DERIVATIVE(exp2, y.mul(std::log(2.0)))
UNARY_DERIVATIVE(expm1, y.add(1))
UNARY_DERIVATIVE(log, x.reciprocal())
UNARY_DERIVATIVE(log2, x.mul(std::log(2.0)).reciprocal())
UNARY_DERIVATIVE(log10, x.mul(std::log(10.0)).reciprocal())
UNARY_DERIVATIVE(log1p, x.add(1).reciprocal())
UNARY_DERIVATIVE(sqrt, y.mul(2).reciprocal())
UNARY_DERIVATIVE(rsqrt, y.pow(3).mul(-0.5))
UNARY_DERIVATIVE(sin, x.cos())
UNARY_DERIVATIVE(cos, x.sin().neg())
UNARY_DERIVATIVE(tan, y.square().add(1))
UNARY_DERIVATIVE(asin, x.square().neg().add(1).rsqrt())
UNARY_DERIVATIVE(acos, x.square().neg().add(1).rsqrt().neg())
UNARY_DERIVATIVE(atan, x.square().add(1).reciprocal())
UNARY_DERIVATIVE(sinh, x.cosh())
UNARY_DERIVATIVE(cosh, x.sinh())
UNARY_DERIVATIVE(tanh, y.square().neg().add(1))
UNARY_DERIVATIVE(asinh, x.square().add(1).rsqrt())
UNARY_DERIVATIVE(acosh, x.square().sub(1).rsqrt())
UNARY_DERIVATIVE(atanh, x.square().neg().add(1).reciprocal())
UNARY_DERIVATIVE(sigmoid, y.mul(y.neg().add(1)))
UNARY_DERIVATIVE(erf, x.square().neg().exp().mul(2.0 / std::sqrt(kPi)))
UNARY_DERIVATIVE(erfc, x.square().neg().exp().mul(-2.0 / std::sqrt(kPi)))
UNARY_DERIVATIVE(erfinv, y.square().exp().mul(std::sqrt(kPi) / 2))
UNARY_DERIVATIVE(lgamma, x.digamma())
UNARY_DERIVATIVE(reciprocal, y.square().neg())
UNARY_DERIVATIVE(frac, ones_like(x))

// relu: the gradient and tangent pass where the result is positive (one masked pass).
variable_list relu_vjp(const VjpCtx& c) {
  return {where(c.result().gt(0), c.grad(), zeros({}, c.grad().options()))};
}
Tensor relu_jvp(const JvpCtx& c) { return where(c.result().gt(0), c.tangent(0), zeros({}, c.result().options())); }
UNARY_DERIVATIVE(square, x.mul(2))
UNARY_DERIVATIVE(deg2rad, full_like(x, kPi / 180))
UNARY_DERIVATIVE(rad2deg, full_like(x, 180 / kPi))
UNARY_DERIVATIVE(silu, [&] {
  Tensor s = x.sigmoid();
  return s.mul(x.mul(s.neg().add(1)).add(1));
}())
UNARY_DERIVATIVE(hardsigmoid, x.gt(-3).logical_and(x.lt(3)).to(x.scalar_type()).div(6))
UNARY_DERIVATIVE(hardswish,
                 where(x.lt(-3), zeros_like(x), where(x.gt(3), ones_like(x), x.mul(2).add(3).div(6))))
UNARY_DERIVATIVE(selu, where(x.gt(0), full_like(x, 1.0507009873554804934193349852946),
                             x.exp().mul(1.0507009873554804934193349852946 * 1.6732632423543772848170429916717)))
UNARY_DERIVATIVE(hardtanh, x.gt(a.s[0]).logical_and(x.lt(a.s[1])).to(x.scalar_type()))
UNARY_DERIVATIVE(leaky_relu, where(x.gt(0), ones_like(x), full_like(x, a.s[0].toDouble())))
UNARY_DERIVATIVE(elu, [&] {
  const double alpha = a.s[0].toDouble(), scale = a.s[1].toDouble(), in_scale = a.s[2].toDouble();
  return where(x.gt(0), full_like(x, scale), x.mul(in_scale).exp().mul(alpha * scale * in_scale));
}())
UNARY_DERIVATIVE(softplus, [&] {
  const double beta = a.s[0].toDouble(), threshold = a.s[1].toDouble();
  return where(x.mul(beta).gt(threshold), ones_like(x), x.mul(beta).sigmoid());
}())
UNARY_DERIVATIVE(softshrink, x.abs().gt(a.s[0]).to(x.scalar_type()))
UNARY_DERIVATIVE(hardshrink, x.abs().gt(a.s[0]).to(x.scalar_type()))
UNARY_DERIVATIVE(threshold, x.gt(a.s[0]).to(x.scalar_type()))
UNARY_DERIVATIVE(clamp_scalar, [&] {
  Tensor m = ones_like(x, dtype(kBool));
  if (a.s[2].toBool()) m = m.logical_and(x.ge(a.s[0]));
  if (a.s[3].toBool()) m = m.logical_and(x.le(a.s[1]));
  return m.to(x.scalar_type());
}())
UNARY_DERIVATIVE(nan_to_num, x.isfinite().to(x.scalar_type()))
UNARY_DERIVATIVE(gelu, [&] {
  if (a.s[0].toLong() == 1) {  // tanh approximation
    const double k = std::sqrt(2 / kPi), c = 0.044715;
    Tensor inner = x.add(x.pow(3).mul(c)).mul(k);
    Tensor t = inner.tanh();
    Tensor dinner = x.square().mul(3 * c).add(1).mul(k);
    return t.add(1).mul(0.5).add(x.mul(0.5).mul(t.square().neg().add(1)).mul(dinner));
  }
  Tensor cdf = x.mul(M_SQRT1_2).erf().add(1).mul(0.5);
  Tensor pdf = x.square().mul(-0.5).exp().mul(1 / std::sqrt(2 * kPi));
  return cdf.add(x.mul(pdf));
}())
UNARY_DERIVATIVE(logit, [&] {
  const double eps = a.s[0].toDouble();
  Tensor d = x.mul(x.neg().add(1)).reciprocal();
  if (eps >= 0) d = where(x.lt(eps).logical_or(x.gt(1 - eps)), zeros_like(x), d);
  return d;
}())
UNARY_DERIVATIVE(mish, [&] {
  Tensor tsp = softplus(x, 1, 20).tanh();
  return tsp.add(x.mul(x.sigmoid()).mul(tsp.square().neg().add(1)));
}())

// trigamma(x) = digamma'(x) for x > 0: shift to x + 6 with psi1(x) = psi1(x + 1) + 1/x^2,
// then the asymptotic series (error < 1e-13 there). Written in ember ops, so differentiable.
Tensor trigamma(const Tensor& x) {
  Tensor acc = zeros_like(x);
  Tensor z = x;
  for (int j = 0; j < 6; ++j) {
    acc = acc.add(z.square().reciprocal());
    z = z.add(1);
  }
  Tensor r = z.reciprocal(), r2 = r.square();
  // 1/z + 1/(2z^2) + 1/(6z^3) - 1/(30z^5) + 1/(42z^7) - 1/(30z^9)
  Tensor series = r2.mul(-1.0 / 30).add(1.0 / 42).mul(r2).sub(1.0 / 30).mul(r2).add(1.0 / 6).mul(r2).mul(r)
                      .add(r2.mul(0.5)).add(r);
  return acc.add(series);
}
// Modified Bessel function I1 (i0's derivative): power series for |x| <= 15, asymptotic
// expansion beyond.
Tensor bessel_i1(const Tensor& x) {
  Tensor h = x.mul(0.5);
  Tensor term = h.clone(), sum = h.clone();
  Tensor h2 = h.square();
  for (int k = 1; k < 60; ++k) {
    term = term.mul(h2).div(double(k) * double(k + 1));
    sum = sum.add(term);
  }
  Tensor ax = x.abs().clamp_min(15.0);
  Tensor inv = ax.mul(8).reciprocal();
  // e^x / sqrt(2 pi x) * (1 - 3/(8x) - 15/(2 (8x)^2) - 105/(2 (8x)^3))
  Tensor corr = inv.mul(-3).sub(inv.square().mul(7.5)).sub(inv.pow(3).mul(52.5)).add(1);
  Tensor big = ax.exp().div(ax.mul(2 * kPi).sqrt()).mul(corr).mul(x.sgn());
  return where(x.abs().le(15), sum, big);
}
UNARY_DERIVATIVE(digamma, trigamma(x))
UNARY_DERIVATIVE(i0, bessel_i1(x))
UNARY_DERIVATIVE(sinc, [&] {
  Tensor px = x.mul(kPi);
  Tensor d = px.cos().mul(px).sub(px.sin()).div(px.mul(x));
  return where(x.eq(0), zeros_like(d), d);
}())
// torch::special's differentiable members (PyTorch's derivatives.yaml formulas).
UNARY_DERIVATIVE(special_erfcx, x.mul(y).mul(2).sub(2.0 / std::sqrt(kPi)))
UNARY_DERIVATIVE(special_i0e, special_i1e(x).sub(x.sgn().mul(y)))
UNARY_DERIVATIVE(special_ndtri, y.square().div(2).exp().mul(std::sqrt(2 * kPi)))
UNARY_DERIVATIVE(special_log_ndtr, y.add(x.square().div(2)).neg().exp().div(std::sqrt(2 * kPi)))
UNARY_DERIVATIVE(polygamma, polygamma(a.s[0].toLong() + 1, x))
// i1 and i1e at x = 0 (where the formula divides by zero) have derivative 1/2.
Tensor tiny_safe(const Tensor& x) {
  const double eps = x.scalar_type() == kDouble ? 2.220446049250313e-16 : 1.1920928955078125e-07;
  return where(x.abs().gt(eps), x, full({}, eps, x.options()));
}
UNARY_DERIVATIVE(special_i1, [&] {
  Tensor s = tiny_safe(x);
  return where(s.eq(x), s.i0().sub(y.div(s)), full({}, 0.5, x.options()));
}())
UNARY_DERIVATIVE(special_i1e, [&] {
  Tensor s = tiny_safe(x);
  return where(s.eq(x), special_i0e(s).sub(y.mul(s.sgn().add(s.reciprocal()))), full({}, 0.5, x.options()));
}())
#undef UNARY_DERIVATIVE

template <Tensor (*D)(const Tensor&, const Tensor&, const PointwiseArgs&)>
variable_list unary_vjp(const VjpCtx& c) {
  return {c.grad().mul(D(c.input(0), c.result(), c.args).conj())};
}
template <Tensor (*D)(const Tensor&, const Tensor&, const PointwiseArgs&)>
Tensor unary_jvp(const JvpCtx& c) {
  return c.tangent(0).mul(D(c.input(0), c.result(), c.args));
}

// Piecewise-constant ops: zero derivative.
variable_list zero_vjp(const VjpCtx& c) {
  variable_list r;
  for (size_t i = 0; i < c.node.num_outputs(); ++i) r.push_back(c.needs_input_grad(i) ? zeros_like(c.input(i)) : Tensor());
  return r;
}
Tensor zero_jvp(const JvpCtx& c) { return zeros_like(c.result()); }

// ---- ops with their own formulas --------------------------------------------------------
variable_list neg_vjp(const VjpCtx& c) { return {c.grad().neg()}; }
Tensor neg_jvp(const JvpCtx& c) { return c.tangent(0).neg(); }

variable_list abs_vjp(const VjpCtx& c) { return {c.grad().mul(c.input(0).sgn())}; }
Tensor abs_jvp(const JvpCtx& c) {
  const Tensor& x = c.input(0);
  if (x.is_complex()) return real(c.tangent(0).conj().mul(x.sgn()));
  return c.tangent(0).mul(x.sgn());
}

// sgn(z) = z / |z|: for real inputs piecewise constant.
variable_list sgn_vjp(const VjpCtx& c) {
  Tensor x = c.input(0);
  if (!x.is_complex()) return {zeros_like(c.grad())};
  Tensor s = c.result(), r = x.abs();
  Tensor g = c.grad().sub(s.mul(real(s.conj().mul(c.grad())))).div(r);
  return {where(r.eq(0), zeros_like(g), g)};
}
Tensor sgn_jvp(const JvpCtx& c) {
  const Tensor& x = c.input(0);
  if (!x.is_complex()) return zeros_like(c.result());
  Tensor s = c.result(), r = x.abs(), t = c.tangent(0);
  Tensor d = t.sub(s.mul(real(s.conj().mul(t)))).div(r);
  return where(r.eq(0), zeros_like(d), d);
}
// angle(z) = atan2(im, re); zero derivative for real inputs.
variable_list angle_vjp(const VjpCtx& c) {
  Tensor x = c.input(0);
  if (!x.is_complex()) return {zeros_like(x)};
  Tensor r2 = x.abs().square();
  Tensor g = c.grad().mul(x).div(r2).mul(Scalar(Complex<double>(0, 1)));
  return {where(r2.eq(0), zeros_like(g), g)};
}
Tensor angle_jvp(const JvpCtx& c) {
  const Tensor& x = c.input(0);
  if (!x.is_complex()) return zeros_like(c.result());
  Tensor r2 = x.abs().square();
  Tensor d = imag(x.conj().mul(c.tangent(0))).div(r2);
  return where(r2.eq(0), zeros_like(d), d);
}

variable_list conj_vjp(const VjpCtx& c) { return {c.grad().conj()}; }
Tensor conj_jvp(const JvpCtx& c) { return c.tangent(0).conj(); }

// add/sub: alpha scales the second input.
variable_list add_vjp(const VjpCtx& c) {
  const Scalar& alpha = c.args.s[0];
  Tensor gb = c.needs_input_grad(1) ? c.grad().mul(conj_scalar(alpha))
                                    : Tensor();
  return {c.grad(), gb};
}
Tensor add_jvp(const JvpCtx& c) {
  Tensor r = c.has_tangent(0) ? c.tangent(0) : Tensor();
  if (c.has_tangent(1)) {
    Tensor tb = c.tangent(1).mul(c.args.s[0]);
    r = r.defined() ? r.add(tb) : tb;
  }
  return r;
}
variable_list sub_vjp(const VjpCtx& c) {
  const Scalar& alpha = c.args.s[0];
  Tensor gb = c.needs_input_grad(1)
                  ? c.grad().mul(conj_scalar(alpha)).neg()
                  : Tensor();
  return {c.grad(), gb};
}
Tensor sub_jvp(const JvpCtx& c) {
  Tensor r = c.has_tangent(0) ? c.tangent(0) : Tensor();
  if (c.has_tangent(1)) {
    Tensor tb = c.tangent(1).mul(c.args.s[0]).neg();
    r = r.defined() ? r.add(tb) : tb;
  }
  return r;
}

variable_list mul_vjp(const VjpCtx& c) {
  // Unpack only what is needed: after x.mul_(2) the saved x is stale but unused.
  return {c.needs_input_grad(0) ? c.grad().mul(c.input(1).conj()) : Tensor(),
          c.needs_input_grad(1) ? c.grad().mul(c.input(0).conj()) : Tensor()};
}
Tensor mul_jvp(const JvpCtx& c) {
  Tensor r;
  if (c.has_tangent(0)) r = c.tangent(0).mul(c.input(1));
  if (c.has_tangent(1)) {
    Tensor t = c.input(0).mul(c.tangent(1));
    r = r.defined() ? r.add(t) : t;
  }
  return r;
}

variable_list div_vjp(const VjpCtx& c) {
  Tensor b = c.input(1);
  Tensor ga = c.grad().div(b.conj());
  return {c.needs_input_grad(0) ? ga : Tensor(),
          c.needs_input_grad(1) ? ga.mul(c.result().conj()).neg() : Tensor()};
}
Tensor div_jvp(const JvpCtx& c) {
  Tensor num = c.has_tangent(0) ? c.tangent(0) : Tensor();
  if (c.has_tangent(1)) {
    Tensor t = c.result().mul(c.tangent(1));
    num = num.defined() ? num.sub(t) : t.neg();
  }
  return num.div(c.input(1));
}

variable_list remainder_vjp(const VjpCtx& c) {
  Tensor q = c.input(0).div(c.input(1), "floor");
  return {c.grad(), c.needs_input_grad(1) ? c.grad().mul(q).neg() : Tensor()};
}
Tensor remainder_jvp(const JvpCtx& c) {
  return c.tangent(0).sub(c.tangent(1).mul(c.input(0).div(c.input(1), "floor")));
}
variable_list fmod_vjp(const VjpCtx& c) {
  Tensor q = c.input(0).div(c.input(1), "trunc");
  return {c.grad(), c.needs_input_grad(1) ? c.grad().mul(q).neg() : Tensor()};
}
Tensor fmod_jvp(const JvpCtx& c) { return c.tangent(0).sub(c.tangent(1).mul(c.input(0).div(c.input(1), "trunc"))); }

// pow(a, b): d/da = b a^(b-1); d/db = a^b log(a), taken as 0 where a == 0 and b >= 0.
Tensor pow_da(const Tensor& a, const Tensor& b) { return b.mul(a.pow(b.sub(1))); }
Tensor pow_db(const Tensor& a, const Tensor& b, const Tensor& y) {
  Tensor d = y.mul(a.log());
  if (!a.is_complex()) d = where(a.eq(0).logical_and(b.ge(0)), zeros_like(d), d);
  return d;
}
variable_list pow_vjp(const VjpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  return {c.needs_input_grad(0) ? c.grad().mul(pow_da(a, b).conj()) : Tensor(),
          c.needs_input_grad(1) ? c.grad().mul(pow_db(a, b, c.result()).conj()) : Tensor()};
}
Tensor pow_jvp(const JvpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor r;
  if (c.has_tangent(0)) r = c.tangent(0).mul(pow_da(a, b));
  if (c.has_tangent(1)) {
    Tensor t = c.tangent(1).mul(pow_db(a, b, c.result()));
    r = r.defined() ? r.add(t) : t;
  }
  return r;
}

variable_list atan2_vjp(const VjpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor denom = a.square().add(b.square());
  return {c.grad().mul(b).div(denom), c.grad().mul(a).neg().div(denom)};
}
Tensor atan2_jvp(const JvpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  return c.tangent(0).mul(b).sub(c.tangent(1).mul(a)).div(a.square().add(b.square()));
}
variable_list hypot_vjp(const VjpCtx& c) {
  Tensor y = c.result();
  return {c.grad().mul(c.input(0)).div(y), c.grad().mul(c.input(1)).div(y)};
}
Tensor hypot_jvp(const JvpCtx& c) {
  return c.tangent(0).mul(c.input(0)).add(c.tangent(1).mul(c.input(1))).div(c.result());
}

// maximum/minimum (and fmax/fmin): the gradient goes to the selected input, split evenly
// on ties, as PyTorch.
template <bool Max>
variable_list select_vjp(const VjpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor pick_a = Max ? a.gt(b) : a.lt(b);
  Tensor tie = a.eq(b);
  Tensor wa = pick_a.to(c.grad().scalar_type()).add(tie.to(c.grad().scalar_type()).mul(0.5));
  return {c.grad().mul(wa), c.grad().mul(wa.neg().add(1))};
}
template <bool Max>
Tensor select_jvp(const JvpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor pick_a = Max ? a.gt(b) : a.lt(b);
  Tensor wa = pick_a.to(c.result().scalar_type()).add(a.eq(b).to(c.result().scalar_type()).mul(0.5));
  return c.tangent(0).mul(wa).add(c.tangent(1).mul(wa.neg().add(1)));
}

variable_list copysign_vjp(const VjpCtx& c) {
  Tensor a = c.input(0);
  Tensor ratio = where(a.eq(0), zeros_like(a), c.result().div(a));
  return {c.grad().mul(ratio), c.needs_input_grad(1) ? zeros_like(c.input(1)) : Tensor()};
}
Tensor copysign_jvp(const JvpCtx& c) {
  Tensor a = c.input(0);
  return c.tangent(0).mul(where(a.eq(0), zeros_like(a), c.result().div(a)));
}

variable_list xlogy_vjp(const VjpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor ga = where(a.eq(0).logical_and(b.isnan().logical_not()), zeros_like(b), b.log());
  Tensor gb = where(a.eq(0).logical_and(b.isnan().logical_not()), zeros_like(b), a.div(b));
  return {c.grad().mul(ga), c.grad().mul(gb)};
}
Tensor xlogy_jvp(const JvpCtx& c) {
  Tensor a = c.input(0), b = c.input(1);
  Tensor zero = a.eq(0).logical_and(b.isnan().logical_not());
  return c.tangent(0).mul(where(zero, zeros_like(b), b.log())).add(c.tangent(1).mul(where(zero, zeros_like(b), a.div(b))));
}

// igamma(a, x), igammac(a, x), zeta(x, q): PyTorch differentiates the second argument only.
template <int kSign>
variable_list igamma_vjp(const VjpCtx& c) {
  EMBER_CHECK(!c.needs_input_grad(0), "the derivative for '", kSign > 0 ? "igamma" : "igammac",
              ": input' is not implemented.");
  Tensor a = c.input(0), x = c.input(1);
  Tensor d = a.sub(1).mul(x.log()).sub(x).sub(a.lgamma()).exp().mul(double(kSign));
  return {Tensor(), c.grad().mul(d)};
}
template <int kSign>
Tensor igamma_jvp(const JvpCtx& c) {
  EMBER_CHECK(!c.has_tangent(0), "the derivative for '", kSign > 0 ? "igamma" : "igammac",
              ": input' is not implemented.");
  Tensor a = c.input(0), x = c.input(1);
  return c.tangent(1).mul(a.sub(1).mul(x.log()).sub(x).sub(a.lgamma()).exp().mul(double(kSign)));
}
variable_list zeta_vjp(const VjpCtx& c) {
  EMBER_CHECK(!c.needs_input_grad(0), "the derivative for 'zeta' is not implemented.");
  Tensor x = c.input(0), q = c.input(1);
  return {Tensor(), c.grad().mul(x.neg().mul(special_zeta(x.add(1), q)))};
}
Tensor zeta_jvp(const JvpCtx& c) {
  EMBER_CHECK(!c.has_tangent(0), "the derivative for 'zeta' is not implemented.");
  Tensor x = c.input(0), q = c.input(1);
  return c.tangent(1).mul(x.neg().mul(special_zeta(x.add(1), q)));
}

// lerp(a, b, w) = a + w (b - a)
variable_list lerp_scalar_vjp(const VjpCtx& c) {
  const Scalar& w = c.args.s[0];
  Tensor gb = c.grad().mul(conj_scalar(w));
  return {c.grad().sub(gb), gb};
}
Tensor lerp_scalar_jvp(const JvpCtx& c) {
  const Scalar& w = c.args.s[0];
  return c.tangent(0).add(c.tangent(1).sub(c.tangent(0)).mul(w));
}
variable_list lerp_tensor_vjp(const VjpCtx& c) {
  Tensor a = c.input(0), b = c.input(1), w = c.input(2);
  Tensor wc = w.conj();
  return {c.grad().mul(wc.neg().add(1)), c.grad().mul(wc), c.grad().mul(b.sub(a).conj())};
}
Tensor lerp_tensor_jvp(const JvpCtx& c) {
  Tensor a = c.input(0), b = c.input(1), w = c.input(2);
  return c.tangent(0).add(c.tangent(1).sub(c.tangent(0)).mul(w)).add(c.tangent(2).mul(b.sub(a)));
}


variable_list addcmul_vjp(const VjpCtx& c) {
  Scalar v = conj_scalar(c.args.s[0]);
  Tensor t1 = c.input(1), t2 = c.input(2);
  return {c.grad(), c.needs_input_grad(1) ? c.grad().mul(t2.conj()).mul(v) : Tensor(),
          c.needs_input_grad(2) ? c.grad().mul(t1.conj()).mul(v) : Tensor()};
}
Tensor addcmul_jvp(const JvpCtx& c) {
  const Scalar& v = c.args.s[0];
  return c.tangent(0).add(c.tangent(1).mul(c.input(2)).add(c.input(1).mul(c.tangent(2))).mul(v));
}
variable_list addcdiv_vjp(const VjpCtx& c) {
  Scalar v = conj_scalar(c.args.s[0]);
  Tensor t1 = c.input(1), t2 = c.input(2);
  return {c.grad(), c.needs_input_grad(1) ? c.grad().div(t2.conj()).mul(v) : Tensor(),
          c.needs_input_grad(2) ? c.grad().mul(t1.div(t2.square()).conj()).mul(v).neg() : Tensor()};
}
Tensor addcdiv_jvp(const JvpCtx& c) {
  const Scalar& v = c.args.s[0];
  Tensor t1 = c.input(1), t2 = c.input(2);
  return c.tangent(0).add(c.tangent(1).div(t2).sub(t1.mul(c.tangent(2)).div(t2.square())).mul(v));
}
// PyTorch's clamp_backward_min_max and clamp_jvp: where(), so an inf or NaN gradient stays out
// of the inputs it does not reach; with lo > hi the result is hi and so is the gradient's path.
variable_list clamp_tensor_vjp(const VjpCtx& c) {
  const bool has_lo = c.args.s[0].toBool(), has_hi = c.args.s[1].toBool();
  const Tensor x = c.input(0), lo = c.input(1), hi = c.input(2), g = c.grad();
  const Tensor zero = zeros({}, g.options());
  variable_list r(3);
  if (has_lo && has_hi) {
    if (c.needs_input_grad(0)) r[0] = where(x.ge(lo).logical_and(x.le(hi)), g, zero);
    if (c.needs_input_grad(1)) r[1] = where(x.lt(lo).logical_and(lo.lt(hi)), g, zero);
    if (c.needs_input_grad(2)) r[2] = where(x.gt(hi).logical_or(hi.lt(lo)), g, zero);
  } else if (has_lo) {
    if (c.needs_input_grad(0)) r[0] = where(x.ge(lo), g, zero);
    if (c.needs_input_grad(1)) r[1] = where(x.lt(lo), g, zero);
  } else {
    if (c.needs_input_grad(0)) r[0] = where(x.le(hi), g, zero);
    if (c.needs_input_grad(2)) r[2] = where(x.gt(hi), g, zero);
  }
  return r;
}
Tensor clamp_tensor_jvp(const JvpCtx& c) {
  const bool has_lo = c.args.s[0].toBool(), has_hi = c.args.s[1].toBool();
  const Tensor x = c.input(0);
  Tensor r = c.tangent(0);
  if (has_hi) r = where(c.input(2).lt(x), c.tangent(2), r);
  if (has_lo) r = where(c.input(1).gt(x), c.tangent(1), r);
  if (has_lo && has_hi) r = where(c.input(1).gt(c.input(2)), c.tangent(2), r);
  return r;
}

const Map& table() {
  static const Map m = [] {
    Map t;
#define UNARY(name) t[#name] = {&unary_vjp<&d_##name>, &unary_jvp<&d_##name>};
    UNARY(exp) UNARY(exp2) UNARY(expm1) UNARY(log) UNARY(log2) UNARY(log10) UNARY(log1p) UNARY(sqrt)
    UNARY(rsqrt) UNARY(sin) UNARY(cos) UNARY(tan) UNARY(asin) UNARY(acos) UNARY(atan) UNARY(sinh)
    UNARY(cosh) UNARY(tanh) UNARY(asinh) UNARY(acosh) UNARY(atanh) UNARY(sigmoid) UNARY(erf) UNARY(erfc)
    UNARY(erfinv) UNARY(lgamma) UNARY(reciprocal) UNARY(frac) UNARY(square) UNARY(deg2rad)
    UNARY(rad2deg) UNARY(silu) UNARY(hardsigmoid) UNARY(hardswish) UNARY(selu) UNARY(hardtanh)
    UNARY(leaky_relu) UNARY(elu) UNARY(softplus) UNARY(softshrink) UNARY(hardshrink) UNARY(threshold)
    UNARY(clamp_scalar) UNARY(nan_to_num) UNARY(gelu) UNARY(logit) UNARY(mish) UNARY(digamma) UNARY(i0)
    UNARY(sinc) UNARY(special_erfcx) UNARY(special_i0e) UNARY(special_i1) UNARY(special_i1e)
    UNARY(special_ndtri) UNARY(special_log_ndtr) UNARY(polygamma)
#undef UNARY
    for (const char* z : {"sign", "floor", "ceil", "trunc", "round", "div_trunc", "div_floor"})
      t[z] = {&zero_vjp, &zero_jvp};
    t["neg"] = {&neg_vjp, &neg_jvp};
    t["relu"] = {&relu_vjp, &relu_jvp};
    t["abs"] = {&abs_vjp, &abs_jvp};
    t["conj_physical"] = {&conj_vjp, &conj_jvp};
    t["sgn"] = {&sgn_vjp, &sgn_jvp};
    t["angle"] = {&angle_vjp, &angle_jvp};
    t["add"] = {&add_vjp, &add_jvp};
    t["sub"] = {&sub_vjp, &sub_jvp};
    t["mul"] = {&mul_vjp, &mul_jvp};
    t["div_true"] = {&div_vjp, &div_jvp};
    t["remainder"] = {&remainder_vjp, &remainder_jvp};
    t["fmod"] = {&fmod_vjp, &fmod_jvp};
    t["pow"] = {&pow_vjp, &pow_jvp};
    t["atan2"] = {&atan2_vjp, &atan2_jvp};
    t["hypot"] = {&hypot_vjp, &hypot_jvp};
    t["maximum"] = {&select_vjp<true>, &select_jvp<true>};
    t["fmax"] = {&select_vjp<true>, &select_jvp<true>};
    t["minimum"] = {&select_vjp<false>, &select_jvp<false>};
    t["fmin"] = {&select_vjp<false>, &select_jvp<false>};
    t["copysign"] = {&copysign_vjp, &copysign_jvp};
    t["xlogy"] = {&xlogy_vjp, &xlogy_jvp};
    t["lerp_scalar"] = {&lerp_scalar_vjp, &lerp_scalar_jvp};
    t["lerp_tensor"] = {&lerp_tensor_vjp, &lerp_tensor_jvp};
    t["addcmul"] = {&addcmul_vjp, &addcmul_jvp};
    t["addcdiv"] = {&addcdiv_vjp, &addcdiv_jvp};
    t["clamp_tensor"] = {&clamp_tensor_vjp, &clamp_tensor_jvp};
    t["igamma"] = {&igamma_vjp<1>, &igamma_jvp<1>};
    t["igammac"] = {&igamma_vjp<-1>, &igamma_jvp<-1>};
    t["special_zeta"] = {&zeta_vjp, &zeta_jvp};
    return t;
  }();
  return m;
}

// PyTorch's node names for ops whose table name differs.
std::string_view public_name(std::string_view op) {
  if (op == "div_true" || op == "div_trunc" || op == "div_floor") return "div";
  if (op == "clamp_scalar" || op == "clamp_tensor") return "clamp";
  if (op == "lerp_scalar" || op == "lerp_tensor") return "lerp";
  if (op == "conj_physical") return "conj_physical";
  if (op == "special_zeta") return "zeta";
  return op;
}

// Fills the op's vjp/jvp slots from the table (once).
void link(PointwiseOp& op) {
  auto it = table().find(op.name);
  if (it != table().end()) {
    op.vjp = it->second.vjp;
    op.jvp = it->second.jvp;
  }
}

// What each formula reads (the rest is not saved).
bool saves_result(std::string_view n) {
  return n == "exp" || n == "exp2" || n == "expm1" || n == "sqrt" || n == "rsqrt" || n == "tan" || n == "tanh" ||
         n == "sigmoid" || n == "erfinv" || n == "reciprocal" || n == "relu" || n == "div_true" || n == "pow" ||
         n == "hypot" || n == "copysign" || n == "sgn" || n == "special_erfcx" || n == "special_i0e" ||
         n == "special_i1" || n == "special_i1e" || n == "special_ndtri" || n == "special_log_ndtr";
}
// Ops PyTorch declares non_differentiable: their results never require grad.
bool non_differentiable(std::string_view n) {
  return n.starts_with("special_bessel") || n.starts_with("special_modified_bessel") ||
         n.starts_with("special_scaled_modified_bessel") || n == "special_airy_ai" ||
         n == "special_spherical_bessel_j0" || n.ends_with("_polynomial_t") || n.ends_with("_polynomial_u") ||
         n.ends_with("_polynomial_v") || n.ends_with("_polynomial_w") || n.starts_with("special_hermite") ||
         n == "special_laguerre_polynomial_l" || n == "special_legendre_polynomial_p";
}
bool saves_inputs(std::string_view n) {
  return !(n == "exp" || n == "exp2" || n == "expm1" || n == "sqrt" || n == "rsqrt" || n == "tan" || n == "tanh" ||
           n == "sigmoid" || n == "erfinv" || n == "reciprocal" || n == "relu" || n == "neg" || n == "add" ||
           n == "sub" || n == "conj_physical" || n == "lerp_scalar");
}

// LibTorch's overloads of binary ops with a Scalar operand (x * 2, 2 + x, x.pow(2)) record a
// node with another name (MulBackward1) and no edge for the scalar; ember wraps the scalar
// into a 0-dim "wrapped number" tensor, so the recorded node is renamed and that edge hidden
// to match. `wrapped`: bit i set when input i is a wrapped number. Returns the name suffix
// (-1: keep "0") and the input to hide (-1: none), from LibTorch 1.13's derivatives.yaml.
std::pair<int, int> scalar_overload(std::string_view n, unsigned wrapped) {
  if (n == "add" || n == "mul") {
    if (wrapped == 2) return {1, 1};
    if (wrapped == 1) return {1, 0};  // 2 * x: the operators swap commutative operands
  } else if (n == "sub" || n == "div_true") {
    if (wrapped == 2) return {1, 1};
  } else if (n == "div_trunc" || n == "div_floor") {
    if (wrapped == 0) return {2, -1};
    if (wrapped == 2) return {3, 1};
  } else if (n == "pow") {
    if (wrapped == 2) return {0, 1};
    if (wrapped == 0) return {1, -1};
    if (wrapped == 1) return {2, 0};
  } else if (n == "remainder" || n == "fmod" || n == "copysign") {
    if (wrapped == 2) return {n == "copysign" ? 1 : 0, 1};
    if (wrapped == 0) return {n == "copysign" ? 0 : 1, -1};
  } else if (n == "xlogy") {
    if (wrapped == 2) return {2, 1};
    if (wrapped == 1) return {1, 0};
  } else if (n == "clamp_scalar" || n == "lerp_tensor") {
    return {1, -1};
  }
  return {-1, -1};
}

}  // namespace

// Links every pointwise op's derivative slots; called before the generic tests walk the table.
void link_pointwise_derivatives() {
  for (OpInfo* info : OpInfo::all())
    if (info->fusion == FusionClass::Pointwise) link(*static_cast<PointwiseOp*>(info));
}

Tensor differentiable_pointwise(const PointwiseOp& op_c, Tensor out, std::initializer_list<Tensor> inputs_l,
                                const PointwiseArgs& args, bool inplace) {
  auto& op = const_cast<PointwiseOp&>(op_c);
  std::vector<Tensor> inputs(inputs_l);
  // Tensor methods write in place as op_out(self, self, ...).
  if (out.defined() && !inplace && !inputs.empty() && out.is_same(inputs[0])) inplace = true;
  Recording rec(inputs);
  if (!rec.any() || op.result_kind == ResultKind::Bool || non_differentiable(op.name)) {
    BelowAutogradGuard below;
    return run_pointwise(op, std::move(out), inputs_l, args, inplace);
  }
  if (out.defined() && !inplace) {
    for (const Tensor& t : inputs)
      if (GradMode::is_enabled() && tensor_requires_grad(t))
        EMBER_ERROR(op.name, "_out(): functions with out=... arguments don't support automatic differentiation, but "
                    "one of the arguments requires grad.");
    BelowAutogradGuard below;
    return run_pointwise(op, std::move(out), inputs_l, args, false);
  }
  if (inplace) {
    check_inplace(out, op.name.data());
    // Out of place with history, then written back; self's history continues from it.
    // A formula that reads self's old value gets a copy of it (with self's history).
    Tensor r;
    if (saves_inputs(op.name) && std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return t.is_same(out); })) {
      Tensor old = out.clone();
      std::vector<Tensor> in2;
      for (const Tensor& t : inputs) in2.push_back(t.is_same(out) ? old : t);
      if (in2.size() == 1) r = differentiable_pointwise(op, {}, {in2[0]}, args, false);
      else if (in2.size() == 2) r = differentiable_pointwise(op, {}, {in2[0], in2[1]}, args, false);
      else r = differentiable_pointwise(op, {}, {in2[0], in2[1], in2[2]}, args, false);
    } else {
      r = differentiable_pointwise(op, {}, inputs_l, args, false);
    }
    EMBER_CHECK_TYPE(canCast(r.scalar_type(), out.scalar_type()), op.name, "_: result type ", r.scalar_type(),
                     " can't be cast to the desired output type ", out.scalar_type());
    EMBER_CHECK(r.sizes() == out.sizes(), op.name, "_: output with shape ", out.sizes(),
                " doesn't match the broadcast shape ", r.sizes());
    {
      BelowAutogradGuard below;
      out.copy_(r);
    }
    if (GradMode::is_enabled() || forward_ad_enabled()) rebase_history(out, r);
    return out;
  }
  if (!op.vjp) link(op);
  EMBER_CHECK(op.vjp && op.jvp, "the derivative for '", public_name(op.name), "' is not implemented.");
  Tensor r;
  {
    BelowAutogradGuard below;
    r = run_pointwise(op, {}, inputs_l, args, false);
  }
  if (!(r.is_floating_point() || r.is_complex())) return r;
  // Tangents first: a saved output keeps the tangent it has when saved.
  if (rec.forward()) {
    JvpFn jvp = op.jvp;
    rec.forward_each(r, [&](const std::function<Tensor(size_t)>& tangent_of) {
      JvpCtx ctx{inputs, r, args, tangent_of};
      return jvp(ctx);
    });
  }
  if (rec.reverse()) {
    // Save only what the formulas read, so that modifying another tensor in place later
    // does not invalidate the graph (PyTorch saves the same).
    const bool uses_result = saves_result(op.name);
    const bool uses_inputs = saves_inputs(op.name);
    std::vector<ToSave> saved;
    saved.reserve(inputs.size() + 1);
    for (const Tensor& t : inputs) saved.push_back({uses_inputs ? t : Tensor(), false});
    saved.push_back({uses_result ? r : Tensor(), true});
    VjpFn vjp = op.vjp;
    auto node = rec.record(public_name(op.name), {&r}, [vjp](const VjpCtx& c) { return vjp(c); }, std::move(saved), args);
    unsigned wrapped = 0;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].defined() && inputs[i].unsafeGetTensorImpl()->is_wrapped_number()) wrapped |= 1u << i;
    auto [suffix, hidden] = scalar_overload(op.name, inputs.size() == 2 ? wrapped : 0u);
    if (suffix >= 0) node->name_.back() = char('0' + suffix);
    if (hidden >= 0 && size_t(hidden) < node->next_edges().size()) {
      std::vector<Edge> edges = node->next_edges();
      edges.erase(edges.begin() + hidden);
      node->set_next_edges(std::move(edges));
      node->hidden_input_ = hidden;
    }
  }
  return r;
}

}  // namespace ember::autograd
