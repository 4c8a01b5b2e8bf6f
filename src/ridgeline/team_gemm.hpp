#pragma once
// GEMM and GEMV inside a user's own team kernel (team_gemv at the end of this file): C = alpha * op(A) *
// op(B) + beta * C, called by every thread of a Kokkos team (a TeamPolicy member), as KokkosBatched's
// TeamGemm and TeamVectorGemm are.
//
//   Kokkos::parallel_for(policy, KOKKOS_LAMBDA(const member_type& team) {
//     auto A = ...;  auto B = ...;  auto C = ...;   // rank-2 subviews: global memory or team scratch
//     ridgeline::team_gemm(team, 'N', 'T', 1.0, A, B, 0.0, C);
//     ...                                            // C is complete for every thread here
//   });
//
// Operands: rank-2 Views (or subviews) in any layout the team's execution space can read, A and B of
// one element type (float, double, or 16-bit with a float or 16-bit C, accumulated in float), C not
// overlapping A or B. The products run on the same thread-level piece as gemm_batched's small path
// (detail/team_product.hpp): a thread takes runs of the table's cols_per_thread outputs of one row,
// and the team's threads and vector lanes (TeamVectorRange) walk C's rows fastest. beta == 0 never reads
// C; alpha == 0 or K == 0 never reads A or B.
//
// Scratch: none. team_gemm reads the operands where they are, so a user who wants them in scratch
// stages them there first (team_gemm_scratch_bytes() is 0, so that code which sizes its request from
// it keeps working if a later version stages).
//
// Synchronization: team_gemm begins and ends with a team barrier. The team may write A, B or C just
// before the call and read C just after it without barriers of its own; during the call no thread may
// write A, B or C. Every thread of the team must call it, with the same arguments.
//
// Errors: shapes are only known inside the kernel, so a mismatch (op(A) not M x K, op(B) not K x N) or
// a transpose letter other than N, T or C aborts the kernel (Kokkos::abort) with a message naming
// team_gemm, before any element of C is written.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/dispatch_batched.hpp"
#include "ridgeline/detail/scale.hpp"
#include "ridgeline/detail/team_product.hpp"

namespace ridgeline {

// Team scratch (bytes, level 0) that team_gemm needs on top of the caller's own: none (see above).
KOKKOS_INLINE_FUNCTION constexpr std::size_t team_gemm_scratch_bytes(std::int64_t /*m*/, std::int64_t /*n*/,
                                                                     std::int64_t /*k*/,
                                                                     std::size_t /*elem_bytes*/) {
  return 0;
}

namespace detail {
KOKKOS_INLINE_FUNCTION int team_trans(char t) {
  return (t == 'N' || t == 'n') ? 0 : (t == 'T' || t == 't' || t == 'C' || t == 'c') ? 1 : -1;
}
// x0 where t (a team_trans result, 0 or 1) is 0, else x1, by arithmetic rather than a choice. hipcc 5.2
// compiled `t ? A.extent(0) : A.extent(1)` (and the same for strides) into one load through a chosen
// address, which keeps the views' copies in scratch memory: 48 bytes per work-item for the kernel that
// calls team_gemm, and none with this form (issue 17).
KOKKOS_INLINE_FUNCTION std::int64_t team_pick(int t, std::int64_t x0, std::int64_t x1) {
  return x0 + (x1 - x0) * std::int64_t(t);
}
template <class V>
KOKKOS_INLINE_FUNCTION std::int64_t team_extent(const V& v, int r) {
  return team_pick(r, static_cast<std::int64_t>(v.extent(0)), static_cast<std::int64_t>(v.extent(1)));
}
template <class V>
KOKKOS_INLINE_FUNCTION std::int64_t team_stride(const V& v, int r) {
  return team_pick(r, static_cast<std::int64_t>(v.stride(0)), static_cast<std::int64_t>(v.stride(1)));
}
}  // namespace detail

template <class Member, class AV, class BV, class CV>
KOKKOS_INLINE_FUNCTION void team_gemm(const Member& team, char transA, char transB,
                                      const detail::GemmScalar<AV>& alpha, const AV& A, const BV& B,
                                      const detail::GemmScalar<AV>& beta, const CV& C) {
  static_assert(Kokkos::is_view<AV>::value && Kokkos::is_view<BV>::value && Kokkos::is_view<CV>::value,
                "ridgeline::team_gemm takes Kokkos::Views");
  static_assert(detail::compat::view_rank<AV>() == 2 && detail::compat::view_rank<BV>() == 2 &&
                    detail::compat::view_rank<CV>() == 2,
                "ridgeline::team_gemm: A, B and C must be rank 2");
  using T = typename AV::non_const_value_type;
  using TC = typename CV::non_const_value_type;
  using Acc = detail::GemmScalar<AV>;
  static_assert(std::is_same_v<TC, typename CV::value_type>, "ridgeline::team_gemm: C must be non-const");
  static_assert(std::is_same_v<T, typename BV::non_const_value_type>,
                "ridgeline::team_gemm: A and B must share one element type");
  static_assert(detail::is_gemm_input_v<T> && detail::is_gemm_output_v<T, TC>,
                "ridgeline::team_gemm: the element types gemm takes");
  using Exec = typename Member::execution_space;
  constexpr int kRN = detail::BatchedSmallCfgOf<Exec, T>::cols_per_thread;

  const int ta = detail::team_trans(transA), tb = detail::team_trans(transB);
  if (ta < 0 || tb < 0) Kokkos::abort("ridgeline::team_gemm: transA and transB must be 'N', 'T' or 'C'");
  const int M = static_cast<int>(C.extent(0)), N = static_cast<int>(C.extent(1));
  const int K = static_cast<int>(detail::team_extent(A, 1 - ta));
  if (static_cast<int>(detail::team_extent(A, ta)) != M ||
      static_cast<int>(detail::team_extent(B, tb)) != K ||
      static_cast<int>(detail::team_extent(B, 1 - tb)) != N)
    Kokkos::abort("ridgeline::team_gemm: need op(A) M x K, op(B) K x N and C M x N");
  // op(A)(m, k) at a[m * a_dm + k * a_dk], op(B)(k, n) at b[k * b_dk + n * b_dn].
  const std::int64_t a_dm = detail::team_stride(A, ta), a_dk = detail::team_stride(A, 1 - ta);
  const std::int64_t b_dk = detail::team_stride(B, tb), b_dn = detail::team_stride(B, 1 - tb);
  const T* a = A.data();
  const T* b = B.data();
  team.team_barrier();  // the team's writes of A, B and C before the call are visible
  if (M > 0 && N > 0) {
    if (K == 0 || alpha == Acc(0)) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, M * N),
                           [&](const int e) { detail::scale_in_place(C(e % M, e / M), beta); });
    } else {
      const int NB = (N + kRN - 1) / kRN;
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, M * NB), [&](const int w) {
        const int m = w % M, n0 = (w / M) * kRN;
        detail::row_run_product<kRN, Acc>(n0, N, K, a + m * a_dm, a_dk, b, b_dk, b_dn, [&](int n, Acc acc) {
          detail::store_scaled(C(m, n), acc, alpha, beta);
        });
      });
    }
  }
  team.team_barrier();  // C is complete for every thread
}

