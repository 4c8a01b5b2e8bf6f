#!/usr/bin/env bash
# Installs everything Ridgeline needs on a fresh Debian 12 machine, idempotently.
#
#   scripts/bootstrap.sh [host] [cuda] [hip] [kokkos5]      (default: host)
#
# host     apt packages, Kokkos 3.4.01 (OpenMP+Serial, position-independent) and Kokkos Kernels 3.4.01
#          built from Debian's trilinos 13.2 source package, installed under $RIDGELINE_DEPS/install/host;
#          the reference BLAS testers from Debian's lapack source package, in $RIDGELINE_DEPS/src/lapack;
#          OpenMPI and ScaLAPACK (openmpi-bin, libopenmpi-dev, libscalapack-openmpi-dev) for the
#          distributed example, examples/pgemm_scalapack.c
# cuda     CUDA 11.8 + g++-11 from Debian non-free; Kokkos 3.4.01 with CUDA, AMPERE80 retargeted to
#          sm_90, installed under $RIDGELINE_DEPS/install/cuda (Kokkos Kernels too, no cuBLAS TPL)
#          and the PTX-8 / sm_90a route's launcher and ptxas/fatbinary shims (scripts/sm90a) in
#          $RIDGELINE_DEPS/bin/sm90a; CMake turns the route on when a CUDA >= 12 toolkit is found
# hip      hipcc 5.2; Kokkos 3.4.01 with HIP, VEGA908 retargeted to gfx90a (compile-only backend)
# kokkos5  Debian sid's libkokkos-dev 5.2.2 headers, unpacked under $RIDGELINE_DEPS/kokkos5, and the
#          run-time libraries the host tests run on there (libkokkos5.2 and sid's libc6, libstdc++6,
#          libgcc-s1, libgomp1, with sid's dynamic loader), unpacked under $RIDGELINE_DEPS/kokkos5/runtime
#
# Nothing third-party is committed: sources come from the registries at bootstrap time and live
# in the ignored cache folder. No registry host is written anywhere: extra apt entries copy the
# URIs of the machine's own Debian source.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
deps=${RIDGELINE_DEPS:-$root/.deps}
jobs=${RIDGELINE_JOBS:-$(nproc)}
mkdir -p "$deps"
log() { printf '[bootstrap] %s\n' "$*" >&2; }

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(host)

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
# apt run as root drops to its sandbox user (_apt) to fetch and to check signatures, and that user needs a
# writable temporary folder for apt-key. These machines' /tmp can be root's own (mode 0700): CI's sid update
# then failed with "Couldn't create temporary file /tmp/apt.conf.* for passing config to apt-key" and
# "the repository ... is not signed" (2026-12-03, reproduced here). apt that runs as root stays root instead.
# apt_own is for apt run as this user (the source downloads, the private sid lists): root gets the same
# option; a non-root apt never drops privileges, so it needs nothing.
apt_root=(-o APT::Sandbox::User=root)
apt_own=()
[ "$(id -u)" -ne 0 ] || apt_own=("${apt_root[@]}")

# ---- apt sources ------------------------------------------------------------------------------
# The main Debian stanza of the machine's own sources: URIs, Suites and Signed-By are copied, never
# typed in, so the repo holds no registry host.
debian_stanza_field() { # field suite_regex
  awk -v field="$1" -v want="$2" '
    BEGIN { RS = ""; FS = "\n" }
    {
      uris = ""; suites = ""; signed = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
        if ($i ~ /^Suites:/) { suites = $i; sub(/^Suites:[ \t]*/, "", suites) }
        if ($i ~ /^Signed-By:/) { signed = $i; sub(/^Signed-By:[ \t]*/, "", signed) }
      }
      if (suites ~ want && suites !~ /security/) {
        if (field == "URIs") print uris; else if (field == "Suites") print suites; else print signed
        exit
      }
    }' /etc/apt/sources.list.d/debian.sources
}

