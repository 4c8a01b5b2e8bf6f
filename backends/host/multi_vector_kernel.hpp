#pragma once
// Host skinny-N GEMM: C = alpha * op(A) * op(B) + beta * C for N of at most kNV columns, op(A)
// rows-contiguous, every element of A read from memory once. The portable multi-vector kernel
// (detail/gemm_multi_vector.hpp) is shaped for a GPU: a thread per 16-byte packet of rows, and its
// 16 x 16 accumulators plus eight columns of A in flight spill on a CPU core; it ran 4096 x 16 x 4096
// fp32 at 0.07 of OpenBLAS (perf/results/2026-12-03-host-c4f3a69/). The tile entry stages 128 columns of
// op(B) for a few useful ones (0.09-0.23). Here a team is one thread and a block of rows:
//
//   team (row block r, K slice s): rows [r * BR, (r + 1) * BR), BR = kRV vectors of W rows
//   for each K block of KB columns of A (KB x BR elements: in L1 or L2 for the next column pass)
//     for each pass of kJB columns of C: kRV x kJB vector accumulators in registers, spilled to `held`
//       between K blocks; per k: kRV vector loads down column k of A, kJB broadcasts of op(B)(k, j)
//   K slices > 1: alpha * partial sums to the workspace, then split_k_reduce adds them in slice order
//
// The columns past N in the last pass read op(B)'s last column again (valid addresses, no branch in the
// k loop) and are dropped. Rows past the last whole block go element by element. The k loop keeps the
// sums in k order for every element, so reruns are bit-identical. Vector types are GCC/Clang's
// (micro_kernel.hpp's guard), and the table lists this kernel's entry only where they exist.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <cstring>
#include <ridgeline/backends/host/micro_kernel.hpp>
#include <ridgeline/detail/strided.hpp>
#include <type_traits>

namespace ridgeline::backends::host {

#if defined(RIDGELINE_HOST_VECTOR_MICRO_KERNEL)

// kNV: the most columns of C this instantiation serves (runtime N <= kNV). kVec is the dispatcher's
// packet test for GPU kernels; unaligned vector loads cost nothing extra here, so it is unused.
template <class ExecSpace, class Cfg, class T, class Acc, int kNV, bool kVec, class TC = T>
struct MultiVectorKernel {
  static_assert(std::is_same_v<T, Acc>, "vector loads of A need its type to be the accumulator's");
  using policy_type = Kokkos::TeamPolicy<ExecSpace>;
  using member_type = typename policy_type::member_type;
  static constexpr int W = Cfg::simd_bytes / int(sizeof(Acc));             // rows per vector
  static constexpr int kRV = Cfg::row_vectors;                             // vectors of rows per block
  static constexpr int kJB = kNV < Cfg::col_block ? kNV : Cfg::col_block;  // columns per pass
  static constexpr int kPasses = (kNV + kJB - 1) / kJB;
  static constexpr int KB = Cfg::k_block;
  static constexpr int BR = kRV * W;  // rows per team
  static constexpr int max_vectors = kNV;
  typedef Acc Vec __attribute__((vector_size(Cfg::simd_bytes)));

  detail::Strided2D<const T> a;  // op(A): M x K, rows contiguous (a.rs == 1)
  detail::Strided2D<const T> b;  // op(B): K x N, N <= kNV
  detail::Strided2D<TC> c;       // M x N
  Acc alpha, beta;
  int row_blocks = 1, slices = 1;
  std::int64_t k_chunk = 0;
  Acc* work = nullptr;  // slices x M x N partials (element (m, n) of slice s at s * M * N + n * M + m)

  static constexpr std::size_t scratch_bytes() { return 0; }

  static Vec load_vec(const T* p) { return host::load_vec<Vec>(p); }

  // One K block of a whole row block: held[p][r][j] += A(i0 + r W .., k) * op(B)(k, p kJB + j).
  void block_vectors(std::int64_t i0, std::int64_t k0, std::int64_t k1, int nv,
                     Vec (&held)[kPasses][kRV][kJB]) const {
    for (int p = 0; p < kPasses; ++p) {
      Vec acc[kRV][kJB];
      for (int r = 0; r < kRV; ++r)
        for (int j = 0; j < kJB; ++j) acc[r][j] = held[p][r][j];
      const T* bp[kJB];
      for (int j = 0; j < kJB; ++j) {
        const int col = p * kJB + j < nv ? p * kJB + j : nv - 1;
        bp[j] = b.data + col * b.cs;
      }
      const T* ap = a.data + i0 + k0 * a.cs;
      for (std::int64_t k = k0; k < k1; ++k, ap += a.cs) {
        Vec av[kRV];
        for (int r = 0; r < kRV; ++r) av[r] = load_vec(ap + r * W);
        for (int j = 0; j < kJB; ++j) {
          const Acc bj = bp[j][k * b.rs];
          for (int r = 0; r < kRV; ++r) acc[r][j] += av[r] * bj;
        }
      }
      for (int r = 0; r < kRV; ++r)
        for (int j = 0; j < kJB; ++j) held[p][r][j] = acc[r][j];
    }
  }

  void store(std::int64_t m, int j, Acc sum, int s) const {
    if (slices > 1) {
      work[s * c.rows * c.cols + j * c.rows + m] = alpha * sum;
    } else {
      Acc v = alpha * sum;
      if (beta != Acc(0)) v += beta * static_cast<Acc>(c(m, j));
      c(m, j) = static_cast<TC>(v);
    }
  }

  void operator()(const member_type& team) const {
    const int rb = team.league_rank() % row_blocks, s = team.league_rank() / row_blocks;
    const std::int64_t i0 = std::int64_t(rb) * BR;
    const std::int64_t k_begin = std::int64_t(s) * k_chunk;
    const std::int64_t k_end = slices > 1 && k_begin + k_chunk < a.cols ? k_begin + k_chunk : a.cols;
    const int nv = static_cast<int>(c.cols);
    if (a.rs == 1 && i0 + BR <= a.rows) {
      Vec held[kPasses][kRV][kJB];
      for (int p = 0; p < kPasses; ++p)
        for (int r = 0; r < kRV; ++r)
          for (int j = 0; j < kJB; ++j) held[p][r][j] = Vec{};
      for (std::int64_t k0 = k_begin; k0 < k_end; k0 += KB)
        block_vectors(i0, k0, k0 + KB < k_end ? k0 + KB : k_end, nv, held);
      for (int p = 0; p < kPasses; ++p)
        for (int j = 0; j < kJB && p * kJB + j < nv; ++j)
          for (int r = 0; r < kRV; ++r)
            for (int e = 0; e < W; ++e) store(i0 + r * W + e, p * kJB + j, held[p][r][j][e], s);
      return;
    }
    // The last, partial row block (or rows that are not contiguous): row by row, k in order as above.
    const std::int64_t m_end = i0 + BR < a.rows ? i0 + BR : a.rows;
    for (std::int64_t m = i0; m < m_end; ++m) {
      for (int j = 0; j < nv; ++j) {
        Acc sum(0);
        for (std::int64_t k = k_begin; k < k_end; ++k)
          sum +=
              static_cast<Acc>(a.data[m * a.rs + k * a.cs]) * static_cast<Acc>(b.data[k * b.rs + j * b.cs]);
        store(m, j, sum, s);
      }
    }
  }
};

#endif

}  // namespace ridgeline::backends::host
