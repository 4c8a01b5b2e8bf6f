#pragma once
// The thread micro-tile level: the micro-kernel contract and the portable micro-kernel.
//
// Contract. A micro-kernel MK for a tile configuration Cfg, storage type T and accumulator Acc
// owns a piece of the team's BM x BN tile of C: one thread's TM x TN register block (the portable
// SIMT micro-kernel), or a warp's tile whose elements sit in each lane where a matrix instruction
// puts them (tensor cores, MFMA). Either way a thread holds a kTM x kTN grid of accumulators whose
// rows and columns the micro-kernel, not the team kernel, knows:
//   MK::Owner, MK::owner(t)          what team rank t owns (its warp's place and its lane, say);
//   MK::kTM, MK::kTN                 the grid of accumulator elements each thread holds;
//   MK::row(o, i), MK::col(o, j)     the tile row of grid row i and the tile column of grid column j,
//                                    i < kTM, j < kTN: the epilogue stores element (i, j) there;
//   MK::kRowRun                      grid rows come in runs of kRowRun consecutive tile rows
//                                    (row(o, i + 1) == row(o, i) + 1 inside a run, runs aligned to
//                                    kRowRun), so the epilogue can store a run as one vector;
//   MK::Accumulator, MK::zero(acc)   the registers, and acc = 0;
//   MK::mac(acc, As, Bs, o)          acc(i, j) += sum_{k < BK} As[k][row(o, i)] * Bs[k][col(o, j)];
//   MK::get(acc, i, j)               grid element (i, j), for the epilogue;
//   MK::store_scratch(p, v)          how the team kernel writes one staged element to scratch, so a
//                                    backend can address its scratch memory directly;
//   MK::store_scratch_packet<W>(p, v)
//                                    the same for W contiguous elements v[0..W), p aligned to
//                                    W * sizeof(T) (one vector store where the backend has one).
// Warp-level micro-kernels need every thread of a warp in mac (the instruction is collective), and
// the team kernel calls mac from every thread, so they may. They read the same scratch layout as
// the portable one; a kernel whose instruction wants another layout declares it (staged_layout).
// Optional, for tile configurations with prefetch_fragments (the team kernel then runs the K step one
// k at a time, loading k + 1 while k is computed, across the barrier between K steps):
//   MK::Fragment                     the A and B values of one k that a thread's micro-tile uses;
//   MK::load_fragment(f, As, Bs, k, o), MK::mac_fragment(acc, f)
//                                    mac split at k: mac == load and mac_fragment for each k < BK;
// and, for tables whose teams own several micro-tiles per thread (the host: a team is one thread),
//   MK::owner_of_tile(ty, tx)        the owner of micro-tile (ty, tx) of the tile grid;
//   MK::load(acc, Cs, o), MK::store(acc, Cs, o)
//                                    copy to and from a BM x BN scratch accumulator Cs (row-major,
//                                    leading dimension BN);
//   MK::mac_upto(acc, As, Bs, o, kk) mac over k < kk only (0 < kk <= BK): a K step past the end of K,
//                                    whose zeros mac would multiply too (optional: mac runs without it);
//   MK::kTransposeBlock, MK::copy_transposed<kF, kS, kDs>(d, s, ls)
//                                    (optional) the staging copy that transposes, for one thread: kS
//                                    lines of kF contiguous elements, line l at s + l * ls, element f of
//                                    line l to d + f * kDs + l; used where kTransposeBlock (> 0) divides
//                                    kF and kS.
// and, for main loops whose staging cannot transpose (asynchronous copies keep each operand's
// contiguous index contiguous in scratch, gemm_team_async.hpp),
//   MK::mac_in<SA, SB>(acc, As, Bs, o)
//                                    mac on tiles laid out as SA and SB: ScratchLayouts (below), or
//                                    the micro-kernel's own staged layouts where it declares them:
//   MK::staged_layout<rows, BK, rows_fast>
//                                    the layout an instruction that reads scratch itself wants (wgmma's
//                                    swizzled tiles), or that a micro-kernel's reads want (the DMMA pairs
//                                    entry's XOR-swizzled lines): offset(f, s) of the element at fast index f
//                                    (16-byte packets stay contiguous) and slow index s, elements,
//                                    alignment; the team kernel stages there instead of padded lines;
//   MK::kInFlight, MK::drain(acc)    K steps whose products mac_in leaves running (asynchronous
//                                    instructions); the team kernel refills a buffer only that many
//                                    steps later, and drains before the epilogue.
// backends/cuda/wgmma_micro_kernel_sm90a.hpp is the example of all three. And, for the K loop that
// keeps the next fragments in flight across the K steps' barriers (fragments_across_steps,
// gemm_team_async.hpp),
//   MK::kSlices, MK::Fragments       the instruction-k slices of a K step, and one slice's A and B values;
//   MK::SliceBase, MK::slice_base<SA, SB>(As, Bs, o)
//                                    the lane's first addresses in the first stage buffers, taken once;
//   MK::load_slice<SA, SB>(f, base, stage_a, stage_b, s), MK::mma_slice(acc, f)
//                                    mac_in split at slice s, with the stage as a byte offset: mac_in ==
//                                    load_slice and mma_slice for each s < kSlices, so a loop that holds
//                                    two Fragments loads slice s + 1 while slice s multiplies
// (backends/cuda/dmma_sm90.hpp with m16n8k8, and hmma_sm80.hpp).
// As is a (BK, BM + pad_a) and Bs a (BK, BN + pad_b) scratch tile, both k-major. The K tail is
// zero in scratch, so a micro-kernel never masks. A micro-kernel never touches C: the epilogue alone
// reads C, and only when beta != 0.
#include <Kokkos_Core.hpp>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/complex.hpp"

