#!/usr/bin/env bash
# The fuzz build's C++ compiler launcher (CMakeLists.txt, EMBER_FUZZ): compiles with clang, and
# a file that clang rejects with g++ instead, with the same sanitizers but no fuzzer coverage.
#   compile.sh <ccache or "none"> <clang++ and its arguments...>
#
# Note [Files clang cannot compile]: the library is written for GCC 12, and clang 14 rejects code
# GCC accepts (the build prints "fuzz build: clang cannot compile <file>" for each file or unity
# batch): a non-dependent call such as VecMath<F>::apply inside a lambda in an `if constexpr`
# branch that is discarded for that F, which GCC never looks up (ember/ops/cpu/pointwise_kernels.cpp,
# a kernel file compiled alone; clang 16 rejects it too). Lambdas capturing structured bindings
# (C++20, clang 16 on) were the other case; the library no longer has them (the linalg and
# reduce_stats derivatives bind named references instead), so that the library's unity batches
# (Note [Library unity build] in CMakeLists.txt) compile with clang and keep the fuzzer's
# coverage. GCC-instrumented objects work with clang's ASan/UBSan runtimes, and libomp provides
# the GOMP entry points that GCC's OpenMP code calls.
set -uo pipefail
ccache=$1
shift
[[ $ccache == none || ! -x $ccache ]] && ccache=""

err=$(mktemp)
trap 'rm -f "$err"' EXIT
if ${ccache:+"$ccache"} "$@" 2>"$err"; then
  cat "$err" >&2
  exit 0
fi
src=""
args=()
for a in "${@:2}"; do
  case $a in
    -fsanitize=*) args+=("-fsanitize=address,undefined") ;;
    -fopenmp=*) args+=("-fopenmp") ;;
    -Wno-unknown-warning-option) ;;
    *.cpp | *.cc) src=$a; args+=("$a") ;;
    *) args+=("$a") ;;
  esac
done
echo "fuzz build: clang cannot compile ${src:-this file} ($(grep -m1 'error:' "$err" | cut -c1-200));" \
  "compiling it with g++ (ASan and UBSan, no fuzzer coverage): see Note [Files clang cannot compile] in $0" >&2
exec ${ccache:+"$ccache"} g++ "${args[@]}"
