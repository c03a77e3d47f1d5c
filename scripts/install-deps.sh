#!/usr/bin/env bash
# Installs every Debian package that ember's build, tests and benchmarks need.
# Idempotent and non-interactive; skips apt entirely when everything is present.
#   install-deps.sh          everything (make test)
#   install-deps.sh --demo   only what the library and the `ember` command need (make demo)
set -euo pipefail

demo_only=0
[[ "${1:-}" == "--demo" ]] && demo_only=1

packages=(
  build-essential cmake ninja-build ccache pkg-config
  libopenblas-dev liblapacke-dev libdnnl-dev libomp-dev libsleef-dev zlib1g-dev
  # the `ember` command's options
  libcli11-dev
  # the test suite's framework (configure looks for it whenever tests are enabled)
  libgtest-dev libgmock-dev
  # data loading: archives and compressed streams (libarchive), S3 over HTTPS (libcurl, OpenSSL)
  libarchive-dev libcurl4-openssl-dev libssl-dev zstd bzip2 xz-utils
  # the DataFrame: regular expressions (RE2), IPC buffer compression (LZ4, ZSTD)
  libre2-dev liblz4-dev libzstd-dev
  # distributed training: Gloo's collectives (ProcessGroupGloo)
  libgloo-dev
)
if ((!demo_only)); then packages+=(
  libbenchmark-dev
  # the fuzz targets (make fuzz, make test-fuzz): clang with libFuzzer and the sanitizer
  # runtimes, llvm-symbolizer for their stack traces
  clang-14 libclang-rt-14-dev llvm-14
  # the JIT's CPU code generator (libember_llvm.so, ORC JIT): the same LLVM as clang-14's
  llvm-14-dev
  # the references: tests/libtorch is built against LibTorch too (libtorch_reference_tests), and
  # the tests that compare with PyTorch itself need python3-torch
  libtorch-dev python3-torch python3-numpy
); fi
# Benchmarks (optional: EMBER_WITH_TORCH=1): bench/s3_bench.sh serves files with nginx.
if [[ "${EMBER_WITH_TORCH:-0}" == 1 ]]; then
  packages+=(nginx-light)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
fi

((demo_only)) && exit 0

# The checkpoint tests check ember's files against the reference safetensors package (PyPI).
# The S3 tests run against moto's S3-compatible server on 127.0.0.1 (PyPI).
if ! python3 -c "import safetensors, numpy, moto.server, flask" 2>/dev/null; then
  python3 -m pip install -q --disable-pip-version-check safetensors numpy "moto[server]" </dev/null
fi

# The DataFrame's interop tests and benchmarks compare with pyarrow, pandas and polars (PyPI).
if ! python3 -c "import pyarrow, pandas, polars" 2>/dev/null; then
  python3 -m pip install -q --disable-pip-version-check pyarrow pandas polars </dev/null
fi
