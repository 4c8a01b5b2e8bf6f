// Batched and grouped GEMM correctness (gemm_batched, gemm_grouped), written once and compiled for every
// enabled Kokkos backend. Every matrix of every batch gets seeded random operands and is checked element by
// element against a double-precision reference; each dispatch path (small, tiles) runs at the edges of its
// range, in every transpose, both batch layouts (batch first and last) and mixed matrix layouts, with tails.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <ridgeline/ridgeline.hpp>
#include <string>
#include <vector>

#include "reference.hpp"

namespace ridgeline::test {
namespace {

using BL = ridgeline::BatchLayout;
using SmallCfg = detail::BatchedSmallCfgOf<Exec, double>;

// A rank-3 View holding `count` rows x cols matrices, the batch index first (BL::left) or last. A
// LayoutStride batch pads every stride (rows 2, columns 2 * rows + 3, matrices another 5 elements on),
// so no index is unit-stride.
template <class T, class Layout>
Kokkos::View<T***, Layout, Mem> make_batch(const std::string& label, std::int64_t count, std::int64_t rows,
                                           std::int64_t cols, BL bl) {
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutStride>) {
    const std::size_t rs = 2, cs = 2 * rows + 3, gs = cs * cols + 5;
    if (bl == BL::left)
      return Kokkos::View<T***, Layout, Mem>(label, Kokkos::LayoutStride(count, gs, rows, rs, cols, cs));
    return Kokkos::View<T***, Layout, Mem>(label, Kokkos::LayoutStride(rows, rs, cols, cs, count, gs));
  } else {
    if (bl == BL::left) return Kokkos::View<T***, Layout, Mem>(label, count, rows, cols);
    return Kokkos::View<T***, Layout, Mem>(label, rows, cols, count);
  }
}

// Host copies of the View's matrices, in double, and back; through a LayoutLeft copy in the View's own
// space (Kokkos copies across spaces only between contiguous Views).
template <class V>
auto host_copy_of(const V& v) {
  using T = typename V::non_const_value_type;
  Kokkos::View<T***, Kokkos::LayoutLeft, typename V::memory_space> c("contiguous", v.extent(0), v.extent(1),
                                                                     v.extent(2));
  Kokkos::deep_copy(c, v);
  auto h = Kokkos::create_mirror_view(c);
  Kokkos::deep_copy(h, c);
  return h;
}
template <class V>
std::vector<HostMatrix> to_host_batch(const V& v, BL bl) {
  const auto h = host_copy_of(v);
  const std::int64_t count = bl == BL::left ? v.extent(0) : v.extent(2);
  const std::int64_t rows = bl == BL::left ? v.extent(1) : v.extent(0);
  const std::int64_t cols = bl == BL::left ? v.extent(2) : v.extent(1);
  std::vector<HostMatrix> out(count);
  for (std::int64_t g = 0; g < count; ++g) {
    out[g].rows = rows, out[g].cols = cols, out[g].v.resize(rows * cols);
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j)
        out[g](i, j) = static_cast<double>(bl == BL::left ? h(g, i, j) : h(i, j, g));
  }
  return out;
}
template <class V>
void fill_batch(const V& v, std::uint64_t seed, bool poisoned = false) {
  using T = typename V::non_const_value_type;
  Kokkos::View<T***, Kokkos::LayoutLeft, typename V::memory_space> c("contiguous", v.extent(0), v.extent(1),
                                                                     v.extent(2));
  auto h = Kokkos::create_mirror_view(c);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (std::size_t k = 0; k < v.extent(2); ++k)
    for (std::size_t j = 0; j < v.extent(1); ++j)
      for (std::size_t i = 0; i < v.extent(0); ++i)
        h(i, j, k) = poisoned ? poison<T>() : static_cast<T>(d(gen));
  Kokkos::deep_copy(c, h);
  Kokkos::deep_copy(v, c);
}

struct BatchCase {
  std::int64_t count, m, n, k;
  char ta, tb;
  BL bl;
  Lay la, lb, lc;
  double alpha, beta;
  std::uint64_t seed;
};
std::string describe(const BatchCase& c) {
  std::ostringstream s;
  s << "gemm_batched " << c.ta << c.tb << " " << c.count << " x " << c.m << "x" << c.n << "x" << c.k
    << (c.bl == BL::left ? " batch first" : " batch last") << " layouts " << name(c.la) << name(c.lb)
    << name(c.lc) << " alpha=" << c.alpha << " beta=" << c.beta;
  return s.str();
}

// The path a case of `count` matrices names: where the table has a packed-panel batched entry (the host's),
// batches of at least as many matrices as threads that would take the tiles take the panels instead.
template <class T>
std::string path_for(const std::string& want_path, std::int64_t count) {
  const bool panels = want_path == "tiles" && !std::is_void_v<detail::BatchedPanelsCfgOf<Exec, T>> &&
                      count >= std::int64_t(Exec().concurrency());
  return panels ? "panels" : want_path;
}

// Runs the case and checks every element of every C_g; returns C for rerun comparisons.
template <class T, class TC, class LA, class LB, class LC>
std::vector<HostMatrix> run_batched(const BatchCase& c, const std::string& want_path = "") {
  const bool ta = c.ta == 'T', tb = c.tb == 'T';
  auto A = make_batch<T, LA>("A", c.count, ta ? c.k : c.m, ta ? c.m : c.k, c.bl);
  auto B = make_batch<T, LB>("B", c.count, tb ? c.n : c.k, tb ? c.k : c.n, c.bl);
  auto C = make_batch<TC, LC>("C", c.count, c.m, c.n, c.bl);
  fill_batch(A, c.seed * 3 + 1);
  fill_batch(B, c.seed * 3 + 2);
  fill_batch(C, c.seed * 3 + 3, c.beta == 0);  // beta == 0: C is pure output, poisoned
  const auto hA = to_host_batch(A, c.bl), hB = to_host_batch(B, c.bl), hC0 = to_host_batch(C, c.bl);
  const char tra[2] = {c.ta, 0}, trb[2] = {c.tb, 0};
  if (!want_path.empty()) {
    const std::string path = ridgeline::gemm_batched_config(Exec(), tra, trb, A, B, c.bl);
    const std::string want = path_for<T>(want_path, c.count);
    EXPECT_EQ(path.rfind(want, 0), 0u) << describe(c) << " ran " << path;
  }
  using S = detail::GemmScalar<decltype(A)>;
  ridgeline::gemm_batched(Exec(), tra, trb, static_cast<S>(c.alpha), A, B, static_cast<S>(c.beta), C, c.bl);
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, TC>();
  auto got = to_host_batch(C, c.bl);
  for (std::int64_t g = 0; g < c.count; ++g) {
    const auto want = reference_gemm(transpose_if(hA[g], ta), transpose_if(hB[g], tb), hC0[g], c.alpha,
                                     c.beta, tol.acc, tol.out);
    const auto r = matches(got[g], want);
    EXPECT_TRUE(r) << describe(c) << ", matrix " << g;
    if (!r) break;  // one matrix's report is enough
  }
  return got;
}

template <class T, class TC = T>
std::vector<HostMatrix> run_layouts(const BatchCase& c, const std::string& want_path = "") {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  const auto key = std::string(name(c.la)) + name(c.lb) + name(c.lc);
  if (key == "LLL") return run_batched<T, TC, L, L, L>(c, want_path);
  if (key == "RRR") return run_batched<T, TC, R, R, R>(c, want_path);
  if (key == "LRS") return run_batched<T, TC, L, R, S>(c, want_path);
  if (key == "SLR") return run_batched<T, TC, S, L, R>(c, want_path);
  ADD_FAILURE() << "no instantiation for layouts " << key;
  return {};
}

// Every transpose pair, both batch layouts, three layout mixes, on one shape of one path.
template <class T>
void every_orientation(std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k,
                       const std::string& path) {
  const Lay mixes[][3] = {{Lay::left, Lay::left, Lay::left},
                          {Lay::right, Lay::right, Lay::right},
                          {Lay::left, Lay::right, Lay::stride},
                          {Lay::stride, Lay::left, Lay::right}};
  std::uint64_t seed = 100;
  for (const char* tt : {"NN", "NT", "TN", "TT"})
    for (BL bl : {BL::left, BL::right})
      for (const auto& mix : mixes) {  // beta alternates between 0 (C poisoned) and -0.75
        run_layouts<T>(
            {count, m, n, k, tt[0], tt[1], bl, mix[0], mix[1], mix[2], 1.25, (seed % 2) ? 0.0 : -0.75, seed},
            path);
        ++seed;
      }
}

