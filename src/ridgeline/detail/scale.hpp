#pragma once
// C = beta * C and y = beta * y, for the cases where the product vanishes (K == 0, alpha == 0).
// beta == 0 writes zeros without reading, as BLAS does.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

// v = beta * v, rounded once to T; beta == 0 writes zero without reading v. Every path that only
// scales (here, scale_batch, team_gemm, team_gemv) goes through it.
template <class T, class S>
KOKKOS_FORCEINLINE_FUNCTION void scale_in_place(T& v, S beta) {
  v = beta == S(0) ? T(0) : static_cast<T>(beta * static_cast<S>(v));
}

// S: the scalar type (T, or float for 16-bit T, which is scaled in float and rounded once).
template <class ExecSpace, class T, class S>
void scale_matrix(const ExecSpace& exec, Strided2D<T> c, S beta) {
  const std::int64_t n = c.rows * c.cols;
  if (n == 0) return;
  // Walk the contiguous index fastest.
  const bool rows_fast = rows_contiguous(c);
  Kokkos::parallel_for(
      "ridgeline::scale_matrix", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t e) {
        const std::int64_t i = rows_fast ? e % c.rows : e / c.cols;
        const std::int64_t j = rows_fast ? e / c.rows : e % c.cols;
        scale_in_place(c(i, j), beta);
      });
}

template <class ExecSpace, class T, class S>
void scale_vector(const ExecSpace& exec, Strided1D<T> y, S beta) {
  if (y.n == 0) return;
  Kokkos::parallel_for(
      "ridgeline::scale_vector",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, y.n),
      KOKKOS_LAMBDA(std::int64_t i) { scale_in_place(y(i), beta); });
}

}  // namespace ridgeline::detail
