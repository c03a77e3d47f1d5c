#!/usr/bin/env bash
# Issue 18's fuser figures: builds bench/jit_bench.cpp against ember and runs it.
# Usage: bench/jit_bench.sh [rows|transformer]   (env: BUILD=build; one figure only)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=$BUILD/bench
mkdir -p "$OUT"
cmake --build "$BUILD" --target ember ember_llvm >/dev/null
g++ -O3 -march=native -ffast-math -fopenmp -std=c++20 -o "$OUT/jit_bench" bench/jit_bench.cpp -Icompat -I"$BUILD/compat-gen" -I. -Ibench \
  -L"$BUILD" -lember -Wl,-rpath,"$PWD/$BUILD"
# A fresh process with the disk kernel cache off: every kernel is compiled (and timed).
EMBER_JIT_CACHE_DIR=off "$OUT/jit_bench" "$@"
