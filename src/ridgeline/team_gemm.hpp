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
// overlapping A or B. beta == 0 never reads C; alpha == 0 or K == 0 never reads A or B.
//
// Two forms, the same results to rounding:
// - Staged (float and double, where the backend's table names a team entry, team_gemm_tiles<T>): the
//   caller grants team scratch and launches teams of the entry's size. C is computed tile by tile on
//   the entry's team kernel, as gemm_batched computes a matrix (gemm_team_tiled.hpp, gemm_team_async.hpp):
//   operands staged through the granted scratch, register micro-tiles or tensor-core warp tiles, the
//   masked epilogue. TeamGemmStaging<T, ExecSpace> gives what to launch with:
//
//     using S = ridgeline::TeamGemmStaging<double, ExecSpace>;
//     auto policy = S::policy(exec, teams, my_bytes);   // TeamPolicy<ExecSpace, S::launch_bounds>
//     ... inside, after the kernel's own scratch views:
//         void* s = team.team_scratch(0).get_shmem(S::scratch_bytes);   // once per kernel
//         ridgeline::team_gemm(team, 'N', 'N', 1.0, A, B, 0.0, C, s, S::scratch_bytes);
//
//   policy() launches S::team_size threads a team (Kokkos::AUTO where the backend has no staged form) and
//   grants my_bytes + S::scratch_bytes of level-0 scratch; a caller with policy traits of its own does the
//   same. my_bytes may be at most S::own_bytes_max() (Kokkos's level-0 limit less the span: 40 KB on CUDA
//   under Kokkos 3.4, so about 6 KB beside the fp64 span there). launch_bounds gives the kernel the entry's
//   register budget (its teams per SM). Where the team's size or vector length differs from the entry's, or
//   the span is smaller than scratch_bytes, the call runs the unstaged form instead: correct, slower. On the
//   host the entry is a kernel that runs a whole product on the calling thread in buffers of its own
//   (gemm_batched's per-thread loop): team_size 1 and scratch_bytes 0, so a team of one thread runs it from
//   either call.
// - Unstaged (no scratch argument): any team size; a thread takes runs of the table's cols_per_thread
//   outputs of one row (detail/team_product.hpp, gemm_batched's small path), the team's threads and
//   vector lanes (TeamVectorRange) walking C's rows fastest, operands read where they are.
//
// Scratch: the unstaged form takes none (team_gemm_scratch_bytes() is 0); the staged form uses the span
// it is given, S::scratch_bytes from its start, for the duration of the call. The same span may serve
// every call of a kernel: nothing in it outlives a call.
//
// Synchronization: team_gemm begins and ends with a team barrier. The team may write A, B or C just
// before the call and read C just after it without barriers of its own; during the call no thread may
// write A, B, C or the granted span. Every thread of the team must call it, with the same arguments.
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

// Team scratch (bytes, level 0) that team_gemm's unstaged form needs on top of the caller's own: none
// (the staged form's is TeamGemmStaging's scratch_bytes).
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

// The table's team entry for T (team_gemm_tiles<T>), void where it names none.
template <class Be, class T, class = void>
struct TeamGemmTilesOf {
  using type = void;
};
template <class Be, class T>
struct TeamGemmTilesOf<Be, T, std::void_t<typename Be::template team_gemm_tiles<T>>> {
  using type = typename Be::template team_gemm_tiles<T>;
};

// The team kernel of entry Cfg in one orientation of the operands (with_entry_kernel's, without packets:
// a user's operands may have any strides and alignment).
template <class Exec, class Cfg, class T, class TC, bool kAm, bool kBn>
using TeamGemmKernel = GemmKernelFor<Exec, Cfg, T, kAm, kBn, false, TC>;

// Granted scratch that Cfg's kernel K takes: its scratch_bytes, or none for a kernel that runs whole
// products on the calling thread in buffers of its own (the host's).
template <class K>
constexpr std::size_t team_kernel_scratch() {
  if constexpr (RunsOnCallingThread<K>::value) {
    return 0;
  } else {
    return K::scratch_bytes();
  }
}
// Scratch of Cfg's kernels: the largest over the four orientations (the asynchronous kernels stage each
// operand along its contiguous index).
template <class Exec, class Cfg, class T, class TC>
constexpr std::size_t team_gemm_tiles_scratch() {
  const std::size_t s[] = {team_kernel_scratch<TeamGemmKernel<Exec, Cfg, T, TC, true, true>>(),
                           team_kernel_scratch<TeamGemmKernel<Exec, Cfg, T, TC, true, false>>(),
                           team_kernel_scratch<TeamGemmKernel<Exec, Cfg, T, TC, false, true>>(),
                           team_kernel_scratch<TeamGemmKernel<Exec, Cfg, T, TC, false, false>>()};
  std::size_t m = 0;
  for (std::size_t x : s) m = x > m ? x : m;
  return m;
}

