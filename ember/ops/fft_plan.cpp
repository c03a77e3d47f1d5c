// ember's FFT core (see fft_plan.h). Algorithms: a Stockham autosort mixed-radix FFT
// (decimation in frequency; radix 4, 2, 3, 5, 7, 11, 13 and a generic odd radix up to 61)
// with precomputed twiddles; Bluestein's chirp-z transform, a cyclic convolution of 5-smooth
// length, for lengths with a large prime factor; the packed half-length transform for
// even-length real transforms (odd lengths go through the complex transform of length n).
#include "ember/ops/fft_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <list>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace ember::fft_detail {
namespace {

template <typename T>
using Cx = std::complex<T>;
using ld = long double;

// Note [Twiddle accuracy]
// Every root of unity exp(-2*pi*i*k/n) has k reduced mod n in integers first, then symmetry
// maps k/n into the first octant [0, 1/8] before cos/sin run in long double, so no angle is
// ever large and the octant points (+-1, +-i, (+-1 +-i)/sqrt 2) come out correctly rounded.
// Roots reaches other k as the product lo[k % b] * hi[k / b] of two such values (b ~ sqrt n):
// O(sqrt n) trigonometric calls per table, error a few ulps of long double, far below the
// ulp of double. Every table is computed this way and then rounded to the plan's precision.

// (cos, sin) of 2*pi*num/den, for 0 <= num < den < 2^60.
std::pair<ld, ld> cos_sin_turns(uint64_t num, uint64_t den) {
  bool neg_sin = false, neg_cos = false, swap = false;
  if (2 * num > den) num = den - num, neg_sin = true;                // f -> 1 - f
  if (4 * num > den) num = den - 2 * num, den *= 2, neg_cos = true;  // f -> 1/2 - f
  if (8 * num > den) num = den - 4 * num, den *= 4, swap = true;     // f -> 1/4 - f
  const ld pi = 3.141592653589793238462643383279502884L;
  const ld a = 2 * pi * ld(num) / ld(den);
  ld c = std::cos(a), s = std::sin(a);
  if (swap) std::swap(c, s);
  return {neg_cos ? -c : c, neg_sin ? -s : s};
}

class Roots {  // exp(-2*pi*i*k/n) for any k >= 0; Note [Twiddle accuracy]
 public:
  explicit Roots(uint64_t n) : n_(n), b_(uint64_t(std::sqrt(double(n))) + 1) {
    for (uint64_t k = 0; k < b_; ++k) lo_.push_back(root(k % n_));
    for (uint64_t k = 0; k * b_ < n_; ++k) hi_.push_back(root(k * b_));
  }
  Cx<ld> operator()(uint64_t k) const {
    k %= n_;
    if (8 * k % n_ == 0) return root(k);
    const Cx<ld> a = lo_[k % b_], b = hi_[k / b_];
    return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
  }

