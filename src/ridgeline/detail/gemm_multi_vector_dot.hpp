#pragma once
// Skinny-N GEMM with op(A) k-contiguous, as N dot products per row: C = alpha * op(A) * op(B) + beta * C
// for N of at most kNV columns where op(A)'s rows are its contiguous index ("T" on LayoutLeft). The
// rows-contiguous form (gemm_multi_vector.hpp) walks A down its columns; here a row of A is one run of
// memory, so a group of lanes splits each row's K, as GemvDot does for one vector, and every element of A
// is read once, in 16-byte packets along its row. A GEMM tile entry ran TN 16384 x 16 x 16384 fp32 at 747
// GB/s, 0.42 of cuBLAS (perf/results/2026-12-01-h200-fc91fe9/). Skinny M runs here too, transposed
// (C^T = op(B)^T op(A)^T, GemmPlan::transposed): 8 x 16384 x 16384 NN is a product of 16384 rows of B^T,
// k-contiguous, with 8 columns.
//
//   team (row block, K slice s): kGroups groups of kLanes threads, R rows of op(A) per group, K steps
//     [s * chunk, (s + 1) * chunk) of KC columns at a time
//   lane l of a group: at step u, the packet of VW columns starting at (u * kLanes + l) * VW of each of
//     the group's R rows (coalesced across lanes); R x kNV partial sums
//   op(B): the KC rows of the step staged in team scratch, arranged so that lane l's VW x kNV values
//     for step u are consecutive 16-byte packets beside lane l + 1's (no bank conflicts); a value of
//     op(B) serves R rows, so scratch carries 1/R of a value per multiply-add
//   the lanes' sums: through scratch, added in lane order by one thread per column (bit-identical
//     reruns); K slices > 1: alpha * sums to the workspace, then split_k_reduce in slice order
//
// On CPUs a group is one thread (kLanes = 1): it walks R rows of A in unit stride, which the compiler
// vectorizes, and the scratch layout becomes op(B)'s rows, kNV values each.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

// kNV: the most columns of C this instantiation serves (runtime N <= kNV). kVec: A's rows start on packet
// boundaries (unit column stride, aligned origin and row stride); otherwise scalars.
template <class ExecSpace, class Cfg, class T, class Acc, int kNV, bool kVec, class TC = T>
struct GemmMultiVectorDot {
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, Cfg::min_blocks>>;
  using member_type = typename policy_type::member_type;
  static constexpr int kLanes = Cfg::lanes;
  static constexpr int kGroups = Cfg::team_size / kLanes;
  static constexpr int R = Cfg::row_block;        // rows per group
  static constexpr int BR = kGroups * R;          // rows per team
  static constexpr int VW = kVec ? Cfg::vec : 1;  // columns per lane access: one packet
  // Steps whose loads are all in flight at once: half the entry's unroll at 16 columns, whose
  // accumulators leave no registers for two steps of A (fp32, 4 rows: 192 bytes spilled, and 32 lanes
  // ran TN 16384 x 16 x 16384 in 1.31 ms against 1.06 with one step;
  // perf/results/2026-12-03-h200-293c5de/h200-2026-12-03-293c5de-worktree-dot-sweep.txt).
  static constexpr int U = kNV >= 16 && Cfg::unroll > 1 ? Cfg::unroll / 2 : Cfg::unroll;
  static constexpr int kStep = kLanes * VW;  // columns of a group's step
  static constexpr int KC = Cfg::b_rows;     // rows of op(B) staged per pass
  static constexpr int max_vectors = kNV;
  static_assert(Cfg::team_size % kLanes == 0, "whole groups of lanes");
  static_assert(KC % (kLanes * Cfg::vec * U) == 0, "a staged pass is whole unrolled steps");
  // A lane's staged values of op(B) are read in 16-byte packets where kNV of them are whole packets.
  static constexpr int PW = (kNV * sizeof(Acc)) % 16 == 0 ? int(16 / sizeof(Acc)) : 1;
  static constexpr int kQ = kNV / PW;
  static constexpr int kLD = kLanes + 1;  // the lanes' sums, padded against bank conflicts