ensure_extra_sources() {
  local f=/etc/apt/sources.list.d/ridgeline-extra.sources
  if [ ! -f "$f" ]; then
    local uris suites signed
    uris=$(debian_stanza_field URIs 'bookworm')
    suites=$(debian_stanza_field Suites 'bookworm')
    signed=$(debian_stanza_field Signed-By 'bookworm')
    [ -n "$uris" ] || { log "no Debian bookworm entry in /etc/apt/sources.list.d/debian.sources"; exit 1; }
    log "adding deb-src and contrib/non-free for the machine's Debian source"
    printf 'Types: deb deb-src\nURIs: %s\nSuites: %s\nComponents: main contrib non-free\nSigned-By: %s\n' \
      "$uris" "$suites" "$signed" | "${sudo_cmd[@]}" tee "$f" >/dev/null
    rm -f "$deps/.apt-updated"
  fi
  if [ ! -f "$deps/.apt-updated" ]; then
    "${sudo_cmd[@]}" apt-get "${apt_root[@]}" update -qq 2>&1 | grep -v 'configured multiple times' || true
    touch "$deps/.apt-updated"
  fi
}

apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  "${sudo_cmd[@]}" apt-get "${apt_root[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# ---- Kokkos sources from trilinos 13.2 ---------------------------------------------------------
fetch_kokkos_sources() {
  local src=$deps/src
  if [ -f "$src/.extracted" ]; then return 0; fi
  mkdir -p "$src"
  (
    cd "$src"
    if ! ls trilinos_13.2.0.orig.tar.gz >/dev/null 2>&1; then
      log "apt-get source --download-only trilinos"
      apt-get "${apt_own[@]}" source --download-only trilinos >/dev/null 2>&1 || apt-get "${apt_own[@]}" source --download-only trilinos
    fi
    log "extracting packages/kokkos and packages/kokkos-kernels"
    rm -rf kokkos kokkos-kernels
    # trilinos-13.2.0/packages/<name>/... -> <name>/...
    tar xzf trilinos_13.2.0.orig.tar.gz --strip-components=2 --wildcards '*/packages/kokkos/*' \
      '*/packages/kokkos-kernels/*'
  )
  touch "$src/.extracted"
}

# ---- the reference BLAS testers, from Debian's lapack source package ------------------------------
# BLAS/TESTING/[sd]blat[23].f and their .in files under $deps/src/lapack (scripts/blas_testers.sh).
fetch_blas_testers() {
  local src=$deps/src/lapack
  [ -f "$src/.extracted" ] && return 0
  mkdir -p "$src"
  (
    cd "$src"
    if ! ls lapack_*.orig.tar.* >/dev/null 2>&1; then
      log "apt-get source --download-only lapack"
      apt-get "${apt_own[@]}" source --download-only lapack >/dev/null 2>&1 || apt-get "${apt_own[@]}" source --download-only lapack
    fi
    log "extracting BLAS/TESTING"
    rm -rf BLAS
    tar xf lapack_*.orig.tar.* --strip-components=1 --wildcards '*/BLAS/TESTING/*'
  )
  touch "$src/.extracted"
}

# build_progress <what> <log>: appends a build's output to the log and reports every 10% of make's
# "[ nn%]" counter, so that a first run is not ten silent minutes. (pipefail keeps the build's status.)
build_progress() {
  tee -a "$2" | awk -v what="$1" '
    match($0, /^\[ *[0-9]+%\]/) {
      p = substr($0, RSTART + 1, RLENGTH - 3) + 0
      if (p >= last + 10 || (p == 100 && last < 100)) {
        printf "[bootstrap] building %s: %d%%\n", what, p > "/dev/stderr"; fflush("/dev/stderr"); last = p
      }
    }' >/dev/null
}

