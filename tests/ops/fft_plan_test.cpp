// The FFT core (ember/ops/fft_plan.h) against a naive DFT in long double: complex both ways,
// in place, strided and batched, real r2c/c2r, Bluestein lengths, the plan cache, threads,
// and the length errors.
#include "ember/ops/fft_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace ember::test {
namespace {

using fft_detail::get_plan;
using fft_detail::Plan;
using ld = long double;
using Cld = std::complex<ld>;

// A mix of radix 4/2/3/5, the direct odd radices (7, 11, 13, 17, 31), Bluestein (97, 1031,
// 4097 = 17 * 241) and n = 1.
const int64_t kSizes[] = {1,   2,   3,   4,   5,   6,   7,    8,    9,    11,  12,
                          13,  15,  16,  17,  25,  31,  32,   49,   60,   64,  97,
                          100, 121, 128, 210, 243, 256, 1000, 1024, 1031, 4097};

// Bins the naive reference checks: all of them, or a sample for the largest size.
std::vector<int64_t> bins_of(int64_t n) {
  std::vector<int64_t> b;
  const int64_t step = n > 2000 ? 61 : 1;
  for (int64_t k = 0; k < n; k += step) b.push_back(k);
  b.push_back(n - 1);
  return b;
}

// sum_j x_j exp(sign * 2 pi i j k / n) at each k in bins, in long double.
std::vector<Cld> naive_dft(const std::vector<Cld>& x, const std::vector<int64_t>& bins, int sign) {
  const int64_t n = int64_t(x.size());
  const ld pi = 3.141592653589793238462643383279502884L;
  std::vector<Cld> w(n), out;
  for (int64_t t = 0; t < n; ++t)
    w[t] = {std::cos(2 * pi * t / n), sign * std::sin(2 * pi * t / n)};
  for (int64_t k : bins) {
    ld re = 0, im = 0;
    for (int64_t j = 0, idx = 0; j < n; ++j) {  // idx = j * k mod n
      re += x[j].real() * w[idx].real() - x[j].imag() * w[idx].imag();
      im += x[j].real() * w[idx].imag() + x[j].imag() * w[idx].real();
      idx += k;
      if (idx >= n) idx -= n;
    }
    out.emplace_back(re, im);
  }
  return out;
}

// Values exact in float, so one long double reference serves both precisions.
std::vector<Cld> random_signal(int64_t n, uint64_t seed, bool real) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Cld> x(n);
  for (auto& v : x) v = real ? Cld(u(rng), 0) : Cld(u(rng), u(rng));
  return x;
}

ld rms_norm(const std::vector<Cld>& x) {  // sqrt(sum |x|^2): the rms of its DFT (Parseval)
  ld e = 0;
  for (const Cld& v : x) e += std::norm(v);
  return std::sqrt(e);
}

// max_k |got[k * stride] - ref_k| / scale.
template <typename C>
double max_err(const C* got, int64_t stride, const std::vector<Cld>& ref,
               const std::vector<int64_t>& bins, ld scale) {
  ld e = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    const C g = got[bins[i] * stride];
    e = std::max(e, std::abs(Cld(g.real(), g.imag()) - ref[i]));
  }
  return double(scale > 0 ? e / scale : e);
}

// The accuracy asked of the core: ~1e-6 log2 n (float) and ~1e-15 log2 n (double).
template <typename T>
double tolerance(int64_t n) {
  return (sizeof(T) == 8 ? 1e-15 : 1e-6) * std::max(1.0, std::log2(double(n)));
}

template <typename T>
std::vector<std::complex<T>> to(const std::vector<Cld>& x) {
  std::vector<std::complex<T>> out;
  for (const Cld& v : x) out.emplace_back(T(v.real()), T(v.imag()));
  return out;
}

