// The Airy function Ai (Cephes, as PyTorch: Note [Special functions follow PyTorch] in ember/ops/special_math.h).
#pragma once
#include <cmath>
#include <limits>

#include "ember/core/macros.h"
#include "ember/ops/special/common.h"

namespace ember::math {

// Ai(x): NaN at +-inf (as PyTorch), 0 above 103.892; asymptotic forms below -2.09 and from 2.09 up,
// the Maclaurin series between.
template <class T> EMBER_HD T airy_ai(T x) {
  using namespace special_detail;
  static constexpr double kAN[] = {
      3.46538101525629e-01, 1.2007595273964581e+01, 7.627960536152345e+01, 1.6808922493463058e+02,
      1.5975639135016442e+02, 7.053609068404442e+01, 1.4026469116338967e+01, 1.0e+00,
  };
  static constexpr double kAD[] = {
      5.675945326387702e-01, 1.475625625848472e+01, 8.451389701414746e+01, 1.7731808814540045e+02,
      1.642346928715297e+02, 7.147784008255756e+01, 1.4095913560783403e+01, 1.0e+00,
  };
  static constexpr double kAFN[] = {
      -1.316963234183318e-01, -6.264565444319123e-01, -6.931580360369335e-01, -2.797799815451191e-01,
      -4.919001326095003e-02, -4.062659235948854e-03, -1.592764962392621e-04, -2.776491081552329e-06,
      -1.6778769848911465e-08,
  };
  static constexpr double kAFD[] = {
      1.3356042070655324e+01, 3.2682503279522464e+01, 2.6736704094149957e+01, 9.187074029072596e+00,
      1.4752914677166642e+00, 1.1568717379518804e-01, 4.402916416152112e-03, 7.547203482874142e-05,
      4.5185009297058035e-07,
  };
  static constexpr double kAGN[] = {
      1.973399320916857e-02, 3.9110302961568827e-01, 1.0657989759959559e+00, 9.391692298166502e-01,
      3.5146565610554764e-01, 6.338889196289255e-02, 5.858041130483885e-03, 2.82851600836737e-04,
      6.98793669997261e-06, 8.117892395543892e-08, 3.415517847659236e-10,
  };
  static constexpr double kAGD[] = {
      9.30892908077442e+00, 1.9835292871831214e+01, 1.5564662893286462e+01, 5.476860694229755e+00,
      9.542936116189619e-01, 8.645808263523921e-02, 4.126565238242226e-03, 1.0125908511650914e-04,
      1.1716673321441352e-06, 4.9183457006293e-09,
  };
  const T kInvSqrtPi = T(5.64189583547756286948e-01);
  if (std::isinf(x)) return nan_v<T>();
  if (x > T(103.892)) return T(0);
  if (x < T(-2.09)) {
    const T zeta = T(-2) * x * std::sqrt(-x) / T(3);
    const T z = T(1) / zeta;
    const T zz = z * z;
    const T afn = polevl(zz, kAFN, 9), afd = polevl(zz, kAFD, 9);
    const T agn = polevl(zz, kAGN, 11), agd = polevl(zz, kAGD, 10);
    const T t = T(double(zeta) + 0.25 * kPi);  // (double, as PyTorch: M_PI)
    return kInvSqrtPi / std::sqrt(std::sqrt(-x)) *
           (std::sin(t) * (T(1) + z * z * afn / afd) - std::cos(t) * (z * agn / agd));
  }
  if (x >= T(2.09)) {
    const T zeta = T(2) * x * std::sqrt(x) / T(3);
    const T an = polevl(T(1) / zeta, kAN, 8), ad = polevl(T(1) / zeta, kAD, 8);
    return kInvSqrtPi * (an / ad) / (T(2) * std::sqrt(std::sqrt(x)) * std::exp(zeta));
  }
  // Ai(x) = c1 f(x) - c2 g(x), f and g the Maclaurin series in x^3; at least one term (NaN stops).
  T f = T(1), g = x, k = T(1), m = T(1), n = x, t;
  const T z = x * x * x;
  do {
    m *= z;
    k += T(1);
    m /= k;
    n *= z;
    k += T(1);
    n /= k;
    m /= k;
    f += m;
    k += T(1);
    n /= k;
    g += n;
    t = std::abs(m / f);
  } while (t > std::numeric_limits<T>::epsilon());
  return T(0.355028053887817239260) * f - T(0.258819403792806798405) * g;
}

}  // namespace ember::math
