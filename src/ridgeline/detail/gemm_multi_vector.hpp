#pragma once
// Skinny-N GEMM as a multi-vector GEMV: C = alpha * op(A) * op(B) + beta * C for N of at most kNV
// columns, op(A) rows-contiguous. A tile kernel would stage 128 columns of op(B) for 2 to 16 useful
// ones and run at GEMM speed on a memory-bound product (16384 x 8 x 16384 fp32: 637 GB/s, 0.21 of
// cuBLAS). Here every element of A is read once, in 16-byte packets down a column, and multiplied by
// the N values of op(B)'s row k held in registers:
//
//   team (row block r, K slice s): rows [r * BR, (r + 1) * BR), K steps [s * chunk, (s + 1) * chunk)
//   thread: VW consecutive rows (one packet), VW x kNV accumulators; U columns of A in flight
//   op(B): KC of its rows at a time staged in team scratch, kNV values per row contiguous, so a thread
//     reads a row of op(B) in kNV * sizeof(Acc) / 16 vector loads from scratch, not kNV loads from
//     memory: with every B value loaded by every thread, 16 columns issued 16 global loads per
//     16-byte packet of A and ran at 1.6 TB/s (ncu: latency-bound, few warps)
//   K slices > 1: alpha * partial sums to the workspace, slice by slice, then split_k_reduce adds
//   them in slice order (bit-identical reruns); one slice: C written directly (beta == 0 never reads C)
//
// The slices supply the teams that the rows alone cannot (16384 rows are 32 teams of 512), as split-K
// does for GEMM; the plan picks them (plan_multi_vector_split in gemm_plan.hpp).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

// kNV: the most columns of C this instantiation serves (runtime N <= kNV). kVec: A's columns start
// on packet boundaries (unit row stride, aligned origin and leading dimension); otherwise scalars.
template <class ExecSpace, class Cfg, class T, class Acc, int kNV, bool kVec, class TC = T>
struct GemmMultiVector {
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, Cfg::min_blocks>>;
  using member_type = typename policy_type::member_type;
  static constexpr int VW = kVec ? Cfg::vec : 1;  // rows per thread: one packet
  // Columns of A in flight per thread: twice the entry's unroll at 16 columns of C, whose 64 accumulators
  // (fp32) leave registers for three teams per SM only, so each thread must keep more bytes in flight:
  // 16384 x 16 x 16384 in 0.542 ms against 0.689 with the entry's 4, while 8 columns doubled ran 0.416 ms
  // against 0.343 (perf/results/2026-12-01-h200-3fcc668/h200-2026-12-01-3fcc668-worktree-unroll-sweep.txt).
  static constexpr int U = kNV >= 16 ? 2 * Cfg::unroll : Cfg::unroll;
  static constexpr int BR = Cfg::team_size * VW;  // rows per team
  static constexpr int max_vectors = kNV;

  static constexpr int KC = Cfg::b_rows;  // rows of op(B) staged per pass
  static_assert(KC % U == 0, "the staged rows of op(B) are whole unroll steps");
  // A staged row of op(B) is read in 16-byte packets where it is whole packets long.
  static constexpr int PW = (kNV * sizeof(Acc)) % 16 == 0 ? int(16 / sizeof(Acc)) : 1;

  Strided2D<const T> a;  // op(A): M x K, rows contiguous
  Strided2D<const T> b;  // op(B): K x N, N <= kNV
  Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int row_blocks = 1, slices = 1;
  std::int64_t k_chunk = 0;
  Acc* work = nullptr;  // slices x M x N partials (element (m, n) of slice s at s * M * N + n * M + m)

  // The staged rows of op(B), and room to align them to 16 bytes.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() { return sizeof(Acc) * KC * kNV + 16; }

  KOKKOS_FORCEINLINE_FUNCTION Acc a_at(std::int64_t i, std::int64_t k) const {
    return static_cast<Acc>(a.data[i * a.rs + k * a.cs]);
  }

