#!/usr/bin/env bash
# Builds and runs bench/datapipe_csv_bench.cpp: a FileLister -> open_files -> parse_csv ->
# map -> shuffle -> batch -> collate graph over ~100 MB of generated CSV against a plain
# C++ loop doing the same parsing, conversion and collation.
# Usage: bench/datapipe_csv_bench.sh [dir] [MB] [rounds]   (env: BUILD=build)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
mkdir -p "$BUILD/bench"
LOCK=/tmp/ember-build.lock
if [[ -e $LOCK ]]; then flock "$LOCK" cmake --build "$BUILD" --target ember >/dev/null
else cmake --build "$BUILD" --target ember >/dev/null; fi
g++ -O2 -std=c++20 -I. -Icompat bench/datapipe_csv_bench.cpp -L"$BUILD" -lember -Wl,-rpath,"$PWD/$BUILD" \
  -o "$BUILD/bench/datapipe_csv_bench"
"$BUILD/bench/datapipe_csv_bench" "$@"