 private:
  Cx<ld> root(uint64_t k) const {
    auto [c, s] = cos_sin_turns(k, n_);
    return {c, -s};
  }
  uint64_t n_, b_;
  std::vector<Cx<ld>> lo_, hi_;
};

template <typename T>
Cx<T> narrow(Cx<ld> z) {
  return {T(z.real()), T(z.imag())};
}

// ---- complex arithmetic (spelled out: operator* on std::complex checks for NaN) ----------
template <typename T>
inline Cx<T> mul(Cx<T> a, Cx<T> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
template <typename T>
inline Cx<T> mul_conj(Cx<T> a, Cx<T> b) {  // a * conj(b)
  return {a.real() * b.real() + a.imag() * b.imag(), a.imag() * b.real() - a.real() * b.imag()};
}
// Multiply by the twiddle w (forward) or conj(w) (inverse): tables hold forward roots.
template <bool Inv, typename T>
inline Cx<T> twiddle(Cx<T> a, Cx<T> w) {
  return Inv ? mul_conj(a, w) : mul(a, w);
}
// a * (-i) forward, a * (+i) inverse: the quarter-turn root in the transform's direction.
template <bool Inv, typename T>
inline Cx<T> rot(Cx<T> a) {
  return Inv ? Cx<T>(-a.imag(), a.real()) : Cx<T>(a.imag(), -a.real());
}
template <bool Tw, bool Inv, typename T>
inline void put(Cx<T>* y, Cx<T> v, const Cx<T>* w, int u) {  // butterfly output u (u >= 1)
  *y = Tw ? twiddle<Inv>(v, w[u - 1]) : v;
}

// ---- butterflies --------------------------------------------------------------------------
// apply<Tw>(x, xt, y, yu, w): the p-point DFT of x[t * xt] (t < p) into y[u * yu], output u
// multiplied by w[u - 1] when Tw (the twiddles of one column of a Stockham pass).
template <typename T, bool Inv>
struct Radix2 {
  template <bool Tw>
  void apply(const Cx<T>* x, int64_t xt, Cx<T>* y, int64_t yu, const Cx<T>* w) const {
    const Cx<T> a0 = x[0], a1 = x[xt];
    y[0] = a0 + a1;
    put<Tw, Inv>(y + yu, a0 - a1, w, 1);
  }
};

template <typename T, bool Inv>
struct Radix3 {
  template <bool Tw>
  void apply(const Cx<T>* x, int64_t xt, Cx<T>* y, int64_t yu, const Cx<T>* w) const {
    constexpr T kHalfSqrt3 = T(0.866025403784438646763723170752936183L);
    const Cx<T> a0 = x[0], a1 = x[xt], a2 = x[2 * xt];
    const Cx<T> t = a1 + a2, m = a0 - t * T(0.5), r = rot<Inv>(a1 - a2) * kHalfSqrt3;
    y[0] = a0 + t;
    put<Tw, Inv>(y + yu, m + r, w, 1);
    put<Tw, Inv>(y + 2 * yu, m - r, w, 2);
  }
};

template <typename T, bool Inv>
struct Radix4 {
  template <bool Tw>
  void apply(const Cx<T>* x, int64_t xt, Cx<T>* y, int64_t yu, const Cx<T>* w) const {
    const Cx<T> a0 = x[0], a1 = x[xt], a2 = x[2 * xt], a3 = x[3 * xt];
    const Cx<T> s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, r13 = rot<Inv>(a1 - a3);
    y[0] = s02 + s13;
    put<Tw, Inv>(y + yu, d02 + r13, w, 1);
    put<Tw, Inv>(y + 2 * yu, s02 - s13, w, 2);
    put<Tw, Inv>(y + 3 * yu, d02 - r13, w, 3);
  }
};

template <typename T, bool Inv>
struct Radix5 {
  template <bool Tw>
  void apply(const Cx<T>* x, int64_t xt, Cx<T>* y, int64_t yu, const Cx<T>* w) const {
    constexpr T c1 = T(0.309016994374947424102293417182819059L);   // cos(2 pi / 5)
    constexpr T c2 = T(-0.809016994374947424102293417182819059L);  // cos(4 pi / 5)
    constexpr T s1 = T(0.951056516295153572116439333379382143L);   // sin(2 pi / 5)
    constexpr T s2 = T(0.587785252292473129168705954639072769L);   // sin(4 pi / 5)
    const Cx<T> a0 = x[0], a1 = x[xt], a2 = x[2 * xt], a3 = x[3 * xt], a4 = x[4 * xt];
    const Cx<T> t1 = a1 + a4, t2 = a2 + a3, d1 = a1 - a4, d2 = a2 - a3;
    const Cx<T> m1 = a0 + t1 * c1 + t2 * c2, m2 = a0 + t1 * c2 + t2 * c1;
    const Cx<T> r1 = rot<Inv>(d1 * s1 + d2 * s2), r2 = rot<Inv>(d1 * s2 - d2 * s1);
    y[0] = a0 + t1 + t2;
    put<Tw, Inv>(y + yu, m1 + r1, w, 1);
    put<Tw, Inv>(y + 2 * yu, m2 + r2, w, 2);
    put<Tw, Inv>(y + 3 * yu, m2 - r2, w, 3);
    put<Tw, Inv>(y + 4 * yu, m1 - r1, w, 4);
  }
};

constexpr int kMaxGenericRadix = 61;  // largest odd prime a direct O(p^2) pass may use

// Odd p: with T_t = a_t + a_{p-t}, D_t = a_t - a_{p-t} (t = 1..h, h = (p-1)/2),
// b_u = a_0 + sum_t cos(2 pi t u / p) T_t  -+ i sum_t sin(2 pi t u / p) D_t, b_{p-u} with +-.
// P > 0 fixes p at compile time (7, 11, 13: the loops unroll); P == 0 reads it from p.
template <typename T, bool Inv, int P>
struct RadixOdd {
  int p;
  const T* cs;  // cs[2*((u-1)*h + t-1)], cs[... + 1] = cos, sin(2 pi t u / p) for u, t in 1..h
  template <bool Tw>
  void apply(const Cx<T>* x, int64_t xt, Cx<T>* y, int64_t yu, const Cx<T>* w) const {
    const int pp = P > 0 ? P : p, h = (pp - 1) / 2;
    Cx<T> sum[kMaxGenericRadix / 2 + 1], dif[kMaxGenericRadix / 2 + 1];
    const Cx<T> a0 = x[0];
    Cx<T> b0 = a0;
    for (int t = 1; t <= h; ++t) {
      const Cx<T> u = x[t * xt], v = x[(pp - t) * xt];
      sum[t] = u + v, dif[t] = u - v;
      b0 += sum[t];
    }
    y[0] = b0;
    const T* c = cs;
    for (int u = 1; u <= h; ++u, c += 2 * h) {
      Cx<T> re = a0, im = 0;
      for (int t = 1; t <= h; ++t) re += sum[t] * c[2 * t - 2], im += dif[t] * c[2 * t - 1];
      const Cx<T> r = rot<Inv>(im);
      put<Tw, Inv>(y + u * yu, re + r, w, u);
      put<Tw, Inv>(y + (pp - u) * yu, re - r, w, pp - u);
    }
  }
};

// Note [Stockham pass]
// A pass of radix p over a sub-transform length L = p * m, with s = n / L independent
// sub-transforms interleaved at unit distance: for j < m and q < s, one butterfly reads
// x[q + s*(j + t*m)] (t < p) and writes y[q + s*(p*j + u)] (u < p) times w_L^(j*u). After
// the pass, y holds s*p interleaved sub-transforms of length m, so passes chain with
// s *= p and the last pass (m = 1) leaves the spectrum in natural order: no bit reversal.
template <typename Bf, typename T>
void run_pass(const Bf& bf, int p, int64_t m, int64_t s, const Cx<T>* x, int64_t xs, Cx<T>* y,
              int64_t ys, const Cx<T>* tw) {
  const int64_t xt = s * m * xs, yu = s * ys;
  for (int64_t q = 0; q < s; ++q) bf.template apply<false>(x + q * xs, xt, y + q * ys, yu, nullptr);
  for (int64_t j = 1; j < m; ++j) {
    const Cx<T>* w = tw + j * (p - 1);
    const Cx<T>* xj = x + s * j * xs;
    Cx<T>* yj = y + s * p * j * ys;
    for (int64_t q = 0; q < s; ++q) bf.template apply<true>(xj + q * xs, xt, yj + q * ys, yu, w);
  }
}

// Whether n elements at a (stride as) and at b (stride bs) share any byte.
template <typename T>
bool overlaps(const T* a, int64_t as, const T* b, int64_t bs, int64_t n) {
  auto range = [n](const T* p, int64_t st) {
    const uintptr_t lo = uintptr_t(st >= 0 ? p : p + st * (n - 1));
    return std::pair{lo, lo + uintptr_t((st >= 0 ? st : -st) * (n - 1) + 1) * sizeof(T)};
  };
  const auto [a0, a1] = range(a, as);
  const auto [b0, b1] = range(b, bs);
  return a0 < b1 && b0 < a1;
}

}  // namespace

// ---- engines --------------------------------------------------------------------------------
template <typename T>
class Engine {
 public:
  virtual ~Engine() = default;
  int64_t size() const { return n_; }
  int64_t scratch_size() const { return scratch_; }
  virtual bool bluestein() const { return false; }
  // out[k*os] = DFT(in[j*is]) forward or backward; in and out may overlap in any way.
  // scratch holds scratch_size() elements, owned by the caller for the call.
  virtual void run(const Cx<T>* in, int64_t is, Cx<T>* out, int64_t os, bool inv,
                   Cx<T>* scratch) const = 0;

