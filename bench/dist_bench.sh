#!/usr/bin/env bash
# Issue 17's distributed figures: builds bench/dist_bench.cpp against ember (and Gloo, for
# the raw-Gloo baseline) and runs it on 2 ranks with `ember run` (loopback, one thread per
# rank). Usage: bench/dist_bench.sh [nproc]   (env: BUILD=build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
NPROC=${1:-2}
OUT=$BUILD/bench
mkdir -p "$OUT"
cmake --build "$BUILD" --target ember ember-cli >/dev/null
g++ -O3 -march=native -std=c++20 -o "$OUT/dist_bench" bench/dist_bench.cpp -Icompat -I"$BUILD/compat-gen" -I. \
  -L"$BUILD" -lember -lgloo -Wl,-rpath,"$PWD/$BUILD"
"$BUILD/bin/ember" run --nproc-per-node "$NPROC" --master-port 29750 "$OUT/dist_bench"
