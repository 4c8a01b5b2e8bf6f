#!/usr/bin/env bash
# Collects the CUDA build's binaries into .out/cuda so they can travel to a GPU machine. They link the
# CUDA 11.8 runtime statically (cmake/cudart_static.cmake); a build configured with
# -DRIDGELINE_CUDART_STATIC=OFF links it dynamically, and then the libcudart it needs is copied into
# .out/cuda/lib, which perf/run_gpu.sh puts on the library path (the GPU machine has a newer CUDA and
# no libcudart.so.11.0).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
b=$root/build/cuda
dest=$root/.out/cuda
rm -rf "$dest"
mkdir -p "$dest/lib"
cp "$b"/tests/test_*_cuda "$b/perf/ridgeline-perf" "$dest/"
for opt in apps/ridgeline/ridgeline perf/ridgeline-tile-sweep; do [ -x "$b/$opt" ] && cp "$b/$opt" "$dest/"; done
ldd "$dest/ridgeline-perf" | awk '/libcudart/ {print $3}' | xargs -r -I{} cp -L {} "$dest/lib/"
du -sh "$dest"
