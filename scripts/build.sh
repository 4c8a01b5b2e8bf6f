#!/usr/bin/env bash
# Configures and builds Ridgeline for one backend, after making sure its dependencies exist.
#
#   scripts/build.sh host   [cmake args...]   OpenMP + Serial, into build/host
#   scripts/build.sh cuda   [cmake args...]   Kokkos::Cuda (CUDA 11.8, sm_90), into build/cuda; through
#                                             the sm_90a route (wgmma) when CUDA >= 12's ptxas is found
#                                             (-DRIDGELINE_CUDA_SM90A=OFF: plain CUDA 11.8, mma.sync only)
#   scripts/build.sh hip    [cmake args...]   Kokkos HIP (gfx90a, compile-only), into build/hip
#
# RIDGELINE_TARGETS (space-separated) limits what is built; default: everything.
# RIDGELINE_OBJECTS (space-separated) builds only these objects of libridgeline, named as the build folder's
# src/Makefile names them (ridgeline/instances_f16.cpp.o); it takes the place of RIDGELINE_TARGETS.
# RIDGELINE_SM90A_CUDA_ROOT: the CUDA >= 12 toolkit of the sm_90a route (default /usr/local/cuda).
# RIDGELINE_BUILD_DIR overrides the build folder (default build/<backend>), e.g. for a second
# configuration of the same backend.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${RIDGELINE_DEPS:-$root/.deps}
jobs=${RIDGELINE_JOBS:-$(nproc)}
mode=${1:-host}
shift || true

"$root/scripts/bootstrap.sh" "$mode"

mkdir -p "$root/build"
bdir=${RIDGELINE_BUILD_DIR:-$root/build/$mode}
log=$bdir-configure.log
prefix=$deps/install/$mode
# The tile sweep, the grouped perf tool and the Serial kernel tests are on unless the caller's arguments
# say otherwise (CI's test command leaves them out), so that a build folder CI configured gets them back
# on the next plain build.
args=(-DCMAKE_BUILD_TYPE=Release -DKokkos_ROOT="$prefix" -DKokkosKernels_ROOT="$prefix"
  -DCMAKE_INSTALL_PREFIX="$root/build/$mode-install" -DRIDGELINE_ENABLE_TILE_SWEEP=ON
  -DRIDGELINE_ENABLE_GROUPED_PERF=ON -DRIDGELINE_SERIAL_TESTS=all)
case $mode in
  host) ;;
  cuda)
    # Same toolchain rules as the bootstrap: CUDA 11.8 first on PATH, g++-11 as host compiler,
    # and the sm_80 -> sm_90 wrapper as the C++ compiler.
    export PATH=/usr/lib/nvidia-cuda-toolkit/bin:/usr/bin:/bin:$PATH
    export CUDA_ROOT=/usr/lib/nvidia-cuda-toolkit NVCC_WRAPPER_DEFAULT_COMPILER=g++-11
    args+=(-DCMAKE_CXX_COMPILER="$deps/bin/nvcc_sm90" -DCMAKE_CXX_FLAGS=-arch=sm_80
      -DCUDAToolkit_ROOT=/usr -DCMAKE_CUDA_COMPILER=/usr/bin/nvcc -DCUDAToolkit_INCLUDE_DIR=/usr/include
      -DRIDGELINE_SM90A_TOOLS="$deps/bin/sm90a" -DRIDGELINE_SM90A_CUDA_ROOT="${RIDGELINE_SM90A_CUDA_ROOT:-/usr/local/cuda}")
    ;;
  hip)
    export HIP_PLATFORM=amd ROCM_PATH=/usr
    args+=(-DCMAKE_CXX_COMPILER="$deps/bin/hipcc_gfx90a")
    ;;
  *)
    echo "usage: scripts/build.sh host|cuda|hip [cmake args...]" >&2
    exit 2
    ;;
esac

cmake -S "$root" -B "$bdir" "${args[@]}" "$@" >"$log" 2>&1 || { tail -n 40 "$log"; exit 1; }
grep -h "Ridgeline CUDA matrix units" "$log" || true
if [ -n "${RIDGELINE_OBJECTS:-}" ]; then
  # An object's rule lives in its folder's Makefile (Unix Makefiles, the generator used here); the
  # environment set above (CUDA 11.8 first on PATH) is what its compile needs.
  make -C "$bdir/src" -j "$jobs" $RIDGELINE_OBJECTS
elif [ -n "${RIDGELINE_TARGETS:-}" ]; then
  # shellcheck disable=SC2086
  cmake --build "$bdir" -j "$jobs" --target $RIDGELINE_TARGETS
else
  cmake --build "$bdir" -j "$jobs"
fi
