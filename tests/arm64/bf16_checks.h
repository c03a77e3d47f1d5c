// Checks of the reduced-precision block conversions (ember/ops/cpu/convert_vec.h) and of 64-bit
// Arm's BF16 extension paths (ember/ops/arm_bf16.h) against scalar code and double-precision
// references. Each returns "" or a description of the first mismatch. Shared by ops_tests
// (tests/ops/arm_bf16_test.cpp) and the CI's Arm smoke program (tests/arm64/smoke.cpp), which
// links nothing of ember but ops/arm_bf16.cpp: so nothing here may need the library.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ember/core/half.h"
#include "ember/ops/arm_bf16.h"

namespace ember::bf16_checks {

inline float from_bits(uint32_t u) { return detail::f32_from_bits(u); }

// Floats that stress the roundings: zeros, infinities, NaNs of both signs with payloads (quiet
// and signalling), subnormals, the largest finite values, bfloat16 and half ties (the 17th or
// 14th bit set alone, with and without the bit above) and random bit patterns.
inline std::vector<float> stress_floats(size_t random_count, uint32_t seed) {
  std::vector<float> v;
  for (uint32_t u : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                     0xff800001u, 0x7fa12345u, 0xffbfffffu, 0x7fffffffu, 0x00000001u, 0x80000001u, 0x007fffffu,
                     0x00400000u, 0x00008000u, 0x00018000u, 0x7f7fffffu, 0xff7fffffu, 0x7f7f8000u, 0x7f7f7fffu,
                     0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u, 0x3f801000u, 0x3f803000u, 0x38800000u,
                     0x387fc000u, 0x33800000u, 0x33000000u, 0x477fe000u, 0x477ff000u, 0x47800000u})
    v.push_back(from_bits(u));
  std::mt19937 rng(seed);
  for (size_t i = 0; i < random_count; ++i) {
    uint32_t u = rng();
    if (i % 3 == 0) u = (u & 0x807fffffu) | ((100u + rng() % 60u) << 23);  // mostly near 1: half's range
    if (i % 7 == 0) u = (u & 0xffff0000u) | 0x8000u;                       // a bfloat16 tie
    v.push_back(from_bits(u));
  }
  return v;
}

inline std::string hex(uint32_t u) {
  std::ostringstream os;
  os << "0x" << std::hex << u;
  return os.str();
}

// fn(in, out, n) rounds floats to bfloat16 bits; must equal detail::f32_to_bf16 bit for bit (NaNs
// too: quieted, sign and top payload kept), for every length up to 40 and a long run.
template <class Fn>
std::string check_narrow_bf16(Fn fn) {
  const std::vector<float> in = stress_floats(5000, 11);
  std::vector<uint16_t> out(in.size());
  for (size_t n : {size_t(1), size_t(7), size_t(8), size_t(9), size_t(15), size_t(16), size_t(17), size_t(40), in.size()}) {
    for (size_t start = 0; start + n <= in.size(); start += n > 40 ? in.size() : 3) {
      std::fill(out.begin(), out.begin() + std::min(n + 1, out.size()), uint16_t(0xdead));
      fn(in.data() + start, out.data(), int64_t(n));
      for (size_t i = 0; i < n; ++i)
        if (out[i] != detail::f32_to_bf16(in[start + i]))
          return "bfloat16 of " + hex(detail::f32_bits(in[start + i])) + " gave " + hex(out[i]) + ", want " +
                 hex(detail::f32_to_bf16(in[start + i])) + " (n " + std::to_string(n) + ")";
      if (n < out.size() && out[n] != 0xdead) return "wrote past the end (n " + std::to_string(n) + ")";
    }
  }
  return "";
}

// fn(in, out, n) rounds floats to half bits. Finite and infinite values: detail::f32_to_fp16 bit
// for bit (round to nearest even, subnormals); NaN: a NaN of the same sign (hardware conversions
// keep the payload where the scalar code gives the canonical one, as PyTorch's vector paths do).
template <class Fn>
std::string check_narrow_half(Fn fn) {
  const std::vector<float> in = stress_floats(5000, 12);
  std::vector<uint16_t> out(in.size());
  for (size_t n : {size_t(1), size_t(3), size_t(4), size_t(5), size_t(17), in.size()}) {
    fn(in.data(), out.data(), int64_t(n));
    for (size_t i = 0; i < n; ++i) {
      const uint16_t want = detail::f32_to_fp16(in[i]);
      const bool nan = std::isnan(in[i]);
      const bool ok = nan ? ((out[i] & 0x7c00u) == 0x7c00u && (out[i] & 0x3ffu) != 0 && (out[i] >> 15) == (want >> 15))
                          : out[i] == want;
      if (!ok) return "half of " + hex(detail::f32_bits(in[i])) + " gave " + hex(out[i]) + ", want " + hex(want);
    }
  }
  return "";
}

