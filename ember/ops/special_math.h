// Scalar special functions of torch::special that math.h lacks (Bessel, Airy, orthogonal polynomials,
// erfcx and the normal distribution, incomplete gamma, polygamma, Hurwitz zeta) on float and double:
// PyTorch 1.13's CPU algorithms, one element at a time, for the pointwise op table and later CUDA.
//
// The functions live in ember/ops/special/, one header per family; this header includes them all.
#pragma once

#include "ember/ops/special/common.h"
#include "ember/ops/special/bessel.h"
#include "ember/ops/special/airy.h"
#include "ember/ops/special/orthogonal_polynomials.h"
#include "ember/ops/special/error_function.h"
#include "ember/ops/special/incomplete_gamma.h"
#include "ember/ops/special/gamma.h"

// Note [Special functions follow PyTorch]
// Each function is the algorithm of PyTorch 1.13.1's CPU kernel (aten/src/ATen/native/Math.h, which
// takes it from Cephes, SciPy, Boost and Faddeeva; the coefficient tables in ember/ops/special/ are
// their published numbers), re-expressed, with:
//  - the same branches, thresholds and special values (NaN, +-inf, poles, edges of the domain);
//  - the same working precision: T = float is computed in float wherever PyTorch computes in float,
//    and in double exactly where PyTorch's expression promotes (a double literal or M_PI in it, a call
//    to the global ::exp, ::log, ::sqrt or ::lgamma, which have only double overloads there, the double
//    accumulate type of zeta); those places are marked "(double, as PyTorch)";
//  - the same order of operations, so that GCC contracts the same a * b + c into FMAs.
// Compiled by GCC, the results are then PyTorch's bit for bit: without FMA (ember's default kernels)
// those of PyTorch's baseline kernels (ATEN_CPU_CAPABILITY=default), with FMA (x86-64-v4) those of its
// AVX2 and AVX512 kernels. The exception is ndtr, which PyTorch composes from its vectorized erf (Sleef
// for double): it can differ from std::erf by an ulp, which 1 + erf(x) magnifies for x < -2.
// Arguments outside a domain give NaN, as PyTorch's kernels do, except polygamma's negative n, which
// PyTorch rejects before its kernel (the op must check it; here it gives NaN).
