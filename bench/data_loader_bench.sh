#!/usr/bin/env bash
# DataLoader throughput, ember against PyTorch's Python DataLoader (Debian's /usr/bin/python3,
# torch 1.13) and, when it is installed, LibTorch's C++ DataLoader built from the same
# source: N samples of 3x32x32 float + an int64 label, batch 64 with Stack (PyTorch:
# TensorDataset + default_collate), 0 and 2 workers (threads in C++, processes in Python),
# sequential and random order. Each program reports its best epoch; ROUNDS runs alternate
# the programs and the best per case is kept. Prints samples/s per case and the ratio of
# ember with 2 workers to PyTorch's best configuration.
# Usage: bench/data_loader_bench.sh   (env: BUILD=build ROUNDS=2 SAMPLES=100000 EPOCHS=3 LIBTORCH=1)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
ROUNDS=${ROUNDS:-2}
SAMPLES=${SAMPLES:-100000}
EPOCHS=${EPOCHS:-3}
LIBTORCH=${LIBTORCH:-1}
OUT=${BUILD}/bench
mkdir -p "$OUT"

LOCK=/tmp/ember-build.lock
if [[ -e $LOCK ]]; then flock "$LOCK" cmake --build "$BUILD" --target ember >/dev/null
else cmake --build "$BUILD" --target ember >/dev/null; fi
g++ -O3 -march=native -std=c++20 -fopenmp -o "$OUT/data_loader_bench_ember" bench/data_loader_bench.cpp \
  -Icompat -I. -L"$BUILD" -lember -Wl,-rpath,"$PWD/$BUILD"
programs=(ember pytorch)
if [[ $LIBTORCH == 1 && -d /usr/include/torch/csrc/api/include ]]; then
  if [[ ! -x $OUT/data_loader_bench_libtorch || bench/data_loader_bench.cpp -nt $OUT/data_loader_bench_libtorch ]]; then
    g++ -O3 -march=native -std=c++17 -fopenmp -o "$OUT/data_loader_bench_libtorch" bench/data_loader_bench.cpp \
      -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10 -Wno-deprecated-declarations
  fi
  programs+=(libtorch)
fi

run() {
  case $1 in
    ember) "$OUT/data_loader_bench_ember" "$SAMPLES" "$EPOCHS" ;;
    libtorch) OMP_WAIT_POLICY=PASSIVE "$OUT/data_loader_bench_libtorch" "$SAMPLES" "$EPOCHS" ;;
    pytorch) /usr/bin/python3 bench/data_loader_bench.py "$SAMPLES" "$EPOCHS" ;;
  esac
}
for p in "${programs[@]}"; do : >"$OUT/data_loader.$p"; done
for ((r = 0; r < ROUNDS; r++)); do
  for p in "${programs[@]}"; do run "$p" >>"$OUT/data_loader.$p"; done
done

# Best samples/s per case and program (cases in the programs' order); then the table and
# the ratio of ember with 2 workers to PyTorch's best of 0 and 2 workers, per order.
for p in "${programs[@]}"; do
  awk -F'\t' -v p="$p" '{ if (!($1 in b)) o[++n] = $1; if (!($1 in b) || $2 > b[$1]) b[$1] = $2 }
    END { for (i = 1; i <= n; i++) print p "\t" o[i] "\t" b[o[i]] }' "$OUT/data_loader.$p"
done | awk -F'\t' '
  { v[$1, $2] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
  END {
    printf "%-24s %14s %14s %14s\n", "case (samples/s)", "ember", "PyTorch", "LibTorch";
    for (i = 1; i <= n; i++) {
      c = order[i];
      lt = (("libtorch", c) in v) ? sprintf("%.0f", v["libtorch", c]) : "n/a";
      printf "%-24s %14.0f %14.0f %14s\n", c, v["ember", c], v["pytorch", c], lt;
    }
    printf "\n";
    split("sequential random", orders, " ");
    for (k = 1; k <= 2; k++) {
      o = orders[k]; a = v["pytorch", o ", 0 workers"]; b = v["pytorch", o ", 2 workers"];
      best = a > b ? a : b; which = a > b ? "0 workers" : "2 workers";
      printf "%s: ember 2 workers / PyTorch best (%s) = %.2f (target >= 2)\n", o, which, v["ember", o ", 2 workers"] / best;
    }
  }'
