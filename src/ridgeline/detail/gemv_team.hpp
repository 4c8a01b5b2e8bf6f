#pragma once
// The portable GEMV, y = alpha * op(A) * x + beta * y, as two team kernels. Which one runs depends
// on which index of op(A) is contiguous, so that both read A coalesced on GPUs and in unit stride on
// CPUs:
//   GemvRows  the output index i is contiguous ("N" on LayoutLeft): threads walk rows, groups of
//             threads split the columns, partial sums meet in scratch in a fixed order;
//   GemvDot   the reduction index j is contiguous ("T" on LayoutLeft): each output is a dot
//             product split across a group of team threads, which reads several rows at once.
// Both sum in a fixed order, so a rerun gives bit-identical results. A conjugated complex A ('C') is
// conjugated as each element is loaded (a_val), and multiply-adds go through fma_into (complex.hpp). kUnit
// says the contiguous stride is 1, which lets the compiler vectorize and the GPU coalesce without a stride
// multiply.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/complex.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

// Teams per compute unit the launch bounds ask for; a table may name `min_blocks` to cap
// registers in exchange for occupancy (memory-bound kernels need many loads in flight).
template <class Cfg, class = void>
struct GemvMinBlocks {
  static constexpr int value = 1;
};
template <class Cfg>
struct GemvMinBlocks<Cfg, std::void_t<decltype(Cfg::min_blocks)>> {
  static constexpr int value = Cfg::min_blocks;
};

// kVec: the dispatcher proved that packets of Cfg::vec elements along the contiguous index are
// aligned (base, leading stride); otherwise every access is a scalar.
template <class ExecSpace, class Cfg, class T, class Acc, bool kUnit, bool kVec, class TY = T>
struct GemvRows {
  using policy_type =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, GemvMinBlocks<Cfg>::value>>;
  using member_type = typename policy_type::member_type;
  static_assert(Cfg::vector_length == 1, "GemvRows uses team threads only");
  static_assert(!kVec || kUnit, "packets need unit stride");
  static constexpr int kThreads = Cfg::team_size;
  static constexpr int BR = Cfg::rows;
  static constexpr int VW = kVec ? Cfg::vec : 1;                          // rows per packet
  static constexpr int kLanes = BR / VW < kThreads ? BR / VW : kThreads;  // threads along rows
  static constexpr int kPacketsPerThread = BR / (kLanes * VW);
  static constexpr int kGroups = kThreads / kLanes;  // thread groups splitting the columns
  static constexpr int U = Cfg::unroll;
  static_assert(BR % (kLanes * VW) == 0 && kThreads % kLanes == 0, "rows and team size must nest");