# build_kokkos <name> <cxx> [cmake args...]: Kokkos core + Kokkos Kernels (no ETI, no TPLs)
build_kokkos() {
  local name=$1 cxx=$2
  shift 2
  local prefix=$deps/install/$name
  # The marker records the configure arguments, so that changing them rebuilds. An empty marker is an
  # install from before markers recorded them: the same arguments without position-independent code.
  if [ -f "$prefix/.done" ] && { [ "$(cat "$prefix/.done")" = "$*" ] ||
    { [ ! -s "$prefix/.done" ] && [[ "$*" != *POSITION_INDEPENDENT_CODE* ]]; }; }; then
    log "kokkos ($name) already installed in $prefix"
    return 0
  fi
  local b=$deps/build/$name
  rm -rf "$b"
  mkdir -p "$b"
  log "building Kokkos 3.4.01 ($name)"
  cmake -S "$deps/src/kokkos" -B "$b/kokkos" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_STANDARD=17 \
    -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ENABLE_SERIAL=ON "$@" >"$b/kokkos.log" 2>&1 ||
    { tail -n 40 "$b/kokkos.log"; exit 1; }
  cmake --build "$b/kokkos" -j "$jobs" 2>&1 | build_progress "Kokkos ($name)" "$b/kokkos.log" ||
    { tail -n 40 "$b/kokkos.log"; exit 1; }
  cmake --install "$b/kokkos" >>"$b/kokkos.log" 2>&1
  log "building Kokkos Kernels 3.4.01 ($name, native kernels only)"
  cmake -S "$deps/src/kokkos-kernels" -B "$b/kk" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DKokkos_ROOT="$prefix" \
    -DKokkosKernels_INST_DOUBLE=OFF -DKokkosKernels_INST_FLOAT=OFF \
    -DKokkosKernels_INST_COMPLEX_DOUBLE=OFF -DKokkosKernels_INST_COMPLEX_FLOAT=OFF \
    -DKokkosKernels_INST_ORDINAL_INT=OFF -DKokkosKernels_INST_ORDINAL_INT64_T=OFF \
    -DKokkosKernels_INST_OFFSET_INT=OFF -DKokkosKernels_INST_OFFSET_SIZE_T=OFF \
    -DKokkosKernels_INST_LAYOUTLEFT=OFF -DKokkosKernels_INST_LAYOUTRIGHT=OFF \
    -DKokkosKernels_INST_EXECSPACE_OPENMP=OFF -DKokkosKernels_INST_EXECSPACE_SERIAL=OFF \
    -DKokkosKernels_INST_EXECSPACE_CUDA=OFF -DKokkosKernels_INST_MEMSPACE_CUDAUVMSPACE=OFF \
    -DKokkosKernels_ENABLE_TPL_CUBLAS=OFF -DKokkosKernels_ENABLE_TPL_CUSPARSE=OFF \
    -DKokkosKernels_ENABLE_TPL_BLAS=OFF -DKokkosKernels_ENABLE_TESTS=OFF >"$b/kk.log" 2>&1 ||
    { tail -n 40 "$b/kk.log"; exit 1; }
  cmake --build "$b/kk" -j "$jobs" 2>&1 | build_progress "Kokkos Kernels ($name)" "$b/kk.log" ||
    { tail -n 40 "$b/kk.log"; exit 1; }
  cmake --install "$b/kk" >>"$b/kk.log" 2>&1
  printf '%s' "$*" >"$prefix/.done"
}

# A compiler wrapper that swaps one arch token for another, because Kokkos 3.4 knows neither Hopper
# nor gfx90a and aborts at run time when the compiled major arch differs from the device's.
write_retarget_wrapper() { # path real_compiler from to
  mkdir -p "$(dirname "$1")"
  cat >"$1" <<EOF
#!/usr/bin/env bash
args=()
for a in "\$@"; do args+=("\${a//$3/$4}"); done
exec $2 "\${args[@]}"
EOF
  chmod +x "$1"
}

cuda_env() {
  # CUDA 13's nvcc/cudafe++/ptxas sit earlier on PATH on these machines; nvcc 11.8 would silently
  # pick up CUDA 13's cudafe++ and break every extended lambda.
  export PATH=/usr/lib/nvidia-cuda-toolkit/bin:/usr/bin:/bin:$PATH
  export CUDA_ROOT=/usr/lib/nvidia-cuda-toolkit
  export NVCC_WRAPPER_DEFAULT_COMPILER=g++-11
}

