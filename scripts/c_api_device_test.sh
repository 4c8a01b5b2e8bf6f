#!/usr/bin/env bash
# The C API (ridgeline.h, libridgeline_c.so) of a CUDA build, tested on a GPU machine from the plain C
# program tests/test_c_api.c, compiled there with that machine's own C compiler, on cudaMalloc'd
# device pointers and on a cudaStream_t of the program's own.
#
#   scripts/c_api_device_test.sh bundle [BUILD_DIR]   here: collect everything into .out/capi/
#   .out/capi/run.sh [OUT_DIR]                         there, from the repository root: build and run
#
# bundle takes libridgeline_c.so from BUILD_DIR (default build/cuda-capi; build it with
# RIDGELINE_TARGETS=ridgeline_c RIDGELINE_BUILD_DIR=build/cuda-capi scripts/build.sh cuda). The library
# carries Kokkos and the CUDA 11.8 runtime (static, hidden) and needs only the driver. The test program
# needs a CUDA runtime of its own for cudaMalloc, cudaMemcpy and its stream, as any application ported
# from cuBLAS has. The bundle carries CUDA 11.8's libcudart.so and a test binary built here, so run.sh
# works on a machine with only the driver; where the machine has a CUDA toolkit, run.sh also builds the
# program the way a user there would (its cuda_runtime_api.h, its libcudart), which mixes that runtime
# with the library's own: the pointers and the stream cross from one to the other.
#
# run.sh's routes, each a separate build and run of the same program:
#   toolkit   cc + the machine's CUDA (CUDA_HOME, default /usr/local/cuda): header and libcudart
#   carried   cc + prototypes declared in the program + the carried libcudart.so.11.0
#   prebuilt  the binary built here (carried route), only when the machine has no C compiler
# then compute-sanitizer memcheck over one run where the toolkit has it (a write outside an output
# would show there). It passes when every route that ran passed; OUT_DIR gets c_api_device_test.log.
# Each run has a timeout (120 s a route, 240 s for memcheck), so the whole stays under 8 minutes.
set -uo pipefail

if [ "${1:-}" = bundle ]; then
  set -e
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  b=${2:-$root/build/cuda-capi}
  dest=$root/.out/capi
  lib=$b/src/c_api/libridgeline_c.so
  [ -f "$lib" ] || { echo "no $lib: build it first (see the header of this script)" >&2; exit 1; }
  rm -rf "$dest"
  mkdir -p "$dest/lib"
  cp "$lib" "$dest/lib/"
  cp -L /usr/lib/x86_64-linux-gnu/libcudart.so.11.0 "$dest/lib/libcudart.so.11.0"
  cp "$root/src/c_api/ridgeline.h" "$root/tests/test_c_api.c" "$dest/"
  cp "${BASH_SOURCE[0]}" "$dest/run.sh"
  # The fallback for a machine without a C compiler, built the carried route's way.
  cc -std=c11 -O1 -DRIDGELINE_TEST_CUDA -I"$dest" "$dest/test_c_api.c" -o "$dest/test_c_api_prebuilt" \
    -L"$dest/lib" -lridgeline_c -l:libcudart.so.11.0 -lm -Wl,-rpath,'$ORIGIN/lib'
  # What the library needs at run time: the C and C++ runtimes, and no libcudart (it is inside).
  ldd "$dest/lib/libridgeline_c.so" | grep -v "not found" >/dev/null
  if ldd "$dest/lib/libridgeline_c.so" | grep -q libcudart; then
    echo "libridgeline_c.so links libcudart dynamically; the bundle expects it static" >&2
    exit 1
  fi
  du -sh "$dest"
  echo "bundle ready in $dest; on the GPU machine: bash .out/capi/run.sh"
  exit 0
fi

# --- on the GPU machine ---
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-${OUT:-$here}}
mkdir -p "$out"
log=$out/c_api_device_test.log
exec > >(tee "$log") 2>&1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
say() { printf '\n==== %s\n' "$*"; }

say "machine"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi -L
  echo "driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
else
  echo "(no nvidia-smi)"
fi

