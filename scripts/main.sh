#!/usr/bin/env bash
# The main job: bootstrap, build only what it runs (ridgeline-perf and the ridgeline command; the test
# suite is scripts/test.sh's), then a short perf run that prints the table (Ridgeline, Kokkos Kernels
# native and OpenBLAS from one run) and the roofline ledger, and writes under build/host/perf-quick/ the
# run's CSV/JSON and its report: report.md with the table, the roofline plot (roofline.svg and .png)
# and the ceilings, every number taken from results.json.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RIDGELINE_TARGETS=${RIDGELINE_TARGETS:-"ridgeline_perf ridgeline_app"} "$root/scripts/build.sh" host
out=$root/build/host/perf-quick
mkdir -p "$out"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
cli=$root/build/host/apps/ridgeline/ridgeline
"$cli" perf --shapes quick-host --csv "$out/results.csv" --json "$out/results.json" "$@"
"$cli" report "$out/results.json" --out "$out/report.md"
echo "report: $out/report.md (plot: roofline.png, roofline.svg; data: results.csv, results.json)"