// ---- the small path: every extent within the table's small entry ----------------------------------
TEST(GemmBatched, SmallPathEveryOrientationFloat) {
  const int e = SmallCfg::max_extent;
  every_orientation<float>(37, e, e - 3, e, "small");
  every_orientation<float>(9, std::min(3, e), std::min(5, e), 2, "small");
}
TEST(GemmBatched, SmallPathEveryOrientationDouble) {
  const int e = SmallCfg::max_extent;
  every_orientation<double>(23, e - 1, e, std::max(e - 5, 1), "small");
  every_orientation<double>(11, 1, std::min(4, e), std::min(7, e), "small");
}
// Enough matrices that a team holds several (the plan spreads a batch over the device's team slots
// first), with a partial last team.
TEST(GemmBatched, SmallPathSeveralMatricesPerTeam) {
  const std::int64_t count = 20011;
  const char* tt[] = {"NN", "TT"};
  for (int i = 0; i < 2; ++i) {
    for (BL bl : {BL::left, BL::right}) {
      run_layouts<double>(
          {count, 4, 4, 4, tt[i][0], tt[i][1], bl, Lay::left, Lay::right, Lay::stride, -1.5, 0.5, 7u + i},
          "small");
      run_layouts<float>({count, std::min<std::int64_t>(8, SmallCfg::max_extent), 3,
                          std::min<std::int64_t>(5, SmallCfg::max_extent), tt[i][0], tt[i][1], bl, Lay::right,
                          Lay::right, Lay::right, 0.5, 0.0, 9u + i},
                         "small");
    }
  }
}

// ---- the tiles path: just outside the small entry, and tails over several tiles ---------------------
TEST(GemmBatched, TilesPathEveryOrientationFloat) {
  const int e = SmallCfg::max_extent + 1;
  every_orientation<float>(5, e, e, e, "tiles");
  every_orientation<float>(3, 70, 33, 41, "tiles");
  every_orientation<float>(2, 136, 132, 24, "tiles");  // the larger packet entry where the table has one
  // The edges of a table's entry for matrices of at most 32 x 32 (CUDA): just inside, with tails in
  // every extent, and one column past it.
  every_orientation<float>(6, 32, 32, 32, "tiles");
  every_orientation<float>(4, 28, 20, 12, "tiles");
  every_orientation<float>(3, 32, 36, 32, "tiles");
  // CUDA's entries for at most 32 rows (any columns) and at most 32 columns (any rows), with tails, and
  // one row past the first.
  every_orientation<float>(3, 24, 150, 20, "tiles");
  every_orientation<float>(3, 100, 20, 24, "tiles");
  every_orientation<float>(2, 33, 70, 18, "tiles");
}
TEST(GemmBatched, TilesPathEveryOrientationDouble) {
  const int e = SmallCfg::max_extent + 1;
  every_orientation<double>(4, e, 3, 40, "tiles");
  every_orientation<double>(3, 65, 129, 37, "tiles");
  every_orientation<double>(2, 136, 72, 40, "tiles");
  every_orientation<double>(6, 32, 32, 32, "tiles");
  every_orientation<double>(4, 20, 28, 36, "tiles");
  every_orientation<double>(3, 36, 32, 16, "tiles");
  every_orientation<double>(3, 30, 140, 21, "tiles");
  every_orientation<double>(3, 90, 28, 19, "tiles");
}

// ---- larger matrices: many tiles each, still one league ------------------------------------------
TEST(GemmBatched, TilesPathManyTilesPerMatrix) {
  run_layouts<float>({2, 300, 261, 50, 'N', 'T', BL::right, Lay::left, Lay::left, Lay::left, 1.0, 0.0, 31},
                     "tiles");
  run_layouts<double>(
      {3, 259, 200, 41, 'T', 'N', BL::left, Lay::right, Lay::right, Lay::right, -1.0, 2.0, 32}, "tiles");
}

// ---- 16-bit inputs: small and medium, float and 16-bit C (two of the four pairings, for compile time) ----
TEST(GemmBatched, HalfInputs) {
  run_layouts<ridgeline::half_t, float>(
      {300, 8, 8, 16, 'N', 'N', BL::right, Lay::left, Lay::left, Lay::left, 1.0, 0.5, 41}, "small");
  run_layouts<ridgeline::bhalf_t>(
      {200, 16, 7, 9, 'T', 'N', BL::left, Lay::right, Lay::right, Lay::right, 1.0, 0.0, 42}, "small");
  run_layouts<ridgeline::half_t, float>(
      {3, 40, 24, 32, 'N', 'T', BL::right, Lay::left, Lay::left, Lay::left, 1.0, 0.0, 43}, "tiles");
  run_layouts<ridgeline::bhalf_t>(
      {4, 33, 65, 17, 'T', 'T', BL::left, Lay::right, Lay::right, Lay::right, 1.0, 0.0, 44}, "tiles");
}

// ---- degenerate calls and reruns --------------------------------------------------------------------
// alpha == 0 and K == 0 scale C by beta without reading A or B (NaN there must not reach C); beta == 0
// never reads C (covered above: poisoned C); an empty batch and empty matrices do nothing.
TEST(GemmBatched, AlphaZeroAndKZeroScaleOnly) {
  for (BL bl : {BL::left, BL::right}) {
    auto A = make_batch<double, Kokkos::LayoutLeft>("A", 50, 6, 5, bl);
    auto B = make_batch<double, Kokkos::LayoutLeft>("B", 50, 5, 7, bl);
    auto C = make_batch<double, Kokkos::LayoutRight>("C", 50, 6, 7, bl);
    fill_batch(A, 1, true);
    fill_batch(B, 2, true);
    fill_batch(C, 3);
    const auto c0 = to_host_batch(C, bl);
    ridgeline::gemm_batched(Exec(), "N", "N", 0.0, A, B, -2.0, C, bl);
    Kokkos::fence();
    auto got = to_host_batch(C, bl);
    for (std::size_t g = 0; g < got.size(); ++g)
      for (std::size_t e = 0; e < got[g].v.size(); ++e) ASSERT_EQ(got[g].v[e], -2.0 * c0[g].v[e]) << g;
    auto A0 = make_batch<double, Kokkos::LayoutLeft>("A0", 50, 6, 0, bl);
    auto B0 = make_batch<double, Kokkos::LayoutLeft>("B0", 50, 0, 7, bl);
    ridgeline::gemm_batched(Exec(), "N", "N", 1.0, A0, B0, 0.0, C, bl);
    Kokkos::fence();
    got = to_host_batch(C, bl);
    for (const auto& m : got)
      for (double v : m.v) ASSERT_EQ(v, 0.0);
    auto Ae = make_batch<double, Kokkos::LayoutLeft>("Ae", 0, 6, 5, bl);
    auto Be = make_batch<double, Kokkos::LayoutLeft>("Be", 0, 5, 7, bl);
    auto Ce = make_batch<double, Kokkos::LayoutLeft>("Ce", 0, 6, 7, bl);
    EXPECT_NO_THROW(ridgeline::gemm_batched(Exec(), "N", "N", 1.0, Ae, Be, 0.0, Ce, bl));
  }
}

TEST(GemmBatched, RerunIsBitIdentical) {
  for (std::int64_t n : {std::int64_t(12), std::int64_t(48)}) {
    const BatchCase c{600, n, n, n, 'T', 'N', BL::right, Lay::left, Lay::left, Lay::left, 1.0, 0.0, 77};
    const auto first = run_layouts<float>(c);
    const auto second = run_layouts<float>(c);
    ASSERT_EQ(first.size(), second.size());
    for (std::size_t g = 0; g < first.size(); ++g)
      ASSERT_EQ(0, std::memcmp(first[g].v.data(), second[g].v.data(), first[g].v.size() * sizeof(double)))
          << g;
  }
}

