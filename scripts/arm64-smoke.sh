#!/usr/bin/env bash
# The 64-bit Arm smoke test that `make test` (so CI) runs (README "64-bit Arm"): builds
# tests/arm64/smoke.cpp with Debian's cross compiler (g++-aarch64-linux-gnu, no arm64 -dev
# packages, no ember library: ops/arm_bf16.cpp and headers only) once per Arm kernel set (NEON,
# SVE), and runs it under qemu-aarch64 on a CPU model with SVE and BF16 (max) and on one with
# neither (cortex-a72). Seconds; the whole suite under emulation is `make test-arm64` (~20 min).
#   arm64-smoke.sh OUT_DIR   exit 0: passed, 1: failed, 77: skipped (no cross compiler or qemu)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/arm64-smoke}
cxx=aarch64-linux-gnu-g++
qemu=qemu-aarch64-static
for tool in $cxx $qemu; do
  if ! command -v $tool >/dev/null; then
    echo "arm64 smoke test skipped: $tool is not installed (scripts/install-deps.sh installs it)"
    exit 77
  fi
done
mkdir -p "$out"
flags=(-std=c++20 -O2 -Wall -Wextra -Werror -I"$root" -DEMBER_BUILDING)
$cxx "${flags[@]}" -c "$root/ember/ops/arm_bf16.cpp" -o "$out/arm_bf16.o"
# The kernel sets' flags and namespaces, as CMakeLists.txt compiles them for aarch64.
$cxx "${flags[@]}" -march=armv8-a -DEMBER_CPU_NS=cap_default "$root/tests/arm64/smoke.cpp" "$out/arm_bf16.o" -o "$out/smoke_default"
$cxx "${flags[@]}" -march=armv8.2-a+sve -DEMBER_CPU_NS=cap_sve "$root/tests/arm64/smoke.cpp" "$out/arm_bf16.o" -o "$out/smoke_sve"
sysroot=/usr/aarch64-linux-gnu  # the cross toolchain's C and C++ runtime
status=0
for run in "max default" "max sve" "cortex-a72 default"; do
  set -- $run
  echo "== qemu-aarch64 -cpu $1, kernel set $2"
  $qemu -cpu "$1" -L $sysroot "$out/smoke_$2" || status=1
done
exit $status
