#!/usr/bin/env bash
# Kokkos 5.x gate, on Debian sid's libkokkos 5.2 (scripts/bootstrap.sh kokkos5):
#   1. compile: every Ridgeline header and every test, perf, app and library translation unit against
#      sid's libkokkos-dev 5.2 headers (the suite's TUs to object files, the rest with -fsyntax-only,
#      which instantiates templates but generates no code). Kokkos deprecation warnings are errors here:
#      Ridgeline must use no API that Kokkos 4/5 deprecated.
#   2. run: the host GoogleTest suite (the OpenMP kernel tests and the host tests; see run_kernel_tests
#      below) linked from those objects against sid's libkokkoscore/libkokkoscontainers and run on
#      Kokkos::OpenMP. sid's libraries need a newer glibc and libstdc++ than Debian 12's, so sid's own
#      libc, libstdc++, libgcc_s and libgomp come along unpacked (never installed) and the tests run
#      through sid's dynamic loader. Sizes are reduced (RIDGELINE_TEST_REDUCED=2) and the linked TUs are
#      built at -O1, for CI's time; the 3.4 build runs the full sizes at -O3.
#
#   scripts/check_kokkos5.sh [extra compiler flags...]
#
# RIDGELINE_KOKKOS5_RUN=0 stops after the compile (and says so). Exits non-zero on the first translation
# unit that fails to compile, after printing its errors, or after the run when any test program fails.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${RIDGELINE_DEPS:-$root/.deps}
jobs=${RIDGELINE_JOBS:-$(nproc)}
"$root/scripts/bootstrap.sh" kokkos5 >&2

