// The pointwise op table's entries: each row of ember/ops/pointwise_table.h expanded into its
// OpDef, with the row's derivative attached here, at compile time (no lookup by name).
// The formulas of ops with their own vjp/jvp and the helpers of the unary ones live above
// the expansion.
//
// Complex inputs follow PyTorch's convention: for a holomorphic f the vjp is
// grad * conj(f'(z)) and the jvp is tangent * f'(z). Broadcasting and dtype differences
// are left to the engine (Note [Autograd graph]), so a formula may return a gradient of
// the output's shape.
#include <cmath>
#include <string_view>

#include "ember/autograd/functions.h"
#include "ember/autograd/record.h"
#include "ember/ops/functions.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/pointwise_ops.h"
#include "ember/ops/special.h"

namespace ember {
namespace {

using autograd::conj_scalar;
using autograd::JvpCtx;
using autograd::variable_list;
using autograd::VjpCtx;

constexpr double kPi = 3.14159265358979323846;

// ---- helpers of the unary rows' f'(x) ------------------------------------------------------
Tensor d_silu(const Tensor& x) {
  Tensor s = x.sigmoid();
  return s.mul(x.mul(s.neg().add(1)).add(1));
}
Tensor d_hardswish(const Tensor& x) {
  return where(x.lt(-3), zeros_like(x), where(x.gt(3), ones_like(x), x.mul(2).add(3).div(6)));
}
Tensor d_selu(const Tensor& x) {
  constexpr double kScale = 1.0507009873554804934193349852946, kAlpha = 1.6732632423543772848170429916717;
  return where(x.gt(0), full_like(x, kScale), x.exp().mul(kScale * kAlpha));
}
Tensor d_leaky_relu(const Tensor& x, const PointwiseArgs& a) {
  return where(x.gt(0), ones_like(x), full_like(x, a.s[0].toDouble()));
}
Tensor d_elu(const Tensor& x, const PointwiseArgs& a) {
  const double alpha = a.s[0].toDouble(), scale = a.s[1].toDouble(), in_scale = a.s[2].toDouble();
  return where(x.gt(0), full_like(x, scale), x.mul(in_scale).exp().mul(alpha * scale * in_scale));
}
Tensor d_softplus(const Tensor& x, const PointwiseArgs& a) {
  const double beta = a.s[0].toDouble(), threshold = a.s[1].toDouble();
  return where(x.mul(beta).gt(threshold), ones_like(x), x.mul(beta).sigmoid());
}
// clamp(x, min, max) with scalar bounds; args: min, max, has_min, has_max.
Tensor d_clamp(const Tensor& x, const PointwiseArgs& a) {
  Tensor m = ones_like(x, dtype(kBool));
  if (a.s[2].toBool()) m = m.logical_and(x.ge(a.s[0]));
  if (a.s[3].toBool()) m = m.logical_and(x.le(a.s[1]));
  return m.to(x.scalar_type());
}
Tensor d_gelu(const Tensor& x, const PointwiseArgs& a) {
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
}
Tensor d_logit(const Tensor& x, const PointwiseArgs& a) {
  const double eps = a.s[0].toDouble();
  Tensor d = x.mul(x.neg().add(1)).reciprocal();
  if (eps >= 0) d = where(x.lt(eps).logical_or(x.gt(1 - eps)), zeros_like(x), d);
  return d;
}
Tensor d_mish(const Tensor& x) {
  Tensor tsp = softplus(x, 1, 20).tanh();
  return tsp.add(x.mul(x.sigmoid()).mul(tsp.square().neg().add(1)));
}

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
Tensor d_sinc(const Tensor& x) {
  Tensor px = x.mul(kPi);
  Tensor d = px.cos().mul(px).sub(px.sin()).div(px.mul(x));
  return where(x.eq(0), zeros_like(d), d);
}
// i1 and i1e at x = 0 (where the formula divides by zero) have derivative 1/2.
Tensor tiny_safe(const Tensor& x) {
  const double eps = x.scalar_type() == kDouble ? 2.220446049250313e-16 : 1.1920928955078125e-07;
  return where(x.abs().gt(eps), x, full({}, eps, x.options()));
}
Tensor d_i1(const Tensor& x, const Tensor& y) {
  Tensor s = tiny_safe(x);
  return where(s.eq(x), s.i0().sub(y.div(s)), full({}, 0.5, x.options()));
}
Tensor d_i1e(const Tensor& x, const Tensor& y) {
  Tensor s = tiny_safe(x);
  return where(s.eq(x), special_i0e(s).sub(y.mul(s.sgn().add(s.reciprocal()))), full({}, 0.5, x.options()));
}

// ---- ops with their own formulas ---------------------------------------------------------
// relu: the gradient and tangent pass where the result is positive (one masked pass).
variable_list relu_vjp(const VjpCtx& c) {
  return {where(c.result().gt(0), c.grad(), zeros({}, c.grad().options()))};
}
Tensor relu_jvp(const JvpCtx& c) { return where(c.result().gt(0), c.tangent(0), zeros({}, c.result().options())); }

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


// ---- the entries -------------------------------------------------------------------------
// A row's derivative column, evaluated by the entry: a Tensor (a unary f'(x)) or one of these.
struct PwDerivative {
  VjpFn vjp = nullptr;
  JvpFn jvp = nullptr;
  bool differentiable = true;
};
constexpr PwDerivative own(VjpFn vjp, JvpFn jvp) { return {vjp, jvp, true}; }
constexpr PwDerivative zero_derivative{&zero_vjp, &zero_jvp, true};
constexpr PwDerivative non_differentiable{nullptr, nullptr, false};
constexpr PwDerivative not_implemented{nullptr, nullptr, true};

// D is the row's derivative column as a stateless callable of (x, y, a).
template <class D>
variable_list unary_vjp(const VjpCtx& c) {
  return {c.grad().mul(D{}(c.input(0), c.result(), c.args).conj())};
}
template <class D>
Tensor unary_jvp(const JvpCtx& c) {
  return c.tangent(0).mul(D{}(c.input(0), c.result(), c.args));
}

// PyTorch's node names (DivBackward0, ClampBackward1, LerpBackward0) for the rows whose
// name carries an overload.
constexpr std::string_view node_name(std::string_view op) {
  if (op == "div_true" || op == "div_trunc" || op == "div_floor") return "div";
  if (op == "clamp_scalar" || op == "clamp_tensor") return "clamp";
  if (op == "lerp_scalar" || op == "lerp_tensor") return "lerp";
  if (op == "special_zeta") return "zeta";
  return op;
}

template <class D>
OpInfo entry(std::string_view name, DtypeSet dtypes, ResultKind kind, Saves saves, D) {
  OpInfo info{.name = name, .fusion = FusionClass::Pointwise, .dtypes = dtypes, .result_kind = kind};
  using R = decltype(D{}(Tensor(), Tensor(), PointwiseArgs()));
  if constexpr (std::is_same_v<R, Tensor>) {
    info.vjp = &unary_vjp<D>;
    info.jvp = &unary_jvp<D>;
  } else {
    static_assert(std::is_same_v<R, PwDerivative>, "a pointwise row's derivative is f'(x) or a PwDerivative");
    const PwDerivative d = D{}(Tensor(), Tensor(), PointwiseArgs());
    info.vjp = d.vjp;
    info.jvp = d.jvp;
    info.differentiable = d.differentiable && kind != ResultKind::Bool;
  }
  info.saves = saves;
  info.node_name = node_name(name);
  return info;
}

}  // namespace

#define EMBER_PW_ENTRY(op, F, dtypes, kind, api, saves, derivative)                                 \
  PointwiseOp op##_op(entry(#op, dtypes, ResultKind::kind, Saves::saves,                           \
                            []([[maybe_unused]] const Tensor& x, [[maybe_unused]] const Tensor& y, \
                               [[maybe_unused]] const PointwiseArgs& a) { return derivative; }));
EMBER_UNARY_OPS(EMBER_PW_ENTRY)
EMBER_BINARY_OPS(EMBER_PW_ENTRY)
EMBER_TERNARY_OPS(EMBER_PW_ENTRY)
#undef EMBER_PW_ENTRY

// Every row is a traced op of its own name (Note [Tracing hooks]): run_pointwise records it.
namespace {
struct TracedPointwise {
  tracing::TracedOp op;
  explicit TracedPointwise(const PointwiseOp& row) {
    op.name = row.name;
    op.fusion = tracing::Fusion::Pointwise;
    op.context = &row;
    op.run = &run_traced_pointwise;
    tracing::register_traced_op(&op);
  }
};
#define EMBER_PW_TRACED(op, ...) const TracedPointwise op##_traced(op##_op);
EMBER_UNARY_OPS(EMBER_PW_TRACED)
EMBER_BINARY_OPS(EMBER_PW_TRACED)
EMBER_TERNARY_OPS(EMBER_PW_TRACED)
#undef EMBER_PW_TRACED
}  // namespace

}  // namespace ember
