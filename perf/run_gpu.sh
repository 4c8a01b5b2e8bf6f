#!/usr/bin/env bash
# The GPU session, run on the GPU machine from the repository root:
#
#   perf/run_gpu.sh BIN_DIR [OUT_DIR]
#
# BIN_DIR holds the prebuilt CUDA binaries carried over (ridgeline-perf and the test_*_cuda
# GoogleTest executables, at any depth, e.g. a build tree or .out/cuda/). OUT_DIR defaults to $OUT.
# Steps, all against Kokkos::Cuda:
#   1. compile perf/cublas_baseline.cu with this machine's nvcc (in the background, during 2)
#   2. the GoogleTest binaries, full size
#   3. ridgeline-perf --shapes h200, then cublas_baseline on the same shapes; merge_results.py
#      then perf/fp64_pipe_probe.cu (compiled during 2): the FP64 pipe's rate on the fp64 GEMM's
#      register math alone, the ceiling its DGEMM row is read against
#   4. compute-sanitizer memcheck and racecheck on a reduced-size test run (RIDGELINE_TEST_REDUCED=1)
# Perf runs before the sanitizers so that a slow sanitizer cannot cost the numbers. Every step has
# a timeout derived from one overall deadline (RIDGELINE_GPU_BUDGET_S, default 450 s < 8 min).
#
# Exactly 8 files land in OUT_DIR: ridgeline_perf.{csv,json}, cublas.csv, merged.{csv,json,md},
# summary.txt and logs.tar.gz (every log, the cuBLAS build log and the roofline plot files).
#
# Knobs (environment): SHAPES (default h200; h200-half for the fp16/bf16/tf32 rows, batched for issue 14's
# strided batches against cublas?gemmStridedBatched), PERF_ARGS (extra ridgeline-perf/cublas arguments),
# CUDA_ARCH (default sm_90), GTEST_FILTER (gtest filter for step 2, default '*'), SANITIZER_FILTER (gtest
# filter for the sanitizer runs, default '*'),
# SANITIZER_STEP_S (the most seconds one sanitizer run may take, default 100; racecheck of the full
# reduced test_gemm_cuda needs about 150, so a record with RIDGELINE_GPU_BUDGET_S near 570 passes 160),
# RIDGELINE_GIT_SHA (overrides the sha baked into ridgeline-perf).
set -uo pipefail

bin_dir=${1:?usage: perf/run_gpu.sh BIN_DIR [OUT_DIR]}
out=${2:-${OUT:?set OUT or pass OUT_DIR}}
shapes=${SHAPES:-h200}
arch=${CUDA_ARCH:-sm_90}
san_filter=${SANITIZER_FILTER:-*}
gtest_filter=${GTEST_FILTER:-*}
budget=${RIDGELINE_GPU_BUDGET_S:-450}
perf_args=${PERF_ARGS:-}
san_step=${SANITIZER_STEP_S:-100}

start=$(date +%s)
mkdir -p "$out"
work=$(mktemp -d)
logs=$work/logs
mkdir -p "$logs"
summary=$out/summary.txt
: >"$summary"
say() { printf '%s\n' "$*" | tee -a "$summary"; }
left() { echo $((budget - ($(date +%s) - start))); }
# timeout for the next step: at most $1 s, and never past the deadline minus a reserve for packing.
step_limit() {
  local want=$1 l
  l=$(($(left) - 20))
  [ "$l" -lt "$want" ] && want=$l
  [ "$want" -lt 1 ] && want=1
  echo "$want"
}
# run NAME LIMIT CMD...: log to logs/NAME.log, record status and seconds in the summary.
run() {
  local name=$1 limit=$2 t0 rc
  shift 2
  t0=$(date +%s)
  timeout --kill-after=10 "$limit" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  local verdict=ok
  [ $rc -eq 124 ] || [ $rc -eq 137 ] && verdict="TIMEOUT(${limit}s)"
  [ $rc -ne 0 ] && [ "$verdict" = ok ] && verdict="FAIL(rc=$rc)"
  say "$(printf '%-34s %-14s %4ss' "$name" "$verdict" $(($(date +%s) - t0)))"
  return $rc
}

bin_dir=$(cd "$bin_dir" && pwd)
# Runtime libraries carried with the binaries (e.g. the CUDA 11.8 libcudart they were linked with).
[ -d "$bin_dir/lib" ] && export LD_LIBRARY_PATH="$bin_dir/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
find_bin() { find "$bin_dir" -type f -name "$1" -perm -u+x 2>/dev/null | sort | head -n 1; }
perf_bin=$(find_bin ridgeline-perf)
mapfile -t tests < <(find "$bin_dir" -type f -name 'test_*_cuda' -perm -u+x 2>/dev/null | sort)

nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}

say "run_gpu.sh  $(date -u +%Y-%m-%dT%H:%M:%SZ)  host $(hostname)"
say "binaries: $bin_dir  perf: ${perf_bin:-MISSING}  tests: ${#tests[@]}"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader >"$logs/nvidia-smi.txt" 2>&1 &&
  say "gpu: $(head -n 1 "$logs/nvidia-smi.txt")"
"$nvcc_bin" --version >"$logs/nvcc-version.txt" 2>&1 && say "nvcc: $(grep -o 'release [0-9.]*' "$logs/nvcc-version.txt")"
if [ -n "$perf_bin" ]; then
  ldd "$perf_bin" >"$logs/ldd-ridgeline-perf.txt" 2>&1
  grep -q 'not found' "$logs/ldd-ridgeline-perf.txt" && say "WARNING: ridgeline-perf misses libraries: $(grep 'not found' "$logs/ldd-ridgeline-perf.txt" | tr -s ' \t\n' ' ')"
fi

