#!/usr/bin/env bash
# Issue 17's FSDP memory figure: builds bench/fsdp_bench.cpp against ember and runs it with
# `ember run` under FSDP (FULL_SHARD) and DDP on 2 and 4 ranks (loopback).
# Usage: bench/fsdp_bench.sh [steps]   (env: BUILD=build, RANKS="2 4", MODES="fsdp fsdp-fine ddp")
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
STEPS=${1:-3}
OUT=$BUILD/bench
mkdir -p "$OUT"
cmake --build "$BUILD" --target ember ember-cli >/dev/null
g++ -O3 -march=native -std=c++20 -o "$OUT/fsdp_bench" bench/fsdp_bench.cpp -Icompat -I"$BUILD/compat-gen" -I. \
  -L"$BUILD" -lember -Wl,-rpath,"$PWD/$BUILD"
for n in ${RANKS:-2 4}; do
  for mode in ${MODES:-fsdp fsdp-fine ddp}; do
    "$BUILD/bin/ember" run --nproc-per-node "$n" --master-port 29760 "$OUT/fsdp_bench" "$mode" "$STEPS"
  done
done
