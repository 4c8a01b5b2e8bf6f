#pragma once
// The epilogue and the tile schedule of a GEMM team kernel: components that every main loop shares
// (register staging in gemm_team_tiled.hpp, asynchronous copies in gemm_team_async.hpp).
//
// GemmTileOrigin: which C tile (and split-K slice) a league rank computes. Grouped order:
// consecutive league ranks walk a column of group_m tiles before moving right, so teams running
// together share the same B panel and a few A panels in L2.
// GemmEpilogue: the only place C is touched, a base of every GEMM team kernel (CRTP), so that it
// reads the kernel's own c, alpha, beta, work and c_packets where they are: the first version held
// copies, and that alone cost the fp32 SGEMM kernels 4-16% through a worse register allocation of
// the unchanged main loop (perf/results/2026-11-30-h200-ae8040d/h200-2026-11-30-ae8040d-README.md). It stores
// a micro-kernel's accumulators through the micro-kernel's own map from accumulator grid to tile coordinates
// (micro_tile.hpp), masked at the M/N edges; beta == 0 never reads C, so NaN or garbage there cannot survive.
// The kernel provides c (M x N), alpha, beta, work (split-K partials: slice s is an M x N column-major block
// at work + s * M * N) and c_packets (C's rows are unit-stride and every column starts 16-byte aligned).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

struct GemmTileOrigin {
  std::int64_t m0, n0;          // the tile's first row and column of C
  std::int64_t k_begin, k_end;  // its K range: all of K, or its split-K slice
  int slice;                    // the slice (0 without split-K)

  // The tile rows of the group starting at tile row first_m: kGroupM, fewer in the last group.
  template <int kGroupM>
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int group_rows(int first_m, int tiles_m) {
    return (tiles_m - first_m) < kGroupM ? (tiles_m - first_m) : kGroupM;
  }

  // k_chunk: the depth of every slice but the last (a multiple of BK); k: all of K.
  template <int BM, int BN, int kGroupM>
  KOKKOS_FORCEINLINE_FUNCTION static GemmTileOrigin of(int league_rank, int tiles_m, int tiles_n,
                                                       int k_slices, std::int64_t k_chunk, std::int64_t k) {
    const int tiles = tiles_m * tiles_n;
    const int slice = k_slices > 1 ? league_rank / tiles : 0;
    const int r = k_slices > 1 ? league_rank - slice * tiles : league_rank;
    const std::int64_t k_begin = std::int64_t(slice) * k_chunk;
    const std::int64_t k_end = k_slices > 1 && k_begin + k_chunk < k ? k_begin + k_chunk : k;
    const int per_group = kGroupM * tiles_n;
    const int group = r / per_group;
    const int first_m = group * kGroupM;
    const int rows_in_group = group_rows<kGroupM>(first_m, tiles_m);
    const int in_group = r - group * per_group;
    return {std::int64_t(first_m + in_group % rows_in_group) * BM,
            std::int64_t(in_group / rows_in_group) * BN, k_begin, k_end, slice};
  }

  // The league rank that `of` places at tile (mi, ni) of slice `slice`: its inverse, for a kernel that deals
  // the league's tiles out in an order of its own (the host panels' block_of_rank).
  template <int kGroupM>
  KOKKOS_FORCEINLINE_FUNCTION static constexpr int rank_of(int mi, int ni, int slice, int tiles_m,
                                                           int tiles_n) {
    const int first_m = mi / kGroupM * kGroupM;
    const int rows_in_group = group_rows<kGroupM>(first_m, tiles_m);
    return slice * tiles_m * tiles_n + first_m * tiles_n + ni * rows_in_group + (mi - first_m);
  }
};

