#!/usr/bin/env bash
# Prints the kernel instruction sets (EMBER_CPU_CAPABILITIES) this machine can run: "default",
# plus "avx512" where the CPU has AVX-512 F, BW, VL and DQ (what best_cpu_capability() asks for in
# ember/ops/op_def.cpp). The Makefile's Release build compiles these (see its CPU_CAPS).
set -euo pipefail
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true) "
for x in avx512f avx512bw avx512vl avx512dq; do
  if [[ $flags != *" $x "* ]]; then
    echo default
    exit 0
  fi
done
echo 'default;avx512'