// ---- validation: before any launch, naming the shapes ---------------------------------------------
template <class F>
std::string thrown_by(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
TEST(GemmBatched, RejectsBadShapesBeforeLaunch) {
  using V = Kokkos::View<double***, Kokkos::LayoutLeft, Mem>;
  V A("A", 4, 3, 5), B("B", 4, 5, 2), C("C", 4, 3, 2), B3("B3", 3, 5, 2), Bk("Bk", 4, 6, 2),
      Cn("Cn", 4, 3, 3);
  std::string m = thrown_by([&] { ridgeline::gemm_batched(Exec(), "N", "N", 1.0, A, B3, 0.0, C); });
  EXPECT_NE(m.find("batch counts differ"), std::string::npos) << m;
  EXPECT_NE(m.find("3x5x2"), std::string::npos) << m;
  m = thrown_by([&] { ridgeline::gemm_batched(Exec(), "N", "N", 1.0, A, Bk, 0.0, C); });
  EXPECT_NE(m.find("need op(A_g) MxK"), std::string::npos) << m;
  EXPECT_NE(m.find("4 x (6x2)"), std::string::npos) << m;
  m = thrown_by([&] { ridgeline::gemm_batched(Exec(), "N", "N", 1.0, A, B, 0.0, Cn); });
  EXPECT_NE(m.find("C 4x3x3"), std::string::npos) << m;
  // The batch index last: the same Views are 5 matrices of 4 x 3 (A) and 2 of 4 x 5 (B).
  m = thrown_by([&] { ridgeline::gemm_batched(Exec(), "N", "N", 1.0, A, B, 0.0, C, BL::right); });
  EXPECT_NE(m.find("batch last"), std::string::npos) << m;
  m = thrown_by([&] { ridgeline::gemm_batched(Exec(), "X", "N", 1.0, A, B, 0.0, C); });
  EXPECT_NE(m.find("transA"), std::string::npos) << m;
  // C inside A's allocation, and C's matrices on top of one another (batch stride 0).
  V big("big", 4, 8, 5);
  auto Cin = Kokkos::subview(big, Kokkos::ALL, Kokkos::make_pair(0, 3), Kokkos::make_pair(0, 2));
  auto Ain = Kokkos::subview(big, Kokkos::ALL, Kokkos::make_pair(3, 6), Kokkos::ALL);
  m = thrown_by([&] { ridgeline::gemm_batched(Exec(), "N", "N", 1.0, Ain, B, 0.0, Cin); });
  EXPECT_NE(m.find("overlaps input A"), std::string::npos) << m;
  Kokkos::View<double***, Kokkos::LayoutStride, Mem> Cz("Cz", Kokkos::LayoutStride(4, 0, 3, 1, 2, 3));
  m = thrown_by([&] { ridgeline::gemm_batched(Exec(), "N", "N", 1.0, A, B, 0.0, Cz); });
  EXPECT_NE(m.find("overlap one another"), std::string::npos) << m;
}

// ---- team_gemm inside a user's own TeamPolicy kernel ----------------------------------------------
// Each team multiplies its matrix of a batch, reading A and B in global memory (scratch = false) or
// from copies the kernel itself stages in its own team scratch, with C in scratch too (scratch = true).
// The kernel writes NaN into C's scratch copy first where beta == 0: team_gemm must not read it.
// form: the unstaged call; the staged call on the teams TeamGemmStaging names (its team size, launch
// bounds and scratch, carved after the kernel's own); or the staged call on teams of another size, which
// must run the unstaged form and still be right.
// Every C_g of `got` against the reference from the host copies of A_g, B_g and C_g (before the call); one
// failing matrix's report is enough.
template <class T>
void expect_each_matches(const std::vector<HostMatrix>& got, const std::vector<HostMatrix>& hA,
                         const std::vector<HostMatrix>& hB, const std::vector<HostMatrix>& hC0,
                         const BatchCase& c, const std::string& what) {
  const Tolerance tol = tolerance_of<T, T>();
  for (std::int64_t g = 0; g < c.count; ++g) {
    const auto want = reference_gemm(transpose_if(hA[g], c.ta == 'T'), transpose_if(hB[g], c.tb == 'T'),
                                     hC0[g], c.alpha, c.beta, tol.acc, tol.out);
    const auto r = matches(got[g], want);
    EXPECT_TRUE(r) << what << describe(c) << ", matrix " << g;
    if (!r) break;
  }
}
// The kernel's own level-0 scratch when it copies A, B and C of case c into it (run_team_gemm, scratch =
// true).
template <class T>
using ScratchMatrix = Kokkos::View<T**, Kokkos::LayoutLeft, typename Exec::scratch_memory_space,
                                   Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
std::size_t scratch_operand_bytes(const BatchCase& c) {
  const bool ta = c.ta == 'T', tb = c.tb == 'T';
  return ScratchMatrix<T>::shmem_size(ta ? c.k : c.m, ta ? c.m : c.k) +
         ScratchMatrix<T>::shmem_size(tb ? c.n : c.k, tb ? c.k : c.n) +
         ScratchMatrix<T>::shmem_size(c.m, c.n) +
         ridgeline::team_gemm_scratch_bytes(c.m, c.n, c.k, sizeof(T));
}
enum class TeamForm { unstaged, staged, staged_other_team };
const char* name(TeamForm f) {
  return f == TeamForm::unstaged ? "unstaged" : f == TeamForm::staged ? "staged" : "staged, other team size";
}
template <class T, class Layout = Kokkos::LayoutRight>
void run_team_gemm(const BatchCase& c, bool scratch, TeamForm form = TeamForm::unstaged) {
  const bool ta = c.ta == 'T', tb = c.tb == 'T';
  using V = Kokkos::View<T***, Layout, Mem>;
  V A = make_batch<T, Layout>("A", c.count, ta ? c.k : c.m, ta ? c.m : c.k, BL::left);
  V B = make_batch<T, Layout>("B", c.count, tb ? c.n : c.k, tb ? c.k : c.n, BL::left);
  V C = make_batch<T, Layout>("C", c.count, c.m, c.n, BL::left);
  fill_batch(A, c.seed * 3 + 1);
  fill_batch(B, c.seed * 3 + 2);
  fill_batch(C, c.seed * 3 + 3, c.beta == 0 && !scratch);
  const auto hA = to_host_batch(A, BL::left), hB = to_host_batch(B, BL::left),
             hC0 = to_host_batch(C, BL::left);
  using Staging = ridgeline::TeamGemmStaging<T, Exec>;
  using Policy = Kokkos::TeamPolicy<Exec, typename Staging::launch_bounds>;
  using Member = typename Policy::member_type;
  using Scratch = ScratchMatrix<T>;
  const int ar = A.extent(1), ac = A.extent(2), br = B.extent(1), bc = B.extent(2), m = c.m, n = c.n;
  const std::size_t own = scratch ? scratch_operand_bytes<T>(c) : 0;
  const bool staged = form != TeamForm::unstaged;
  const std::size_t granted = staged ? Staging::scratch_bytes : 0;
  // Beyond this Kokkos refuses the launch (its message names no shape): the case itself is wrong.
  ASSERT_LE(own + granted, std::size_t(Policy::scratch_size_max(0)))
      << "scratch operands too large for " << describe(c);
  // The staged form's own team size; another one for the fallback (and AUTO where there is no staged form).
  const int other = Staging::team_size == 1 ? 2 : Staging::team_size == 64 ? 32 : 64;
  // The staged form's launch through TeamGemmStaging::policy (its team size, the kernel's scratch and the
  // span's); the others by hand.
  Policy policy = form == TeamForm::staged ? Staging::policy(Exec(), int(c.count), own)
                  : !Staging::staged || form == TeamForm::unstaged
                      ? Policy(Exec(), int(c.count), Kokkos::AUTO)
                      : Policy(Exec(), int(c.count), other);
  if (form != TeamForm::staged && own + granted > 0)
    policy.set_scratch_size(0, Kokkos::PerTeam(own + granted));
  if (Staging::staged && staged) {
    // The launch made here runs the staged form where the form says so, and not on other teams, on vector
    // lanes, or without the span it needs.
    const char any = 0;
    EXPECT_EQ(detail::team_gemm_runs_staged<Staging>(policy.team_size(), 1, &any, granted),
              form == TeamForm::staged);
    EXPECT_FALSE(detail::team_gemm_runs_staged<Staging>(policy.team_size(), 2, &any, granted));
    if (Staging::scratch_bytes > 0)
      EXPECT_FALSE(detail::team_gemm_runs_staged<Staging>(policy.team_size(), 1, nullptr, 0));
  }
  const char tra = c.ta, trb = c.tb;
  const auto alpha = static_cast<detail::GemmScalar<V>>(c.alpha),
             beta = static_cast<detail::GemmScalar<V>>(c.beta);
  const bool poison_c = c.beta == 0;
  const T nan = poison<T>();
  Kokkos::parallel_for(
      "team_gemm test", policy, KOKKOS_LAMBDA(const Member& team) {
        const int g = team.league_rank();
        auto Ag = Kokkos::subview(A, g, Kokkos::ALL, Kokkos::ALL);
        auto Bg = Kokkos::subview(B, g, Kokkos::ALL, Kokkos::ALL);
        auto Cg = Kokkos::subview(C, g, Kokkos::ALL, Kokkos::ALL);
        // The kernel's own scratch first, then the span granted to team_gemm (once for the kernel).
        Scratch As, Bs, Cs;
        if (scratch) {
          As = Scratch(team.team_scratch(0), ar, ac), Bs = Scratch(team.team_scratch(0), br, bc);
          Cs = Scratch(team.team_scratch(0), m, n);
        }
        void* span = granted > 0 ? team.team_scratch(0).get_shmem(granted) : nullptr;
        const auto gemm = [&](const auto& a, const auto& b, const auto& cc) {
          if (staged) {
            ridgeline::team_gemm(team, tra, trb, alpha, a, b, beta, cc, span, granted);
          } else {
            ridgeline::team_gemm(team, tra, trb, alpha, a, b, beta, cc);
          }
        };
        if (!scratch) {
          gemm(Ag, Bg, Cg);
          return;
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ar * ac),
                             [&](int e) { As(e % ar, e / ar) = Ag(e % ar, e / ar); });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, br * bc),
                             [&](int e) { Bs(e % br, e / br) = Bg(e % br, e / br); });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m * n),
                             [&](int e) { Cs(e % m, e / m) = poison_c ? nan : Cg(e % m, e / m); });
        gemm(As, Bs, Cs);  // no barrier of ours before or after
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, m * n),
                             [&](int e) { Cg(e % m, e / m) = Cs(e % m, e / m); });
      });
  Kokkos::fence();
  expect_each_matches<T>(to_host_batch(C, BL::left), hA, hB, hC0, c,
                         std::string("team_gemm ") + name(form) + (scratch ? " (scratch) " : " (global) "));
}

