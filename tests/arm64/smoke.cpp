// The CI's 64-bit Arm smoke test (scripts/arm64-smoke.sh; README "64-bit Arm"): what of ember's
// Arm-specific code builds with the cross compiler alone (no arm64 -dev packages, no library)
// and runs under qemu-aarch64 in seconds: the block conversions of ops/cpu/convert_vec.h as the
// kernel sets compile them (this file is built once per set: NEON, SVE) and the BF16 extension's
// paths (ops/arm_bf16.cpp: BFCVTN, the BFMMLA product) when the CPU model has them. The whole
// suite runs under emulation with `make test-arm64`. Prints what ran; exits 1 on a mismatch.
#include <cstdio>
#include <string>

#include "ember/ops/cpu/convert_vec.h"
#include "tests/arm64/bf16_checks.h"

namespace {
int failures = 0;
void report(const char* what, const std::string& error) {
  std::printf("%-44s %s\n", what, error.empty() ? "ok" : ("FAILED: " + error).c_str());
  if (!error.empty()) ++failures;
}
}  // namespace

int main() {
  using namespace ember;
  using namespace ember::bf16_checks;
#if defined(__ARM_FEATURE_SVE)
  const char* set = "sve";
#else
  const char* set = "neon";
#endif
  const bool bf16 = arm::has_bf16();
  std::printf("arm64 smoke, kernel set %s, BF16 extension %s\n", set, bf16 ? "present" : "absent");
  report("narrow float -> bfloat16 (kernel set)", check_narrow_bf16([](const float* in, uint16_t* out, int64_t n) {
           cpu::narrow(in, reinterpret_cast<BFloat16*>(out), n);
         }));
  report("narrow float -> half (kernel set)", check_narrow_half([](const float* in, uint16_t* out, int64_t n) {
           cpu::narrow(in, reinterpret_cast<Half*>(out), n);
         }));
  report("widen bfloat16 -> float (kernel set)", check_widen([](const uint16_t* in, float* out, int64_t n) {
           cpu::widen(reinterpret_cast<const BFloat16*>(in), out, n);
         }, false));
  report("widen half -> float (kernel set)", check_widen([](const uint16_t* in, float* out, int64_t n) {
           cpu::widen(reinterpret_cast<const Half*>(in), out, n);
         }, true));
  if (bf16) {
    report("narrow float -> bfloat16 (BFCVTN)", check_narrow_bf16(arm::narrow_bf16));
    report("bfloat16 matrix product (BFMMLA)", check_bf16_gemm());
  }
  return failures ? 1 : 0;
}