// GEMV inside a user's own team kernel: y = alpha * op(A) * x + beta * y, with team_gemm's contract
// (every thread calls it with the same arguments; barriers on entry and exit; no scratch; a bad shape
// or transpose letter aborts the kernel before y is written). A is rank 2, x and y rank 1, in any
// layout the team's space can read, global memory or team scratch. The team's threads and vector lanes
// (TeamVectorRange) take one row of op(A) each, its K sum in the accumulator type (float for 16-bit
// inputs). beta == 0 never reads y; alpha == 0 or K == 0 never reads A or x.
template <class Member, class AV, class XV, class YV>
KOKKOS_INLINE_FUNCTION void team_gemv(const Member& team, char trans, const detail::GemmScalar<AV>& alpha,
                                      const AV& A, const XV& x, const detail::GemmScalar<AV>& beta,
                                      const YV& y) {
  static_assert(Kokkos::is_view<AV>::value && Kokkos::is_view<XV>::value && Kokkos::is_view<YV>::value,
                "ridgeline::team_gemv takes Kokkos::Views");
  static_assert(detail::compat::view_rank<AV>() == 2 && detail::compat::view_rank<XV>() == 1 &&
                    detail::compat::view_rank<YV>() == 1,
                "ridgeline::team_gemv: A must be rank 2, x and y rank 1");
  using T = typename AV::non_const_value_type;
  using TY = typename YV::non_const_value_type;
  using Acc = detail::GemmScalar<AV>;
  static_assert(std::is_same_v<TY, typename YV::value_type>, "ridgeline::team_gemv: y must be non-const");
  static_assert(std::is_same_v<T, typename XV::non_const_value_type>,
                "ridgeline::team_gemv: A and x must share one element type");
  static_assert(detail::is_gemm_input_v<T> && detail::is_gemm_output_v<T, TY>,
                "ridgeline::team_gemv: the element types gemv takes");

  const int ta = detail::team_trans(trans);
  if (ta < 0) Kokkos::abort("ridgeline::team_gemv: trans must be 'N', 'T' or 'C'");
  const int M = static_cast<int>(y.extent(0));
  const int K = static_cast<int>(detail::team_extent(A, 1 - ta));
  if (static_cast<int>(detail::team_extent(A, ta)) != M || static_cast<int>(x.extent(0)) != K)
    Kokkos::abort("ridgeline::team_gemv: need op(A) M x K, x of K entries and y of M");
  // op(A)(m, k) at a[m * a_dm + k * a_dk].
  const std::int64_t a_dm = detail::team_stride(A, ta), a_dk = detail::team_stride(A, 1 - ta);
  const std::int64_t x_dk = x.stride(0), none = 0;
  const T* a = A.data();
  const T* xp = x.data();
  team.team_barrier();  // the team's writes of A, x and y before the call are visible
  if (M > 0) {
    if (K == 0 || alpha == Acc(0)) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, M),
                           [&](const int m) { detail::scale_in_place(y(m), beta); });
    } else {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, M), [&](const int m) {
        detail::row_run_product<1, Acc>(0, 1, K, a + m * a_dm, a_dk, xp, x_dk, none,
                                        [&](int, Acc acc) { detail::store_scaled(y(m), acc, alpha, beta); });
      });
    }
  }
  team.team_barrier();  // y is complete for every thread
}

}  // namespace ridgeline
