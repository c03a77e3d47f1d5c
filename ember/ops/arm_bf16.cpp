// The BF16 extension's paths on 64-bit Arm (arm_bf16.h).
#include "ember/ops/arm_bf16.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include <sys/auxv.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "ember/core/half.h"
#include "ember/ops/cpu_capability_env.h"
#endif

// Note [Arm BF16 paths]
// ~~~~~~~~~~~~~~~~~~~~~
// x86-64's and Arm's wide kernel sets (AVX-512, SVE) recompile every kernel file; the BF16
// extension changes two things only: the float -> bfloat16 rounding that ends every BFloat16
// kernel (BFCVTN, eight values per two instructions) and the BFloat16 matrix product (BFMMLA, a
// 2x4 by 4x2 product per instruction), which on x86-64 oneDNN provides and on Arm, where
// Debian's oneDNN has no bfloat16 at all (no Arm Compute Library), ember did in float. A third
// kernel set for them would compile every kernel file again for two functions. So they are
// functions here, compiled for the extension with a target attribute (the rest of this file and
// the inline functions it instantiates stay at the baseline: no other code in the library may
// pick up an instruction an older CPU lacks), and called when has_bf16() says the CPU has it.
// PyTorch's Arm builds get the same two from oneDNN with the Arm Compute Library, also chosen at
// run time.

namespace ember::arm {

bool has_bf16() {
#if defined(__aarch64__)
  static const bool yes = (::getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0 && !detail::cpu_capability_forced_default();
  return yes;
#else
  return false;
#endif
}

#if defined(__aarch64__)
#define EMBER_TARGET_BF16 __attribute__((target("arch=armv8.2-a+bf16")))

EMBER_TARGET_BF16 void narrow_bf16(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    bfloat16x8_t r = vcvtq_low_bf16_f32(vld1q_f32(in + i));
    r = vcvtq_high_bf16_f32(r, vld1q_f32(in + i + 4));
    vst1q_bf16(reinterpret_cast<bfloat16_t*>(out + i), r);
  }
  for (; i < n; ++i) out[i] = detail::f32_to_bf16(in[i]);
}

namespace {

// The register tile: 8 x 8 of C, sixteen 2 x 2 BFMMLA accumulators.
constexpr int64_t kTile = 8;
// Packed panels: for each group of 4 along k, 8 lines (rows of op(A), columns of op(B)) of 4
// bfloat16 each, so lines 2p and 2p+1 are one BFMMLA operand (16 bytes). Zeros pad k to a
// multiple of 4 and the lines past the matrix's edge.
constexpr int64_t kGroup = 4 * kTile;

int64_t groups(int64_t k) { return (k + 3) / 4; }

// Packs lines [l0, l0 + kTile) of a lines x k matrix whose element (l, p) is m[l * sl + p * sp].
void pack(const uint16_t* m, int64_t sl, int64_t sp, int64_t lines, int64_t k, int64_t l0, uint16_t* dst) {
  std::memset(dst, 0, sizeof(uint16_t) * size_t(groups(k) * kGroup));
  const int64_t nl = std::min(kTile, lines - l0);
  for (int64_t l = 0; l < nl; ++l) {
    const uint16_t* src = m + (l0 + l) * sl;
    for (int64_t p = 0; p < k; ++p) dst[(p / 4) * kGroup + l * 4 + p % 4] = src[p * sp];
  }
}

// tile (8 x 8, row-major) = packed rows of op(A) times packed columns of op(B), k4 groups.
EMBER_TARGET_BF16 void tile_8x8(const uint16_t* ap, const uint16_t* bp, int64_t k4, float* tile) {
  float32x4_t acc[4][4];
#pragma GCC unroll 4
  for (int p = 0; p < 4; ++p)
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) acc[p][q] = vdupq_n_f32(0.f);
  const bfloat16_t* a = reinterpret_cast<const bfloat16_t*>(ap);
  const bfloat16_t* b = reinterpret_cast<const bfloat16_t*>(bp);
  for (int64_t g = 0; g < k4; ++g, a += kGroup, b += kGroup) {
    const bfloat16x8_t a0 = vld1q_bf16(a), a1 = vld1q_bf16(a + 8), a2 = vld1q_bf16(a + 16), a3 = vld1q_bf16(a + 24);
    const bfloat16x8_t bv[4] = {vld1q_bf16(b), vld1q_bf16(b + 8), vld1q_bf16(b + 16), vld1q_bf16(b + 24)};
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      acc[0][q] = vbfmmlaq_f32(acc[0][q], a0, bv[q]);
      acc[1][q] = vbfmmlaq_f32(acc[1][q], a1, bv[q]);
      acc[2][q] = vbfmmlaq_f32(acc[2][q], a2, bv[q]);
      acc[3][q] = vbfmmlaq_f32(acc[3][q], a3, bv[q]);
    }
  }
  // acc[p][q] holds rows 2p, 2p+1 by columns 2q, 2q+1, row by row.
#pragma GCC unroll 4
  for (int p = 0; p < 4; ++p)
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      vst1_f32(tile + (2 * p) * kTile + 2 * q, vget_low_f32(acc[p][q]));
      vst1_f32(tile + (2 * p + 1) * kTile + 2 * q, vget_high_f32(acc[p][q]));
    }
}

}  // namespace

int64_t Bf16Gemm::packed_b_size() const { return col_tiles() * groups(k) * kGroup; }

void Bf16Gemm::pack_b(uint16_t* packed, int64_t t0, int64_t t1) const {
  const int64_t nt = (n + kTile - 1) / kTile;
  // Column j of op(B) is row j of op(B)^T: element (j, p) is B(p, j).
  const int64_t sl = tb ? ldb : 1, sp = tb ? 1 : ldb;
  for (int64_t t = t0; t < t1; ++t)
    pack(b + (t / nt) * stride_b, sl, sp, n, k, (t % nt) * kTile, packed + t * groups(k) * kGroup);
}

void Bf16Gemm::rows(const uint16_t* packed, int64_t t0, int64_t t1) const {
  const int64_t k4 = groups(k), mt = (m + kTile - 1) / kTile, nt = (n + kTile - 1) / kTile;
  const int64_t sl = ta ? 1 : lda, sp = ta ? lda : 1;
  std::vector<uint16_t> apack(size_t(k4 * kGroup));
  float tile[kTile * kTile], row[kTile];
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t bi = t / mt, i0 = (t % mt) * kTile, mi = std::min(kTile, m - i0);
    pack(a + bi * stride_a, sl, sp, m, k, i0, apack.data());
    for (int64_t jt = 0; jt < nt; ++jt) {
      const int64_t j0 = jt * kTile, nj = std::min(kTile, n - j0);
      tile_8x8(apack.data(), packed + ((stride_b == 0 ? 0 : bi) * nt + jt) * k4 * kGroup, k4, tile);
      for (int64_t i = 0; i < mi; ++i) {
        uint16_t* cr = c + bi * stride_c + (i0 + i) * ldc + j0;
        for (int64_t j = 0; j < nj; ++j)
          row[j] = alpha * tile[i * kTile + j] + (beta != 0.f ? beta * detail::bf16_to_f32(cr[j]) : 0.f);
        narrow_bf16(row, cr, nj);
      }
    }
  }
}
#endif

}  // namespace ember::arm
