#!/usr/bin/env bash
# Builds bench/ops_bench.cpp against ember and against Debian's LibTorch, runs them
# alternately at 1 and 2 threads, and prints LibTorch time / ember time per case
# (> 1 means ember is faster). LibTorch runs at its best on this machine: glibc keeps
# freed blocks mapped (no page faults per op), passive OpenMP waiting, AVX-512 kernels and
# OpenBLAS threads matching. ember runs with no tuning.
# Usage: bench/compare.sh [filter-substring]   (env: BUILD=build ROUNDS=2 BENCH=ops_bench;
#        BENCH=autograd_bench runs bench/autograd_bench.cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-2}
BENCH=${BENCH:-ops_bench}
FILTER=${1:-}
OUT=${BUILD}/bench
mkdir -p "$OUT"
EMBER_WITH_TORCH=1 ./scripts/install-deps.sh >/dev/null
cmake --build "$BUILD" --target ember >/dev/null

CXXFLAGS="-O3 -march=native -std=c++17 -fopenmp"
if [[ ! -x $OUT/${BENCH}_torch || bench/$BENCH.cpp -nt $OUT/${BENCH}_torch ]]; then
  g++ $CXXFLAGS -o "$OUT/${BENCH}_torch" bench/$BENCH.cpp \
    -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -Wno-deprecated-declarations
fi
g++ ${CXXFLAGS/c++17/c++20} -o "$OUT/${BENCH}_ember" bench/$BENCH.cpp -Icompat -I. \
  -L"$BUILD" -lember -Wl,-rpath,"$PWD/$BUILD"

# The FMA ceiling the GEMM cases are bounded by (a plain loop of independent FMAs).
g++ -O2 -march=native -fopenmp -o "$OUT/fma_peak" bench/fma_peak.cpp
for t in 1 2; do OMP_NUM_THREADS=$t "$OUT/fma_peak"; done

run_torch() {
  GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736 \
  OMP_WAIT_POLICY=PASSIVE ATEN_CPU_CAPABILITY=avx512 OPENBLAS_NUM_THREADS=$1 OMP_NUM_THREADS=$1 \
    "$OUT/${BENCH}_torch" "$1" "$FILTER"
}
run_ember() { OMP_NUM_THREADS=$1 "$OUT/${BENCH}_ember" "$1" "$FILTER"; }

for t in 1 2; do
  : >"$OUT/torch.$t"; : >"$OUT/ember.$t"
  for ((r = 0; r < ROUNDS; r++)); do
    run_torch "$t" >>"$OUT/torch.$t"
    run_ember "$t" >>"$OUT/ember.$t"
  done
done

printf '%-34s %8s %12s %12s %8s %12s\n' case threads "torch s" "ember s" ratio "ember rate"
for t in 1 2; do
  # best (minimum) time per case over the rounds
  awk -F'\t' -v t="$t" '
    FNR == 1 { file++ }
    file == 1 { if (!($1 in tt) || $2 < tt[$1]) tt[$1] = $2; next }
    { if (!($1 in et) || $2 < et[$1]) { et[$1] = $2; w[$1] = $3; u[$1] = $4 }; if (!($1 in seen)) { order[++n] = $1; seen[$1] = 1 } }
    END {
      for (i = 1; i <= n; i++) {
        c = order[i]; rate = "";
        if (u[c] == "B") rate = sprintf("%.1f GB/s", w[c] / et[c] / 1e9);
        else if (u[c] == "FLOP") rate = sprintf("%.0f GFLOP/s", w[c] / et[c] / 1e9);
        else rate = sprintf("%.2f us/op", et[c] * 1e6);
        tr = (c in tt) ? sprintf("%.3e", tt[c]) : "n/a";
        ratio = (c in tt) ? sprintf("%.2f", tt[c] / et[c]) : "n/a";
        printf "%-34s %8s %12s %12.3e %8s %12s\n", c, t, tr, et[c], ratio, rate;
      }
    }' "$OUT/torch.$t" "$OUT/ember.$t"
done
