#!/usr/bin/env bash
# The main job: bootstrap, build the host backend, then a short perf run that prints the table
# (Ridgeline, Kokkos Kernels native and OpenBLAS from one run) and the roofline ledger, and writes
# the roofline plot with the measured points plus CSV/JSON under build/host/perf-quick/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/build.sh" host
out=$root/build/host/perf-quick
mkdir -p "$out"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
"$root/build/host/perf/ridgeline-perf" --shapes quick-host --csv "$out/results.csv" --json "$out/results.json" \
  --plot "$out/roofline.svg" "$@"
echo "CSV/JSON/plot: $out"
