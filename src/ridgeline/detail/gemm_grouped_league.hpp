#pragma once
// One league over several batches that run the same kernel with different shapes (gemm_grouped): each
// group is a kernel value of its own (its operands, extents, strides, alpha and beta), and the league
// is the groups' leagues end to end.
//
//   league rank r -> group i, the last whose first rank is <= r (binary search over `first`)
//   group i's kernel runs its own rank r - first[i], as a league of its own would
//
// The kernel values and first ranks live in the instance's workspace (dispatch_grouped.hpp puts them
// there), not in the launch's arguments: a group list has no fixed length. F is a batched kernel with
// run(team, rank) (GemmBatchedSmall, GemmBatchedTiles); every group has at least one team.
#include <Kokkos_Core.hpp>
#include <cstddef>

namespace ridgeline::detail {

template <class F>
struct GemmGroupedLeague {
  using policy_type = typename F::policy_type;
  using member_type = typename policy_type::member_type;
  using config = typename F::config;

  const F* groups = nullptr;   // [count]: each group's kernel
  const int* first = nullptr;  // [count + 1]: group i's first league rank; first[count]: the league size
  int count = 0;

  // Scratch per team, for kernels whose scratch is fixed by their configuration (the tile kernels); the
  // small path's depends on each group's shape, and its launch sizes it for the largest.
  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() { return F::scratch_bytes(); }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const int r = team.league_rank();
    int lo = 0, hi = count - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (first[mid] <= r)
        lo = mid;
      else
        hi = mid - 1;
    }
    // A copy, not a reference: read through a pointer into global memory, the kernel's fields could
    // alias C, and a store to C would make the compiler load them again. Measured, it changed nothing:
    // the 1 GB mix of perf/results/2026-12-02-h200-289a7cc/h200-2026-12-02-289a7cc-grouped-README.md ran at
    // 0.96-0.98 of a loop of gemm_batched calls either way.
    const F f = groups[lo];
    f.run(team, r - first[lo]);
  }
};

}  // namespace ridgeline::detail
