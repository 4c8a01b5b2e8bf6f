// GEMV correctness, written once and compiled for every enabled Kokkos backend.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstring>
#include <ridgeline/ridgeline.hpp>
#include <string>
#include <vector>

#include "reference.hpp"

namespace ridgeline::test {
namespace {

struct GemvCase {
  std::int64_t m, n;  // A is m x n
  char trans;
  Lay la, lx, ly;
  double alpha, beta;
  Dt dt;
  std::uint64_t seed;
};

std::string describe(const GemvCase& c) {
  std::ostringstream s;
  s << name(c.dt) << "gemv " << c.trans << " " << c.m << "x" << c.n << " layouts " << name(c.la) << name(c.lx)
    << name(c.ly) << " alpha=" << c.alpha << " beta=" << c.beta;
  return s.str();
}

void PrintTo(const GemvCase& c, std::ostream* os) {
  *os << describe(c);
}

template <class T, class TY, class LA, class LX, class LY>
void run_gemv(const GemvCase& c) {
  const bool t = c.trans == 'T';
  const std::int64_t nx = t ? c.m : c.n, ny = t ? c.n : c.m;
  auto A = make_matrix<T, LA>("A", c.m, c.n);
  auto x = make_vector<T, LX>("x", nx);
  auto y = make_vector<TY, LY>("y", ny);
  fill_random(A, c.seed * 3 + 1);
  fill_random(x, c.seed * 3 + 2);
  if (c.beta == 0) {
    fill_value(y, poison<TY>());
  } else {
    fill_random(y, c.seed * 3 + 3);
  }
  const HostMatrix hA = to_host(A), hx = to_host(x), hy0 = to_host(y);
  const char tr[2] = {c.trans, 0};
  using S = detail::GemmScalar<decltype(A)>;
  ridgeline::gemv(Exec(), tr, static_cast<S>(c.alpha), A, x, static_cast<S>(c.beta), y);
  Kokkos::fence();
  // y = alpha * op(A) x + beta * y is the GEMM of op(A) with the one-column matrix x.
  const Tolerance tol = tolerance_of<T, TY>();
  const auto want = reference_gemm(transpose_if(hA, t), hx, hy0, c.alpha, c.beta, tol.acc, tol.out);
  EXPECT_TRUE(matches(to_host(y), want)) << describe(c);
}

template <class T, class TY>
void run_layouts(const GemvCase& c) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  const auto key = std::string(name(c.la)) + name(c.lx) + name(c.ly);
  if (key == "LLL") return run_gemv<T, TY, L, L, L>(c);
  if (key == "RLL") return run_gemv<T, TY, R, L, L>(c);
  if (key == "SSS") return run_gemv<T, TY, S, S, S>(c);
  if (key == "LSL") return run_gemv<T, TY, L, S, L>(c);
  if (key == "RLS") return run_gemv<T, TY, R, L, S>(c);
  FAIL() << "no instantiation for layouts " << key;
}

void run(const GemvCase& c) {
  // The Kokkos 5.2 run at -O1 (RIDGELINE_TEST_REDUCED=2, scripts/check_kokkos5.sh) skips the cases over
  // 4 million elements (30 of 96), most of its time; the sanitizer runs (=1) keep them.
  if (reduced_wide() && c.m * c.n > 4000000) GTEST_SKIP() << "reduced run (wide cases)";
  with_dtype(c.dt, [&](auto in, auto out) { run_layouts<decltype(in), decltype(out)>(c); });
}

const double kScalars[] = {0.0, 1.0, -1.5, 0.3};

std::vector<GemvCase> shape_cases() {
  const std::vector<std::array<std::int64_t, 2>> shapes = {
      {0, 7},     {7, 0},      {0, 0},     {1, 1},       {7, 7},      {1, 7},     {7, 1},    {13, 15},
      {179, 211}, {3071, 517}, {12, 3071}, {1000, 1000}, {513, 1025}, {4096, 33}, {5003, 37}};
  std::vector<GemvCase> cases;
  std::uint64_t seed = 500;
  for (const auto& s : shapes)
    for (char t : {'N', 'T'})
      for (Dt dt : kAllDtypes)
        cases.push_back({s[0], s[1], t, Lay::left, Lay::left, Lay::left, -1.5, 0.3, dt, seed++});
  return cases;
}

class GemvShapes : public ::testing::TestWithParam<GemvCase> {};
TEST_P(GemvShapes, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, GemvShapes, ::testing::ValuesIn(shape_cases()));

std::vector<GemvCase> layout_cases() {
  const Lay mixes[][3] = {{Lay::left, Lay::left, Lay::left},
                          {Lay::right, Lay::left, Lay::left},
                          {Lay::stride, Lay::stride, Lay::stride},
                          {Lay::left, Lay::stride, Lay::left},
                          {Lay::right, Lay::left, Lay::stride}};
  std::vector<GemvCase> cases;
  std::uint64_t seed = 800;
  int ab = 0;
  for (char t : {'N', 'T'})
    for (const auto& mix : mixes)
      for (Dt dt : kAllDtypes) {
        const double alpha = kScalars[1 + ab % 3], beta = kScalars[(ab / 3) % 4];
        ++ab;
        cases.push_back({301, 157, t, mix[0], mix[1], mix[2], alpha, beta, dt, seed++});
      }
  return cases;
}

class GemvLayouts : public ::testing::TestWithParam<GemvCase> {};
TEST_P(GemvLayouts, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, GemvLayouts, ::testing::ValuesIn(layout_cases()));

std::vector<GemvCase> alpha_beta_cases() {
  std::vector<GemvCase> cases;
  std::uint64_t seed = 900;
  for (double alpha : kScalars)
    for (double beta : kScalars)
      for (char t : {'N', 'T'})
        cases.push_back(
            {45, 38, t, Lay::left, Lay::left, Lay::left, alpha, beta, kAllDtypes[seed % 6], seed++});
  return cases;
}

class GemvAlphaBeta : public ::testing::TestWithParam<GemvCase> {};
TEST_P(GemvAlphaBeta, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, GemvAlphaBeta, ::testing::ValuesIn(alpha_beta_cases()));

TEST(Gemv, GuardBandAroundSubviews) {
  const std::int64_t M = 77, N = 91, pad = 4;
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> bigA("bigA", M + 2 * pad, N + 2 * pad);
  Kokkos::View<double*, Mem> bigx("bigx", N + 2 * pad), bigy("bigy", M + 2 * pad);
  fill_random(bigA, 41), fill_random(bigx, 42), fill_random(bigy, 43);
  auto A = Kokkos::subview(bigA, std::make_pair(pad, pad + M), std::make_pair(pad, pad + N));
  auto x = Kokkos::subview(bigx, std::make_pair(pad, pad + N));
  auto y = Kokkos::subview(bigy, std::make_pair(pad, pad + M));
  fill_value(y, poison<double>());
  const HostMatrix before = to_host(bigy);
  ridgeline::gemv(Exec(), "N", -1.5, A, x, 0.0, y);
  Kokkos::fence();
  const HostMatrix after = to_host(bigy);
  for (std::int64_t i = 0; i < after.rows; ++i)
    if (i < pad || i >= pad + M) EXPECT_EQ(std::memcmp(&after(i, 0), &before(i, 0), sizeof(double)), 0) << i;
  const auto want =
      reference_gemm(to_host(A), to_host(x), to_host(y), -1.5, 0.0, std::numeric_limits<double>::epsilon());
  EXPECT_TRUE(matches(to_host(y), want));
}

TEST(Gemv, RerunIsBitIdentical) {
  for (const char* t : {"N", "T"}) {
    Kokkos::View<float**, Kokkos::LayoutLeft, Mem> A("A", 1500, 1300);
    Kokkos::View<float*, Mem> x("x", 1500), y1("y1", 1500), y2("y2", 1500);
    fill_random(A, 51), fill_random(x, 52);
    auto xs = Kokkos::subview(x, std::make_pair(0, t[0] == 'N' ? 1300 : 1500));
    auto y1s = Kokkos::subview(y1, std::make_pair(0, t[0] == 'N' ? 1500 : 1300));
    auto y2s = Kokkos::subview(y2, std::make_pair(0, t[0] == 'N' ? 1500 : 1300));
    ridgeline::gemv(Exec(), t, 1.0f, A, xs, 0.0f, y1s);
    ridgeline::gemv(Exec(), t, 1.0f, A, xs, 0.0f, y2s);
    Kokkos::fence();
    const auto h1 = to_host(y1), h2 = to_host(y2);
    EXPECT_EQ(std::memcmp(h1.v.data(), h2.v.data(), h1.v.size() * sizeof(double)), 0) << t;
  }
}

}  // namespace
}  // namespace ridgeline::test

