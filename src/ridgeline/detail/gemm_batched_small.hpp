#pragma once
// Batched products of small matrices (the table's gemm_batched_small entry): one team multiplies
// `per_team` consecutive matrices of the batch together.
//
//   league rank -> matrices [g0, g0 + per_team)
//   op(A)_g and op(B)_g of all of them -> team scratch     (one team-wide copy per operand, along
//                                                           whichever of rows, columns and batch is
//                                                           unit-stride in memory)
//   barrier
//   every thread: outputs (g, m, n .. n + kRN - 1), K FMAs each, from scratch
//   C_g(m, n) = alpha * acc (+ beta * C_g(m, n)), masked at N; beta == 0 never reads C
//
// Products up to 16 x 16 x 16 do 2 K flops per element moved, too few for a team tile to pay off
// (a 64 x 64 tile would be 94% empty, and its K loop one step deep). They are bound by memory, so
// what matters is that every byte of A, B and C is read or written once, coalesced: the copy walks
// each operand along its unit-stride index (a matrix's rows or columns, or the batch index where the
// batch is interleaved) with consecutive threads on consecutive addresses, and the outputs are
// walked along C's unit-stride index for the same reason. The scratch holds each operand matrix
// with its lines padded to an odd length, so the threads of a warp that walk the other index read
// distinct banks. Several outputs per thread (kRN columns, team_product.hpp) share each A element, so
// that scratch reads do not bound the math.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/strided_batch.hpp"
#include "ridgeline/detail/team_product.hpp"

namespace ridgeline::detail {

// Where element (r, c) of staged matrix g sits in scratch: g * per + r * dr + c * dc.
struct SmallStage {
  int dr = 0, dc = 0, per = 0;
};
// Lines along the fast index (rows where rows_fast), padded to an odd length; an odd matrix size too,
// for copies that walk the batch index.
inline SmallStage small_stage(std::int64_t rows, std::int64_t cols, bool rows_fast) {
  const int f = static_cast<int>(rows_fast ? rows : cols), s = static_cast<int>(rows_fast ? cols : rows);
  const int ld = f | 1;
  const int per = (ld * s) | 1;
  return rows_fast ? SmallStage{1, ld, per} : SmallStage{ld, 1, per};
}

// How a team copies one operand: lanes walk the unit-stride axis (extent fast_ext, source stride
// s_f, scratch stride d_f), and each thread's lines enumerate the two other axes (s1 outer extent
// ext1; s2 the other). The batch axis is the fast one or s2; its extent is the team's matrices.
struct SmallCopy {
  std::int64_t s_f = 0, s_1 = 0, s_2 = 0;  // source strides
  int d_f = 0, d_1 = 0, d_2 = 0;           // scratch strides
  int fast_ext = 0, ext1 = 0, ext2 = 0;    // extents; the batch axis's is per team (batch_fast / !)
  bool batch_fast = false;                 // the batch index is the unit-stride one
  int lanes_log2 = 0;                      // lanes per line: a power of two, at most the team size
};

inline int ceil_log2(int v) {
  int l = 0;
  while ((1 << l) < v) ++l;
  return l;
}

// The copy of x's matrices into stage st, for teams of `threads` threads holding per_team matrices.
template <class T>
SmallCopy small_copy(const StridedBatch<const T>& x, const SmallStage& st, int per_team, int threads) {
  SmallCopy w;
  const bool rows_unit = x.rs == 1 || x.rows == 1, cols_unit = x.cs == 1 || x.cols == 1;
  const int R = static_cast<int>(x.rows), C = static_cast<int>(x.cols);
  if (x.bs == 1 && !(rows_unit && x.rows > 1) && !(cols_unit && x.cols > 1) && per_team > 1) {
    // Interleaved: matrix g's elements are next to matrix g + 1's.
    w = {x.bs, x.rs, x.cs, st.per, st.dr, st.dc, per_team, R, C, true, 0};
  } else if (x.rows > 1 && (x.rs <= x.cs || x.cols == 1)) {
    w = {x.rs, x.cs, x.bs, st.dr, st.dc, st.per, R, C, per_team, false, 0};
  } else {
    w = {x.cs, x.rs, x.bs, st.dc, st.dr, st.per, C, R, per_team, false, 0};
  }
  const int fast = w.batch_fast ? per_team : w.fast_ext;
  w.lanes_log2 = ceil_log2(fast < threads ? fast : threads);
  return w;
}

template <class ExecSpace, class Cfg, class T, class TC, class Acc>
struct GemmBatchedSmall {
  using policy_type = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<Cfg::team_size, Cfg::min_blocks>>;
  using member_type = typename policy_type::member_type;
  using config = Cfg;
  static constexpr int kThreads = Cfg::team_size;
  static constexpr int kRN = Cfg::cols_per_thread;  // outputs per thread, along n
  static constexpr int kU = 4;                      // loads a thread has in flight while copying