# 1. cuBLAS baseline, compiled while the tests run (CPU vs GPU work).
cublas_bin=$work/cublas_baseline
(
  "$nvcc_bin" -O3 -std=c++17 -arch="$arch" -Isrc perf/cublas_baseline.cu -lcublas -o "$cublas_bin" \
    >"$logs/cublas_build.log" 2>&1
  echo $? >"$work/cublas_build.rc"
) &
build_pid=$!
probe_bin=$work/fp64_pipe_probe
(
  "$nvcc_bin" -O3 -arch="$arch" perf/fp64_pipe_probe.cu -o "$probe_bin" >"$logs/fp64_pipe_probe_build.log" 2>&1
  echo $? >"$work/probe_build.rc"
) &
probe_pid=$!

# 2. GoogleTest on Kokkos::Cuda, full size.
for t in "${tests[@]}"; do
  name=$(basename "$t")
  run "gtest:$name" "$(step_limit 90)" "$t" --gtest_color=no --gtest_filter="$gtest_filter" \
    --gtest_output="xml:$logs/$name.xml"
  grep -E '^\[  (PASSED|FAILED)|tests? ran' "$logs/gtest:$name.log" | tail -n 3 | sed 's/^/    /' | tee -a "$summary" >/dev/null
done

wait "$build_pid" "$probe_pid"
build_rc=$(cat "$work/cublas_build.rc" 2>/dev/null || echo 1)
if [ "$build_rc" -eq 0 ]; then
  say "cublas_baseline build              ok"
else
  say "cublas_baseline build              FAIL (see cublas_build.log)"
fi

# 3. Perf: Ridgeline and Kokkos Kernels, then cuBLAS, same shapes and seed.
sha=${RIDGELINE_GIT_SHA:-}
if [ -n "$perf_bin" ]; then
  sha_args=()
  [ -n "$sha" ] && sha_args=(--git-sha "$sha")
  plot_args=()
  if command -v gnuplot >/dev/null || [ -n "${RIDGELINE_GNUPLOT:-}" ]; then
    mkdir -p "$logs/plot"
    plot_args=(--plot "$logs/plot/roofline.svg")
  fi
  # shellcheck disable=SC2086
  run ridgeline-perf "$(step_limit 240)" "$perf_bin" --shapes "$shapes" "${sha_args[@]}" "${plot_args[@]}" \
    $perf_args --csv "$out/ridgeline_perf.csv" --json "$out/ridgeline_perf.json"
  sed -n '/^Results:/,$p' "$logs/ridgeline-perf.log" >>"$summary"
  if [ -z "$sha" ] && [ -f "$out/ridgeline_perf.json" ]; then
    sha=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["git_sha"])' \
      "$out/ridgeline_perf.json" 2>/dev/null || true)
  fi
fi
if [ "$build_rc" -eq 0 ]; then
  # shellcheck disable=SC2086
  run cublas_baseline "$(step_limit 120)" "$cublas_bin" --shapes "$shapes" --git-sha "${sha:-unknown}" $perf_args \
    --csv "$out/cublas.csv"
fi
if [ -f "$out/ridgeline_perf.csv" ] && [ -f "$out/cublas.csv" ]; then
  run merge 60 python3 perf/merge_results.py --ridgeline "$out/ridgeline_perf.csv" --cublas "$out/cublas.csv" \
    --out "$out/merged"
  cat "$out/merged.md" >>"$summary" 2>/dev/null
fi

# The probe takes the fp64 vector peak from the device spec, as ridgeline-perf printed it.
peak64=$(grep -o 'fp64 [0-9.]* GFLOP/s' "$logs/ridgeline-perf.log" 2>/dev/null | head -n 1 | awk '{print $2 / 1000}')
if [ "$(cat "$work/probe_build.rc" 2>/dev/null || echo 1)" -eq 0 ] && [ -n "$peak64" ]; then
  run fp64_pipe_probe "$(step_limit 60)" "$probe_bin" --peak-tflops "$peak64"
  sed 's/^/    /' "$logs/fp64_pipe_probe.log" >>"$summary"
else
  say "fp64_pipe_probe                    SKIPPED (build failed or no fp64 peak printed)"
fi

# 4. Sanitizers on reduced sizes, with what is left of the budget.
export RIDGELINE_TEST_REDUCED=1
for tool in memcheck racecheck; do
  for t in "${tests[@]}"; do
    name=$(basename "$t")
    case $name in test_validation*) continue ;; esac  # host-side argument checks: nothing to race
    if [ "$(left)" -lt 40 ]; then
      say "$(printf '%-34s %s' "$tool:$name" "SKIPPED (budget)")"
      continue
    fi
    run "$tool:$name" "$(step_limit "$san_step")" "$sanitizer" --tool "$tool" --error-exitcode 3 \
      "$t" --gtest_color=no --gtest_filter="$san_filter"
    rc=$?
    grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/$tool:$name.log" | tail -n 1 | sed 's/^/    /' |
      tee -a "$summary" >/dev/null
    # --error-exitcode 3 tells the sanitizer's own findings apart from failing tests.
    if [ $rc -eq 3 ]; then
      say "    -> $tool reported errors"
    elif [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ]; then
      say "    -> $tool clean; the tests themselves exited $rc (see gtest:$name)"
    fi
  done
done
unset RIDGELINE_TEST_REDUCED

say "total $(($(date +%s) - start))s"
for f in ridgeline_perf.csv ridgeline_perf.json cublas.csv merged.csv merged.json merged.md; do
  [ -f "$out/$f" ] || say "missing: $f"
done
# ':' in log names is fine inside the tar, not as a returned file name.
tar -czf "$out/logs.tar.gz" -C "$work" logs
rm -rf "$work"
exit 0