TEST(TeamGemm, InsideUserKernelEveryTranspose) {
  std::uint64_t seed = 500;
  for (const char* tt : {"NN", "NT", "TN", "TT"}) {
    for (bool scratch : {false, true}) {
      run_team_gemm<double>(
          {40, 7, 13, 5, tt[0], tt[1], BL::left, Lay::right, Lay::right, Lay::right, 1.5, 0.0, seed++},
          scratch);
      run_team_gemm<float>(
          {9, 33, 18, 24, tt[0], tt[1], BL::left, Lay::right, Lay::right, Lay::right, -1.0, 0.25, seed++},
          scratch);
    }
  }
}

// The staged form across several tiles of its entry, with tails in M, N and K, in every transpose and in
// three layouts (LayoutRight and LayoutLeft subviews, and LayoutStride ones with no unit stride, which
// cannot stage in packets); operands in global memory and in the kernel's own scratch; beta 0 (C
// poisoned) and not. Then a team of another size, which runs the unstaged form.
template <class T>
void team_gemm_staged_cases(std::uint64_t seed) {
  using Staging = ridgeline::TeamGemmStaging<T, Exec>;
  const int bm = Staging::staged ? 64 : 16;  // both CUDA entries' tiles are 64 x 64; the host's take any
  const std::int64_t shapes[][3] = {{2 * bm + 5, bm + 3, 37},
                                    {3 * bm - 2, 2 * bm + 2, 37},
                                    {bm, bm, 16},
                                    {7, 13, 5},
                                    {3, 2 * bm + 1, 2 * bm + 9}};
  for (const char* tt : {"NN", "NT", "TN", "TT"}) {
    for (const auto& s : shapes) {
      const BatchCase c{5,        s[0],       s[1],       s[2],       tt[0], tt[1],
                        BL::left, Lay::right, Lay::right, Lay::right, 1.25,  (seed % 2) ? 0.0 : -0.5,
                        seed};
      ++seed;
      run_team_gemm<T, Kokkos::LayoutRight>(c, false, TeamForm::staged);
      run_team_gemm<T, Kokkos::LayoutLeft>(c, false, TeamForm::staged);
      run_team_gemm<T, Kokkos::LayoutStride>(c, false, TeamForm::staged);
    }
    // Operands in the kernel's scratch, beside the granted span: 33 x 29 x 21 where its three copies fit what
    // Kokkos leaves the kernel (TeamGemmStaging::own_bytes_max), else 17 x 13 x 11 (CUDA's fp64 span leaves
    // about 6 KB under Kokkos 3.4).
    BatchCase in_scratch{5,          33,         29,         21,  tt[0], tt[1], BL::left,
                         Lay::right, Lay::right, Lay::right, 0.5, 0.0,   seed++};
    if (scratch_operand_bytes<T>(in_scratch) > Staging::own_bytes_max())
      in_scratch.m = 17, in_scratch.n = 13, in_scratch.k = 11;
    run_team_gemm<T>(in_scratch, true, TeamForm::staged);
    run_team_gemm<T>(
        {5, 70, 65, 19, tt[0], tt[1], BL::left, Lay::right, Lay::right, Lay::right, 0.5, 1.0, seed++}, false,
        TeamForm::staged_other_team);
  }
}
// The staged form's tile loop itself (detail::team_gemm_tiles: the granted span handed out from its start
// for each tile, a team barrier between tiles) on a kernel that stages through that span. On the host the
// table's tile entry (team_gemm's own host entry runs whole products on the calling thread and never reaches
// this loop), granted from level-1 scratch (it wants more than OpenMP's 32 KB of level 0); on a GPU the
// staged entry, which the tests above also run through team_gemm. Several tiles, tails, every transpose.
template <class T, class E = Exec, bool kHost = std::is_same_v<typename E::memory_space, Kokkos::HostSpace>>
struct TileLoopCfgOf {
  using type = typename ridgeline::TeamGemmStaging<T, E>::tiles;
};
template <class T, class E>
struct TileLoopCfgOf<T, E, true> {
  using type = typename detail::Backend<E, T>::template gemm<T>;
};
template <class T>
using TileLoopCfg = typename TileLoopCfgOf<T>::type;
template <class T>
void team_tile_loop_case(const BatchCase& c) {
  using Cfg = TileLoopCfg<T>;
  if constexpr (std::is_void_v<Cfg>) {
    GTEST_SKIP() << "no staged entry for this type";
  } else {
    const bool ta = c.ta == 'T', tb = c.tb == 'T';
    auto A = make_batch<T, Kokkos::LayoutLeft>("A", c.count, ta ? c.k : c.m, ta ? c.m : c.k, BL::right);
    auto B = make_batch<T, Kokkos::LayoutLeft>("B", c.count, tb ? c.n : c.k, tb ? c.k : c.n, BL::right);
    auto C = make_batch<T, Kokkos::LayoutLeft>("C", c.count, c.m, c.n, BL::right);
    fill_batch(A, c.seed * 3 + 1);
    fill_batch(B, c.seed * 3 + 2);
    fill_batch(C, c.seed * 3 + 3, c.beta == 0);
    const auto hA = to_host_batch(A, BL::right), hB = to_host_batch(B, BL::right),
               hC0 = to_host_batch(C, BL::right);
    constexpr std::size_t bytes = detail::team_gemm_tiles_scratch<Exec, Cfg, T, T>();
    constexpr int level = std::is_same_v<typename Exec::memory_space, Kokkos::HostSpace> ? 1 : 0;
    Kokkos::TeamPolicy<Exec> policy(Exec(), int(c.count), Cfg::team_size);
    policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
    using Member = typename Kokkos::TeamPolicy<Exec>::member_type;
    // op(X) of matrix 0 of a batch-last LayoutLeft View, transposed where t; matrix g is X.stride(2) on.
    const auto op = [](const auto& X, bool t) {
      using V = typename std::remove_reference_t<decltype(X)>::value_type;
      const std::int64_t r = X.extent(0), cl = X.extent(1), rs = X.stride(0), cs = X.stride(1);
      return t ? detail::Strided2D<const V>{X.data(), cl, r, cs, rs}
               : detail::Strided2D<const V>{X.data(), r, cl, rs, cs};
    };
    const detail::Strided2D<const T> a0 = op(A, ta), b0 = op(B, tb);
    const detail::Strided2D<T> c0{C.data(), c.m, c.n, std::int64_t(C.stride(0)), std::int64_t(C.stride(1))};
    const std::int64_t as = A.stride(2), bs = B.stride(2), cs = C.stride(2);
    const T alpha = T(c.alpha), beta = T(c.beta);
    Kokkos::parallel_for(
        "team_gemm tile loop test", policy, KOKKOS_LAMBDA(const Member& team) {
          const std::int64_t g = team.league_rank();
          void* span = team.team_scratch(level).get_shmem(bytes);
          auto a = a0, b = b0;
          auto cc = c0;
          a.data += g * as, b.data += g * bs, cc.data += g * cs;
          detail::team_gemm_tiles<Cfg>(team, a, b, cc, alpha, beta, span, bytes);
        });
    Kokkos::fence();
    expect_each_matches<T>(to_host_batch(C, BL::right), hA, hB, hC0, c, "team_gemm_tiles ");
  }
}
TEST(TeamGemm, TileLoopThroughAGrantedSpan) {
  std::uint64_t seed = 2900;
  for (const char* tt : {"NN", "NT", "TN", "TT"}) {
    for (const auto& s :
         {std::array<std::int64_t, 3>{200, 150, 300}, std::array<std::int64_t, 3>{70, 9, 33},
          std::array<std::int64_t, 3>{600, 130, 40}}) {  // 600: more tile rows than a group (GemmTileOrigin)
      const BatchCase c{3,         s[0],      s[1],      s[2],      tt[0], tt[1],
                        BL::right, Lay::left, Lay::left, Lay::left, 0.75,  (seed % 2) ? 0.0 : 1.5,
                        seed};
      ++seed;
      team_tile_loop_case<double>(c);
      team_tile_loop_case<float>(c);
    }
  }
}
TEST(TeamGemm, StagedFormDouble) {
  team_gemm_staged_cases<double>(900);
}
TEST(TeamGemm, StagedFormFloat) {
  team_gemm_staged_cases<float>(1900);
}

