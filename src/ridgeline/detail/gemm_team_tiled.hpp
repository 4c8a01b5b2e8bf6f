#pragma once
// The team tile level: one Kokkos team computes one BM x BN tile of C.
//
//   league rank --(grouped order)--> (tile_m, tile_n)
//   for each BK-deep step of K:
//     op(A)(tile rows, k step) -> As (BK, BM+pad_a)   zero-filled past M and K
//     op(B)(k step, tile cols) -> Bs (BK, BN+pad_b)   zero-filled past K and N
//     barrier; every thread: micro-kernel mac on its TM x TN micro-tile(s)
//   epilogue: C = alpha*acc (+ beta*C when beta != 0), masked at the M/N edges
//
// With stages == 2 a thread holds its share of the next K step in registers while the current one
// is computed, and writes it to the other scratch buffer afterwards: one barrier per K step, and
// global-load latency hidden behind the math. With stages == 1 (the host tables) the tile is copied
// straight into scratch. When a thread owns one micro-tile its accumulator stays in registers for
// the whole K loop; when it owns several (a host team is one thread), they live in a BM x BN scratch
// accumulator and each is loaded into registers for one K step at a time.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/micro_tile.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

constexpr std::size_t scratch_align = 16;
KOKKOS_INLINE_FUNCTION constexpr std::size_t align_up(std::size_t n) {
  return (n + scratch_align - 1) / scratch_align * scratch_align;
}

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

template <class ExecSpace, class Cfg, class T, class Acc, class MK, bool kAFastM, bool kBFastN>
struct GemmTeamTiled {
  static_assert(Cfg::vector_length == 1, "the GEMM team tile maps one micro-tile set to each team thread");
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, Cfg::min_blocks>>;
  using member_type = typename policy_type::member_type;
  using config = Cfg;

  static constexpr int BM = Cfg::bm, BN = Cfg::bn, BK = Cfg::bk;
  static constexpr int LDA = BM + Cfg::pad_a, LDB = BN + Cfg::pad_b;
  static constexpr int kThreads = Cfg::team_size;
  static constexpr int kTilesM = BM / Cfg::tm, kTilesN = BN / Cfg::tn;
  static constexpr int kPerThread = kTilesM * kTilesN / kThreads;
  static constexpr bool kRegisterAcc = (kPerThread == 1);
  static constexpr int kStages = Cfg::stages;
  static_assert(kTilesM * kTilesN % kThreads == 0, "micro-tiles must divide evenly among the team's threads");
  static_assert(kStages == 1 || kStages == 2, "one or two scratch stages");
  static_assert(kStages == 1 || (BM * BK % kThreads == 0 && BK * BN % kThreads == 0),
                "register staging needs the K step to divide evenly among the team's threads");

  // Each operand tile is walked as (fast, slow): the fast index follows the contiguous direction
  // of op(A)/op(B) in memory, so consecutive threads read consecutive addresses.
  static constexpr int kAF = kAFastM ? BM : BK, kAS = kAFastM ? BK : BM;
  static constexpr int kBF = kBFastN ? BN : BK, kBS = kBFastN ? BK : BN;
  static constexpr int kLoadA = kStages == 2 ? BM * BK / kThreads : 1;
  static constexpr int kLoadB = kStages == 2 ? BK * BN / kThreads : 1;