// Where a tile that crosses C's edge along one extent loads from: moved back by its overhang onto the
// last whole tile of the extent, so that every K step loads as an interior tile's does (no bounds tests;
// only the K tail is checked). The rows or columns it shares with its neighbour are computed again and
// not stored (the epilogue's m_lo, n_lo: the tile's own origin). A checked edge tile tests every element
// of every step. On the H200, under one wave, the SMs that hold edge tiles finish last: 1020x1028x1024 fp32
// ran 0.1056 ms against 0.069-0.073 for 1024^3 on the same small-tile entry
// (perf/results/2026-12-03-h200-e4e678c/h200-2026-12-03-e4e678c-edges-README.md). Register and one-stage
// staging (GemmTeamTiled::run) and asynchronous staging (GemmTeamAsync::run) use it; the TMA kernel's
// copies fill the edges in hardware. align: the move must be a multiple of it (a 16-byte packet along an
// operand's contiguous index, or along C's rows where C is stored in packets); where it is not, or the
// extent is shorter than a tile, the tile stays where it is and loads checked.
KOKKOS_FORCEINLINE_FUNCTION std::int64_t tile_inside_origin(std::int64_t o0, int tile, std::int64_t extent,
                                                            int align) {
  if (o0 + tile <= extent || extent < tile) return o0;
  const std::int64_t last = extent - tile;
  return (o0 - last) % align == 0 ? last : o0;
}

// The origin of the tile that a kernel computes from o0 (after tile_inside_origin): its own rows or columns
// start there. Tile origins are multiples of the tile, and a moved one is not, so the kernel need not keep
// the tile's own origin live through its K loop (the DMMA kernels run at their register limit: keeping it
// spilled them, 2-5% slower, perf/results/2026-12-03-h200-8c18ba8/).
KOKKOS_FORCEINLINE_FUNCTION constexpr std::int64_t tile_own_origin(std::int64_t o0, int tile) {
  return (o0 + tile - 1) / tile * tile;
}

// An entry's store_as_summed (default false): its epilogue tests alpha == 1 and beta == 0 once, on the
// bits, and then stores the sums as they are, each row's offset and column's address taken once.
template <class Cfg, class = void>
struct StoreAsSummedOf : std::false_type {};
template <class Cfg>
struct StoreAsSummedOf<Cfg, std::void_t<decltype(Cfg::store_as_summed)>>
    : std::bool_constant<Cfg::store_as_summed> {};

// T is C's element type (A and B may be narrower: 16-bit inputs with a float C).
template <class Kernel, class T, class Acc, class MK>
struct GemmEpilogue {
  static constexpr int kCV = int(16 / sizeof(T));
  static constexpr bool c_packet_capable = MK::kRowRun % kCV == 0;

  // Whether index i lies in [lo, lo + span): one unsigned compare tests both bounds, since i - lo wraps to
  // a huge value under lo (two signed ones cost the 64x64 DMMA kernel 280 instructions; one: DGEMM 512^3
  // 1.05x, 1024^3 1.07x, 4096^2x64 1.04x,
  // perf/results/2026-12-04-h200-4084b16/h200-2026-12-04-4084b16-README.md).
  KOKKOS_FORCEINLINE_FUNCTION static bool owns(std::int64_t i, std::int64_t lo, std::uint64_t span) {
    return std::uint64_t(i - lo) < span;
  }

  // x == 0 (either sign) and x == 1, on the bits with integer compares for float and double (the
  // store_as_summed epilogue's tests; a DSETP there waits on the FP64 pipe behind the DMMAs).
  static constexpr bool kBitTests = std::is_same_v<Acc, double> || std::is_same_v<Acc, float>;
  using Bits = std::conditional_t<sizeof(Acc) == 8, std::uint64_t, std::uint32_t>;
  KOKKOS_FORCEINLINE_FUNCTION static Bits bits_of(const Acc& x) {
    Bits b;
    std::memcpy(&b, &x, sizeof b);
    return b;
  }
  KOKKOS_FORCEINLINE_FUNCTION static bool is_zero(const Acc& x) {
    if constexpr (kBitTests)
      return Bits(bits_of(x) << 1) == 0;
    else
      return x == Acc(0);
  }
  KOKKOS_FORCEINLINE_FUNCTION static bool is_one(const Acc& x) {
    if constexpr (kBitTests)
      return bits_of(x) == bits_of(Acc(1));
    else
      return x == Acc(1);
  }

