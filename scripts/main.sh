#!/usr/bin/env bash
# The main job: bootstrap, build only what it runs (ridgeline-perf and the ridgeline command; the test
# suite is scripts/test.sh's), measure this machine's ceilings (`ridgeline ceilings --quick`, a few
# seconds), then a short perf run that prints the table (Ridgeline, Kokkos Kernels native and OpenBLAS
# from one run) and the roofline ledger, and writes under build/host/perf-quick/ the run's CSV/JSON, the
# ceilings (ceilings.json) and the run's report: report.md with the table, the roofline plot
# (roofline.svg and .png: spec roofs solid, measured ceilings dashed) and the ceilings, every number
# taken from results.json.
#
#   scripts/main.sh [--full] [ridgeline-perf options...]
#
# --full measures the full ceilings (10 runs of each roof, STREAM's 4 x LLC working set: about a minute
# on two cores) instead of the quick ones; perf options (e.g. --shapes host-2048) go to ridgeline perf.
# RIDGELINE_CEILINGS names the ceilings file (default: build/host/perf-quick/ceilings.json, so a run
# from a fresh clone writes nothing outside the checkout).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ceilings_mode=--quick
if [ "${1:-}" = "--full" ]; then
  ceilings_mode=
  shift
fi
RIDGELINE_TARGETS=${RIDGELINE_TARGETS:-"ridgeline_perf ridgeline_app"} "$root/scripts/build.sh" host
out=$root/build/host/perf-quick
mkdir -p "$out"
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-threads}
export RIDGELINE_CEILINGS=${RIDGELINE_CEILINGS:-$out/ceilings.json}
cli=$root/build/host/apps/ridgeline/ridgeline
# shellcheck disable=SC2086
"$cli" ceilings $ceilings_mode
"$cli" perf --shapes quick-host --csv "$out/results.csv" --json "$out/results.json" "$@"
"$cli" report "$out/results.json" --out "$out/report.md"
echo "report: $out/report.md (plot: roofline.png, roofline.svg; data: results.csv, results.json; ceilings: $RIDGELINE_CEILINGS)"
