#!/usr/bin/env bash
# The whole GPU check of ember's CUDA backend in one command (issue 16).
#
# How the build reaches the GPU machine: it is built HERE. The GPU machine has nvcc, CMake and
# PyTorch but none of the Debian -dev packages ember's CPU side links (oneDNN, OpenBLAS, SLEEF,
# libarchive, curl, RE2...), and no network. `pack` builds the CUDA test binary and the GPU
# benchmark, strips them and libember.so, and puts them with every shared library they load
# (ldd, less glibc, the CUDA driver and the CUDA libraries, which the machine has: PyTorch's
# nvidia-* wheels hold libcudart, cuBLAS, cuDNN, NCCL... for CUDA 13) into gpu-bundle.tar.xz,
# which the device tool carries (`carry: ["gpu-bundle.tar.xz"]`, within its 64 MiB). `run`, on the GPU
# machine, unpacks it and runs, printing one summary line per suite:
#   1. the CUDA tests (tests/cuda: every pointwise op, reductions, indexing, sorting,
#      sampling, pooling and layers on CUDA against the CPU, copies, the runtime, the
#      allocator, pinned memory, ProcessGroupNCCL), with a per-test timeout; then the NCCL
#      tests again for their own line;
#   2. compute-sanitizer memcheck and racecheck over the CUDA tests;
#   3. bench/cuda_bench against PyTorch eager on the same card (bench/cuda_bench.py): time
#      ratio (> 1: ember faster) and bandwidth, FLOP/s or items/s per case: pointwise,
#      copies, bf16 matmul, small-op overhead, ResNet-18 and TransformerEncoder training
#      steps, and ember's own CPU ResNet-18 step (the GPU/CPU speed-up per image);
#   4. `ember train --device cuda` (the demo CNN, 3 epochs) and the same on the CPU.
# All of it in under 8 minutes. Output also goes to $OUT/gpu-check.log when $OUT is set.
# Usage:
#   scripts/gpu-check.sh pack [BUILD=build]   here
#   scripts/gpu-check.sh run                  on the GPU machine, from the repository root
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-run}
BUILD=${BUILD:-build}
BUNDLE=gpu-bundle.tar.xz

if [[ $mode == pack ]]; then
  set -e
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_CUDA=ON >/dev/null
  cmake --build "$BUILD" --target ember cuda_tests ember-cli
  stage=$(mktemp -d)
  mkdir -p "$stage/bin" "$stage/lib"
  g++ -O2 -std=c++20 -o "$stage/bin/cuda_bench" bench/cuda_bench.cpp -Icompat -I"$BUILD/compat-gen" -I. \
    -I/usr/local/cuda/include -DEMBER_WITH_CUDA=1 -L"$BUILD" -lember -Wl,-rpath,'$ORIGIN/../lib'
  cp "$BUILD/tests/cuda_tests" "$BUILD/bin/ember" "$stage/bin/"
  cp -L "$BUILD"/libember.so.0 "$stage/lib/"
  # Every library the binaries load, but glibc's own and the CUDA driver.
  for f in "$stage/bin/"* "$stage/lib/libember.so.0"; do
    LD_LIBRARY_PATH=$BUILD ldd "$f" | awk '/=> \//{print $3}'
  done | sort -u | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*|libcuda)\.so' |
    grep -Ev '/lib(cudart|cublas|cublasLt|cudnn[a-z_]*|nccl|nvrtc|cufft|cusolver|curand|cusparse|nvJitLink)\.so' |
    while read -r lib; do cp -Ln "$lib" "$stage/lib/"; done
  strip --strip-unneeded "$stage/bin/"* "$stage/lib/"*.so* 2>/dev/null || true
  chmod u+w "$stage/lib/"*
  if patchelf --version >/dev/null 2>&1; then
    for b in cuda_tests ember; do patchelf --set-rpath '$ORIGIN/../lib' "$stage/bin/$b"; done
  fi
  tar -C "$stage" -cf - bin lib | xz -T2 -6 >"$BUNDLE"
  rm -rf "$stage"
  echo "gpu-check: packed $(du -h "$BUNDLE" | cut -f1) into $BUNDLE"
  exit 0
fi

[[ $mode == run ]] || { echo "usage: $0 pack|run" >&2; exit 2; }
log=${OUT:-/tmp}/gpu-check.log
exec > >(tee "$log") 2>&1
start=$SECONDS
summary=()
say() { summary+=("$*"); echo "== $*"; }

[[ -f $BUNDLE ]] || { echo "gpu-check: $BUNDLE is missing: run '$0 pack' here and carry it"; exit 1; }
root=$(mktemp -d)
tar -C "$root" -xJf "$BUNDLE"
# The CUDA libraries: PyTorch's nvidia-* wheels, then the toolkit's.
cuda_libs=$(python3 - <<'PY'
import glob, os, site
dirs = set()
for sp in site.getsitepackages() + [site.getusersitepackages()]:
    dirs.update(os.path.dirname(p) for p in glob.glob(os.path.join(sp, "nvidia", "**", "lib*.so*"), recursive=True))
print(":".join(sorted(dirs)))
PY
)
export LD_LIBRARY_PATH="$root/lib:${cuda_libs}:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
LD_LIBRARY_PATH=$LD_LIBRARY_PATH ldd "$root/bin/cuda_tests" | grep 'not found' && echo "gpu-check: libraries missing (above)"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

