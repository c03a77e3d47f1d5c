#!/usr/bin/env bash
# Builds and runs bench/s3_bench.cpp (S3 streaming reader vs a single GET on local
# servers). Needs moto (scripts/install-deps.sh) and, for the nginx rows, nginx-light.
# Usage: bench/s3_bench.sh [object MB] [capped MB/s per connection]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
mkdir -p "$BUILD/bench"
cmake --build "$BUILD" --target ember >/dev/null
g++ -O2 -std=c++20 -I. bench/s3_bench.cpp -L"$BUILD" -lember -Wl,-rpath,"$PWD/$BUILD" -o "$BUILD/bench/s3_bench"
"$BUILD/bench/s3_bench" "$@"