// A staged entry's team size, teams per compute unit and scratch; zeros where there is none (void).
template <class Cfg, class Exec, class T, class TC>
struct TeamGemmTilesFacts {
  static constexpr int team_size = Cfg::team_size, min_teams = Cfg::min_blocks;
  static constexpr std::size_t scratch_bytes = team_gemm_tiles_scratch<Exec, Cfg, T, TC>();
};
template <class Exec, class T, class TC>
struct TeamGemmTilesFacts<void, Exec, T, TC> {
  static constexpr int team_size = 0, min_teams = 0;
  static constexpr std::size_t scratch_bytes = 0;
};

// A span of team scratch that team_gemm's caller granted, handed out as Kokkos's scratch space hands out
// its own (get_shmem_aligned), from the span's start for each tile.
struct TeamScratchSpan {
  char* base = nullptr;
  std::size_t bytes = 0;
  mutable std::size_t used = 0;
  // nullptr where the span is too small; team_gemm checked the whole need first.
  KOKKOS_INLINE_FUNCTION void* get_shmem_aligned(std::size_t n, std::size_t align) const {
    const std::uintptr_t b = reinterpret_cast<std::uintptr_t>(base);
    const std::uintptr_t p = (b + used + align - 1) / align * align;
    if (p + n > b + bytes) return nullptr;
    used = std::size_t(p + n - b);
    return reinterpret_cast<void*>(p);
  }
};

// C = alpha * op(A) * op(B) + beta * C on the tiles of entry Cfg, one after another, by the whole team
// (its size Cfg::team_size, one vector lane), in the span [scratch, scratch + bytes), bytes at least
// team_gemm_tiles_scratch. M, N, K > 0.
template <class Cfg, class Member, class T, class TC, class Acc>
KOKKOS_INLINE_FUNCTION void team_gemm_tiles(const Member& team, const Strided2D<const T>& a,
                                            const Strided2D<const T>& b, const Strided2D<TC>& c, Acc alpha,
                                            Acc beta, void* scratch, std::size_t bytes) {
  static_assert(!AsyncEntry<Cfg>::value,
                "team_gemm's staged entries stage through registers: the asynchronous kernels copy 16-byte "
                "packets, which a user's subviews (any strides, any alignment) need not hold");
  using Exec = typename Member::execution_space;
  const auto run = [&](auto am, auto bn) {
    using K = TeamGemmKernel<Exec, Cfg, T, TC, decltype(am)::value, decltype(bn)::value>;
    const K k = tile_kernel_of<K>(a, b, c, alpha, beta);
    const int tiles = k.tiles_m * k.tiles_n;
    if constexpr (RunsOnCallingThread<K>::value) {
      k.run_on_calling_thread(tiles);  // a team of one thread (the host)
    } else {
      for (int t = 0; t < tiles; ++t) {
        if (t > 0) team.team_barrier();  // no thread still reads the previous tile's scratch
        k.run_in(team, t, TeamScratchSpan{static_cast<char*>(scratch), bytes});
      }
    }
  };
  using Y = std::true_type;
  using N = std::false_type;
  const bool am = rows_contiguous(a), bn = !rows_contiguous(b);
  if (am && bn) {
    run(Y{}, Y{});
  } else if (am) {
    run(Y{}, N{});
  } else if (bn) {
    run(N{}, Y{});
  } else {
    run(N{}, N{});
  }
}
}  // namespace detail

// What team_gemm's staged form needs from the caller's launch, for inputs T and output TC on ExecSpace:
// staged (whether the backend has the form for T), team_size (the team size to launch: its entry's),
// scratch_bytes (level-0 team scratch to grant it), launch_bounds (Kokkos::LaunchBounds with the entry's
// teams per compute unit, so that the kernel gets the entry's register budget). Without the form:
// team_size 0 and scratch_bytes 0, and team_gemm runs unstaged whatever it is given.
template <class T, class ExecSpace = Kokkos::DefaultExecutionSpace, class TC = T>
struct TeamGemmStaging {
  using tiles = typename detail::TeamGemmTilesOf<detail::Backend<ExecSpace, T>, T>::type;
  static constexpr bool staged = !std::is_void_v<tiles>;

