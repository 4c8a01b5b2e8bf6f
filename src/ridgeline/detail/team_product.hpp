#pragma once
// The thread-level piece of the small-matrix products (gemm_batched's small path, team_gemm): one
// thread's run of kRN outputs of one row of C = alpha * op(A) * op(B) + beta * C, its K sum in the
// accumulator type. The operands are wherever the caller has them (team scratch, global memory): a
// pointer and the strides of op(A) (m, k) and op(B) (k, n). kRN outputs share each element of op(A),
// so that a thread issues 1 + kRN loads per kRN FMAs rather than two per FMA; threads of a warp that
// walk m read op(B) at one address (a broadcast).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ridgeline/detail/compat.hpp"

namespace ridgeline::detail {

// Outputs (m, n0 .. n0 + kRN - 1), those below N: store(n, acc) with acc = sum_k op(A)(m, k) op(B)(k, n).
// a points at op(A)(m, 0), b at op(B)(0, 0). I: the index type of the strides (int in scratch).
template <int kRN, class Acc, class I, class T, class Store>
KOKKOS_FORCEINLINE_FUNCTION void row_run_product(int n0, int N, int K, const T* a, I a_dk, const T* b, I b_dk,
                                                 I b_dn, Store&& store) {
  I bo[kRN];  // columns past N read column N - 1; their sums are dropped
  RIDGELINE_UNROLL
  for (int j = 0; j < kRN; ++j) bo[j] = I(n0 + j < N ? n0 + j : N - 1) * b_dn;
  Acc acc[kRN];
  RIDGELINE_UNROLL
  for (int j = 0; j < kRN; ++j) acc[j] = Acc(0);
  for (int k = 0; k < K; ++k) {
    const Acc av = static_cast<Acc>(a[I(k) * a_dk]);
    const T* bk = b + I(k) * b_dk;
    RIDGELINE_UNROLL
    for (int j = 0; j < kRN; ++j) acc[j] += av * static_cast<Acc>(bk[bo[j]]);
  }
  RIDGELINE_UNROLL
  for (int j = 0; j < kRN; ++j)
    if (n0 + j < N) store(n0 + j, acc[j]);
}

// C(m, n) = alpha * acc (+ beta * C(m, n)); beta == 0 never reads C.
template <class Acc, class TC>
KOKKOS_FORCEINLINE_FUNCTION void store_scaled(TC& out, Acc acc, Acc alpha, Acc beta) {
  out = static_cast<TC>(beta == Acc(0) ? alpha * acc : alpha * acc + beta * static_cast<Acc>(out));
}

}  // namespace ridgeline::detail