namespace ridgeline::detail {

// The rows of micro-tile ty are TM/FM pieces of FM contiguous rows, spread BM/(TM/FM) apart, so a
// warp's fragment loads are contiguous and conflict-free; with FM == TM the rows are contiguous.
template <class Cfg>
struct MicroTileMap {
  static constexpr int kPiecesM = Cfg::tm / Cfg::fm;
  static constexpr int kPiecesN = Cfg::tn / Cfg::fn;
  static constexpr int kPieceStrideM = Cfg::bm / kPiecesM;
  static constexpr int kPieceStrideN = Cfg::bn / kPiecesN;
  static_assert(Cfg::tm % Cfg::fm == 0 && Cfg::tn % Cfg::fn == 0,
                "fragment width must divide the micro-tile");
  static_assert(Cfg::bm % (Cfg::tm) == 0 && Cfg::bn % (Cfg::tn) == 0, "micro-tile must divide the team tile");

  KOKKOS_FORCEINLINE_FUNCTION static constexpr int row(int ty, int i) {
    return (i / Cfg::fm) * kPieceStrideM + ty * Cfg::fm + i % Cfg::fm;
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int col(int tx, int j) {
    return (j / Cfg::fn) * kPieceStrideN + tx * Cfg::fn + j % Cfg::fn;
  }
};

// Which micro-tile each thread of a team owns. Threads form groups of `group_lanes` consecutive
// ranks (a warp, on GPUs), each laid out lanes_m x (group_lanes / lanes_m) over the micro-tile grid,
// so a tile table can trade the distinct A and B fragments a warp loads per k step. A table that
// names neither gets one group spanning the team, lanes_m = BM / TM (ranks walk m first).
template <class Cfg, class = void>
struct LaneLayout {
  static constexpr int group_lanes = Cfg::team_size;
  static constexpr int lanes_m = Cfg::bm / Cfg::tm;
};
template <class Cfg>
struct LaneLayout<Cfg, std::void_t<decltype(Cfg::lanes_m), decltype(Cfg::group_lanes)>> {
  static constexpr int group_lanes = Cfg::group_lanes;
  static constexpr int lanes_m = Cfg::lanes_m;
};

// Whether an entry's micro-kernel runs on the matrix units (its `matrix_unit`), for the roofline.
template <class Cfg, class = void>
struct EntryMatrixUnit : std::false_type {};
template <class Cfg>
struct EntryMatrixUnit<Cfg, std::void_t<decltype(Cfg::matrix_unit)>> : std::bool_constant<Cfg::matrix_unit> {
};

// Where element (i, k) of a scratch tile lives: i * i_stride + k * k_stride, with i the row (A) or
// column (B) of the team tile. The k-major tiles above are ScratchLayout<1, LD>.
template <int kIStride, int kKStride>
struct ScratchLayout {
  static constexpr int i_stride = kIStride, k_stride = kKStride;
};

// A tile-table entry may name its own micro-kernel (a tensor-core one, say) as a member template
// `micro_kernel<T, Acc>`; every other entry runs its backend's default, Default.
template <class Cfg, class T, class Acc, class Default, class = void>
struct EntryMicroKernel {
  using type = Default;
};
template <class Cfg, class T, class Acc, class Default>
struct EntryMicroKernel<Cfg, T, Acc, Default, std::void_t<typename Cfg::template micro_kernel<T, Acc>>> {
  using type = typename Cfg::template micro_kernel<T, Acc>;
};

// An entry's producer_threads (default 0): team ranks that only stage operand tiles (a producer-warp
// team kernel), before the ranks that multiply. A warp-level micro-kernel's owner() counts only the
// latter (the team kernel passes rank - producer_threads), and its warps fill team_size minus these.
template <class Cfg, class = void>
struct ProducerThreadsOf : std::integral_constant<int, 0> {};
template <class Cfg>
struct ProducerThreadsOf<Cfg, std::void_t<decltype(Cfg::producer_threads)>>
    : std::integral_constant<int, Cfg::producer_threads> {};

// The micro-kernel's name for reports: the entry's `micro_kernel_name` where it names one.
template <class Cfg, class = void>
struct EntryMicroKernelName {
  static constexpr const char* get(const char* backend_default) { return backend_default; }
};
template <class Cfg>
struct EntryMicroKernelName<Cfg, std::void_t<decltype(Cfg::micro_kernel_name)>> {
  static constexpr const char* get(const char*) { return Cfg::micro_kernel_name; }
};

// Plain scratch access: correct anywhere. Backends replace it with vector loads and accesses in
// the scratch address space.
struct PlainScratchAccess {
  template <int W, class T, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION static void load(const T* p, Acc* out) {
    RIDGELINE_UNROLL
    for (int e = 0; e < W; ++e) out[e] = static_cast<Acc>(p[e]);
  }
  template <class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store(T* p, T v) {
    *p = v;
  }
  template <int W, class T>
  KOKKOS_FORCEINLINE_FUNCTION static void store_packet(T* p, const T* v) {
    RIDGELINE_UNROLL
    for (int e = 0; e < W; ++e) p[e] = v[e];
  }
};

// The portable register micro-kernel. ScratchAccess is the only backend hook it takes. Complex
// accumulators take four real FMAs per multiply-add (fma_into); real ones the one they always did.
template <class Cfg, class T, class Acc, class ScratchAccess = PlainScratchAccess>
struct PortableMicroKernel {
  static constexpr int TM = Cfg::tm, TN = Cfg::tn, BK = Cfg::bk;
  static constexpr int LDA = Cfg::bm + Cfg::pad_a, LDB = Cfg::bn + Cfg::pad_b;
  using Map = MicroTileMap<Cfg>;
  static constexpr int kTM = TM, kTN = TN, kRowRun = Cfg::fm;