 protected:
  int64_t n_ = 0, scratch_ = 0;
};

namespace {

// Radices for n: 4s first, then one 2, then 3, 5 and odd primes up to kMaxGenericRadix, in
// increasing order; whatever is left over (1, or a product of larger primes) goes in *rest.
std::vector<int> factorize(int64_t n, int64_t* rest) {
  std::vector<int> f;
  while (n % 4 == 0) f.push_back(4), n /= 4;
  if (n % 2 == 0) f.push_back(2), n /= 2;
  for (int p = 3; p <= kMaxGenericRadix && p <= n; p += 2)
    while (n % p == 0) f.push_back(p), n /= p;
  *rest = n;
  return f;
}

// Cost per point of a pass of radix p, about ns per complex double on x86-64 (measured with
// n = p^k, data in L2): the fixed radices are memory bound, direct odd passes grow with p.
double pass_cost(int p) {
  switch (p) {
    case 2:
    case 3:
    case 4: return 1.1;
    case 5: return 1.5;
    case 7: return 3.0;
    case 11: return 5.0;
    case 13: return 4.5;
    default: return 0.5 * p + 0.5;
  }
}

// Cost per point of the mixed-radix transform of n; infinite if n has a prime > 61.
double direct_cost(int64_t n) {
  int64_t rest;
  double c = 0;
  for (int p : factorize(n, &rest)) c += pass_cost(p);
  return rest == 1 ? c : 1e300;
}

template <typename T>
class MixedRadix final : public Engine<T> {
 public:
  MixedRadix(int64_t n, const std::vector<int>& radices) {
    this->n_ = n;
    this->scratch_ = 2 * n;
    int64_t s = 1;
    const Roots roots{uint64_t(n)};
    for (int p : radices) {
      const int64_t m = n / (s * p);
      passes_.push_back({p, m, s, tw_.size(), cs_.size()});
      for (int64_t j = 0; j < m && m > 1; ++j)
        for (int u = 1; u < p; ++u) tw_.push_back(narrow<T>(roots(uint64_t(j * u * s))));
      for (int u = 1; p > 5 && u <= (p - 1) / 2; ++u)
        for (int t = 1; t <= (p - 1) / 2; ++t) {
          auto [c, sn] = cos_sin_turns(uint64_t(t * u % p), uint64_t(p));
          cs_.push_back(T(c)), cs_.push_back(T(sn));
        }
      s *= p;
    }
  }

