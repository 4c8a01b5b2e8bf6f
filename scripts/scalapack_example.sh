#!/usr/bin/env bash
# ScaLAPACK's pdgemm_/psgemm_ on a 2x2 grid of MPI ranks with Ridgeline's BLAS underneath
# (examples/pgemm_scalapack.c), three runs of 4 ranks, one OpenMP thread each:
#   1. pgemm_scalapack_system on the system BLAS alone: checked against its long double reference,
#      its results saved; no Ridgeline counter may appear (so the comparison below is against
#      another BLAS, not against Ridgeline itself);
#   2. pgemm_scalapack, linked with libridgeline_blas.so before ScaLAPACK and the system BLAS;
#   3. pgemm_scalapack_system again, with libridgeline_blas.so preloaded (LD_PRELOAD).
# Runs 2 and 3 are checked against the reference and against run 1's results, and
# RIDGELINE_BLAS_VERBOSE's counts must show nonzero dgemm_ and sgemm_ calls on each of the 4 ranks.
#
#   scripts/scalapack_example.sh [example build dir] [dir of libridgeline_blas.so]
#       defaults: build/example, build/host-install/lib
#
# OpenMPI settings: --oversubscribe (4 ranks on CI's 2 cores; it also leaves ranks unbound);
# OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM) only when running as root (containers), as mpirun refuses root
# otherwise; OMPI_MCA_btl_vader_single_copy_mechanism=none, because the shared-memory transport's
# default single copy (Linux CMA) needs ptrace rights that containers often deny, and the copy through
# shared memory costs nothing at this size.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$(cd "${1:-$root/build/example}" && pwd)
lib=$(cd "${2:-$root/build/host-install/lib}" && pwd)
ranks=4
for f in "$bin/pgemm_scalapack" "$bin/pgemm_scalapack_system" "$lib/libridgeline_blas.so"; do
  [ -e "$f" ] || { echo "missing $f" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "no mpirun (scripts/bootstrap.sh host installs OpenMPI)" >&2; exit 1; }

export OMPI_MCA_btl_vader_single_copy_mechanism=none
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run <name> [mpirun options] -- <program and arguments>: rank 0's report and each rank's counts.
run() {
  local name=$1
  shift
  local opts=()
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  # --tag-output prefixes each line with [job,rank]<stream>, so the counts can be told apart by rank.
  if ! mpirun -np $ranks --oversubscribe --tag-output -x OMP_NUM_THREADS=1 -x RIDGELINE_BLAS_VERBOSE=1 \
    "${opts[@]}" "$@" >"$work/$name.log" 2>&1; then
    cat "$work/$name.log"
    echo "scalapack example, $name run: failed" >&2
    return 1
  fi
  sed -n "s/^\[[0-9]*,0\]<stdout>:/$name: /p" "$work/$name.log"
}

# counts <name>: every rank served dgemm_ and sgemm_ calls through Ridgeline.
counts() {
  local name=$1 r fn n ok=1 line
  for ((r = 0; r < ranks; r++)); do
    line="$name: rank $r:"
    for fn in dgemm_ sgemm_; do
      n=$(sed -n "s/^\[[0-9]*,$r\]<stderr>:\[ridgeline_blas\] $fn calls: \([0-9]*\)$/\1/p" "$work/$name.log")
      line+=" $fn ${n:-none}"
      [ "${n:-0}" -gt 0 ] || ok=0
    done
    echo "$line"
  done
  [ $ok = 1 ] || { echo "scalapack example, $name run: a rank's local multiplies did not go through Ridgeline" >&2; return 1; }
}

run system -- "$bin/pgemm_scalapack_system" --write "$work/system.bin"
if grep -q '\[ridgeline_blas\]' "$work/system.log"; then
  echo "scalapack example: the system-BLAS run loaded libridgeline_blas.so" >&2
  exit 1
fi
run linked -- "$bin/pgemm_scalapack" --against "$work/system.bin"
counts linked
run preload -x LD_PRELOAD="$lib/libridgeline_blas.so" -- "$bin/pgemm_scalapack_system" --against "$work/system.bin"
counts preload
echo "scalapack example: passed (4 ranks, Ridgeline under every rank, linked and preloaded)"