// ---- gemv_batched and team_gemv ----------------------------------------------------------------------
// count vectors of `len`, the batch index first (BL::left: v(g, i)) or last.
template <class T, class Layout>
Kokkos::View<T**, Layout, Mem> make_vectors(const std::string& label, std::int64_t count, std::int64_t len,
                                            BL bl) {
  if (bl == BL::left) return Kokkos::View<T**, Layout, Mem>(label, count, len);
  return Kokkos::View<T**, Layout, Mem>(label, len, count);
}
// Seeded values (or NaN) in the View, and its vectors on the host as one-column matrices, in double.
template <class V>
void fill_vectors(const V& v, std::uint64_t seed, bool poisoned = false) {
  using T = typename V::non_const_value_type;
  Kokkos::View<T**, Kokkos::LayoutLeft, typename V::memory_space> c("contiguous", v.extent(0), v.extent(1));
  auto h = Kokkos::create_mirror_view(c);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  for (std::size_t j = 0; j < v.extent(1); ++j)
    for (std::size_t i = 0; i < v.extent(0); ++i) h(i, j) = poisoned ? poison<T>() : static_cast<T>(d(gen));
  Kokkos::deep_copy(c, h);
  Kokkos::deep_copy(v, c);
}
template <class V>
std::vector<HostMatrix> to_host_vectors(const V& v, BL bl) {
  using T = typename V::non_const_value_type;
  Kokkos::View<T**, Kokkos::LayoutLeft, typename V::memory_space> c("contiguous", v.extent(0), v.extent(1));
  Kokkos::deep_copy(c, v);
  auto h = Kokkos::create_mirror_view(c);
  Kokkos::deep_copy(h, c);
  const std::int64_t count = bl == BL::left ? v.extent(0) : v.extent(1);
  const std::int64_t len = bl == BL::left ? v.extent(1) : v.extent(0);
  std::vector<HostMatrix> out(count);
  for (std::int64_t g = 0; g < count; ++g) {
    out[g].rows = len, out[g].cols = 1, out[g].v.resize(len);
    for (std::int64_t i = 0; i < len; ++i)
      out[g](i, 0) = static_cast<double>(bl == BL::left ? h(g, i) : h(i, g));
  }
  return out;
}

// y_g = alpha op(A_g) x_g + beta y_g for a batch of m x n matrices A_g, every vector checked against
// the reference; want_path: the path gemv_batched_config must name.
template <class T, class LA, class LV>
void run_gemv_batched(std::int64_t count, std::int64_t m, std::int64_t n, char trans, BL bl, double alpha,
                      double beta, std::uint64_t seed, const std::string& want_path) {
  const bool t = trans == 'T';
  const std::int64_t xl = t ? m : n, yl = t ? n : m;
  auto A = make_batch<T, LA>("A", count, m, n, bl);
  auto x = make_vectors<T, LV>("x", count, xl, bl);
  auto y = make_vectors<T, LV>("y", count, yl, bl);
  fill_batch(A, seed * 3 + 1);
  fill_vectors(x, seed * 3 + 2);
  fill_vectors(y, seed * 3 + 3, beta == 0);
  const auto hA = to_host_batch(A, bl);
  const auto hx = to_host_vectors(x, bl), hy0 = to_host_vectors(y, bl);
  const char tr[2] = {trans, 0};
  const std::string what =
      std::string("gemv_batched ") + trans + " " + std::to_string(count) + " x " + std::to_string(m) + "x" +
      std::to_string(n) + (bl == BL::left ? " batch first" : " batch last") + " beta=" + std::to_string(beta);
  const std::string path = ridgeline::gemv_batched_config(Exec(), tr, A, x, bl);
  EXPECT_EQ(path.rfind(path_for<T>(want_path, count), 0), 0u) << what << " ran " << path;
  using S = detail::GemmScalar<decltype(A)>;
  ridgeline::gemv_batched(Exec(), tr, static_cast<S>(alpha), A, x, static_cast<S>(beta), y, bl);
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, T>();
  const auto got = to_host_vectors(y, bl);
  for (std::int64_t g = 0; g < count; ++g) {
    const auto want = reference_gemm(transpose_if(hA[g], t), hx[g], hy0[g], alpha, beta, tol.acc, tol.out);
    const auto r = matches(got[g], want);
    EXPECT_TRUE(r) << what << ", vector " << g;
    if (!r) break;
  }
}

template <class T>
void gemv_batched_every_orientation(std::int64_t count, std::int64_t m, std::int64_t n,
                                    const std::string& path) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  std::uint64_t seed = 900;
  for (char tr : {'N', 'T'})
    for (BL bl : {BL::left, BL::right}) {
      run_gemv_batched<T, L, L>(count, m, n, tr, bl, 1.25, 0.0, seed++, path);
      run_gemv_batched<T, R, R>(count, m, n, tr, bl, -0.5, 0.75, seed++, path);
      run_gemv_batched<T, L, R>(count, m, n, tr, bl, 2.0, -1.0, seed++, path);
    }
}

TEST(GemvBatched, SmallPathEveryOrientation) {
  gemv_batched_every_orientation<float>(37, SmallCfg::max_extent, SmallCfg::max_extent - 3, "small");
  gemv_batched_every_orientation<double>(300, std::min(5, SmallCfg::max_extent), 3, "small");
}

TEST(GemvBatched, TilesPathEveryOrientation) {
  gemv_batched_every_orientation<float>(6, SmallCfg::max_extent + 1, 70, "tiles");
  gemv_batched_every_orientation<double>(3, 131, 45, "tiles");
}

TEST(GemvBatched, AlphaZeroAndEmptyRowsScaleOnly) {
  using V3 = Kokkos::View<double***, Kokkos::LayoutRight, Mem>;
  using V2 = Kokkos::View<double**, Kokkos::LayoutRight, Mem>;
  V3 A("A", 4, 6, 5);
  V2 x("x", 4, 5), y("y", 4, 6);
  fill_batch(A, 1, true);  // NaN: alpha == 0 must not read A or x
  fill_vectors(x, 2, true);
  fill_vectors(y, 3);
  const auto y0 = to_host_vectors(y, BL::left);
  ridgeline::gemv_batched(Exec(), "N", 0.0, A, x, -2.0, y);
  Kokkos::fence();
  const auto got = to_host_vectors(y, BL::left);
  for (std::size_t g = 0; g < got.size(); ++g)
    for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(got[g](i, 0), -2.0 * y0[g](i, 0)) << g << " " << i;
  fill_vectors(y, 4, true);  // beta == 0 as well: zeros, never NaN
  ridgeline::gemv_batched(Exec(), "T", 0.0, V3("A", 4, 5, 6), x, 0.0, y);
  Kokkos::fence();
  for (const auto& v : to_host_vectors(y, BL::left))
    for (std::int64_t i = 0; i < 6; ++i) EXPECT_EQ(v(i, 0), 0.0);
}