  void run(const Cx<T>* in, int64_t is, Cx<T>* out, int64_t os, bool inv,
           Cx<T>* scratch) const override {
    const int64_t n = this->n_;
    if (passes_.empty()) {  // n == 1
      out[0] = in[0];
      return;
    }
    // Passes ping-pong between the two halves of scratch; the first reads in, the last
    // writes out. Only a single pass could read in after writing out: copy in first then.
    Cx<T>* buf[2] = {scratch, scratch + n};
    const Cx<T>* src = in;
    int64_t ss = is;
    if (passes_.size() == 1 && overlaps(in, is, out, os, n)) {
      for (int64_t j = 0; j < n; ++j) buf[1][j] = in[j * is];
      src = buf[1], ss = 1;
    }
    for (size_t i = 0; i < passes_.size(); ++i) {
      const bool last = i + 1 == passes_.size();
      Cx<T>* dst = last ? out : buf[i % 2];
      const int64_t ds = last ? os : 1;
      if (inv)
        pass<true>(passes_[i], src, ss, dst, ds);
      else
        pass<false>(passes_[i], src, ss, dst, ds);
      src = dst, ss = ds;
    }
  }

 private:
  struct Pass {
    int p;
    int64_t m, s;   // Note [Stockham pass]; m * p * s == n
    size_t tw, cs;  // offsets of this pass's tables in tw_ (m > 1 only) and cs_ (p > 5 only)
  };

  template <bool Inv>
  void pass(const Pass& ps, const Cx<T>* x, int64_t xs, Cx<T>* y, int64_t ys) const {
    const Cx<T>* tw = tw_.data() + ps.tw;
    const T* cs = cs_.data() + ps.cs;
    switch (ps.p) {
      case 2: return run_pass(Radix2<T, Inv>{}, 2, ps.m, ps.s, x, xs, y, ys, tw);
      case 3: return run_pass(Radix3<T, Inv>{}, 3, ps.m, ps.s, x, xs, y, ys, tw);
      case 4: return run_pass(Radix4<T, Inv>{}, 4, ps.m, ps.s, x, xs, y, ys, tw);
      case 5: return run_pass(Radix5<T, Inv>{}, 5, ps.m, ps.s, x, xs, y, ys, tw);
      case 7: return run_pass(RadixOdd<T, Inv, 7>{7, cs}, 7, ps.m, ps.s, x, xs, y, ys, tw);
      case 11: return run_pass(RadixOdd<T, Inv, 11>{11, cs}, 11, ps.m, ps.s, x, xs, y, ys, tw);
      case 13: return run_pass(RadixOdd<T, Inv, 13>{13, cs}, 13, ps.m, ps.s, x, xs, y, ys, tw);
      default: return run_pass(RadixOdd<T, Inv, 0>{ps.p, cs}, ps.p, ps.m, ps.s, x, xs, y, ys, tw);
    }
  }

