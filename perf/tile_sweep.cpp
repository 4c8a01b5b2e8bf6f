// ridgeline-tile-sweep: times candidate tile configurations of the build's default execution space
// against the entry its tile table holds, in one process, so a table change is chosen on numbers.
//
//   ridgeline-tile-sweep [--reps N] [--gemm N] [--gemv N ...]
//
// Candidates are search space, not table entries: the winners are copied into
// backends/<name>/tile_table.hpp by hand, with the run that chose them recorded in perf/results/.
// Every candidate's result is checked against the table entry's (relative Frobenius error).
#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <ridgeline/ridgeline.hpp>
#include <ridgeline/tune.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
template <class T>
using Matrix = Kokkos::View<T**, Kokkos::LayoutLeft, Mem>;
template <class T>
using Vector = Kokkos::View<T*, Kokkos::LayoutLeft, Mem>;
namespace rd = ridgeline::detail;
using Be = rd::Backend<Exec, float>;

template <class V>
void fill(const V& v, unsigned seed) {
  auto h = Kokkos::create_mirror_view(v);
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  auto* p = h.data();
  for (std::size_t i = 0; i < h.span(); ++i) p[i] = static_cast<typename V::value_type>(d(g));
  Kokkos::deep_copy(v, h);
}

template <class F>
double median_seconds(int reps, F&& f) {
  f();
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto s = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class V>
double rel_diff(const V& a, const V& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ha.span(); ++i) {
    num += std::pow(double(ha.data()[i]) - double(hb.data()[i]), 2);
    den += std::pow(double(hb.data()[i]), 2);
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}

// ---- GEMM candidates -------------------------------------------------------------------------
// SIMT entries of GPU tables split each micro-tile into fragments (fm < tm); host entries keep
// whole micro-tiles, and tensor-core entries have no fragments of that kind.
template <class Cfg, class = void>
struct SplitFragments : std::false_type {};
template <class Cfg>
struct SplitFragments<Cfg, std::void_t<decltype(Cfg::fm)>> : std::bool_constant<Cfg::fm != Cfg::tm> {};

template <class Base, int kBk, int kGroupLanes, int kLanesM, int kMinBlocks>
struct Gemm : Base {
  static constexpr int bk = kBk, group_lanes = kGroupLanes, lanes_m = kLanesM, min_blocks = kMinBlocks;
};

// Another tile and micro-tile shape. Split-fragment bases (GPU tables) keep their fragment width
// (16 bytes); contiguous ones (host tables) keep whole micro-tiles.
template <class Base, int kBm, int kBn, int kBk, int kTm, int kTn, int kGroupLanes, int kLanesM>
struct GemmShape : Base {
  static constexpr bool kContiguous = Base::fm == Base::tm;
  static constexpr int bm = kBm, bn = kBn, bk = kBk, tm = kTm, tn = kTn;
  static constexpr int fm = kContiguous ? kTm : Base::fm, fn = kContiguous ? kTn : Base::fn;
  // GPU tables: one micro-tile per thread, one team per SM unless GemmTeam says otherwise.
  static constexpr int team_size = kContiguous ? Base::team_size : (kBm / kTm) * (kBn / kTn);
  static constexpr int min_blocks = kContiguous ? Base::min_blocks : 1;
  static constexpr int group_lanes = kGroupLanes, lanes_m = kLanesM;
};

// Fragment prefetch on or off (k_loop_prefetch in gemm_team_tiled.hpp), on top of any entry.
template <class Base, bool kOn>
struct GemmPrefetch : Base {
  static constexpr bool prefetch_fragments = kOn;
};

// Another team size and teams-per-SM target on top of a shape.
template <class Base, int kTeam, int kMinBlocks>
struct GemmTeam : Base {
  static constexpr int team_size = kTeam, min_blocks = kMinBlocks;
};

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
// Experiment: Kokkos 3.4 launches every TeamPolicy kernel preferring shared memory, which leaves
// ~23 KB of L1 on the H200. This sets kernel K's shared-memory carveout (percent of the SM's shared
// memory) after Kokkos has configured it on its first launch, which Kokkos does only once.
template <class K>
void set_carveout(int percent) {
  const cudaError_t e = cudaFuncSetAttribute(ridgeline::backends::cuda::kernel_function<K>(),
                                             cudaFuncAttributePreferredSharedMemoryCarveout, percent);
  if (e != cudaSuccess) std::printf("  carveout %d%%: %s\n", percent, cudaGetErrorString(e));
}
template <class K, class Cfg>
int fitted_percent() {
  return ridgeline::backends::cuda::fitted_carveout<K>(Exec(), K::scratch_bytes(), Cfg::team_size);
}
#endif

// The register-staging team kernel stages elements where packets do not apply; every other kernel
// (asynchronous copies, TMA) stages 16-byte packets only.
template <class K>
struct IsTeamTiled : std::false_type {};
template <class E, class Cfg, class T, class Acc, class MK, bool kA, bool kB, bool kV, class TC>
struct IsTeamTiled<rd::GemmTeamTiled<E, Cfg, T, Acc, MK, kA, kB, kV, TC>> : std::true_type {};

template <class Cfg, class T>
void gemm_candidate(const char* name, const Matrix<T>& A, const Matrix<T>& B, const Matrix<T>& C,
                    const Matrix<T>& ref, int reps, double base_s) {
  // Packet staging where the configuration has it and the operands allow it, as the dispatcher does;
  // an entry with an asynchronous copy component runs the asynchronous-staging kernel.
  using Plain = rd::GemmKernelFor<Exec, Cfg, T, true, false, false>;
  using Packets = rd::GemmKernelFor<Exec, Cfg, T, true, false, Plain::vector_capable>;
  const auto a = rd::strided_op(A, rd::Trans::N);
  const auto b = rd::strided_op(B, rd::Trans::N);
  const auto c = rd::strided_op(C, rd::Trans::N);
  const rd::Strided2D<const T> ac{a.data, a.rows, a.cols, a.rs, a.cs}, bc{b.data, b.rows, b.cols, b.rs, b.cs};
  try {
    const bool packets = rd::packet_staging_applies<Plain>(ac, bc);
    if (!packets && !IsTeamTiled<Plain>::value) {
      std::printf("  %-44s n/a: stages 16-byte packets only, and these operands do not\n", name);
      return;
    }
    const auto split = rd::gemm_k_split<Plain>(Exec(), ac.rows, bc.cols, ac.cols);
    const double s = median_seconds(reps, [&] {
      if (packets) {
        rd::launch_gemm<Packets>(Exec(), ac, bc, c, T(1), T(0), split);
      } else {
        rd::launch_gemm<Plain>(Exec(), ac, bc, c, T(1), T(0), split);
      }
    });
    const double flops = 2.0 * A.extent(0) * B.extent(1) * A.extent(1);
    std::printf("  %-34s %9.3f ms %9.1f GFLOP/s  x%.3f  err %.1e  scratch %zu B\n", name, s * 1e3,
                flops / s * 1e-9, base_s > 0 ? base_s / s : 1.0, rel_diff(C, ref), Plain::scratch_bytes());
  } catch (const std::exception& e) {
    std::printf("  %-44s rejected: %s\n", name, e.what());
  }
}

template <class T, class Base>
void sweep_gemm(int n, int reps) {
  Matrix<T> A("A", n, n), B("B", n, n), C("C", n, n), ref("ref", n, n);
  fill(A, 1), fill(B, 2);
  const double flops = 2.0 * n * double(n) * n;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", T(1), A, B, T(0), ref); });
  std::printf("gemm NN %d^3 %s: table entry %.3f ms %.1f GFLOP/s\n", n, sizeof(T) == 4 ? "fp32" : "fp64",
              base * 1e3, flops / base * 1e-9);
  gemm_candidate<Gemm<Base, 16, Base::team_size, Base::bm / Base::tm, 1>, T>("bk16", A, B, C, ref, reps,
                                                                             base);
  gemm_candidate<Gemm<Base, 8, Base::team_size, Base::bm / Base::tm, 1>, T>("bk8", A, B, C, ref, reps, base);
  gemm_candidate<Gemm<Base, Base::bk, Base::team_size, Base::bm / Base::tm, 2>, T>("2 teams/SM", A, B, C, ref,
                                                                                   reps, base);
  gemm_candidate<Gemm<Base, 8, 32, 4, 1>, T>("warp 4x8 lanes", A, B, C, ref, reps, base);
  gemm_candidate<Gemm<Base, 8, 32, 8, 1>, T>("warp 8x4 lanes", A, B, C, ref, reps, base);
  gemm_candidate<Gemm<Base, 16, 32, 4, 1>, T>("warp 4x8 lanes, bk16", A, B, C, ref, reps, base);
  if constexpr (Base::fm == Base::tm) {
    // Contiguous micro-tiles (host tables): other team tiles and K depths around the same
    // micro-tile, which is what the host micro-kernel requires.
    gemm_candidate<
        GemmShape<Base, 2 * Base::bm, Base::bn, Base::bk, Base::tm, Base::tn, 1, Base::bm / Base::tm>, T>(
        "2x bm", A, B, C, ref, reps, base);
    gemm_candidate<
        GemmShape<Base, Base::bm, 2 * Base::bn, Base::bk, Base::tm, Base::tn, 1, Base::bm / Base::tm>, T>(
        "2x bn", A, B, C, ref, reps, base);
    gemm_candidate<
        GemmShape<Base, Base::bm, Base::bn, Base::bk / 2, Base::tm, Base::tn, 1, Base::bm / Base::tm>, T>(
        "bk / 2", A, B, C, ref, reps, base);
  } else if constexpr (sizeof(T) == 8) {
    gemm_candidate<GemmPrefetch<Base, false>, T>("no fragment prefetch", A, B, C, ref, reps, base);
    gemm_candidate<GemmPrefetch<Base, true>, T>("fragment prefetch", A, B, C, ref, reps, base);
    gemm_candidate<GemmPrefetch<Gemm<Base, 8, 32, 8, 1>, true>, T>("fragment prefetch, warp 8x4 lanes", A, B,
                                                                   C, ref, reps, base);
    gemm_candidate<GemmPrefetch<GemmTeam<GemmShape<Base, 128, 64, 8, 8, 8, 128, 16>, 128, 2>, true>, T>(
        "128x64x8, 8x8, team 128, 2/SM, prefetch", A, B, C, ref, reps, base);
    // Half tiles on 128 threads at two teams per SM: the same warps per SM as one 256-thread team,
    // but one team computes while the other waits at its barrier.
    gemm_candidate<GemmTeam<GemmShape<Base, 64, 128, 8, 8, 8, 128, 8>, 128, 2>, T>(
        "64x128x8, 8x8, team 128, 2/SM", A, B, C, ref, reps, base);
    gemm_candidate<GemmTeam<GemmShape<Base, 128, 64, 8, 8, 8, 128, 16>, 128, 2>, T>(
        "128x64x8, 8x8, team 128, 2/SM", A, B, C, ref, reps, base);
    gemm_candidate<GemmTeam<GemmShape<Base, 64, 128, 16, 8, 8, 128, 8>, 128, 2>, T>(
        "64x128x16, 8x8, team 128, 2/SM", A, B, C, ref, reps, base);
    // Smaller micro-tiles at two teams per SM: more warps to hide DFMA and scratch latency.
    gemm_candidate<GemmTeam<GemmShape<Base, 128, 64, 8, 8, 4, 256, 16>, 256, 2>, T>("128x64x8, 8x4, 2/SM", A,
                                                                                    B, C, ref, reps, base);
    gemm_candidate<GemmTeam<GemmShape<Base, 64, 128, 8, 4, 8, 256, 16>, 256, 2>, T>("64x128x8, 4x8, 2/SM", A,
                                                                                    B, C, ref, reps, base);
    gemm_candidate<GemmTeam<GemmShape<Base, 128, 128, 8, 8, 4, 512, 16>, 512, 1>, T>(
        "128x128x8, 8x4, team 512", A, B, C, ref, reps, base);
  } else if constexpr (sizeof(T) == 4) {
    using P = rd::GemmPacketCfg<Exec, T>;
    gemm_candidate<GemmPrefetch<P, false>, T>("packet entry, no fragment prefetch", A, B, C, ref, reps, base);
    gemm_candidate<GemmPrefetch<P, true>, T>("packet entry, fragment prefetch", A, B, C, ref, reps, base);
    gemm_candidate<GemmPrefetch<Base, false>, T>("general entry, no fragment prefetch", A, B, C, ref, reps,
                                                 base);
    gemm_candidate<GemmPrefetch<Base, true>, T>("general entry, fragment prefetch", A, B, C, ref, reps, base);
    // 8x16 micro-tiles on 128 threads at two teams per SM: the same warps per SM as the 128x256
    // entry, but the two teams' barriers overlap, and bk 16 halves the barriers per FMA.
    gemm_candidate<GemmTeam<GemmShape<Base, 128, 128, 16, 8, 16, 128, 16>, 128, 2>, T>(
        "128x128x16, 8x16, team 128, 2/SM", A, B, C, ref, reps, base);
    gemm_candidate<GemmTeam<GemmShape<Base, 128, 128, 8, 8, 16, 128, 16>, 128, 2>, T>(
        "128x128x8, 8x16, team 128, 2/SM", A, B, C, ref, reps, base);
    gemm_candidate<GemmTeam<GemmShape<Base, 128, 128, 16, 16, 8, 128, 8>, 128, 2>, T>(
        "128x128x16, 16x8, team 128, 2/SM", A, B, C, ref, reps, base);
    gemm_candidate<GemmTeam<GemmShape<Base, 128, 128, 16, 8, 16, 32, 4>, 128, 2>, T>(
        "128x128x16, 8x16, team 128, 2/SM, warp 4x8", A, B, C, ref, reps, base);
    // More FMAs per scratch byte: 8x16 and 16x8 micro-tiles on 256 threads.
    gemm_candidate<GemmShape<Base, 128, 256, 8, 8, 16, 256, 16>, T>("128x256x8, 8x16", A, B, C, ref, reps,
                                                                    base);
    gemm_candidate<GemmShape<Base, 128, 256, 8, 8, 16, 32, 4>, T>("128x256x8, 8x16, warp 4x8", A, B, C, ref,
                                                                  reps, base);
    gemm_candidate<GemmShape<Base, 128, 256, 8, 8, 16, 32, 8>, T>("128x256x8, 8x16, warp 8x4", A, B, C, ref,
                                                                  reps, base);
    gemm_candidate<GemmShape<Base, 256, 128, 8, 16, 8, 256, 16>, T>("256x128x8, 16x8", A, B, C, ref, reps,
                                                                    base);
    gemm_candidate<GemmShape<Base, 256, 128, 8, 16, 8, 32, 4>, T>("256x128x8, 16x8, warp 4x8", A, B, C, ref,
                                                                  reps, base);
    gemm_candidate<GemmShape<Base, 128, 128, 16, 8, 8, 32, 4>, T>("128x128x16, 8x8, warp 4x8", A, B, C, ref,
                                                                  reps, base);
  }
}

#if defined(KOKKOS_ENABLE_CUDA)
// ---- fp64 on the FP64 tensor cores: DMMA candidates --------------------------------------------
// Register staging (gemm_team_tiled.hpp) or asynchronous copies (cp.async, gemm_team_async.hpp),
// warp tiles of (kWm / 16) x (kWn / 8) m16n8k16 instructions, and the SIMT entry they replaced.
template <bool kAsync>
struct SweepAsync {};
template <>
struct SweepAsync<true> {
  using async_copy = ridgeline::backends::cuda::AsyncCopySm80;
};
// kK8: m16n8k8 instructions one k8 slice at a time, the next slice's fragments loaded across the K
// steps' barriers (fragments_across_steps). kK16Across: the same loop on m16n8k16, one k16 slice at a time
// (K steps of 32 or more: an even number of slices).
template <int kBm, int kBn, int kBk, int kWm, int kWn, int kStages, int kMinBlocks, bool kAsync,
          bool kCopiesAfter = false, bool kSteady = false, bool kK8 = false, bool kK16Across = false>
struct Dmma : SweepAsync<kAsync> {
  static constexpr bool copies_after_products = kCopiesAfter, steady_loop = kSteady;
  static constexpr bool fragments_across_steps = kK8 || kK16Across;
  static constexpr int dmma_k = kK8 ? 8 : 16;
  static constexpr int bm = kBm, bn = kBn, bk = kBk, warp_m = kWm, warp_n = kWn, tm = kWm / 8, tn = kWn / 4;
  static constexpr int pad_a = 4, pad_b = 4, pad_k = 4;
  static constexpr int team_size = (kBm / kWm) * (kBn / kWn) * 32, vector_length = 1, stages = kStages;
  static constexpr int min_blocks = kMinBlocks, scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = ridgeline::backends::cuda::DmmaSm90MicroKernel<Dmma, T, Acc>;
};
// A candidate with the epilogue that stores alpha = 1, beta = 0 sums as they are (store_as_summed,
// gemm_epilogue.hpp), as the table's short-K entry has it.
template <class Base>
struct Summed : Base {
  static constexpr bool store_as_summed = true;
};

void sweep_gemm_dmma(int n, int reps) {
  using T = double;
  Matrix<T> A("A", n, n), B("B", n, n), C("C", n, n), ref("ref", n, n);
  fill(A, 1), fill(B, 2);
  const double flops = 2.0 * n * double(n) * n;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", T(1), A, B, T(0), ref); });
  std::printf("gemm NN %d^3 fp64: table entry %.3f ms %.1f GFLOP/s\n", n, base * 1e3, flops / base * 1e-9);
  gemm_candidate<ridgeline::backends::cuda::GemmTilesFp64, T>("SIMT entry (before DMMA)", A, B, C, ref, reps,
                                                              base);
  // Sweep 6: m16n8k8 with the next slice's fragments loaded across the barriers (the table entry's
  // kernel now), against the m16n8k16 entry it replaced and its neighbours.
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 3, 2, true, false, true>, T>(
      "k16 128x64x16 3st steady (old entry)", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 3, 2, true, false, false, true>, T>("k8 across 128x64x16 3st 2/SM",
                                                                               A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 4, 2, true, false, false, true>, T>("k8 across 128x64x16 4st 2/SM",
                                                                               A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 2, 2, true, false, false, true>, T>("k8 across 128x64x16 2st 2/SM",
                                                                               A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 32, 64, 32, 2, 2, true, false, false, true>, T>("k8 across 128x64x32 2st 2/SM",
                                                                               A, B, C, ref, reps, base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 3, 3, true, false, false, true>, T>("k8 across 64x64x16 3st 3/SM",
                                                                              A, B, C, ref, reps, base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 4, 3, true, false, false, true>, T>("k8 across 64x64x16 4st 3/SM",
                                                                              A, B, C, ref, reps, base);
  gemm_candidate<Dmma<64, 128, 16, 32, 64, 3, 2, true, false, false, true>, T>("k8 across 64x128x16 3st 2/SM",
                                                                               A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 128, 16, 64, 32, 3, 1, true, false, false, true>, T>(
      "k8 across 128x128x16 3st 1/SM", A, B, C, ref, reps, base);
  // Sweeps 1-3 (perf/results/2026-11-30-h200-bc08c6d/h200-2026-11-30-bc08c6d-dmma-sweep.txt,
  // -dmma-sweep2.txt, -dmma-sweep3-paired.txt) chose 128x64 tiles at two teams per SM; these are the
  // runners-up. Sweep 4: copies issued after each step's products (gemm_team_async.hpp,
  // copies_after_products). Sweep 5: interior tiles' steady K steps in a loop without checks or
  // branches (gemm_team_async.hpp, steady_loop), copies before or after the products.
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 3, 2, true, false, true>, T>("async 128x64x16 3st 2/SM steady", A,
                                                                        B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 3, 2, true, true, true>, T>(
      "async 128x64x16 3st 2/SM steady, copies after", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 4, 2, true, true, true>, T>(
      "async 128x64x16 4st 2/SM steady, copies after", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 32, 64, 32, 2, 2, true, true, true>, T>(
      "async 128x64x32 2st 2/SM steady, copies after", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 3, 3, true, false, true>, T>("async 64x64x16 3st 3/SM steady", A, B,
                                                                       C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 3, 2, true, true>, T>("async 128x64x16 3st 2/SM copies after", A,
                                                                 B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 4, 2, true, true>, T>("async 128x64x16 4st 2/SM copies after", A,
                                                                 B, C, ref, reps, base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 3, 3, true, true>, T>("async 64x64x16 3st 3/SM copies after", A, B,
                                                                C, ref, reps, base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 3, 3, true>, T>("async 64x64x16 3st 3/SM (small entry)", A, B, C,
                                                          ref, reps, base);
  gemm_candidate<Dmma<128, 64, 32, 64, 32, 2, 2, true>, T>("async 128x64x32 w64x32 2st 2/SM", A, B, C, ref,
                                                           reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 4, 2, true>, T>("async 128x64x16 w64x32 4st 2/SM", A, B, C, ref,
                                                           reps, base);
  gemm_candidate<Dmma<64, 128, 16, 32, 64, 3, 2, true>, T>("async 64x128x16 w32x64 3st 2/SM", A, B, C, ref,
                                                           reps, base);
  gemm_candidate<Dmma<128, 128, 32, 64, 32, 3, 1, true>, T>("async 128x128x32 w64x32 3st", A, B, C, ref, reps,
                                                            base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 4, 3, true>, T>("async 64x64x16 w32x32 4st 3/SM", A, B, C, ref,
                                                          reps, base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 2, 2, false>, T>("regs 64x64x16 w32x32 2/SM", A, B, C, ref, reps,
                                                           base);
}

// Issue 13's fp64 cliffs, NN on rectangular shapes: few-column DMMA tiles (one or two n8 columns per
// warp, A streamed once through cp.async) for skinny N, and smaller or lighter tiles with more teams per SM
// for short K and small products, against the table's entries; each runs its own split K.
void sweep_gemm_dmma_rect(std::int64_t m, std::int64_t n, std::int64_t k, int reps) {
  using T = double;
  Matrix<T> A("A", m, k), B("B", k, n), C("C", m, n), ref("ref", m, n);
  fill(A, 1), fill(B, 2);
  const double flops = 2.0 * m * double(n) * k;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", T(1), A, B, T(0), ref); });
  std::printf("gemm NN %lldx%lldx%lld fp64 (DMMA rect): ridgeline::gemm %.3f ms %.1f GFLOP/s\n", (long long)m,
              (long long)n, (long long)k, base * 1e3, flops / base * 1e-9);
  if (n <= 16) {
    gemm_candidate<Dmma<128, 8, 32, 32, 8, 3, 2, true, false, true>, T>("few 128x8x32 w32x8 3st 2/SM", A, B,
                                                                        C, ref, reps, base);
    gemm_candidate<Dmma<128, 8, 32, 32, 8, 2, 3, true, false, true>, T>("few 128x8x32 w32x8 2st 3/SM", A, B,
                                                                        C, ref, reps, base);
    gemm_candidate<Dmma<128, 8, 32, 32, 8, 4, 1, true, false, true>, T>("few 128x8x32 w32x8 4st 1/SM", A, B,
                                                                        C, ref, reps, base);
    gemm_candidate<Dmma<64, 8, 32, 16, 8, 3, 3, true, false, true>, T>("few 64x8x32 w16x8 3st 3/SM", A, B, C,
                                                                       ref, reps, base);
    gemm_candidate<Dmma<64, 8, 32, 16, 8, 4, 2, true, false, true>, T>("few 64x8x32 w16x8 4st 2/SM", A, B, C,
                                                                       ref, reps, base);
    gemm_candidate<Dmma<256, 8, 32, 64, 8, 3, 1, true, false, true>, T>("few 256x8x32 w64x8 3st 1/SM", A, B,
                                                                        C, ref, reps, base);
    gemm_candidate<Dmma<128, 16, 32, 32, 16, 3, 2, true, false, true>, T>("few 128x16x32 w32x16 3st 2/SM", A,
                                                                          B, C, ref, reps, base);
  }
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 3, 3, true, false, true>, T>("64x64x16 3st 3/SM (small entry)", A,
                                                                       B, C, ref, reps, base);
  gemm_candidate<Dmma<64, 64, 16, 32, 32, 2, 4, true, false, true>, T>("64x64x16 2st 4/SM", A, B, C, ref,
                                                                       reps, base);
  gemm_candidate<Dmma<64, 64, 32, 32, 32, 2, 3, true, false, true>, T>("64x64x32 2st 3/SM", A, B, C, ref,
                                                                       reps, base);
  gemm_candidate<Dmma<64, 32, 16, 32, 16, 3, 4, true, false, true>, T>("64x32x16 w32x16 3st 4/SM", A, B, C,
                                                                       ref, reps, base);
  gemm_candidate<Dmma<32, 64, 16, 16, 32, 3, 4, true, false, true>, T>("32x64x16 w16x32 3st 4/SM", A, B, C,
                                                                       ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 64, 32, 3, 2, true, false, true>, T>("128x64x16 3st 2/SM (packet entry)",
                                                                        A, B, C, ref, reps, base);
  // What cuBLAS 13.1 runs on the H100 (ncu, 2026-12-07): K steps of 32 and warp tiles of 32 x 32 or 16 x 32,
  // one or two teams per SM. 1024^3: 128x64x32, 4 x 2 warps, 3 stages (147 KB), 128 blocks; 512^3: 32x64x32,
  // 2 x 2 warps, 128 blocks; TN 3001x2999x1501: 64x64x32, 2 x 2 warps. Ridgeline's small tiles run K steps of
  // 16 at three teams per SM, so its warps meet at a barrier every 8 DMMAs, cuBLAS's every 16.
  gemm_candidate<Dmma<128, 64, 32, 32, 32, 3, 1, true, false, true>, T>("128x64x32 w32x32 3st 1/SM", A, B, C,
                                                                        ref, reps, base);
  gemm_candidate<Dmma<128, 64, 32, 32, 32, 2, 1, true, false, true>, T>("128x64x32 w32x32 2st 1/SM", A, B, C,
                                                                        ref, reps, base);
  gemm_candidate<Dmma<128, 64, 16, 32, 32, 3, 2, true, false, true>, T>("128x64x16 w32x32 3st 2/SM", A, B, C,
                                                                        ref, reps, base);
  gemm_candidate<Dmma<64, 64, 32, 32, 32, 3, 2, true, false, true>, T>("64x64x32 w32x32 3st 2/SM", A, B, C,
                                                                       ref, reps, base);
  gemm_candidate<Dmma<32, 64, 32, 16, 32, 3, 2, true, false, true>, T>("32x64x32 w16x32 3st 2/SM", A, B, C,
                                                                       ref, reps, base);
  gemm_candidate<Dmma<32, 64, 32, 16, 32, 3, 3, true, false, true>, T>("32x64x32 w16x32 3st 3/SM", A, B, C,
                                                                       ref, reps, base);
  gemm_candidate<Dmma<64, 32, 32, 32, 16, 3, 3, true, false, true>, T>("64x32x32 w32x16 3st 3/SM", A, B, C,
                                                                       ref, reps, base);
  // The same K steps of 32 with each k16 slice's fragments loaded while the previous slice multiplies, across
  // the K steps' barriers (fragments_across_steps): ncu had Ridgeline's 1024^3 warps stalled on fixed-latency
  // dependencies (the fragment loads before their DMMAs) and cuBLAS's on the busy DP pipe, at 236 registers
  // a thread, room for two fragment sets beside 32 x 32 accumulators.
  gemm_candidate<Dmma<128, 64, 32, 32, 32, 3, 1, true, false, false, false, true>, T>(
      "k16 across 128x64x32 w32x32 3st 1/SM", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 32, 32, 32, 4, 1, true, false, false, false, true>, T>(
      "k16 across 128x64x32 w32x32 4st 1/SM", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<64, 64, 32, 32, 32, 3, 2, true, false, false, false, true>, T>(
      "k16 across 64x64x32 w32x32 3st 2/SM", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<32, 64, 32, 16, 32, 3, 2, true, false, false, false, true>, T>(
      "k16 across 32x64x32 w16x32 3st 2/SM", A, B, C, ref, reps, base);
  gemm_candidate<Dmma<128, 64, 32, 32, 32, 3, 1, true, false, false, true>, T>(
      "k8 across 128x64x32 w32x32 3st 1/SM", A, B, C, ref, reps, base);
  // Short K at many waves (8192^2 x 256, gemm_batched 256^3): cuBLAS runs 128x64x16 tiles on m16n8k8, three
  // stages, 2 x 2 warps of 64 x 32 (ncu, perf/results/2026-12-07-h100-77bea0a/). Each with the short-K
  // entry's epilogue, against the short-K entry itself.
  gemm_candidate<Summed<Dmma<64, 64, 16, 32, 32, 3, 3, true, false, true>>, T>(
      "summed 64x64x16 3st 3/SM (short entry)", A, B, C, ref, reps, base);
  gemm_candidate<Summed<Dmma<128, 64, 16, 64, 32, 3, 2, true, false, false, true>>, T>(
      "summed k8 across 128x64x16 w64x32 3st 2/SM", A, B, C, ref, reps, base);
  gemm_candidate<Summed<Dmma<128, 64, 16, 64, 32, 3, 2, true, false, true>>, T>(
      "summed 128x64x16 w64x32 3st 2/SM steady", A, B, C, ref, reps, base);
  gemm_candidate<Summed<Dmma<128, 64, 32, 32, 32, 3, 1, true, false, false, false, true>>, T>(
      "summed k16 across 128x64x32 w32x32 3st 1/SM", A, B, C, ref, reps, base);
}

// ---- FP16/BF16 in, FP32 out on the tensor cores: HMMA (mma.sync m16n8k16) candidates -------------
template <int kBm, int kBn, int kBk, int kWm, int kWn, int kStages, int kMinBlocks, bool kAsync,
          bool kCopiesAfter = false, bool kSteady = false, bool kAcross = false>
struct Hmma : SweepAsync<kAsync> {
  static constexpr bool copies_after_products = kCopiesAfter, steady_loop = kSteady;
  static constexpr bool fragments_across_steps = kAcross;
  static constexpr int bm = kBm, bn = kBn, bk = kBk, warp_m = kWm, warp_n = kWn, tm = kWm / 8, tn = kWn / 4;
  static constexpr int pad_a = 8, pad_b = 8, pad_k = 8;
  static constexpr int team_size = (kBm / kWm) * (kBn / kWn) * 32, vector_length = 1, stages = kStages;
  static constexpr int min_blocks = kMinBlocks, scratch_level = 0, group_m = 8;
  template <class T, class Acc>
  using micro_kernel = ridgeline::backends::cuda::HmmaSm80MicroKernel<Hmma, T, Acc>;
};

template <class Cfg, class T>
void hmma_candidate(const char* name, const Matrix<T>& A, const Matrix<T>& B, const Matrix<float>& C,
                    const Matrix<float>& ref, int reps, double base_s) {
  using K = rd::GemmKernelFor<Exec, Cfg, T, true, false, true, float>;
  const auto a = rd::strided_op(A, rd::Trans::N);
  const auto b = rd::strided_op(B, rd::Trans::N);
  const auto c = rd::strided_op(C, rd::Trans::N);
  const rd::Strided2D<const T> ac{a.data, a.rows, a.cols, a.rs, a.cs}, bc{b.data, b.rows, b.cols, b.rs, b.cs};
  try {
    if (rd::AsyncEntry<Cfg>::value && !rd::packet_staging_applies<K>(ac, bc))
      throw std::runtime_error("no packets");
    const auto split = rd::gemm_k_split<K>(Exec(), ac.rows, bc.cols, ac.cols);
    const double s = median_seconds(reps, [&] { rd::launch_gemm<K>(Exec(), ac, bc, c, 1.0f, 0.0f, split); });
    const double flops = 2.0 * A.extent(0) * B.extent(1) * A.extent(1);
    std::printf("  %-34s %9.3f ms %9.1f GFLOP/s  x%.3f  err %.1e  scratch %zu B\n", name, s * 1e3,
                flops / s * 1e-9, base_s > 0 ? base_s / s : 1.0, rel_diff(C, ref), K::scratch_bytes());
  } catch (const std::exception& e) {
    std::printf("  %-44s rejected: %s\n", name, e.what());
  }
}

template <class T>
void sweep_gemm_hmma(int n, int reps, const char* dtype) {
  Matrix<T> A("A", n, n), B("B", n, n);
  Matrix<float> C("C", n, n), ref("ref", n, n);
  fill(A, 1), fill(B, 2);
  const double flops = 2.0 * n * double(n) * n;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", 1.0f, A, B, 0.0f, ref); });
  std::printf("gemm NN %d^3 %s->fp32: table entry %.3f ms %.1f GFLOP/s\n", n, dtype, base * 1e3,
              flops / base * 1e-9);
  // Sweep 6: one team of 8 warps per SM (256 x 128 reads 3/4 of 128 x 128's L2 bytes per flop), with more
  // K steps in flight than sweep 5's four stages: ncu of 256x128x32 four stages had 13% of its stall samples
  // waiting for copies (long scoreboard) with the L2 at 59%.
  hmma_candidate<Hmma<256, 128, 32, 64, 64, 6, 1, true, false, false, true>, T>(
      "k16 across 256x128x32 6st 1/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<256, 128, 32, 64, 64, 5, 1, true, false, false, true>, T>(
      "k16 across 256x128x32 5st 1/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 256, 32, 64, 64, 6, 1, true, false, false, true>, T>(
      "k16 across 128x256x32 6st 1/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<256, 128, 32, 64, 64, 6, 1, true, true, true>, T>(
      "async 256x128x32 6st 1/SM copies after, steady", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<256, 128, 64, 64, 64, 4, 1, true, false, false, true>, T>(
      "k16 across 256x128x64 4st 1/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<256, 128, 64, 64, 64, 4, 1, true, true, true>, T>(
      "async 256x128x64 4st 1/SM copies after, steady", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 128, 64, 64, 64, 3, 2, true, false, false, true>, T>(
      "k16 across 128x128x64 3st 2/SM", A, B, C, ref, reps, base);
  // Sweep 5: each k16 slice's fragments loaded while the previous slice multiplies, across the K steps'
  // barriers too (fragments_across_steps, as the DMMA entry now runs).
  hmma_candidate<Hmma<128, 128, 32, 64, 64, 3, 2, true, false, false, true>, T>(
      "k16 across 128x128x32 3st 2/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 128, 32, 64, 64, 4, 2, true, false, false, true>, T>(
      "k16 across 128x128x32 4st 2/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 128, 64, 64, 64, 3, 1, true, false, false, true>, T>(
      "k16 across 128x128x64 3st 1/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<256, 128, 32, 64, 64, 4, 1, true, false, false, true>, T>(
      "k16 across 256x128x32 4st 1/SM", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 256, 32, 64, 64, 4, 1, true, false, false, true>, T>(
      "k16 across 128x256x32 4st 1/SM", A, B, C, ref, reps, base);
  // Sweep 4: the entry (128x128x32, four stages, copies after) with the steady loop.
  hmma_candidate<Hmma<128, 128, 32, 64, 64, 4, 2, true, true, true>, T>(
      "async 128x128x32 4st 2/SM copies after, steady", A, B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 128, 32, 64, 64, 4, 2, true, false, true>, T>("async 128x128x32 4st 2/SM steady",
                                                                         A, B, C, ref, reps, base);
  // Sweep 3 (copies after the products, and 128 x 256 at BK 64).
  hmma_candidate<Hmma<128, 128, 64, 64, 64, 3, 2, true, true>, T>("async 128x128x64 3st 2/SM copies after", A,
                                                                  B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 128, 64, 64, 64, 4, 1, true, true>, T>("async 128x128x64 4st 1/SM copies after", A,
                                                                  B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 128, 32, 64, 64, 4, 2, true, true>, T>("async 128x128x32 4st 2/SM copies after", A,
                                                                  B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 256, 64, 64, 64, 3, 1, true>, T>("async 128x256x64 w64x64 3st 1/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 256, 64, 64, 64, 3, 1, true, true>, T>("async 128x256x64 3st 1/SM copies after", A,
                                                                  B, C, ref, reps, base);
  hmma_candidate<Hmma<256, 128, 64, 64, 64, 3, 1, true, true>, T>("async 256x128x64 3st 1/SM copies after", A,
                                                                  B, C, ref, reps, base);
  hmma_candidate<Hmma<128, 128, 32, 64, 64, 3, 2, true>, T>("async 128x128x32 w64x64 3st 2/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 128, 64, 64, 64, 3, 1, true>, T>("async 128x128x64 w64x64 3st 1/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 128, 64, 64, 64, 3, 2, true>, T>("async 128x128x64 w64x64 3st 2/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 128, 64, 64, 64, 2, 2, true>, T>("async 128x128x64 w64x64 2st 2/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 128, 32, 64, 64, 6, 2, true>, T>("async 128x128x32 w64x64 6st 2/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 256, 32, 64, 64, 3, 1, true>, T>("async 128x256x32 w64x64 3st 1/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<256, 128, 32, 64, 64, 3, 1, true>, T>("async 256x128x32 w64x64 3st 1/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 128, 32, 32, 64, 4, 2, true>, T>("async 128x128x32 w32x64 4st 2/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<128, 128, 32, 64, 32, 4, 2, true>, T>("async 128x128x32 w64x32 4st 2/SM", A, B, C, ref,
                                                            reps, base);
  hmma_candidate<Hmma<64, 128, 32, 32, 64, 4, 3, true>, T>("async 64x128x32 w32x64 4st 3/SM", A, B, C, ref,
                                                           reps, base);
  hmma_candidate<Hmma<128, 64, 32, 64, 32, 2, 2, false>, T>("regs 128x64x32 w64x32 2/SM", A, B, C, ref, reps,
                                                            base);
}
#endif

#if defined(KOKKOS_ENABLE_CUDA) && RIDGELINE_HAVE_SM90A
// ---- FP16/BF16 on wgmma (sm_90a route): warpgroup tiles, stages, teams per SM ----------------------
template <int kBm, int kBn, int kWm, int kWn, int kStages, int kMinBlocks, int kInFlight = 1, int kBk = 64,
          bool kProductsFirst = false>
struct Wgmma {
  static constexpr int bm = kBm, bn = kBn, bk = kBk, warp_m = kWm, warp_n = kWn, tm = kWm / 32, tn = kWn / 4;
  static constexpr int wgmma_in_flight = kInFlight;
  static constexpr bool products_first = kProductsFirst;
  static constexpr int pad_a = 0, pad_b = 0, pad_k = 0;
  static constexpr int team_size = (kBm / kWm) * (kBn / kWn) * 128, vector_length = 1, stages = kStages;
  static constexpr int min_blocks = kMinBlocks, scratch_level = 0, group_m = 8;
  using async_copy = ridgeline::backends::cuda::AsyncCopyToAsyncProxy;
  template <class T, class Acc>
  using micro_kernel = ridgeline::backends::cuda::WgmmaSm90aMicroKernel<Wgmma, T, Acc>;
};

// The same on the TMA team kernel: a producer warpgroup before the (bm / wm) x (bn / wn) consumers.
template <int kBm, int kBn, int kWm, int kWn, int kStages, int kMinBlocks>
struct WgmmaTma : ridgeline::backends::cuda::WgmmaTmaEntry<WgmmaTma<kBm, kBn, kWm, kWn, kStages, kMinBlocks>,
                                                           kBm, kBn, 64, kWm, kWn, kStages, kMinBlocks> {};

template <class T>
void sweep_gemm_wgmma(int n, int reps, const char* dtype) {
  Matrix<T> A("A", n, n), B("B", n, n);
  Matrix<float> C("C", n, n), ref("ref", n, n);
  fill(A, 1), fill(B, 2);
  const double flops = 2.0 * n * double(n) * n;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", 1.0f, A, B, 0.0f, ref); });
  std::printf("gemm NN %d^3 %s->fp32 (wgmma): table entry %.3f ms %.1f GFLOP/s\n", n, dtype, base * 1e3,
              flops / base * 1e-9);
  // Sweeps 1-3 (h200-2026-12-01-390480a-wgmma-sweep.txt, -e356400-wgmma-sweep.txt) chose 128x256
  // w64x256, 4 stages of BK 64, one step of products in flight, products issued before the copies;
  // in flight 0 ran 0.87-0.88x, BK 32 with 6-8 stages 0.80-0.85x.
  // Sweep 5: the table entry is the TMA kernel; the cp.async entry it replaced, and TMA geometries.
  hmma_candidate<Wgmma<128, 256, 64, 256, 4, 1, 1, 64, true>, T>("cp.async 128x256x64 4st (old entry)", A, B,
                                                                 C, ref, reps, base);
  hmma_candidate<WgmmaTma<128, 256, 64, 256, 3, 1>, T>("tma 128x256x64 3st", A, B, C, ref, reps, base);
  hmma_candidate<WgmmaTma<128, 256, 64, 256, 4, 1>, T>("tma 128x256x64 4st", A, B, C, ref, reps, base);
  hmma_candidate<WgmmaTma<256, 128, 128, 128, 4, 1>, T>("tma 256x128x64 w128x128 4st", A, B, C, ref, reps,
                                                        base);
  hmma_candidate<WgmmaTma<128, 256, 128, 128, 4, 1>, T>("tma 128x256x64 w128x128 4st", A, B, C, ref, reps,
                                                        base);
}

// At most 64 rows: 64 x 16384 x 16384, the table's narrow entry against one-warpgroup wgmma tiles
// (split K supplies the teams, as launch_gemm decides for each).
template <class T>
void sweep_gemm_wgmma_narrow(int n, int reps, const char* dtype) {
  Matrix<T> A("A", 64, n), B("B", n, n);
  Matrix<float> C("C", 64, n), ref("ref", 64, n);
  fill(A, 1), fill(B, 2);
  const double flops = 2.0 * 64 * double(n) * n;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", 1.0f, A, B, 0.0f, ref); });
  std::printf("gemm NN 64x%dx%d %s->fp32 (wgmma narrow): table entry %.3f ms %.1f GFLOP/s\n", n, n, dtype,
              base * 1e3, flops / base * 1e-9);
  hmma_candidate<WgmmaTma<64, 256, 64, 256, 5, 1>, T>("tma 64x256x64 5st", A, B, C, ref, reps, base);
  hmma_candidate<WgmmaTma<64, 256, 64, 256, 4, 1>, T>("tma 64x256x64 4st", A, B, C, ref, reps, base);
  hmma_candidate<WgmmaTma<64, 128, 64, 128, 4, 2>, T>("tma 64x128x64 4st 2/SM", A, B, C, ref, reps, base);
  hmma_candidate<Wgmma<64, 256, 64, 256, 4, 1, 1, 64, true>, T>("64x256x64 4st", A, B, C, ref, reps, base);
  hmma_candidate<Wgmma<64, 256, 64, 256, 5, 1, 1, 64, true>, T>("64x256x64 5st", A, B, C, ref, reps, base);
  hmma_candidate<Wgmma<64, 128, 64, 128, 4, 2, 1, 64, true>, T>("64x128x64 4st 2/SM", A, B, C, ref, reps,
                                                                base);
  hmma_candidate<Wgmma<64, 128, 64, 128, 3, 2, 1, 64, true>, T>("64x128x64 3st 2/SM", A, B, C, ref, reps,
                                                                base);
  hmma_candidate<Wgmma<64, 256, 64, 128, 4, 1, 1, 64, true>, T>("64x256x64 w64x128 4st", A, B, C, ref, reps,
                                                                base);
}
#endif

// ---- non-square GEMM: the table's entries side by side ---------------------------------------
// Each entry runs through launch_gemm, so split-K applies as it would in ridgeline::gemm.
template <class Cfg, class T>
void entry_candidate(const char* name, const Matrix<T>& A, const Matrix<T>& B, const Matrix<T>& C,
                     const Matrix<T>& ref, int reps, double base_s) {
  using Plain = rd::GemmKernelFor<Exec, Cfg, T, true, false, false>;
  std::printf("  (%s: %d K slices) ", name,
              rd::gemm_k_slices<Plain>(Exec(), A.extent(0), B.extent(1), A.extent(1)));
  gemm_candidate<Cfg, T>(name, A, B, C, ref, reps, base_s);
}

template <class T>
void sweep_rect(std::int64_t m, std::int64_t n, std::int64_t k, int reps) {
  Matrix<T> A("A", m, k), B("B", k, n), C("C", m, n), ref("ref", m, n);
  fill(A, 1), fill(B, 2);
  const double flops = 2.0 * m * double(n) * k;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", T(1), A, B, T(0), ref); });
  std::printf("gemm NN %lldx%lldx%lld %s: ridgeline::gemm %.3f ms %.1f GFLOP/s\n", (long long)m, (long long)n,
              (long long)k, sizeof(T) == 4 ? "fp32" : "fp64", base * 1e3, flops / base * 1e-9);
  entry_candidate<rd::GemmCfg<Exec, T>, T>("general entry", A, B, C, ref, reps, base);
  entry_candidate<rd::GemmPacketCfg<Exec, T>, T>("packet entry", A, B, C, ref, reps, base);
  entry_candidate<rd::GemmNarrowCfg<Exec, T>, T>("narrow entry", A, B, C, ref, reps, base);
  using P = rd::GemmPacketCfg<Exec, T>;
  if constexpr (SplitFragments<P>::value) {
    entry_candidate<GemmPrefetch<P, false>, T>("packet entry, no prefetch", A, B, C, ref, reps, base);
    entry_candidate<GemmPrefetch<P, true>, T>("packet entry, prefetch", A, B, C, ref, reps, base);
    using N = rd::GemmNarrowCfg<Exec, T>;
    entry_candidate<GemmPrefetch<N, false>, T>("narrow entry, no prefetch", A, B, C, ref, reps, base);
    entry_candidate<GemmPrefetch<N, true>, T>("narrow entry, prefetch", A, B, C, ref, reps, base);
  }
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
  // The packet and general entries again at the carveout their resident teams need (more L1), then
  // back at Kokkos's 100%.
  {
    using G = rd::GemmCfg<Exec, T>;
    using KP = rd::GemmPacketKernel<Exec, T, true, false, true>;
    using KG = rd::GemmKernel<Exec, T, true, false>;
    char name[64];
    const int pp = fitted_percent<KP, P>(), pg = fitted_percent<KG, G>();
    set_carveout<KP>(pp), set_carveout<KG>(pg);
    std::snprintf(name, sizeof name, "packet entry, carveout %d%%", pp);
    entry_candidate<P, T>(name, A, B, C, ref, reps, base);
    std::snprintf(name, sizeof name, "general entry, carveout %d%%", pg);
    entry_candidate<G, T>(name, A, B, C, ref, reps, base);
    set_carveout<KP>(100), set_carveout<KG>(100);
  }
#endif
  if constexpr (sizeof(T) == 4 && SplitFragments<P>::value) {
    // Few-row shapes on GPU tables (split fragments; the host micro-kernel needs whole-vector
    // micro-tiles): a deeper K step on narrow tiles.
    entry_candidate<GemmTeam<GemmShape<P, 64, 128, 16, 8, 8, 128, 8>, 128, 2>, T>("64x128x16, 8x8, 2/SM", A,
                                                                                  B, C, ref, reps, base);
    entry_candidate<GemmTeam<GemmShape<P, 64, 128, 16, 8, 8, 128, 8>, 128, 3>, T>("64x128x16, 8x8, 3/SM", A,
                                                                                  B, C, ref, reps, base);
    entry_candidate<GemmTeam<GemmShape<P, 64, 128, 8, 8, 8, 128, 8>, 128, 3>, T>("64x128x8, 8x8, 3/SM", A, B,
                                                                                 C, ref, reps, base);
  }
  if constexpr (sizeof(T) == 4 && SplitFragments<P>::value) {
    // 17 to 32 columns (past the multi-vector entries), where 64-column tiles leave half of each
    // empty: 32-column tiles, split K supplying the teams.
    if (n <= 32) {
      entry_candidate<GemmTeam<GemmShape<P, 128, 32, 16, 8, 4, 128, 16>, 128, 4>, T>(
          "128x32x16, 8x4, 4/SM", A, B, C, ref, reps, base);
      entry_candidate<GemmTeam<GemmShape<P, 128, 32, 16, 8, 4, 128, 16>, 128, 2>, T>(
          "128x32x16, 8x4, 2/SM", A, B, C, ref, reps, base);
      entry_candidate<GemmTeam<GemmShape<P, 128, 32, 8, 8, 4, 128, 16>, 128, 4>, T>("128x32x8, 8x4, 4/SM", A,
                                                                                    B, C, ref, reps, base);
      entry_candidate<GemmTeam<GemmShape<P, 256, 32, 16, 8, 4, 256, 32>, 256, 2>, T>(
          "256x32x16, 8x4, 2/SM", A, B, C, ref, reps, base);
      entry_candidate<GemmTeam<GemmShape<P, 64, 32, 16, 4, 4, 128, 16>, 128, 4>, T>("64x32x16, 4x4, 4/SM", A,
                                                                                    B, C, ref, reps, base);
    }
  }
}

// ---- GEMV candidates -------------------------------------------------------------------------
template <class T, int kTeam, int kRows, int kUnroll, int kMinBlocks = 1>
struct Gv {
  static constexpr int team_size = kTeam, vector_length = 1, rows = kRows, unroll = kUnroll;
  static constexpr int vec = int(16 / sizeof(T)), scratch_level = 0, min_blocks = kMinBlocks;
  static constexpr bool prefer_l1 = true;  // as the CUDA table's GEMV entries (no effect elsewhere)
};
template <class T, int kTeam, int kLanes, int kRowBlock, int kRows, int kUnroll, int kMinBlocks>
struct Gd {
  static constexpr int team_size = kTeam, vector_length = 1, lanes = kLanes, row_block = kRowBlock;
  static constexpr int rows = kRows, unroll = kUnroll, vec = int(16 / sizeof(T)), scratch_level = 0;
  static constexpr int min_blocks = kMinBlocks;
  static constexpr bool prefer_l1 = true;
};

template <class K, class Cfg, class T>
void gemv_candidate(const char* name, const std::vector<Matrix<T>>& As, const Vector<T>& x,
                    const Vector<T>& y, const Vector<T>& ref, bool trans, int reps, double base_s) {
  int set = 0;
  const auto xs = rd::strided_vec(x);
  const rd::Strided1D<const T> xc{xs.data, xs.n, xs.s};
  try {
    const double s = median_seconds(reps, [&] {
      const auto a = rd::strided_op(As[set++ % As.size()], trans ? rd::Trans::T : rd::Trans::N);
      rd::launch_gemv<K, Cfg>(Exec(), rd::Strided2D<const T>{a.data, a.rows, a.cols, a.rs, a.cs}, xc,
                              rd::strided_vec(y), T(1), T(0));
    });
    const double bytes = double(As[0].span()) * sizeof(T);
    // Both on the same matrix, for the check.
    ridgeline::gemv(Exec(), trans ? "T" : "N", T(1), As[0], x, T(0), ref);
    const auto a = rd::strided_op(As[0], trans ? rd::Trans::T : rd::Trans::N);
    rd::launch_gemv<K, Cfg>(Exec(), rd::Strided2D<const T>{a.data, a.rows, a.cols, a.rs, a.cs}, xc,
                            rd::strided_vec(y), T(1), T(0));
    Kokkos::fence();
    std::printf("  %-44s %9.4f ms %9.1f GB/s  x%.3f  err %.1e\n", name, s * 1e3, bytes / s * 1e-9, base_s / s,
                rel_diff(y, ref));
  } catch (const std::exception& e) {
    std::printf("  %-44s rejected: %s\n", name, e.what());
  }
}

// A dot-kernel candidate (GEMV T) on the rotating matrices, named by its configuration.
template <class Cfg, class T>
void dot_candidate(const std::vector<Matrix<T>>& As, const Vector<T>& x, const Vector<T>& y,
                   const Vector<T>& ref, int reps, double base) {
  char name[64];
  std::snprintf(name, sizeof name, "dot %d/%d lanes, rb %d, rows %d, u%d, %d/SM", Cfg::team_size, Cfg::lanes,
                Cfg::row_block, Cfg::rows, Cfg::unroll, Cfg::min_blocks);
  gemv_candidate<rd::GemvDot<Exec, Cfg, T, T, true, true>, Cfg>(name, As, x, y, ref, true, reps, base);
}

// Enough R x C matrices (seeded) to rotate through so that each call's A is out of the L2 the previous
// call left: 400 MB of them, at least two.
template <class T>
std::vector<Matrix<T>> rotating_matrices(std::int64_t r, std::int64_t c) {
  const int sets = std::max(2, int(400e6 / (double(r) * c * sizeof(T))) + 1);
  std::vector<Matrix<T>> As;
  for (int s = 0; s < sets; ++s) {
    As.emplace_back("A", r, c);
    fill(As.back(), 10 + s);
  }
  return As;
}

template <class T>
void sweep_gemv(int n, int reps) {
  const std::vector<Matrix<T>> As = rotating_matrices<T>(n, n);
  const int sets = static_cast<int>(As.size());
  Vector<T> x("x", n), y("y", n), ref("ref", n);
  fill(x, 3);
  for (bool trans : {false, true}) {
    int set = 0;
    const double base = median_seconds(
        reps, [&] { ridgeline::gemv(Exec(), trans ? "T" : "N", T(1), As[set++ % sets], x, T(0), ref); });
    const double bytes = double(n) * n * sizeof(T);
    std::printf("gemv %s %d^2 %s: table entry %.4f ms %.1f GB/s\n", trans ? "T" : "N", n,
                sizeof(T) == 4 ? "fp32" : "fp64", base * 1e3, bytes / base * 1e-9);
    if (!trans) {
      const auto rows = [&](auto cfg) {
        using Cfg = decltype(cfg);
        char name[64];
        std::snprintf(name, sizeof name, "rows %d, team %d, u%d, %d/SM", Cfg::rows, Cfg::team_size,
                      Cfg::unroll, Cfg::min_blocks);
        gemv_candidate<rd::GemvRows<Exec, Cfg, T, T, true, true>, Cfg>(name, As, x, y, ref, false, reps,
                                                                       base);
      };
      rows(Gv<T, 1024, 64, 8>{});
      rows(Gv<T, 1024, 128, 8>{});
      rows(Gv<T, 1024, 128, 4>{});
      rows(Gv<T, 512, 128, 8>{});
      rows(Gv<T, 512, 64, 8>{});
      rows(Gv<T, 1024, 64, 16>{});
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
      // The table's rows entries at Kokkos's 100% carveout, then back at the fitted one (their own).
      const auto rows_carveout = [&](auto cfg, const char* what) {
        using Cfg = decltype(cfg);
        using K = rd::GemvRows<Exec, Cfg, T, T, true, true>;
        for (int pct : {100, fitted_percent<K, Cfg>()}) {
          set_carveout<K>(pct);
          char name[64];
          std::snprintf(name, sizeof name, "%s, shared carveout %d%%", what, pct);
          gemv_candidate<K, Cfg>(name, As, x, y, ref, false, reps, base);
        }
      };
      rows_carveout(typename Be::template gemv_rows<T>{}, "rows table entry");
      rows_carveout(typename Be::template gemv_rows_tall<T>{}, "tall rows table entry");
#endif
    } else {
      const auto dot = [&](auto cfg) { dot_candidate<decltype(cfg)>(As, x, y, ref, reps, base); };
      dot(Gd<T, 512, 32, 4, 64, 2, 1>{});
      dot(Gd<T, 256, 32, 4, 32, 2, 2>{});
      dot(Gd<T, 256, 32, 8, 64, 2, 1>{});
      dot(Gd<T, 256, 32, 1, 8, 4, 2>{});
      dot(Gd<T, 512, 32, 4, 64, 4, 1>{});
      dot(Gd<T, 512, 32, 8, 128, 2, 1>{});
      dot(Gd<T, 1024, 32, 4, 128, 2, 1>{});
#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
      // The table entry at Kokkos's 100% carveout, then back at the fitted one (its own, prefer_l1).
      using Cfg = typename Be::template gemv_dot<T>;
      using K = rd::GemvDot<Exec, Cfg, T, T, true, true>;
      for (int pct : {100, fitted_percent<K, Cfg>()}) {
        set_carveout<K>(pct);
        char name[64];
        std::snprintf(name, sizeof name, "dot table entry, shared carveout %d%%", pct);
        gemv_candidate<K, Cfg>(name, As, x, y, ref, true, reps, base);
      }
#endif
    }
  }
}

// ---- GEMV T with short rows (A stored len x rows, so op(A) = A^T: rows x len, rows contiguous) ---
template <class T>
void sweep_gemv_dot_rect(std::int64_t len, std::int64_t rows, int reps) {
  const std::vector<Matrix<T>> As = rotating_matrices<T>(len, rows);
  const int sets = static_cast<int>(As.size());
  Vector<T> x("x", len), y("y", rows), ref("ref", rows);
  fill(x, 3);
  int set = 0;
  const double base =
      median_seconds(reps, [&] { ridgeline::gemv(Exec(), "T", T(1), As[set++ % sets], x, T(0), ref); });
  const double bytes = double(len) * rows * sizeof(T);
  std::printf("gemv T %lldx%lld %s: table entry %.4f ms %.1f GB/s\n", (long long)len, (long long)rows,
              sizeof(T) == 4 ? "fp32" : "fp64", base * 1e3, bytes / base * 1e-9);
  const auto dot = [&](auto cfg) { dot_candidate<decltype(cfg)>(As, x, y, ref, reps, base); };
  dot(Gd<T, 256, 32, 1, 8, 4, 2>{});  // the table's
  dot(Gd<T, 256, 32, 2, 16, 4, 2>{});
  dot(Gd<T, 256, 32, 4, 32, 2, 2>{});
  dot(Gd<T, 256, 32, 4, 32, 4, 2>{});
  dot(Gd<T, 256, 16, 1, 16, 4, 2>{});
  dot(Gd<T, 256, 16, 2, 32, 2, 2>{});
  dot(Gd<T, 256, 8, 1, 32, 4, 2>{});
  dot(Gd<T, 256, 8, 2, 64, 2, 2>{});
  dot(Gd<T, 512, 16, 2, 64, 2, 1>{});
}

// ---- plans: the tuner's candidates (ridgeline::tune_gemm, as `ridgeline tune --dry-run` runs them) ----
// Every entry of the table that runs the shape, at its own plan and at the --slices counts (else the
// backend's), through ridgeline::gemm with the choice forced, each checked against a double reference with C
// restored before every run. Operands that cannot stage in packets also run copied aligned first, as a lower
// pack_min_extent would have it (a plan the tuner cannot choose).
template <class T>
void sweep_plans(std::int64_t m, std::int64_t n, std::int64_t k, int reps, const std::vector<int>& slices) {
  ridgeline::TuneRequest rq;
  rq.m = m, rq.n = n, rq.k = k, rq.reps = reps, rq.slices = slices;
  const ridgeline::TuneOutcome o = ridgeline::tune_gemm<Exec, T>(Exec(), rq);
  std::fputs(ridgeline::format_tune_outcome(o).c_str(), stdout);
  Matrix<T> A("A", m, k), B("B", k, n), C("C", m, n), ref("ref", m, n);
  fill(A, 1), fill(B, 2);
  const auto a = rd::strided_op(A, rd::Trans::N), b = rd::strided_op(B, rd::Trans::N);
  const auto c = rd::strided_op(C, rd::Trans::N);
  const rd::Strided2D<const T> ac{a.data, a.rows, a.cols, a.rs, a.cs}, bc{b.data, b.rows, b.cols, b.rs, b.cs};
  const rd::GemmPlan chosen = rd::gemm_plan(Exec(), ac, bc);
  if (chosen.copies_aligned() || rd::operands_stage_in_packets(ac, bc)) return;
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", T(1), A, B, T(0), ref); });
  rd::GemmPlan copies = chosen;
  copies.copy_a_aligned = copies.copy_b_aligned = true;
  const double s = median_seconds(reps, [&] { rd::run_gemm_plan(Exec(), copies, ac, bc, c, T(1), T(0)); });
  std::printf("  copied aligned, then the table's plan on the copies %9.4f ms  x%.3f  err %.1e\n", s * 1e3,
              base / s, rel_diff(C, ref));
}

// ---- skinny N with op(A) rows-contiguous: the multi-vector rows entry and its candidates ---------
// NN M x N x K (LayoutLeft, alpha 1, beta 0): ridgeline::gemm (the table's plan), then multi-vector
// candidates, each with its own plan's K slices (multi_vector_split): teams of kTeam threads, kU columns
// of A a step, kMinBlocks teams per SM, up to kNV columns. Errors against ridgeline::gemm's.
template <class T, int kTeam, int kU, int kMinBlocks, int kNV>
struct Rc {
  static constexpr int team_size = kTeam, vec = int(16 / sizeof(T)), unroll = kU, max_vectors = kNV;
  static constexpr int b_rows = 64;
  static constexpr int bm = kTeam * vec, bn = kNV, bk = 256, tm = vec, tn = kNV;
  static constexpr int vector_length = 1, stages = kU, min_blocks = kMinBlocks, scratch_level = 0;
  static constexpr int max_slices = 256;
};
template <class T>
void sweep_rows(std::int64_t m, std::int64_t n, std::int64_t k, int reps) {
  Matrix<T> A("A", m, k), B("B", k, n), C("C", m, n), ref("ref", m, n);
  fill(A, 1), fill(B, 2);
  const auto a = rd::as_const(rd::strided_op(A, rd::Trans::N)),
             b = rd::as_const(rd::strided_op(B, rd::Trans::N));
  const auto c = rd::strided_op(C, rd::Trans::N);
  const rd::GemmPlan chosen = rd::gemm_plan(Exec(), a, b);
  const double flops = 2.0 * m * double(n) * k, bytes = double(m) * k * sizeof(T);
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), "N", "N", T(1), A, B, T(0), ref); });
  std::printf(
      "gemm NN %lldx%lldx%lld %s: ridgeline::gemm (%s, %d slices) %.4f ms %.1f GFLOP/s %.1f GB/s of A\n",
      (long long)m, (long long)n, (long long)k, sizeof(T) == 8 ? "fp64" : "fp32", rd::role_name(chosen.role),
      chosen.split.slices, base * 1e3, flops / base * 1e-9, bytes / base * 1e-9);
  const std::int64_t cu = rd::ComputeUnits<Be, Exec>::of(Exec());
  const auto candidate = [&](auto cfg, const char* name) {
    using Cfg = decltype(cfg);
    if (n > Cfg::max_vectors) return;
    const rd::KSplit split = rd::multi_vector_split(rd::tile_params<Cfg>(), m, n, k, cu, sizeof(T));
    const double t =
        median_seconds(reps, [&] { rd::launch_multi_vector<Cfg>(Exec(), split, a, b, c, T(1), T(0)); });
    std::printf("  %-40s %3d slices %9.4f ms %9.1f GFLOP/s %7.1f GB/s  x%.3f  err %.1e\n", name, split.slices,
                t * 1e3, flops / t * 1e-9, bytes / t * 1e-9, base / t, rel_diff(C, ref));
  };
  candidate(Rc<T, 128, 4, 3, 16>{}, "128t U4 3/SM (the entry)");
  candidate(Rc<T, 128, 2, 3, 16>{}, "128t U2 3/SM");
  candidate(Rc<T, 128, 8, 3, 16>{}, "128t U8 3/SM");
  candidate(Rc<T, 128, 4, 4, 16>{}, "128t U4 4/SM");
  candidate(Rc<T, 128, 2, 4, 16>{}, "128t U2 4/SM");
  candidate(Rc<T, 256, 4, 2, 16>{}, "256t U4 2/SM");
}

// ---- skinny N with op(A) k-contiguous, skinny M: the multi-vector dot entry and its candidates -----
// TA TB M x N x K (LayoutLeft operands, alpha 1, beta 0) four ways: ridgeline::gemm (the table's plan);
// each GEMM tile entry of the table on the product as it is (not transposed: what ran before the dot
// entry); dot candidates with the plan's split, on the product the plan runs (transposed for skinny M);
// and the table's dot entry at other K slice counts. Errors against ridgeline::gemm's result.
template <class T, int kTeam, int kLanes, int kR, int kU, int kPasses, int kMinBlocks>
struct Dc {
  static constexpr int team_size = kTeam, lanes = kLanes, row_block = kR, vec = int(16 / sizeof(T)),
                       unroll = kU;
  static constexpr int max_vectors = sizeof(T) == 8 ? 8 : 16, b_rows = kPasses * kLanes * vec * kU;
  static constexpr int min_blocks = kMinBlocks;
  static constexpr int bm = kTeam / kLanes * kR, bn = max_vectors, bk = 1024, stages = b_rows,
                       max_slices = 256;
};
template <class T>
void sweep_dot(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, int reps,
               const std::vector<int>& slices) {
  using L = rd::GemmEntriesOf<Exec, T>;
  const bool at = ta == 'T', bt = tb == 'T';
  Matrix<T> A("A", at ? k : m, at ? m : k), B("B", bt ? n : k, bt ? k : n), C("C", m, n), ref("ref", m, n);
  fill(A, 1), fill(B, 2);
  const char tra[2] = {ta, 0}, trb[2] = {tb, 0};
  const auto a = rd::as_const(rd::strided_op(A, at ? rd::Trans::T : rd::Trans::N));
  const auto b = rd::as_const(rd::strided_op(B, bt ? rd::Trans::T : rd::Trans::N));
  const auto c = rd::strided_op(C, rd::Trans::N);
  const rd::GemmPlan chosen = rd::gemm_plan(Exec(), a, b);
  const double flops = 2.0 * m * double(n) * k, bytes = double(m) * k * sizeof(T);
  const double base = median_seconds(reps, [&] { ridgeline::gemm(Exec(), tra, trb, T(1), A, B, T(0), ref); });
  std::printf(
      "gemm %c%c %lldx%lldx%lld %s: ridgeline::gemm (%s%s, %d slices) %.4f ms %.1f GFLOP/s %.1f GB/s of A\n",
      ta, tb, (long long)m, (long long)n, (long long)k, sizeof(T) == 8 ? "fp64" : "fp32",
      rd::role_name(chosen.role), chosen.transposed ? ", transposed" : "", chosen.split.slices, base * 1e3,
      flops / base * 1e-9, bytes / base * 1e-9);
  const auto show = [&](const char* what, double t) {
    std::printf("  %-44s %9.4f ms %9.1f GFLOP/s %7.1f GB/s  x%.3f  err %.1e\n", what, t * 1e3,
                flops / t * 1e-9, bytes / t * 1e-9, base / t, rel_diff(C, ref));
  };
  // The tile entries, on the product as it is.
  const bool a_m = rd::rows_contiguous(a), b_n = !rd::rows_contiguous(b);
  for (int i = 0; i < L::size; ++i) {
    const rd::GemmEntryParams p = L::params(i);
    if (p.bm == 0 || p.role == rd::GemmRole::tf32 || p.role == rd::GemmRole::multi_vector ||
        p.role == rd::GemmRole::multi_vector_dot || (p.role == rd::GemmRole::narrow && m > p.bm))
      continue;
    bool ok = true;
    L::visit(i, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::When::needs_packets && E::When::role != rd::GemmRole::tf32)
        ok = rd::entry_vector_capable<Exec, T, E>(a_m, b_n);
    });
    if (!ok) continue;
    rd::GemmPlan plan = chosen;
    plan.transposed = false;
    plan = rd::gemm_plan_with_entry<Exec, T>(Exec(), plan, i, m, n, k);
    const double t = median_seconds(reps, [&] { rd::run_gemm_plan(Exec(), plan, a, b, c, T(1), T(0)); });
    char what[96];
    std::snprintf(what, sizeof what, "%s entry, %d slices%s", rd::role_name(p.role), plan.split.slices,
                  plan.peel.m0 > 0 ? ", peeled" : "");
    show(what, t);
  }
  if (chosen.role != rd::GemmRole::multi_vector_dot) return;
  // The dot product the plan runs.
  const auto pa = chosen.transposed ? rd::transpose_of(b) : a,
             pb = chosen.transposed ? rd::transpose_of(a) : b;
  const auto pc = chosen.transposed ? rd::transpose_of(c) : c;
  const std::int64_t cu = rd::ComputeUnits<Be, Exec>::of(Exec());
  const auto candidate = [&](auto cfg, const char* name) {
    using Cfg = decltype(cfg);
    if (pb.cols > Cfg::max_vectors) return;
    const rd::KSplit split =
        rd::multi_vector_split(rd::tile_params<Cfg>(), pa.rows, pb.cols, k, cu, sizeof(T));
    char what[96];
    std::snprintf(what, sizeof what, "%s, %d slices", name, split.slices);
    try {
      const double t = median_seconds(
          reps, [&] { rd::launch_multi_vector_dot<Cfg>(Exec(), split, pa, pb, pc, T(1), T(0)); });
      show(what, t);
    } catch (const std::invalid_argument& e) {  // a staged pass past the backend's scratch
      std::printf("  %-44s skipped: %s\n", what, e.what());
    }
  };
  candidate(Dc<T, 256, 16, 4, 2, 4, 2>{}, "256t 16l R4 U2 4 passes/KC 2 teams");
  candidate(Dc<T, 256, 16, 4, 1, 8, 2>{}, "256t 16l R4 U1");
  candidate(Dc<T, 256, 16, 8, 1, 8, 2>{}, "256t 16l R8 U1");
  candidate(Dc<T, 256, 16, 4, 2, 2, 2>{}, "256t 16l R4 U2 KC/2");
  candidate(Dc<T, 256, 16, 4, 2, 8, 2>{}, "256t 16l R4 U2 KCx2");
  candidate(Dc<T, 512, 16, 4, 2, 4, 1>{}, "512t 16l R4 U2 1 team");
  candidate(Dc<T, 256, 8, 4, 2, 8, 2>{}, "256t 8l R4 U2");
  candidate(Dc<T, 256, 32, 4, 1, 4, 2>{}, "256t 32l R4 U1 (first guess at 16 columns)");
  const int pass = L::params(chosen.entry).stages;
  for (int want : slices) {
    rd::GemmPlan plan = chosen;
    plan.split = rd::split_k(k, pass, want);
    if (plan.split.slices == chosen.split.slices) continue;
    const double t = median_seconds(reps, [&] { rd::run_gemm_plan(Exec(), plan, a, b, c, T(1), T(0)); });
    char what[96];
    std::snprintf(what, sizeof what, "table's dot entry, %d slices", plan.split.slices);
    show(what, t);
  }
}

// ---- complex products: the complex entries against the same product as a real one ---------------
// Z = Kokkos::complex<R>: M x N x K with the letters ta, tb, C column-major, alpha = 1, beta = 0. Three
// ways: the table's complex entries (run_gemm_plan), the product as real (gemm_complex_as_real.hpp) under
// the table's byte limit, and in one chunk whatever the limit; and ridgeline::gemm, whichever the table's
// extents choose. Errors are against the complex entries' result.
template <class Z>
double rel_diff_complex(const Matrix<Z>& a, const Matrix<Z>& b) {
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ha.span(); ++i) {
    const auto d = ha.data()[i] - hb.data()[i];
    num += double(d.real()) * d.real() + double(d.imag()) * d.imag();
    den +=
        double(hb.data()[i].real()) * hb.data()[i].real() + double(hb.data()[i].imag()) * hb.data()[i].imag();
  }
  return std::sqrt(num / (den > 0 ? den : 1));
}
template <class Z>
void sweep_complex(std::int64_t m, std::int64_t n, std::int64_t k, char ta, char tb, int reps) {
  using R = typename Z::value_type;
  const bool at = ta != 'N', bt = tb != 'N';
  Matrix<Z> A("A", at ? k : m, at ? m : k), B("B", bt ? n : k, bt ? k : n), C("C", m, n), ref("ref", m, n);
  {
    Matrix<R> ra(reinterpret_cast<R*>(A.data()), 2 * A.extent(0), A.extent(1));
    Matrix<R> rb(reinterpret_cast<R*>(B.data()), 2 * B.extent(0), B.extent(1));
    fill(ra, 1), fill(rb, 2);
  }
  const char tra[2] = {ta, 0}, trb[2] = {tb, 0};
  const auto a = rd::as_const(rd::strided_op(A, rd::parse_trans(tra, "", "")));
  const auto b = rd::as_const(rd::strided_op(B, rd::parse_trans(trb, "", "")));
  const auto c = rd::strided_op(C, rd::Trans::N), r = rd::strided_op(ref, rd::Trans::N);
  const double flops = 8.0 * m * double(n) * k;
  const rd::GemmPlan entries = rd::gemm_plan(Exec(), a, b);
  const double t_entries =
      median_seconds(reps, [&] { rd::run_gemm_plan(Exec(), entries, a, b, r, Z(1), Z(0)); });
  std::printf("%sgemm %c%c %lldx%lldx%lld: complex entries %9.3f ms %9.1f GFLOP/s\n",
              sizeof(R) == 8 ? "z" : "c", ta, tb, (long long)m, (long long)n, (long long)k, t_entries * 1e3,
              flops / t_entries * 1e-9);
  const auto show = [&](const char* what, double t) {
    std::printf("  %-34s %9.3f ms %9.1f GFLOP/s  x%.3f  err %.1e\n", what, t * 1e3, flops / t * 1e-9,
                t_entries / t, rel_diff_complex(C, ref));
  };
  const rd::ComplexAsRealTerms table = rd::ComplexAsRealOf<rd::Backend<Exec, Z>, Z>::value;
  for (const std::size_t max_bytes : {table.max_bytes, std::numeric_limits<std::size_t>::max()}) {
    const rd::ComplexAsRealPlan p =
        rd::plan_complex_as_real(a, b, c.rs, c.cs, rd::ComplexAsRealTerms{1, max_bytes});
    if (!p.applies || (max_bytes == table.max_bytes && table.max_bytes == 0)) continue;
    const double t = median_seconds(reps, [&] { rd::run_complex_as_real(Exec(), p, a, b, c, Z(1), Z(0)); });
    char what[96];
    std::snprintf(what, sizeof what, "as real, K chunks of %lld%s", (long long)p.k_chunk,
                  p.copy_b ? ", op(B) copied" : "");
    show(what, t);
  }
  const double t_gemm = median_seconds(reps, [&] { ridgeline::gemm(Exec(), tra, trb, Z(1), A, B, Z(0), C); });
  show(ridgeline::gemm_tile_config(Exec(), tra, trb, A, B, C).complex_as_real.empty()
           ? "ridgeline::gemm (complex entries)"
           : "ridgeline::gemm (as real)",
       t_gemm);
  // The complex entries once more, last: a drift of the clocks over the runs (the H200 runs these at its
  // power cap) shows as a difference from the first time.
  const double again = median_seconds(reps, [&] { rd::run_gemm_plan(Exec(), entries, a, b, c, Z(1), Z(0)); });
  show("complex entries, again", again);
}

// ---- GEMV N split along its columns against the rows entry -----------------------------------
// An R x C rows-contiguous GEMV three ways: ridgeline::gemv (the table's choice), the rows entry
// launched directly, and the one-column multi-vector product split along the columns.
template <class T>
void sweep_gemv_split(std::int64_t r, std::int64_t c, int reps, const std::vector<int>& split_teams) {
  const std::vector<Matrix<T>> As = rotating_matrices<T>(r, c);
  const int sets = static_cast<int>(As.size());
  Vector<T> x("x", c), y("y", r), ref("ref", r);
  fill(x, 3);
  const double bytes = double(r) * c * sizeof(T);
  int set = 0;
  const double base =
      median_seconds(reps, [&] { ridgeline::gemv(Exec(), "N", T(1), As[set++ % sets], x, T(0), ref); });
  std::printf("gemv N %lldx%lld %s: ridgeline::gemv (%s) %.4f ms %.1f GB/s\n", (long long)r, (long long)c,
              sizeof(T) == 4 ? "fp32" : "fp64",
              rd::gemv_splits_columns<Exec, T, T>(Exec(), r) ? "split columns" : "rows entry", base * 1e3,
              bytes / base * 1e-9);
  const auto op = [&](const Matrix<T>& A) {
    const auto a = rd::strided_op(A, rd::Trans::N);
    return rd::Strided2D<const T>{a.data, a.rows, a.cols, a.rs, a.cs};
  };
  const rd::Strided1D<const T> xs{x.data(), c, 1};
  const rd::Strided1D<T> ys{y.data(), r, 1};
  const auto show = [&](const char* what, double s) {
    std::printf("  %-28s %9.4f ms %9.1f GB/s  x%.3f  err %.1e\n", what, s * 1e3, bytes / s * 1e-9, base / s,
                rel_diff(y, ref));
  };
  using Cfg = typename Be::template gemv_rows<T>;
  set = 0;
  show("rows entry", median_seconds(reps, [&] {
         rd::launch_gemv<rd::GemvRows<Exec, Cfg, T, T, true, true>, Cfg>(Exec(), op(As[set++ % sets]), xs, ys,
                                                                         T(1), T(0));
       }));
  if constexpr (!std::is_void_v<rd::MultiVectorCfg<Exec, T>>) {
    using MV = rd::MultiVectorCfg<Exec, T>;
    const rd::KSplit split =
        rd::gemv_column_split<MV>(r, c, rd::ComputeUnits<Be, Exec>::of(Exec()), sizeof(T));
    char name[64];
    std::snprintf(name, sizeof name, "split columns, %d slices", split.slices);
    set = 0;
    show(name, median_seconds(
                   reps, [&] { rd::gemv_split_columns(Exec(), op(As[set++ % sets]), xs, ys, T(1), T(0)); }));
    // The same split asked for other numbers of teams per SM (the entry's min_blocks is the table's).
    const std::int64_t cu = rd::ComputeUnits<Be, Exec>::of(Exec());
    for (int teams : split_teams) {
      rd::GemmEntryParams p = rd::tile_params<MV>();
      p.min_blocks = teams;
      const rd::KSplit other = rd::multi_vector_split(p, r, 1, c, cu, sizeof(T));
      std::snprintf(name, sizeof name, "split columns, %d/SM, %d slices", teams, other.slices);
      set = 0;
      show(name, median_seconds(reps, [&] {
             rd::launch_gemv_split<MV>(Exec(), other, op(As[set++ % sets]), xs, ys, T(1), T(0));
           }));
    }
  }
}

// Calls f(r, c) for each "RxC" in shapes; anything else is skipped.
template <class F>
void for_each_rect(const std::vector<std::string>& shapes, F&& f) {
  for (const auto& s : shapes) {
    long long r = 0, c = 0;
    if (std::sscanf(s.c_str(), "%lldx%lld", &r, &c) == 2) f(r, c);
  }
}

// Calls f(m, n, k) for each "MxNxK" in shapes; anything else is skipped.
template <class F>
void for_each_shape(const std::vector<std::string>& shapes, F&& f) {
  for (const auto& r : shapes) {
    long long m = 0, n = 0, k = 0;
    if (std::sscanf(r.c_str(), "%lldx%lldx%lld", &m, &n, &k) == 3) f(m, n, k);
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Times candidate tile configurations against the tile table"};
  int reps = 10;
  std::vector<int> gemm_n{4096}, gemv_n{8192, 16384};
  std::vector<std::string> rect{"16384x16384x64", "64x16384x16384"};
  app.add_option("--reps", reps, "timed runs per candidate (median)");
  app.add_option("--gemm", gemm_n, "square GEMM sizes (0: none)");
  app.add_option("--gemv", gemv_n, "square GEMV sizes (0: none)");
  app.add_option("--rect", rect, "MxNxK GEMM shapes (fp32) to run every table entry on (none: no shapes)");
  std::vector<std::string> rect64;
  app.add_option("--rect64", rect64, "MxNxK GEMM shapes (fp64) to run every table entry on");
  std::vector<int> hmma_n, dmma_n;
  app.add_option("--dmma", dmma_n, "square fp64 GEMM sizes for the DMMA sweep alone (no fp32 candidates)");
  std::vector<std::string> dmma_rect;
  app.add_option("--dmma-rect", dmma_rect,
                 "MxNxK fp64 GEMM shapes (NN): few-column, small and short-K DMMA candidates");
  app.add_option("--hmma", hmma_n, "square FP16 and BF16 (FP32 out) GEMM sizes for the tensor-core sweep");
  std::vector<int> wgmma_n;
  app.add_option("--wgmma", wgmma_n, "square FP16 and BF16 (FP32 out) GEMM sizes for the wgmma sweep");
  std::vector<std::string> plans32, plans64;
  app.add_option("--plans32", plans32,
                 "MxNxK GEMM shapes (fp32, NN) to run the tuner's candidates on (ridgeline::tune_gemm)");
  app.add_option("--plans64", plans64,
                 "MxNxK GEMM shapes (fp64, NN) to run the tuner's candidates on (ridgeline::tune_gemm)");
  std::vector<int> slices;
  app.add_option(
      "--slices", slices,
      "K slice counts to run each entry's unpeeled plan with as well (--plans32/64: instead of the "
      "backend's tune_space; --dot)");
  std::vector<std::string> gemv_dot;
  app.add_option("--gemv-dot", gemv_dot,
                 "LENxROWS GEMV T shapes (fp32 and fp64; A stored LEN x ROWS): dot candidates on short rows");
  std::vector<int> split_teams;
  app.add_option("--gemv-split-teams", split_teams, "with --gemv-split: teams per SM to split for as well");
  std::vector<std::string> gemv_split;
  app.add_option("--gemv-split", gemv_split,
                 "RxC GEMV N shapes (fp32 and fp64): the rows entry against the split along the columns");
  std::vector<std::string> rows_shapes;
  app.add_option("--rows", rows_shapes,
                 "MxNxK NN GEMM shapes (fp32 and fp64; e.g. 16384x16x16384): the multi-vector rows entry's "
                 "candidates against ridgeline::gemm");
  std::vector<std::string> dot_shapes;
  app.add_option(
      "--dot", dot_shapes,
      "TATB:MxNxK GEMM shapes (fp32 and fp64; e.g. TN:16384x16x16384): the multi-vector dot entry, "
      "its candidates and --slices, against the tile entries");
  std::vector<std::string> complex_shapes;
  app.add_option(
      "--complex", complex_shapes,
      "TATB:MxNxK complex GEMM shapes (e.g. NN:4096x4096x4096; cf32 and cf64): the complex entries "
      "against the product as real");
  CLI11_PARSE(app, argc, argv);
  Kokkos::ScopeGuard guard(argc, argv);
  std::printf("tile sweep on %s (%s), ridgeline %s\n", Exec::name(), ridgeline::kokkos_description().c_str(),
              ridgeline::version().c_str());
  for (int n : gemm_n) {
    if (n <= 0) continue;  // --gemm 0: no square GEMM sweep
    sweep_gemm<float, rd::GemmCfg<Exec, float>>(n, reps);
#if defined(KOKKOS_ENABLE_CUDA)
    sweep_gemm_dmma(n, reps);
#else
    sweep_gemm<double, rd::GemmCfg<Exec, double>>(n, reps);
#endif
  }
#if defined(KOKKOS_ENABLE_CUDA)
  for (int n : dmma_n) sweep_gemm_dmma(n, reps);
  for_each_shape(dmma_rect,
                 [&](long long m, long long n, long long k) { sweep_gemm_dmma_rect(m, n, k, reps); });
  for (int n : hmma_n) {
    sweep_gemm_hmma<ridgeline::half_t>(n, reps, "fp16");
    sweep_gemm_hmma<ridgeline::bhalf_t>(n, reps, "bf16");
  }
#endif
#if defined(KOKKOS_ENABLE_CUDA) && RIDGELINE_HAVE_SM90A
  for (int n : wgmma_n) {
    sweep_gemm_wgmma<ridgeline::half_t>(n, reps, "fp16");
    sweep_gemm_wgmma<ridgeline::bhalf_t>(n, reps, "bf16");
    sweep_gemm_wgmma_narrow<ridgeline::half_t>(2 * n, reps, "fp16");
    sweep_gemm_wgmma_narrow<ridgeline::bhalf_t>(2 * n, reps, "bf16");
  }
#else
  if (!wgmma_n.empty()) std::printf("--wgmma: this build has no wgmma (no sm_90a route)\n");
#endif
  for_each_shape(rect, [&](long long m, long long n, long long k) { sweep_rect<float>(m, n, k, reps); });
  for_each_shape(rect64, [&](long long m, long long n, long long k) { sweep_rect<double>(m, n, k, reps); });
  for_each_rect(gemv_dot, [&](long long len, long long rows) {
    sweep_gemv_dot_rect<float>(len, rows, reps);
    sweep_gemv_dot_rect<double>(len, rows, reps);
  });
  for_each_rect(gemv_split, [&](long long r, long long c) {
    sweep_gemv_split<float>(r, c, reps, split_teams);
    sweep_gemv_split<double>(r, c, reps, split_teams);
  });
  for_each_shape(plans32,
                 [&](long long m, long long n, long long k) { sweep_plans<float>(m, n, k, reps, slices); });
  for_each_shape(plans64,
                 [&](long long m, long long n, long long k) { sweep_plans<double>(m, n, k, reps, slices); });
  for_each_shape(rows_shapes, [&](long long m, long long n, long long k) {
    sweep_rows<float>(m, n, k, reps);
    sweep_rows<double>(m, n, k, reps);
  });
  for (const std::string& spec : dot_shapes) {
    long long m = 0, n = 0, k = 0;
    char ta = 0, tb = 0;
    if (std::sscanf(spec.c_str(), "%c%c:%lldx%lldx%lld", &ta, &tb, &m, &n, &k) != 5) {
      std::fprintf(stderr, "--dot %s: want TATB:MxNxK\n", spec.c_str());
      return 2;
    }
    sweep_dot<float>(ta, tb, m, n, k, reps, slices);
    sweep_dot<double>(ta, tb, m, n, k, reps, slices);
  }
  for (const std::string& spec : complex_shapes) {
    long long m = 0, n = 0, k = 0;
    char ta = 0, tb = 0;
    if (std::sscanf(spec.c_str(), "%c%c:%lldx%lldx%lld", &ta, &tb, &m, &n, &k) != 5) {
      std::fprintf(stderr, "--complex %s: want TATB:MxNxK\n", spec.c_str());
      return 2;
    }
    sweep_complex<Kokkos::complex<float>>(m, n, k, ta, tb, reps);
    sweep_complex<Kokkos::complex<double>>(m, n, k, ta, tb, reps);
  }
  for (int n : gemv_n) {
    if (n <= 0) continue;  // --gemv 0: no GEMV sweep
    sweep_gemv<float>(n, reps);
    sweep_gemv<double>(n, reps);
  }
  return 0;
}