  Strided2D<const T> a;  // op(A): rows x cols, rows contiguous
  Strided1D<const T> x;
  Strided1D<TY> y;  // TY: T, or float for 16-bit inputs
  Acc alpha, beta;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return kGroups > 1 ? sizeof(Acc) * kGroups * BR : 0;
  }

  KOKKOS_FORCEINLINE_FUNCTION const T* a_ptr(std::int64_t i, std::int64_t j) const {
    return kUnit ? a.data + i + j * a.cs : a.data + i * a.rs + j * a.cs;
  }
  // An element of op(A) as the accumulator's type, conjugated where op(A) is.
  KOKKOS_FORCEINLINE_FUNCTION Acc a_val(const T& v) const { return conj_if(static_cast<Acc>(v), a.conj); }

  // acc[e] += A(i + e, j) * xj for the packet starting at row i; scalar and masked at the edge.
  KOKKOS_FORCEINLINE_FUNCTION void mac_packet(Acc* acc, std::int64_t i, std::int64_t j, Acc xj,
                                              bool whole) const {
    if (whole) {
      if constexpr (VW > 1) {
        const auto p = load_packet<VW>(a_ptr(i, j));
        RIDGELINE_UNROLL
        for (int e = 0; e < VW; ++e) fma_into(acc[e], a_val(p.v[e]), xj);
      } else {
        fma_into(acc[0], a_val(*a_ptr(i, j)), xj);
      }
    } else {
      for (int e = 0; e < VW; ++e)
        if (i + e < a.rows) fma_into(acc[e], a_val(*a_ptr(i + e, j)), xj);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * BR;
    const int t = team.team_rank();
    const int lane = t % kLanes, g = t / kLanes;
    Acc acc[kPacketsPerThread][VW];
    RIDGELINE_UNROLL
    for (int q = 0; q < kPacketsPerThread; ++q) {
      RIDGELINE_UNROLL
      for (int e = 0; e < VW; ++e) acc[q][e] = Acc(0);
    }
    auto row_of = [&](int q) { return i0 + std::int64_t(lane + q * kLanes) * VW; };

    // Column j = g + kGroups * (u + U * blk): U independent columns per pass keep U loads in flight.
    const std::int64_t ncols = a.cols, step = std::int64_t(kGroups) * U;
    std::int64_t j0 = g;
    for (; j0 + step - kGroups < ncols; j0 += step) {
      Acc xs[U];
      RIDGELINE_UNROLL
      for (int u = 0; u < U; ++u) xs[u] = static_cast<Acc>(x(j0 + std::int64_t(u) * kGroups));
      for (int q = 0; q < kPacketsPerThread; ++q) {
        const std::int64_t i = row_of(q);
        if (i >= a.rows) break;
        if (i + VW <= a.rows) {
          // All U packets are requested before the first is used: U loads in flight per thread.
          Packet<VW, T> p[U];
          RIDGELINE_UNROLL
          for (int u = 0; u < U; ++u) p[u] = load_packet<VW>(a_ptr(i, j0 + std::int64_t(u) * kGroups));
          RIDGELINE_UNROLL
          for (int u = 0; u < U; ++u) {
            RIDGELINE_UNROLL
            for (int e = 0; e < VW; ++e) fma_into(acc[q][e], a_val(p[u].v[e]), xs[u]);
          }
        } else {
          for (int u = 0; u < U; ++u) mac_packet(acc[q], i, j0 + std::int64_t(u) * kGroups, xs[u], false);
        }
      }
    }
    for (; j0 < ncols; j0 += kGroups) {
      const Acc xj = static_cast<Acc>(x(j0));
      for (int q = 0; q < kPacketsPerThread; ++q) {
        const std::int64_t i = row_of(q);
        if (i >= a.rows) break;
        mac_packet(acc[q], i, j0, xj, i + VW <= a.rows);
      }
    }

    if constexpr (kGroups == 1) {
      for (int q = 0; q < kPacketsPerThread; ++q)
        for (int e = 0; e < VW; ++e) write(row_of(q) + e, acc[q][e]);
    } else {
      Acc* red = static_cast<Acc*>(
          team.team_scratch(static_cast<int>(Cfg::scratch_level)).get_shmem(scratch_bytes()));  // (G,BR)
      for (int q = 0; q < kPacketsPerThread; ++q)
        for (int e = 0; e < VW; ++e) red[g * BR + (lane + q * kLanes) * VW + e] = acc[q][e];
      team.team_barrier();
      // Groups are summed in a fixed order, so reruns are bit-identical.
      for (int r = t; r < BR; r += kThreads) {
        Acc s = red[r];
        for (int gg = 1; gg < kGroups; ++gg) s += red[gg * BR + r];
        write(i0 + r, s);
      }
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void write(std::int64_t i, Acc s) const {
    if (i >= a.rows) return;
    Acc v = alpha * s;
    if (beta != Acc(0)) v += beta * static_cast<Acc>(y(i));
    y(i) = static_cast<TY>(v);
  }
};

// Threads form groups of Cfg::lanes; a group reads Cfg::row_block rows at once, lane l taking
// packets l, l + lanes, ... of each row, so that every x packet it loads serves row_block rows.
// With one row per group, x was read once per row: as many bytes as A, and on the H200 the L2
// (not DRAM) became the limit (ncu: L2 90%, DRAM 80% at 16384^2). Lane partial sums meet in scratch
// and are added in lane order, so reruns are bit-identical.
template <class ExecSpace, class Cfg, class T, class Acc, bool kUnit, bool kVec, class TY = T>
struct GemvDot {
  using policy_type =
      Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, GemvMinBlocks<Cfg>::value>>;
  using member_type = typename policy_type::member_type;
  static_assert(Cfg::vector_length == 1, "GemvDot uses team threads only");
  static_assert(!kVec || kUnit, "packets need unit stride");
  static constexpr int kThreads = Cfg::team_size;
  static constexpr int kLanes = Cfg::lanes;  // threads sharing one row's reduction
  static constexpr int kGroups = kThreads / kLanes;
  static constexpr int R = Cfg::row_block;  // rows a group reads at once
  static constexpr int BR = Cfg::rows;
  static constexpr int kPasses = BR / (kGroups * R);
  static constexpr int U = Cfg::unroll;
  static constexpr int VW = kVec ? Cfg::vec : 1;  // consecutive elements per lane access
  static constexpr int kLD = kLanes + 1;          // (BR, lanes) partials, padded against bank conflicts
  static_assert(kThreads % kLanes == 0 && BR % (kGroups * R) == 0, "rows, groups and row blocks must nest");

  Strided2D<const T> a;  // op(A): rows x cols, cols contiguous
  Strided1D<const T> x;
  Strided1D<TY> y;  // TY: T, or float for 16-bit inputs
  Acc alpha, beta;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return kLanes > 1 ? sizeof(Acc) * BR * kLD : 0;
  }

  KOKKOS_FORCEINLINE_FUNCTION const T* a_ptr(std::int64_t i, std::int64_t j) const {
    return kUnit ? a.data + i * a.rs + j : a.data + i * a.rs + j * a.cs;
  }
  KOKKOS_FORCEINLINE_FUNCTION Acc a_val(const T& v) const { return conj_if(static_cast<Acc>(v), a.conj); }

  // Lane l's partial sums of rows rb .. rb + kR - 1: column j = ((blk * U + u) * lanes + l) * VW + e,
  // coalesced across lanes; all kR * U packets of A and U of x are requested before the first is
  // used. With one lane (CPUs) the U * VW columns of a step are contiguous, which the compiler
  // vectorizes.
  template <int kR>
  KOKKOS_FORCEINLINE_FUNCTION void lane_sums(std::int64_t rb, int l, Acc* out) const {
    Acc part[kR][U];
    RIDGELINE_UNROLL
    for (int r = 0; r < kR; ++r) {
      RIDGELINE_UNROLL
      for (int u = 0; u < U; ++u) part[r][u] = Acc(0);
    }
    const std::int64_t ncols = a.cols, step = std::int64_t(kLanes) * U * VW;
    const std::int64_t steps = ncols / step, full = steps * step;
    std::int64_t j0 = 0;
    for (; j0 < full; j0 += step) {
      Packet<VW, T> px[U], pa[kR][U];
      RIDGELINE_UNROLL
      for (int u = 0; u < U; ++u) {
        const std::int64_t j = j0 + (std::int64_t(u) * kLanes + l) * VW;
        px[u] = load_packet<VW>(&x(j));
        RIDGELINE_UNROLL
        for (int r = 0; r < kR; ++r) pa[r][u] = load_packet<VW>(a_ptr(rb + r, j));
      }
      RIDGELINE_UNROLL
      for (int u = 0; u < U; ++u) {
        RIDGELINE_UNROLL
        for (int r = 0; r < kR; ++r) {
          RIDGELINE_UNROLL
          for (int e = 0; e < VW; ++e)
            fma_into(part[r][u], a_val(pa[r][u].v[e]), static_cast<Acc>(px[u].v[e]));
        }
      }
    }
    // The tail, fewer than one step: scalar, lanes interleaved.
    for (std::int64_t j = full + l; j < ncols; j += kLanes) {
      const Acc xj = static_cast<Acc>(x(j));
      RIDGELINE_UNROLL
      for (int r = 0; r < kR; ++r) fma_into(part[r][0], a_val(*a_ptr(rb + r, j)), xj);
    }
    // Pairwise, in a fixed order.
    RIDGELINE_UNROLL
    for (int r = 0; r < kR; ++r) {
      RIDGELINE_UNROLL
      for (int w = 1; w < U; w *= 2) {
        RIDGELINE_UNROLL
        for (int u = 0; u + w < U; u += 2 * w) part[r][u] += part[r][u + w];
      }
      out[r] = part[r][0];
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * BR;
    const int t = team.team_rank();
    const int l = t % kLanes, g = t / kLanes;
    Acc* red = nullptr;
    if constexpr (kLanes > 1)
      red = static_cast<Acc*>(team.team_scratch(static_cast<int>(Cfg::scratch_level))
                                  .get_shmem(scratch_bytes()));  // (BR,lanes+1)
    for (int p = 0; p < kPasses; ++p) {
      const int r0 = (p * kGroups + g) * R;  // the group's first row in the team's block
      const std::int64_t rb = i0 + r0;
      // A whole row block sums its rows together; past the last whole block, rows go one at a time, each
      // sum stored as soon as it is made. s is indexed only in the unrolled loop: a run-time index into it
      // (s + r, r < nr) put it in scratch memory under hipcc 5.2 (32-48 bytes per work-item for complex
      // types, issue 17).
      if (rb + R <= a.rows) {
        Acc s[R];
        lane_sums<R>(rb, l, s);
        RIDGELINE_UNROLL
        for (int r = 0; r < R; ++r) store_sum(r0 + r, rb + r, l, s[r], red);
      } else {
        for (int r = 0; r < R && rb + r < a.rows; ++r) {
          Acc s1;
          lane_sums<1>(rb + r, l, &s1);
          store_sum(r0 + r, rb + r, l, s1, red);
        }
      }
    }
    if constexpr (kLanes > 1) {
      team.team_barrier();
      for (int r = t; r < BR && i0 + r < a.rows; r += kThreads) {
        Acc s = red[r * kLD];
        for (int ll = 1; ll < kLanes; ++ll) s += red[r * kLD + ll];
        write(i0 + r, s);
      }
    }
  }

  // Row rt of the team's block (row i of y): lane l's sum, written out with one lane, else left in red.
  KOKKOS_FORCEINLINE_FUNCTION void store_sum(int rt, std::int64_t i, int l, Acc s, Acc* red) const {
    if constexpr (kLanes == 1) {
      (void)rt, (void)l, (void)red;
      write(i, s);
    } else {
      red[rt * kLD + l] = s;
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void write(std::int64_t i, Acc s) const {
    Acc v = alpha * s;
    if (beta != Acc(0)) v += beta * static_cast<Acc>(y(i));
    y(i) = static_cast<TY>(v);
  }
};

}  // namespace ridgeline::detail