  Strided2D<const T> a;  // op(A): M x K, K contiguous
  Strided2D<const T> b;  // op(B): K x N, N <= kNV
  Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int row_blocks = 1, slices = 1;
  std::int64_t k_chunk = 0;
  Acc* work = nullptr;  // slices x M x N partials (element (m, n) of slice s at s * M * N + n * M + m)

  static constexpr std::size_t staged_bytes = sizeof(Acc) * KC * kNV;
  static constexpr std::size_t sums_bytes = kLanes > 1 ? sizeof(Acc) * (kGroups * kNV * kLD) : 0;
  // One buffer, the staged rows of op(B) during the K loop and the lanes' sums after it, and room to
  // align it to 16 bytes.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() {
    return (staged_bytes > sums_bytes ? staged_bytes : sums_bytes) + 16;
  }

  // Where op(B)'s value (kk, j) of a staged pass lives: kk = (u * kLanes + l) * VW + e.
  KOKKOS_FORCEINLINE_FUNCTION static int staged_at(int kk, int j) {
    const int kp = kk / VW, e = kk % VW, l = kp % kLanes, u = kp / kLanes;
    return (((u * VW + e) * kQ + j / PW) * kLanes + l) * PW + j % PW;
  }

  KOKKOS_FORCEINLINE_FUNCTION Acc a_at(std::int64_t i, std::int64_t k) const {
    return static_cast<Acc>(a.data[i * a.rs + k * a.cs]);
  }

  // acc[r][j] += A(rb + r, k) * B(k, j) for the kU steps from column kg of A (step s of the pass whose
  // staged rows start at bs) and lane l's columns of them. kFull: all R rows exist and every column of the
  // kU steps lies inside the pass (packet loads); otherwise rows past nr and columns past `left` (of the
  // pass, from this step) read as zeros. Staged rows of op(B) past the pass's depth hold zeros.
  template <int kU, bool kFull>
  KOKKOS_FORCEINLINE_FUNCTION void mac_steps(Acc (&acc)[R][kNV], std::int64_t rb, int nr, std::int64_t kg,
                                             int left, int s, int l, const Acc* bs) const {
    Acc av[kU][R][VW];
    if constexpr (kFull && VW > 1) {
      Packet<VW, T> p[kU][R];
      RIDGELINE_UNROLL
      for (int u = 0; u < kU; ++u) {
        RIDGELINE_UNROLL
        for (int r = 0; r < R; ++r)
          p[u][r] = load_packet<VW>(a.data + (rb + r) * a.rs + kg + std::int64_t(u * kLanes + l) * VW);
      }
      RIDGELINE_UNROLL
      for (int u = 0; u < kU; ++u) {
        RIDGELINE_UNROLL
        for (int r = 0; r < R; ++r) {
          RIDGELINE_UNROLL
          for (int e = 0; e < VW; ++e) av[u][r][e] = static_cast<Acc>(p[u][r].v[e]);
        }
      }
    } else {
      RIDGELINE_UNROLL
      for (int u = 0; u < kU; ++u) {
        RIDGELINE_UNROLL
        for (int r = 0; r < R; ++r) {
          RIDGELINE_UNROLL
          for (int e = 0; e < VW; ++e) {
            const int kk = (u * kLanes + l) * VW + e;
            av[u][r][e] = kFull || (r < nr && kk < left) ? a_at(rb + r, kg + kk) : Acc(0);
          }
        }
      }
    }
    RIDGELINE_UNROLL
    for (int u = 0; u < kU; ++u) {
      RIDGELINE_UNROLL
      for (int e = 0; e < VW; ++e) {
        Acc bv[kNV];
        RIDGELINE_UNROLL
        for (int q = 0; q < kQ; ++q) {
          const Packet<PW, Acc> p = load_packet<PW>(bs + ((((s + u) * VW + e) * kQ + q) * kLanes + l) * PW);
          RIDGELINE_UNROLL
          for (int w = 0; w < PW; ++w) bv[q * PW + w] = p.v[w];
        }
        RIDGELINE_UNROLL
        for (int r = 0; r < R; ++r) {
          RIDGELINE_UNROLL
          for (int j = 0; j < kNV; ++j) acc[r][j] += av[u][r][e] * bv[j];
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int blk = team.league_rank() % row_blocks, s = team.league_rank() / row_blocks;
    const int t = team.team_rank(), l = t % kLanes, g = t / kLanes;
    const std::int64_t rb = std::int64_t(blk) * BR + std::int64_t(g) * R;
    // Groups past the last row still stage op(B) and meet at the barriers.
    const int nr = rb >= a.rows ? 0 : a.rows - rb < R ? static_cast<int>(a.rows - rb) : R;
    const std::int64_t k0 = std::int64_t(s) * k_chunk;
    const std::int64_t k1 = slices > 1 && k0 + k_chunk < a.cols ? k0 + k_chunk : a.cols;
    const int nv = static_cast<int>(c.cols);
    Acc* bs =
        static_cast<Acc*>(team.team_scratch(0).get_shmem_aligned(scratch_bytes() - 16, 16));  // (KC, kNV)
    Acc acc[R][kNV];
    RIDGELINE_UNROLL
    for (int r = 0; r < R; ++r) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kNV; ++j) acc[r][j] = Acc(0);
    }
    for (std::int64_t kc = k0; kc < k1; kc += KC) {
      const int depth = k1 - kc < KC ? static_cast<int>(k1 - kc) : KC;
      team.team_barrier();  // the previous rows of op(B) are used up
      // Consecutive threads take consecutive elements of op(B)'s contiguous index.
      for (int e = t; e < KC * kNV; e += Cfg::team_size) {
        const int kk = b.rs == 1 ? e % KC : e / kNV, j = b.rs == 1 ? e / KC : e % kNV;
        bs[staged_at(kk, j)] = kk < depth && j < nv ? static_cast<Acc>(b(kc + kk, j)) : Acc(0);
      }
      team.team_barrier();
      if (nr == 0) continue;
      int st = 0;  // steps of kStep columns done in this pass
      if (nr == R)
        for (; (st + U) * kStep <= depth; st += U)
          mac_steps<U, true>(acc, rb, nr, kc + st * kStep, 0, st, l, bs);
      for (; st * kStep < depth; ++st)
        mac_steps<1, false>(acc, rb, nr, kc + st * kStep, depth - st * kStep, st, l, bs);
    }

    // Compile-time indices into acc (a run-time one would put it in local memory).
    const std::int64_t mn = c.rows * c.cols;
    const auto store = [&](int r, int j, Acc sum) {
      const std::int64_t m = rb + r;
      if (slices > 1) {
        work[s * mn + j * c.rows + m] = alpha * sum;
      } else {
        Acc v = alpha * sum;
        if (beta != Acc(0)) v += beta * static_cast<Acc>(c(m, j));
        c(m, j) = static_cast<TC>(v);
      }
    };
    if constexpr (kLanes == 1) {
      RIDGELINE_UNROLL
      for (int r = 0; r < R; ++r) {
        if (r >= nr) break;
        RIDGELINE_UNROLL
        for (int j = 0; j < kNV; ++j) {
          if (j >= nv) break;
          store(r, j, acc[r][j]);
        }
      }
    } else {
      Acc* sums = bs;  // (kGroups, kNV, kLanes + 1)
      RIDGELINE_UNROLL
      for (int r = 0; r < R; ++r) {
        team.team_barrier();  // the staged rows, or the previous row's sums, are used up
        RIDGELINE_UNROLL
        for (int j = 0; j < kNV; ++j) sums[(g * kNV + j) * kLD + l] = acc[r][j];
        team.team_barrier();
        if (r < nr) {
          for (int j = l; j < nv; j += kLanes) {
            const Acc* p = sums + (g * kNV + j) * kLD;
            Acc sum = p[0];
            for (int ll = 1; ll < kLanes; ++ll) sum += p[ll];
            store(r, j, sum);
          }
        }
      }
    }
  }
};

}  // namespace ridgeline::detail