TEST(GemvBatched, RejectsBadShapesBeforeLaunch) {
  using V3 = Kokkos::View<double***, Kokkos::LayoutLeft, Mem>;
  using V2 = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>;
  V3 A("A", 4, 3, 5);
  V2 x("x", 4, 5), y("y", 4, 3), x3("x3", 3, 5), xk("xk", 4, 6), yn("yn", 4, 5);
  std::string m = thrown_by([&] { ridgeline::gemv_batched(Exec(), "N", 1.0, A, x3, 0.0, y); });
  EXPECT_NE(m.find("batch counts differ"), std::string::npos) << m;
  EXPECT_NE(m.find("x 3x5"), std::string::npos) << m;
  m = thrown_by([&] { ridgeline::gemv_batched(Exec(), "N", 1.0, A, xk, 0.0, y); });
  EXPECT_NE(m.find("need x_g with op(A_g)'s columns"), std::string::npos) << m;
  EXPECT_NE(m.find("4 vectors of 6"), std::string::npos) << m;
  m = thrown_by([&] { ridgeline::gemv_batched(Exec(), "T", 1.0, A, x, 0.0, y); });  // op(A_g) 5 x 3
  EXPECT_NE(m.find("trans=T"), std::string::npos) << m;
  m = thrown_by([&] { ridgeline::gemv_batched(Exec(), "N", 1.0, A, x, 0.0, yn); });
  EXPECT_NE(m.find("y 4x5"), std::string::npos) << m;
  m = thrown_by([&] { ridgeline::gemv_batched(Exec(), "N", 1.0, A, x, 0.0, y, BL::right); });
  EXPECT_NE(m.find("batch last"), std::string::npos) << m;
  // y interleaved with x in one allocation, and y's vectors on top of one another (batch stride 0).
  V2 big("big", 8, 5);
  auto yin = Kokkos::subview(big, Kokkos::make_pair(0, 4), Kokkos::make_pair(0, 3));
  auto xin = Kokkos::subview(big, Kokkos::make_pair(4, 8), Kokkos::ALL);
  m = thrown_by([&] { ridgeline::gemv_batched(Exec(), "N", 1.0, A, xin, 0.0, yin); });
  EXPECT_NE(m.find("overlaps input x"), std::string::npos) << m;
  Kokkos::View<double**, Kokkos::LayoutStride, Mem> yz("yz", Kokkos::LayoutStride(4, 0, 3, 1));
  m = thrown_by([&] { ridgeline::gemv_batched(Exec(), "N", 1.0, A, x, 0.0, yz); });
  EXPECT_NE(m.find("overlap one another"), std::string::npos) << m;
}

// team_gemv in a user's TeamPolicy kernel, a team per matrix: operands in global memory, or x and y
// staged by the kernel in its own scratch (y poisoned there first where beta == 0).
template <class T>
void run_team_gemv(std::int64_t count, std::int64_t m, std::int64_t n, char trans, double alpha, double beta,
                   bool scratch, std::uint64_t seed) {
  const bool t = trans == 'T';
  const int xl = static_cast<int>(t ? m : n), yl = static_cast<int>(t ? n : m);
  using V3 = Kokkos::View<T***, Kokkos::LayoutRight, Mem>;
  using V2 = Kokkos::View<T**, Kokkos::LayoutRight, Mem>;
  V3 A = make_batch<T, Kokkos::LayoutRight>("A", count, m, n, BL::left);
  V2 x("x", count, xl), y("y", count, yl);
  fill_batch(A, seed * 3 + 1);
  fill_vectors(x, seed * 3 + 2);
  fill_vectors(y, seed * 3 + 3, beta == 0 && !scratch);
  const auto hA = to_host_batch(A, BL::left);
  const auto hx = to_host_vectors(x, BL::left), hy0 = to_host_vectors(y, BL::left);
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Scratch =
      Kokkos::View<T*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Policy policy(Exec(), static_cast<int>(count), Kokkos::AUTO);
  if (scratch) policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(xl) + Scratch::shmem_size(yl)));
  const auto al = static_cast<detail::GemmScalar<V3>>(alpha), be = static_cast<detail::GemmScalar<V3>>(beta);
  const bool poison_y = beta == 0;
  const T nan = poison<T>();
  Kokkos::parallel_for(
      "team_gemv test", policy, KOKKOS_LAMBDA(const Member& team) {
        const int g = team.league_rank();
        auto Ag = Kokkos::subview(A, g, Kokkos::ALL, Kokkos::ALL);
        auto xg = Kokkos::subview(x, g, Kokkos::ALL);
        auto yg = Kokkos::subview(y, g, Kokkos::ALL);
        if (!scratch) {
          ridgeline::team_gemv(team, trans, al, Ag, xg, be, yg);
          return;
        }
        Scratch xs(team.team_scratch(0), xl), ys(team.team_scratch(0), yl);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, xl), [&](int i) { xs(i) = xg(i); });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, yl),
                             [&](int i) { ys(i) = poison_y ? nan : yg(i); });
        ridgeline::team_gemv(team, trans, al, Ag, xs, be, ys);  // no barrier of ours before or after
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, yl), [&](int i) { yg(i) = ys(i); });
      });
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, T>();
  const auto got = to_host_vectors(y, BL::left);
  for (std::int64_t g = 0; g < count; ++g) {
    const auto want = reference_gemm(transpose_if(hA[g], t), hx[g], hy0[g], alpha, beta, tol.acc, tol.out);
    const auto r = matches(got[g], want);
    EXPECT_TRUE(r) << "team_gemv " << trans << (scratch ? " (scratch) " : " (global) ") << m << "x" << n
                   << " beta=" << beta << ", vector " << g;
    if (!r) break;
  }
}

TEST(TeamGemv, InsideUserKernelBothTransposes) {
  std::uint64_t seed = 700;
  for (char tr : {'N', 'T'})
    for (bool scratch : {false, true}) {
      run_team_gemv<double>(30, 7, 13, tr, 1.5, 0.0, scratch, seed++);
      run_team_gemv<float>(9, 70, 33, tr, -1.0, 0.25, scratch, seed++);
    }
}

// ---- gemm_grouped: batches of different shapes in one call ---------------------------------------
struct GroupSpec {
  std::int64_t count, m, n, k;
  char ta, tb;
  BL bl;
  double alpha, beta;
};

// Runs the groups in one gemm_grouped call on Views of layout L and checks every matrix of every group
// against the reference: NaN in C where beta == 0 and in A and B where alpha == 0. want_launches: how
// many launches gemm_grouped_config must report (0: not checked). Returns every C, for reruns.
template <class T, class L>
std::vector<std::vector<HostMatrix>> run_grouped(const std::vector<GroupSpec>& specs, std::uint64_t seed,
                                                 std::size_t want_launches = 0) {
  using V = Kokkos::View<T***, L, Mem>;
  std::vector<ridgeline::GemmGroup<V, V, V>> groups;
  std::vector<std::vector<HostMatrix>> hA, hB, hC;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const GroupSpec& g = specs[i];
    const bool ta = g.ta == 'T', tb = g.tb == 'T';
    const std::string tag = std::to_string(i);
    auto A = make_batch<T, L>("A" + tag, g.count, ta ? g.k : g.m, ta ? g.m : g.k, g.bl);
    auto B = make_batch<T, L>("B" + tag, g.count, tb ? g.n : g.k, tb ? g.k : g.n, g.bl);
    auto C = make_batch<T, L>("C" + tag, g.count, g.m, g.n, g.bl);
    fill_batch(A, seed + 3 * i + 1, g.alpha == 0);
    fill_batch(B, seed + 3 * i + 2, g.alpha == 0);
    fill_batch(C, seed + 3 * i + 3, g.beta == 0);
    hA.push_back(to_host_batch(A, g.bl)), hB.push_back(to_host_batch(B, g.bl)),
        hC.push_back(to_host_batch(C, g.bl));
    groups.push_back(
        {ta ? "T" : "N", tb ? "T" : "N", static_cast<T>(g.alpha), A, B, static_cast<T>(g.beta), C, g.bl});
  }
  const std::string config = ridgeline::gemm_grouped_config(Exec(), groups);
  if (want_launches > 0) {
    EXPECT_EQ(config.rfind(std::to_string(want_launches) + (want_launches == 1 ? " launch" : " launches"), 0),
              0u)
        << config;
  }
  ridgeline::gemm_grouped(Exec(), groups);
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, T>();
  std::vector<std::vector<HostMatrix>> out;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const GroupSpec& g = specs[i];
    out.push_back(to_host_batch(groups[i].C, g.bl));
    for (std::int64_t m = 0; m < g.count; ++m) {
      const auto want =
          g.alpha == 0 || g.k == 0
              ? reference_gemm(HostMatrix{g.m, 0, {}}, HostMatrix{0, g.n, {}}, hC[i][m], 0.0, g.beta, tol.acc,
                               tol.out)
              : reference_gemm(transpose_if(hA[i][m], g.ta == 'T'), transpose_if(hB[i][m], g.tb == 'T'),
                               hC[i][m], g.alpha, g.beta, tol.acc, tol.out);
      const auto r = matches(out[i][m], want);
      EXPECT_TRUE(r) << "gemm_grouped group " << i << " (" << g.count << " x " << g.m << "x" << g.n << "x"
                     << g.k << " " << g.ta << g.tb << "), matrix " << m << "; " << config;
      if (!r) break;
    }
  }
  return out;
}

