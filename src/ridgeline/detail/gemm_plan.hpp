#pragma once
// A GEMM call's decisions as a value: which table entry runs, on which operands (as they are, aligned
// copies, or TF32's k-contiguous copies), how many K slices, and which bulk of C runs alone when
// thin remainders are peeled off. Everything here is a pure function of the shape, the operands'
// strides and alignment, the device's compute units and the workspace limit: nothing launches, so
// tests can ask what any call would do on any device. dispatch.hpp computes the plan for a call
// (gemm_plan) and executes it (run_gemm_plan); gemm_tile_config prints it.
//
// Each backend's table lists its GEMM entries in order, each with the condition under which it applies
// (GemmEntry<Cfg, When>, the conditions in namespace when); the first entry whose condition holds
// runs. The numbers inside a condition (a row limit, a wave fraction) are the table's, with the sweep
// that chose them cited there.
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ridgeline/detail/strided.hpp"
#include "ridgeline/detail/workspace.hpp"

namespace ridgeline::detail {

// What an entry is for, in reports and tests.
enum class GemmRole {
  general,
  packets,
  narrow,
  small,
  tf32,
  multi_vector,
  multi_vector_dot,
  few_columns,
  panels,
  in_place
};
inline const char* role_name(GemmRole r) {
  switch (r) {
    case GemmRole::general:
      return "general";
    case GemmRole::packets:
      return "packets";
    case GemmRole::narrow:
      return "narrow";
    case GemmRole::small:
      return "small tiles";
    case GemmRole::tf32:
      return "tf32";
    case GemmRole::multi_vector:
      return "multi-vector";
    case GemmRole::multi_vector_dot:
      return "multi-vector dot";
    case GemmRole::few_columns:
      return "few columns";
    case GemmRole::panels:
      return "packed panels";
    case GemmRole::in_place:
      return "in place";
  }
  return "?";
}

// What an entry's condition sees of a call.
struct GemmFacts {
  std::int64_t m = 0, n = 0, k = 0;
  bool packets = false;            // op(A) and op(B) stage in 16-byte packets (or will, once copied aligned)
  bool tf32 = false;               // a float product whose caller allows TF32 (Math::allow_tf32)
  std::int64_t compute_units = 0;  // SMs or CUs of the device (0: unknown)
  bool a_rows_contiguous = false;  // op(A) walks its rows (m) contiguously
  bool b_cols_contiguous = false;  // op(B) walks its columns (n) contiguously
  bool unit_stride = false;        // op(A) and op(B) have unit stride along their contiguous index
};

// C tiles of a bm x bn entry.
inline std::int64_t tiles_of(std::int64_t m, std::int64_t n, int bm, int bn) {
  return ((m + bm - 1) / bm) * ((n + bn - 1) / bn);
}
// Whether an M x N x K product is one bm x bn block of C with at most `flops` flops (2 M N K): what a
// table's calling_thread_flops runs on the calling thread (finish_plan, when::launched_past_one_block).
inline bool one_block_within(std::int64_t m, std::int64_t n, std::int64_t k, int bm, int bn, double flops) {
  return tiles_of(m, n, bm, bn) == 1 && 2.0 * double(m) * double(n) * double(k) <= flops;
}

namespace when {
// Any strides and alignment (element or register staging): a table's last entry.
struct any {
  static constexpr GemmRole role = GemmRole::general;
  static constexpr bool needs_packets = false;
  static bool applies(const GemmFacts&) { return true; }
};
// Any strides and alignment, on a kernel that packs its operands itself into contiguous micro-panels
// (the host's BLIS loop nest, backends/host/gemm_panels.hpp), listed before the tile entries it replaces.
struct panels {
  static constexpr GemmRole role = GemmRole::panels;
  static constexpr bool needs_packets = false;
  static bool applies(const GemmFacts&) { return true; }
};
// The same kernel on smaller blocks, where entry Big's blocks number under kPercent of the compute units
// (host: cores): a product of few blocks leaves cores idle or one core with most of the work (512^3 fp32
// in 768 x 480 blocks: 512 x 480 and 512 x 32). Unknown compute units keep Big.
template <class Big, int kPercent>
struct panels_under {
  static constexpr GemmRole role = GemmRole::panels;
  static constexpr bool needs_packets = false;
  using big = Big;
  static bool applies(const GemmFacts& f) {
    return f.compute_units > 0 && tiles_of(f.m, f.n, Big::bm, Big::bn) * 100 < kPercent * f.compute_units;
  }
};
// Both operands stage in 16-byte packets.
struct packets {
  static constexpr GemmRole role = GemmRole::packets;
  static constexpr bool needs_packets = true;
  static bool applies(const GemmFacts& f) { return f.packets; }
};
// Packets, and at most kRows rows of C: a taller entry would leave most rows of every tile empty
// (64 x 16384 x 16384).
template <int kRows>
struct rows_at_most {
  static constexpr GemmRole role = GemmRole::narrow;
  static constexpr bool needs_packets = true;
  static bool applies(const GemmFacts& f) { return f.packets && f.m <= kRows; }
};
// Packets, and C at least kRows x kCols: for a batch's entries (gemm_batched), where many matrices
// supply the teams and a larger tile pays as soon as the matrices fill it.
template <int kRows, int kCols>
struct extents_at_least {
  static constexpr GemmRole role = GemmRole::packets;
  static constexpr bool needs_packets = true;
  static bool applies(const GemmFacts& f) { return f.packets && f.m >= kRows && f.n >= kCols; }
};
// Packets, and C at most kRows x kCols: for a batch's entries, where a matrix no larger than a small
// tile would leave most of a larger tile empty (32 x 32 matrices in 64 x 64 tiles: three quarters).
template <int kRows, int kCols>
struct extents_at_most {
  static constexpr GemmRole role = GemmRole::packets;
  static constexpr bool needs_packets = true;
  static bool applies(const GemmFacts& f) { return f.packets && f.m <= kRows && f.n <= kCols; }
};
// Packets, and entry Big's tiles fill from kMinPercent to under kMaxPercent of one wave of its team
// slots (compute units x Big::min_blocks; 100: one full wave). Few enough waves that the last one's
// idle slots cost more than smaller tiles lose per tile (fp64 DMMA, 1 to 8 waves), or too few tiles for
// one wave, where smaller tiles and their split K supply the teams that Big's cannot. Decided from the
// tile count against the compute units, never from fixed sizes; unknown devices keep Big. kPackets
// false: operands of any strides and alignment (element staging), for the same reason where the
// general entry's tiles would leave most of the wave idle (fp32 1021 x 1031 x 1033).
template <class Big, int kMinPercent, int kMaxPercent, bool kPackets = true>
struct wave_share_of {
  static constexpr GemmRole role = GemmRole::small;
  static constexpr bool needs_packets = kPackets;
  using big = Big;
  static constexpr int min_percent = kMinPercent, max_percent = kMaxPercent;
  static bool applies(const GemmFacts& f) {
    if ((kPackets && !f.packets) || f.compute_units <= 0) return false;
    const std::int64_t tiles = tiles_of(f.m, f.n, Big::bm, Big::bn);
    const std::int64_t slots = f.compute_units * Big::min_blocks;
    return tiles * 100 >= kMinPercent * slots && tiles * 100 < kMaxPercent * slots;
  }
};
// Packets, and K at most kMaxK: so few K steps per tile that the tile's start and its epilogue weigh
// as much as its products, and more teams per compute unit, each on a smaller tile, hide them better
// (fp64 DMMA, 8192 x 8192 x 256; fp32 SIMT, 4096 x 4096 x 64).
template <int kMaxK>
struct depth_at_most {
  static constexpr GemmRole role = GemmRole::small;
  static constexpr bool needs_packets = true;
  static constexpr int max_k = kMaxK;
  static bool applies(const GemmFacts& f) { return f.packets && f.k <= kMaxK; }
};
// At most kMaxN columns of C (and at least two: one is a GEMV) with op(A) rows-contiguous: a
// multi-vector GEMV (gemm_multi_vector.hpp) reads A once at memory speed, where tiles of a GEMM
// entry would be mostly empty columns.
template <int kMaxN>
struct columns_at_most {
  static constexpr GemmRole role = GemmRole::multi_vector;
  static constexpr bool needs_packets = false;
  static bool applies(const GemmFacts& f) { return f.n >= 2 && f.n <= kMaxN && f.a_rows_contiguous; }
};
// Cond, except for a product that entry Small covers in one block with at most kFlops flops (2 M N K):
// the plan runs such a product on the calling thread on Small (a table's calling_thread_flops, the same
// figure), where Cond's kernel would pay a parallel launch that costs more than the product (host: the
// OpenMP fork and join, 4-5 us, against 0.03 us for OpenBLAS's 8^3 SGEMM).
template <class Cond, class Small, std::int64_t kFlops>
struct launched_past_one_block {
  static constexpr GemmRole role = Cond::role;
  static constexpr bool needs_packets = Cond::needs_packets;
  static bool applies(const GemmFacts& f) {
    return Cond::applies(f) && !one_block_within(f.m, f.n, f.k, Small::bm, Small::bn, double(kFlops));
  }
};
// Products that entry Cfg covers in one block with at most kFlops flops (2 M N K), any strides: the products
// a table's calling_thread_flops (the same figure) runs on the calling thread, for an entry whose kernel is
// made for them (the host's direct small-product kernel, backends/host/gemm_small_direct.hpp). Planned as
// panels, so that finish_plan puts them on the calling thread.
template <class Cfg, std::int64_t kFlops>
struct calling_thread_block {
  static constexpr GemmRole role = GemmRole::panels;
  static constexpr bool needs_packets = false;
  static bool applies(const GemmFacts& f) {
    return one_block_within(f.m, f.n, f.k, Cfg::bm, Cfg::bn, double(kFlops));
  }
};
// The same with op(A) k-contiguous: N dot products per row of op(A) (gemm_multi_vector_dot.hpp).
template <int kMaxN>
struct columns_at_most_dot {
  static constexpr GemmRole role = GemmRole::multi_vector_dot;
  static constexpr bool needs_packets = false;
  static bool applies(const GemmFacts& f) { return f.n >= 2 && f.n <= kMaxN && !f.a_rows_contiguous; }
};
// Packets, and at most kCols columns of C: past the multi-vector entries' columns, where taller and
// wider tiles would leave most columns of every tile empty (16384 x 32 x 16384 in 64 x 64 tiles: half).
template <int kCols>
struct columns_at_most_tiles {
  static constexpr GemmRole role = GemmRole::few_columns;
  static constexpr int max_columns = kCols;
  static constexpr bool needs_packets = true;
  static bool applies(const GemmFacts& f) { return f.packets && f.n <= kCols; }
};
// Cond, with op(A) m-contiguous and op(B) k-contiguous (NN on column-major operands), planned as kRole: for
// an entry whose micro-kernel reads that orientation alone in 16-byte pairs (fp64 DMMA), listed before the
// entries that take Cond in every orientation.
template <class Cond, GemmRole kRole = Cond::role>
struct nn {
  static constexpr GemmRole role = kRole;
  static constexpr bool needs_packets = Cond::needs_packets;
  static bool applies(const GemmFacts& f) {
    return Cond::applies(f) && f.a_rows_contiguous && !f.b_cols_contiguous;
  }
};
using packets_nn = nn<packets>;
// Both conditions, planned as kRole (default: the first's).
template <class C1, class C2, GemmRole kRole = C1::role>
struct both {
  static constexpr GemmRole role = kRole;
  static constexpr bool needs_packets = C1::needs_packets || C2::needs_packets;
  static bool applies(const GemmFacts& f) { return C1::applies(f) && C2::applies(f); }
};
// Operands of unit stride along their contiguous index whose lines are not all 16-byte aligned (an odd
// leading dimension, a sub-view at an odd offset), where Cond holds of the product as if they were packets:
// an entry whose copies move one element each (copy_bytes, gemm_team_async.hpp) reads them in place. The
// plan still copies them aligned where the table says a product pays for that (pack_min_extent): on the
// copies' whole cache lines the packet entries ran faster again (perf/results/2026-12-07-h100-71950e0/).
template <class Cond>
struct in_place {
  static constexpr GemmRole role = GemmRole::in_place;
  static constexpr bool needs_packets = false;
  static bool applies(const GemmFacts& f) {
    if (f.packets || !f.unit_stride) return false;
    GemmFacts aligned = f;
    aligned.packets = true;
    return Cond::applies(aligned);
  }
};
// A float product whose caller allows TF32. The entry reads both operands k-contiguous in packets;
// the plan copies them so where they are not.
struct tf32 {
  static constexpr GemmRole role = GemmRole::tf32;
  static constexpr bool needs_packets = true;
  static bool applies(const GemmFacts& f) { return f.tf32; }
};
}  // namespace when

// One table entry and its condition. Cfg void: no such entry in this build (it never applies).
template <class Cfg_, class When_>
struct GemmEntry {
  using Cfg = Cfg_;
  using When = When_;
};

// An entry's numbers that the plan needs, as run-time data. Its split K (choose_k_slices) fills
// split_teams teams per compute unit (min_blocks unless Cfg::split_teams_per_cu says otherwise), in
// slices of at least min_slice_steps K steps (Cfg::min_slice_steps, else 16), at most max_slices
// (Cfg::max_slices, else 16). An entry may also name deep_split_teams_per_cu and deep_slice_steps: on
// products deep enough for slices of that many K steps, it fills that many teams per compute unit
// instead (more slices), since there each slice's partial costs little against its products. An entry
// may name ragged_slice_steps: a product just past one wave of its split's teams, its second wave at most a
// quarter full, is split over all the teams its compute units hold (min_blocks each), in slices of at
// least that many K steps, where one slice would leave that second wave nearly empty. An entry may name
// saturating_teams_per_cu: the teams per compute unit that already keep it busy, where its occupancy holds
// more (min_blocks); a product whose tiles put that many on every compute unit runs in one slice, since a
// split would only add partials to teams that share the same unit's throughput. Only where its tiles are full
// in both extents: a product of fewer columns (or rows) than a tile is bound by its operand's bytes, not the
// unit's arithmetic, and more teams keep more of those bytes in flight.
struct GemmEntryParams {
  int bm = 0, bn = 0, bk = 0, min_blocks = 1, stages = 1;
  GemmRole role = GemmRole::general;
  bool needs_packets = false;
  int min_slice_steps = 16, max_slices = 16, split_teams = 1;
  int deep_split_teams = 0, deep_slice_steps = 0;  // 0: no deep split
  int ragged_slice_steps = 0;                      // 0: no split past a wave
  int saturating_teams = 0;                        // 0: the split's slots (split_teams) decide alone
};
template <class Cfg, class = void>
struct DeepSplit {
  static constexpr int teams = 0, steps = 0;
};
template <class Cfg>
struct DeepSplit<Cfg, std::void_t<decltype(Cfg::deep_split_teams_per_cu + Cfg::deep_slice_steps)>> {
  static constexpr int teams = Cfg::deep_split_teams_per_cu, steps = Cfg::deep_slice_steps;
};
template <class Cfg, class = void>
struct RaggedSliceSteps : std::integral_constant<int, 0> {};
template <class Cfg>
struct RaggedSliceSteps<Cfg, std::void_t<decltype(Cfg::ragged_slice_steps)>>
    : std::integral_constant<int, Cfg::ragged_slice_steps> {};
template <class Cfg, class = void>
struct SaturatingTeams : std::integral_constant<int, 0> {};
template <class Cfg>
struct SaturatingTeams<Cfg, std::void_t<decltype(Cfg::saturating_teams_per_cu)>>
    : std::integral_constant<int, Cfg::saturating_teams_per_cu> {};
template <class Cfg, class = void>
struct SplitTeams : std::integral_constant<int, Cfg::min_blocks> {};
template <class Cfg>
struct SplitTeams<Cfg, std::void_t<decltype(Cfg::split_teams_per_cu)>>
    : std::integral_constant<int, Cfg::split_teams_per_cu> {};
template <class Cfg, class = void>
struct MinSliceSteps : std::integral_constant<int, 16> {};
template <class Cfg>
struct MinSliceSteps<Cfg, std::void_t<decltype(Cfg::min_slice_steps)>>
    : std::integral_constant<int, Cfg::min_slice_steps> {};
template <class Cfg, class = void>
struct MaxSlices : std::integral_constant<int, 16> {};
template <class Cfg>
struct MaxSlices<Cfg, std::void_t<decltype(Cfg::max_slices)>> : std::integral_constant<int, Cfg::max_slices> {
};
// A tile configuration's numbers alone (role general, no packets), for kernels launched directly.
template <class Cfg>
GemmEntryParams tile_params() {
  GemmEntryParams p{Cfg::bm, Cfg::bn, Cfg::bk, Cfg::min_blocks, Cfg::stages};
  p.min_slice_steps = MinSliceSteps<Cfg>::value, p.max_slices = MaxSlices<Cfg>::value;
  p.split_teams = SplitTeams<Cfg>::value;
  p.deep_split_teams = DeepSplit<Cfg>::teams, p.deep_slice_steps = DeepSplit<Cfg>::steps;
  p.ragged_slice_steps = RaggedSliceSteps<Cfg>::value;
  p.saturating_teams = SaturatingTeams<Cfg>::value;
  return p;
}
template <class E>
GemmEntryParams entry_params() {
  GemmEntryParams p = tile_params<typename E::Cfg>();
  p.role = E::When::role, p.needs_packets = E::When::needs_packets;
  return p;
}

// A table's GEMM entries, first match wins.
template <class... E>
struct GemmEntries {
  static constexpr int size = sizeof...(E);
  // The index of the first entry that exists and whose condition holds for f; usable(i) may veto
  // an entry (a kernel that cannot stage these operands in packets); -1: none.
  template <class Usable>
  static int first_applying(const GemmFacts& f, const Usable& usable) {
    int i = 0, found = -1;
    ((found < 0 && !std::is_void_v<typename E::Cfg> && E::When::applies(f) && usable(i) ? found = i : 0, ++i),
     ...);
    return found;
  }
  // The index of the first existing entry with role r; -1: none.
  static int find(GemmRole r) {
    int i = 0, found = -1;
    ((found < 0 && !std::is_void_v<typename E::Cfg>&& E::When::role == r ? found = i : 0, ++i), ...);
    return found;
  }
  static GemmEntryParams params(int index) {
    GemmEntryParams p;
    int i = 0;
    ((i++ == index ? (void)(p = params_or_none<E>()) : (void)0), ...);
    return p;
  }
  // Calls f(E{}) for entry `index`; every entry's f is instantiated (void entries are skipped).
  template <class F>
  static void visit(int index, F&& f) {
    int i = 0;
    ((i++ == index ? visit_one<E>(f) : (void)0), ...);
  }

