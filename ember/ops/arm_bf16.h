// The bfloat16 paths of 64-bit Arm's BF16 extension (FEAT_BF16: BFCVT, BFMMLA), chosen at run
// time: in Neoverse V1/V2/N2 (Graviton 3 and 4, Grace), absent from older cores (Cortex-A72,
// Neoverse N1). Note [Arm BF16 paths] in arm_bf16.cpp says why they are functions chosen per
// call rather than a third kernel set. Nothing here but the CPU and core/half.h (the CI's Arm
// smoke test, tests/arm64/smoke.cpp, links this file alone).
#pragma once
#include <cstdint>

namespace ember::arm {
// True on AArch64 when the CPU has the BF16 extension (the kernel's HWCAP2_BF16) and neither
// EMBER_CPU_CAPABILITY=default nor ATEN_CPU_CAPABILITY=default forces the portable kernels;
// false on other architectures.
bool has_bf16();

#if defined(__aarch64__)
// out[i] = bfloat16(in[i]) with BFCVTN: rounded to nearest even, a NaN quieted with its sign
// and top payload bits kept, bit for bit what detail::f32_to_bf16 gives. Requires has_bf16().
void narrow_bf16(const float* in, uint16_t* out, int64_t n);

// A bfloat16 matrix product with BFMMLA, for each batch element b:
//   C_b = alpha op(A_b) op(B_b) + beta C_b   (row-major, op: transposed where ta / tb)
// the products of bfloat16 pairs summed in float with the extension's rounding (round-to-odd
// partial sums, subnormals flushed: what the hardware PyTorch's oneDNN/ACL path uses does) and
// C rounded to bfloat16 once. beta == 0 does not read C. The work is split in two parts that a
// caller runs in parallel (ops/blas.cpp): packing op(B) in tiles of 8 columns, then C in tiles
// of 8 rows. Requires has_bf16().
struct Bf16Gemm {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool ta = false, tb = false;
  const uint16_t* a = nullptr;
  int64_t lda = 1, stride_a = 0;
  const uint16_t* b = nullptr;
  int64_t ldb = 1, stride_b = 0;
  uint16_t* c = nullptr;
  int64_t ldc = 1, stride_c = 0;
  float alpha = 1.f, beta = 0.f;

  // pack_b's work items (op(B) is packed once when all batch elements share it: stride_b 0).
  int64_t col_tiles() const { return (stride_b == 0 ? 1 : batch) * ((n + 7) / 8); }
  int64_t row_tiles() const { return batch * ((m + 7) / 8); }  // rows' work items
  int64_t packed_b_size() const;                               // elements of pack_b's buffer
  // Packs column tiles [t0, t1) of every batch element's op(B) into packed (packed_b_size()).
  void pack_b(uint16_t* packed, int64_t t0, int64_t t1) const;
  // Computes row tiles [t0, t1) of C from the packed op(B).
  void rows(const uint16_t* packed, int64_t t0, int64_t t1) const;
};
#endif
}  // namespace ember::arm
