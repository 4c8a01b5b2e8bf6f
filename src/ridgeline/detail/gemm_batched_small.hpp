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
// what matters is that every byte of A, B and C is read or written once, coalesced, with many bytes
// in flight. Where an operand's matrices are dense and back to back (strided-batched storage, either
// matrix layout), a team's matrices are one contiguous run: it is copied flat in 16-byte packets and
// staged as it is, and C likewise goes through scratch (in, where beta != 0, and out). Elsewhere the
// copy walks each operand along its unit-stride index (a matrix's rows or columns, or the batch
// index where the batch is interleaved) with consecutive threads on consecutive addresses, and the
// outputs are walked along C's unit-stride index for the same reason; those operands are staged with
// their lines padded to an odd length, so the threads of a warp that walk the other index read distinct
// banks (dense operands are staged unpadded: dense_stage says why). Several outputs per thread (kRN columns,
// team_product.hpp) share each A element, so that scratch reads do not bound the math.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/strided.hpp"
#include "ridgeline/detail/strided_batch.hpp"
#include "ridgeline/detail/team_product.hpp"

namespace ridgeline::detail {

// Division of 0 <= n < 2^31 by a divisor fixed at launch, as a multiply and a shift: the small path
// splits each output's flat index into (matrix, row, columns), and at these sizes an integer division
// (a ~20-instruction sequence on GPUs) is a visible share of the kernel's issue slots (ncu at 4 x 4 x
// 4 fp32: 75% of issue slots used,
// perf/results/2026-12-01-h200-d9bc831/h200-2026-12-01-d9bc831-batched-README.md). m = ceil(2^(32+l) / d)
// with 2^l >= d makes floor(n m / 2^(32+l)) exact for n < 2^31 (the error term n (m - 2^(32+l)/d) / 2^(32+l)
// stays below 1/(2d)).
struct ConstantDivisor {
  std::uint64_t mul = 1;
  int shift = 0;
  ConstantDivisor() = default;
  explicit ConstantDivisor(int d) {
    int l = 0;
    while ((std::int64_t(1) << l) < d) ++l;
    shift = 32 + l;
    mul = ((std::uint64_t(1) << shift) + std::uint64_t(d) - 1) / std::uint64_t(d);
  }
  KOKKOS_FORCEINLINE_FUNCTION int div(int n) const {
    return static_cast<int>((std::uint64_t(n) * mul) >> shift);
  }
};

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

// Whether x's matrices are dense (unit stride along one index, the other's stride its extent) and
// back to back (the batch stride one matrix), so that consecutive matrices are one contiguous run.
template <class T>
bool batch_dense(const StridedBatch<T>& x) {
  const bool rows_unit = x.rs == 1 || x.rows == 1, cols_unit = x.cs == 1 || x.cols == 1;
  const bool col_major = rows_unit && (x.cs == x.rows || x.cols == 1);
  const bool row_major = cols_unit && (x.rs == x.cols || x.rows == 1);
  return (col_major || row_major) && (x.bs == x.rows * x.cols || x.count <= 1);
}
// A dense operand is staged as it is in memory (element (r, c) at r * rs + c * cs), unpadded, so that
// a team's matrices are one flat run. Padding each matrix to an odd number of 16-byte packets, which
// removes the bank conflicts of threads that read one element of several matrices (four-way at 4 x 4
// fp32), needs a division per packet to copy, and ran slower: 1.78 against 2.41 TB/s at 4 x 4 x 4
// fp32, 1.73 against 2.11 at 16 x 16 x 16 fp64
// (perf/results/2026-12-01-h200-d9bc831/h200-2026-12-01-d9bc831-batched-README.md).
template <class T>
SmallStage dense_stage(const StridedBatch<T>& x) {
  return {x.rows > 1 ? static_cast<int>(x.rs) : 0, x.cols > 1 ? static_cast<int>(x.cs) : 0,
          static_cast<int>(x.rows * x.cols)};
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
  bool flat = false;                       // dense (batch_dense): one flat run per team, st = dense_stage
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
  if (batch_dense(x)) {
    w.flat = true;
    return w;
  }
  const int R = static_cast<int>(x.rows), C = static_cast<int>(x.cols);
  if (batch_interleaved(x) && per_team > 1) {
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
  static constexpr int kW = int(16 / sizeof(T));    // elements of A and B per 16-byte packet
  static constexpr int kWC = int(16 / sizeof(TC));  // of C

  StridedBatch<const T> a;  // op(A)_g: M x K
  StridedBatch<const T> b;  // op(B)_g: K x N
  StridedBatch<TC> c;       // C_g: M x N
  Acc alpha, beta;
  int per_team = 1;
  SmallStage sa, sb;
  SmallCopy ca, cb;
  bool c_batch_fast = false;      // walk the outputs batch index first (C interleaved)
  bool c_rows_fast = true;        // else along m (true) or n
  bool c_flat = false;            // C dense (batch_dense): staged in scratch, copied flat in and out
  ConstantDivisor div_m, div_nb;  // M and N / kRN, to split output indices

  // Scratch of a team: per_team staged matrices of each operand, and of C (c_elems each) where staged.
  static std::size_t scratch_bytes(int per_team, const SmallStage& sa, const SmallStage& sb,
                                   std::int64_t c_elems) {
    return sizeof(T) * (std::size_t(per_team) * sa.per + kW) +
           sizeof(T) * (std::size_t(per_team) * sb.per + kW) +
           sizeof(TC) * (std::size_t(per_team) * std::size_t(c_elems) + kWC);
  }

  // n elements from src to dst, both contiguous: 16-byte packets where both are aligned to them, kU
  // packets in flight per thread; element by element otherwise. The packet and element loops stay
  // written out: one template serving both (the same loads and stores) ran 4 x 4 x 4 fp32 batches at
  // 1.96 TB/s against 2.51, 16 x 16 x 16 fp32 at 1.62 against 1.77, for reasons not examined
  // (perf/results/2026-12-01-h200-da13d0e/h200-2026-12-01-da13d0e-mend-batched-README.md).
  template <class X>
  KOKKOS_FORCEINLINE_FUNCTION static void copy_flat(int t, const X* src, int n, X* dst) {
    constexpr int W = int(16 / sizeof(X));
    using P = Packet<W, X>;
    int done = 0;
    if (W > 1 && reinterpret_cast<std::uintptr_t>(src) % 16 == 0 &&
        reinterpret_cast<std::uintptr_t>(dst) % 16 == 0) {
      const int np = n / W;
      const P* ps = reinterpret_cast<const P*>(src);
      P* pd = reinterpret_cast<P*>(dst);
      for (int p = t; p < np; p += kU * kThreads) {
        P v[kU];
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u)
          if (p + u * kThreads < np) v[u] = ps[p + u * kThreads];
        RIDGELINE_UNROLL
        for (int u = 0; u < kU; ++u)
          if (p + u * kThreads < np) pd[p + u * kThreads] = v[u];
      }
      done = np * W;
    }
    for (int e = done + t; e < n; e += kU * kThreads) {
      X v[kU];
      RIDGELINE_UNROLL
      for (int u = 0; u < kU; ++u)
        if (e + u * kThreads < n) v[u] = src[e + u * kThreads];
      RIDGELINE_UNROLL
      for (int u = 0; u < kU; ++u)
        if (e + u * kThreads < n) dst[e + u * kThreads] = v[u];
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION static void copy(int t, const T* src, const SmallCopy& w, int team_matrices,
                                               int per, T* dst) {
    if (w.flat) return copy_flat(t, src, team_matrices * per, dst);
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

  // This kernel's scratch per team.
  std::size_t scratch_bytes() const { return scratch_bytes(per_team, sa, sb, c_flat ? c.rows * c.cols : 0); }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const { run(team, team.league_rank()); }

  // The team's matrices are [rank * per_team, rank * per_team + per_team) of the batch.
  KOKKOS_FORCEINLINE_FUNCTION void run(const member_type& team, int rank) const {
    const std::int64_t g0 = std::int64_t(rank) * per_team;
    const int G = static_cast<int>(c.count - g0 < per_team ? c.count - g0 : per_team);
    auto scratch = team.team_scratch(0);
    // per_team x op(A)_g in layout sa, then per_team x op(B)_g in layout sb
    T* As = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * std::size_t(per_team) * sa.per, 16));
    T* Bs = static_cast<T*>(scratch.get_shmem_aligned(sizeof(T) * std::size_t(per_team) * sb.per, 16));
    const int M = static_cast<int>(c.rows), N = static_cast<int>(c.cols), K = static_cast<int>(a.cols);
    // per_team x C_g as it is in memory, where C is staged
    TC* Cs = c_flat
                 ? static_cast<TC*>(scratch.get_shmem_aligned(sizeof(TC) * std::size_t(per_team) * M * N, 16))
                 : nullptr;
    const int t = team.team_rank();
    copy(t, a.data + g0 * a.bs, ca, G, sa.per, As);
    copy(t, b.data + g0 * b.bs, cb, G, sb.per, Bs);
    TC* c0 = c.data + g0 * c.bs;
    if (c_flat && beta != Acc(0)) copy_flat(t, static_cast<const TC*>(c0), G * M * N, Cs);
    team.team_barrier();

    const int NB = (N + kRN - 1) / kRN, work = G * M * NB;
    for (int w = t; w < work; w += kThreads) {
      int g, m, nb;
      if (c_batch_fast) {
        g = w % G;
        const int r = w / G;
        nb = div_m.div(r), m = r - nb * M;
      } else if (c_rows_fast) {
        const int r = div_m.div(w);
        m = w - r * M;
        g = div_nb.div(r), nb = r - g * NB;
      } else {
        const int r = div_nb.div(w);
        nb = w - r * NB;
        g = div_m.div(r), m = r - g * M;
      }
      // C_g(m, :) in scratch (matrices M * N apart, C's own strides) or in memory
      TC* cg = c_flat ? Cs + g * M * N + m * c.rs : c0 + g * c.bs + m * c.rs;
      row_run_product<kRN, Acc>(nb * kRN, N, K, As + g * sa.per + m * sa.dr, sa.dc, Bs + g * sb.per, sb.dr,
                                sb.dc, [&](int n, Acc acc) { store_scaled(cg[n * c.cs], acc, alpha, beta); });
    }
    if (c_flat) {
      team.team_barrier();
      copy_flat(t, static_cast<const TC*>(Cs), G * M * N, c0);
    }
  }
};

}  // namespace ridgeline::detail
