#!/usr/bin/env bash
# Writes compat/libtorch-headers.txt: every header path a LibTorch 1.13 C++ program may
# include, as Debian's libtorch-dev installs them (`dpkg -L libtorch-dev`). CMake generates a
# forwarding header for each path that compat/ does not write by hand (compat/CMakeLists.txt),
# and tests/compat/all_headers_test includes every one.
#
# Paths are as a program spells them: the C++ frontend's torch/csrc/api/include/torch/... is
# <torch/...>. Left out, because forwarding them to ember would pretend to offer what they are
# for: Python bindings (torch/python.h, torch/extension.h, */python*), ATen's and c10's kernel
# internals (ATen/native, ATen/cpu/vec, functorch, quantized, HIP/MIOpen, c10/test), and the
# TorchScript compiler, lazy tensors, profiler and RPC internals under torch/csrc other than
# autograd and the jit API that programs call (torch/csrc/jit/api, jit/serialization), and the
# two torch/csrc/utils headers the frontend's own headers include (variadic.h, memory.h).
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$here/compat/libtorch-headers.txt
version=$(dpkg-query -W -f='${Version}' libtorch-dev)
{
  echo "# LibTorch $version header paths (tools/compat/list-libtorch-headers.sh); one per line."
  dpkg -L libtorch-dev | grep -E '^/usr/include/.*\.(h|hpp|cuh)$' | sed 's|^/usr/include/||' |
    sed 's|^torch/csrc/api/include/||' |
    grep -vE '^(torch/python|torch/extension\.h|torch/python\.h)' |
    grep -vE '(^|/)python[^/]*$|/python/' |
    grep -vE '^ATen/(native|cpu/vec|functorch|quantized|hip|miopen)/' |
    grep -vE '^c10/(test|hip)/' |
    grep -vE '^caffe2/' |
    grep -vE '^torch/csrc/' ; \
  dpkg -L libtorch-dev | grep -E '^/usr/include/torch/csrc/((autograd|jit/api|jit/serialization)/.*\.(h|hpp)|utils/(variadic|memory)\.h)$' |
    sed 's|^/usr/include/||' | grep -vE '(^|/)python[^/]*$|/python/'
} | awk 'NR == 1 || !seen[$0]++' | { read -r first; echo "$first"; sort; } >"$out"
echo "$(($(wc -l <"$out") - 1)) paths in $out"
