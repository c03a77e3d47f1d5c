// The pointwise op table: one row per op is its whole definition (Note [Op definitions]):
//
//   _(name, functor, accepted input dtypes, result kind, api, saves, derivative)
//
// * functor: the math, a struct template in ember/ops/pointwise_ops.h, called on
//   compute-type values; ops/cpu/pointwise_kernels.cpp turns it into the CPU kernels.
// * accepted input dtypes: of the promoted inputs; others raise "not implemented for".
// * result kind: how the result dtype follows from the promoted input dtype (ResultKind,
//   ember/ops/op_def.h).
// * api: the public functions written from the row. FnMethod: ember::name(x), name_(x),
//   name_out(out, x) and the methods x.name(), x.name_(); Fn: those functions, no methods;
//   FnOut: name(...) and name_out(out, ...) only (ATen's special_* functions; a binary one
//   takes a number on either side too); Custom: written by hand (ops/pointwise.cpp,
//   ops/special.cpp), for ops with arguments or a different public name.
//   EMBER_UNARY_ALIASES adds other names for FnMethod ops.
// * saves: Inputs, Result, Both or Nothing: what the backward formula reads, the only
//   tensors the graph keeps (PyTorch saves the same, so an in-place change elsewhere does
//   not invalidate the graph).
// * derivative: for a unary op, f'(x) as an ember expression of x (the input), y (the
//   result) and a (the PointwiseArgs); the vjp is grad * conj(f'(x)), the jvp
//   tangent * f'(x). Otherwise own(vjp, jvp) (formulas in ops/pointwise_entries.cpp),
//   zero_derivative (piecewise constant), non_differentiable (the result never requires
//   grad, as PyTorch's non_differentiable outputs) or not_implemented (an error when
//   differentiated).
//
// ops/pointwise_entries.cpp expands each row into the op's OpDef with its derivatives;
// ops/functions.h, core/tensor.h, ops/pointwise.cpp and ops/tensor_methods.cpp expand the
// api column. Adding a pointwise op: a row here, its functor, and its cases in
// tests/golden/gen_golden.py.
//
// This header is only macros (no includes), so that core/tensor.h can declare the methods
// from it as LibTorch's TensorBody.h is generated from its op table.
#pragma once