// Every path in one call: small matrices (two shapes, one launch), tiles in several orientations
// (a launch per kernel instance), tails, both batch layouts, and groups that only scale (alpha == 0,
// K == 0) or do nothing (no matrices, empty matrices).
const std::vector<GroupSpec>& mixed_groups() {
  const std::int64_t e = SmallCfg::max_extent;
  static const std::vector<GroupSpec> g = {
      {300, 4, 4, 4, 'N', 'N', BL::left, 1.0, 0.0},     {50, e, e - 3, e - 1, 'T', 'N', BL::right, -0.5, 2.0},
      {7, e + 1, 33, 40, 'N', 'T', BL::left, 1.5, 0.0}, {3, 64, 64, 64, 'N', 'N', BL::right, 1.0, 1.0},
      {2, 130, 70, 90, 'T', 'T', BL::left, 0.75, -1.0}, {5, 17, 9, 0, 'N', 'N', BL::left, 1.0, -3.0},
      {4, 9, 9, 9, 'N', 'N', BL::right, 0.0, 0.5},      {0, 8, 8, 8, 'N', 'N', BL::left, 1.0, 0.0},
      {6, 0, 8, 8, 'N', 'N', BL::left, 1.0, 0.0},       {20, 48, 48, 48, 'N', 'N', BL::left, 1.0, 0.0},
  };
  return g;
}

TEST(GemmGrouped, MixedGroupsDouble) {
  run_grouped<double, Kokkos::LayoutLeft>(mixed_groups(), 101);
}
TEST(GemmGrouped, MixedGroupsFloatStrided) {
  run_grouped<float, Kokkos::LayoutStride>(mixed_groups(), 202);
}
TEST(GemmGrouped, MixedGroupsFloatRight) {
  run_grouped<float, Kokkos::LayoutRight>(mixed_groups(), 303);
}

// Groups that plan to the same kernel share a launch: two small shapes and two tile shapes of one
// orientation make two launches.
TEST(GemmGrouped, SameKernelSharesALaunch) {
  const std::int64_t e = SmallCfg::max_extent;
  run_grouped<double, Kokkos::LayoutLeft>({{40, std::min<std::int64_t>(3, e), std::min<std::int64_t>(5, e),
                                            std::min<std::int64_t>(7, e), 'N', 'N', BL::left, 1.0, 0.0},
                                           {40, e, e, e, 'N', 'N', BL::left, 1.0, 0.0},
                                           {3, 100, 100, 100, 'N', 'N', BL::left, 1.0, 0.0},
                                           {3, 101, 99, 97, 'N', 'N', BL::left, 1.0, 0.0}},
                                          7, 2);
}

TEST(GemmGrouped, RerunIsBitIdentical) {
  const auto first = run_grouped<float, Kokkos::LayoutLeft>(mixed_groups(), 404);
  const auto second = run_grouped<float, Kokkos::LayoutLeft>(mixed_groups(), 404);
  for (std::size_t i = 0; i < first.size(); ++i)
    for (std::size_t g = 0; g < first[i].size(); ++g)
      ASSERT_EQ(
          0, std::memcmp(first[i][g].v.data(), second[i][g].v.data(), first[i][g].v.size() * sizeof(double)))
          << i << " " << g;
}

// Bad groups are named, and nothing is written: not the bad group's C, nor any other group's.
TEST(GemmGrouped, RejectsBadGroupsBeforeLaunch) {
  using V = Kokkos::View<double***, Kokkos::LayoutLeft, Mem>;
  using G = ridgeline::GemmGroup<V, V, V>;
  V A("A", 4, 3, 5), B("B", 4, 5, 2), C("C", 4, 3, 2), Bk("Bk", 4, 6, 2), A2("A2", 2, 3, 3),
      C2("C2", 2, 3, 3);
  fill_batch(C, 1), fill_batch(C2, 2);
  const auto c0 = to_host_batch(C, BL::left), c20 = to_host_batch(C2, BL::left);
  const auto unchanged = [&] {
    const auto c = to_host_batch(C, BL::left), c2 = to_host_batch(C2, BL::left);
    for (std::size_t g = 0; g < c.size(); ++g) EXPECT_EQ(c[g].v, c0[g].v) << g;
    for (std::size_t g = 0; g < c2.size(); ++g) EXPECT_EQ(c2[g].v, c20[g].v) << g;
  };
  std::string m = thrown_by([&] {
    ridgeline::gemm_grouped(Exec(),
                            std::vector<G>{{"N", "N", 1.0, A, B, 0.0, C}, {"N", "N", 1.0, A, Bk, 0.0, C2}});
  });
  EXPECT_NE(m.find("gemm_grouped (group 1)"), std::string::npos) << m;
  EXPECT_NE(m.find("4 x (6x2)"), std::string::npos) << m;
  unchanged();
  m = thrown_by([&] {
    ridgeline::gemm_grouped(Exec(),
                            std::vector<G>{{"N", "N", 1.0, A, B, 0.0, C}, {"N", "Q", 1.0, A2, A2, 0.0, C2}});
  });
  EXPECT_NE(m.find("group 1"), std::string::npos) << m;
  EXPECT_NE(m.find("transB"), std::string::npos) << m;
  // A group's C on its own input; a group's C on another group's input; two groups writing one C.
  m = thrown_by([&] {
    ridgeline::gemm_grouped(
        Exec(), std::vector<G>{{"N", "N", 1.0, A2, A2, 0.0, C2}, {"N", "N", 1.0, C2, A2, 1.0, A2}});
  });
  EXPECT_NE(m.find("group 1"), std::string::npos) << m;
  EXPECT_NE(m.find("overlaps input"), std::string::npos) << m;
  V A3("A3", 2, 3, 3), C3("C3", 2, 3, 3);
  fill_batch(A3, 3);
  m = thrown_by([&] {
    ridgeline::gemm_grouped(
        Exec(), std::vector<G>{{"N", "N", 1.0, A3, A3, 0.0, C2}, {"N", "N", 1.0, C2, A3, 1.0, C3}});
  });
  EXPECT_NE(m.find("output C of group 0 (2x3x3) overlaps input A of group 1 (2x3x3)"), std::string::npos)
      << m;
  m = thrown_by([&] {
    ridgeline::gemm_grouped(
        Exec(), std::vector<G>{{"N", "N", 1.0, A3, A3, 0.0, C2}, {"N", "T", 1.0, A3, A3, 1.0, C2}});
  });
  EXPECT_NE(m.find("overlaps output C of group"), std::string::npos) << m;
  unchanged();
  EXPECT_NO_THROW(ridgeline::gemm_grouped(Exec(), std::vector<G>{}));
}

