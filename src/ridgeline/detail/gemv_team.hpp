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

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

template <class ExecSpace, class Cfg, class T, class Acc, bool kUnit>
struct GemvRows {
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, 1>>;
  using member_type = typename policy_type::member_type;
  static_assert(Cfg::vector_length == 1, "GemvRows uses team threads only");
  static constexpr int kThreads = Cfg::team_size;
  static constexpr int BR = Cfg::rows;
  static constexpr int kLanes = BR < kThreads ? BR : kThreads;  // threads along rows
  static constexpr int kRowsPerThread = BR / kLanes;
  static constexpr int kGroups = kThreads / kLanes;  // thread groups splitting the columns
  static constexpr int U = Cfg::unroll;
  static_assert(BR % kLanes == 0 && kThreads % kLanes == 0, "rows and team size must nest");

  Strided2D<const T> a;  // op(A): rows x cols, rows contiguous
  Strided1D<const T> x;
  Strided1D<T> y;
  Acc alpha, beta;

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() { return kGroups > 1 ? sizeof(Acc) * kGroups * BR : 0; }

  KOKKOS_FORCEINLINE_FUNCTION const T& a_at(std::int64_t i, std::int64_t j) const {
    return kUnit ? a.data[i + j * a.cs] : a(i, j);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t i0 = std::int64_t(team.league_rank()) * BR;
    const int t = team.team_rank();
    const int lane = t % kLanes, g = t / kLanes;
    const bool full = i0 + BR <= a.rows;
    Acc acc[kRowsPerThread];
    RIDGELINE_UNROLL
    for (int q = 0; q < kRowsPerThread; ++q) acc[q] = Acc(0);

    // Column j = g + kGroups * (u + U * blk): U independent columns per pass keep U loads in flight.
    const std::int64_t ncols = a.cols, step = std::int64_t(kGroups) * U;
    std::int64_t j0 = g;
    for (; j0 + step - kGroups < ncols; j0 += step) {
      Acc xs[U];
      RIDGELINE_UNROLL
      for (int u = 0; u < U; ++u) xs[u] = static_cast<Acc>(x(j0 + std::int64_t(u) * kGroups));
      for (int q = 0; q < kRowsPerThread; ++q) {
        const std::int64_t i = i0 + lane + std::int64_t(q) * kLanes;
        if (full || i < a.rows) {
          Acc s = acc[q];
          RIDGELINE_UNROLL
          for (int u = 0; u < U; ++u) s += static_cast<Acc>(a_at(i, j0 + std::int64_t(u) * kGroups)) * xs[u];
          acc[q] = s;
        }
      }
    }
    for (; j0 < ncols; j0 += kGroups) {
      const Acc xj = static_cast<Acc>(x(j0));
      for (int q = 0; q < kRowsPerThread; ++q) {
        const std::int64_t i = i0 + lane + std::int64_t(q) * kLanes;
        if (full || i < a.rows) acc[q] += static_cast<Acc>(a_at(i, j0)) * xj;
      }
    }

    if constexpr (kGroups == 1) {
      for (int q = 0; q < kRowsPerThread; ++q) write(i0 + lane + std::int64_t(q) * kLanes, acc[q]);
    } else {
      Acc* red = static_cast<Acc*>(team.team_scratch(static_cast<int>(Cfg::scratch_level)).get_shmem(scratch_bytes()));  // (G,BR)
      for (int q = 0; q < kRowsPerThread; ++q) red[g * BR + lane + q * kLanes] = acc[q];
      team.team_barrier();
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

template <class ExecSpace, class Cfg, class T, class Acc, bool kUnit>
struct GemvDot {
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size * Cfg::vector_length, 1>>;
  using member_type = typename policy_type::member_type;
  static constexpr int V = Cfg::vector_length;
  static constexpr int BR = Cfg::rows;
  static constexpr int U = Cfg::unroll;

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
      // Lane l reads j = (blk * U + u) * V + l: coalesced across lanes, U loads in flight per lane,
      // and with V == 1 (CPUs) U contiguous elements the compiler turns into one vector FMA.
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, V),
          [&](int l, Acc& s) {
            Acc part[U];
            RIDGELINE_UNROLL
            for (int u = 0; u < U; ++u) part[u] = Acc(0);
            const std::int64_t ncols = a.cols, step = std::int64_t(V) * U;
            std::int64_t j0 = 0;
            for (; j0 + step <= ncols; j0 += step) {
              RIDGELINE_UNROLL
              for (int u = 0; u < U; ++u) {
                const std::int64_t j = j0 + std::int64_t(u) * V + l;
                part[u] += static_cast<Acc>(a_at(i, j)) * static_cast<Acc>(x(j));
              }
            }
            RIDGELINE_UNROLL
            for (int u = 0; u < U; ++u) {
              const std::int64_t j = j0 + std::int64_t(u) * V + l;
              if (j < ncols) part[u] += static_cast<Acc>(a_at(i, j)) * static_cast<Acc>(x(j));
            }
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