namespace ridgeline::test {
namespace {

// ---- the GEMV kernels with packets, on any backend --------------------------------------------
// The host table uses no packets and a GPU table uses nothing else on aligned data, so these small
// configurations run the packet paths (and their row tails) wherever this binary runs.
// For the dot kernel, groups of kLanes threads read two rows at once (16 rows per team: 16 /
// (team / lanes * 2) passes).
template <int kTeam, int kLanes>
struct PacketTiles {
  static constexpr int team_size = kTeam, vector_length = 1, lanes = kLanes, row_block = 2, rows = 16;
  static constexpr int unroll = 2, vec = 4, scratch_level = 0;
};

template <bool kRows, class Cfg>
void run_config(std::int64_t rows) {
  // 304 x 203 LayoutLeft storage: every column starts on a 4-element boundary; using `rows` < 304
  // of its rows leaves a partial packet at the bottom.
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> store("A", 304, 203);
  Kokkos::View<double*, Mem> x("x", 304), y("y", 304);
  fill_random(store, 61), fill_random(x, 62), fill_random(y, 63);
  auto A = Kokkos::subview(store, std::make_pair<std::int64_t>(0, rows), Kokkos::ALL);
  const bool t = !kRows;  // the dot kernel runs op(A) = A^T, whose columns are contiguous
  auto xs = Kokkos::subview(x, std::make_pair<std::int64_t>(0, t ? rows : 203));
  auto ys = Kokkos::subview(y, std::make_pair<std::int64_t>(0, t ? 203 : rows));
  const HostMatrix hA = to_host(A), hx = to_host(xs), hy0 = to_host(ys);
  const auto a = detail::strided_op(A, t ? detail::Trans::T : detail::Trans::N);
  const detail::Strided2D<const double> ac{a.data, a.rows, a.cols, a.rs, a.cs};
  const auto xv = detail::strided_vec(xs);
  const detail::Strided1D<const double> xc{xv.data, xv.n, xv.s};
  if constexpr (kRows) {
    using K = detail::GemvRows<Exec, Cfg, double, double, true, true>;
    typename K::policy_type probe(Exec(), 1, 1);
    if (probe.team_size_max(K{}, Kokkos::ParallelForTag()) < Cfg::team_size) GTEST_SKIP() << "small teams";
    detail::launch_gemv<K, Cfg>(Exec(), ac, xc, detail::strided_vec(ys), 0.5, 0.25);
  } else {
    using K = detail::GemvDot<Exec, Cfg, double, double, true, true>;
    typename K::policy_type probe(Exec(), 1, 1);
    if (probe.team_size_max(K{}, Kokkos::ParallelForTag()) < Cfg::team_size) GTEST_SKIP() << "small teams";
    detail::launch_gemv<K, Cfg>(Exec(), ac, xc, detail::strided_vec(ys), 0.5, 0.25);
  }
  Kokkos::fence();
  const auto want =
      reference_gemm(transpose_if(hA, t), hx, hy0, 0.5, 0.25, std::numeric_limits<double>::epsilon());
  EXPECT_TRUE(matches(to_host(ys), want)) << (kRows ? "rows" : "dot") << " kernel, " << rows << " rows";
}

template <bool kRows, int kTeam = 1, int kLanes = 1>
void run_packets(std::int64_t rows) {
  run_config<kRows, PacketTiles<kTeam, kLanes>>(rows);
}

TEST(GemvKernels, RowsWithPackets) {
  run_packets<true>(304);
  run_packets<true>(301);
}
TEST(GemvKernels, RowsWithPacketsAndColumnGroups) {
  run_packets<true, 8>(304);  // 4 threads along rows, 2 column groups reduced in scratch
  run_packets<true, 8>(301);
}
TEST(GemvKernels, DotWithPackets) {
  run_packets<false>(304);
  run_packets<false>(297);  // the last row block has one row
}
TEST(GemvKernels, DotWithPacketsAndLaneGroups) {
  // 4 lanes per row, 2 groups, 2 rows per group: 203 columns leave a tail of 11 after 6 steps of
  // 32, and 297 rows end on a partial row block and a partial team.
  run_packets<false, 8, 4>(304);
  run_packets<false, 8, 4>(297);
  run_packets<false, 8, 4>(298);
}

// The backend's own entries on a small problem, tall rows entry included where the table has one
// (gemv only picks it for products of tens of thousands of rows). Tall is void where it has none.
template <class Be, class Tall>
void run_table_entries() {
  run_config<true, typename Be::template gemv_rows<double>>(301);
  run_config<false, typename Be::template gemv_dot<double>>(297);
  if constexpr (!std::is_void_v<Tall>) run_config<true, Tall>(301);
}
TEST(GemvKernels, TableEntries) {
  using Be = detail::Backend<Exec, double>;
  run_table_entries<Be, typename detail::RowsTallCfgOf<Be, double>::type>();
}

// ---- a table's own kernels for unit-stride operands (GemvUnitKernelOf; the host's vector kernels) ----
// Launched directly, so that every block size the rows kernel can plan runs here whatever the thread
// count: rows kernel with blocks for 1, 2, 3 and 64 threads (5003 rows: blocks capped at the table's
// most, a partial last block, rows past the last whole vector), 517 columns (a tail after whole passes);
// dot kernel on 297 rows (a partial row block) of 203 and 4099 columns (tails after whole steps). Each
// launch twice: bit-identical.
template <bool kRows>
void run_unit_kernel(std::int64_t rows, std::int64_t cols, int threads) {
  using Be = detail::Backend<Exec, double>;
  using Cfg = std::conditional_t<kRows, typename Be::template gemv_rows<double>,
                                 typename Be::template gemv_dot<double>>;
  using K = typename detail::GemvUnitKernelOf<Cfg, Exec, double, double>::type;
  if constexpr (std::is_void_v<K>) {
    GTEST_SKIP() << "no unit-stride kernel in this table";
  } else {
    // op(A) is rows x cols: A itself for the rows kernel (LayoutLeft), A^T for the dot kernel.
    const bool t = !kRows;
    Kokkos::View<double**, Kokkos::LayoutLeft, Mem> A("A", t ? cols : rows, t ? rows : cols);
    Kokkos::View<double*, Mem> x("x", cols), y("y", rows), y2("y2", rows);
    fill_random(A, 71 + rows), fill_random(x, 72 + cols), fill_random(y, 73);
    Kokkos::deep_copy(y2, y);
    const HostMatrix hA = to_host(A), hx = to_host(x), hy0 = to_host(y);
    const auto a = detail::strided_op(A, t ? detail::Trans::T : detail::Trans::N);
    const detail::Strided2D<const double> ac{a.data, a.rows, a.cols, a.rs, a.cs};
    const detail::Strided1D<const double> xc{x.data(), cols, 1};
    for (auto* out : {&y, &y2}) {
      const auto yv = detail::strided_vec(*out);
      if constexpr (kRows) {
        detail::launch_gemv_unit(Exec(), K{ac, xc, yv, 0.5, 0.25, K::plan_block_rows(rows, threads)});
      } else {
        detail::launch_gemv_unit(Exec(), K{ac, xc, yv, 0.5, 0.25});
      }
    }
    Kokkos::fence();
    const auto want =
        reference_gemm(transpose_if(hA, t), hx, hy0, 0.5, 0.25, std::numeric_limits<double>::epsilon());
    const auto h1 = to_host(y), h2 = to_host(y2);
    EXPECT_TRUE(matches(h1, want)) << (kRows ? "rows" : "dot") << " " << rows << "x" << cols << ", "
                                   << threads << " threads";
    EXPECT_EQ(std::memcmp(h1.v.data(), h2.v.data(), h1.v.size() * sizeof(double)), 0);
  }
}
TEST(GemvKernels, UnitStrideRowsKernelEveryBlockPlan) {
  for (int threads : {1, 2, 3, 64}) run_unit_kernel<true>(5003, 517, threads);
  run_unit_kernel<true>(7, 3, 2);  // fewer rows than a vector, fewer columns than a pass
}
TEST(GemvKernels, UnitStrideDotKernel) {
  run_unit_kernel<false>(297, 203, 1);
  run_unit_kernel<false>(297, 4099, 1);
  run_unit_kernel<false>(5, 7, 1);  // fewer rows than a row block, fewer columns than a step
  // Rows of at most the table's short_row_bytes (4 KB: 512 doubles) run one at a time: just inside, with a
  // vector and a scalar tail (509), and just outside.
  run_unit_kernel<false>(67, 509, 2);
  run_unit_kernel<false>(67, 512, 2);
  run_unit_kernel<false>(67, 513, 2);
}
// The rows kernel's blocks (pure): the rows spread over the threads in whole vectors, capped. A
// template, so that a table without a unit-stride kernel (K void, as on CUDA) discards the checks
// instead of compiling them: outside a template, if constexpr still checks its discarded branch.
template <class K>
void check_rows_blocks() {
  if constexpr (std::is_void_v<K>) {
    GTEST_SKIP() << "no unit-stride kernel in this table";
  } else {
    EXPECT_EQ(K::plan_block_rows(4096, 2), std::min<std::int64_t>(2048, K::kMaxRows));
    EXPECT_EQ(K::plan_block_rows(3071, 2),
              std::min<std::int64_t>((1536 + K::W - 1) / K::W * K::W, K::kMaxRows));
    EXPECT_EQ(K::plan_block_rows(1 << 20, 2), K::kMaxRows);
    EXPECT_EQ(K::plan_block_rows(5, 8), K::W);
    EXPECT_EQ(K::plan_block_rows(100, 0), std::min<std::int64_t>(112, K::kMaxRows)) << "no thread count: one";
    const Exec exec;
    EXPECT_EQ((gemv_config<Exec, float>(true, &exec, 4096, 4096).kernel),
              "rows (vector registers, at unit stride)");
    EXPECT_EQ((gemv_config<Exec, float>(false, &exec, 4096, 4096).kernel),
              "dot (vector registers, at unit stride)");
    EXPECT_EQ((gemv_config<Exec, float>(false, &exec, 50000, 1024).kernel),
              "dot (vector registers, at unit stride; short rows)");
    EXPECT_EQ((gemv_config<Exec, float>(false, &exec, 50000, 1025).kernel),
              "dot (vector registers, at unit stride)");
  }
}
TEST(GemvDispatch, UnitStrideRowsBlocks) {
  using Be = detail::Backend<Exec, float>;
  check_rows_blocks<
      typename detail::GemvUnitKernelOf<typename Be::template gemv_rows<float>, Exec, float, float>::type>();
}

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
// Kokkos 3.4 gives every team kernel the largest shared carveout; the CUDA dot entry asks for L1
// instead (backends/cuda/carveout.hpp) once it has run, and must still compute the same.
TEST(GemvKernels, DotEntryCarveoutLeavesL1) {
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    using Cfg = typename detail::Backend<Exec, double>::template gemv_dot<double>;
    run_config<false, Cfg>(297);
    run_config<false, Cfg>(304);  // after the carveout changed
    const int percent = backends::cuda::carveout_of<detail::GemvDot<Exec, Cfg, double, double, true, true>>();
    EXPECT_GT(percent, 0);
    EXPECT_LT(percent, 100);
  }
}
#endif

template <class Be, class Tall>
void expect_tall_choice() {
  if constexpr (std::is_void_v<Tall>) {
    EXPECT_FALSE((detail::gemv_uses_tall<Exec, float>)(Exec(), 1 << 20)) << "no tall entry in this table";
  } else {
    const std::int64_t cu = detail::ComputeUnits<Be, Exec>::of(Exec());
    if (cu <= 0) GTEST_SKIP() << "the table names no compute units";
    using Reg = typename Be::template gemv_rows<float>;
    // One full wave of tall teams; then rows that fill the device with regular teams, which would
    // leave it half empty in tall ones.
    EXPECT_TRUE((detail::gemv_uses_tall<Exec, float>)(Exec(), cu * Tall::rows));
    EXPECT_FALSE((detail::gemv_uses_tall<Exec, float>)(Exec(), cu * Reg::rows));
  }
}
// ---- a wide GEMV split along its columns (gemv_split_columns) --------------------------------------
// The table splits a rows-contiguous GEMV whose rows entry fills less than gemv_split_percent of its
// team slots: just inside and just outside that. Tables without a multi-vector entry never split.
TEST(GemvDispatch, SplitsColumnsOnlyBelowTheTableFill) {
  using Be = detail::Backend<Exec, float>;
  constexpr int pct = detail::GemvSplitPercent<Be>::value;
  const auto splits = [](std::int64_t rows) {
    return detail::gemv_splits_columns<Exec, float, float>(Exec(), rows);
  };
  if constexpr (std::is_void_v<detail::MultiVectorCfg<Exec, float>> || pct == 0) {
    EXPECT_FALSE(splits(1)) << "no split in this table";
  } else {
    const std::int64_t cu = detail::ComputeUnits<Be, Exec>::of(Exec());
    if (cu <= 0) GTEST_SKIP() << "the table names no compute units";
    using Reg = typename Be::template gemv_rows<float>;
    const std::int64_t slots = cu * detail::GemvMinBlocks<Reg>::value;
    const std::int64_t inside = (pct * slots + 99) / 100 - 1;  // the most rows-entry teams that still split
    EXPECT_TRUE(splits(inside * Reg::rows));
    EXPECT_FALSE(splits(inside * Reg::rows + 1));
    EXPECT_TRUE(splits(1000)) << "the products below must take the split route";
    EXPECT_FALSE((detail::gemv_splits_columns<Exec, Kokkos::Experimental::half_t, float>(Exec(), 1000)));
  }
}

// Products on the split route where the table has it (on the rows entry elsewhere): slices reduced
// by lanes (1000 x 20000: 78 slices of 256 columns in fp32), by threads (100 x 3000), a slice of its
// own (333 x 200), rows-contiguous op(A) from A as it is and from LayoutRight transposed, strided and
// unaligned x, y and A, beta zero (poisoned y) and not, every dtype.
std::vector<GemvCase> wide_cases() {
  const std::vector<std::array<std::int64_t, 2>> shapes = {
      {1000, 20000}, {100, 3000}, {333, 200}, {61, 4099}};
  const Lay mixes[][3] = {{Lay::left, Lay::left, Lay::left},
                          {Lay::stride, Lay::stride, Lay::stride},
                          {Lay::left, Lay::stride, Lay::left}};
  std::vector<GemvCase> cases;
  std::uint64_t seed = 1200;
  for (const auto& s : shapes)
    for (const auto& mix : mixes)
      for (Dt dt : kAllDtypes) {
        const double beta = seed % 2 ? 0.0 : 0.3;
        cases.push_back({s[0], s[1], 'N', mix[0], mix[1], mix[2], -1.5, beta, dt, seed++});
      }
  for (Dt dt : kAllDtypes)  // op(A) = A^T, rows-contiguous from LayoutRight
    cases.push_back({20000, 1000, 'T', Lay::right, Lay::left, Lay::stride, 0.7, 0.0, dt, seed++});
  // Short rows for the dot kernels (A^T of LayoutLeft A): 1000 elements; 4096 fp32 (16 KB, just inside the
  // CUDA table's short-row entry) and 4100 (just outside), with a row tail (300 rows).
  for (const auto& s : std::vector<std::array<std::int64_t, 2>>{{1000, 5000}, {4096, 300}, {4100, 300}})
    for (Dt dt : kAllDtypes)
      cases.push_back(
          {s[0], s[1], 'T', Lay::left, Lay::left, Lay::left, 1.25, seed % 2 ? 0.0 : -0.5, dt, seed++});
  return cases;
}

class GemvWide : public ::testing::TestWithParam<GemvCase> {};
TEST_P(GemvWide, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, GemvWide, ::testing::ValuesIn(wide_cases()));

// The short-row dot entry: rows of at most the table's bytes, just inside and just outside; never for
// tables without one. gemv_config reports what runs.
// The name gemv_config gives the regular entry of `kind` ("rows", "dot"): the table's unit-stride kernel's
// where it has one, which runs fp32 dot rows of at most its kShortBytes one at a time (`cols`).
template <class K, class = void>
struct ShortRowBytes : std::integral_constant<std::int64_t, 0> {};  // the rows kernel has no short rows
template <class K>
struct ShortRowBytes<K, std::void_t<decltype(K::kShortBytes)>>
    : std::integral_constant<std::int64_t, K::kShortBytes> {};
template <class Cfg>
std::string regular_gemv_name(const std::string& kind, std::int64_t cols = 0) {
  using Unit = typename detail::GemvUnitKernelOf<Cfg, Exec, float, float>::type;
  if constexpr (std::is_void_v<Unit>) {
    return kind;
  } else {
    if (cols > 0 && cols * std::int64_t(sizeof(float)) <= ShortRowBytes<Unit>::value)
      return kind + " (vector registers, at unit stride; short rows)";
    return kind + " (vector registers, at unit stride)";
  }
}
template <class Short>
void expect_short_dot() {
  const auto uses = [](std::int64_t cols) { return detail::gemv_uses_short_dot<Exec, float>(cols); };
  const Exec exec;
  using Be = detail::Backend<Exec, float>;
  if constexpr (Short::max_bytes == 0) {
    EXPECT_FALSE(uses(1)) << "no short-row entry in this table";
    EXPECT_EQ((gemv_config<Exec, float>(false, &exec, 100000, 1000).kernel),
              regular_gemv_name<typename Be::template gemv_dot<float>>("dot", 1000));
  } else {
    EXPECT_TRUE(uses(Short::max_bytes / 4));
    EXPECT_FALSE(uses(Short::max_bytes / 4 + 1));
    EXPECT_EQ((gemv_config<Exec, float>(false, &exec, 100000, 1000).kernel), "dot (short rows)");
    EXPECT_EQ((gemv_config<Exec, float>(false, &exec, 1000, 100000).kernel),
              regular_gemv_name<typename Be::template gemv_dot<float>>("dot"));
    EXPECT_EQ((gemv_config<Exec, float>(false, &exec, 100000, 1000).lanes), Short::type::lanes);
  }
}
TEST(GemvDispatch, ShortRowDotOnlyUpToTheTableBytes) {
  expect_short_dot<detail::DotShortCfgOf<detail::Backend<Exec, float>, float>>();
  const Exec exec;
  const bool split = detail::gemv_splits_columns<Exec, float, float>(exec, 1000);
  const GemvConfig wide = gemv_config<Exec, float>(true, &exec, 1000, 100000);
  using Rows = typename detail::Backend<Exec, float>::template gemv_rows<float>;
  EXPECT_EQ(wide.kernel == regular_gemv_name<Rows>("rows"), !split) << wide.kernel;
  EXPECT_EQ(wide.k_slices > 1, split);
}

TEST(GemvDispatch, SplitColumnsRerunIsBitIdentical) {
  for (const std::int64_t cols : {20000, 3000}) {
    Kokkos::View<double**, Kokkos::LayoutLeft, Mem> A("A", 1000, cols);
    Kokkos::View<double*, Mem> x("x", cols), y1("y1", 1000), y2("y2", 1000);
    fill_random(A, 61), fill_random(x, 62), fill_random(y1, 63);
    Kokkos::deep_copy(y2, y1);
    ridgeline::gemv(Exec(), "N", 1.0, A, x, 0.5, y1);
    ridgeline::gemv(Exec(), "N", 1.0, A, x, 0.5, y2);
    Kokkos::fence();
    const auto h1 = to_host(y1), h2 = to_host(y2);
    EXPECT_EQ(std::memcmp(h1.v.data(), h2.v.data(), h1.v.size() * sizeof(double)), 0) << cols;
  }
}

TEST(GemvDispatch, TallEntryOnlyWhereItFillsTheDevice) {
  EXPECT_DOUBLE_EQ(detail::wave_fill(256, 264), 256.0 / 264);
  EXPECT_DOUBLE_EQ(detail::wave_fill(265, 264), 265.0 / 528);
  using Be = detail::Backend<Exec, float>;
  expect_tall_choice<Be, typename detail::RowsTallCfgOf<Be, float>::type>();
}

}  // namespace
}  // namespace ridgeline::test
