// Bessel functions: J0, J1, Y0, Y1, the modified I0, I1, K0, K1 and their scaled forms, and the
// spherical j0 (Cephes, as PyTorch: Note [Special functions follow PyTorch] in ember/ops/special_math.h).
#pragma once
#include <cmath>

#include "ember/core/macros.h"
#include "ember/ops/special/common.h"

namespace ember::math {
namespace special_detail {

// ---- tables shared by several functions (Cephes i0, i1, k0, k1) ----

// exp(-x) I0(x) on [0, 8], Chebyshev in x / 2 - 2 (30 terms).
EMBER_HD const double* i0e_a() {
  static constexpr double k[] = {
      -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
      -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
      -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
      -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
      -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 1.8850288509584165e-04,
      -5.763755745385824e-04, 1.6394756169413357e-03, -4.324309995050576e-03, 1.0546460394594998e-02,
      -2.373741480589947e-02, 4.930528423967071e-02, -9.490109704804764e-02, 1.7162090152220877e-01,
      -3.046826723431984e-01, 6.767952744094761e-01,
  };
  return k;
}
// exp(-x) sqrt(x) I0(x) on [8, inf), Chebyshev in 32 / x - 2 (25 terms).
EMBER_HD const double* i0e_b() {
  static constexpr double k[] = {
      -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
      -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15,
      -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
      7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
      1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
      2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 3.3691164782556943e-03,
      8.044904110141088e-01,
  };
  return k;
}
// exp(-x) I1(x) / x on [0, 8] (29 terms; PyTorch's float i1 and i1e use the last 17).
EMBER_HD const double* i1e_a() {
  static constexpr double k[] = {
      2.7779141127610464e-18, -2.111421214358166e-17, 1.5536319577362005e-16, -1.1055969477353862e-15,
      7.600684294735408e-15, -5.042185504727912e-14, 3.223793365945575e-13, -1.9839743977649436e-12,
      1.1736186298890901e-11, -6.663489723502027e-11, 3.625590281552117e-10, -1.8872497517228294e-09,
      9.381537386495773e-09, -4.445059128796328e-08, 2.0032947535521353e-07, -8.568720264695455e-07,
      3.4702513081376785e-06, -1.3273163656039436e-05, 4.781565107550054e-05, -1.6176081582589674e-04,
      5.122859561685758e-04, -1.5135724506312532e-03, 4.156422944312888e-03, -1.0564084894626197e-02,
      2.4726449030626516e-02, -5.294598120809499e-02, 1.026436586898471e-01, -1.7641651835783406e-01,
      2.5258718644363365e-01,
  };
  return k;
}
// exp(-x) sqrt(x) I1(x) on [8, inf) (25 terms; PyTorch's float i1 and i1e use the last 7).
EMBER_HD const double* i1e_b() {
  static constexpr double k[] = {
      7.517296310842105e-18, 4.414348323071708e-18, -4.6503053684893586e-17, -3.209525921993424e-17,
      2.96262899764595e-16, 3.3082023109209285e-16, -1.8803547755107825e-15, -3.8144030724370075e-15,
      1.0420276984128802e-14, 4.272440016711951e-14, -2.1015418427726643e-14, -4.0835511110921974e-13,
      -7.198551776245908e-13, 2.0356285441470896e-12, 1.4125807436613782e-11, 3.2526035830154884e-11,
      -1.8974958123505413e-11, -5.589743462196584e-10, -3.835380385964237e-09, -2.6314688468895196e-08,
      -2.512236237870209e-07, -3.882564808877691e-06, -1.1058893876262371e-04, -9.761097491361469e-03,
      7.785762350182801e-01,
  };
  return k;
}
// K0(x) + log(x / 2) I0(x) on (0, 2], Chebyshev in x^2 - 2 (10 terms).
EMBER_HD const double* k0_a() {
  static constexpr double k[] = {
      1.374465435613523e-16, 4.25981614279661e-14, 1.0349695257633842e-11, 1.904516377220209e-09,
      2.5347910790261494e-07, 2.286212103119452e-05, 1.264615411446926e-03, 3.59799365153615e-02,
      3.442898999246285e-01, -5.353273932339028e-01,
  };
  return k;
}
// exp(x) sqrt(x) K0(x) on (2, inf), Chebyshev in 8 / x - 2 (25 terms).
EMBER_HD const double* k0_b() {
  static constexpr double k[] = {
      5.300433772686263e-18, -1.6475804301524212e-17, 5.2103915050390274e-17, -1.678231096805412e-16,
      5.512055978524319e-16, -1.848593377343779e-15, 6.3400764774050706e-15, -2.2275133269916698e-14,
      8.032890775363575e-14, -2.9800969231727303e-13, 1.140340588208475e-12, -4.514597883373944e-12,
      1.8559491149547177e-11, -7.957489244477107e-11, 3.577397281400301e-10, -1.69753450938906e-09,
      8.574034017414225e-09, -4.660489897687948e-08, 2.766813639445015e-07, -1.8317555227191195e-06,
      1.39498137188765e-05, -1.2849549581627802e-04, 1.5698838857300533e-03, -3.14481013119645e-02,
      2.4403030820659555e+00,
  };
  return k;
}
// x (K1(x) - log(x / 2) I1(x)) on (0, 2] (11 terms).
EMBER_HD const double* k1_a() {
  static constexpr double k[] = {
      -7.023863479386288e-18, -2.427449850519366e-15, -6.666901694199329e-13, -1.4114883926335278e-10,
      -2.213387630734726e-08, -2.4334061415659684e-06, -1.730288957513052e-04, -6.975723859639864e-03,
      -1.2261118082265715e-01, -3.531559607765449e-01, 1.5253002273389478e+00,
  };
  return k;
}
// exp(x) sqrt(x) K1(x) on (2, inf) (25 terms).
EMBER_HD const double* k1_b() {
  static constexpr double k[] = {
      -5.756744483665017e-18, 1.7940508731475592e-17, -5.689462558442859e-17, 1.838093544366639e-16,
      -6.057047248373319e-16, 2.038703165624334e-15, -7.019837090418314e-15, 2.4771544244813043e-14,
      -8.976705182324994e-14, 3.3484196660784293e-13, -1.2891739609510289e-12, 5.13963967348173e-12,
      -2.1299678384275683e-11, 9.218315187605006e-11, -4.1903547593418965e-10, 2.015049755197033e-09,
      -1.0345762465678097e-08, 5.7410841254500495e-08, -3.5019606030878126e-07, 2.406484947837217e-06,
      -1.936197974166083e-05, 1.9521551847135162e-04, -2.857816859622779e-03, 1.0392373657681724e-01,
      2.7206261904844427e+00,
  };
  return k;
}

// The Hankel asymptotic form of J0, Y0 (order 0) and J1, Y1 (order 1) for x > 5: P and Q are
// rational functions of w = (5 / x)^2, written as PyTorch writes each (25 / x^2 for order 0).
EMBER_HD const double* bessel_pq(int order, int which) {
  static constexpr double k0[4][8] = {
      {
          7.969367292973471e-04, 8.283523921074408e-02, 1.239533716464143e+00, 5.447250030587687e+00,
          8.74716500199817e+00, 5.303240382353949e+00, 1.0e+00,
      },
      {
          9.244088105588637e-04, 8.562884743544745e-02, 1.2535274390105895e+00, 5.470977403304171e+00,
          8.761908832370695e+00, 5.306052882353947e+00, 1.0e+00,
      },
      {
          -1.1366383889846916e-02, -1.2825271867050931e+00, -1.9553954425773597e+01, -9.320601521237683e+01,
          -1.7768116798048806e+02, -1.4707750515495118e+02, -5.141053267665993e+01, -6.050143506007285e+00,
      },
      {
          6.43178256118178e+01, 8.564300259769806e+02, 3.8824018360540163e+03, 7.240467741956525e+03,
          5.930727011873169e+03, 2.0620933166032783e+03, 2.420057402402914e+02,
      },
  };
  static constexpr double k1[4][8] = {
      {
          7.621256162081731e-04, 7.313970569409176e-02, 1.1271960812968493e+00, 5.112079511468076e+00,
          8.424045901417724e+00, 5.214515986823615e+00, 1.0e+00,
      },
      {
          5.713231280725487e-04, 6.884559087544954e-02, 1.105142326340617e+00, 5.073863861286015e+00,
          8.399855543276042e+00, 5.209828486823619e+00, 1.0e+00,
      },
      {
          5.108625947501766e-02, 4.982138729512334e+00, 7.582382841325453e+01, 3.667796093601508e+02,
          7.108563049989261e+02, 5.974896124006136e+02, 2.1168875710057213e+02, 2.5207020585802372e+01,
      },
      {
          7.423732770356752e+01, 1.0564488603826283e+03, 4.986410583376536e+03, 9.562318924047562e+03,
          7.997041604473507e+03, 2.8261927851763908e+03, 3.360936078106983e+02,
      },
  };
  return order == 0 ? k0[which] : k1[which];
}

// J (y = false) or Y (y = true) of order 0 or 1 for x > 5.
template <class T> EMBER_HD T bessel_asymptotic(T x, int order, bool y) {
  const T w = order == 0 ? T(25) / (x * x) : T(5) / x * (T(5) / x);
  const T p = polevl(w, bessel_pq(order, 0), 7) / polevl(w, bessel_pq(order, 1), 7);
  const T q = polevl(w, bessel_pq(order, 2), 8) / polevl(w, bessel_pq(order, 3), 7);
  // x - pi/4 (order 0) or x - 3 pi/4 (order 1).
  const T s = x - (order == 0 ? T(0.785398163397448309615660845819875721)
                               : T(2.356194490192344928846982537459627163));
  const T v = y ? p * std::sin(s) + T(5) / x * q * std::cos(s) : p * std::cos(s) - T(5) / x * q * std::sin(s);
  return v * T(0.797884560802865355879892119868763737) / std::sqrt(x);  // sqrt(2 / pi)
}

}  // namespace special_detail

// ---- Bessel functions of the first and second kind (Cephes j0, j1, y0, y1) ----

template <class T> EMBER_HD T bessel_j0(T x) {
  using namespace special_detail;
  static constexpr double kRP[] = {
      -4.794432209782018e+09, 1.9561749194655657e+12, -2.4924834436096772e+14, 9.708622510473064e+15,
  };
  static constexpr double kRQ[] = {
      4.99563147152651e+02, 1.737854016763747e+05, 4.844096583399621e+07, 1.1185553704535683e+10,
      2.112775201154892e+12, 3.1051822985742256e+14, 3.1812195594320496e+16, 1.7108629408104315e+18,
  };
  if (x < T(0)) x = -x;
  if (x <= T(5)) {
    if (x < T(0.00001)) return T(1) - x * x / T(4);
    const T z = x * x;
    // (x^2 - j01^2)(x^2 - j02^2) R(x^2), j0k the zeros of J0.
    return (z - T(5.78318596294678452118e+00)) * (z - T(3.04712623436620863991e+01)) * polevl(z, kRP, 4) /
           polevl(z, kRQ, 8);
  }
  return bessel_asymptotic(x, 0, false);
}

template <class T> EMBER_HD T bessel_j1(T x) {
  using namespace special_detail;
  static constexpr double kRP[] = {
      -8.999712257055594e+08, 4.5222829799819403e+11, -7.274942452218183e+13, 3.682957328638529e+15,
  };
  static constexpr double kRQ[] = {
      6.208364781180543e+02, 2.5698725675774884e+05, 8.351467914319493e+07, 2.215115954797925e+10,
      4.749141220799914e+12, 7.843696078762359e+14, 8.952223361846274e+16, 5.322786203326801e+18,
  };
  const bool negative = x < T(0);  // J1 is odd
  if (negative) x = -x;
  T r;
  if (x <= T(5)) {
    const T z = x * x;
    r = polevl(z, kRP, 4) / polevl(z, kRQ, 8) * x * (z - T(1.46819706421238932572e+01)) *
        (z - T(4.92184563216946036703e+01));
  } else {
    r = bessel_asymptotic(x, 1, false);
  }
  return negative ? -r : r;
}

// Y0: -inf at 0, NaN below.
template <class T> EMBER_HD T bessel_y0(T x) {
  using namespace special_detail;
  static constexpr double kYP[] = {
      1.5592436785523574e+04, -1.466392959039716e+07, 5.435264770518765e+09, -9.821360657179115e+11,
      8.75906394395367e+13, -3.466283033847297e+15, 4.4273326857256984e+16, -1.8495080043698668e+16,
  };
  static constexpr double kYQ[] = {
      1.0412835366425984e+03, 6.26107330137135e+05, 2.6891963339381415e+08, 8.64002487103935e+10,
      2.0297961275010555e+13, 3.1715775284297505e+15, 2.5059625617265306e+17,
  };
  if (x <= T(5)) {
    if (x == T(0)) return -inf_v<T>();
    if (x < T(0)) return nan_v<T>();
    const T z = x * x;
    return polevl(z, kYP, 8) / polevl(z, kYQ, 7) +
           (T(0.636619772367581343075535053490057448) * std::log(x) * bessel_j0(x));  // 2 / pi
  }
  return bessel_asymptotic(x, 0, true);
}

// Y1: -inf at 0, NaN below.
template <class T> EMBER_HD T bessel_y1(T x) {
  using namespace special_detail;
  static constexpr double kYP[] = {
      1.2632047479017804e+09, -6.473558763791603e+11, 1.1450951154182373e+14, -8.127702555013251e+15,
      2.024394757135949e+17, -7.788771962659501e+17,
  };
  static constexpr double kYQ[] = {
      5.943015923461282e+02, 2.3556409294306856e+05, 7.348119444597217e+07, 1.8760131610870617e+10,
      3.8823127749623857e+12, 6.205577271469538e+14, 6.871410873553005e+16, 3.9727060811656064e+18,
  };
  if (x <= T(5)) {
    if (x == T(0)) return -inf_v<T>();
    if (x <= T(0)) return nan_v<T>();
    const T z = x * x;
    return x * (polevl(z, kYP, 6) / polevl(z, kYQ, 8)) +
           (T(0.636619772367581343075535053490057448) * (bessel_j1(x) * std::log(x) - T(1) / x));
  }
  return bessel_asymptotic(x, 1, true);
}

// ---- modified Bessel functions (Cephes i0, i1, k0, k1 and their scaled forms) ----

template <class T> EMBER_HD T modified_bessel_i0(T x) {
  using namespace special_detail;
  const T ax = std::abs(x);
  if (ax <= T(8)) return std::exp(ax) * chbevl(ax / T(2) - T(2), i0e_a(), 30);
  return std::exp(ax) * chbevl(T(32) / ax - T(2), i0e_b(), 25) / std::sqrt(ax);
}

template <class T> EMBER_HD T modified_bessel_i1(T x) {
  using namespace special_detail;
  const T ax = std::abs(x);
  if (ax <= T(8)) {
    const T c = chbevl(ax / T(2) - T(2), i1e_a(), 29);
    if (x < T(0)) return -(c * ax * std::exp(ax));
    return c * ax * std::exp(ax);
  }
  const T c = chbevl(T(32) / ax - T(2), i1e_b(), 25);
  if (x < T(0)) return -(std::exp(ax) * c / std::sqrt(ax));
  return std::exp(ax) * c / std::sqrt(ax);
}

// K0: +inf at 0, NaN below.
template <class T> EMBER_HD T modified_bessel_k0(T x) {
  using namespace special_detail;
  if (x == T(0)) return inf_v<T>();
  if (x < T(0)) return nan_v<T>();
  if (x <= T(2)) {
    const T c = chbevl(x * x - T(2), k0_a(), 10);
    return T(double(c) - std::log(0.5 * double(x)) * double(modified_bessel_i0(x)));  // (double, as PyTorch)
  }
  return std::exp(-x) * chbevl(T(8) / x - T(2), k0_b(), 25) / std::sqrt(x);
}

// K1: +inf at 0, NaN below.
template <class T> EMBER_HD T modified_bessel_k1(T x) {
  using namespace special_detail;
  if (x == T(0)) return inf_v<T>();
  if (x < T(0)) return nan_v<T>();
  if (x <= T(2)) {
    // The series first, so that GCC contracts log(x / 2) I1(x) + c into one FMA as it does in PyTorch
    // (whose series loop it unrolls), where the target has FMA.
    const T c = chbevl(x * x - T(2), k1_a(), 11) / x;
    return std::log(T(0.5) * x) * modified_bessel_i1(x) + c;
  }
  return std::exp(-x) * chbevl(T(8) / x - T(2), k1_b(), 25) / std::sqrt(x);
}

// exp(x) K0(x): +inf at 0, NaN below.
template <class T> EMBER_HD T scaled_modified_bessel_k0(T x) {
  using namespace special_detail;
  if (x == T(0)) return inf_v<T>();
  if (x < T(0)) return nan_v<T>();
  if (x <= T(2)) {
    return (chbevl(x * x - T(2), k0_a(), 10) - std::log(T(0.5) * x) * modified_bessel_i0(x)) * std::exp(x);
  }
  return chbevl(T(8) / x - T(2), k0_b(), 25) / std::sqrt(x);
}

// exp(x) K1(x): +inf at 0, NaN below.
template <class T> EMBER_HD T scaled_modified_bessel_k1(T x) {
  using namespace special_detail;
  if (x == T(0)) return inf_v<T>();
  if (x < T(0)) return nan_v<T>();
  if (x <= T(2)) {
    const T c = chbevl(x * x - T(2), k1_a(), 11) / x;  // first, as in modified_bessel_k1
    return (std::log(T(0.5) * x) * modified_bessel_i1(x) + c) * std::exp(x);
  }
  return chbevl(T(8) / x - T(2), k1_b(), 25) / std::sqrt(x);
}

// exp(-|x|) I0(x) (torch.special.i0e).
template <class T> EMBER_HD T i0e(T x) {
  using namespace special_detail;
  const T ax = std::abs(x);
  if (ax <= T(8)) return chbevl(ax / T(2) - T(2), i0e_a(), 30);
  return T(double(chbevl(T(32) / ax - T(2), i0e_b(), 25)) / std::sqrt(double(ax)));  // (double sqrt, as PyTorch)
}

// I1(x) (torch.special.i1; for float PyTorch drops the leading, tiny, Chebyshev terms).
template <class T> EMBER_HD T i1(T x) {
  using namespace special_detail;
  constexpr bool kF = std::is_same_v<T, float>;
  const T ax = std::abs(x);
  T r;
  if (ax <= T(8)) {
    r = std::exp(ax) * ax * chbevl(ax / T(2) - T(2), i1e_a() + (kF ? 12 : 0), kF ? 17 : 29);
  } else {
    r = std::exp(ax) * chbevl(T(32) / ax - T(2), i1e_b() + (kF ? 18 : 0), kF ? 7 : 25) / std::sqrt(ax);
  }
  return x < T(0) ? -r : r;
}

// exp(-|x|) I1(x) (torch.special.i1e).
template <class T> EMBER_HD T i1e(T x) {
  using namespace special_detail;
  constexpr bool kF = std::is_same_v<T, float>;
  const T ax = std::abs(x);
  T r;
  if (ax <= T(8)) {
    r = chbevl(ax / T(2) - T(2), i1e_a() + (kF ? 12 : 0), kF ? 17 : 29) * ax;
  } else {
    r = chbevl(T(32) / ax - T(2), i1e_b() + (kF ? 18 : 0), kF ? 7 : 25) / std::sqrt(ax);
  }
  return x < T(0) ? -r : r;
}

// ---- spherical Bessel ----

// j0(x) = sin(x) / x: 0 at +-inf, a Taylor polynomial below 1/2.
template <class T> EMBER_HD T spherical_bessel_j0(T x) {
  if (std::isinf(x)) return T(0);
  if (std::abs(x) < T(0.5)) {
    const T z = x * x;
    return T(1) +
           z * (T(-1) / T(6) +
                z * (T(1) / T(120) +
                     z * (T(-1) / T(5040) +
                          z * (T(1) / T(362880) + z * (T(-1) / T(39916800) + z * (T(1) / T(6227020800)))))));
  }
  return std::sin(x) / x;
}

}  // namespace ember::math