  std::vector<Pass> passes_;
  std::vector<Cx<T>> tw_;  // per pass: w_L^(j*u) at [j*(p-1) + u-1], j < m, 1 <= u < p
  std::vector<T> cs_;      // per odd pass p > 5: RadixOdd::cs
};

// Bluestein's convolution length for n: the cheapest 2^a 3^b 5^c >= 2n - 1 (a power of two
// may cost up to 2x more than the next 5-smooth length; they are at most ~1.2x apart).
int64_t bluestein_length(int64_t n) {
  const int64_t target = 2 * n - 1;
  int64_t best = 1;
  while (best < target) best *= 2;
  double best_cost = double(best) * direct_cost(best);
  for (int64_t f5 = 1; f5 < 2 * target; f5 *= 5)
    for (int64_t f35 = f5; f35 < 2 * target; f35 *= 3) {
      int64_t m = f35;
      while (m < target) m *= 2;
      const double c = double(m) * direct_cost(m);
      if (c < best_cost) best = m, best_cost = c;
    }
  return best;
}

// Cost per point of n by Bluestein: two transforms of length m, three O(m) loops.
double bluestein_cost(int64_t n) {
  const int64_t m = bluestein_length(n);
  return double(m) / double(n) * (2 * direct_cost(m) + 3.0);
}

// Note [Bluestein]
// With c_k = exp(-i*pi*k^2/n), j*k = (j^2 + k^2 - (k-j)^2)/2 turns the DFT into a
// convolution: X_k = c_k * sum_j (x_j c_j) conj(c_{k-j}). It runs as a cyclic convolution of
// 5-smooth length m >= 2n-1 (bluestein_length) by three FFTs, the filter's done at plan time
// in double precision with 1/m folded in. c_k is exp(-2*pi*i*(k^2 mod 2n)/(2n)), reduced in
// integers (Note [Twiddle accuracy]). Backward is conj(forward(conj(x))).
template <typename T>
class Bluestein final : public Engine<T> {
 public:
  explicit Bluestein(int64_t n) : m_(bluestein_length(n)) {
    this->n_ = n;
    int64_t rest;
    inner_ = std::make_unique<MixedRadix<T>>(m_, factorize(m_, &rest));
    this->scratch_ = m_ + inner_->scratch_size();
    const Roots roots{2 * uint64_t(n)};
    std::vector<Cx<double>> c(n), b(m_);
    for (uint64_t k = 0, k2 = 0; k < uint64_t(n); ++k) {  // k2 = k^2 mod 2n, no overflow
      c[k] = narrow<double>(roots(k2));
      chirp_.push_back(narrow<T>(roots(k2)));
      k2 = (k2 + 2 * k + 1) % (2 * uint64_t(n));
    }
    for (int64_t k = 0; k < n; ++k) b[k] = b[(m_ - k) % m_] = std::conj(c[k]);
    MixedRadix<double> filter_fft(m_, factorize(m_, &rest));
    std::vector<Cx<double>> sc(filter_fft.scratch_size());
    filter_fft.run(b.data(), 1, b.data(), 1, false, sc.data());
    for (const Cx<double>& v : b) filter_.push_back(narrow<T>(Cx<ld>(v) / ld(m_)));
  }

  bool bluestein() const override { return true; }

  void run(const Cx<T>* in, int64_t is, Cx<T>* out, int64_t os, bool inv,
           Cx<T>* scratch) const override {
    const int64_t n = this->n_;
    Cx<T>* a = scratch;
    Cx<T>* sub = scratch + m_;
    for (int64_t k = 0; k < n; ++k) {
      const Cx<T> v = in[k * is];
      a[k] = mul(inv ? std::conj(v) : v, chirp_[k]);
    }
    for (int64_t k = n; k < m_; ++k) a[k] = 0;
    inner_->run(a, 1, a, 1, false, sub);
    for (int64_t k = 0; k < m_; ++k) a[k] = mul(a[k], filter_[k]);
    inner_->run(a, 1, a, 1, true, sub);
    for (int64_t k = 0; k < n; ++k) {
      const Cx<T> v = mul(a[k], chirp_[k]);
      out[k * os] = inv ? std::conj(v) : v;
    }
  }