k5=$deps/kokkos5/usr/include/kokkos
out=$root/build/kokkos5
rm -rf "$out"
mkdir -p "$out/include/ridgeline" "$out/tu" "$out/obj"
ln -s "$root/backends" "$out/include/ridgeline/backends"
version=$(sed -n 's/^project(Ridgeline VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
sed -e "s/@PROJECT_VERSION@/$version/" -e "s/@PROJECT_VERSION_MAJOR@/${version%%.*}/" \
  -e "s/@PROJECT_VERSION_MINOR@/$(echo "$version" | cut -d. -f2)/" \
  -e "s/@RIDGELINE_HAVE_SM90A@/0/" -e "s/@RIDGELINE_DISPATCH_INSTANCES_01@/1/" \
  "$root/src/ridgeline/config.hpp.in" >"$out/include/ridgeline/config.hpp"

# Headers that need a device toolchain (CUDA/HIP runtime calls) are compile-checked by those
# builds instead; everything else must stand alone.
tus=()
while IFS= read -r h; do
  rel=${h#"$root/"}
  grep -qE '#include <(cuda_runtime|hip/hip_runtime)' "$h" && continue
  tu=$out/tu/$(echo "$rel" | tr '/.' '__').cpp
  printf '#include "%s"\n' "$h" >"$tu"
  tus+=("$tu")
done < <(find "$root/src" "$root/backends" -name '*.hpp' | sort)
# The longest compiles first, so that with two jobs none of them is left running alone at the end.
first=("$root/tests/test_gemm.cpp" "$root/tests/test_gemm_batched.cpp" "$root/tests/test_gemv.cpp")
tus=("${first[@]}" "${tus[@]}")
while IFS= read -r f; do [[ " ${first[*]} " == *" $f "* ]] || tus+=("$f"); done < <(
  find "$root/src" "$root/tests" "$root/perf" "$root/apps" "$root/examples" -name '*.cpp' 2>/dev/null | sort)

flags=(-std=c++20 -fopenmp -c -isystem "$k5" -I "$root/src" -I "$out/include" -I "$root/tests"
  -I "$root/perf" -I "$root/apps/ridgeline"
  -DRIDGELINE_TEST_EXEC_SPACE=Kokkos::OpenMP -DRIDGELINE_TEST_BACKEND='"openmp"'
  -DRIDGELINE_CLI_PATH="\"$out/bin/ridgeline\"" -DRIDGELINE_TEST_DATA_DIR="\"$root/tests/data\""
  -DRIDGELINE_GIT_SHA='"kokkos5-check"'
  -Werror=deprecated-declarations -Werror=deprecated "$@")

# The host GoogleTest suite that runs on Kokkos 5.2 after the compile (below). Its kernel tests are
# OpenMP's (sid's Kokkos enables OpenMP only: no Serial, so test_validation_serial has no 5.2 twin);
# test_wgmma is CUDA's. test_fuzz's one case that runs ridgeline-perf is compiled out, as the perf binary
# needs Kokkos Kernels (3.4 only here). The TUs linked into the suite compile at -O1, not -O0. Measured
# here on 2026-12-02 (2 cores shared with other builds): -O0 runs took test_gemm_batched 185 s (-O1: 31 s),
# test_gemm at reduced sizes 203 s (87 s) and test_gemv 392 s at full size; -O1 costs about 290 s more
# compile on one core (test_gemm 202 s against 49 s, test_gemm_batched 148 s against 37 s, test_gemv
# 49 s against 31 s, the rest about 7 s), and the -O1 suite then runs in about 45 s.
run_kernel_tests=(test_gemm test_gemm_batched test_gemv test_validation)
run_host_tests=(test_roofline test_device_spec test_overlap test_cli test_fuzz test_mfma_layout)
run_opt1=()
for t in "${run_kernel_tests[@]}" "${run_host_tests[@]}" test_main test_tune; do run_opt1+=("tests/$t.cpp"); done
run_opt1+=(apps/ridgeline/cli.cpp apps/ridgeline/perf_report.cpp apps/ridgeline/ceilings_kernels.cpp
  apps/ridgeline/tune_run.cpp apps/ridgeline/main.cpp)
while IFS= read -r f; do run_opt1+=("${f#"$root/"}"); done < <(find "$root/src/ridgeline" -name '*.cpp')

# The TUs that are not linked are checked with -fsyntax-only: g++ still parses and instantiates every template
# they use (so deprecated Kokkos API and errors inside instantiations are caught) but generates no code;
# measured on perf/tile_sweep.cpp (2026-12-02): 7.2 CPU s against 22.1 at -O0.
# A perf TU that includes Kokkos Kernels 3.4 headers is skipped: those headers are third-party
# code that does not build against Kokkos 5 (a Kokkos 5 user brings a Kokkos Kernels 5).
compile_one() {
  local src=$1 obj
  obj=$out/obj/$(echo "${src#"$root/"}" | tr '/.' '__').o
  if grep -qE '#include <KokkosBlas' "$src"; then
    echo "skip (Kokkos Kernels 3.4 inside): ${src#"$root/"}"
    return 0
  fi
  local opt=-fsyntax-only t0=$SECONDS
  [[ " ${run_opt1[*]} " == *" ${src#"$root/"} "* ]] && opt=-O1
  if g++-12 $opt "${flags[@]}" "$src" -o "$obj" 2>"$obj.log"; then
    echo "ok   ${src#"$root/"} ($opt, $((SECONDS - t0)) s)"
  else
    echo "FAIL ${src#"$root/"}"
    head -n 60 "$obj.log"
    return 1
  fi
}
export out root

status=0
printf '%s\n' "${tus[@]}" |
  xargs -P "$jobs" -I{} bash -c "$(declare -p flags run_opt1); $(declare -f compile_one); compile_one {}" ||
  status=1
if [ $status -ne 0 ]; then
  echo "Kokkos 5.2 compile check FAILED" >&2
  exit 1
fi
echo "Kokkos $(cat "$deps/kokkos5/VERSION" | sed 's/_amd64.deb//') compile check: ${#tus[@]} translation units OK"

# ---- the host GoogleTest suite, run on Kokkos 5.2 (OpenMP) ----------------------------------------------
# The objects above are linked with Debian 12's libgtest.a (built by g++-12; sid's libstdc++ runs it, being
# backward compatible) against sid's libkokkoscore/libkokkoscontainers, and run through sid's dynamic
# loader with sid's libc, libstdc++, libgcc_s and libgomp (scripts/bootstrap.sh kokkos5). At link time
# only Debian 12's libc and libstdc++ are there, older than the versions sid's libkokkoscore asks for
# (GLIBC_2.38, GLIBCXX_3.4.32), hence --allow-shlib-undefined; LD_BIND_NOW=1 then makes sid's loader bind
# every symbol at start, so one missing at run time fails the binary at once instead of hiding.
if [ "${RIDGELINE_KOKKOS5_RUN:-1}" = 0 ]; then
  echo "Kokkos 5.2 run: not run (RIDGELINE_KOKKOS5_RUN=0)"
  exit 0
fi
rt=$deps/kokkos5/runtime/usr/lib/x86_64-linux-gnu
loader=$rt/ld-linux-x86-64.so.2
o=$out/obj
mkdir -p "$out/bin"
lib_objs=("$o"/src_ridgeline_*_cpp.o)
cli_objs=("$o/apps_ridgeline_cli_cpp.o" "$o/apps_ridgeline_perf_report_cpp.o" # ridgeline_cli's sources
  "$o/apps_ridgeline_ceilings_kernels_cpp.o" "$o/apps_ridgeline_tune_run_cpp.o")
link() { # exe objects...
  local exe=$1 t0=$SECONDS
  shift
  if ! g++-12 -fopenmp -Wl,--allow-shlib-undefined -o "$out/bin/$exe" "$@" "${lib_objs[@]}" -lgtest \
    "$rt"/libkokkoscontainers.so.[0-9]*.[0-9]* "$rt"/libkokkoscore.so.[0-9]*.[0-9]* 2>"$out/bin/$exe.log"; then
    cat "$out/bin/$exe.log"
    echo "Kokkos 5.2 link of $exe FAILED" >&2
    exit 1
  fi
  echo "linked $exe ($((SECONDS - t0)) s)"
}
# RIDGELINE_TEST_REDUCED=2: the sanitizer runs' reduced sizes (=1), and test_gemv's wide cases over 4 million
# elements too; test_gemm and test_gemv skip (and report) them. At -O1 they took most of the time (the 3.4
# run keeps them all; the GPU sanitizer runs keep the wide GEMV cases).
# GLIBC_TUNABLES: glibc's malloc keeps freed operands for the next case, as ctest runs the 3.4 suite
# (RIDGELINE_TEST_MALLOC_TUNABLES in cmake/ridgeline_backends.cmake, read from there).
malloc_tunables=$(sed -n 's/^ *"\(GLIBC_TUNABLES=[^"]*\)")$/\1/p' "$root/cmake/ridgeline_backends.cmake")
[ -n "$malloc_tunables" ] || { echo "no RIDGELINE_TEST_MALLOC_TUNABLES in cmake/ridgeline_backends.cmake" >&2; exit 1; }
run5() { # the command line of a program, run on sid's loader and libraries
  env LD_BIND_NOW=1 RIDGELINE_TEST_REDUCED=2 OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}" "$malloc_tunables" \
    "$loader" --library-path "$rt" "$@"
}
# The CLI, for test_cli's end-to-end cases: a wrapper at the path RIDGELINE_CLI_PATH names runs it on 5.2.
link ridgeline.bin "$o/apps_ridgeline_main_cpp.o" "${cli_objs[@]}"
printf '#!/bin/sh\nLD_BIND_NOW=1 exec "%s" --library-path "%s" "%s" "$@"\n' "$loader" "$rt" "$out/bin/ridgeline.bin" \
  >"$out/bin/ridgeline"
chmod +x "$out/bin/ridgeline"
tests=()
for t in "${run_kernel_tests[@]}"; do
  extra=()
  [[ $t == test_gemm ]] && extra=("$o/tests_test_tune_cpp.o")  # test_gemm's tune cases (tests/CMakeLists.txt)
  link "${t}_openmp" "$o/tests_${t}_cpp.o" "$o/tests_test_main_cpp.o" "${extra[@]}"
  tests+=("${t}_openmp")
done
for t in "${run_host_tests[@]}"; do
  extra=()
  [[ $t == test_cli || $t == test_fuzz ]] && extra=("${cli_objs[@]}")
  link "$t" "$o/tests_${t}_cpp.o" "$o/tests_test_main_cpp.o" "${extra[@]}"
  tests+=("$t")
done
# The libraries really are sid's: the loader's own view of the first test binary.
run5 --list "$out/bin/${tests[0]}" | grep -E 'libkokkoscore|libc\.so|libstdc\+\+' | sed 's/^[[:space:]]*/loaded: /'
failed=()
for t in "${tests[@]}"; do
  t0=$SECONDS
  if run5 "$out/bin/$t" >"$out/bin/$t.out" 2>&1; then
    # gtest's own counts; a skip (reduced sizes, features this backend lacks) is counted, and named in the log.
    passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\{0,1\}\./\1/p' "$out/bin/$t.out")
    skipped=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) tests\{0,1\}, listed below:/\1/p' "$out/bin/$t.out")
    echo "pass $t: ${passed:-?} passed, ${skipped:-0} skipped ($((SECONDS - t0)) s)"
  else
    echo "FAIL $t ($((SECONDS - t0)) s)"
    grep -E '^\[  FAILED  \]|Failure|rror' "$out/bin/$t.out" | head -n 40
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "Kokkos 5.2 run FAILED: ${failed[*]} (logs in $out/bin/*.out)" >&2
  exit 1
fi
echo "Kokkos 5.2 run: ${#tests[@]} GoogleTest programs passed on Kokkos::OpenMP"