#define EMBER_UNARY_OPS(_)                                                                                             \
  _(neg, Neg, kAllTypes - kBoolType, Same, FnMethod, Nothing, own(neg_vjp, neg_jvp))                                   \
  _(abs, Abs, kAllTypes - kBoolType, ToReal, FnMethod, Inputs, own(abs_vjp, abs_jvp))                                  \
  _(sign, Sign, kBoolType | kRealTypes, Same, FnMethod, Inputs, zero_derivative)                                      \
  _(sgn, Sgn, kAllTypes, Same, FnMethod, Both, own(sgn_vjp, sgn_jvp))                                                  \
  _(exp, Exp, kAllTypes, IntToFloat, FnMethod, Result, y)                                                              \
  _(exp2, Exp2, kAllTypes, IntToFloat, FnMethod, Result, y.mul(std::log(2.0)))                                         \
  _(expm1, Expm1, kAllTypes, IntToFloat, FnMethod, Result, y.add(1))                                                   \
  _(log, Log, kAllTypes, IntToFloat, FnMethod, Inputs, x.reciprocal())                                                 \
  _(log2, Log2, kAllTypes, IntToFloat, FnMethod, Inputs, x.mul(std::log(2.0)).reciprocal())                            \
  _(log10, Log10, kAllTypes, IntToFloat, FnMethod, Inputs, x.mul(std::log(10.0)).reciprocal())                         \
  _(log1p, Log1p, kAllTypes, IntToFloat, FnMethod, Inputs, x.add(1).reciprocal())                                      \
  _(sqrt, Sqrt, kAllTypes, IntToFloat, FnMethod, Result, y.mul(2).reciprocal())                                        \
  _(rsqrt, Rsqrt, kAllTypes, IntToFloat, FnMethod, Result, y.pow(3).mul(-0.5))                                         \
  _(sin, Sin, kAllTypes, IntToFloat, FnMethod, Inputs, x.cos())                                                        \
  _(cos, Cos, kAllTypes, IntToFloat, FnMethod, Inputs, x.sin().neg())                                                  \
  _(tan, Tan, kAllTypes, IntToFloat, FnMethod, Result, y.square().add(1))                                              \
  _(asin, Asin, kAllTypes, IntToFloat, FnMethod, Inputs, x.square().neg().add(1).rsqrt())                              \
  _(acos, Acos, kAllTypes, IntToFloat, FnMethod, Inputs, x.square().neg().add(1).rsqrt().neg())                        \
  _(atan, Atan, kAllTypes, IntToFloat, FnMethod, Inputs, x.square().add(1).reciprocal())                               \
  _(sinh, Sinh, kAllTypes, IntToFloat, FnMethod, Inputs, x.cosh())                                                     \
  _(cosh, Cosh, kAllTypes, IntToFloat, FnMethod, Inputs, x.sinh())                                                     \
  _(tanh, Tanh, kAllTypes, IntToFloat, FnMethod, Result, y.square().neg().add(1))                                      \
  _(asinh, Asinh, kAllTypes, IntToFloat, FnMethod, Inputs, x.square().add(1).rsqrt())                                  \
  _(acosh, Acosh, kAllTypes, IntToFloat, FnMethod, Inputs, x.square().sub(1).rsqrt())                                  \
  _(atanh, Atanh, kAllTypes, IntToFloat, FnMethod, Inputs, x.square().neg().add(1).reciprocal())                       \
  _(sigmoid, Sigmoid, kAllTypes, IntToFloat, FnMethod, Result, y.mul(y.neg().add(1)))                                  \
  _(erf, Erf, kBoolType | kRealTypes, IntToFloat, FnMethod, Inputs, x.square().neg().exp().mul(2.0 / std::sqrt(kPi)))  \
  _(erfc, Erfc, kBoolType | kRealTypes, IntToFloat, FnMethod, Inputs, x.square().neg().exp().mul(-2.0 / std::sqrt(kPi))) \
  _(erfinv, Erfinv, kBoolType | kRealTypes, IntToFloat, FnMethod, Result, y.square().exp().mul(std::sqrt(kPi) / 2))    \
  _(lgamma, Lgamma, kBoolType | kRealTypes, IntToFloat, FnMethod, Inputs, x.digamma())                                 \
  _(digamma, Digamma, kBoolType | kRealTypes, IntToFloat, FnMethod, Inputs, trigamma(x))                               \
  _(i0, I0, kBoolType | kRealTypes, IntToFloat, FnMethod, Inputs, bessel_i1(x))                                        \
  _(reciprocal, Reciprocal, kAllTypes, IntToFloat, FnMethod, Result, y.square().neg())                                 \
  _(floor, Floor, kRealTypes, Same, FnMethod, Inputs, zero_derivative)                                                \
  _(ceil, Ceil, kRealTypes, Same, FnMethod, Inputs, zero_derivative)                                                  \
  _(trunc, Trunc, kRealTypes, Same, FnMethod, Inputs, zero_derivative)                                                \
  _(frac, Frac, kFloatingTypes, Same, FnMethod, Inputs, ones_like(x))                                                  \
  _(relu, Relu, kRealTypes, Same, FnMethod, Result, own(relu_vjp, relu_jvp))                                           \
  _(square, Square, kAllTypes - kBoolType, Same, Custom, Inputs, x.mul(2))                                             \
  _(logical_not, LogicalNot, kAllTypes, Bool, FnMethod, Nothing, non_differentiable)                                   \
  _(bitwise_not, BitwiseNot, kBoolType | kIntegralTypes, Same, FnMethod, Nothing, non_differentiable)                  \
  _(sinc, Sinc, kAllTypes, IntToFloat, FnMethod, Inputs, d_sinc(x))                                                    \
  _(deg2rad, Deg2rad, kBoolType | kRealTypes, IntToFloat, FnMethod, Inputs, full_like(x, kPi / 180))                   \
  _(rad2deg, Rad2deg, kBoolType | kRealTypes, IntToFloat, FnMethod, Inputs, full_like(x, 180 / kPi))                   \
  _(isnan, IsNan, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                                \
  _(isinf, IsInf, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                                \
  _(isposinf, IsPosInf, kBoolType | kRealTypes, Bool, Custom, Nothing, non_differentiable)                             \
  _(isneginf, IsNegInf, kBoolType | kRealTypes, Bool, Custom, Nothing, non_differentiable)                             \
  _(isfinite, IsFinite, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                          \
  _(signbit, SignBit, kBoolType | kRealTypes, Bool, Custom, Nothing, non_differentiable)                               \
  _(angle, Angle, kAllTypes, IntToFloatToReal, Custom, Inputs, own(angle_vjp, angle_jvp))                              \
  _(conj_physical, Conj, kAllTypes, Same, Custom, Nothing, own(conj_vjp, conj_jvp))                                    \
  _(silu, Silu, kFloatingAndComplexTypes, Same, Fn, Inputs, d_silu(x))                                                 \
  _(mish, Mish, kFloatingTypes, Same, Fn, Inputs, d_mish(x))                                                           \
  _(hardsigmoid, Hardsigmoid, kFloatingTypes, Same, Fn, Inputs, x.gt(-3).logical_and(x.lt(3)).to(x.scalar_type()).div(6)) \
  _(hardswish, Hardswish, kFloatingTypes, Same, Fn, Inputs, d_hardswish(x))                                            \
  _(selu, Selu, kFloatingTypes, Same, Fn, Inputs, d_selu(x))                                                           \
  _(round, Round, kRealTypes, Same, Custom, Inputs, zero_derivative)                                                  \
  _(nan_to_num, NanToNum, kBoolType | kRealTypes, Same, Custom, Inputs, x.isfinite().to(x.scalar_type()))              \
  _(logit, Logit, kBoolType | kRealTypes, IntToFloat, Custom, Inputs, d_logit(x, a))                                   \
  _(gelu, Gelu, kFloatingTypes, Same, Custom, Inputs, d_gelu(x, a))                                                    \
  _(softplus, Softplus, kFloatingTypes, Same, Custom, Inputs, d_softplus(x, a))                                        \
  _(hardtanh, Hardtanh, kRealTypes, Same, Custom, Inputs, x.gt(a.s[0]).logical_and(x.lt(a.s[1])).to(x.scalar_type()))  \
  _(leaky_relu, LeakyRelu, kFloatingTypes, Same, Custom, Inputs, d_leaky_relu(x, a))                                   \
  _(elu, Elu, kFloatingTypes, Same, Custom, Inputs, d_elu(x, a))                                                       \
  _(softshrink, Softshrink, kFloatingTypes, Same, Custom, Inputs, x.abs().gt(a.s[0]).to(x.scalar_type()))              \
  _(hardshrink, Hardshrink, kFloatingTypes, Same, Custom, Inputs, x.abs().gt(a.s[0]).to(x.scalar_type()))              \
  _(threshold, Threshold, kRealTypes, Same, Custom, Inputs, x.gt(a.s[0]).to(x.scalar_type()))                          \
  _(clamp_scalar, ClampScalar, kRealTypes, Same, Custom, Inputs, d_clamp(x, a))                                        \
  _(special_bessel_j0, BesselJ0, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)                      \
  _(special_bessel_j1, BesselJ1, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)                      \
  _(special_bessel_y0, BesselY0, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)                      \
  _(special_bessel_y1, BesselY1, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)                      \
  _(special_modified_bessel_i0, ModifiedBesselI0, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)     \
  _(special_modified_bessel_i1, ModifiedBesselI1, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)     \
  _(special_modified_bessel_k0, ModifiedBesselK0, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)     \
  _(special_modified_bessel_k1, ModifiedBesselK1, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)     \
  _(special_scaled_modified_bessel_k0, ScaledModifiedBesselK0, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable) \
  _(special_scaled_modified_bessel_k1, ScaledModifiedBesselK1, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable) \
  _(special_i0e, I0e, kFloatingTypes, IntToFloat, FnOut, Both, special_i1e(x).sub(x.sgn().mul(y)))                    \
  _(special_i1, I1, kFloatingTypes, IntToFloat, FnOut, Both, d_i1(x, y))                                              \
  _(special_i1e, I1e, kFloatingTypes, IntToFloat, FnOut, Both, d_i1e(x, y))                                           \
  _(special_airy_ai, AiryAi, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)                          \
  _(special_spherical_bessel_j0, SphericalBesselJ0, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)   \
  _(special_erfcx, Erfcx, kFloatingTypes, IntToFloat, FnOut, Both, x.mul(y).mul(2).sub(2.0 / std::sqrt(kPi)))         \
  _(special_log_ndtr, LogNdtr, kFloatingTypes, IntToFloat, FnOut, Both, y.add(x.square().div(2)).neg().exp().div(std::sqrt(2 * kPi))) \
  _(special_entr, Entr, kFloatingTypes, IntToFloat, FnOut, Inputs, x.log().add(1).neg())                               \
  _(special_ndtri, Ndtri, kFloatingTypes, IntToFloat, FnOut, Both, y.square().div(2).exp().mul(std::sqrt(2 * kPi)))   \
  _(polygamma, Polygamma, kFloatingTypes, IntToFloat, Custom, Inputs, polygamma(a.s[0].toLong() + 1, x))

#define EMBER_BINARY_OPS(_)                                                                                            \
  _(add, Add, kAllTypes, Same, Custom, Nothing, own(add_vjp, add_jvp))                                                 \
  _(sub, Sub, kAllTypes - kBoolType, Same, Custom, Nothing, own(sub_vjp, sub_jvp))                                     \
  _(mul, Mul, kAllTypes, Same, Custom, Inputs, own(mul_vjp, mul_jvp))                                                  \
  _(div_true, Div, kAllTypes, IntToFloat, Custom, Both, own(div_vjp, div_jvp))                                         \
  _(div_trunc, DivTrunc, kRealTypes, Same, Custom, Inputs, zero_derivative)                                           \
  _(div_floor, DivFloor, kRealTypes, Same, Custom, Inputs, zero_derivative)                                           \
  _(remainder, Remainder, kRealTypes, Same, Custom, Inputs, own(remainder_vjp, remainder_jvp))                         \
  _(fmod, Fmod, kRealTypes, Same, Custom, Inputs, own(fmod_vjp, fmod_jvp))                                             \
  _(pow, Pow, kAllTypes - kBoolType, Same, Custom, Both, own(pow_vjp, pow_jvp))                                                    \
  _(atan2, Atan2, kBoolType | kRealTypes, IntToFloat, Custom, Inputs, own(atan2_vjp, atan2_jvp))                       \
  _(hypot, Hypot, kFloatingTypes, Same, Custom, Both, own(hypot_vjp, hypot_jvp))                                       \
  _(copysign, Copysign, kBoolType | kRealTypes, IntToFloat, Custom, Both, own(copysign_vjp, copysign_jvp))             \
  _(nextafter, Nextafter, kFloatingTypes - DtypeSet{kHalf}, Same, Custom, Nothing, not_implemented)                    \
  _(xlogy, Xlogy, kBoolType | kRealTypes, IntToFloat, Custom, Inputs, own(xlogy_vjp, xlogy_jvp))                       \
  _(maximum, Maximum, kBoolType | kRealTypes, Same, Custom, Inputs, own(select_vjp<true>, select_jvp<true>))           \
  _(minimum, Minimum, kBoolType | kRealTypes, Same, Custom, Inputs, own(select_vjp<false>, select_jvp<false>))         \
  _(fmax, Fmax, kBoolType | kRealTypes, Same, Custom, Inputs, own(select_vjp<true>, select_jvp<true>))                 \
  _(fmin, Fmin, kBoolType | kRealTypes, Same, Custom, Inputs, own(select_vjp<false>, select_jvp<false>))               \
  _(eq, Eq, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                                      \
  _(ne, Ne, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                                      \
  _(lt, Lt, kBoolType | kRealTypes, Bool, Custom, Nothing, non_differentiable)                                         \
  _(le, Le, kBoolType | kRealTypes, Bool, Custom, Nothing, non_differentiable)                                         \
  _(gt, Gt, kBoolType | kRealTypes, Bool, Custom, Nothing, non_differentiable)                                         \
  _(ge, Ge, kBoolType | kRealTypes, Bool, Custom, Nothing, non_differentiable)                                         \
  _(logical_and, LogicalAnd, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                     \
  _(logical_or, LogicalOr, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                       \
  _(logical_xor, LogicalXor, kAllTypes, Bool, Custom, Nothing, non_differentiable)                                     \
  _(bitwise_and, BitwiseAnd, kBoolType | kIntegralTypes, Same, Custom, Nothing, non_differentiable)                    \
  _(bitwise_or, BitwiseOr, kBoolType | kIntegralTypes, Same, Custom, Nothing, non_differentiable)                      \
  _(bitwise_xor, BitwiseXor, kBoolType | kIntegralTypes, Same, Custom, Nothing, non_differentiable)                    \
  _(bitwise_left_shift, LeftShift, kIntegralTypes, Same, Custom, Nothing, non_differentiable)                          \
  _(bitwise_right_shift, RightShift, kIntegralTypes, Same, Custom, Nothing, non_differentiable)                        \
  _(lerp_scalar, LerpScalar, kFloatingAndComplexTypes, Same, Custom, Nothing, own(lerp_scalar_vjp, lerp_scalar_jvp))   \
  _(special_chebyshev_polynomial_t, ChebyshevT, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)       \
  _(special_chebyshev_polynomial_u, ChebyshevU, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)       \
  _(special_chebyshev_polynomial_v, ChebyshevV, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)       \
  _(special_chebyshev_polynomial_w, ChebyshevW, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)       \
  _(special_shifted_chebyshev_polynomial_t, ShiftedChebyshevT, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable) \
  _(special_shifted_chebyshev_polynomial_u, ShiftedChebyshevU, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable) \
  _(special_shifted_chebyshev_polynomial_v, ShiftedChebyshevV, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable) \
  _(special_shifted_chebyshev_polynomial_w, ShiftedChebyshevW, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable) \
  _(special_hermite_polynomial_h, HermiteH, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)           \
  _(special_hermite_polynomial_he, HermiteHe, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)         \
  _(special_laguerre_polynomial_l, LaguerreL, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)         \
  _(special_legendre_polynomial_p, LegendreP, kFloatingTypes, IntToFloat, FnOut, Nothing, non_differentiable)         \
  _(igamma, Igamma, kFloatingTypes, Same, Custom, Inputs, own(igamma_vjp<1>, igamma_jvp<1>))                     \
  _(igammac, Igammac, kFloatingTypes, Same, Custom, Inputs, own(igamma_vjp<-1>, igamma_jvp<-1>))                 \
  _(special_zeta, Zeta, kFloatingTypes, IntToFloat, FnOut, Inputs, own(zeta_vjp, zeta_jvp))

#define EMBER_TERNARY_OPS(_)                                                                                           \
  _(lerp_tensor, LerpTensor, kFloatingAndComplexTypes, Same, Custom, Inputs, own(lerp_tensor_vjp, lerp_tensor_jvp))    \
  _(addcmul, Addcmul, kAllTypes - kBoolType, Same, Custom, Inputs, own(addcmul_vjp, addcmul_jvp))                      \
  _(addcdiv, Addcdiv, kFloatingAndComplexTypes, Same, Custom, Inputs, own(addcdiv_vjp, addcdiv_jvp))                   \
  _(clamp_tensor, ClampTensor, kRealTypes, Same, Custom, Inputs, own(clamp_tensor_vjp, clamp_tensor_jvp))
// Other public names of FnMethod ops: _(alias, op), with the op's functions and methods.
#define EMBER_UNARY_ALIASES(_) \
  _(negative, neg) _(absolute, abs) _(arcsin, asin) _(arccos, acos) _(arctan, atan) _(arcsinh, asinh) \
  _(arccosh, acosh) _(arctanh, atanh) _(fix, trunc)

// The api column, expanded: EMBER_FOR_EACH_UNARY_FN() calls EMBER_PW_FN(public name, op)
// for every function family written from the table (rows with Fn or FnMethod, and the
// aliases), EMBER_FOR_EACH_UNARY_METHOD() calls EMBER_PW_METHOD(public name, op) for every
// method pair, EMBER_FOR_EACH_{UNARY,BINARY}_FN_OUT() calls EMBER_PW_FN_OUT(name) for the
// FnOut rows. The caller defines EMBER_PW_FN / EMBER_PW_METHOD / EMBER_PW_FN_OUT around
// the expansion.
#define EMBER_FOR_EACH_UNARY_FN() EMBER_UNARY_OPS(EMBER_PW_FN_ROW_) EMBER_UNARY_ALIASES(EMBER_PW_FN)
#define EMBER_FOR_EACH_UNARY_METHOD() EMBER_UNARY_OPS(EMBER_PW_METHOD_ROW_) EMBER_UNARY_ALIASES(EMBER_PW_METHOD)
#define EMBER_PW_FN_ROW_(name, F, dtypes, kind, api, ...) EMBER_PW_FN_IF_##api(name)
#define EMBER_PW_FN_IF_Fn(name) EMBER_PW_FN(name, name)
#define EMBER_PW_FN_IF_FnMethod(name) EMBER_PW_FN(name, name)
#define EMBER_PW_FN_IF_FnOut(name)
#define EMBER_PW_FN_IF_Custom(name)
#define EMBER_PW_METHOD_ROW_(name, F, dtypes, kind, api, ...) EMBER_PW_METHOD_IF_##api(name)
#define EMBER_PW_METHOD_IF_Fn(name)
#define EMBER_PW_METHOD_IF_FnMethod(name) EMBER_PW_METHOD(name, name)
#define EMBER_PW_METHOD_IF_FnOut(name)
#define EMBER_PW_METHOD_IF_Custom(name)
#define EMBER_FOR_EACH_UNARY_FN_OUT() EMBER_UNARY_OPS(EMBER_PW_FN_OUT_ROW_)
#define EMBER_FOR_EACH_BINARY_FN_OUT() EMBER_BINARY_OPS(EMBER_PW_FN_OUT_ROW_)
#define EMBER_PW_FN_OUT_ROW_(name, F, dtypes, kind, api, ...) EMBER_PW_FN_OUT_IF_##api(name)
#define EMBER_PW_FN_OUT_IF_Fn(name)
#define EMBER_PW_FN_OUT_IF_FnMethod(name)
#define EMBER_PW_FN_OUT_IF_FnOut(name) EMBER_PW_FN_OUT(name)
#define EMBER_PW_FN_OUT_IF_Custom(name)