cc_bin=
for c in "${CC:-}" cc gcc clang; do
  if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1; then
    cc_bin=$c
    break
  fi
done
cuda_home=${CUDA_HOME:-/usr/local/cuda}
libdir=$here/lib
failed=0 ran=0

run_test() { # name binary [library path]
  local name=$1 bin=$2 path=$3
  say "route $name: $bin"
  ran=$((ran + 1))
  if LD_LIBRARY_PATH="$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 120 "$bin" >"$work/$name.out" 2>&1; then
    grep -E "^(correctness|error paths|PASSED)" "$work/$name.out"
  else
    echo "route $name FAILED (exit $?):"
    grep -E "FAIL" "$work/$name.out" | head -40
    tail -n 3 "$work/$name.out" | grep -v FAIL
    failed=$((failed + 1))
  fi
  cp "$work/$name.out" "$out/c_api_$name.out" 2>/dev/null || true
}

if [ -z "$cc_bin" ]; then
  echo "no C compiler on this machine (looked for \$CC, cc, gcc, clang): running the test binary built"
  echo "with the bundle instead (carried CUDA 11.8 runtime); the program is the same"
  run_test prebuilt "$here/test_c_api_prebuilt" "$libdir"
else
  echo "C compiler: $(command -v "$cc_bin") ($("$cc_bin" --version | head -1))"
  if [ -f "$cuda_home/include/cuda_runtime_api.h" ] && ls "$cuda_home"/lib64/libcudart.so >/dev/null 2>&1; then
    say "build, route toolkit: $cuda_home ($(basename "$(readlink -f "$cuda_home/lib64/libcudart.so")"))"
    if "$cc_bin" -std=c11 -O1 -DRIDGELINE_TEST_CUDA -DRIDGELINE_TEST_CUDA_HEADER -I"$here" -I"$cuda_home/include" \
      "$here/test_c_api.c" -o "$work/test_c_api_toolkit" -L"$libdir" -lridgeline_c -L"$cuda_home/lib64" -lcudart \
      -lm -Wl,-rpath,"$libdir:$cuda_home/lib64"; then
      run_test toolkit "$work/test_c_api_toolkit" "$libdir:$cuda_home/lib64"
    else
      echo "route toolkit: the build failed"
      failed=$((failed + 1))
    fi
  else
    echo "no CUDA toolkit at $cuda_home (cuda_runtime_api.h, lib64/libcudart.so): route toolkit skipped"
  fi
  say "build, route carried: prototypes in the program, CUDA 11.8's libcudart.so.11.0 from the bundle"
  if "$cc_bin" -std=c11 -O1 -DRIDGELINE_TEST_CUDA -I"$here" "$here/test_c_api.c" -o "$work/test_c_api_carried" \
    -L"$libdir" -lridgeline_c -l:libcudart.so.11.0 -lm -Wl,-rpath,"$libdir"; then
    run_test carried "$work/test_c_api_carried" "$libdir"
  else
    echo "route carried: the build failed"
    failed=$((failed + 1))
  fi
fi

san=$cuda_home/bin/compute-sanitizer
if [ -x "$san" ]; then
  bin=$work/test_c_api_carried
  [ -x "$bin" ] || bin=$here/test_c_api_prebuilt
  say "compute-sanitizer memcheck: $bin"
  if LD_LIBRARY_PATH="$libdir" timeout 240 "$san" --tool memcheck --error-exitcode 9 "$bin" >"$work/memcheck.out" 2>&1; then
    grep -E "^(PASSED|FAILED)|ERROR SUMMARY" "$work/memcheck.out"
  else
    echo "memcheck FAILED (exit $?):"
    grep -E "=========|FAIL" "$work/memcheck.out" | head -40
    failed=$((failed + 1))
  fi
  cp "$work/memcheck.out" "$out/c_api_memcheck.out" 2>/dev/null || true
else
  echo "no compute-sanitizer at $san: memcheck skipped"
fi

say "c_api_device_test: $ran route(s) ran, $failed failed"
[ "$ran" -gt 0 ] && [ "$failed" -eq 0 ]
