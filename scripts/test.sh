#!/usr/bin/env bash
# The test command: everything CI checks, from a fresh Debian 12 machine.
#   1. host build (OpenMP; Serial for test_validation): the GoogleTest suite, the BLAS ABI checks and
#      the C API's C and Fortran tests (test_c_api, test_c_api_fortran) through ctest, then the
#      reference BLAS testers (GEMV, GEMM) against libridgeline_blas.so (scripts/blas_testers.sh)
#   2. install, then build and run examples/ against the installed package, among them ScaLAPACK's
#      pdgemm_/psgemm_ on 4 MPI ranks with libridgeline_blas.so under every rank, linked and preloaded,
#      against the same program on the system BLAS (scripts/scalapack_example.sh): 23 s more than
#      before on two loaded cores (configure 4, build 9, three 4-rank runs 11), and 24 s of apt; and
#      examples/c_api (C, Ridgeline::ridgeline_c) with only Ridgeline's prefix (the C component needs
#      no Kokkos)
#   3. CUDA backend: compile and link the kernel tests, perf suite, CLI and libridgeline_c.so (no GPU needed;
#      the host-only tests are the host step's),
#      through the sm_90a route where available; then, in a plain CUDA 11.8 build (route off, mma.sync
#      only), which must keep building, the library objects whose code the route changes: the 16-bit and
#      fp32 dispatch instances, whose tables name mma.sync entries where the route build names wgmma ones
#      (in the background, beside steps 4 and 5, on one job). Until 2026-12-03 this step built test_gemm_cuda
#      with the dispatch compiled in (301 CPU s at 9ec1248, more since); the five objects cost about 200
#      (29.8 + 28.7 + 33.0 + 23.2 + 85.2 CPU s at 9ec1248), and the tests' own code does not depend on the route
#   4. HIP backend (gfx90a): compile and link the kernel tests and the CLI (no AMD GPU anywhere), and the
#      MFMA entries' kernels for gfx940 as well, then scripts/hip_code_objects.py on them (MFMA in K loops,
#      spills, claimed occupancy; static estimates), and twice more to show that its spill and occupancy
#      checks fail where they must (tests/hip_spill_probe.cpp, a kernel that must spill, about 15 s to
#      compile; claims of 8 waves per SIMD): 10 s in all for the script
#   Step 4 sets RIDGELINE_DISPATCH_INSTANCES=OFF: its few test files compile the dispatch themselves, which
#   costs less than the library's seven instance files (HIP: about 400 against 600 s of compile;
#   perf/results/2026-12-02-host-9ec1248/); the other steps build it ON.
#   5. Kokkos 5.2 (Debian sid's libkokkos 5.2, scripts/check_kokkos5.sh): every header and TU compiled
#      against its headers, then the host GoogleTest suite linked against its libraries and run on
#      Kokkos::OpenMP through sid's dynamic loader, at -O1 and reduced sizes (RIDGELINE_TEST_REDUCED=2).
#      Its cost over the compile-only gate, measured on two loaded cores at one job (2026-12-02): -O1
#      instead of -O0 for the 18 linked TUs, about 290 s of one core (423 s against about 210 s at -O0,
#      the rest of the gate 219 s); 10 links, 6 s; the runs, 45-75 s; sid's runtime packages, 3 s of apt
# The tile sweep (ridgeline-tile-sweep, a developers' tuning tool, the largest translation unit of both
# builds: 255 s on the host and 394 s for CUDA on CI's two cores) is left out of the host and CUDA builds;
# the Kokkos 5.2 gate still compiles it. So is ridgeline-grouped-perf (169 s of host compile). The kernel
# tests run on Kokkos::OpenMP; Kokkos::Serial, which runs the same kernels on one thread, keeps only
# test_validation (RIDGELINE_SERIAL_TESTS in cmake/ridgeline_backends.cmake).
# RIDGELINE_TEST_STEPS selects steps, e.g. RIDGELINE_TEST_STEPS="host example" for a quick run.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
steps=${RIDGELINE_TEST_STEPS:-host example cuda hip kokkos5}
has() { [[ " $steps " == *" $1 "* ]]; }
plain_pid=
# Each banner closes the previous step's clock; the table is printed on every exit, failed or not, as the
# last lines of the log (what CI keeps), so that CI's time per step is on record.
step_name= step_start=$SECONDS step_times=""
close_step() {
  [ -z "$step_name" ] || step_times+=$(printf '%6d s  %s' $((SECONDS - step_start)) "$step_name")$'\n'
  step_name=$1 step_start=$SECONDS
}
say() {
  close_step "$*"
  printf '\n==== %s\n' "$*"
}
on_exit() {
  local rc=$?
  [ -z "$plain_pid" ] || kill "$plain_pid" 2>/dev/null || true
  close_step ""
  printf '\n==== time per step (wall; the plain CUDA build runs in the background from its banner on)\n%s%6d s  in all, rc %d\n' \
    "$step_times" "$SECONDS" "$rc"
}
trap on_exit EXIT