 private:
  template <class X>
  static GemmEntryParams params_or_none() {
    if constexpr (std::is_void_v<typename X::Cfg>) {
      return {};
    } else {
      return entry_params<X>();
    }
  }
  template <class X, class F>
  static void visit_one(F& f) {
    if constexpr (!std::is_void_v<typename X::Cfg>) f(X{});
  }
};

// The entry of role r in list L (void where L has none), for tests, reports and sweeps.
template <class L, GemmRole r>
struct EntryWithRole;
template <GemmRole r>
struct EntryWithRole<GemmEntries<>, r> {
  using type = void;
};
template <GemmRole r, class E, class... Rest>
struct EntryWithRole<GemmEntries<E, Rest...>, r> {
  using type = std::conditional_t<E::When::role == r && !std::is_void_v<typename E::Cfg>, typename E::Cfg,
                                  typename EntryWithRole<GemmEntries<Rest...>, r>::type>;
};

// ---- split-K -----------------------------------------------------------------------------------
// How many K slices a GEMM with `tiles` C tiles is split into. Split-K pays only when the tiles
// cannot fill the device (fewer tiles than resident teams, e.g. 64 x 16384 x 16384): then a wave
// model picks the slice count with the least time per slice, ceil(tiles * s / teams) / s, taking
// a larger s only for a gain of 3% or more, since each slice adds an M x N partial to write and
// read. Every slice keeps at least min_steps K steps, and there are at most max_slices (the entry's,
// GemmEntryParams). The slices' teams fill at most two waves: past that the model's gain is only the
// rounding of many waves, which the partials cost more than it saves. DGEMM 960^3 (225 small tiles for
// 264 split slots) took 7 slices, 1575 teams in 5.97 waves (cost 0.857), and ran 77.3 us against 54.7 for
// 1024^3 unsplit, 0.52 of cuBLAS (perf/results/2026-12-07-h100-27c2b41/).
inline int choose_k_slices(std::int64_t tiles, std::int64_t k, int bk, std::int64_t resident_teams,
                           int min_steps = 16, int max_slices = 16) {
  if (resident_teams <= 0 || tiles >= resident_teams) return 1;
  const std::int64_t max_by_k = k / (min_steps * std::int64_t(bk));
  int best = 1;
  double best_cost = 1.0;
  for (int s = 2; s <= max_slices && s <= max_by_k && tiles * s <= 2 * resident_teams; ++s) {
    const double cost = double((tiles * s + resident_teams - 1) / resident_teams) / s;
    if (cost < 0.97 * best_cost) best = s, best_cost = cost;
  }
  return best;
}

// Slices start on a K-step boundary, so every slice but the last is whole K steps: asking for
// `slices` gives this many, each k_chunk deep.
struct KSplit {
  int slices;
  std::int64_t k_chunk;
};
inline KSplit split_k(std::int64_t k, int bk, int slices) {
  const std::int64_t steps = (k + bk - 1) / bk;
  const std::int64_t chunk = (steps + slices - 1) / slices * bk;
  return {static_cast<int>((k + chunk - 1) / chunk), chunk};
}

// split where its partials (split.slices M x N blocks of acc_bytes accumulators) fit under the workspace
// limit, else one slice of all of K.
inline KSplit within_workspace(KSplit split, std::int64_t m, std::int64_t n, std::int64_t k,
                               std::size_t acc_bytes) {
  const double bytes = double(split.slices) * double(m) * double(n) * double(acc_bytes);
  return bytes <= double(workspace_registry().limit.load()) ? split : KSplit{1, k};
}

// Whether role r is a multi-vector entry's (either form): not a tile kernel; its split is
// multi_vector_split's, in whole passes, and it is never peeled.
inline bool multi_vector_role(GemmRole r) {
  return r == GemmRole::multi_vector || r == GemmRole::multi_vector_dot;
}

// The K split of an M x N x K product on entry p: one slice for single-stage (host) entries, where a
// core per tile is plenty and staging is K-global, and where the partials (acc_bytes each) would pass
// the workspace limit.
inline KSplit plan_k_split(const GemmEntryParams& p, std::int64_t m, std::int64_t n, std::int64_t k,
                           std::int64_t compute_units, std::size_t acc_bytes) {
  if (p.stages == 1) return {1, k};
  const std::int64_t tiles = tiles_of(m, n, p.bm, p.bn);
  if (p.saturating_teams > 0 && m >= p.bm && n >= p.bn && tiles >= compute_units * p.saturating_teams)
    return {1, k};
  int slices =
      choose_k_slices(tiles, k, p.bk, compute_units * p.split_teams, p.min_slice_steps, p.max_slices);
  if (p.deep_split_teams > p.split_teams) {
    const int deep =
        choose_k_slices(tiles, k, p.bk, compute_units * p.deep_split_teams, p.deep_slice_steps, p.max_slices);
    if (deep > slices) slices = deep;
  }
  const std::int64_t split_slots = compute_units * p.split_teams;
  if (slices == 1 && p.ragged_slice_steps > 0 && tiles > split_slots &&
      4 * (tiles - split_slots) <= split_slots)
    slices =
        choose_k_slices(tiles, k, p.bk, compute_units * p.min_blocks, p.ragged_slice_steps, p.max_slices);
  if (slices == 1) return {1, k};
  return within_workspace(split_k(k, p.bk, slices), m, n, k, acc_bytes);
}

// The K slices of a multi-vector product (role multi_vector): its row blocks of rows_per_team rows
// times the slices make as many teams as fit in `teams` (the rows alone cannot fill a device: 16384 rows are
// 32 teams of 512), each slice at least min_depth deep and a whole number of `unroll` columns, at most
// max_slices; one slice where the partials would pass the workspace limit. Not more teams than that: 16384 x
// 16 x 16384 fp32 took 13 slices, 416 teams for 396 slots, and ran 0.572 ms against 0.460 in 8 slices
// (`ridgeline tune`, perf/results/2026-12-04-h200-47dfb86/, -tune-fp32.txt): the 20 teams past the slots ran
// as a second wave.
inline KSplit plan_multi_vector_split(std::int64_t m, std::int64_t n, std::int64_t k, int rows_per_team,
                                      std::int64_t teams, int min_depth, int unroll, std::size_t acc_bytes,
                                      int max_slices) {
  const std::int64_t row_blocks = (m + rows_per_team - 1) / rows_per_team;
  std::int64_t s = teams / row_blocks;  // whole: a team past the slots would start a second wave
  if (s > k / min_depth) s = k / min_depth;
  if (s > max_slices) s = max_slices;
  if (s <= 1) return {1, k};
  return within_workspace(split_k(k, unroll, static_cast<int>(s)), m, n, k, acc_bytes);  // whole unroll steps
}

// plan_multi_vector_split for a multi-vector entry's numbers (either form), as its table gives them: bm
// rows per team, bk the least K per slice, min_blocks teams per compute unit, stages the K granularity of
// a slice (the unroll down A's columns; the staged pass along A's rows).
inline KSplit multi_vector_split(const GemmEntryParams& p, std::int64_t m, std::int64_t n, std::int64_t k,
                                 std::int64_t compute_units, std::size_t acc_bytes) {
  return plan_multi_vector_split(m, n, k, p.bm, compute_units * p.min_blocks, p.bk, p.stages, acc_bytes,
                                 p.max_slices);
}

// ---- peeling M / N remainders off the packet entry -----------------------------------------------
// A remainder of a few rows or columns still costs its tiles a full K loop. Where those tiles start
// one more wave (4097^3 on the H200: 33 x 33 = 1089 tiles of 128 x 128 over 264 team slots, five
// waves; 32 x 32 = 1024 fit in four), the bulk of C runs alone and the remainders run after it as
// their own products, which pick their own entries and split K. The same cut pays where the tile
// count itself quantizes badly: DGEMM 2500^3 is 800 tiles of 128 x 64 over 264 slots, 3.03 waves run as
// four; its bulk of 19 x 39 tiles runs in three, and the 59 remainder tiles split K across the device.
// Stream-K (the last waves' K steps shared evenly by one wave of teams, partial tiles summed by a fixup)
// was built against this on the fp64 DMMA entries and dropped (git 114edfa, 8b41f47; reverted): where
// the wave model promised 13-22% it gained 0-1.5% (DGEMM 2500^3 on 128 x 64 tiles 0.800 ms against
// 0.812 peeled, on the 64 x 64 small tiles 0.717 against 0.713), and it lost 5-15% elsewhere (1536^3
// 0.215 against 0.182, 2048^3 0.412 against 0.365): the pieces' workspace traffic and the fixup cost
// what the balance gained. With two or three teams per SM a team left alone in a last wave runs faster,
// so a partial wave costs much less than a tile's time
// (perf/results/2026-12-01-h200-8b41f47/h200-2026-12-01-8b41f47-streamk- sweep.txt; the first version also
// spilled, -8b41f47-streamk-ptxas.txt). Persistent teams (a league of two or three teams per SM, each
// computing every league-th tile with its copies running ahead across tiles) were built for the same fp64
// entries and dropped too (git 71b0821, 0e9dbe8; reverted): 0.91x on DGEMM 8192^3, 0.92x on 4096^3,
// 0.88-0.92x on the deep cliffs rows, 1.03x on 4096^2x64 alone
// (perf/results/2026-12-04-h200-0e9dbe8/h200-2026-12-04-0e9dbe8-README.md).
struct PeelPlan {
  std::int64_t m0 = 0, n0 = 0;  // the bulk: rows [0, m0) x columns [0, n0); m0 == 0: no peeling
};

// The time of `tiles` tiles of a k-deep product run alone, in waves of full-depth tiles over
// `resident` team slots, with the split-K choose_k_slices would make.
inline double tiles_cost(std::int64_t tiles, std::int64_t k, int bk, std::int64_t resident) {
  if (tiles <= 0) return 0.0;
  const int s = choose_k_slices(tiles, k, bk, resident);
  return double((tiles * s + resident - 1) / resident) / s;
}

// The bulk to run alone, if any: among the cuts that keep all whole tile rows and columns, or one
// fewer of each, the one whose wave-model time (the bulk's waves, then each remainder's) is least,
// if it beats the unpeeled product by 2% (each remainder adds a launch, and split-K partials).
// resident: the team slots of the device (0: unknown, no peeling); k and bk: the depth and the
// entry's K step, for the remainders' split.
inline PeelPlan plan_peel(std::int64_t m, std::int64_t n, std::int64_t k, int bm, int bn, int bk,
                          std::int64_t resident) {
  const std::int64_t tiles_m = (m + bm - 1) / bm, tiles_n = (n + bn - 1) / bn, full = tiles_m * tiles_n;
  if (resident <= 0 || full < resident) return {};  // one partial wave either way (split-K territory)
  PeelPlan best;
  double best_cost = 0.98 * double((full + resident - 1) / resident);
  for (std::int64_t fm = m / bm; fm > 0 && fm + 1 >= m / bm; --fm) {
    for (std::int64_t fn = n / bn; fn > 0 && fn + 1 >= n / bn; --fn) {
      const std::int64_t m0 = fm * bm, n0 = fn * bn;
      if (m0 == m && n0 == n) continue;
      const double cost = tiles_cost(fm * fn, k, bk, resident) +
                          tiles_cost((tiles_m - fm) * tiles_n, k, bk, resident) +  // rows below, full width
                          tiles_cost(fm * (tiles_n - fn), k, bk, resident);  // columns right of the bulk
      if (cost < best_cost) best = {m0, n0}, best_cost = cost;
    }
  }
  return best;
}

// ---- the plan --------------------------------------------------------------------------------
struct GemmPlan {
  int entry = -1;  // index in the table's entry list
  GemmRole role = GemmRole::general;
  // op(A) / op(B) is first copied into an aligned buffer (lines on cache lines, packed_lead): an operand that
  // cannot stage in packets, or a k-contiguous one whose lines are off the table's sectors
  // (copy_k_lines_off).
  bool copy_a_aligned = false, copy_b_aligned = false;
  bool copy_a = false, copy_b = false;  // TF32: op(A) / op(B) are first copied k-contiguous
  bool transposed = false;              // the entry runs C^T = op(B)^T * op(A)^T (skinny M as skinny N)
  KSplit split{1, 0};                   // of the product the entry runs (the bulk, where peeled)
  PeelPlan peel;                        // the bulk that runs alone; its remainders are planned as
                                        // products of their own when they run
  bool calling_thread = false;          // runs on the calling thread, with no parallel launch (a host
                                        // table's calling_thread_flops; never split or peeled)
  bool copies_aligned() const { return copy_a_aligned || copy_b_aligned; }
};
// What a plan copies aligned, as its descriptions name it (gemm_tile_config's staging, the tuner's plans):
// "op(A)", "op(B)" or "operands" (both); for a plan with copies_aligned().
inline const char* aligned_copies_name(const GemmPlan& p) {
  return !p.copy_b_aligned ? "op(A)" : !p.copy_a_aligned ? "op(B)" : "operands";
}

// The rest of a plan once its entry is chosen: the peel (packet entries with more than one stage) and
// the K split of what the entry runs. compute units and acc_bytes as above.
inline void plan_peel_and_split(GemmPlan& plan, const GemmEntryParams& p, std::int64_t m, std::int64_t n,
                                std::int64_t k, std::int64_t compute_units, std::size_t acc_bytes) {
  plan.peel = {};
  if (multi_vector_role(p.role)) {
    plan.split = multi_vector_split(p, m, n, k, compute_units, acc_bytes);
    return;
  }
  // Only the packet entries peel: narrow ones have no rows to spare, and the small-tile entry ran its
  // products faster whole (DGEMM 2500x2500x1000: 0.300 ms whole, 0.364 peeled;
  // perf/results/2026-12-01-h200-e50b3ec/h200-2026-12-01-e50b3ec-plans-sweep.txt).
  if (p.role == GemmRole::packets && p.stages > 1)
    plan.peel = plan_peel(m, n, k, p.bm, p.bn, p.bk, compute_units * p.min_blocks);
  const bool peeled = plan.peel.m0 > 0;
  plan.split =
      plan_k_split(p, peeled ? plan.peel.m0 : m, peeled ? plan.peel.n0 : n, k, compute_units, acc_bytes);
}

}  // namespace ridgeline::detail
