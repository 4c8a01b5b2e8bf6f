#!/usr/bin/env bash
# Runs blas_abi_check (a C program, see blas_abi_check.c) with RIDGELINE_BLAS_VERBOSE=1 and checks that
# libridgeline_blas.so served exactly the calls the program made, routine by routine.
#
#   blas_abi_check.sh <program> [library to LD_PRELOAD, or -] [program arguments...]
set -euo pipefail
prog=$1
preload=${2:-}
[ "$preload" = - ] && preload=
shift $(($# < 2 ? $# : 2))
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
status=0
RIDGELINE_BLAS_VERBOSE=1 LD_PRELOAD="$preload" "$prog" "$@" >"$out" 2>"$err" || status=$?
cat "$out" "$err"
[ "$status" -eq 0 ] || { echo "blas_abi_check: $prog exited with $status"; exit 1; }
n=0
while read -r word routine count; do
  [ "$word" = expect ] || continue
  grep -qxF "[ridgeline_blas] $routine calls: $count" "$err" ||
    { echo "blas_abi_check: the program made $count $routine calls; Ridgeline's count differs"; exit 1; }
  n=$((n + 1))
done <"$out"
[ "$n" -eq 16 ] || { echo "blas_abi_check: expected 16 routine counts from the program, got $n"; exit 1; }
echo "blas_abi_check: Ridgeline served every call${preload:+ (LD_PRELOAD)}"
