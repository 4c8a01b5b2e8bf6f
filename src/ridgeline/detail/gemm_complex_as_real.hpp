#pragma once
// A complex product as one real product (the 4M method, in a single GEMM), so that complex GEMM runs on
// whatever the real table runs fastest: the FP64 tensor cores for complex<double> on CUDA, which no
// complex micro-kernel reaches.
//
// A column-major complex matrix read as reals is twice as tall: row 2i holds the real parts of row i,
// row 2i + 1 the imaginary parts. With C and op(B) read so (Cr, 2M x N; Br, 2K x N), C = op(A) op(B) is
// the real product Cr = Ax Br, where Ax (2M x 2K) replaces each element z of op(A) by the 2 x 2 block
// [[re z, -im z], [im z, re z]]: (re a re b - im a im b, im a re b + re a im b) is row 2i and row 2i + 1.
// The real product does 4MNK multiply-adds, as many as the complex one; what it adds is Ax, written
// once per call (2 MK elements from MK), against MNK work.
//
// Ax is written in whichever orientation op(A) is contiguous in, so that the expansion reads and writes
// whole lines: rows contiguous, column 2k of Ax is column k of op(A) as complex numbers and column
// 2k + 1 is i times it; K contiguous, row 2i is conj(row i) and row 2i + 1 is i conj(row i), as complex
// numbers. alpha and op(A)'s conjugation are applied while expanding.
//
// C must have a unit stride along one index. Rows contiguous: the product above. Columns contiguous
// (row-major C): the transposed product C^T = op(B)^T op(A)^T, whose C^T is rows contiguous. The operand
// read as reals (op(B), or op(A)^T) is used in place where K is its contiguous index and it is not
// conjugated; otherwise it is copied K-contiguous, conjugated in the copy. A product whose Ax (and
// copy) would pass the table's byte limit runs in K chunks, C accumulating (beta on the first).
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

#include "ridgeline/detail/complex.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

// A table's terms for running a complex type as real (complex_as_real<T> in backends/<name>/): from
// which M, N and K on (all three; 0: never), and the most workspace bytes the expansion may hold.
struct ComplexAsRealTerms {
  std::int64_t min_extent = 0;
  std::size_t max_bytes = 0;
};

// What a complex product runs as (pure data; plan_complex_as_real).
struct ComplexAsRealPlan {
  bool applies = false;      // false: the complex entries of the table
  bool transposed = false;   // C is row-major: the product run is C^T = op(B)^T op(A)^T
  bool copy_b = false;       // the operand read as reals is first copied K-contiguous (and conjugated)
  std::int64_t k_chunk = 0;  // K per expansion (K itself when Ax fits the byte limit)
  std::size_t bytes = 0;     // workspace it holds: Ax of one chunk, and the copy
};

constexpr std::int64_t even_up(std::int64_t x) {
  return (x + 1) / 2 * 2;
}

// Elements (complex) of Ax for an m x kc block of the expanded operand, whose lines are padded to an even
// number of elements (16-byte packets for complex<float>).
inline std::int64_t expanded_size(std::int64_t m, std::int64_t kc, bool rows_fast) {
  return rows_fast ? 2 * even_up(m) * kc : 2 * m * even_up(kc);
}
// Elements (complex) of the K-contiguous copy of a kc x n operand.
inline std::int64_t real_copy_size(std::int64_t kc, std::int64_t n) {
  return n * even_up(kc);
}

// The product a plan runs, in its orientation: x is expanded (op(A), or op(B)^T), y read as reals (op(B),
// or op(A)^T), c is C (or C^T); x_rows: x is expanded column by column (rows contiguous), else row by row.
// Taken from the whole operands, once: a K chunk of one column would count as rows-contiguous.
template <class Z>
struct ComplexAsRealOperands {
  Strided2D<const Z> x, y;
  Strided2D<Z> c;
  bool x_rows = true;
};
template <class Z>
ComplexAsRealOperands<Z> oriented_operands(bool transposed, const Strided2D<const Z>& a,
                                           const Strided2D<const Z>& b, const Strided2D<Z>& c) {
  ComplexAsRealOperands<Z> o;
  o.x = transposed ? transpose_of(b) : a;
  o.y = transposed ? transpose_of(a) : b;
  o.c = transposed ? transpose_of(c) : c;
  o.x_rows = rows_contiguous(o.x);
  return o;
}
// Line length (complex elements) of the expanded x for K chunks of kc (expanded_size's lines).
template <class Z>
std::int64_t expanded_lead(const ComplexAsRealOperands<Z>& o, std::int64_t kc) {
  return o.x_rows ? even_up(o.x.rows) : even_up(kc);
}