// ---- the plan, without launching ----------------------------------------------------------------
// The small path switches off just past the table's extents, and spreads a batch over the device's
// team slots before stacking matrices in a team; the tiles path takes the packet entry only where
// every matrix stages in packets.
TEST(GemmBatchedPlan, PathsAtTheirEdges) {
  using Strided = detail::StridedBatch<const double>;
  const int e = SmallCfg::max_extent;
  static std::vector<double> buf(64);
  const auto batch = [&](std::int64_t count, std::int64_t r, std::int64_t c, std::int64_t pad = 0) {
    return Strided{buf.data(), count, r, c, 1, r, r * c + pad};
  };
  const auto plan = [&](std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t cu,
                        std::int64_t pad = 0) {
    return detail::plan_gemm_batched<Exec, double>(batch(count, m, k, pad), batch(count, k, n, pad), cu, 4);
  };
  // Past the small path: the packed panels (each matrix whole on one thread) where the table has them and
  // the batch has at least as many matrices as threads (4 here), else one league of tiles.
  const auto past_small = std::is_void_v<detail::BatchedPanelsCfgOf<Exec, double>>
                              ? detail::BatchedPath::tiles
                              : detail::BatchedPath::panels;
  EXPECT_EQ(plan(1000, e, e, e, 100).path, detail::BatchedPath::small);
  EXPECT_EQ(plan(1000, e + 1, e, e, 100).path, past_small);
  EXPECT_EQ(plan(1000, e, e, e + 1, 100).path, past_small);
  EXPECT_EQ(plan(4, e + 1, e, e, 100).path, past_small);
  EXPECT_EQ(plan(3, e + 1, e, e, 100).path, detail::BatchedPath::tiles);
  EXPECT_EQ(plan(2, 4096, 4096, 64, 100).path, detail::BatchedPath::tiles);
  // A batch stride that leaves matrix 1 misaligned keeps every matrix off the packet entry.
  using L = detail::GemmBatchedEntriesOf<Exec, double>;
  const int aligned = plan(2, 64, 64, 64, 100).entry, odd = plan(2, 64, 64, 64, 100, 1).entry;
  EXPECT_EQ(L::params(odd).needs_packets, false);
  if (L::params(aligned).needs_packets) EXPECT_NE(aligned, odd);
  // Matrices per team: one each while the batch is below the team slots, more beyond, capped by the
  // scratch budget and the table's max_per_team.
  const std::int64_t small_slots = 100 * SmallCfg::min_blocks;
  EXPECT_EQ(plan(small_slots, 4, 4, 4, 100).per_team, 1);
  EXPECT_EQ(plan(3 * small_slots + 1, 4, 4, 4, 100).per_team, 3);
  const int cap = plan(1000000000, e, e, e, 100).per_team;
  EXPECT_GE(cap, 1);
  EXPECT_LE(cap, SmallCfg::max_per_team);
  if (cap > 1)  // one matrix may take more than the budget; more than one must fit in it
    EXPECT_LE(cap * (detail::small_matrix_elems(e, e, e) + e * e) * std::int64_t(sizeof(double)),
              std::int64_t(SmallCfg::scratch_bytes));
}

#if defined(KOKKOS_ENABLE_CUDA)
// CUDA's tiles entries by shape (tile_table.hpp's gemm_batched_entries): 32 x 32 tiles for matrices that fit
// them, 32-row tiles for at most 32 rows, few-column tiles for at most 32 columns, fp32's 64 x 128 tiles from
// 128 x 128 on, the 64 x 64 small tiles between; each inside and just outside its range (outside by a packet
// where the operands must stay in packets: the entries other than the general one need them).
template <class T>
std::array<int, 2> batched_tile(std::int64_t m, std::int64_t n, std::int64_t k) {
  static std::vector<T> buf(64);
  const detail::StridedBatch<const T> a{buf.data(), 2, m, k, 1, m, m * k},
      b{buf.data(), 2, k, n, 1, k, k * n};
  const detail::BatchedPlan p = detail::plan_gemm_batched<Exec, T>(a, b, 132, 4);  // 2 < 4 threads: tiles
  EXPECT_EQ(p.path, detail::BatchedPath::tiles);
  const auto e = detail::GemmBatchedEntriesOf<Exec, T>::params(p.entry);
  return {e.bm, e.bn};
}
TEST(GemmBatchedPlan, CudaTilesByShape) {
  if constexpr (!std::is_same_v<Exec, Kokkos::Cuda>) {
    GTEST_SKIP() << "a CUDA table rule";
  } else {
    using A = std::array<int, 2>;
    EXPECT_EQ(batched_tile<float>(32, 32, 32), (A{32, 32}));
    EXPECT_EQ(batched_tile<float>(32, 33, 32), (A{32, 64}));
    EXPECT_EQ(batched_tile<float>(32, 512, 32), (A{32, 64}));
    EXPECT_EQ(batched_tile<float>(36, 512, 32), (A{64, 64}));
    EXPECT_EQ(batched_tile<float>(512, 32, 32), (A{128, 32}));
    EXPECT_EQ(batched_tile<float>(512, 33, 32), (A{64, 64}));
    EXPECT_EQ(batched_tile<float>(128, 128, 128), (A{64, 128}));
    EXPECT_EQ(batched_tile<float>(124, 128, 128), (A{64, 64}));
    EXPECT_EQ(batched_tile<float>(128, 124, 128), (A{64, 64}));
    EXPECT_EQ(batched_tile<double>(32, 32, 32), (A{32, 32}));
    EXPECT_EQ(batched_tile<double>(32, 512, 32), (A{32, 64}));
    EXPECT_EQ(batched_tile<double>(512, 32, 32), (A{64, 32}));
    EXPECT_EQ(batched_tile<double>(512, 33, 32), (A{64, 64}));
    EXPECT_EQ(batched_tile<double>(256, 256, 256), (A{64, 64}));
  }
}
#endif

// The panels path runs each matrix on the table's direct entry (gemm_batched_direct) up to its
// batched_max_extent in M and K (any N), and on the panel entry just past it in either; never where the
// batch is too small for the path. Every transpose pair; the config text and the tile config say which.
template <class T>
void direct_batched_plans() {
  using Direct = detail::BatchedDirectCfgOf<Exec, T>;
  if constexpr (std::is_void_v<Direct>) {
    GTEST_SKIP() << "no direct entry for batches in this table";
  } else {
    const std::int64_t e = Direct::batched_max_extent;
    static std::vector<T> buf(64);
    const auto plan = [&](std::int64_t count, std::int64_t m, std::int64_t n, std::int64_t k, bool a_t,
                          bool b_t) {
      const detail::StridedBatch<const T> a{buf.data(), count, m, k, a_t ? k : 1, a_t ? 1 : m, m * k};
      const detail::StridedBatch<const T> b{buf.data(), count, k, n, b_t ? n : 1, b_t ? 1 : k, k * n};
      return detail::plan_gemm_batched<Exec, T>(a, b, 100, 4);
    };
    for (int t = 0; t < 4; ++t) {
      const bool a_t = t & 1, b_t = t & 2;
      for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{{17, 17, 17},
                                                                            {32, 32, 32},
                                                                            {64, 64, 64},
                                                                            {e, e, e},
                                                                            {e, 1, 1},
                                                                            {1, 1, e},
                                                                            {32, 512, 32},
                                                                            {e, e + 1, e}}) {
        const detail::BatchedPlan p = plan(4, m, n, k, a_t, b_t);
        EXPECT_EQ(p.path, detail::BatchedPath::panels) << m << "x" << n << "x" << k;
        EXPECT_TRUE(p.direct) << m << "x" << n << "x" << k << " " << t;
      }
      for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
               {e + 1, e, e}, {e, e, e + 1}, {e + 1, 1, 1}, {1, 1, e + 1}, {512, 512, 512}}) {
        const detail::BatchedPlan p = plan(4, m, n, k, a_t, b_t);
        EXPECT_EQ(p.path, detail::BatchedPath::panels) << m << "x" << n << "x" << k;
        EXPECT_FALSE(p.direct) << m << "x" << n << "x" << k << " " << t;
      }
      EXPECT_FALSE(plan(3, 64, 64, 64, a_t, b_t).direct);  // fewer matrices than threads: tiles
    }
    Kokkos::View<T***, Kokkos::LayoutLeft, Exec> A("A", 4, 64, 64), C("C", 4, 300, 300);
    EXPECT_NE(ridgeline::gemm_batched_config(Exec(), "N", "N", A, A).find("direct"), std::string::npos);
    EXPECT_EQ(ridgeline::gemm_batched_config(Exec(), "N", "N", C, C).find("direct"), std::string::npos);
    EXPECT_EQ(ridgeline::gemm_batched_tile_config(Exec(), "N", "N", A, A).micro_kernel,
              std::string(Direct::micro_kernel_name));
  }
}
TEST(GemmBatchedPlan, DirectUpToItsExtent) {
  direct_batched_plans<float>();
  direct_batched_plans<double>();
}

// The multiply-and-shift division the small path splits its indices with, against integer division,
// over every divisor it can meet (extents and packet counts up to a few thousand) and dividends up to
// the largest int.
TEST(GemmBatchedPlan, ConstantDivisorIsExact) {
  std::mt19937_64 gen(11);
  std::uniform_int_distribution<int> any(0, std::numeric_limits<int>::max());
  for (int d = 1; d <= 5000; ++d) {
    const detail::ConstantDivisor div(d);
    for (int n : {0, 1, d - 1, d, d + 1, 2 * d - 1, std::numeric_limits<int>::max(),
                  std::numeric_limits<int>::max() - 1})
      ASSERT_EQ(div.div(n), n / d) << n << " / " << d;
    for (int i = 0; i < 200; ++i) {
      const int n = any(gen);
      ASSERT_EQ(div.div(n), n / d) << n << " / " << d;
    }
  }
}

}  // namespace
}  // namespace ridgeline::test
