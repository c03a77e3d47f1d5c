#!/usr/bin/env bash
# Installs every Debian package that ember's build, tests and benchmarks need.
# Idempotent and non-interactive; skips apt entirely when everything is present.
#   install-deps.sh          everything (make test)
#   install-deps.sh --demo   only what the library and the `ember` command need (make demo)
#   install-deps.sh --arm64  the cross build for 64-bit Arm (make test-arm64): the cross compiler,
#                            qemu, and the library's and tests' dependencies for arm64
set -euo pipefail

demo_only=0
[[ "${1:-}" == "--demo" ]] && demo_only=1

# ---- the cross build for 64-bit Arm (issue 19; cmake/aarch64-linux-gnu.cmake) -----------------
# Debian's arm64 packages install beside the host's (multiarch), except two whose headers differ
# per architecture and so cannot share /usr/include with the amd64 ones the host build needs
# (libdnnl-dev, libgloo-dev, llvm-14-dev): those are unpacked into build-arm64-deps/ (ARM64_DEPS),
# where the toolchain file looks first. The runtime libraries they need are installed normally.
if [[ "${1:-}" == "--arm64" ]]; then
  root=$(cd "$(dirname "$0")/.." && pwd)
  deps=${ARM64_DEPS:-$root/build-arm64-deps}
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  arm=(libopenblas-dev liblapacke-dev libdnnl2 libsleef-dev zlib1g-dev libgtest-dev libgmock-dev libarchive-dev
       libcurl4-openssl-dev libssl-dev libre2-dev liblz4-dev libzstd-dev libhiredis0.14 libibverbs1
       libllvm14)
  packages=(build-essential cmake ninja-build ccache pkg-config libcli11-dev g++-aarch64-linux-gnu qemu-user-static)
  for p in "${arm[@]}"; do packages+=("$p:arm64"); done
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    if ! dpkg --print-foreign-architectures | grep -qx arm64; then $sudo dpkg --add-architecture arm64; fi
    $sudo apt-get update -q
    $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
  fi
  # llvm-14-dev: the JIT's code generator (libember_llvm.so) is built against its headers.
  unpacked=(libdnnl-dev libgloo-dev libgloo0 llvm-14-dev)
  if [[ ! -f "$deps/.unpacked" ]] || [[ "$(cat "$deps/.unpacked")" != "${unpacked[*]}" ]]; then
    rm -rf "$deps"
    mkdir -p "$deps/debs"
    (cd "$deps/debs" && apt-get download "${unpacked[@]/%/:arm64}" </dev/null)
    for d in "$deps"/debs/*.deb; do dpkg-deb -x "$d" "$deps"; done
    # The development links point at the runtime libraries installed above.
    ln -sf /usr/lib/aarch64-linux-gnu/libdnnl.so.2 "$deps/usr/lib/aarch64-linux-gnu/libdnnl.so"
    ln -sf /usr/lib/aarch64-linux-gnu/libLLVM-14.so.1 "$deps/usr/lib/llvm-14/lib/libLLVM-14.so"
    rm -f "$deps"/usr/lib/llvm-14/lib/*.a  # LLVM's static libraries (hundreds of MB): the build links libLLVM
    echo "${unpacked[*]}" >"$deps/.unpacked"
  fi
  exit 0
fi

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
# The Arm smoke test in the suite (tests/arm64/smoke.cpp, scripts/arm64-smoke.sh): the cross
# compiler and qemu alone, no arm64 packages (--arm64, for make test-arm64, adds those).
if ((!demo_only)) && [[ $(uname -m) == x86_64 ]]; then packages+=(g++-aarch64-linux-gnu qemu-user-static); fi
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