// The plan for C = alpha * op(A) * op(B) + beta * C (M, N, K > 0) with C's strides c_rs, c_cs, under a
// table's terms. Pure: strides and extents only.
template <class Z>
ComplexAsRealPlan plan_complex_as_real(const Strided2D<const Z>& a, const Strided2D<const Z>& b,
                                       std::int64_t c_rs, std::int64_t c_cs,
                                       const ComplexAsRealTerms& terms) {
  ComplexAsRealPlan p;
  const std::int64_t lim = terms.min_extent;
  if (lim <= 0 || a.rows < lim || b.cols < lim || a.cols < lim) return p;
  if (c_rs != 1 && c_cs != 1) return p;  // no unit stride in C: no real view of it
  p.transposed = c_rs != 1;
  const ComplexAsRealOperands<Z> o =
      oriented_operands(p.transposed, a, b, Strided2D<Z>{nullptr, a.rows, b.cols, c_rs, c_cs});
  p.copy_b = !(o.y.rs == 1 && !o.y.conj);
  const std::int64_t m = o.x.rows, n = o.y.cols, k = o.x.cols;
  const bool x_rows = o.x_rows;
  const auto bytes = [&](std::int64_t kc) {
    return sizeof(Z) * std::size_t(expanded_size(m, kc, x_rows) + (p.copy_b ? real_copy_size(kc, n) : 0));
  };
  std::int64_t kc = k;
  if (bytes(kc) > terms.max_bytes) {
    // The fewest chunks that fit the limit, of equal depth rounded up to a multiple of 64 (the real
    // tables' K steps divide it): 8192^3 complex<double> under 1 GiB ran chunks of 4032, 4032 and 128,
    // the last a thin product at a fraction of the rate (90.9 ms against 86.6 in one chunk; the tile
    // sweep of perf/results/2026-12-02-h200-8423c69/).
    const std::size_t per_k = sizeof(Z) * std::size_t(2 * (m + 1) + (p.copy_b ? n + 1 : 0));
    const std::int64_t most = std::int64_t(terms.max_bytes / per_k) / 64 * 64;
    if (most < 64) return ComplexAsRealPlan{};  // chunks too thin to pay for C's extra passes
    const std::int64_t chunks = (k + most - 1) / most;
    kc = ((k + chunks - 1) / chunks + 63) / 64 * 64;
    while (kc > 64 && bytes(kc) > terms.max_bytes) kc -= 64;
    if (bytes(kc) > terms.max_bytes) return ComplexAsRealPlan{};
  }
  p.k_chunk = kc;
  p.bytes = bytes(kc);
  p.applies = true;
  return p;
}

// The expanded operand of an m x kc block in d (lines of ld complex elements) as a 2m x 2kc real matrix.
template <class R>
Strided2D<const R> expanded_view(const R* d, std::int64_t m, std::int64_t kc, bool rows_fast,
                                 std::int64_t ld) {
  return rows_fast ? Strided2D<const R>{d, 2 * m, 2 * kc, 1, 2 * ld}
                   : Strided2D<const R>{d, 2 * m, 2 * kc, 2 * ld, 1};
}

// Writes the expanded operand of alpha * x (x: m x kc, conjugated where x.conj) into d, lines of ld
// elements, columns of x as lines where rows_fast (else rows; see the top of this file); returns it as a
// 2m x 2kc real matrix. A team per line of x, its threads along the line. rows_fast is the whole
// operand's orientation, not the chunk's: a chunk of one column would count as rows-contiguous.
template <class ExecSpace, class Z>
Strided2D<const typename Z::value_type> expand_complex(const ExecSpace& exec, const Strided2D<const Z>& x,
                                                       bool rows_fast, Z alpha, Z* d, std::int64_t ld) {
  using R = typename Z::value_type;
  const std::int64_t F = rows_fast ? x.rows : x.cols, S = rows_fast ? x.cols : x.rows;
  require_int_range(S, "lines of the expanded complex operand", "gemm");
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  // alpha conj(v) is conj(conj(alpha) v): the conjugations (exact) go around one product whose operands
  // are only loaded, and the last one is a multiply by a run-time sign rather than a branch, so that the
  // compiler has one product to compile and 'C' and 'T' of the conjugated matrix expand to the same bits.
  // With alpha times a negated load (and with a branch on the sign), GCC fused different terms of the
  // product in the two cases on Kokkos::Serial: ComplexGemm.ConjTransposeIsTransposeOfConjugate differed by
  // up to 70 ulps.
  const Z a = x.conj ? Z(alpha.real(), -alpha.imag()) : alpha;
  // conjugate the product where exactly one of op(A)'s conjugation and the row expansion asks for it
  const R sign = x.conj != !rows_fast ? R(-1) : R(1);
  Kokkos::parallel_for(
      "ridgeline::gemm complex as real: expand", Policy(exec, static_cast<int>(S), Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const std::int64_t s = team.league_rank();
        Z* even = d + 2 * s * ld;  // line 2s, then line 2s + 1
        Z* odd = even + ld;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, F), [&](const std::int64_t f) {
          Z z = a * (rows_fast ? x(f, s) : x(s, f));
          z = Z(z.real(), sign * z.imag());
          even[f] = z;                      // column 2k: alpha op(A); row 2i: its conjugate
          odd[f] = Z(-z.imag(), z.real());  // i times it
        });
      });
  return expanded_view(reinterpret_cast<const R*>(d), x.rows, x.cols, rows_fast, ld);
}

// y (kc x n, K-contiguous: y.rs == 1) as the 2kc x n real matrix of its parts.
template <class Z>
Strided2D<const typename Z::value_type> real_view(const Strided2D<const Z>& y) {
  using R = typename Z::value_type;
  return {reinterpret_cast<const R*>(y.data), 2 * y.rows, y.cols, 1, 2 * y.cs};
}

}  // namespace ridgeline::detail