  Strided2D<const T> a;  // op(A): M x K
  Strided2D<const T> b;  // op(B): K x N
  Strided2D<T> c;        // M x N
  Acc alpha, beta;
  int tiles_m, tiles_n;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return align_up(sizeof(T) * kStages * BK * LDA) + align_up(sizeof(T) * kStages * BK * LDB) +
           (kRegisterAcc ? 0 : align_up(sizeof(Acc) * BM * BN)) + 3 * scratch_align;
  }

  // (m, k) -> As(k, m) and (k, n) -> Bs(k, n), mapped from a (fast, slow) position.
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int a_m(int f, int s) { return kAFastM ? f : s; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int a_k(int f, int s) { return kAFastM ? s : f; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int b_n(int f, int s) { return kBFastN ? f : s; }
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int b_k(int f, int s) { return kBFastN ? s : f; }

  // Padded lanes read nothing: an element outside op(A) or op(B) is a zero in scratch.
  KOKKOS_FORCEINLINE_FUNCTION T a_at(std::int64_t m, std::int64_t k) const {
    return (m < a.rows && k < a.cols) ? a(m, k) : T(0);
  }
  KOKKOS_FORCEINLINE_FUNCTION T b_at(std::int64_t k, std::int64_t n) const {
    return (k < b.rows && n < b.cols) ? b(k, n) : T(0);
  }

  // Copies kS lines of kF elements: line sl starts at src(sl) with stride fs, and goes to dst(sl)
  // with stride kDs. When kDs != 1 the copy transposes; it then walks the lines in blocks of 16
  // fast elements so that the 16 scratch rows it writes stay in L1 while consecutive lines fill
  // them, instead of touching a new cache line per element.
  template <int kF, int kS, int kDs, class Src, class Dst>
  KOKKOS_FORCEINLINE_FUNCTION void copy_lines(int t, std::int64_t fs, Src&& src, Dst&& dst) const {
    constexpr int kBlock = kDs == 1 ? kF : (kF < 16 ? kF : 16);
    for (int f0 = 0; f0 < kF; f0 += kBlock) {
      const int f1 = f0 + kBlock < kF ? f0 + kBlock : kF;
      for (int sl = t; sl < kS; sl += kThreads) {
        const T* s = src(sl);
        T* d = dst(sl);
        if (fs == 1) {
          for (int f = f0; f < f1; ++f) MK::store_scratch(d + f * kDs, s[f]);
        } else {
          for (int f = f0; f < f1; ++f) MK::store_scratch(d + f * kDs, s[f * fs]);
        }
      }
    }
  }

  // stages == 1: copy one K step straight into scratch. An interior tile is copied as whole lines
  // of the fast index with no bounds tests, unit-stride where memory allows, so the compiler turns
  // the copy into vector moves: per element, staging must cost far less than the BN (or BM) FMAs
  // that use it. Edge tiles take the element-wise path, which zero-fills.
  KOKKOS_FORCEINLINE_FUNCTION void stage(int t, std::int64_t m0, std::int64_t n0, std::int64_t k0, T* As,
                                         T* Bs) const {
    const bool interior = m0 + BM <= a.rows && n0 + BN <= b.cols && k0 + BK <= a.cols;
    if (interior) {
      const std::int64_t a_fs = kAFastM ? a.rs : a.cs;  // source stride along the fast index
      constexpr int a_ds = kAFastM ? 1 : LDA;           // scratch stride along the fast index
      copy_lines<kAF, kAS, a_ds>(
          t, a_fs, [&](int sl) { return &a(m0 + a_m(0, sl), k0 + a_k(0, sl)); },
          [&](int sl) { return As + a_k(0, sl) * LDA + a_m(0, sl); });
      const std::int64_t b_fs = kBFastN ? b.cs : b.rs;
      constexpr int b_ds = kBFastN ? 1 : LDB;
      copy_lines<kBF, kBS, b_ds>(
          t, b_fs, [&](int sl) { return &b(k0 + b_k(0, sl), n0 + b_n(0, sl)); },
          [&](int sl) { return Bs + b_k(0, sl) * LDB + b_n(0, sl); });
      return;
    }
    for (int e = t; e < BM * BK; e += kThreads) {
      const int f = e % kAF, s = e / kAF;
      MK::store_scratch(As + a_k(f, s) * LDA + a_m(f, s), a_at(m0 + a_m(f, s), k0 + a_k(f, s)));
    }
    for (int e = t; e < BK * BN; e += kThreads) {
      const int f = e % kBF, s = e / kBF;
      MK::store_scratch(Bs + b_k(f, s) * LDB + b_n(f, s), b_at(k0 + b_k(f, s), n0 + b_n(f, s)));
    }
  }

  // stages == 2: this thread's share of every K step sits at fixed offsets from the step's origin,
  // and whether its row of op(A) (column of op(B)) exists does not change along K. Both are worked
  // out once per tile, so a K step costs one add and one load per element, plus a K-tail test
  // only on the last step.
  struct LoadPlan {
    std::int64_t a_off[kLoadA], b_off[kLoadB];
    bool a_in[kLoadA], b_in[kLoadB];
  };

  KOKKOS_FORCEINLINE_FUNCTION LoadPlan plan(int t, std::int64_t m0, std::int64_t n0) const {
    LoadPlan p;
    RIDGELINE_UNROLL
    for (int r = 0; r < kLoadA; ++r) {
      const int e = t + r * kThreads, f = e % kAF, s = e / kAF;
      const std::int64_t m = m0 + a_m(f, s);
      p.a_in[r] = m < a.rows;
      p.a_off[r] = m * a.rs + a_k(f, s) * a.cs;
    }
    RIDGELINE_UNROLL
    for (int r = 0; r < kLoadB; ++r) {
      const int e = t + r * kThreads, f = e % kBF, s = e / kBF;
      const std::int64_t n = n0 + b_n(f, s);
      p.b_in[r] = n < b.cols;
      p.b_off[r] = b_k(f, s) * b.rs + n * b.cs;
    }
    return p;
  }

  KOKKOS_FORCEINLINE_FUNCTION void fetch(int t, const LoadPlan& p, std::int64_t k0, T (&ra)[kLoadA],
                                         T (&rb)[kLoadB]) const {
    const T* pa = a.data + k0 * a.cs;
    const T* pb = b.data + k0 * b.rs;
    const bool k_full = k0 + BK <= a.cols;
    RIDGELINE_UNROLL
    for (int r = 0; r < kLoadA; ++r) {
      const int e = t + r * kThreads, f = e % kAF, s = e / kAF;
      ra[r] = (p.a_in[r] && (k_full || k0 + a_k(f, s) < a.cols)) ? pa[p.a_off[r]] : T(0);
    }
    RIDGELINE_UNROLL
    for (int r = 0; r < kLoadB; ++r) {
      const int e = t + r * kThreads, f = e % kBF, s = e / kBF;
      rb[r] = (p.b_in[r] && (k_full || k0 + b_k(f, s) < b.rows)) ? pb[p.b_off[r]] : T(0);
    }
  }
  KOKKOS_FORCEINLINE_FUNCTION void commit(int t, const T (&ra)[kLoadA], const T (&rb)[kLoadB], T* As,
                                          T* Bs) const {
    RIDGELINE_UNROLL
    for (int r = 0; r < kLoadA; ++r) {
      const int e = t + r * kThreads, f = e % kAF, s = e / kAF;
      MK::store_scratch(As + a_k(f, s) * LDA + a_m(f, s), ra[r]);
    }
    RIDGELINE_UNROLL
    for (int r = 0; r < kLoadB; ++r) {
      const int e = t + r * kThreads, f = e % kBF, s = e / kBF;
      MK::store_scratch(Bs + b_k(f, s) * LDB + b_n(f, s), rb[r]);
    }
  }

  // Runs body(As, Bs, kt) for every K step, with the step's tiles staged in scratch.
  template <class Body>
  KOKKOS_FORCEINLINE_FUNCTION void k_loop(const member_type& team, std::int64_t m0, std::int64_t n0, T* As,
                                          T* Bs, Body&& body) const {
    const int t = team.team_rank();
    const int nk = static_cast<int>((a.cols + BK - 1) / BK);
    if constexpr (kStages == 2) {
      const LoadPlan lp = plan(t, m0, n0);
      T ra[kLoadA], rb[kLoadB];
      fetch(t, lp, 0, ra, rb);
      commit(t, ra, rb, As, Bs);
      team.team_barrier();
      for (int kt = 0; kt < nk; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < nk;
        if (more) fetch(t, lp, std::int64_t(kt + 1) * BK, ra, rb);
        body(As + cur * BK * LDA, Bs + cur * BK * LDB, kt);
        if (more) commit(t, ra, rb, As + (cur ^ 1) * BK * LDA, Bs + (cur ^ 1) * BK * LDB);
        team.team_barrier();
      }
    } else {
      for (int kt = 0; kt < nk; ++kt) {
        if (kt > 0) team.team_barrier();
        stage(t, m0, n0, std::int64_t(kt) * BK, As, Bs);
        team.team_barrier();
        body(As, Bs, kt);
      }
    }
  }

  // The only place C is touched. beta == 0 never reads C, so NaN or garbage there cannot survive.
  KOKKOS_FORCEINLINE_FUNCTION void epilogue(const typename MK::Accumulator& acc, std::int64_t m0,
                                            std::int64_t n0, int ty, int tx) const {
    using Map = MicroTileMap<Cfg>;
    const bool read_c = beta != Acc(0);
    RIDGELINE_UNROLL
    for (int j = 0; j < Cfg::tn; ++j) {
      const std::int64_t n = n0 + Map::col(tx, j);
      RIDGELINE_UNROLL
      for (int i = 0; i < Cfg::tm; ++i) {
        const std::int64_t m = m0 + Map::row(ty, i);
        if (m < c.rows && n < c.cols) {
          Acc v = alpha * MK::get(acc, i, j);
          if (read_c) v += beta * static_cast<Acc>(c(m, n));
          c(m, n) = static_cast<T>(v);
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    // Grouped order: consecutive league ranks walk a column of group_m tiles before moving right,
    // so teams running together share the same B panel and a few A panels in L2.
    const int r = team.league_rank();
    const int per_group = Cfg::group_m * tiles_n;
    const int group = r / per_group;
    const int first_m = group * Cfg::group_m;
    const int rows_in_group = (tiles_m - first_m) < Cfg::group_m ? (tiles_m - first_m) : Cfg::group_m;
    const int in_group = r - group * per_group;
    const std::int64_t m0 = std::int64_t(first_m + in_group % rows_in_group) * BM;
    const std::int64_t n0 = std::int64_t(in_group / rows_in_group) * BN;

    auto scratch = team.team_scratch(static_cast<int>(Cfg::scratch_level));
    T* As = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * kStages * BK * LDA, scratch_align));  // (BK,BM+pad)
    T* Bs = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * kStages * BK * LDB, scratch_align));  // (BK,BN+pad)
    const int t = team.team_rank();

    if constexpr (kRegisterAcc) {
      using L = LaneLayout<Cfg>;
      static_assert(kTilesM % L::lanes_m == 0 && L::group_lanes % L::lanes_m == 0, "lane layout must tile");
      constexpr int groups_m = kTilesM / L::lanes_m, lanes_n = L::group_lanes / L::lanes_m;
      const int grp = t / L::group_lanes, lane = t % L::group_lanes;
      const int ty = (grp % groups_m) * L::lanes_m + lane % L::lanes_m;
      const int tx = (grp / groups_m) * lanes_n + lane / L::lanes_m;
      typename MK::Accumulator acc;
      MK::zero(acc);
      k_loop(team, m0, n0, As, Bs, [&](const T* as, const T* bs, int) { MK::mac(acc, as, bs, ty, tx); });
      epilogue(acc, m0, n0, ty, tx);
    } else {
      Acc* Cs =
          static_cast<Acc*>(scratch.get_shmem_aligned(sizeof(Acc) * BM * BN, scratch_align));  // (BM,BN)
      k_loop(team, m0, n0, As, Bs, [&](const T* as, const T* bs, int kt) {
        for (int u = 0; u < kPerThread; ++u) {
          const int id = t * kPerThread + u, ty = id % kTilesM, tx = id / kTilesM;
          typename MK::Accumulator acc;
          if (kt == 0) {
            MK::zero(acc);
          } else {
            MK::load(acc, Cs, ty, tx);
          }
          MK::mac(acc, as, bs, ty, tx);
          MK::store(acc, Cs, ty, tx);
        }
      });
      for (int u = 0; u < kPerThread; ++u) {
        const int id = t * kPerThread + u, ty = id % kTilesM, tx = id / kTilesM;
        typename MK::Accumulator acc;
        MK::load(acc, Cs, ty, tx);
        epilogue(acc, m0, n0, ty, tx);
      }
    }
  }
};

}  // namespace ridgeline::detail
