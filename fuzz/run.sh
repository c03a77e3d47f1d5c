#!/usr/bin/env bash
# Runs ember's libFuzzer targets (fuzz/CMakeLists.txt builds them; README.md "Fuzzing").
#   run.sh regress <target binary> <regression dir>          every input in the dir once
#   run.sh fuzz <target binary> <work dir> <seconds> [dirs]   fuzz from the seeds, the
#        corpus kept in <work dir>/corpus/<target> and [dirs]; prints libFuzzer's final stats
#   run.sh all <build dir> <seconds> [target...]             seeds, then every target in turn,
#        then one summary line per target (executions, exec/s, coverage)
# Crashes are saved as <work dir>/artifacts/<target>/crash-*; rerun one with
#   <target binary> <file>
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=0:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
# -malloc_limit_mb / -rss_limit_mb: readers must bound what they allocate from a small input (a
# 216-byte checkpoint must not allocate 1.2 GB); archives may fill up to 1 GiB of a sparse
# member's holes (ember/data/io/archive.cpp), which read_all holds. -timeout: no hangs.
limits() {
  case $1 in
    tar | zip) echo "-malloc_limit_mb=3072 -rss_limit_mb=4096" ;;
    *) echo "-malloc_limit_mb=1024 -rss_limit_mb=2048" ;;
  esac
}
flags=(-timeout=25 -print_final_stats=1)

mode=${1:-}
case "$mode" in
  regress)
    bin=$2 dir=$3
    shopt -s nullglob
    files=("$dir"/*)
    if ((${#files[@]} == 0)); then
      echo "$(basename "$bin"): no regression inputs in $dir"
      exit 0
    fi
    short=$(basename "$bin")
    # shellcheck disable=SC2046
    exec "$bin" "${flags[@]}" $(limits "${short%_fuzz}") -runs=0 "${files[@]}"
    ;;
  fuzz)
    bin=$2 work=$3 seconds=$4
    shift 4
    name=$(basename "$bin")
    short=${name%_fuzz}
    mkdir -p "$work/corpus/$short" "$work/artifacts/$short"
    dirs=("$work/corpus/$short")
    [[ -d $work/seeds/$short ]] && dirs+=("$work/seeds/$short")
    for d in "$@"; do [[ -d $d ]] && dirs+=("$d"); done
    log="$work/logs/$short.log"
    mkdir -p "$work/logs"
    # shellcheck disable=SC2046
    "$bin" "${flags[@]}" $(limits "$short") -max_total_time="$seconds" -artifact_prefix="$work/artifacts/$short/" "${dirs[@]}" >"$log" 2>&1
    rc=$?
    done_line=$(grep -aE '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1)
    [[ -z $done_line ]] && done_line=$(grep -aE '^#[0-9]+[[:space:]].* cov: ' "$log" | tail -1)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")
    corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9A-Za-z]*\).*/\1/p' <<<"$done_line")
    if ((rc != 0)); then
      echo "$short: FAILED (exit $rc) after ${execs:-?} executions; log $log:"
      grep -aE 'ERROR|SUMMARY|ember fuzz finding|Test unit written|terminate|what\(\)' "$log" | head -20
      exit "$rc"
    fi
    printf '%-18s %10s execs %8s exec/s  cov: %-6s ft: %-7s corp: %s\n' "$short" "${execs:-?}" "${rate:-?}" \
      "${cov:-?}" "${ft:-?}" "${corp:-?}"
    ;;
  all)
    build=$2 seconds=$3
    shift 3
    work="$build/fuzz"
    "$work/fuzz_seeds" "$work/seeds" || exit 1
    targets=("$@")
    if ((${#targets[@]} == 0)); then
      for b in "$work"/*_fuzz; do targets+=("$(basename "${b%_fuzz}")"); done
    fi
    status=0
    summary=()
    for t in "${targets[@]}"; do
      line=$("$here/run.sh" fuzz "$work/${t}_fuzz" "$work" "$seconds" "$here/../tests/fuzz/regressions/$t")
      rc=$?
      echo "$line"
      summary+=("$line")
      ((rc != 0)) && status=1
    done
    echo
    echo "== fuzzing summary ($seconds s per target; corpora in $work/corpus, crashes in $work/artifacts) =="
    printf '%s\n' "${summary[@]}" | grep -v '^ '
    exit $status
    ;;
  *)
    sed -n '2,9p' "$0"
    exit 2
    ;;
esac