 private:
  int64_t m_;  // convolution length, 5-smooth, >= 2n - 1
  std::unique_ptr<const MixedRadix<T>> inner_;
  std::vector<Cx<T>> chirp_;   // c_k, k < n
  std::vector<Cx<T>> filter_;  // FFT_m(conj(c_|d|) at d mod m) / m
};

template <typename T>
std::unique_ptr<const Engine<T>> make_engine(int64_t n) {
  int64_t rest;
  std::vector<int> radices = factorize(n, &rest);
  // A direct pass of an odd prime p costs O(p) per point: past some p, Bluestein is cheaper.
  if (rest == 1 && (n < 64 || direct_cost(n) <= bluestein_cost(n)))
    return std::make_unique<MixedRadix<T>>(n, radices);
  return std::make_unique<Bluestein<T>>(n);
}

}  // namespace

// ---- real transforms ------------------------------------------------------------------------
// Note [Packed real transform]
// For even n = 2h, z_j = x_{2j} + i x_{2j+1} has Z = E + iO where E, O are the length-h
// DFTs of the even and odd samples; E_k = (Z_k + conj Z_{h-k})/2, O_k = (Z_k - conj Z_{h-k})/2i
// and X_k = E_k + w_n^k O_k for k = 0..h (Z_h = Z_0). c2r inverts this: 2E_k = X_k + conj X_{h-k},
// 2O_k = (X_k - conj X_{h-k}) conj(w_n^k), and the backward length-h transform of 2E + 2iO is
// n times the interleaved signal, as an unnormalized c2r of length n must give.
template <typename T>
class RealEngine {
 public:
  explicit RealEngine(int64_t n) : h_(n / 2), half_(make_engine<T>(n / 2)) {
    const Roots roots{uint64_t(n)};
    for (int64_t k = 0; k <= h_; ++k) w_.push_back(narrow<T>(roots(uint64_t(k))));
  }
  int64_t scratch_size() const { return h_ + half_->scratch_size(); }

  void r2c(const T* in, int64_t is, Cx<T>* out, int64_t os, Cx<T>* scratch) const {
    Cx<T>* z = scratch;
    for (int64_t j = 0; j < h_; ++j) z[j] = {in[2 * j * is], in[(2 * j + 1) * is]};
    half_->run(z, 1, z, 1, false, scratch + h_);
    out[0] = {z[0].real() + z[0].imag(), 0};
    out[h_ * os] = {z[0].real() - z[0].imag(), 0};
    for (int64_t k = 1; k < h_; ++k) {
      const Cx<T> a = z[k], b = std::conj(z[h_ - k]);
      const Cx<T> e = (a + b) * T(0.5), o = rot<false>(a - b) * T(0.5);
      out[k * os] = e + mul(w_[k], o);
    }
  }

  void c2r(const Cx<T>* in, int64_t is, T* out, int64_t os, Cx<T>* scratch) const {
    Cx<T>* z = scratch;
    for (int64_t k = 0; k < h_; ++k) {
      Cx<T> a = in[k * is], b = std::conj(in[(h_ - k) * is]);
      if (k == 0) a.imag(0), b.imag(0);  // bins 0 and h are real by definition
      z[k] = (a + b) + rot<true>(mul_conj(a - b, w_[k]));
    }
    half_->run(z, 1, z, 1, true, scratch + h_);
    for (int64_t j = 0; j < h_; ++j)
      out[2 * j * os] = z[j].real(), out[(2 * j + 1) * os] = z[j].imag();
  }

 private:
  int64_t h_;                              // n / 2
  std::unique_ptr<const Engine<T>> half_;  // the complex transform of length h
  std::vector<Cx<T>> w_;                   // w_n^k, k <= h
};

namespace {

// Per-call working memory: a thread_local buffer up to kMaxKeptScratch elements (so small
// transforms called in a loop do not allocate), a fresh allocation beyond it. Plans never
// nest public calls, so one buffer per thread and precision suffices.
constexpr size_t kMaxKeptScratch = size_t(1) << 16;
template <typename T>
class Scratch {
 public:
  explicit Scratch(int64_t n) {
    thread_local std::vector<Cx<T>> kept;
    std::vector<Cx<T>>& v = size_t(n) <= kMaxKeptScratch ? kept : own_;
    if (v.size() < size_t(n)) v.resize(size_t(n));
    ptr_ = v.data();
  }
  Cx<T>* get() const { return ptr_; }

