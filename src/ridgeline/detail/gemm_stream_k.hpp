#pragma once
// Stream-K over a product's last waves (the plan's StreamKPlan, gemm_plan.hpp): a tile schedule
// around a team tile kernel (GemmTeamTiled, GemmTeamAsync: anything with run and run_piece), and the
// fixup that sums the pieces into C.
//
//   league rank r < dp_tiles         the kernel's tile r, whole, as without stream-K
//   league rank dp_tiles + u         unit u's run of K steps [begin(u), begin(u + 1)) over the
//                                    stream-K tiles, tile-major: for each tile it touches, the kernel's
//                                    run_piece over those steps, alpha times the product to the piece
//   fixup, a team per stream-K tile  C = (its pieces summed in unit order) + beta * C, masked at the
//                                    edges; beta == 0 never reads C
//
// Piece p of stream-K tile t (0-based among them; p counts the units that touch it, in order) is the
// BM x BN block at work + (t * max_pieces + p) * BM * BN, stored with C's contiguous index fast so
// that the fixup reads the pieces and writes C along the same index. The fixed order of the sum makes
// reruns bit-identical.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ridgeline/detail/gemm_epilogue.hpp"
#include "ridgeline/detail/gemm_plan.hpp"
#include "ridgeline/detail/strided.hpp"

namespace ridgeline::detail {

template <class Kernel>
struct GemmStreamK {
  using policy_type = typename Kernel::policy_type;
  using member_type = typename policy_type::member_type;
  using config = typename Kernel::config;
  using Acc = typename Kernel::accumulator_type;
  static constexpr int BM = config::bm, BN = config::bn, BK = config::bk;

  Kernel k;  // no split-K
  StreamKPlan plan;
  Acc* work = nullptr;    // sk_tiles * max_pieces pieces
  bool rows_fast = true;  // C's rows are its contiguous index

  KOKKOS_INLINE_FUNCTION static constexpr std::size_t scratch_bytes() { return Kernel::scratch_bytes(); }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    const std::int64_t r = team.league_rank();
    if (r < plan.dp_tiles) {
      k.run(team, static_cast<int>(r));
      return;
    }
    const int u = static_cast<int>(r - plan.dp_tiles);
    const std::int64_t end = plan.begin(u + 1);
    for (std::int64_t i = plan.begin(u); i < end;) {
      const std::int64_t t = i / plan.k_steps, s0 = i - t * plan.k_steps;
      const std::int64_t s1 = s0 + (end - i) < plan.k_steps ? s0 + (end - i) : plan.k_steps;
      GemmTileOrigin tile = GemmTileOrigin::of<BM, BN, config::group_m>(static_cast<int>(plan.dp_tiles + t),
                                                                        k.tiles_m, k.tiles_n, 1, 0, k.a.cols);
      tile.k_begin = s0 * BK;
      tile.k_end = s1 * BK < k.a.cols ? s1 * BK : k.a.cols;
      const int p = u - plan.unit_of(t * plan.k_steps);
      k.run_piece(team, tile, work + (t * StreamKPlan::max_pieces + p) * BM * BN, rows_fast);
      i += s1 - s0;
      if (i < end) team.team_barrier();  // the next piece's copies overwrite scratch still being read
    }
  }
};

// C's stream-K tiles from their pieces (Kernel: the GemmStreamK launched before).
template <class Kernel, class ExecSpace, class TC, class Acc>
void stream_k_fixup(const ExecSpace& exec, const Kernel& f, const Strided2D<TC>& c, Acc beta) {
  constexpr int BM = Kernel::BM, BN = Kernel::BN, kGroupM = Kernel::config::group_m;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  const StreamKPlan plan = f.plan;
  const Acc* work = f.work;
  const bool rows_fast = f.rows_fast, read_c = beta != Acc(0);
  const int tiles_m = f.k.tiles_m, tiles_n = f.k.tiles_n;
  Kokkos::parallel_for(
      "ridgeline::gemm stream-K fixup", Policy(exec, static_cast<int>(plan.sk_tiles), Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const std::int64_t t = team.league_rank();
        const GemmTileOrigin tile = GemmTileOrigin::of<BM, BN, kGroupM>(static_cast<int>(plan.dp_tiles + t),
                                                                        tiles_m, tiles_n, 1, 0, 1);
        const int pieces = plan.pieces(t);
        const Acc* w = work + t * StreamKPlan::max_pieces * BM * BN;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, BM * BN), [&](const int e) {
          const int i = rows_fast ? e % BM : e / BN, j = rows_fast ? e / BM : e % BN;
          const std::int64_t m = tile.m0 + i, n = tile.n0 + j;
          if (m >= c.rows || n >= c.cols) return;
          Acc s = w[e];
          for (int p = 1; p < pieces; ++p) s += w[p * BM * BN + e];
          TC& y = c(m, n);
          y = static_cast<TC>(read_c ? s + beta * static_cast<Acc>(y) : s);
        });
      });
}

}  // namespace ridgeline::detail
