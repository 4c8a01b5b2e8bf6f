#!/usr/bin/env bash
# The reference BLAS testers (sblat2, dblat2, cblat2, zblat2, sblat3, dblat3, cblat3, zblat3 from Debian's
# lapack source package, fetched by the bootstrap) against libridgeline_blas.so, restricted to GEMV and
# GEMM (complex: CGEMV, ZGEMV, CGEMM, ZGEMM, with N, T and C).
#
#   scripts/blas_testers.sh [dir of libridgeline_blas.so] [work dir]
#       defaults: build/host/src/blas, build/blas-testers
#
# The testers are built unchanged with gfortran and linked against libridgeline_blas.so first and
# OpenBLAS after it, which supplies the routines Ridgeline lacks (the testers reference every Level
# 2/3 routine even when their .in file skips it). The .in files are the shipped ones with every
# routine but xGEMV/xGEMM switched off; thresholds, sizes, scalars and the error-exit flag stay as
# shipped. A tester passes when its routine passed the computational tests and the error exits,
# nothing failed, and RIDGELINE_BLAS_VERBOSE's count shows that Ridgeline served at least the calls
# the tester counted.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${RIDGELINE_DEPS:-$root/.deps}
lib=$(cd "${1:-$root/build/host/src/blas}" && pwd)
work=${2:-$root/build/blas-testers}
src=$deps/src/lapack/BLAS/TESTING
[ -f "$lib/libridgeline_blas.so" ] || { echo "no libridgeline_blas.so in $lib" >&2; exit 1; }
[ -f "$src/dblat3.f" ] || { echo "no BLAS testers in $src (run scripts/bootstrap.sh host)" >&2; exit 1; }
mkdir -p "$work"
cd "$work"

status=0
for t in sblat2 dblat2 cblat2 zblat2 sblat3 dblat3 cblat3 zblat3; do
  p=${t:0:1}
  p=${p^^}
  [ "${t: -1}" = 2 ] && routine=${p}GEMV || routine=${p}GEMM
  # Each routine's line is "<NAME> <T|F> PUT F FOR NO TEST..."; keep the tested routine's flag.
  sed -E "/^[SDCZ][A-Z0-9]+ +[TF] /{/^$routine /!s/^([SDCZ][A-Z0-9]+ +)T /\1F /}" "$src/$t.in" >"$t.in"
  if [ ! -x "$t" ] || [ "$src/$t.f" -nt "$t" ] || [ "$lib/libridgeline_blas.so" -nt "$t" ]; then
    gfortran -O1 -w "$src/$t.f" -o "$t" -L"$lib" -Wl,-rpath,"$lib" -lridgeline_blas -lopenblas
  fi
  rm -f "$t.out"
  # The tester writes its summary to the file its .in names ($t.out); the counts go to stderr.
  OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} RIDGELINE_BLAS_VERBOSE=1 "./$t" <"$t.in" >"$t.log" 2>"$t.counts" || {
    echo "$t: exited with $?" >&2
    status=1
  }
  out=$(cat "$t.out" "$t.log" 2>/dev/null)
  served=$(sed -n "s/^\[ridgeline_blas\] ${routine,,}_ calls: //p" "$t.counts")
  counted=$(sed -n "s/^ $routine  *PASSED THE COMPUTATIONAL TESTS ( *\([0-9]*\) CALLS).*/\1/p" <<<"$out")
  if grep -qE "FAIL|FATAL|SUSPECT|ERROR-EXITS WILL NOT" <<<"$out" ||
    ! grep -q "^ $routine  *PASSED THE TESTS OF ERROR-EXITS" <<<"$out" ||
    ! grep -q "END OF TESTS" <<<"$out" || [ -z "$counted" ] || [ "${served:-0}" -lt "$counted" ]; then
    echo "$t: FAILED (Ridgeline served ${served:-0} ${routine,,}_ calls; the tester's output follows)"
    cat "$t.out" "$t.log" "$t.counts"
    status=1
  else
    grep "PASSED" <<<"$out" | sed "s/^/$t:/"
    echo "$t: Ridgeline served $served ${routine,,}_ calls"
  fi
done
exit $status