  // acc[e][j] += A(i + e, k + u) * Bs[kk + u][j] for u < kU: all kU packets of A are requested before the
  // first is used. whole: the packet lies inside A (else element by element, masked). Bs rows past the
  // product's N columns hold zeros.
  template <int kU>
  KOKKOS_FORCEINLINE_FUNCTION void mac_columns(Acc (&acc)[VW][kNV], std::int64_t i, std::int64_t k,
                                               const Acc* bs, bool whole) const {
    Acc av[kU][VW];
    if (whole) {
      if constexpr (VW > 1) {
        Packet<VW, T> p[kU];
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u) p[u] = load_packet<VW>(a.data + i + (k + u) * a.cs);
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u) {
          RIDGELINE_UNROLL
          for (int e = 0; e < VW; ++e) av[u][e] = static_cast<Acc>(p[u].v[e]);
        }
      } else {
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u) av[u][0] = a_at(i, k + u);
      }
    } else {
      RIDGELINE_UNROLL
      for (int u = 0; u < kU; ++u) {
        RIDGELINE_UNROLL
        for (int e = 0; e < VW; ++e) av[u][e] = i + e < a.rows ? a_at(i + e, k + u) : Acc(0);
      }
    }
    RIDGELINE_UNROLL
    for (int u = 0; u < kU; ++u) {
      Acc bv[kNV];
      RIDGELINE_UNROLL
      for (int q = 0; q < kNV / PW; ++q) {
        const Packet<PW, Acc> p = load_packet<PW>(bs + u * kNV + q * PW);
        RIDGELINE_UNROLL
        for (int w = 0; w < PW; ++w) bv[q * PW + w] = p.v[w];
      }
      RIDGELINE_UNROLL
      for (int j = 0; j < kNV; ++j) {
        RIDGELINE_UNROLL
        for (int e = 0; e < VW; ++e) acc[e][j] += av[u][e] * bv[j];
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int r = team.league_rank() % row_blocks, s = team.league_rank() / row_blocks;
    const std::int64_t i = std::int64_t(r) * BR + std::int64_t(team.team_rank()) * VW;
    // Threads past the last row still stage op(B) and meet at the barriers.
    const bool active = i < a.rows, whole = i + VW <= a.rows;
    const std::int64_t k0 = std::int64_t(s) * k_chunk;
    const std::int64_t k1 = slices > 1 && k0 + k_chunk < a.cols ? k0 + k_chunk : a.cols;
    const int nv = static_cast<int>(c.cols);
    Acc* bs =
        static_cast<Acc*>(team.team_scratch(0).get_shmem_aligned(scratch_bytes() - 16, 16));  // (KC, kNV)
    Acc acc[VW][kNV];
    RIDGELINE_UNROLL
    for (int e = 0; e < VW; ++e) {
      RIDGELINE_UNROLL
      for (int j = 0; j < kNV; ++j) acc[e][j] = Acc(0);
    }
    for (std::int64_t kc = k0; kc < k1; kc += KC) {
      const int depth = k1 - kc < KC ? static_cast<int>(k1 - kc) : KC;
      team.team_barrier();  // the previous rows of op(B) are used up
      // Consecutive threads take consecutive elements of op(B)'s contiguous index.
      for (int e = team.team_rank(); e < KC * kNV; e += Cfg::team_size) {
        const int kk = b.rs == 1 ? e % KC : e / kNV, j = b.rs == 1 ? e / KC : e % kNV;
        bs[kk * kNV + j] = kk < depth && j < nv ? static_cast<Acc>(b(kc + kk, j)) : Acc(0);
      }
      team.team_barrier();
      if (!active) continue;
      int kk = 0;
      for (; kk + U <= depth; kk += U) mac_columns<U>(acc, i, kc + kk, bs + kk * kNV, whole);
      for (; kk < depth; ++kk) mac_columns<1>(acc, i, kc + kk, bs + kk * kNV, whole);
    }
    if (!active) return;

    // Compile-time indices into acc (a run-time one would put it in local memory), and guards rather than
    // breaks: with a break in these loops hipcc 5.2 left acc in scratch memory (32-272 bytes per work-item).
    const std::int64_t mn = c.rows * c.cols;
    RIDGELINE_UNROLL
    for (int j = 0; j < kNV; ++j) {
      RIDGELINE_UNROLL
      for (int e = 0; e < VW; ++e) {
        const std::int64_t m = i + e;
        if (j >= nv || m >= c.rows) continue;
        if (slices > 1) {
          work[s * mn + j * c.rows + m] = alpha * acc[e][j];
        } else {
          Acc v = alpha * acc[e][j];
          if (beta != Acc(0)) v += beta * static_cast<Acc>(c(m, j));
          c(m, j) = static_cast<TC>(v);
        }
      }
    }
  }
};

// The kernel a multi-vector entry runs: its own, where it names one as a member template
// multi_vector_kernel<ExecSpace, T, Acc, kNV, kVec, TC> (a backend's, shaped for its hardware: the host's
// in backends/host/multi_vector_kernel.hpp), else GemmMultiVector above.
template <class ExecSpace, class Cfg, class T, class Acc, int kNV, bool kVec, class TC, class = void>
struct MultiVectorKernelOf {
  using type = GemmMultiVector<ExecSpace, Cfg, T, Acc, kNV, kVec, TC>;
};
template <class ExecSpace, class Cfg, class T, class Acc, int kNV, bool kVec, class TC>
struct MultiVectorKernelOf<
    ExecSpace, Cfg, T, Acc, kNV, kVec, TC,
    std::void_t<typename Cfg::template multi_vector_kernel<ExecSpace, T, Acc, kNV, kVec, TC>>> {
  using type = typename Cfg::template multi_vector_kernel<ExecSpace, T, Acc, kNV, kVec, TC>;
};

// How the entry's kernel reads its operands, for reports: an entry with its own kernel may say.
template <class Cfg, class = void>
struct MultiVectorStaging {
  static constexpr const char* name = "op(B) in scratch; A read once, in packets down its columns";
};
template <class Cfg>
struct MultiVectorStaging<Cfg, std::void_t<decltype(Cfg::staging_name)>> {
  static constexpr const char* name = Cfg::staging_name;
};

}  // namespace ridgeline::detail