 private:
  std::vector<Cx<T>> own_;
  Cx<T>* ptr_;
};

}  // namespace

// ---- Plan -----------------------------------------------------------------------------------
template <typename T>
Plan<T>::Plan(int64_t n) : n_(n) {
  if (n < 1)
    throw std::invalid_argument("fft: invalid number of data points (" + std::to_string(n) +
                                "); the transform length must be at least 1");
  engine_ = make_engine<T>(n);
}

template <typename T>
Plan<T>::~Plan() = default;

template <typename T>
bool Plan<T>::uses_bluestein() const {
  return engine_->bluestein();
}

template <typename T>
const RealEngine<T>* Plan<T>::real_engine() const {
  if (n_ % 2 != 0) return nullptr;
  std::call_once(real_once_, [this] { real_ = std::make_unique<const RealEngine<T>>(n_); });
  return real_.get();
}

namespace {

// Runs fn(x, xs, y, ys) for transforms b = 0..howmany-1 from in (n_in values at stride is,
// distance idist) to out (n_out, os, odist). When transforms interleave (a distance shorter
// than the stride, as for the columns of a row-major matrix), blocks of up to 8 go through
// contiguous copies, so that each cache line fetched serves the whole block, not one.
template <typename In, typename Out, typename Fn>
void for_each_transform(int64_t howmany, const In* in, int64_t n_in, int64_t is, int64_t idist,
                        Out* out, int64_t n_out, int64_t os, int64_t odist, const Fn& fn) {
  const int64_t block = std::min<int64_t>(8, (int64_t(1) << 19) / std::max(n_in, n_out));
  const bool interleaved = std::abs(idist) < std::abs(is) || std::abs(odist) < std::abs(os);
  if (howmany < 2 || block < 2 || !interleaved) {
    for (int64_t b = 0; b < howmany; ++b) fn(in + b * idist, is, out + b * odist, os);
    return;
  }
  std::vector<In> x(size_t(block * n_in));
  std::vector<Out> y(size_t(block * n_out));
  for (int64_t b0 = 0; b0 < howmany; b0 += block) {
    const int64_t nb = std::min(block, howmany - b0);
    const In* src = in + b0 * idist;
    Out* dst = out + b0 * odist;
    for (int64_t j = 0; j < n_in; ++j)
      for (int64_t b = 0; b < nb; ++b) x[b * n_in + j] = src[b * idist + j * is];
    for (int64_t b = 0; b < nb; ++b) fn(x.data() + b * n_in, 1, y.data() + b * n_out, 1);
    for (int64_t k = 0; k < n_out; ++k)
      for (int64_t b = 0; b < nb; ++b) dst[b * odist + k * os] = y[b * n_out + k];
  }
}

}  // namespace

template <typename T>
void Plan<T>::execute(const Complex* in, int64_t in_stride, Complex* out, int64_t out_stride,
                      bool inverse) const {
  execute_many(1, in, in_stride, 0, out, out_stride, 0, inverse);
}

template <typename T>
void Plan<T>::execute_many(int64_t howmany, const Complex* in, int64_t in_stride, int64_t in_dist,
                           Complex* out, int64_t out_stride, int64_t out_dist, bool inverse) const {
  if (howmany <= 0) return;
  Scratch<T> scratch(engine_->scratch_size());
  for_each_transform(howmany, in, n_, in_stride, in_dist, out, n_, out_stride, out_dist,
                     [&](const Complex* x, int64_t xs, Complex* y, int64_t ys) {
                       engine_->run(x, xs, y, ys, inverse, scratch.get());
                     });
}

template <typename T>
void Plan<T>::r2c(const T* in, int64_t in_stride, Complex* out, int64_t out_stride) const {
  r2c_many(1, in, in_stride, 0, out, out_stride, 0);
}

template <typename T>
void Plan<T>::r2c_many(int64_t howmany, const T* in, int64_t in_stride, int64_t in_dist,
                       Complex* out, int64_t out_stride, int64_t out_dist) const {
  if (howmany <= 0) return;
  const RealEngine<T>* re = real_engine();
  Scratch<T> scratch(re ? re->scratch_size() : n_ + engine_->scratch_size());
  Complex* z = scratch.get();
  for_each_transform(howmany, in, n_, in_stride, in_dist, out, n_ / 2 + 1, out_stride, out_dist,
                     [&](const T* x, int64_t xs, Complex* y, int64_t ys) {
                       if (re) return re->r2c(x, xs, y, ys, z);
                       // Odd n: the complex transform of the real signal, bins 0..n/2 kept.
                       for (int64_t j = 0; j < n_; ++j) z[j] = {x[j * xs], 0};
                       engine_->run(z, 1, z, 1, false, z + n_);
                       for (int64_t k = 0; k <= n_ / 2; ++k) y[k * ys] = z[k];
                     });
}

template <typename T>
void Plan<T>::c2r(const Complex* in, int64_t in_stride, T* out, int64_t out_stride) const {
  c2r_many(1, in, in_stride, 0, out, out_stride, 0);
}

template <typename T>
void Plan<T>::c2r_many(int64_t howmany, const Complex* in, int64_t in_stride, int64_t in_dist,
                       T* out, int64_t out_stride, int64_t out_dist) const {
  if (howmany <= 0) return;
  const RealEngine<T>* re = real_engine();
  Scratch<T> scratch(re ? re->scratch_size() : n_ + engine_->scratch_size());
  Complex* z = scratch.get();
  for_each_transform(howmany, in, n_ / 2 + 1, in_stride, in_dist, out, n_, out_stride, out_dist,
                     [&](const Complex* x, int64_t xs, T* y, int64_t ys) {
                       if (re) return re->c2r(x, xs, y, ys, z);
                       // Odd n: the Hermitian spectrum (bin 0 taken as real), transformed.
                       z[0] = {x[0].real(), 0};
                       for (int64_t k = 1; k <= n_ / 2; ++k)
                         z[k] = x[k * xs], z[n_ - k] = std::conj(z[k]);
                       engine_->run(z, 1, z, 1, true, z + n_);
                       for (int64_t j = 0; j < n_; ++j) y[j * ys] = z[j].real();
                     });
}

template class Plan<float>;
template class Plan<double>;

// ---- plan cache -----------------------------------------------------------------------------
namespace {

struct PlanCache {
  struct Entry {
    int64_t n;
    bool is_double;
    std::shared_ptr<const void> plan;  // a Plan<float> or Plan<double> per is_double
  };
  std::mutex mu;
  std::list<Entry> lru;  // most recently used first; at most kPlanCacheCapacity entries