template <typename T>
void check_complex(int64_t n) {
  using C = std::complex<T>;
  SCOPED_TRACE("n = " + std::to_string(n) + (sizeof(T) == 8 ? " double" : " float"));
  const std::vector<Cld> x = random_signal(n, uint64_t(n), false);
  const std::vector<int64_t> bins = bins_of(n);
  const ld scale = rms_norm(x);
  const double tol = tolerance<T>(n);
  auto plan = get_plan<T>(n);
  const std::vector<C> in = to<T>(x);
  for (bool inverse : {false, true}) {
    SCOPED_TRACE(inverse ? "backward" : "forward");
    const std::vector<Cld> ref = naive_dft(x, bins, inverse ? +1 : -1);
    std::vector<C> out(n);
    plan->execute(in.data(), 1, out.data(), 1, inverse);
    EXPECT_LE(max_err(out.data(), 1, ref, bins, scale), tol) << "out of place";

    std::vector<C> io = in;
    plan->execute(io.data(), 1, io.data(), 1, inverse);
    EXPECT_LE(max_err(io.data(), 1, ref, bins, scale), tol) << "in place";

    std::vector<C> strided(3 * n);
    for (int64_t j = 0; j < n; ++j) strided[3 * j] = in[j];
    plan->execute(strided.data(), 3, strided.data(), 3, inverse);
    EXPECT_LE(max_err(strided.data(), 3, ref, bins, scale), tol) << "in place, stride 3";
  }
}

TEST(FftPlan, ComplexMatchesNaiveDft) {
  for (int64_t n : kSizes) {
    check_complex<float>(n);
    check_complex<double>(n);
  }
}

TEST(FftPlan, BatchedInterleavedAndRows) {
  // Four signals as the columns of an (n, 4) row-major matrix, transformed into the rows of
  // an (4, n + 2) matrix at stride 1; then rows back to rows, in place.
  for (int64_t n : {12, 97, 256, 1000}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    auto plan = get_plan<double>(n);
    std::vector<std::vector<Cld>> xs;
    std::vector<std::complex<double>> cols(4 * n), rows(4 * (n + 2));
    for (int b = 0; b < 4; ++b) {
      xs.push_back(random_signal(n, uint64_t(100 * n + b), false));
      for (int64_t j = 0; j < n; ++j)
        cols[4 * j + b] = {double(xs[b][j].real()), double(xs[b][j].imag())};
    }
    plan->execute_many(4, cols.data(), 4, 1, rows.data(), 1, n + 2, false);
    const std::vector<int64_t> bins = bins_of(n);
    for (int b = 0; b < 4; ++b)
      EXPECT_LE(
          max_err(rows.data() + b * (n + 2), 1, naive_dft(xs[b], bins, -1), bins, rms_norm(xs[b])),
          tolerance<double>(n));
    plan->execute_many(4, rows.data(), 1, n + 2, rows.data(), 1, n + 2, true);
    for (int b = 0; b < 4; ++b)
      for (int64_t j = 0; j < n; ++j) {
        const std::complex<double> want(double(xs[b][j].real()), double(xs[b][j].imag()));
        EXPECT_NEAR(std::abs(rows[b * (n + 2) + j] / double(n) - want), 0, 1e-14);
      }
  }
}

template <typename T>
void check_real(int64_t n) {
  using C = std::complex<T>;
  SCOPED_TRACE("n = " + std::to_string(n) + (sizeof(T) == 8 ? " double" : " float"));
  const int64_t nb = n / 2 + 1;
  const double tol = tolerance<T>(n);
  auto plan = get_plan<T>(n);
  // r2c from stride 2 into stride 3.
  const std::vector<Cld> x = random_signal(n, uint64_t(n) + 7, true);
  const std::vector<int64_t> bins = bins_of(nb);
  std::vector<T> in(2 * n);
  for (int64_t j = 0; j < n; ++j) in[2 * j] = T(x[j].real());
  std::vector<C> spec(3 * nb);
  plan->r2c(in.data(), 2, spec.data(), 3);
  EXPECT_LE(max_err(spec.data(), 3, naive_dft(x, bins, -1), bins, rms_norm(x)), tol) << "r2c";

  // c2r of a random half spectrum whose bins 0 and (even n) n/2 carry imaginary junk,
  // which must be ignored: the reference is the Hermitian extension with those bins real.
  const std::vector<Cld> half = random_signal(nb, uint64_t(n) + 9, false);
  std::vector<Cld> full(n);
  for (int64_t k = 0; k < nb; ++k) full[k] = half[k];
  full[0].imag(0);
  if (n % 2 == 0) full[n / 2].imag(0);
  for (int64_t k = 1; k < nb; ++k) full[n - k] = std::conj(full[k]);
  const std::vector<C> hin = to<T>(half);
  std::vector<T> out(n);
  plan->c2r(hin.data(), 1, out.data(), 1);
  std::vector<C> outc(out.begin(), out.end());
  const std::vector<int64_t> all = bins_of(n);
  EXPECT_LE(max_err(outc.data(), 1, naive_dft(full, all, +1), all, rms_norm(full)), tol) << "c2r";

  // Roundtrip, batched over the columns of an (n, 3) matrix: c2r(r2c(x)) == n x.
  std::vector<T> cols(3 * n), back(3 * n);
  for (int64_t j = 0; j < n; ++j)
    for (int b = 0; b < 3; ++b) cols[3 * j + b] = T(x[j].real()) * T(b + 1);
  std::vector<C> cspec(3 * nb);
  plan->r2c_many(3, cols.data(), 3, 1, cspec.data(), 3, 1);
  plan->c2r_many(3, cspec.data(), 3, 1, back.data(), 3, 1);
  for (int64_t j = 0; j < 3 * n; ++j)
    EXPECT_NEAR(back[j] / T(n), cols[j], 3 * tol) << "roundtrip " << j;
}

