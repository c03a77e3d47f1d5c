// The reduced-precision block conversions (ops/cpu/convert_vec.h: NEON on 64-bit Arm, with BFCVTN
// where the CPU has the BF16 extension) and the BF16 extension's matrix product (ops/arm_bf16.h),
// against scalar code and double-precision references (tests/arm64/bf16_checks.h, shared with the
// CI's Arm smoke program), and through the ops that use them.
#define EMBER_CPU_NS test_baseline  // convert_vec.h compiled here, at this file's (baseline) flags
#include "ember/ops/cpu/convert_vec.h"

#include "arm64/bf16_checks.h"
#include "test_util.h"

#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

namespace ember {
namespace {

using namespace bf16_checks;

TEST(ConvertBlocks, NarrowAndWidenMatchTheScalarConversions) {
  EXPECT_EQ(check_narrow_bf16([](const float* in, uint16_t* out, int64_t n) {
              cpu::narrow(in, reinterpret_cast<BFloat16*>(out), n);
            }),
            "");
  EXPECT_EQ(check_narrow_half([](const float* in, uint16_t* out, int64_t n) {
              cpu::narrow(in, reinterpret_cast<Half*>(out), n);
            }),
            "");
  EXPECT_EQ(check_widen([](const uint16_t* in, float* out, int64_t n) {
              cpu::widen(reinterpret_cast<const BFloat16*>(in), out, n);
            }, false),
            "");
  EXPECT_EQ(check_widen([](const uint16_t* in, float* out, int64_t n) {
              cpu::widen(reinterpret_cast<const Half*>(in), out, n);
            }, true),
            "");
}

// The kernel sets' conversions (AVX-512 or NEON, whichever this CPU runs), through ops on
// bfloat16 and half (float math, one rounding per element): sums of random 16-bit patterns
// (NaNs, infinities, subnormals included) against the scalar rounding of the float sums; a
// half NaN needs only be a NaN of the same sign (hardware conversions keep payloads).
TEST(ConvertBlocks, ReducedPrecisionOpsRoundLikeTheScalarCode) {
  std::mt19937 rng(3);
  const int64_t n = 4099;  // 16 blocks of 256 and a tail of 3
  for (ScalarType t : {kBFloat16, kHalf}) {
    std::vector<uint16_t> a(n), b(n);
    for (auto* v : {&a, &b})
      for (auto& x : *v) x = uint16_t(rng());
    Tensor ta = empty({n}, t), tb = empty({n}, t);
    std::memcpy(ta.data_ptr(), a.data(), 2 * n);
    std::memcpy(tb.data_ptr(), b.data(), 2 * n);
    const Tensor sum = add(ta, tb);
    const uint16_t* got = static_cast<const uint16_t*>(sum.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      const bool bf = t == kBFloat16;
      auto widen1 = [&](uint16_t h) { return bf ? detail::bf16_to_f32(h) : detail::fp16_to_f32(h); };
      const float x = widen1(a[i]), y = widen1(b[i]), f = x + y;
      const uint16_t want = bf ? detail::f32_to_bf16(f) : detail::f32_to_fp16(f);
      const bool is_nan = bf ? (got[i] & 0x7f80u) == 0x7f80u && (got[i] & 0x7fu) : (got[i] & 0x7c00u) == 0x7c00u && (got[i] & 0x3ffu);
      bool ok = got[i] == want;
      // Two NaN operands: which one an addition returns is the compiler's choice (it may swap
      // them). One: it comes through, quieted; half's scalar conversion drops its payload.
      if (!ok && std::isnan(f)) ok = is_nan && (std::isnan(x) && std::isnan(y) ? true : !bf && (got[i] >> 15) == (want >> 15));
      ASSERT_TRUE(ok) << (bf ? "bfloat16" : "half") << " element " << i << ": " << hex(a[i]) << " + " << hex(b[i])
                      << " gave " << hex(got[i]) << ", want " << hex(want);
    }
  }
}

#if defined(__aarch64__)
TEST(ArmBf16, UsedExactlyWhenTheCpuHasTheExtension) {
  const bool cpu = (::getauxval(AT_HWCAP2) & HWCAP2_BF16) != 0;
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  const bool forced = (env && std::string(env) == "default");
  if (std::getenv("ATEN_CPU_CAPABILITY")) GTEST_SKIP() << "ATEN_CPU_CAPABILITY is set";
  EXPECT_EQ(arm::has_bf16(), cpu && !forced);
}

TEST(ArmBf16, NarrowIsBitExact) {
  if (!arm::has_bf16()) GTEST_SKIP() << "this CPU has no BF16 extension (qemu: -cpu max has it)";
  EXPECT_EQ(check_narrow_bf16(arm::narrow_bf16), "");
}

TEST(ArmBf16, GemmMatchesDoublePrecision) {
  if (!arm::has_bf16()) GTEST_SKIP() << "this CPU has no BF16 extension (qemu: -cpu max has it)";
  EXPECT_EQ(check_bf16_gemm(), "");
}

// matmul on BFloat16 runs the BFMMLA product where the CPU has it: its result is the kernel's,
// bit for bit (each element of C is one tile's sum over all of k, whatever the threads).
TEST(ArmBf16, MatmulRunsTheBfmmlaProduct) {
  if (!arm::has_bf16()) GTEST_SKIP() << "this CPU has no BF16 extension (qemu: -cpu max has it)";
  manual_seed(2);
  const Tensor a = randn({37, 300}).to(kBFloat16), b = randn({300, 29}).to(kBFloat16);
  const Tensor got = matmul(a, b);
  Tensor want = empty({37, 29}, kBFloat16);
  arm::Bf16Gemm g;
  g.m = 37, g.n = 29, g.k = 300, g.lda = 300, g.ldb = 29, g.ldc = 29;
  g.a = static_cast<const uint16_t*>(a.data_ptr()), g.b = static_cast<const uint16_t*>(b.data_ptr());
  g.c = static_cast<uint16_t*>(want.data_ptr());
  std::vector<uint16_t> packed(size_t(g.packed_b_size()));
  g.pack_b(packed.data(), 0, g.col_tiles());
  g.rows(packed.data(), 0, g.row_tiles());
  ASSERT_TRUE(got.is_contiguous());
  EXPECT_EQ(std::memcmp(got.data_ptr(), want.data_ptr(), 2 * 37 * 29), 0);
  // And the float path rounds differently somewhere (the extension's round-to-odd sums): the
  // comparison above can tell the two apart.
  const Tensor via_float = matmul(a.to(kFloat), b.to(kFloat)).to(kBFloat16);
  EXPECT_NE(std::memcmp(via_float.data_ptr(), want.data_ptr(), 2 * 37 * 29), 0);
}
#endif

// The BFloat16 product through matmul (BFMMLA on Arm CPUs with the extension, oneDNN on x86-64
// with AVX-512, float elsewhere), threads on, against double precision: a size with many tiles
// in both directions, a transposed operand, batched.
TEST(ArmBf16, MatmulThroughTheOpMatchesDoublePrecision) {
  manual_seed(9);
  const Tensor a = randn({3, 45, 70}).to(kBFloat16), b = randn({70, 37}).to(kBFloat16).t().contiguous().t();
  const Tensor got = matmul(a, b).to(kDouble);
  const Tensor want = matmul(a.to(kDouble), b.to(kDouble));
  const Tensor mag = matmul(a.to(kDouble).abs(), b.to(kDouble).abs());
  const Tensor excess = (got - want).abs() - (want.abs() * std::ldexp(1.0, -8) + mag * 70 * std::ldexp(1.0, -22));
  EXPECT_LE(excess.max().item<double>(), 0.0);
}

}  // namespace
}  // namespace ember
