#!/usr/bin/env bash
# Collects the CUDA build's binaries, and the CUDA 11.8 runtime they link, into .out/cuda so they can
# travel to a GPU machine (which has a newer CUDA and no libcudart.so.11.0). perf/run_gpu.sh puts
# BIN_DIR/lib on the library path.
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