  StridedBatch<const T> a;  // op(A)_g: M x K
  StridedBatch<const T> b;  // op(B)_g: K x N
  StridedBatch<TC> c;       // C_g: M x N
  Acc alpha, beta;
  int per_team = 1;
  SmallStage sa, sb;
  SmallCopy ca, cb;
  bool c_batch_fast = false;  // walk the outputs batch index first (C interleaved)
  bool c_rows_fast = true;    // else along m (true) or n

  // Scratch of a team: per_team staged matrices of each operand.
  static std::size_t scratch_bytes(int per_team, const SmallStage& sa, const SmallStage& sb) {
    return sizeof(T) * (std::size_t(per_team) * sa.per + 16 / sizeof(T)) +
           sizeof(T) * (std::size_t(per_team) * sb.per + 16 / sizeof(T));
  }

  KOKKOS_FORCEINLINE_FUNCTION static void copy(int t, const T* src, const SmallCopy& w, int team_matrices,
                                               T* dst) {
    const int fast = w.batch_fast ? team_matrices : w.fast_ext;
    const int e1 = w.ext1, e2 = w.batch_fast ? w.ext2 : team_matrices;
    const int lanes = 1 << w.lanes_log2, lines = e1 * e2, step = kThreads >> w.lanes_log2;
    const int lane = t & (lanes - 1), line0 = t >> w.lanes_log2;
    for (int f = lane; f < fast; f += lanes) {
      const T* sf = src + f * w.s_f;
      T* df = dst + f * w.d_f;
      for (int l = line0; l < lines; l += kU * step) {
        T v[kU];
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u) {
          const int lu = l + u * step;
          if (lu < lines) {
            const int i2 = lu / e1, i1 = lu - i2 * e1;
            v[u] = sf[i1 * w.s_1 + i2 * w.s_2];
          }
        }
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u) {
          const int lu = l + u * step;
          if (lu < lines) {
            const int i2 = lu / e1, i1 = lu - i2 * e1;
            df[i1 * w.d_1 + i2 * w.d_2] = v[u];
          }
        }
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t g0 = std::int64_t(team.league_rank()) * per_team;
    const int G = static_cast<int>(c.count - g0 < per_team ? c.count - g0 : per_team);
    auto scratch = team.team_scratch(0);
    // per_team x op(A)_g in layout sa, then per_team x op(B)_g in layout sb
    T* As = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * std::size_t(per_team) * sa.per, 16));
    T* Bs = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * std::size_t(per_team) * sb.per, 16));
    const int t = team.team_rank();
    copy(t, a.data + g0 * a.bs, ca, G, As);
    copy(t, b.data + g0 * b.bs, cb, G, Bs);
    team.team_barrier();

    const int M = static_cast<int>(c.rows), N = static_cast<int>(c.cols), K = static_cast<int>(a.cols);
    const int NB = (N + kRN - 1) / kRN, work = G * M * NB;
    for (int w = t; w < work; w += kThreads) {
      int g, m, nb;
      if (c_batch_fast) {
        g = w % G;
        const int r = w / G;
        m = r % M, nb = r / M;
      } else if (c_rows_fast) {
        m = w % M;
        const int r = w / M;
        nb = r % NB, g = r / NB;
      } else {
        nb = w % NB;
        const int r = w / NB;
        m = r % M, g = r / M;
      }
      TC* cg = c.data + (g0 + g) * c.bs + m * c.rs;
      row_run_product<kRN, Acc>(nb * kRN, N, K, As + g * sa.per + m * sa.dr, sa.dc, Bs + g * sb.per, sb.dr,
                                sb.dc, [&](int n, Acc acc) { store_scaled(cg[n * c.cs], acc, alpha, beta); });
    }
  }
};

}  // namespace ridgeline::detail
