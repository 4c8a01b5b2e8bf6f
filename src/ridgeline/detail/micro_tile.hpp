#pragma once
// The thread micro-tile level: the micro-kernel contract and the portable micro-kernel.
//
// Contract. A micro-kernel MK for a tile configuration Cfg, storage type T and accumulator Acc
// provides
//   MK::Accumulator                  a TM x TN block of Acc that lives in registers;
//   MK::zero(acc)                    acc = 0;
//   MK::mac(acc, As, Bs, ty, tx)     acc(i, j) += sum_{k < BK} As[k][row(ty, i)] * Bs[k][col(tx, j)];
//   MK::get(acc, i, j)               element (i, j), for the epilogue;
// and, for tile configurations with prefetch_fragments (the team kernel then runs the K step one
// k at a time, loading k + 1 while k is computed, across the barrier between K steps),
//   MK::Fragment                     the A and B values of one k that a thread's micro-tile uses;
//   MK::load_fragment(f, As, Bs, k, ty, tx), MK::mac_fragment(acc, f)
//                                    mac split at k: mac == load and mac_fragment for each k < BK;
//   MK::load(acc, Cs, ty, tx), MK::store(acc, Cs, ty, tx)
//                                    copy to and from a BM x BN scratch accumulator Cs (row-major,
//                                    leading dimension BN), used when a thread owns several
//                                    micro-tiles and cannot keep them all in registers;
//   MK::store_scratch(p, v)          how the team kernel writes one staged element to scratch, so a
//                                    backend can address its scratch memory directly;
//   MK::store_scratch_packet<W>(p, v)
//                                    the same for W contiguous elements v[0..W), p aligned to
//                                    W * sizeof(T) (one vector store where the backend has one).
// As is a (BK, BM + pad_a) and Bs a (BK, BN + pad_b) scratch tile, both k-major. The K tail is
// zero in scratch, so a micro-kernel never masks. row()/col() below fix which rows and columns a
// thread owns; a micro-kernel must use exactly these, because the epilogue stores through them.
// A micro-kernel never touches C: the epilogue alone reads C, and only when beta != 0.
#include <Kokkos_Core.hpp>

#include "ridgeline/detail/compat.hpp"

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

// The portable register micro-kernel. ScratchAccess is the only backend hook it takes.
template <class Cfg, class T, class Acc, class ScratchAccess = PlainScratchAccess>
struct PortableMicroKernel {
  static constexpr int TM = Cfg::tm, TN = Cfg::tn, BK = Cfg::bk;
  static constexpr int LDA = Cfg::bm + Cfg::pad_a, LDB = Cfg::bn + Cfg::pad_b;
  using Map = MicroTileMap<Cfg>;

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

  KOKKOS_FORCEINLINE_FUNCTION static void load_fragment(Fragment& f, const T* As, const T* Bs, int k, int ty,
                                                        int tx) {
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
      for (int j = 0; j < TN; ++j) acc.v[i][j] += f.a[i] * f.b[j];
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void mac(Accumulator& acc, const T* As, const T* Bs, int ty, int tx) {
    RIDGELINE_UNROLL_DEVICE
    for (int k = 0; k < BK; ++k) {
      Fragment f;
      load_fragment(f, As, Bs, k, ty, tx);
      mac_fragment(acc, f);
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void load(Accumulator& acc, const Acc* Cs, int ty, int tx) {
    RIDGELINE_UNROLL
    for (int i = 0; i < TM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < TN; ++j) acc.v[i][j] = Cs[Map::row(ty, i) * Cfg::bn + Map::col(tx, j)];
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void store(const Accumulator& acc, Acc* Cs, int ty, int tx) {
    RIDGELINE_UNROLL
    for (int i = 0; i < TM; ++i) {
      RIDGELINE_UNROLL
      for (int j = 0; j < TN; ++j) Cs[Map::row(ty, i) * Cfg::bn + Map::col(tx, j)] = acc.v[i][j];
    }
  }
};

}  // namespace ridgeline::detail