  // The cached plan for (n, is_double), moved to the front; null when absent. Holds mu.
  std::shared_ptr<const void> find(int64_t n, bool is_double) {
    for (auto it = lru.begin(); it != lru.end(); ++it)
      if (it->n == n && it->is_double == is_double) {
        lru.splice(lru.begin(), lru, it);
        return it->plan;
      }
    return nullptr;
  }
};

PlanCache& plan_cache() {
  static PlanCache* cache = new PlanCache;  // leaked: usable from other statics' destructors
  return *cache;
}

}  // namespace

template <typename T>
std::shared_ptr<const Plan<T>> get_plan(int64_t n) {
  constexpr bool kDouble = std::is_same_v<T, double>;
  PlanCache& cache = plan_cache();
  {
    std::lock_guard<std::mutex> lock(cache.mu);
    if (auto p = cache.find(n, kDouble)) return std::static_pointer_cast<const Plan<T>>(p);
  }
  // Built outside the lock so other lengths are not held up; if another thread built the
  // same plan meanwhile, keep the first one cached and return it.
  auto plan = std::make_shared<const Plan<T>>(n);
  std::lock_guard<std::mutex> lock(cache.mu);
  if (auto p = cache.find(n, kDouble)) return std::static_pointer_cast<const Plan<T>>(p);
  cache.lru.push_front({n, kDouble, plan});
  if (cache.lru.size() > kPlanCacheCapacity) cache.lru.pop_back();
  return plan;
}

template std::shared_ptr<const Plan<float>> get_plan<float>(int64_t);
template std::shared_ptr<const Plan<double>> get_plan<double>(int64_t);

size_t plan_cache_size() {
  std::lock_guard<std::mutex> lock(plan_cache().mu);
  return plan_cache().lru.size();
}

void clear_plan_cache() {
  std::list<PlanCache::Entry> dropped;  // plans are destroyed after the lock is released
  std::lock_guard<std::mutex> lock(plan_cache().mu);
  dropped.swap(plan_cache().lru);
}

}  // namespace ember::fft_detail