do_host() {
  ensure_extra_sources
  apt_install cmake make g++ gfortran libgtest-dev libgmock-dev libopenblas-dev nlohmann-json3-dev \
    libcli11-dev gnuplot-nox dpkg-dev ca-certificates xz-utils
  # ScaLAPACK over OpenMPI for examples/pgemm_scalapack.c (pdgemm_/psgemm_ with Ridgeline's BLAS under
  # every rank); Debian's libscalapack-openmpi.so carries BLACS too.
  apt_install openmpi-bin libopenmpi-dev libscalapack-openmpi-dev
  fetch_kokkos_sources
  fetch_blas_testers
  # Position-independent, because libridgeline_blas.so links Kokkos in: Debian's GCC defaults to PIE,
  # whose local-exec TLS (Kokkos's OpenMP thread instance) a shared object cannot hold.
  build_kokkos host g++ -DKokkos_ENABLE_OPENMP=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON
}

# The PTX-8 / sm_90a route (wgmma with CUDA 11.8's front end; cmake/ridgeline_sm90a.cmake): the
# launcher and the ptxas/fatbinary shims, copied from scripts/sm90a on every run so they follow the
# checkout. Kokkos itself is never built through them.
install_sm90a_tools() {
  local dest=$deps/bin/sm90a t
  mkdir -p "$dest"
  for t in launch ptxas fatbinary; do
    cmp -s "$root/scripts/sm90a/$t" "$dest/$t" || install -m 755 "$root/scripts/sm90a/$t" "$dest/$t"
  done
  local cuda12=${RIDGELINE_SM90A_CUDA_ROOT:-/usr/local/cuda}/bin
  if [ -x "$cuda12/ptxas" ] && [ -x "$cuda12/fatbinary" ]; then
    log "sm_90a route tools in $dest (assembler: $("$cuda12/ptxas" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'))"
  else
    log "no ptxas/fatbinary in $cuda12: CUDA builds will use mma.sync only (no sm_90a route)"
  fi
}

do_cuda() {
  ensure_extra_sources
  apt_install dpkg-dev nvidia-cuda-toolkit g++-11
  fetch_kokkos_sources
  cuda_env
  local w=$deps/bin/nvcc_sm90
  write_retarget_wrapper "$w" "$deps/src/kokkos/bin/nvcc_wrapper" sm_80 sm_90
  install_sm90a_tools
  # Position-independent, like the host build's, so that libridgeline_c.so can carry it inside (a
  # shared library cannot link PIE objects that reach libc's and libstdc++'s data directly).
  build_kokkos cuda "$w" -DKokkos_ENABLE_CUDA=ON -DKokkos_ENABLE_CUDA_LAMBDA=ON -DKokkos_ARCH_AMPERE80=ON \
    -DCMAKE_CXX_FLAGS=-arch=sm_80 -DCUDAToolkit_ROOT=/usr -DCMAKE_CUDA_COMPILER=/usr/bin/nvcc \
    -DCUDAToolkit_INCLUDE_DIR=/usr/include -DCMAKE_POSITION_INDEPENDENT_CODE=ON
}

do_hip() {
  ensure_extra_sources
  apt_install dpkg-dev hipcc libamdhip64-dev rocm-device-libs
  fetch_kokkos_sources
  export HIP_PLATFORM=amd ROCM_PATH=/usr
  local w=$deps/bin/hipcc_gfx90a
  write_retarget_wrapper "$w" hipcc gfx908 gfx90a
  build_kokkos hip "$w" -DKokkos_ENABLE_HIP=ON -DKokkos_ARCH_VEGA908=ON
}