if has host || has example; then
  say "host build"
  "$root/scripts/build.sh" host -DRIDGELINE_ENABLE_TILE_SWEEP=OFF -DRIDGELINE_ENABLE_GROUPED_PERF=OFF \
    -DRIDGELINE_SERIAL_TESTS=test_validation
fi
if has host; then
  say "host tests"
  (cd "$root/build/host" && OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} ctest --output-on-failure -j 1)
  say "reference BLAS testers on libridgeline_blas.so"
  "$root/scripts/blas_testers.sh" "$root/build/host/src/blas"
fi
if has example; then
  say "install + example against the installed package"
  cmake --install "$root/build/host" >/dev/null
  cmake -S "$root/examples" -B "$root/build/example" -DCMAKE_BUILD_TYPE=Release -DRIDGELINE_EXAMPLE_SCALAPACK=ON \
    -DCMAKE_PREFIX_PATH="$root/build/host-install;${RIDGELINE_DEPS:-$root/.deps}/install/host" >/dev/null
  cmake --build "$root/build/example" -j 2
  "$root/build/example/gemm_example"
  "$root/build/example/team_gemm_example"
  say "ScaLAPACK on 4 MPI ranks with libridgeline_blas.so underneath"
  "$root/scripts/scalapack_example.sh" "$root/build/example" "$root/build/host-install/lib"
  say "C API example on the installed Ridgeline::ridgeline_c"
  cmake -S "$root/examples/c_api" -B "$root/build/example-c" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$root/build/host-install" >/dev/null
  cmake --build "$root/build/example-c" -j 2
  "$root/build/example-c/c_api_example"
fi
if has cuda; then
  say "CUDA backend: compile and link only"
  # Where CUDA >= 12's tools are present (CI, the build machines) the route must work, not fall back.
  route=()
  cuda_targets="test_gemm_cuda test_gemm_batched_cuda test_gemv_cuda test_validation_cuda ridgeline_app ridgeline_perf"
  cuda_targets+=" ridgeline_c"
  if [ -x "${RIDGELINE_SM90A_CUDA_ROOT:-/usr/local/cuda}/bin/ptxas" ]; then
    route=(-DRIDGELINE_CUDA_SM90A=ON)
    cuda_targets+=" test_wgmma_cuda"
  fi
  # The backend's own targets: the host-only tests (roofline, device spec, overlap, CLI, fuzz) are the host
  # step's, built and run there; nvcc compiling them again here would only cost CI time.
  RIDGELINE_TARGETS="$cuda_targets" "$root/scripts/build.sh" cuda "${route[@]}" -DRIDGELINE_ENABLE_TILE_SWEEP=OFF \
    -DRIDGELINE_ENABLE_GROUPED_PERF=OFF
  # The plain build runs in the background, on one job, beside the HIP and Kokkos 5 steps (CI's time
  # budget); its log is printed when it is waited for, at the end.
  say "CUDA backend without the sm_90a route (plain CUDA 11.8): the 16-bit and fp32 instances, in the background"
  plain_log=$root/build/cuda-no-sm90a-build.log
  plain_objects=""
  for t in f16 bf16 f16_f32 bf16_f32 f32; do plain_objects+=" ridgeline/instances_$t.cpp.o"; done
  (RIDGELINE_BUILD_DIR="$root/build/cuda-no-sm90a" RIDGELINE_OBJECTS="$plain_objects" RIDGELINE_JOBS=1 \
    "$root/scripts/build.sh" cuda -DRIDGELINE_CUDA_SM90A=OFF -DRIDGELINE_ENABLE_PERF=OFF \
    -DRIDGELINE_ENABLE_APPS=OFF -DRIDGELINE_ENABLE_TESTS=OFF) >"$plain_log" 2>&1 &
  plain_pid=$!
