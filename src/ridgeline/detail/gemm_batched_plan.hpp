#pragma once
// A batched call's decisions as a value (gemm_batched): which path runs the batch, and its numbers.
// Pure functions of the shapes, the strides and the device's compute units, like gemm_plan.hpp:
// dispatch_batched.hpp computes the plan (gemm_batched_plan) and executes it.
//
//   small  every extent within the table's gemm_batched_small entry: several matrices per team,
//          staged whole in scratch (gemm_batched_small.hpp); memory-bound sizes
//   tiles  one league over every C tile of every matrix, on the first entry of the table's
//          gemm_batched_entries whose condition holds (gemm_batched_tiles.hpp): everything larger
//
// Large matrices stay in the one league too, rather than running a gemm each: their tiles already
// fill the device, one launch spares a launch per matrix and the partial last wave of each, and
// gemm_batched then instantiates only its own kernels, not the whole gemm table per element type
// (a test file that called gemm per matrix took nine minutes to compile on the host).
#include <cstddef>
#include <cstdint>

#include "ridgeline/detail/gemm_batched_small.hpp"
#include "ridgeline/detail/gemm_plan.hpp"

namespace ridgeline::detail {

enum class BatchedPath { small, tiles, panels };
inline const char* batched_path_name(BatchedPath p) {
  switch (p) {
    case BatchedPath::small:
      return "small (matrices per team)";
    case BatchedPath::tiles:
      return "tiles (one league)";
    case BatchedPath::panels:
      return "panels (each matrix whole on one thread)";
  }
  return "?";
}

struct BatchedPlan {
  BatchedPath path = BatchedPath::tiles;
  int entry = -1;       // tiles: the index in the table's gemm_batched_entries
  int per_team = 1;     // small: matrices per team
  bool direct = false;  // panels: each matrix on the table's gemm_batched_direct entry, not its panels
};

// The scratch of one matrix of the small path's operands: op(A) (m x k) and op(B) (k x n), each staged
// in the larger of its two padded layouts (small_stage; dense operands take less), in elements. C adds
// m x n where it is staged.
inline std::int64_t small_matrix_elems(std::int64_t m, std::int64_t n, std::int64_t k) {
  const auto larger = [](std::int64_t r, std::int64_t c) {
    const int x = small_stage(r, c, true).per, y = small_stage(r, c, false).per;
    return std::int64_t(x > y ? x : y);
  };
  return larger(m, k) + larger(k, n);
}

// Matrices per team of the small path: as many as budget_bytes of scratch hold (at least one, at most
// max_per_team), but no more than keeps resident_teams teams busy: a batch of 2000 on 132 SMs x 8
// teams runs two matrices per team, not 24 matrices on 84 teams. elem_bytes: of A and B; out_bytes: of
// C (the most it can be, the accumulator's).
inline int small_matrices_per_team(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t elem_bytes,
                                   std::size_t out_bytes, std::size_t budget_bytes, int max_per_team,
                                   std::int64_t count, std::int64_t resident_teams) {
  const std::int64_t per =
      small_matrix_elems(m, n, k) * std::int64_t(elem_bytes) + m * n * std::int64_t(out_bytes);
  std::int64_t g = std::int64_t(budget_bytes) / per;
  if (g > max_per_team) g = max_per_team;
  if (resident_teams > 0) {
    const std::int64_t spread = count / resident_teams;
    if (g > spread) g = spread;
  }
  return g < 1 ? 1 : static_cast<int>(g);
}

}  // namespace ridgeline::detail