# Debian sid's Kokkos 5.2: the headers (libkokkos-dev) for the compile gate, and the runtime that
# scripts/check_kokkos5.sh runs the host GoogleTest suite on. sid's libkokkoscore needs glibc >= 2.38
# and GLIBCXX_3.4.32 (GCC 13+), newer than Debian 12's, so sid's libc6 (with its dynamic loader),
# libstdc++6, libgcc-s1 and libgomp1 come too, unpacked under $dest/runtime and never installed: the
# tests run through that loader with --library-path, and nothing else on the machine sees them. The
# packages' other dependencies (gcc-16-base, libc-gconv-modules-extra) hold no library the tests load.
# Headers and libraries come from one sid snapshot: when sid has moved past the headers unpacked here,
# both are fetched again.
do_kokkos5() {
  local dest=$deps/kokkos5 rt=$deps/kokkos5/runtime
  if [ -f "$dest/.done" ] && [ -f "$rt/.done" ]; then
    log "Kokkos 5 headers and runtime already in $dest"
    return 0
  fi
  local uris signed lists=$deps/apt-sid
  uris=$(debian_stanza_field URIs 'bookworm')
  signed=$(debian_stanza_field Signed-By 'bookworm')
  mkdir -p "$lists/lists/partial" "$lists/etc"
  # A private sources list and lists folder: the system's apt state never sees the sid suite.
  printf 'Types: deb\nURIs: %s\nSuites: sid\nComponents: main\nSigned-By: %s\n' "$uris" "$signed" \
    >"$lists/etc/sid.sources"
  local o=(-o "Dir::State::Lists=$lists/lists" -o "Dir::Etc::SourceList=/dev/null"
    -o "Dir::Etc::SourceParts=$lists/etc" -o "Dir::Cache=$lists/cache" "${apt_own[@]}")
  mkdir -p "$lists/cache/archives/partial"
  apt-get "${o[@]}" update -qq
  local have=
  [ -f "$dest/.done" ] && have=$(sed 's/_amd64.deb$//' "$dest/VERSION")
  local now
  now=$(apt-cache "${o[@]}" show libkokkos-dev | sed -n 's/^Version: //p' | head -n 1)
  if [ -n "$have" ] && [ -n "$now" ] && [ "$have" != "$now" ]; then
    log "sid has libkokkos-dev $now, the headers here are $have: fetching both again"
    rm -rf "$dest"
  fi
  mkdir -p "$dest"
  if [ ! -f "$dest/.done" ]; then
    log "fetching Debian sid libkokkos-dev headers"
    (cd "$lists" && rm -f libkokkos-dev_*.deb && apt-get "${o[@]}" download libkokkos-dev)
    dpkg-deb -x "$lists"/libkokkos-dev_*.deb "$dest"
    ls "$lists"/libkokkos-dev_*.deb | sed 's/.*libkokkos-dev_//' >"$dest/VERSION"
    touch "$dest/.done"
  fi
  # The runtime package is the one the headers package depends on, at its exact version
  # ("libkokkos5.2 (= 5.2.2-2)"), so a soname change in sid follows by itself.
  local kdep
  kdep=$(dpkg-deb -f "$lists"/libkokkos-dev_*.deb Depends | tr ',' '\n' |
    sed -n 's/^ *\(libkokkos[0-9.]*\) *(= *\([^)]*\)).*/\1=\2/p' | head -n 1)
  [ -n "$kdep" ] || { log "no libkokkos runtime package in libkokkos-dev's Depends"; exit 1; }
  log "fetching Debian sid's $kdep, libc6, libstdc++6, libgcc-s1, libgomp1 (run-time only, unpacked)"
  rm -rf "$rt" "$lists/run"
  mkdir -p "$rt" "$lists/run"
  (cd "$lists/run" && apt-get "${o[@]}" download "$kdep" libc6 libstdc++6 libgcc-s1 libgomp1)
  local d
  for d in "$lists"/run/*.deb; do
    dpkg-deb -x "$d" "$rt"
    basename "$d" >>"$rt/VERSIONS"
  done
  [ -x "$rt/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" ] ||
    { log "sid's libc6 holds no usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"; exit 1; }
  touch "$rt/.done"
}

for w in "${want[@]}"; do
  case $w in
    host) do_host ;;
    cuda) do_cuda ;;
    hip) do_hip ;;
    kokkos5) do_kokkos5 ;;
    *) log "unknown target '$w' (host, cuda, hip, kokkos5)"; exit 2 ;;
  esac
done
log "done: ${want[*]}"