TEST(FftPlan, RealTransformsMatchNaiveDft) {
  for (int64_t n : kSizes) {
    check_real<float>(n);
    check_real<double>(n);
  }
}

TEST(FftPlan, LengthOneIsIdentity) {
  auto plan = get_plan<double>(1);
  std::complex<double> x(3, -4), y;
  plan->execute(&x, 1, &y, 1, false);
  EXPECT_EQ(y, x);
  plan->execute(&x, 1, &x, 1, true);
  EXPECT_EQ(x, std::complex<double>(3, -4));
  double r = 2.5;
  plan->r2c(&r, 1, &y, 1);
  EXPECT_EQ(y, std::complex<double>(2.5, 0));
  const std::complex<double> junk(7, 9);  // the imaginary part of bin 0 is ignored
  plan->c2r(&junk, 1, &r, 1);
  EXPECT_EQ(r, 7);
}

TEST(FftPlan, InvalidLengthThrows) {
  for (int64_t n : {int64_t(0), int64_t(-5)}) {
    try {
      Plan<float> plan(n);
      FAIL() << "no exception for n = " << n;
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("fft"), std::string::npos) << msg;
      EXPECT_NE(msg.find(std::to_string(n)), std::string::npos) << msg;
    }
    EXPECT_THROW(get_plan<double>(n), std::invalid_argument);
  }
}

TEST(FftPlan, BluesteinOnlyForLargePrimeFactors) {
  EXPECT_FALSE(get_plan<double>(4096)->uses_bluestein());
  EXPECT_FALSE(get_plan<double>(2 * 3 * 5 * 7 * 11 * 13)->uses_bluestein());
  EXPECT_TRUE(get_plan<double>(1031)->uses_bluestein());
  EXPECT_TRUE(get_plan<float>(4097)->uses_bluestein());
}

TEST(FftPlan, CacheReusesAndStaysBounded) {
  auto a = get_plan<double>(360);
  EXPECT_EQ(get_plan<double>(360), a);
  EXPECT_NE(static_cast<const void*>(get_plan<float>(360).get()),
            static_cast<const void*>(a.get()));
  for (int64_t n = 1; n <= 2 * int64_t(fft_detail::kPlanCacheCapacity); ++n) get_plan<float>(n);
  EXPECT_LE(fft_detail::plan_cache_size(), fft_detail::kPlanCacheCapacity);
  fft_detail::clear_plan_cache();
  EXPECT_EQ(fft_detail::plan_cache_size(), 0u);
  std::complex<double> x[360] = {}, y[360];
  x[1] = 1;
  a->execute(x, 1, y, 1, false);  // a held plan outlives its eviction
  EXPECT_NEAR(std::abs(y[90] - std::complex<double>(0, -1)), 0, 1e-15);
}

TEST(FftPlan, ConcurrentExecutionMatchesSerial) {
  for (int64_t n : {4096, 1031, 30030}) {
    auto plan = get_plan<double>(n);
    std::vector<std::complex<double>> in(n), want(n);
    for (int64_t j = 0; j < n; ++j) in[j] = {double(j % 17), double(j % 5) - 2};
    plan->execute(in.data(), 1, want.data(), 1, false);
    std::vector<int> mismatches(4, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        std::vector<std::complex<double>> out(n);
        for (int it = 0; it < 5; ++it) {
          plan->execute(in.data(), 1, out.data(), 1, false);
          mismatches[t] += out != want;
        }
      });
    for (auto& th : threads) th.join();
    for (int m : mismatches) EXPECT_EQ(m, 0) << "n = " << n;
  }
}

}  // namespace
}  // namespace ember::test
