#!/usr/bin/env bash
# Prints the kernel instruction set (EMBER_CPU_CAPABILITIES) that the Makefile's Release build
# compiles: the widest this machine runs, the one best_cpu_capability() (ember/ops/op_def.cpp)
# picks here. x86-64: "avx512" where the CPU has AVX-512 F, BW, VL and DQ, else "default";
# AArch64: "sve" where the CPU has SVE, else "default".
#
# One set, not every set the machine runs: the tests can only reach the kernels dispatch picks,
# so on an AVX-512 machine the baseline kernels were a sixth of a cold build (3.5 minutes of CI)
# that no Release test ran. The baseline is tested by the sanitizer build (make test-asan), which
# compiles "default" alone. A plain `cmake` configure compiles every set (CMakeLists.txt), as a
# build for other machines must; `make CPU_CAPS='default;avx512' test` builds both here.
set -euo pipefail
case "$(uname -m)" in
  x86_64)
    flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true) "
    for x in avx512f avx512bw avx512vl avx512dq; do
      if [[ $flags != *" $x "* ]]; then
        echo default
        exit 0
      fi
    done
    echo avx512
    ;;
  aarch64)
    features=" $(grep -m1 '^Features' /proc/cpuinfo 2>/dev/null || true) "
    if [[ $features == *" sve "* ]]; then echo sve; else echo default; fi
    ;;
  *) echo default ;;
esac