// fn(in, out, n) widens bfloat16 (exact: the bits shifted) or half (detail::fp16_to_f32; a NaN
// stays a NaN of the same sign) to float, for every 16-bit pattern.
template <class Fn>
std::string check_widen(Fn fn, bool half) {
  std::vector<uint16_t> in(65536 + 5);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint16_t(i * 40503u);  // a permutation, then 5 more
  std::vector<float> out(in.size());
  fn(in.data(), out.data(), int64_t(in.size()));
  for (size_t i = 0; i < in.size(); ++i) {
    const float want = half ? detail::fp16_to_f32(in[i]) : detail::bf16_to_f32(in[i]);
    const bool ok = std::isnan(want) ? std::isnan(out[i]) && std::signbit(out[i]) == std::signbit(want)
                                     : detail::f32_bits(out[i]) == detail::f32_bits(want);
    if (!ok)
      return std::string(half ? "half " : "bfloat16 ") + hex(in[i]) + " widened to " + hex(detail::f32_bits(out[i])) +
             ", want " + hex(detail::f32_bits(want));
  }
  return "";
}

#if defined(__aarch64__)
// arm::Bf16Gemm, run serially, against double-precision products of the same bfloat16 values:
// every transpose pair, sizes around the 8 x 8 tile and k around its groups of 4, leading
// dimensions wider than the matrices, two batch elements (sharing one B in some cases: batch
// stride 0), alpha and beta (0 must not read C: C starts as NaN there). Bound: C's own rounding (2^-8 relative) plus float accumulation (the
// extension rounds partial sums to odd: 2^-22 relative per step, k steps) of sum |a| |b|.
inline std::string check_bf16_gemm() {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.f, 1.f);
  auto bf = [&] { return detail::f32_to_bf16(normal(rng)); };
  const int64_t sizes[][3] = {{1, 1, 1}, {8, 8, 4}, {9, 7, 5}, {17, 23, 33}, {3, 16, 64}, {33, 9, 130}, {64, 64, 64}};
  for (const auto& s : sizes)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (float beta : {0.f, 0.5f}) {
          const int64_t m = s[0], n = s[1], k = s[2], batch = 2;
          const bool shared_b = beta != 0.f && ta;  // every batch element multiplies one B
          arm::Bf16Gemm g;
          g.m = m, g.n = n, g.k = k, g.batch = batch, g.ta = ta, g.tb = tb, g.alpha = 1.5f, g.beta = beta;
          g.lda = (ta ? m : k) + 3, g.ldb = (tb ? k : n) + 2, g.ldc = n + 1;
          g.stride_a = (ta ? k : m) * g.lda + 5, g.stride_b = shared_b ? 0 : (tb ? n : k) * g.ldb, g.stride_c = m * g.ldc + 7;
          std::vector<uint16_t> A(size_t(batch * g.stride_a)), B(size_t(shared_b ? (tb ? n : k) * g.ldb : batch * g.stride_b)),
              C(size_t(batch * g.stride_c));
          for (auto& x : A) x = bf();
          for (auto& x : B) x = bf();
          for (auto& x : C) x = beta == 0.f ? uint16_t(0x7fc0) : bf();
          const std::vector<uint16_t> C0 = C;
          g.a = A.data(), g.b = B.data(), g.c = C.data();
          std::vector<uint16_t> packed(size_t(g.packed_b_size()));
          g.pack_b(packed.data(), 0, g.col_tiles());
          g.rows(packed.data(), 0, g.row_tiles());
          for (int64_t bi = 0; bi < batch; ++bi)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < n; ++j) {
                double dot = 0, mag = 0;
                for (int64_t p = 0; p < k; ++p) {
                  const double a = detail::bf16_to_f32(A[size_t(bi * g.stride_a + (ta ? p * g.lda + i : i * g.lda + p))]);
                  const double b = detail::bf16_to_f32(B[size_t(bi * g.stride_b + (tb ? j * g.ldb + p : p * g.ldb + j))]);
                  dot += a * b, mag += std::fabs(a * b);
                }
                const size_t at = size_t(bi * g.stride_c + i * g.ldc + j);
                const double c0 = beta == 0.f ? 0.0 : detail::bf16_to_f32(C0[at]);
                const double want = 1.5 * dot + beta * c0;
                const double got = detail::bf16_to_f32(C[at]);
                const double tol = std::ldexp(std::fabs(want), -8) + std::ldexp(1.5 * mag + std::fabs(beta * c0), -22) * double(k + 2);
                if (!(std::fabs(got - want) <= tol)) {
                  std::ostringstream os;
                  os << "gemm " << m << "x" << n << "x" << k << " ta " << ta << " tb " << tb << " beta " << beta
                     << ": C[" << bi << "][" << i << "][" << j << "] = " << got << ", want " << want << " +- " << tol;
                  return os.str();
                }
              }
          // Padding between the rows and matrices of C is not written.
          for (int64_t bi = 0; bi < batch; ++bi)
            for (int64_t i = 0; i < m; ++i) {
              const size_t at = size_t(bi * g.stride_c + i * g.ldc + n);
              if (at < C.size() && C[at] != C0[at]) return "gemm wrote C's padding at " + std::to_string(at);
            }
        }
  return "";
}
#endif

}  // namespace ember::bf16_checks