# 1. The CUDA tests.
timeout 300 "$root/bin/cuda_tests" --gtest_brief=1 >"$root/tests.txt" 2>&1
rc=$?
tail -n 40 "$root/tests.txt"
passed=$(grep -c '^\[       OK \]' "$root/tests.txt" || true)
failed=$(grep -c '^\[  FAILED  \].*ms)' "$root/tests.txt" || true)
skipped=$(grep -c '^\[  SKIPPED \]' "$root/tests.txt" || true)
say "cuda_tests: exit $rc; $(grep -E '^\[  PASSED  \]' "$root/tests.txt" || echo "no PASSED line"); failed $failed, skipped $skipped"

# 1b. NCCL (issue 17): ProcessGroupNCCL's collectives in a world of one on this GPU, a missing
#     rank named within the timeout, DDP over NCCL against local training (also in step 1; run
#     again here for its own line, with NCCL's warnings shown).
NCCL_DEBUG=WARN timeout 120 "$root/bin/cuda_tests" --gtest_filter='ProcessGroupNCCL.*' >"$root/nccl.txt" 2>&1
rc=$?
tail -n 12 "$root/nccl.txt"
say "NCCL tests: exit $rc; $(grep -E '^\[  PASSED  \]' "$root/nccl.txt" || echo "no PASSED line"); $(grep -c '^\[  FAILED  \].*ms)' "$root/nccl.txt") failed"
# 2. compute-sanitizer over the device tests (memcheck: out-of-bounds and misaligned accesses,
#    leaks of device memory; racecheck: shared-memory races).
if command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 99 "$root/bin/cuda_tests" \
      --gtest_brief=1 --gtest_filter='CudaRuntime.*:CudaPointwise.InPlace*:CudaCopy.*:CudaIndex.OutOfRange*:CudaIndex.Masks*:CudaRandom.UniformIs*:CudaNn.Pooling*:CudaNorm.LayerNorm*' \
      >"$root/$tool.txt" 2>&1
    rc=$?
    tail -n 5 "$root/$tool.txt"
    say "compute-sanitizer $tool: exit $rc ($(grep -Eo 'ERROR SUMMARY: [0-9]+ error' "$root/$tool.txt" | tail -1))"
  done
else
  say "compute-sanitizer: not found on this machine"
fi

# 3. Benchmarks against PyTorch on the same card, in groups (each with a time limit).
: >"$root/ember.txt"
: >"$root/torch.txt"
for group in "add copy matmul adds" "resnet18 train step b256" "transformer" "CPU"; do
  # shellcheck disable=SC2086
  timeout 150 "$root/bin/cuda_bench" $group >>"$root/ember.txt" 2>&1 || echo "cuda_bench $group: exit $?" >>"$root/ember.txt"
  [[ $group == CPU ]] && continue
  # shellcheck disable=SC2086
  timeout 150 python3 bench/cuda_bench.py $group >>"$root/torch.txt" 2>&1 || echo "cuda_bench.py $group: exit $?" >>"$root/torch.txt"
done
echo "-- benchmarks (ratio = PyTorch time / ember time; > 1: ember faster)"
awk -F'\t' '
  FNR == 1 { file++ }
  NF < 4 { next }
  file == 1 { tt[$1] = $2; next }
  { order[++n] = $1; et[$1] = $2; w[$1] = $3; u[$1] = $4 }
  function rate(t, c) {
    if (u[c] == "B") return sprintf("%.0f GB/s", w[c] / t / 1e9)
    if (u[c] == "FLOP") return sprintf("%.0f TFLOP/s", w[c] / t / 1e12)
    if (u[c] == "img" || u[c] == "seq") return sprintf("%.1f %s/s", w[c] / t, u[c])
    return sprintf("%.2f us/op", t * 1e6)
  }
  END {
    for (i = 1; i <= n; i++) {
      c = order[i]
      ratio = (c in tt) ? sprintf("%.2f", tt[c] / et[c]) : "n/a"
      printf "bench %-38s ember %14s  torch %14s  ratio %s\n", c, rate(et[c], c), (c in tt) ? rate(tt[c], c) : "n/a", ratio
      if (u[c] == "img") img[c ~ /CPU/ ? "cpu" : "gpu"] = w[c] / et[c]
    }
    if (("cpu" in img) && ("gpu" in img))
      printf "bench ResNet-18 step, ember GPU / ember CPU, per image: %.1fx (the seed claims up to 20x)\n", img["gpu"] / img["cpu"]
  }' "$root/torch.txt" "$root/ember.txt" | tee "$root/bench.txt"
grep -v $'\t' "$root/ember.txt" "$root/torch.txt" | head -8
say "benchmarks: $(grep -c '^bench ' "$root/bench.txt") lines (above)"

# 4. The demo CNN trained on the GPU (ember train --device cuda), and on the CPU for comparison.
for dev in cuda cpu; do
  timeout 120 "$root/bin/ember" train --epochs 3 --no-progress --device "$dev" --data data/digits/digits.csv.gz \
    --checkpoint "$root/demo-$dev.safetensors" >"$root/train-$dev.txt" 2>&1
  rc=$?
  tail -n 2 "$root/train-$dev.txt"
  say "ember train --device $dev: exit $rc; $(grep -E '^trained in' "$root/train-$dev.txt"); $(tail -n 1 "$root/train-$dev.txt")"
done

echo
echo "gpu-check summary ($((SECONDS - start)) s):"
printf '  %s\n' "${summary[@]}"