  // A split-K slice's partial product, alpha applied, to its own M x N block of the workspace.
  // (m0, n0) is the tile's origin; rows under m_lo and columns left of n_lo belong to another tile
  // (a tile moved back inside C at the edges, tile_inside_origin) and are not stored.
  KOKKOS_FORCEINLINE_FUNCTION void store_partial(const typename MK::Accumulator& acc, std::int64_t m0,
                                                 std::int64_t n0, const typename MK::Owner& o, int slice,
                                                 std::int64_t m_lo = 0, std::int64_t n_lo = 0) const {
    const Kernel& k = static_cast<const Kernel&>(*this);
    const Strided2D<T>& c = k.c;
    const Acc alpha = k.alpha;
    Acc* w = k.work + std::int64_t(slice) * c.rows * c.cols;
    const std::uint64_t m_span = std::uint64_t(c.rows - m_lo), n_span = std::uint64_t(c.cols - n_lo);
    static_for<MK::kTN>([&](auto J) {
      constexpr int j = decltype(J)::value;
      const std::int64_t n = n0 + MK::col(o, j);
      RIDGELINE_UNROLL
      for (int i = 0; i < MK::kTM; ++i) {
        const std::int64_t m = m0 + MK::row(o, i);
        if (owns(m, m_lo, m_span) && owns(n, n_lo, n_span)) w[n * c.rows + m] = alpha * MK::get(acc, i, j);
      }
    });
  }

  // The only place C is touched. beta == 0 never reads C, so NaN or garbage there cannot survive.
  // m_lo, n_lo as in store_partial; where C is stored in packets, m0 - m_lo is a multiple of kCV, so a
  // packet lies wholly on one side of m_lo.
  KOKKOS_FORCEINLINE_FUNCTION void store(const typename MK::Accumulator& acc, std::int64_t m0,
                                         std::int64_t n0, const typename MK::Owner& o, std::int64_t m_lo = 0,
                                         std::int64_t n_lo = 0) const {
    const Kernel& k = static_cast<const Kernel&>(*this);
    const Strided2D<T>& c = k.c;
    const Acc alpha = k.alpha, beta = k.beta;
    const bool c_packets = k.c_packets;
    constexpr bool kSummed = StoreAsSummedOf<typename Kernel::config>::value;
    bool read_c;  // the bit test only where an entry asks for it: other kernels compile as before
    if constexpr (kSummed)
      read_c = !is_zero(beta);
    else
      read_c = beta != Acc(0);
    if constexpr (c_packet_capable) {
      if (c_packets) {
        // Rows come in runs of kRowRun, so rows i0 .. i0 + kCV - 1 of the grid are consecutive.
        RIDGELINE_UNROLL
        for (int j = 0; j < MK::kTN; ++j) {
          const std::int64_t n = n0 + MK::col(o, j);
          RIDGELINE_UNROLL
          for (int i0 = 0; i0 < MK::kTM; i0 += kCV) {
            const std::int64_t m = m0 + MK::row(o, i0);
            if (m < m_lo || n < n_lo) continue;
            if (n < c.cols && m + kCV <= c.rows) {
              T* p = &c(m, n);
              Packet<kCV, T> v;
              if (read_c) {
                const Packet<kCV, T> old = load_packet<kCV, T>(p);
                RIDGELINE_UNROLL
                for (int e = 0; e < kCV; ++e)
                  v.v[e] =
                      static_cast<T>(alpha * MK::get(acc, i0 + e, j) + beta * static_cast<Acc>(old.v[e]));
              } else {
                RIDGELINE_UNROLL
                for (int e = 0; e < kCV; ++e) v.v[e] = static_cast<T>(alpha * MK::get(acc, i0 + e, j));
              }
              *reinterpret_cast<Packet<kCV, T>*>(p) = v;
            } else if (n < c.cols) {
              for (int e = 0; e < kCV && m + e < c.rows; ++e) {
                Acc v = alpha * MK::get(acc, i0 + e, j);
                if (read_c) v += beta * static_cast<Acc>(c(m + e, n));
                c(m + e, n) = static_cast<T>(v);
              }
            }
          }
        }
        return;
      }
    }
    const std::uint64_t m_span = std::uint64_t(c.rows - m_lo), n_span = std::uint64_t(c.cols - n_lo);
    if constexpr (kSummed) {
      store_elements_summed(acc, m0, n0, o, m_lo, n_lo, m_span, n_span, read_c);
      return;
    }
    static_for<MK::kTN>([&](auto J) {
      constexpr int j = decltype(J)::value;
      const std::int64_t n = n0 + MK::col(o, j);
      RIDGELINE_UNROLL
      for (int i = 0; i < MK::kTM; ++i) {
        const std::int64_t m = m0 + MK::row(o, i);
        if (owns(m, m_lo, m_span) && owns(n, n_lo, n_span)) {
          Acc v = alpha * MK::get(acc, i, j);
          if (read_c) v += beta * static_cast<Acc>(c(m, n));
          c(m, n) = static_cast<T>(v);
        }
      }
    });
  }