fi
if has hip; then
  say "HIP backend: compile and link only"
  # hip_mfma_kernels: the MFMA entries' kernels once more, for gfx940 too (tests/hip_mfma_kernels.cpp).
  # hip_spill_probe: a kernel that must spill, for the failing-check test below (tests/hip_spill_probe.cpp).
  RIDGELINE_TARGETS="test_gemm_hip test_gemm_batched_hip test_gemv_hip test_validation_hip ridgeline_cli hip_mfma_kernels hip_spill_probe" \
    "$root/scripts/build.sh" hip -DRIDGELINE_ENABLE_PERF=OFF -DRIDGELINE_DISPATCH_INSTANCES=OFF
  say "HIP code objects: resources, occupancy, K loops, static bounds (estimates)"
  # The CLI target is a static library: its objects carry their own code objects.
  # No spill baseline: no GEMM/GEMV kernel may spill or use scratch.
  python3 "$root/scripts/hip_code_objects.py" --json "$root/build/hip/code_objects.json" \
    "$root"/build/hip/tests/test_{gemm,gemm_batched,gemv,validation}_hip \
    "$root/build/hip/apps/ridgeline/libridgeline_cli.a" \
    "$root/build/hip/tests/CMakeFiles/hip_mfma_kernels.dir/hip_mfma_kernels.cpp.o"
  # The static bounds beside the AMD datasheet roofs, through step 1's host CLI: it must read the report
  # this build just wrote (ridgeline roofline compare --estimates; a second at most).
  host_cli=$root/build/host/apps/ridgeline/ridgeline
  if [ -x "$host_cli" ]; then
    "$host_cli" roofline compare mi250x-gcd mi300x --unit matrix --ceilings none \
      --estimates "$root/build/hip/code_objects.json"
  fi
  say "HIP code objects: the report's checks can fail"
  # The spill probe's kernel must fail the spill check; with every occupancy claim of the table raised to
  # 8 waves per SIMD, the MFMA entries must fail theirs. Exit status 1 is a failed check (2 would be a
  # report that could not be made).
  hip_tmp=$(mktemp -d)
  cp -r "$root/backends/hip" "$hip_tmp/hip"
  sed -i 's/waves_per_simd = [0-9]*;/waves_per_simd = 8;/' "$hip_tmp/hip/tile_table.hpp"
  hip_rc=0
  python3 "$root/scripts/hip_code_objects.py" \
    "$root/build/hip/tests/CMakeFiles/hip_spill_probe.dir/hip_spill_probe.cpp.o" >/dev/null 2>&1 || hip_rc=$?
  if [ "$hip_rc" -ne 1 ]; then
    echo "hip_code_objects.py on the spill probe exited $hip_rc, not 1 (a failed spill check)" >&2
    exit 1
  fi
  hip_rc=0
  python3 "$root/scripts/hip_code_objects.py" --table "$hip_tmp/hip/tile_table.hpp" \
    "$root/build/hip/tests/test_validation_hip" >/dev/null 2>&1 || hip_rc=$?
  if [ "$hip_rc" -ne 1 ]; then
    echo "hip_code_objects.py with claims of 8 waves per SIMD exited $hip_rc, not 1 (a failed claim)" >&2
    exit 1
  fi
  rm -rf "$hip_tmp"
fi
if has kokkos5; then
  say "Kokkos 5.2: compile gate, then the host GoogleTest suite run on it (OpenMP)"
  # One line per translation unit is left out of the log; links, runs and the summaries stay.
  "$root/scripts/check_kokkos5.sh" | grep -vE '^(ok|skip) '
fi
if [ -n "$plain_pid" ]; then
  say "CUDA backend without the sm_90a route: its build"
  if ! wait "$plain_pid"; then
    tail -n 60 "$plain_log"
    echo "the plain CUDA 11.8 build failed" >&2
    exit 1
  fi
  tail -n 3 "$plain_log"
fi
say "all test steps passed: $steps"
