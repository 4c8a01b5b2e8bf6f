#!/usr/bin/env bash
# Kokkos 5.x compatibility gate: compiles every Ridgeline header and every test, perf, app and
# library translation unit against Debian sid's libkokkos-dev 5.2 headers, to object files only.
# Its libraries need a newer glibc than Debian 12 has, so nothing is linked or run. Kokkos
# deprecation warnings are errors here: Ridgeline must use no API that Kokkos 4/5 deprecated.
#
#   scripts/check_kokkos5.sh [extra compiler flags...]
#
# Exits non-zero on the first translation unit that fails, after printing its errors.
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
  -e "s/@RIDGELINE_HAVE_SM90A@/0/" \
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
while IFS= read -r f; do tus+=("$f"); done < <(
  find "$root/src" "$root/tests" "$root/perf" "$root/apps" "$root/examples" -name '*.cpp' 2>/dev/null | sort)

flags=(-std=c++20 -fopenmp -O0 -c -isystem "$k5" -I "$root/src" -I "$out/include" -I "$root/tests"
  -I "$root/perf" -I "$root/apps/ridgeline"
  -DRIDGELINE_TEST_EXEC_SPACE=Kokkos::OpenMP -DRIDGELINE_TEST_BACKEND='"openmp"'
  -DRIDGELINE_CLI_PATH='"ridgeline"' -DRIDGELINE_TEST_DATA_DIR='"."' -DRIDGELINE_GIT_SHA='"kokkos5-check"'
  -Werror=deprecated-declarations -Werror=deprecated "$@")

# A perf TU that includes Kokkos Kernels 3.4 headers is skipped: those headers are third-party
# code that does not build against Kokkos 5 (a Kokkos 5 user brings a Kokkos Kernels 5).
compile_one() {
  local src=$1 obj
  obj=$out/obj/$(echo "${src#"$root/"}" | tr '/.' '__').o
  if grep -qE '#include <KokkosBlas' "$src"; then
    echo "skip (Kokkos Kernels 3.4 inside): ${src#"$root/"}"
    return 0
  fi
  if g++-12 "${flags[@]}" "$src" -o "$obj" 2>"$obj.log"; then
    echo "ok   ${src#"$root/"}"
  else
    echo "FAIL ${src#"$root/"}"
    head -n 60 "$obj.log"
    return 1
  fi
}
export out root

status=0
printf '%s\n' "${tus[@]}" | xargs -P "$jobs" -I{} bash -c "$(declare -p flags); $(declare -f compile_one); compile_one {}" ||
  status=1
if [ $status -ne 0 ]; then
  echo "Kokkos 5.2 compile check FAILED" >&2
  exit 1
fi
echo "Kokkos $(cat "$deps/kokkos5/VERSION" | sed 's/_amd64.deb//') compile check: ${#tus[@]} translation units OK"