  // store's element path for entries that name store_as_summed: each row's offset and each column's
  // address taken once, and C = op(A) op(B) (alpha 1, beta 0) stored as summed, with no FP64 (or FP32)
  // instruction between the sums and C. Under ncu on the H100, DGEMM 8192^2 x 256, the 64 x 64 DMMA
  // kernel spent 12% of its warp samples on a DSETP per element (beta tested again) and 2.4% on the DMUL
  // by alpha (perf/results/2026-12-07-h100-77bea0a/). Only entries whose epilogue weighs against their
  // K loop name it: in the same kernel at K 1024 the second store path cost the K loop 7%
  // (perf/results/2026-12-07-h100-585d245/).
  KOKKOS_FORCEINLINE_FUNCTION void store_elements_summed(const typename MK::Accumulator& acc, std::int64_t m0,
                                                         std::int64_t n0, const typename MK::Owner& o,
                                                         std::int64_t m_lo, std::int64_t n_lo,
                                                         std::uint64_t m_span, std::uint64_t n_span,
                                                         bool read_c) const {
    const Kernel& k = static_cast<const Kernel&>(*this);
    const Strided2D<T>& c = k.c;
    const Acc alpha = k.alpha, beta = k.beta;
    const auto store_elements = [&](auto as_summed) {
      std::int64_t row_at[MK::kTM];
      bool row_in[MK::kTM];
      RIDGELINE_UNROLL
      for (int i = 0; i < MK::kTM; ++i) {
        const std::int64_t m = m0 + MK::row(o, i);
        row_in[i] = owns(m, m_lo, m_span);
        row_at[i] = m * c.rs;
      }
      static_for<MK::kTN>([&](auto J) {
        constexpr int j = decltype(J)::value;
        const std::int64_t n = n0 + MK::col(o, j);
        if (!owns(n, n_lo, n_span)) return;
        T* const col = c.data + n * c.cs;
        RIDGELINE_UNROLL
        for (int i = 0; i < MK::kTM; ++i) {
          if (!row_in[i]) continue;
          T* const p = col + row_at[i];
          if constexpr (decltype(as_summed)::value) {
            *p = static_cast<T>(MK::get(acc, i, j));
          } else {
            Acc v = alpha * MK::get(acc, i, j);
            if (read_c) v += beta * static_cast<Acc>(*p);
            *p = static_cast<T>(v);
          }
        }
      });
    };
    if (!read_c && is_one(alpha))
      store_elements(std::true_type{});
    else
      store_elements(std::false_type{});
  }
};

}  // namespace ridgeline::detail