  static constexpr int team_size = detail::TeamGemmTilesFacts<tiles, ExecSpace, T, TC>::team_size;
  static constexpr int min_teams = detail::TeamGemmTilesFacts<tiles, ExecSpace, T, TC>::min_teams;
  static constexpr std::size_t scratch_bytes =
      detail::TeamGemmTilesFacts<tiles, ExecSpace, T, TC>::scratch_bytes;
  using launch_bounds = Kokkos::LaunchBounds<unsigned(team_size), unsigned(min_teams)>;
  using policy_type = Kokkos::TeamPolicy<ExecSpace, launch_bounds>;
  // `league` teams as the staged form wants them (Kokkos::AUTO where there is none), with level-0 scratch
  // for the caller's own_bytes and the span after them.
  static policy_type policy(const ExecSpace& exec, int league, std::size_t own_bytes = 0) {
    policy_type p = staged ? policy_type(exec, league, team_size) : policy_type(exec, league, Kokkos::AUTO);
    if (own_bytes + scratch_bytes > 0) p.set_scratch_size(0, Kokkos::PerTeam(own_bytes + scratch_bytes));
    return p;
  }
  // The most level-0 scratch the caller's own views may take beside the span: what Kokkos lets a team of
  // this policy ask for (scratch_size_max(0): 40 KB on CUDA under Kokkos 3.4, about 200 KB on Hopper under
  // Kokkos 4 and later, 32 KB on OpenMP) less scratch_bytes. A launch asking for more fails in Kokkos.
  static std::size_t own_bytes_max() {
    const std::size_t cap = std::size_t(policy_type::scratch_size_max(0));
    return cap > scratch_bytes ? cap - scratch_bytes : 0;
  }
};

namespace detail {
// Whether a call runs the staged form: the backend has one for these types, the span holds its scratch
// (or it needs none), and the team is the size it runs on, one vector lane a thread. Pure.
template <class Staging>
KOKKOS_INLINE_FUNCTION bool team_gemm_runs_staged(int team_size, int vector_lanes, const void* scratch,
                                                  std::size_t scratch_bytes) {
  return Staging::staged && scratch_bytes >= Staging::scratch_bytes &&
         (scratch != nullptr || Staging::scratch_bytes == 0) && team_size == Staging::team_size &&
         vector_lanes == 1;
}

// Both forms: scratch == nullptr asks for the unstaged one.
template <class Member, class AV, class BV, class CV>
KOKKOS_INLINE_FUNCTION void team_gemm_impl(const Member& team, char transA, char transB,
                                           const GemmScalar<AV>& alpha, const AV& A, const BV& B,
                                           const GemmScalar<AV>& beta, const CV& C, void* scratch,
                                           std::size_t scratch_bytes) {
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
  using Staging = TeamGemmStaging<T, Exec, TC>;
  if (M > 0 && N > 0) {
    if (K == 0 || alpha == Acc(0)) {
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, M * N),
                           [&](const int e) { detail::scale_in_place(C(e % M, e / M), beta); });
    } else if (team_gemm_runs_staged<Staging>(team.team_size(), compat::team_vector_lanes(), scratch,
                                              scratch_bytes)) {
      if constexpr (Staging::staged) {
        team_gemm_tiles<typename Staging::tiles>(
            team, Strided2D<const T>{a, M, K, a_dm, a_dk}, Strided2D<const T>{b, K, N, b_dk, b_dn},
            Strided2D<TC>{C.data(), M, N, std::int64_t(C.stride(0)), std::int64_t(C.stride(1))}, alpha, beta,
            scratch, scratch_bytes);
      }
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
}  // namespace detail

// The unstaged form (any team size, no scratch).
template <class Member, class AV, class BV, class CV>
KOKKOS_INLINE_FUNCTION void team_gemm(const Member& team, char transA, char transB,
                                      const detail::GemmScalar<AV>& alpha, const AV& A, const BV& B,
                                      const detail::GemmScalar<AV>& beta, const CV& C) {
  detail::team_gemm_impl(team, transA, transB, alpha, A, B, beta, C, nullptr, 0);
}

// The staged form: scratch_bytes of team scratch at `scratch`, granted for the call (TeamGemmStaging says
// how much, and the team size it runs on; otherwise this runs the unstaged form).
template <class Member, class AV, class BV, class CV>
KOKKOS_INLINE_FUNCTION void team_gemm(const Member& team, char transA, char transB,
                                      const detail::GemmScalar<AV>& alpha, const AV& A, const BV& B,
                                      const detail::GemmScalar<AV>& beta, const CV& C, void* scratch,
                                      std::size_t scratch_bytes) {
  detail::team_gemm_impl(team, transA, transB, alpha, A, B, beta, C, scratch, scratch_bytes);
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