  // A thread's micro-tile in the grid of (BM / TM) x (BN / TN) micro-tiles.
  struct Owner {
    int ty, tx;
  };
  KOKKOS_FORCEINLINE_FUNCTION static Owner owner_of_tile(int ty, int tx) { return {ty, tx}; }
  KOKKOS_FORCEINLINE_FUNCTION static Owner owner(int t) {
    using L = LaneLayout<Cfg>;
    constexpr int kTilesM = Cfg::bm / TM;
    static_assert(kTilesM % L::lanes_m == 0 && L::group_lanes % L::lanes_m == 0, "lane layout must tile");
    constexpr int groups_m = kTilesM / L::lanes_m, lanes_n = L::group_lanes / L::lanes_m;
    const int grp = t / L::group_lanes, lane = t % L::group_lanes;
    return {(grp % groups_m) * L::lanes_m + lane % L::lanes_m,
            (grp / groups_m) * lanes_n + lane / L::lanes_m};
  }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int row(const Owner& o, int i) { return Map::row(o.ty, i); }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int col(const Owner& o, int j) { return Map::col(o.tx, j); }

  struct Accumulator {
    Acc v[TM][TN];
  };

  KOKKOS_FORCEINLINE_FUNCTION static void zero(Accumulator& acc) {
    RIDGELINE_UNROLL
    for (int i = 0; i < TM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < TN; ++j) acc.v[i][j] = Acc(0);
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static Acc get(const Accumulator& acc, int i, int j) { return acc.v[i][j]; }

  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch(T* p, T v) { ScratchAccess::store(p, v); }
  template <int W>
  KOKKOS_FORCEINLINE_FUNCTION static void store_scratch_packet(T* p, const T* v) {
    if constexpr (W == 1) {
      ScratchAccess::store(p, v[0]);
    } else {
      ScratchAccess::template store_packet<W>(p, v);
    }
  }

  struct Fragment {
    Acc a[TM], b[TN];
  };

  KOKKOS_FORCEINLINE_FUNCTION static void load_fragment(Fragment& f, const T* As, const T* Bs, int k,
                                                        const Owner& o) {
    const int ty = o.ty, tx = o.tx;
    RIDGELINE_UNROLL
    for (int p = 0; p < Map::kPiecesM; ++p)
      ScratchAccess::template load<Cfg::fm>(As + k * LDA + Map::row(ty, p * Cfg::fm), f.a + p * Cfg::fm);
    RIDGELINE_UNROLL
    for (int q = 0; q < Map::kPiecesN; ++q)
      ScratchAccess::template load<Cfg::fn>(Bs + k * LDB + Map::col(tx, q * Cfg::fn), f.b + q * Cfg::fn);
  }

  KOKKOS_FORCEINLINE_FUNCTION static void mac_fragment(Accumulator& acc, const Fragment& f) {
    RIDGELINE_UNROLL
    for (int i = 0; i < TM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < TN; ++j) fma_into(acc.v[i][j], f.a[i], f.b[j]);
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void mac(Accumulator& acc, const T* As, const T* Bs, const Owner& o) {
    RIDGELINE_UNROLL_DEVICE
    for (int k = 0; k < BK; ++k) {
      Fragment f;
      load_fragment(f, As, Bs, k, o);
      mac_fragment(acc, f);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION static void mac_upto(Accumulator& acc, const T* As, const T* Bs, const Owner& o,
                                                   int kk) {
    for (int k = 0; k < kk; ++k) {
      Fragment f;
      load_fragment(f, As, Bs, k, o);
      mac_fragment(acc, f);
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void load(Accumulator& acc, const Acc* Cs, const Owner& o) {
    RIDGELINE_UNROLL
    for (int i = 0; i < TM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < TN; ++j) acc.v[i][j] = Cs[row(o, i) * Cfg::bn + col(o, j)];
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void store(const Accumulator& acc, Acc* Cs, const Owner& o) {
    RIDGELINE_UNROLL
    for (int i = 0; i < TM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < TN; ++j) Cs[row(o, i) * Cfg::bn + col(o, j)] = acc.v[i][j];
    }
  }
};

}  // namespace ridgeline::detail
