#pragma once
// The portable GEMV, y = alpha * op(A) * x + beta * y, as two team kernels. Which one runs depends
// on which index of op(A) is contiguous, so that both read A coalesced on GPUs and in unit stride on
// CPUs:
//   GemvRows  the output index i is contiguous ("N" on LayoutLeft): threads walk rows, groups of
//             threads split the columns, partial sums meet in scratch in a fixed order;
//   GemvDot   the reduction index j is contiguous ("T" on LayoutLeft): each output is a dot
//             product reduced across the vector lanes of one team thread.
// Both sum in a fixed order, so a rerun gives bit-identical results. kUnit says the contiguous
// stride is 1, which lets the compiler vectorize and the GPU coalesce without a stride multiply.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
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
template <class ExecSpace, class Cfg, class T, class Acc, bool kUnit, bool kVec>
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
  Strided1D<T> y;
  Acc alpha, beta;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return kGroups > 1 ? sizeof(Acc) * kGroups * BR : 0;
  }

  KOKKOS_FORCEINLINE_FUNCTION const T* a_ptr(std::int64_t i, std::int64_t j) const {
    return kUnit ? a.data + i + j * a.cs : a.data + i * a.rs + j * a.cs;
  }

  // acc[e] += A(i + e, j) * xj for the packet starting at row i; scalar and masked at the edge.
  KOKKOS_FORCEINLINE_FUNCTION void mac_packet(Acc* acc, std::int64_t i, std::int64_t j, Acc xj,
                                              bool whole) const {
    if (whole) {
      if constexpr (VW > 1) {
        const auto p = load_packet<VW>(a_ptr(i, j));
        RIDGELINE_UNROLL
        for (int e = 0; e < VW; ++e) acc[e] += static_cast<Acc>(p.v[e]) * xj;
      } else {
        acc[0] += static_cast<Acc>(*a_ptr(i, j)) * xj;
      }
    } else {
      for (int e = 0; e < VW; ++e)
        if (i + e < a.rows) acc[e] += static_cast<Acc>(*a_ptr(i + e, j)) * xj;
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
            for (int e = 0; e < VW; ++e) acc[q][e] += static_cast<Acc>(p[u].v[e]) * xs[u];
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
    y(i) = static_cast<T>(v);
  }
};

template <class ExecSpace, class Cfg, class T, class Acc, bool kUnit, bool kVec>
struct GemvDot {
  using policy_type = Kokkos::TeamPolicy<
      ExecSpace, Kokkos::LaunchBounds<Cfg::team_size * Cfg::vector_length, GemvMinBlocks<Cfg>::value>>;
  using member_type = typename policy_type::member_type;
  static_assert(!kVec || kUnit, "packets need unit stride");
  static constexpr int V = Cfg::vector_length;
  static constexpr int BR = Cfg::rows;
  static constexpr int U = Cfg::unroll;
  static constexpr int VW = kVec ? Cfg::vec : 1;  // consecutive elements per lane access

  Strided2D<const T> a;  // op(A): rows x cols, cols contiguous
  Strided1D<const T> x;
  Strided1D<T> y;
  Acc alpha, beta;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() { return 0; }

  KOKKOS_FORCEINLINE_FUNCTION const T& a_at(std::int64_t i, std::int64_t j) const {
    return kUnit ? a.data[i * a.rs + j] : a(i, j);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * BR;
    const std::int64_t left = a.rows - i0;
    const int nrows = left < BR ? static_cast<int>(left) : BR;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nrows), [&](int r) {
      const std::int64_t i = i0 + r;
      Acc sum = Acc(0);
      // Lane l reads j = ((blk * U + u) * V + l) * VW + e: coalesced across lanes, U packets in
      // flight per lane, and with V == 1 (CPUs) U contiguous elements the compiler vectorizes.
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, V),
          [&](int l, Acc& s) {
            Acc part[U];
            RIDGELINE_UNROLL
            for (int u = 0; u < U; ++u) part[u] = Acc(0);
            const std::int64_t ncols = a.cols, step = std::int64_t(V) * U * VW;
            std::int64_t j0 = 0;
            for (; j0 + step <= ncols; j0 += step) {
              // All U packets of A and x are requested before the first is used.
              Packet<VW, T> pa[U], px[U];
              RIDGELINE_UNROLL
              for (int u = 0; u < U; ++u) {
                const std::int64_t j = j0 + (std::int64_t(u) * V + l) * VW;
                pa[u] = load_packet<VW>(&a_at(i, j));
                px[u] = load_packet<VW>(&x(j));
              }
              RIDGELINE_UNROLL
              for (int u = 0; u < U; ++u) {
                RIDGELINE_UNROLL
                for (int e = 0; e < VW; ++e)
                  part[u] += static_cast<Acc>(pa[u].v[e]) * static_cast<Acc>(px[u].v[e]);
              }
            }
            // The tail, fewer than one step: scalar, lanes interleaved.
            for (std::int64_t j = j0 + l; j < ncols; j += V)
              part[0] += static_cast<Acc>(a_at(i, j)) * static_cast<Acc>(x(j));
            // Pairwise, in a fixed order.
            RIDGELINE_UNROLL
            for (int w = 1; w < U; w *= 2) {
              RIDGELINE_UNROLL
              for (int u = 0; u + w < U; u += 2 * w) part[u] += part[u + w];
            }
            s += part[0];
          },
          sum);
      Kokkos::single(Kokkos::PerThread(team), [&]() {
        Acc v = alpha * sum;
        if (beta != Acc(0)) v += beta * static_cast<Acc>(y(i));
        y(i) = static_cast<T>(v);
      });
    });
  }
};

}  // namespace ridgeline::detail
