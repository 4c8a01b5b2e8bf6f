#pragma once
// Batched products of medium matrices: one league over every tile of every matrix, each team running
// a table entry's team tile kernel (GemmTeamTiled, GemmTeamAsync) on its matrix.
//
//   league rank -> (matrix g = rank / tiles, tile rank - g * tiles)
//   the entry's kernel, its operands moved to matrix g, runs that tile
//
// One launch for the whole batch: a 64 x 64 product is one tile, and one launch per matrix would cost
// the device a launch (several microseconds) per 2 * 64^3 flops. The tile kernels take their league
// rank as an argument (run(team, rank)) for this.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <cstdint>

namespace ridgeline::detail {

template <class Kernel>
struct GemmBatchedTiles {
  using policy_type = typename Kernel::policy_type;
  using member_type = typename policy_type::member_type;
  using config = typename Kernel::config;

  Kernel k;                                         // set up for matrix 0 (no split-K)
  std::int64_t a_step = 0, b_step = 0, c_step = 0;  // batch strides of op(A), op(B) and C
  int tiles = 1;                                    // C tiles per matrix

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() { return Kernel::scratch_bytes(); }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const { run(team, team.league_rank()); }

  // rank: a tile of the batch, matrix by matrix.
  KOKKOS_FORCEINLINE_FUNCTION void run(const member_type& team, int rank) const {
    const int g = rank / tiles;
    Kernel kg = k;
    kg.a.data += g * a_step;
    kg.b.data += g * b_step;
    kg.c.data += g * c_step;
    kg.run(team, rank - g * tiles);
  }
};

}  // namespace ridgeline::detail
