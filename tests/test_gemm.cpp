// GEMM correctness, written once and compiled for every enabled Kokkos backend
// (RIDGELINE_TEST_EXEC_SPACE). Every case uses fresh seeded random operands, a double-precision
// reference, and checks every element of C.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <ridgeline/ridgeline.hpp>
#include <string>
#include <vector>

#include "reference.hpp"

// Where libridgeline holds no dispatch (a build with RIDGELINE_DISPATCH_INSTANCES=OFF; detail/instances.hpp),
// the real dispatch for this backend is instantiated here once for the complex cases too
// (test_gemm_complex.cpp declares it extern: a complex product that runs as a real one calls it).
#if !RIDGELINE_HAVE_DISPATCH_INSTANCES
template void ridgeline::detail::gemm_dispatch<ridgeline::test::Exec, float, float>(
    const ridgeline::test::Exec&, const ridgeline::detail::Strided2D<const float>&,
    const ridgeline::detail::Strided2D<const float>&, const ridgeline::detail::Strided2D<float>&, float,
    float, bool, bool);
template void ridgeline::detail::gemm_dispatch<ridgeline::test::Exec, double, double>(
    const ridgeline::test::Exec&, const ridgeline::detail::Strided2D<const double>&,
    const ridgeline::detail::Strided2D<const double>&, const ridgeline::detail::Strided2D<double>&, double,
    double, bool, bool);
#endif

// RIDGELINE_TEST_LAYOUT_MIXES (default 1): the four mixed-layout instantiations of run_gemm (LRS, RSL, SLR,
// RSS) beside LLL, RRR, SSS and LRL. The kernels see only strides (gemm_dispatch, once per dtype), so
// the mixes add host code and Kokkos copy kernels, not kernels of Ridgeline's. CI's plain CUDA 11.8 build,
// which compiles this file only to show that the build without the sm_90a route still compiles, sets 0;
// its cases skip, saying so.
#ifndef RIDGELINE_TEST_LAYOUT_MIXES
#define RIDGELINE_TEST_LAYOUT_MIXES 1
#endif

namespace ridgeline::test {
namespace {

struct GemmCase {
  std::int64_t m, n, k;
  char ta, tb;
  Lay la, lb, lc;
  double alpha, beta;
  Dt dt;
  std::uint64_t seed;
};

std::string describe(const GemmCase& c) {
  std::ostringstream s;
  s << name(c.dt) << "gemm " << c.ta << c.tb << " " << c.m << "x" << c.n << "x" << c.k << " layouts "
    << name(c.la) << name(c.lb) << name(c.lc) << " alpha=" << c.alpha << " beta=" << c.beta;
  return s.str();
}

void PrintTo(const GemmCase& c, std::ostream* os) {
  *os << describe(c);
}

template <class T, class TC, class LA, class LB, class LC>
void run_gemm(const GemmCase& c) {
  const bool ta = c.ta == 'T', tb = c.tb == 'T';
  auto A = make_matrix<T, LA>("A", ta ? c.k : c.m, ta ? c.m : c.k);
  auto B = make_matrix<T, LB>("B", tb ? c.n : c.k, tb ? c.k : c.n);
  auto C = make_matrix<TC, LC>("C", c.m, c.n);
  fill_random(A, c.seed * 3 + 1);
  fill_random(B, c.seed * 3 + 2);
  // beta == 0: C is pure output, so it is poisoned; otherwise it is an input and gets random data.
  if (c.beta == 0) {
    fill_value(C, poison<TC>());
  } else {
    fill_random(C, c.seed * 3 + 3);
  }
  const HostMatrix hA = to_host(A), hB = to_host(B), hC0 = to_host(C);
  const char tra[2] = {c.ta, 0}, trb[2] = {c.tb, 0};
  using S = detail::GemmScalar<decltype(A)>;
  ridgeline::gemm(Exec(), tra, trb, static_cast<S>(c.alpha), A, B, static_cast<S>(c.beta), C);
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, TC>();
  const auto want =
      reference_gemm(transpose_if(hA, ta), transpose_if(hB, tb), hC0, c.alpha, c.beta, tol.acc, tol.out);
  EXPECT_TRUE(matches(to_host(C), want)) << describe(c);
}

template <class T, class TC>
void run_layouts(const GemmCase& c) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  const auto key = std::string(name(c.la)) + name(c.lb) + name(c.lc);
  if (key == "LLL") return run_gemm<T, TC, L, L, L>(c);
  if (key == "RRR") return run_gemm<T, TC, R, R, R>(c);
  if (key == "SSS") return run_gemm<T, TC, S, S, S>(c);
  if (key == "LRL") return run_gemm<T, TC, L, R, L>(c);
#if RIDGELINE_TEST_LAYOUT_MIXES
  if (key == "LRS") return run_gemm<T, TC, L, R, S>(c);
  if (key == "RSL") return run_gemm<T, TC, R, S, L>(c);
  if (key == "SLR") return run_gemm<T, TC, S, L, R>(c);
  if (key == "RSS") return run_gemm<T, TC, R, S, S>(c);
#else
  if (key == "LRS" || key == "RSL" || key == "SLR" || key == "RSS")
    GTEST_SKIP() << "layout mix " << key << " not built here (RIDGELINE_TEST_LAYOUT_MIXES=0)";
#endif
  FAIL() << "no instantiation for layouts " << key;
}

void run(const GemmCase& c) {
  with_dtype(c.dt, [&](auto in, auto out) { run_layouts<decltype(in), decltype(out)>(c); });
}

const double kScalars[] = {0.0, 1.0, -1.5, 0.3};

// ---- shapes: tiny, awkward, tails, tile multiples and one-off ------------------------------------
std::vector<GemmCase> shape_cases() {
  std::vector<std::array<std::int64_t, 3>> shapes = {
      {0, 5, 7}, {5, 0, 7}, {5, 7, 0},    {0, 0, 0},      {1, 1, 1},       {7, 7, 7},    {1, 7, 7},
      {7, 1, 7}, {7, 7, 1}, {13, 15, 17}, {179, 15, 211}, {12, 3071, 517}, {3, 2, 1000}, {1000, 1000, 1000}};
  // Exact multiples of this backend's fp32, fp64 and 16-bit tiles, and one off each way.
  for (const auto& t : {gemm_tile_config<Exec, float>(), gemm_tile_config<Exec, double>(),
                        gemm_tile_config<Exec, float>(true), gemm_tile_config<Exec, double>(true),
                        gemm_tile_config<Exec, half_t>(), gemm_tile_config<Exec, half_t>(true)}) {
    shapes.push_back({2 * t.bm, 2 * t.bn, 2 * t.bk});
    shapes.push_back({2 * t.bm + 1, 2 * t.bn - 1, 2 * t.bk + 1});
    shapes.push_back({2 * t.bm - 1, 2 * t.bn + 1, 2 * t.bk - 1});
  }
  std::vector<GemmCase> cases;
  std::uint64_t seed = 100;
  for (const auto& s : shapes)
    for (Dt dt : kAllDtypes)
      cases.push_back({s[0], s[1], s[2], 'N', 'N', Lay::left, Lay::left, Lay::left, -1.5, 0.3, dt, seed++});
  return cases;
}

class GemmShapes : public ::testing::TestWithParam<GemmCase> {};
TEST_P(GemmShapes, MatchesReference) {
  const auto& c = GetParam();
  if (reduced() && c.m * c.n * c.k > 4000000) GTEST_SKIP() << "reduced run";
  run(c);
}
INSTANTIATE_TEST_SUITE_P(All, GemmShapes, ::testing::ValuesIn(shape_cases()));

// ---- every transpose pair against every layout mix --------------------------------------------
std::vector<GemmCase> trans_layout_cases() {
  const Lay mixes[][3] = {{Lay::left, Lay::left, Lay::left},       {Lay::right, Lay::right, Lay::right},
                          {Lay::stride, Lay::stride, Lay::stride}, {Lay::left, Lay::right, Lay::stride},
                          {Lay::right, Lay::stride, Lay::left},    {Lay::stride, Lay::left, Lay::right}};
  std::vector<GemmCase> cases;
  std::uint64_t seed = 1000;
  int ab = 0;
  for (const char* t : {"NN", "NT", "TN", "TT"})
    for (const auto& mix : mixes)
      for (Dt dt : kAllDtypes) {
        // alpha, beta walk through {0, 1, -1.5, 0.3}^2 with alpha != 0 so the product is exercised.
        const double alpha = kScalars[1 + ab % 3], beta = kScalars[(ab / 3) % 4];
        ++ab;
        // K = 300 crosses the host's 256-deep K step and the GPU's 8-deep one with a tail.
        cases.push_back({37, 29, 300, t[0], t[1], mix[0], mix[1], mix[2], alpha, beta, dt, seed++});
      }
  // Large enough for interior tiles on every backend (host tiles are up to 96x128x256), so the
  // unchecked staging path runs for every transpose with unit and non-unit strides.
  for (const char* t : {"NN", "NT", "TN", "TT"})
    for (int mix : {0, 1, 2})
      for (Dt dt : kAllDtypes)
        cases.push_back(
            {200, 270, 530, t[0], t[1], mixes[mix][0], mixes[mix][1], mixes[mix][2], -1.5, 0.3, dt, seed++});
  return cases;
}

class GemmTransLayout : public ::testing::TestWithParam<GemmCase> {};
TEST_P(GemmTransLayout, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, GemmTransLayout, ::testing::ValuesIn(trans_layout_cases()));

// ---- alpha and beta over {0, 1, -1.5, 0.3}^2 ----------------------------------------------------
std::vector<GemmCase> alpha_beta_cases() {
  std::vector<GemmCase> cases;
  std::uint64_t seed = 2000;
  for (double alpha : kScalars)
    for (double beta : kScalars)
      for (Dt dt : kAllDtypes)
        cases.push_back({13, 15, 17, 'N', 'T', Lay::left, Lay::right, Lay::left, alpha, beta, dt, seed++});
  return cases;
}

class GemmAlphaBeta : public ::testing::TestWithParam<GemmCase> {};
TEST_P(GemmAlphaBeta, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, GemmAlphaBeta, ::testing::ValuesIn(alpha_beta_cases()));

// ---- beta == 0 never reads C --------------------------------------------------------------------
TEST(Gemm, BetaZeroIgnoresNaNInC) {
  for (double alpha : {1.0, 0.0}) {
    for (std::int64_t k : {0, 9}) {
      auto A = make_matrix<float, Kokkos::LayoutLeft>("A", 33, k);
      auto B = make_matrix<float, Kokkos::LayoutLeft>("B", k, 21);
      auto C = make_matrix<float, Kokkos::LayoutLeft>("C", 33, 21);
      fill_random(A, 7), fill_random(B, 8);
      fill_value(C, poison<float>());
      ridgeline::gemm(Exec(), "N", "N", static_cast<float>(alpha), A, B, 0.0f, C);
      Kokkos::fence();
      const auto got = to_host(C);
      const auto want = reference_gemm(to_host(A), to_host(B), got, alpha, 0.0, eps_of<float>());
      EXPECT_TRUE(matches(got, want)) << "alpha=" << alpha << " K=" << k;
    }
  }
}

// ---- the rest of a bigger matrix around a C subview stays untouched ------------------------------
// Elements of a bigger matrix, before and after a call, that changed outside its rows x cols block at
// (row0, col0): bit by bit, so that a NaN written over a NaN still counts as unchanged.
inline std::int64_t changed_outside(const HostMatrix& before, const HostMatrix& after, std::int64_t row0,
                                    std::int64_t rows, std::int64_t col0, std::int64_t cols) {
  std::int64_t changed = 0;
  for (std::int64_t i = 0; i < after.rows; ++i)
    for (std::int64_t j = 0; j < after.cols; ++j) {
      const bool inside = i >= row0 && i < row0 + rows && j >= col0 && j < col0 + cols;
      if (!inside && std::memcmp(&after(i, j), &before(i, j), sizeof(double)) != 0) ++changed;
    }
  return changed;
}

template <class T, class Layout>
void guard_band(double beta) {
  const std::int64_t M = 45, N = 39, K = 270, pad = 5;
  using Big = Kokkos::View<T**, Layout, Mem>;
  Big bigC("bigC", M + 2 * pad, N + 2 * pad), bigA("bigA", M + 2 * pad, K + 2 * pad),
      bigB("bigB", K + 2 * pad, N + 2 * pad);
  fill_random(bigA, 11), fill_random(bigB, 12), fill_random(bigC, 13);
  const auto rm = std::make_pair(pad, pad + M), rn = std::make_pair(pad, pad + N),
             rk = std::make_pair(pad, pad + K);
  auto A = Kokkos::subview(bigA, rm, rk);
  auto B = Kokkos::subview(bigB, rk, rn);
  auto C = Kokkos::subview(bigC, rm, rn);
  if (beta == 0) fill_value(C, poison<T>());
  const HostMatrix before = to_host(bigC), hC0 = to_host(C);
  ridgeline::gemm(Exec(), "N", "N", T(0.3), A, B, static_cast<T>(beta), C);
  Kokkos::fence();
  EXPECT_EQ(changed_outside(before, to_host(bigC), pad, M, pad, N), 0)
      << "elements outside the C subview changed";
  const auto want = reference_gemm(to_host(A), to_host(B), hC0, 0.3, beta, eps_of<T>());
  EXPECT_TRUE(matches(to_host(C), want));
}

// Edge tiles moved back inside C (tile_inside_origin, gemm_epilogue.hpp): products whose tiles overhang
// M and N by a few rows and columns, as subviews inside bigger matrices, whose guard band must stay
// untouched while every element of C is checked. The bigger matrices' leading dimensions are whole
// packets: with offsets of 4 elements the operands stage in packets, and where M is off the packet grid
// (197) the move along M is not whole packets, so that tile stays and loads checked; offsets of 3
// elements stage element by element. Every transpose pair, beta zero (C poisoned) and not, deep K
// (split K) and not.
template <class T>
void edge_tiles_moved_inside(std::uint64_t seed) {
  using Big = Kokkos::View<T**, Kokkos::LayoutLeft, Mem>;
  struct Shape {
    std::int64_t m, n, k, pad;
  };
  const Shape shapes[] = {{196, 260, 72, 4},   {197, 259, 73, 4},  {197, 259, 73, 3}, {198, 262, 1500, 4},
                          {130, 250, 2000, 3}, {1020, 132, 64, 4}, {61, 300, 40, 4}};
  const auto lines = [](std::int64_t r) { return (r + 3) / 4 * 4; };  // leading dimensions: whole packets
  for (const Shape& sh : shapes)
    for (const char* t : {"NN", "NT", "TN", "TT"})
      for (double beta : {0.0, 0.7}) {
        const bool at = t[0] == 'T', bt = t[1] == 'T';
        const std::int64_t p = sh.pad, ar = at ? sh.k : sh.m, ac = at ? sh.m : sh.k;
        const std::int64_t br = bt ? sh.n : sh.k, bc = bt ? sh.k : sh.n;
        Big bigA("bigA", lines(ar + 2 * p), ac + 2 * p), bigB("bigB", lines(br + 2 * p), bc + 2 * p),
            bigC("bigC", lines(sh.m + 2 * p), sh.n + 2 * p);
        fill_random(bigA, seed += 3), fill_random(bigB, seed += 3), fill_random(bigC, seed += 3);
        const auto A = Kokkos::subview(bigA, std::make_pair(p, p + ar), std::make_pair(p, p + ac));
        const auto B = Kokkos::subview(bigB, std::make_pair(p, p + br), std::make_pair(p, p + bc));
        const auto C = Kokkos::subview(bigC, std::make_pair(p, p + sh.m), std::make_pair(p, p + sh.n));
        if (beta == 0) fill_value(C, poison<T>());
        const HostMatrix before = to_host(bigC), hC0 = to_host(C);
        const char ta[2] = {t[0], 0}, tb[2] = {t[1], 0};
        ridgeline::gemm(Exec(), ta, tb, T(-0.9), A, B, static_cast<T>(beta), C);
        Kokkos::fence();
        const std::int64_t touched = changed_outside(before, to_host(bigC), p, sh.m, p, sh.n);
        const std::string what = std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" +
                                 std::to_string(sh.k) + " " + t + " beta " + std::to_string(beta);
        EXPECT_EQ(touched, 0) << what << ": elements outside the C subview changed";
        const auto want = reference_gemm(transpose_if(to_host(A), at), transpose_if(to_host(B), bt), hC0,
                                         -0.9, beta, eps_of<T>());
        EXPECT_TRUE(matches(to_host(C), want)) << what;
      }
}
TEST(Gemm, EdgeTilesMovedInsideFloat) {
  edge_tiles_moved_inside<float>(9700);
}
TEST(Gemm, EdgeTilesMovedInsideDouble) {
  edge_tiles_moved_inside<double>(9750);
}

TEST(Gemm, GuardBandLeftFloat) {
  guard_band<float, Kokkos::LayoutLeft>(0.0);
}
TEST(Gemm, GuardBandRightFloatBeta) {
  guard_band<float, Kokkos::LayoutRight>(-1.5);
}
TEST(Gemm, GuardBandLeftDoubleBeta) {
  guard_band<double, Kokkos::LayoutLeft>(0.3);
}
TEST(Gemm, GuardBandRightDouble) {
  guard_band<double, Kokkos::LayoutRight>(0.0);
}

// An unallocated rows x cols operand, for calls that only plan (gemm_tile_config never reads elements).
template <class T, class Layout = Kokkos::LayoutLeft>
Kokkos::View<T**, Layout, Mem> plan_only_view(std::int64_t rows, std::int64_t cols) {
  return Kokkos::View<T**, Layout, Mem>(static_cast<T*>(nullptr), rows, cols);
}

// What ridgeline::gemm plans for an M x N x K product of LayoutLeft operands, and its entry and staging.
// Plans only.
template <class T>
TileConfig plan_config(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k) {
  const auto A = plan_only_view<T>(ta == 'T' ? k : m, ta == 'T' ? m : k);
  const auto B = plan_only_view<T>(tb == 'T' ? n : k, tb == 'T' ? k : n);
  const char a[2] = {ta, 0}, b[2] = {tb, 0};
  return gemm_tile_config(Exec(), a, b, A, B);
}
template <class T>
std::string entry_of(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k) {
  return plan_config<T>(ta, tb, m, n, k).entry;
}
template <class T>
std::string plan_staging(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k) {
  return plan_config<T>(ta, tb, m, n, k).staging;
}

// Two calls on the same inputs must give the same bits (and the right answer).
template <class T = float, class TC = T>
void rerun_is_bit_identical(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed,
                            char ta = 'N') {
  const bool at = ta == 'T';
  auto A = make_matrix<T, Kokkos::LayoutLeft>("A", at ? k : m, at ? m : k);
  auto B = make_matrix<T, Kokkos::LayoutLeft>("B", k, n);
  auto C1 = make_matrix<TC, Kokkos::LayoutLeft>("C1", m, n);
  auto C2 = make_matrix<TC, Kokkos::LayoutLeft>("C2", m, n);
  fill_random(A, seed), fill_random(B, seed + 1);
  fill_value(C1, poison<TC>()), fill_value(C2, poison<TC>());
  using S = detail::GemmScalar<decltype(A)>;
  const char tra[2] = {ta, 0};
  ridgeline::gemm(Exec(), tra, "N", S(1), A, B, S(0), C1);
  ridgeline::gemm(Exec(), tra, "N", S(1), A, B, S(0), C2);
  Kokkos::fence();
  const auto h1 = to_host(C1), h2 = to_host(C2);
  EXPECT_EQ(std::memcmp(h1.v.data(), h2.v.data(), h1.v.size() * sizeof(double)), 0)
      << ta << "N " << m << "x" << n << "x" << k;
  const Tolerance tol = tolerance_of<T, TC>();
  EXPECT_TRUE(
      matches(h1, reference_gemm(transpose_if(to_host(A), at), to_host(B), h1, 1.0, 0.0, tol.acc, tol.out)));
}

// ---- 16-byte packet staging: tails in M, N and K, and the fallback -----------------------------
// Extents that are multiples of 4 keep every leading dimension packet-aligned, while none is a
// multiple of a GPU tile, so edge tiles and the K tail run the checked packet path. On backends whose
// table has packet staging the test asserts that it was chosen, so the cases cannot silently take
// the element-wise path.
template <class T, class L>
void packet_case(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed) {
  const bool a_t = ta == 'T', b_t = tb == 'T';
  auto A = make_matrix<T, L>("A", a_t ? k : m, a_t ? m : k);
  auto B = make_matrix<T, L>("B", b_t ? n : k, b_t ? k : n);
  auto C = make_matrix<T, Kokkos::LayoutLeft>("C", m, n);
  fill_random(A, seed), fill_random(B, seed + 1), fill_value(C, poison<T>());
  const auto sa = detail::strided_op(A, a_t ? detail::Trans::T : detail::Trans::N);
  const auto sb = detail::strided_op(B, b_t ? detail::Trans::T : detail::Trans::N);
  const detail::Strided2D<const T> ca{sa.data, sa.rows, sa.cols, sa.rs, sa.cs},
      cb{sb.data, sb.rows, sb.cols, sb.rs, sb.cs};
  using Plain = detail::GemmKernel<Exec, T, true, false>;
  if (Plain::vector_capable) {
    EXPECT_TRUE((detail::gemm_uses_packets<Exec, T>(ca, cb))) << ta << tb;
  }
  const char tra[2] = {ta, 0}, trb[2] = {tb, 0};
  ridgeline::gemm(Exec(), tra, trb, T(-1.5), A, B, T(0), C);
  Kokkos::fence();
  const auto want = reference_gemm(transpose_if(to_host(A), a_t), transpose_if(to_host(B), b_t), to_host(C),
                                   -1.5, 0.0, eps_of<T>());
  EXPECT_TRUE(matches(to_host(C), want)) << ta << tb << " " << m << "x" << n << "x" << k;
}

TEST(Gemm, PacketStagingWithTails) {
  std::uint64_t seed = 4000;
  // The reduced (sanitizer) run keeps a tail in M, N and K with fewer tiles.
  const std::int64_t m = reduced() ? 132 : 260, n = reduced() ? 260 : 388, k = reduced() ? 20 : 276;
  for (const char* t : {"NN", "NT", "TN", "TT"}) {
    packet_case<float, Kokkos::LayoutLeft>(t[0], t[1], m, n, k, seed += 2);
    packet_case<double, Kokkos::LayoutRight>(t[0], t[1], 132, 260, reduced() ? 20 : 140, seed += 2);
  }
}

// A sub-view one element off a 16-byte boundary cannot be staged in packets; the dispatcher must
// notice and stage element-wise.
TEST(Gemm, MisalignedOperandFallsBack) {
  auto bigA = make_matrix<float, Kokkos::LayoutLeft>("bigA", 261, 276);
  auto B = make_matrix<float, Kokkos::LayoutLeft>("B", 276, 388);
  auto C = make_matrix<float, Kokkos::LayoutLeft>("C", 260, 388);
  fill_random(bigA, 31), fill_random(B, 32), fill_value(C, poison<float>());
  auto A = Kokkos::subview(bigA, std::make_pair(1, 261), Kokkos::ALL());
  const auto sa = detail::strided_op(A, detail::Trans::N), sb = detail::strided_op(B, detail::Trans::N);
  EXPECT_FALSE((detail::gemm_uses_packets<Exec, float>(
      detail::Strided2D<const float>{sa.data, sa.rows, sa.cols, sa.rs, sa.cs},
      detail::Strided2D<const float>{sb.data, sb.rows, sb.cols, sb.rs, sb.cs})));
  ridgeline::gemm(Exec(), "N", "N", 1.0f, A, B, 0.0f, C);
  Kokkos::fence();
  const auto want = reference_gemm(to_host(A), to_host(B), to_host(C), 1.0, 0.0, eps_of<float>());
  EXPECT_TRUE(matches(to_host(C), want));
}

// Fresh random A and B; C random too where beta reads it, poisoned where beta == 0 must ignore it.
template <class AV, class BV, class CV>
void fill_operands(const AV& A, const BV& B, const CV& C, double beta, std::uint64_t seed) {
  fill_random(A, seed), fill_random(B, seed + 1);
  if (beta == 0) {
    fill_value(C, poison<typename CV::non_const_value_type>());
  } else {
    fill_random(C, seed + 2);
  }
}

// ---- aligned copies of operands that cannot stage in packets -----------------------------------
// gemm copies such operands (odd leading dimensions) into aligned workspace buffers when the
// product is large (the table's pack_min_extent). The copy-and-multiply path runs here directly on
// small products, for every transpose: on the GPU tables in packets, on the host table as it
// chooses. Spare rows make every stored leading dimension odd.
std::int64_t odd_above(std::int64_t x) {
  return (x + 1) % 2 == 1 ? x + 1 : x + 2;
}

// Fresh inputs in A and B (C poisoned when beta == 0), product(op(A), op(B), C, alpha, beta) on
// strided operands (a dispatch-level entry), and every element of C against the reference. C is the
// first m rows of a matrix with spare rows (an odd leading dimension) that hold a sentinel, which must
// be there afterwards: a kernel that writes past a column's last row (a partial micro-tile's store)
// fails here, even where the next column's store would hide it in a C of exactly m rows.
template <class T, class AV, class BV, class Product>
void expect_direct_product(char ta, char tb, const AV& A, const BV& B, std::int64_t m, std::int64_t n,
                           double alpha, double beta, std::uint64_t seed, const std::string& what,
                           Product product) {
  const bool a_t = ta == 'T', b_t = tb == 'T';
  auto bigC = make_matrix<T, Kokkos::LayoutLeft>("C", odd_above(m), n);
  const T sentinel = static_cast<T>(-1234.5);
  Kokkos::deep_copy(bigC, sentinel);
  auto C = Kokkos::subview(bigC, std::make_pair<std::int64_t>(0, m), Kokkos::ALL());
  fill_operands(A, B, C, beta, seed);
  const HostMatrix hC0 = to_host(C);
  const auto sa = detail::strided_op(A, a_t ? detail::Trans::T : detail::Trans::N);
  const auto sb = detail::strided_op(B, b_t ? detail::Trans::T : detail::Trans::N);
  product(detail::Strided2D<const T>{sa.data, sa.rows, sa.cols, sa.rs, sa.cs},
          detail::Strided2D<const T>{sb.data, sb.rows, sb.cols, sb.rs, sb.cs},
          detail::strided_op(C, detail::Trans::N), static_cast<T>(alpha), static_cast<T>(beta));
  Kokkos::fence();
  const auto want = reference_gemm(transpose_if(to_host(A), a_t), transpose_if(to_host(B), b_t), hC0, alpha,
                                   beta, eps_of<T>());
  EXPECT_TRUE(matches(to_host(C), want)) << ta << tb << " " << what << " beta " << beta;
  const HostMatrix all = to_host(bigC);
  std::int64_t touched = 0;
  for (std::int64_t i = m; i < all.rows; ++i)
    for (std::int64_t j = 0; j < n; ++j) touched += all(i, j) != double(sentinel);
  EXPECT_EQ(touched, 0) << ta << tb << " " << what << " beta " << beta << ": elements written past row " << m;
}

template <class T>
void packed_case(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, double beta,
                 std::uint64_t seed) {
  const bool a_t = ta == 'T', b_t = tb == 'T';
  const std::int64_t ar = a_t ? k : m, br = b_t ? n : k;
  auto bigA = make_matrix<T, Kokkos::LayoutLeft>("A", odd_above(ar), a_t ? m : k);
  auto bigB = make_matrix<T, Kokkos::LayoutLeft>("B", odd_above(br), b_t ? k : n);
  auto A = Kokkos::subview(bigA, std::make_pair<std::int64_t>(0, ar), Kokkos::ALL());
  auto B = Kokkos::subview(bigB, std::make_pair<std::int64_t>(0, br), Kokkos::ALL());
  const std::string what = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  expect_direct_product<T>(
      ta, tb, A, B, m, n, 0.7, beta, seed, what, [&](auto ca, auto cb, auto c, T al, T be) {
        EXPECT_FALSE((detail::gemm_uses_packets<Exec, T>(ca, cb))) << ta << tb << " precondition";
        detail::gemm_dispatch_packed(Exec(), ca, cb, c, al, be);
      });
}

// Through the copies, odd leading dimensions, every orientation. On tile entries the copies' padding past the
// last row (column) is read as rows of the edge tiles (extended_to_packets): 133 rows run as 136, so the rows
// written past C (expect_direct_product's sentinel) would show.
TEST(Gemm, PackedOperandsMatchReference) {
  std::uint64_t seed = 6000;
  for (const char* t : {"NN", "NT", "TN", "TT"}) {
    packed_case<float>(t[0], t[1], 133, 258, reduced() ? 37 : 301, 0.0, seed += 3);
    packed_case<double>(t[0], t[1], 70, 131, 45, -0.5, seed += 3);
  }
  // A second, larger call on the same instance grows the cached buffers; a smaller one reuses them.
  packed_case<float>('N', 'N', 260, 300, 90, 0.25, seed += 3);
  packed_case<float>('T', 'N', 20, 30, 10, 0.0, seed += 3);
  EXPECT_GT(ridgeline::workspace_bytes(), 0u);
}

// The copies read to the next whole 16-byte packet along their fast index (extended_to_packets), every
// orientation, on this table's packet entry where its kernel stages the orientation in packets, else on its
// general entry (element staging; the host's case): the copies' zero padding enters the edge tiles as rows
// (columns) of op(A) (op(B)), and C keeps only its own: against the reference, and nothing written past C's
// last row (expect_direct_product's sentinel). 133 rows and 131 columns run as 136 and 132.
TEST(Gemm, CopiesReadToWholePackets) {
  using L = detail::GemmEntriesOf<Exec, float>;
  const int packets = L::find(detail::GemmRole::packets), general = L::find(detail::GemmRole::general);
  if (packets < 0 || general < 0) GTEST_SKIP() << "no packet or general entry in this table";
  const std::int64_t m = 133, n = 131, k = reduced() ? 40 : 150;
  std::uint64_t seed = 9950;
  for (const char* t : {"NN", "NT", "TN", "TT"}) {
    const bool a_t = t[0] == 'T', b_t = t[1] == 'T';
    const std::int64_t ar = a_t ? k : m, br = b_t ? n : k;
    auto bigA = make_matrix<float, Kokkos::LayoutLeft>("A", odd_above(ar), a_t ? m : k);
    auto bigB = make_matrix<float, Kokkos::LayoutLeft>("B", odd_above(br), b_t ? k : n);
    auto A = Kokkos::subview(bigA, std::make_pair<std::int64_t>(0, ar), Kokkos::ALL());
    auto B = Kokkos::subview(bigB, std::make_pair<std::int64_t>(0, br), Kokkos::ALL());
    for (double beta : {0.0, 0.5})
      expect_direct_product<float>(
          t[0], t[1], A, B, m, n, -0.7, beta, seed += 3, std::string(t) + " extended copies",
          [&](auto ca, auto cb, auto c, float al, float be) {
            Kokkos::View<float*, Mem> da("da", detail::packed_size(ca)), db("db", detail::packed_size(cb));
            const auto a2 = detail::pack_aligned(Exec(), ca, da.data());
            const auto b2 = detail::pack_aligned(Exec(), cb, db.data());
            bool capable = false;  // the packet entry's kernel stages this orientation in packets
            L::visit(packets, [&](auto e) {
              using E = decltype(e);
              if constexpr (E::When::role == detail::GemmRole::packets)
                capable = detail::entry_vector_capable<Exec, float, E>(detail::rows_contiguous(a2),
                                                                       !detail::rows_contiguous(b2));
            });
            const detail::GemmPlan plan = detail::gemm_plan_with_entry<Exec, float>(
                Exec(), detail::GemmPlan{}, capable ? packets : general, m, n, k);
            ASSERT_EQ(plan.peel.m0, 0);
            const auto a3 = detail::rows_contiguous(a2) ? detail::extended_to_packets(a2, plan) : a2;
            const auto b3 = !detail::rows_contiguous(b2) ? detail::extended_to_packets(b2, plan) : b2;
            EXPECT_EQ(a3.rows, a_t ? m : 136) << t;  // op(A) m-contiguous (A not transposed): 133 -> 136
            EXPECT_EQ(b3.cols, b_t ? 132 : n) << t;  // op(B) n-contiguous (B transposed): 131 -> 132
            detail::run_gemm_plan(Exec(), plan, a3, b3, c, al, be);
          });
  }
}

// The copy path and the peeled path give the same bits on a rerun, as the direct kernels do.
TEST(Gemm, PackedAndPeeledRerunIsBitIdentical) {
  using L = Kokkos::LayoutLeft;
  const std::int64_t m = 259, n = 257, k = reduced() ? 64 : 300;
  auto bigA = make_matrix<float, L>("A", odd_above(m), k);  // an odd leading dimension
  auto A = Kokkos::subview(bigA, std::make_pair<std::int64_t>(0, m), Kokkos::ALL());
  auto B = make_matrix<float, L>("B", k, n);
  fill_random(bigA, 7101), fill_random(B, 7102);
  const auto sa = detail::strided_op(A, detail::Trans::N), sb = detail::strided_op(B, detail::Trans::N);
  const detail::Strided2D<const float> ca{sa.data, sa.rows, sa.cols, sa.rs, sa.cs},
      cb{sb.data, sb.rows, sb.cols, sb.rs, sb.cs};
  const auto twice = [&](const char* path, auto product) {
    auto C1 = make_matrix<float, L>("C1", m, n), C2 = make_matrix<float, L>("C2", m, n);
    fill_value(C1, poison<float>()), fill_value(C2, poison<float>());
    product(detail::strided_op(C1, detail::Trans::N));
    product(detail::strided_op(C2, detail::Trans::N));
    Kokkos::fence();
    const auto h1 = to_host(C1), h2 = to_host(C2);
    EXPECT_EQ(std::memcmp(h1.v.data(), h2.v.data(), h1.v.size() * sizeof(double)), 0) << path;
    EXPECT_TRUE(matches(h1, reference_gemm(to_host(A), to_host(B), h1, 1.0, 0.0, eps_of<float>()))) << path;
  };
  twice("copies", [&](auto c) { detail::gemm_dispatch_packed(Exec(), ca, cb, c, 1.0f, 0.0f); });
  // op(A) alone copied, op(B) read as it is (what a plan copies where op(B) stages in packets).
  twice("copy of op(A)",
        [&](auto c) { detail::gemm_dispatch_packed(Exec(), ca, cb, c, 1.0f, 0.0f, true, false); });
  twice("peeled", [&](auto c) { detail::gemm_dispatch_peeled(Exec(), ca, cb, c, 1.0f, 0.0f, {256, 256}); });
}

// The decision: on a table with pack_min_extent, an operand of odd leading dimension is copied once M, N and
// K all reach it, that operand alone, and never when packets already apply; other tables never copy.
TEST(Gemm, PackingDecision) {
  constexpr std::int64_t lim = detail::PackMinExtent<detail::Backend<Exec, float>, float>::value;
  const float* p = nullptr;  // only strides and extents matter here
  const std::int64_t n = lim > 0 ? lim + 1 : 4097;
  const detail::Strided2D<const float> odd{p, n, n, 1, n}, even{p, n, n, 1, n + 3};
  const detail::Strided2D<const float> short_k{p, n, 64, 1, n};
  EXPECT_EQ((detail::gemm_packs_operands<Exec, float>(odd, odd)), lim > 0);
  EXPECT_FALSE((detail::gemm_packs_operands<Exec, float>(even, even)));
  EXPECT_FALSE((detail::gemm_packs_operands<Exec, float>(short_k, odd)));
  // Only the operand that cannot stage in packets is copied.
  const detail::GemmPlan odd_a = detail::gemm_plan(Exec(), odd, even),
                         odd_b = detail::gemm_plan(Exec(), even, odd);
  EXPECT_EQ(odd_a.copy_a_aligned, lim > 0);
  EXPECT_FALSE(odd_a.copy_b_aligned);
  EXPECT_FALSE(odd_b.copy_a_aligned);
  EXPECT_EQ(odd_b.copy_b_aligned, lim > 0);
  // The copies' lines start on 128-byte cache lines, whichever index is contiguous, in every type.
  EXPECT_EQ(detail::packed_lead(odd) * std::int64_t(sizeof(float)) % 128, 0);
  EXPECT_GE(detail::packed_lead(odd), n);
  EXPECT_LT(detail::packed_lead(odd), n + 128 / std::int64_t(sizeof(float)));
  const double* q = nullptr;
  const detail::Strided2D<const double> rows_odd{q, 2063, 2039, 1, 2063}, cols_odd{q, 2039, 2063, 2063, 1};
  EXPECT_EQ(detail::packed_lead(rows_odd), 2064);
  EXPECT_EQ(detail::packed_lead(cols_odd), 2064);
  EXPECT_EQ(detail::packed_lead(detail::Strided2D<const double>{q, 2049, 7, 1, 2049}), 2064);
}

// CUDA fp64 operands of unit stride whose lines are not 16-byte aligned (odd leading dimensions) are read in
// place by the small tiles' one-element copies (tile_table.hpp, GemmTilesFp64DmmaInPlace) where the plan
// makes no aligned copies (an extent under pack_min_extent) and the small tiles would run aligned operands
// (under 8 waves of 128 x 64 tiles); aligned operands, operands of no unit stride and products that pay for
// the copies do not take it. Plans only; then such products against the reference in every orientation, with
// edge tiles, a K tail and beta zero (C poisoned) or not, and on sub-views one element off an aligned origin.
TEST(GemmPlan, Fp64OddLeadingDimensionsReadInPlace) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    using F = backends::cuda::GemmTilesFp64DmmaInPlace;
    constexpr std::int64_t lim = detail::PackMinExtent<detail::Backend<Exec, double>, double>::value;
    const auto config = plan_config<double>;
    for (const char* t : {"NN", "NT", "TN", "TT"}) {
      const TileConfig c = config(t[0], t[1], 1001, 999, 1003);  // every leading dimension odd
      EXPECT_EQ(c.entry, "in place") << t;
      EXPECT_EQ(c.bm, F::bm) << t;
      EXPECT_EQ(c.bn, F::bn) << t;
      EXPECT_EQ(c.staging, "elements in place (one-element copies)") << t;
      EXPECT_NE(config(t[0], t[1], 1000, 998, 1002).entry, "in place") << t;  // aligned: packets
      // Past pack_min_extent in every extent: copied aligned for the packet entries.
      EXPECT_EQ(config(t[0], t[1], lim + 1, lim + 3, lim + 5).staging, "packets (operands copied aligned)")
          << t;
    }
    // One extent under pack_min_extent: no copies, so in place.
    EXPECT_EQ(config('T', 'N', lim + 1, lim + 3, lim - 1).entry, "in place");
    // 8193^2 x 1025: past 8 waves of 128 x 64 tiles, and no copies (K under pack_min_extent): elements.
    EXPECT_EQ(config('N', 'N', 8193, 8193, 1025).staging, "elements");
    // No unit stride (every other row and column of a larger matrix): never read in place.
    const Kokkos::View<double**, Kokkos::LayoutStride, Mem> strided(
        static_cast<double*>(nullptr), Kokkos::LayoutStride(301, 2, 203, 2 * 601));
    const Kokkos::View<double**, Kokkos::LayoutStride, Mem> strided_b(
        static_cast<double*>(nullptr), Kokkos::LayoutStride(203, 2, 259, 2 * 407));
    EXPECT_NE(gemm_tile_config(Exec(), "N", "N", strided, strided_b).entry, "in place");
    std::uint64_t seed = 9700;
    for (const char* t : {"NN", "NT", "TN", "TT"})
      for (double beta : {0.0, 0.5})
        run({301, 259, 203, t[0], t[1], Lay::left, Lay::left, Lay::left, -0.75, beta, Dt::f64, seed += 3});
    // Sub-views one element past an aligned origin, leading dimensions even: unit stride, every line 8
    // bytes off 16.
    for (const char* t : {"NN", "TT"}) {
      const bool at = t[0] == 'T', bt = t[1] == 'T';
      const std::int64_t m = 130, n = 70, k = 98, ar = at ? k : m, br = bt ? n : k;
      auto A = make_matrix<double, Kokkos::LayoutLeft>("A", ar + 2, at ? m : k);
      auto B = make_matrix<double, Kokkos::LayoutLeft>("B", br + 2, bt ? k : n);
      auto C = make_matrix<double, Kokkos::LayoutLeft>("C", m, n);
      fill_random(A, seed += 3), fill_random(B, seed += 3), fill_value(C, poison<double>());
      const auto As = Kokkos::subview(A, std::make_pair(std::int64_t(1), ar + 1), Kokkos::ALL);
      const auto Bs = Kokkos::subview(B, std::make_pair(std::int64_t(1), br + 1), Kokkos::ALL);
      const char ta[2] = {t[0], 0}, tb[2] = {t[1], 0};
      EXPECT_EQ(gemm_tile_config(Exec(), ta, tb, As, Bs).entry, "in place") << t;
      ridgeline::gemm(Exec(), ta, tb, 1.25, As, Bs, 0.0, C);
      Kokkos::fence();
      EXPECT_TRUE(
          matches(to_host(C), reference_gemm(transpose_if(to_host(As), at), transpose_if(to_host(Bs), bt),
                                             to_host(C), 1.25, 0.0, eps_of<double>())))
          << t;
    }
    return;
  }
#endif
  GTEST_SKIP() << "a CUDA table rule";
}

// CUDA fp64 operands that stage in packets but whose k-contiguous lines are off 32-byte sectors (a leading
// dimension of 2 mod 4) are copied from pack_min_extent on, those operands alone (tile_table.hpp,
// copy_k_lines_off); lines on sectors, operands that are not k-contiguous, smaller products and fp32 are not.
// Plans, the predicate itself; then such products against the reference (not in reduced runs: the host
// reference of 1500^3 products).
TEST(GemmPlan, Fp64KLinesOffSectorsCopied) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    constexpr std::int64_t lim = detail::PackMinExtent<detail::Backend<Exec, double>, double>::value;
    const auto staging = [](const char* t, std::int64_t m, std::int64_t n, std::int64_t k) {
      return plan_staging<double>(t[0], t[1], m, n, k);
    };
    const std::int64_t e = (lim + 15) / 16 * 16 + 2;  // even, 16-byte lines, off the sectors
    EXPECT_EQ(staging("TN", e, e, e), "packets (operands copied aligned)");  // both k-contiguous
    EXPECT_EQ(staging("NN", e, e, e), "packets (op(B) copied aligned)");
    EXPECT_EQ(staging("TT", e, e, e), "packets (op(A) copied aligned)");
    EXPECT_EQ(staging("NT", e, e, e), "packets");                              // neither is k-contiguous
    EXPECT_EQ(staging("TN", e + 14, e + 14, e + 14), "packets");               // lines on cache lines
    EXPECT_EQ(staging("TN", e + 2, e + 2, e + 2), "packets");                  // on sectors, off cache lines
    EXPECT_EQ(staging("TN", e, e, lim - 2), "packets");                        // K under pack_min_extent
    EXPECT_EQ(plan_staging<float>('T', 'N', 2 * e, 2 * e, 2 * e), "packets");  // fp32: not this table's rule
    const double* q = nullptr;
    const detail::Strided2D<const double> a_k{q, 100, 60, 2050, 1}, a_m{q, 100, 60, 1, 2050};
    EXPECT_FALSE(detail::k_lines_aligned_to(a_k, true, 32));   // op(A) k-contiguous, lines 2050 apart
    EXPECT_TRUE(detail::k_lines_aligned_to(a_m, true, 32));    // op(A) m-contiguous
    EXPECT_FALSE(detail::k_lines_aligned_to(a_m, false, 32));  // the same as op(B): k-contiguous
    const detail::Strided2D<const double> on_sectors{q, 100, 60, 2500, 1};  // 20000-byte lines
    EXPECT_TRUE(detail::k_lines_aligned_to(on_sectors, true, 32));
    EXPECT_FALSE(detail::k_lines_aligned_to(on_sectors, true, 128));
    if (reduced()) return;
    std::uint64_t seed = 9800;
    // op(A) and op(B) copied (TN); op(B) alone (NN); beta zero (C poisoned) and not.
    run({e, e - 4, e + 4, 'T', 'N', Lay::left, Lay::left, Lay::left, -0.75, 0.0, Dt::f64, seed += 3});
    run({e, e - 4, e, 'N', 'N', Lay::left, Lay::left, Lay::left, 0.5, 0.5, Dt::f64, seed += 3});
    return;
  }
#endif
  GTEST_SKIP() << "a CUDA table rule";
}

// ---- peeling thin remainders ------------------------------------------------------------------
// The bulk, the rows below it and the columns right of it as three products, run directly with
// a given split on every backend: only the remainder rows, only the remainder columns, and both.
template <class T>
void peeled_case(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t m0,
                 std::int64_t n0, double beta, std::uint64_t seed) {
  const bool a_t = ta == 'T', b_t = tb == 'T';
  auto A = make_matrix<T, Kokkos::LayoutLeft>("A", a_t ? k : m, a_t ? m : k);
  auto B = make_matrix<T, Kokkos::LayoutLeft>("B", b_t ? n : k, b_t ? k : n);
  const std::string what = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " bulk " +
                           std::to_string(m0) + "x" + std::to_string(n0);
  expect_direct_product<T>(
      ta, tb, A, B, m, n, -0.6, beta, seed, what, [&](auto ca, auto cb, auto c, T al, T be) {
        detail::gemm_dispatch_peeled(Exec(), ca, cb, c, al, be, detail::PeelPlan{m0, n0});
      });
}

TEST(Gemm, PeeledProductMatchesReference) {
  std::uint64_t seed = 6500;
  const std::int64_t k = reduced() ? 40 : 333;
  for (const char* t : {"NN", "NT", "TN", "TT"}) {
    peeled_case<float>(t[0], t[1], 259, 257, k, 256, 256, 0.0, seed += 3);
    peeled_case<float>(t[0], t[1], 131, 128, k, 128, 128, 1.5, seed += 3);
    peeled_case<double>(t[0], t[1], 128, 133, k, 128, 128, 0.0, seed += 3);
    peeled_case<double>(t[0], t[1], 67, 70, 29, 64, 64, -0.5, seed += 3);
    // One spare row and one spare column: the edges run as GEMVs (op(B)^T x and op(A) x).
    peeled_case<float>(t[0], t[1], 129, 129, k, 128, 128, 0.0, seed += 3);
    peeled_case<double>(t[0], t[1], 257, 131, k, 256, 128, 0.75, seed += 3);
  }
}

// The decision: peel where the bulk and then the remainders (split-K) beat the whole product's waves
// by 2% in the wave model.
TEST(Gemm, PeelingDecision) {
  // 128 x 128 tiles, K steps of 16, 264 team slots, K = M.
  const auto peel = [](std::int64_t m, std::int64_t n, std::int64_t slots) {
    return detail::plan_peel(m, n, m, 128, 128, 16, slots);
  };
  const auto plan = peel(4097, 4097, 264);  // 1089 tiles: 5 waves; 1024: 4, + 2 x 1/8 for the edges
  EXPECT_EQ(plan.m0, 4096);
  EXPECT_EQ(plan.n0, 4096);
  EXPECT_EQ(peel(4100, 4097, 264).n0, 4096);  // 4 spare rows, 1 column
  EXPECT_EQ(peel(4097, 4096, 264).m0, 0);     // 1056 tiles: 4 waves; 1024 + an edge: 4.125
  EXPECT_EQ(peel(4096, 4096, 264).m0, 0);     // no remainder, and one tile row fewer still takes 4
  EXPECT_EQ(peel(4097, 4097, 0).m0, 0);       // device unknown
  EXPECT_EQ(peel(4160, 4097, 264).m0, 4096);  // 64 spare rows split K: 4.25 waves against 5
  EXPECT_EQ(peel(2049, 2049, 300).m0, 0);     // 289 tiles: one wave anyway
  // 289 tiles: 2 waves; a 16 x 16 bulk runs in one and the edges take 0.25. A 15 x 15 bulk would take 7 K
  // slices in the wave model's rounding (1575 teams, 0.86 waves), but a split fills at most two waves of
  // teams (choose_k_slices): unsplit, it runs in one wave too, and its edges take 0.27.
  EXPECT_EQ(peel(2049, 2049, 264).m0, 2048);
  EXPECT_EQ(peel(2049, 2049, 264).n0, 2048);
  EXPECT_EQ(peel(4097, 4097, 273).m0, 0);  // 1089 tiles: 4 waves either way
  // A tile count that quantizes badly, with no remainder to blame: DGEMM 2500^3 on 128 x 64 tiles,
  // 800 tiles over 264 slots (4 waves for 3.03); 19 x 39 tiles run in 3, the remainders in 0.28.
  const auto d = detail::plan_peel(2500, 2500, 2500, 128, 64, 16, 264);
  EXPECT_EQ(d.m0, 2432);
  EXPECT_EQ(d.n0, 2496);
  // And one tile column fewer: 8192^3 on 128 x 64 is 8192 tiles, 31.03 waves run as 32; 64 x 127
  // tiles take 31 and the last column a quarter wave, split K four ways (2.3%).
  const auto e = detail::plan_peel(8192, 8192, 8192, 128, 64, 16, 264);
  EXPECT_EQ(e.m0, 8192);
  EXPECT_EQ(e.n0, 8128);
  // K too short to split (16384 x 16384 x 64): the remainder column would cost a whole wave.
  EXPECT_EQ(detail::plan_peel(16384, 16384, 64, 128, 128, 16, 264).m0, 0);
  // Through the public query: 4097^3 with odd leading dimensions, on this backend.
  const auto A = plan_only_view<float>(4097, 4097);
  const TileConfig t = gemm_tile_config(Exec(), "N", "N", A, A);
  if (detail::PackMinExtent<detail::Backend<Exec, float>, float>::value > 0) {
    EXPECT_EQ(t.staging, "packets (operands copied aligned)");
  }
  const auto expect =
      detail::plan_peel(4097, 4097, 4097, t.bm, t.bn, t.bk,
                        std::int64_t(detail::ComputeUnits<detail::Backend<Exec, float>, Exec>::of(Exec())) *
                            detail::GemmPacketCfg<Exec, float>::min_blocks);
  // Only the packet role peels (CUDA runs NN of a wave or more on the narrow tiles, unpeeled).
  if (t.staging != "elements") EXPECT_EQ(t.peel_m, t.entry == "packets" ? expect.m0 : 0) << t.entry;
}

// ---- the plan: which entry, copies, split and peel, decided without a launch ---------------------
// A made-up table: an absent TF32 entry, a narrow entry, a small-tile entry for 1 to 8 waves of the
// big tiles, the big packet entry and the general one.
struct PlanBig {
  static constexpr int bm = 128, bn = 64, bk = 16, min_blocks = 2, stages = 3;
};
struct PlanSmall {
  static constexpr int bm = 64, bn = 64, bk = 16, min_blocks = 3, stages = 4;
};
struct PlanNarrow {
  static constexpr int bm = 64, bn = 128, bk = 16, min_blocks = 3, stages = 2;
};
using PlanEntries =
    detail::GemmEntries<detail::GemmEntry<void, detail::when::tf32>,
                        detail::GemmEntry<PlanNarrow, detail::when::rows_at_most<64>>,
                        detail::GemmEntry<PlanSmall, detail::when::wave_share_of<PlanBig, 100, 800>>,
                        detail::GemmEntry<PlanBig, detail::when::packets>,
                        detail::GemmEntry<PlanBig, detail::when::any>>;

TEST(GemmPlan, FirstEntryWhoseConditionHolds) {
  const auto all = [](int) { return true; };
  // 132 compute units: 264 slots of the big entry, so one wave is 264 of its 128 x 64 tiles, 8 are 2112.
  const auto pick = [&](std::int64_t m, std::int64_t n, bool packets, std::int64_t cu = 132,
                        bool tf32 = false) {
    return PlanEntries::first_applying(detail::GemmFacts{m, n, 512, packets, tf32, cu}, all);
  };
  EXPECT_EQ(pick(4096, 4096, false), 4);            // no packets: the general entry
  EXPECT_EQ(pick(64, 4096, true), 1);               // narrow: at most 64 rows, just inside
  EXPECT_EQ(pick(65, 4096, true), 3);               // just outside: 1 x 64 tiles, under one wave
  EXPECT_EQ(pick(64, 4096, false), 4);              // narrow needs packets too
  EXPECT_EQ(pick(1024, 2048, true), 3);             // 8 x 32 = 256 tiles: under one wave
  EXPECT_EQ(pick(1024, 2049, true), 2);             // 8 x 33 = 264: one wave, just inside
  EXPECT_EQ(pick(4096, 4160, true), 2);             // 32 x 65 = 2080: under 8 waves, just inside
  EXPECT_EQ(pick(4096, 4161, true), 3);             // 32 x 66 = 2112: 8 waves, just outside
  EXPECT_EQ(pick(2500, 2500, true), 2);             // 20 x 40 = 800: 3.03 waves
  EXPECT_EQ(pick(8192, 8192, true), 3);             // 64 x 128 = 8192: 31 waves
  EXPECT_EQ(pick(2500, 2500, true, 0), 3);          // unknown device: never the small entry
  EXPECT_EQ(pick(2500, 2500, true, 1000), 3);       // 2000 slots: under one wave
  EXPECT_EQ(pick(2500, 2500, true, 132, true), 2);  // TF32 allowed, but no TF32 entry here
  // The multi-vector condition: 2 to kMaxN columns, op(A) rows-contiguous.
  using Mv = detail::when::columns_at_most<16>;
  const auto mv = [](std::int64_t n, bool a_m) {
    return Mv::applies(detail::GemmFacts{16384, n, 16384, true, false, 132, a_m});
  };
  EXPECT_TRUE(mv(2, true));
  EXPECT_TRUE(mv(16, true));   // just inside
  EXPECT_FALSE(mv(17, true));  // just outside
  EXPECT_FALSE(mv(1, true));   // one column is a GEMV
  EXPECT_FALSE(mv(8, false));  // op(A) k-contiguous
  // The dot form: the same columns, op(A) k-contiguous.
  using Dot = detail::when::columns_at_most_dot<16>;
  const auto dot = [](std::int64_t n, bool a_m) {
    return Dot::applies(detail::GemmFacts{16384, n, 16384, true, false, 132, a_m});
  };
  EXPECT_TRUE(dot(2, false));
  EXPECT_TRUE(dot(16, false));   // just inside
  EXPECT_FALSE(dot(17, false));  // just outside
  EXPECT_FALSE(dot(1, false));
  EXPECT_FALSE(dot(8, true));  // op(A) rows-contiguous: the rows form
  // Few columns: packets and at most kCols columns, any orientation.
  using Few = detail::when::columns_at_most_tiles<32>;
  const auto few = [](std::int64_t n, bool packets) {
    return Few::applies(detail::GemmFacts{16384, n, 16384, packets, false, 132, false});
  };
  EXPECT_TRUE(few(32, true));    // just inside
  EXPECT_FALSE(few(33, true));   // just outside
  EXPECT_FALSE(few(24, false));  // no packets
  EXPECT_TRUE(few(1, true));
  // NN's orientation with packets (op(A) m-contiguous, op(B) k-contiguous): the fp64 pairs entry's condition.
  const auto nn = [](bool packets, bool a_m, bool b_n) {
    detail::GemmFacts f{4096, 4096, 4096, packets, false, 132, a_m};
    f.b_cols_contiguous = b_n;
    return detail::when::packets_nn::applies(f);
  };
  EXPECT_TRUE(nn(true, true, false));
  EXPECT_FALSE(nn(true, true, true));    // NT: op(B) n-contiguous
  EXPECT_FALSE(nn(true, false, false));  // TN: op(A) k-contiguous
  EXPECT_FALSE(nn(false, true, false));  // no packets
  // A kernel that cannot stage these operands in packets is passed over.
  EXPECT_EQ(PlanEntries::first_applying(detail::GemmFacts{2500, 2500, 512, true, false, 132},
                                        [](int i) { return i != 2 && i != 3; }),
            4);
  EXPECT_EQ(PlanEntries::find(detail::GemmRole::tf32), -1);
  EXPECT_EQ(PlanEntries::find(detail::GemmRole::small), 2);
  EXPECT_EQ(PlanEntries::params(2).bm, 64);
  EXPECT_EQ(PlanEntries::params(3).min_blocks, 2);
  EXPECT_TRUE(PlanEntries::params(3).needs_packets);
  EXPECT_FALSE(PlanEntries::params(4).needs_packets);
}

// wave_share_of under one wave: products too small for a wave of the big tiles, just inside and just
// outside; and the split's bounds an entry may set (split_teams_per_cu, min_slice_steps, max_slices).
struct PlanTiny {
  static constexpr int bm = 64, bn = 64, bk = 16, min_blocks = 4, stages = 2, min_slice_steps = 4;
};
struct PlanTinyTwoTeams : PlanTiny {
  static constexpr int split_teams_per_cu = 2, min_slice_steps = 2;
};
struct PlanTinyDeep : PlanTinyTwoTeams {
  static constexpr int deep_split_teams_per_cu = 3, deep_slice_steps = 256;
};
struct PlanTinyRagged : PlanTinyTwoTeams {
  static constexpr int ragged_slice_steps = 16;
};
struct PlanThinSaturating {  // 64 x 32 tiles, four teams per compute unit, two of them keep it busy
  static constexpr int bm = 64, bn = 32, bk = 16, min_blocks = 4, stages = 3, saturating_teams_per_cu = 2;
};
TEST(GemmPlan, SubWaveEntryAndSliceBounds) {
  using Sub = detail::when::wave_share_of<PlanBig, 0, 60>;
  const auto sub = [](std::int64_t m, std::int64_t n, bool packets = true) {
    return Sub::applies(detail::GemmFacts{m, n, 512, packets, false, 132});
  };
  EXPECT_TRUE(sub(1, 1));         // one tile
  EXPECT_TRUE(sub(1024, 1216));   // 8 x 19 = 152 tiles of 128 x 64: 57.6% of 264 slots, just inside
  EXPECT_FALSE(sub(1024, 1280));  // 8 x 20 = 160: 60.6%, just outside
  EXPECT_FALSE(sub(512, 512, false));
  EXPECT_FALSE(Sub::applies(detail::GemmFacts{512, 512, 512, true, false, 0}));  // unknown device
  // 512^3 in 64 tiles: 32 K steps of 16 hold 8 slices of 4 steps, so 8 slices (512 teams) for 528
  // slots; K 511 holds 7 slices of 4 whole steps; the default 16 steps per slice allow 2.
  const detail::GemmEntryParams tiny = detail::tile_params<PlanTiny>();
  EXPECT_EQ(tiny.min_slice_steps, 4);
  EXPECT_EQ(tiny.max_slices, 16);
  EXPECT_EQ(detail::plan_k_split(tiny, 512, 512, 512, 132, 4).slices, 8);
  EXPECT_EQ(detail::plan_k_split(tiny, 512, 512, 511, 132, 4).slices, 7);
  EXPECT_EQ(detail::plan_k_split(detail::tile_params<PlanNarrow>(), 512, 512, 512, 132, 4).slices, 2);
  // Two teams per compute unit for the split, slices of 2 steps: 512^3 in 4 slices (256 teams for 264),
  // 256^3 in 8 (16 K steps), 1024^3 in one (256 tiles).
  const detail::GemmEntryParams two = detail::tile_params<PlanTinyTwoTeams>();
  EXPECT_EQ(two.split_teams, 2);
  EXPECT_EQ(tiny.split_teams, 4);  // min_blocks
  EXPECT_EQ(detail::plan_k_split(two, 512, 512, 512, 132, 4).slices, 4);
  EXPECT_EQ(detail::plan_k_split(two, 256, 256, 256, 132, 4).slices, 8);
  EXPECT_EQ(detail::plan_k_split(two, 1024, 1024, 1024, 132, 4).slices, 1);
  // 960^3 is 225 tiles for 264 slots: 7 slices would put 1575 teams in 5.97 waves (cost 6 / 7), but the
  // slices' teams fill at most two waves, and 2 slices (450 teams, two waves) gain nothing.
  EXPECT_EQ(detail::plan_k_split(two, 960, 960, 960, 132, 4).slices, 1);
  EXPECT_EQ(detail::choose_k_slices(225, 960, 16, 264, 2, 16), 1);
  // 150 tiles: 3 slices (450 teams, two waves, cost 2 / 3); 7 (1050 teams in four waves, 4 / 7) would cost
  // less in the model, but pass two waves.
  EXPECT_EQ(detail::choose_k_slices(150, 960, 16, 264, 2, 16), 3);
  EXPECT_EQ(detail::choose_k_slices(1, 1 << 20, 16, 528, 4, 16), 16);  // max_slices, just inside
  EXPECT_EQ(detail::choose_k_slices(1, 1 << 20, 16, 528, 4, 17), 17);
  EXPECT_EQ(detail::choose_k_slices(1, 64 * 17 - 1, 16, 528, 4, 32), 16);  // 4 steps each: 16 fit, 17 not
  // The deep split: 16384 x 64 x 16384 in 256 tiles gains nothing from more slices at two teams per compute
  // unit (264 slots), but three (396) take 3 slices of 5462 (two waves of 768 teams in the time of 3
  // slices); K 12288 holds 3 slices of 256 steps, just inside, 12287 only 2, which gain nothing; 1024^3
  // holds none.
  const detail::GemmEntryParams deep = detail::tile_params<PlanTinyDeep>();
  EXPECT_EQ(deep.deep_split_teams, 3);
  EXPECT_EQ(two.deep_split_teams, 0);
  EXPECT_EQ(detail::plan_k_split(two, 16384, 64, 16384, 132, 8).slices, 1);
  EXPECT_EQ(detail::plan_k_split(deep, 16384, 64, 16384, 132, 8).slices, 3);
  EXPECT_EQ(detail::plan_k_split(deep, 16384, 64, 12288, 132, 8).slices, 3);
  EXPECT_EQ(detail::plan_k_split(deep, 16384, 64, 12287, 132, 8).slices, 1);
  EXPECT_EQ(detail::plan_k_split(deep, 1024, 1024, 1024, 132, 8).slices, 1);
  EXPECT_EQ(detail::plan_k_split(deep, 512, 512, 512, 132, 8).slices, 4);  // the two-team split still applies
  // Past a wave: 1021 x 1031 x 1033 is 16 x 17 = 272 tiles for 264 slots of two teams, the last wave 8
  // tiles; over all 528 slots of four teams, in slices of at least 16 steps (65 steps hold 4), 3 slices
  // (816 teams, two waves) beat 2 (544, two waves) and 4 (1088, three). Without ragged_slice_steps, one
  // slice. A last wave just past a quarter full (16 x 21 = 336 tiles: 72, 27% of 264) and exactly one
  // wave (4 x 66 = 264 tiles) keep one slice; so does K 511, under two slices of 16 steps.
  const detail::GemmEntryParams ragged = detail::tile_params<PlanTinyRagged>();
  EXPECT_EQ(ragged.ragged_slice_steps, 16);
  EXPECT_EQ(two.ragged_slice_steps, 0);
  EXPECT_EQ(detail::plan_k_split(two, 1021, 1031, 1033, 132, 4).slices, 1);
  EXPECT_EQ(detail::plan_k_split(ragged, 1021, 1031, 1033, 132, 4).slices, 3);
  EXPECT_EQ(detail::plan_k_split(ragged, 1021, 1031, 1033, 132, 4).k_chunk, 22 * 16);
  EXPECT_EQ(detail::plan_k_split(ragged, 1021, 1031 + 4 * 64, 1033, 132, 4).slices, 1);
  EXPECT_EQ(detail::plan_k_split(ragged, 4 * 64, 66 * 64, 1033, 132, 4).slices, 1);
  EXPECT_EQ(detail::plan_k_split(ragged, 4 * 64, 66 * 64 + 1, 1033, 132, 4).slices, 3);
  EXPECT_EQ(detail::plan_k_split(ragged, 1021, 1031, 511, 132, 4).slices, 1);
  EXPECT_EQ(detail::plan_k_split(ragged, 1024, 1024, 1024, 132, 4).slices, 1);  // under a wave: two's split
  // Saturating teams: 832^3 on 64 x 32 tiles is 13 x 26 = 338 tiles, three teams on most of 132 compute
  // units; the 528 slots of four teams would take 3 slices (1014 teams, two waves), but two teams per unit
  // already keep it busy, so one slice. 264 tiles (2 x 132), just inside; 263 (a 64 x 32 tile short of it:
  // 8416 x 32 x 832 holds 263 x 1) is split as before (2 slices: 526 teams, one wave), as is 640^3 (200
  // tiles: 2 slices).
  const detail::GemmEntryParams thin = detail::tile_params<PlanThinSaturating>();
  EXPECT_EQ(thin.saturating_teams, 2);
  EXPECT_EQ(tiny.saturating_teams, 0);
  EXPECT_EQ(detail::plan_k_split(thin, 832, 832, 832, 132, 8).slices, 1);
  EXPECT_EQ(detail::choose_k_slices(338, 832, 16, 528, 16, 16), 3);  // what the slots alone would take
  EXPECT_EQ(detail::plan_k_split(thin, 768, 768, 768, 132, 8).slices, 1);
  EXPECT_EQ(detail::plan_k_split(thin, 264 * 64, 32, 832, 132, 8).slices, 1);
  EXPECT_EQ(detail::plan_k_split(thin, 263 * 64, 32, 832, 132, 8).slices, 2);
  EXPECT_EQ(detail::plan_k_split(thin, 640, 640, 640, 132, 8).slices, 2);
  // Fewer columns than a tile (skinny N, bound by A's bytes): the slots decide, as before.
  EXPECT_EQ(detail::plan_k_split(thin, 264 * 64, 16, 832, 132, 8).slices, 2);
  EXPECT_EQ(detail::plan_k_split(thin, 20000, 16, 8192, 132, 8).slices, 3);
  // Short K: at most kMaxK deep, with packets.
  using Shallow = detail::when::depth_at_most<2048>;
  EXPECT_TRUE(Shallow::applies(detail::GemmFacts{8192, 8192, 2048, true, false, 132}));
  EXPECT_FALSE(Shallow::applies(detail::GemmFacts{8192, 8192, 2049, true, false, 132}));
  EXPECT_FALSE(Shallow::applies(detail::GemmFacts{8192, 8192, 256, false, false, 132}));
}

// GemmTileOrigin::rank_of inverts GemmTileOrigin::of: every tile and slice of grids with and without a
// partial group of tile rows comes back to its own rank.
TEST(GemmPlan, TileOriginRankOfInvertsOf) {
  constexpr int kGroup = 8, kBm = 16, kBn = 32;
  for (int tiles_m : {1, 3, 8, 9, 17}) {
    for (int tiles_n : {1, 2, 5}) {
      for (int slices : {1, 3}) {
        for (int r = 0; r < tiles_m * tiles_n * slices; ++r) {
          const auto o =
              detail::GemmTileOrigin::of<kBm, kBn, kGroup>(r, tiles_m, tiles_n, slices, 64, 64 * slices);
          EXPECT_EQ(
              detail::GemmTileOrigin::rank_of<kGroup>(
                  static_cast<int>(o.m0 / kBm), static_cast<int>(o.n0 / kBn), o.slice, tiles_m, tiles_n),
              r)
              << tiles_m << " x " << tiles_n << " tiles, " << slices << " slices";
        }
      }
    }
  }
}

// The peel and split follow the chosen entry: the packet entry on 2500^3 peels with its own tiles and
// teams per SM, the small-tile entry runs whole, and a narrow product splits K instead of peeling.
TEST(GemmPlan, PeelAndSplitFollowTheEntry) {
  detail::GemmPlan plan;
  detail::plan_peel_and_split(plan, detail::entry_params<detail::GemmEntry<PlanBig, detail::when::packets>>(),
                              2500, 2500, 2500, 132, 8);
  const detail::PeelPlan big = detail::plan_peel(2500, 2500, 2500, 128, 64, 16, 264);
  EXPECT_GT(big.m0, 0);
  EXPECT_EQ(plan.peel.m0, big.m0);
  EXPECT_EQ(plan.peel.n0, big.n0);
  detail::plan_peel_and_split(
      plan,
      detail::entry_params<detail::GemmEntry<PlanSmall, detail::when::wave_share_of<PlanBig, 100, 800>>>(),
      2500, 2500, 2500, 132, 8);
  EXPECT_EQ(plan.peel.m0, 0);  // the small-tile entry never peels
  EXPECT_EQ(plan.split.slices, 1);
  detail::plan_peel_and_split(
      plan, detail::entry_params<detail::GemmEntry<PlanNarrow, detail::when::rows_at_most<64>>>(), 64, 4096,
      16384, 132, 4);
  EXPECT_EQ(plan.peel.m0, 0);  // narrow entries never peel
  EXPECT_EQ(plan.split.slices, detail::choose_k_slices(32, 16384, 16, 396));
  EXPECT_GT(plan.split.slices, 1);
}

// The multi-vector split: enough row blocks x slices for the teams asked for, slices at least
// min_depth deep and whole unroll steps, at most max_slices, one where the partials pass the workspace limit.
TEST(GemmPlan, MultiVectorSplit) {
  // 16384 rows in teams of 512: 32 row blocks; 528 team slots hold 16 slices (512 teams; a 17th slice would
  // put 16 teams in a second wave) of 16384 / 16 = 1024 (x4).
  const detail::KSplit s = detail::plan_multi_vector_split(16384, 8, 16384, 512, 528, 256, 4, 4, 64);
  EXPECT_EQ(s.slices, 16);
  EXPECT_EQ(s.k_chunk % 4, 0);
  EXPECT_GE(s.k_chunk * s.slices, 16384);
  EXPECT_LT(s.k_chunk * (s.slices - 1), 16384);
  EXPECT_EQ(detail::plan_multi_vector_split(16384, 8, 1000, 512, 528, 256, 4, 4, 64).slices,
            3);  // 1000 / 256
  EXPECT_EQ(detail::plan_multi_vector_split(16384, 8, 300, 512, 528, 256, 4, 4, 64).slices, 1);
  EXPECT_EQ(detail::plan_multi_vector_split(100, 8, 1 << 20, 512, 528, 256, 4, 4, 64).slices, 64);
  EXPECT_EQ(detail::plan_multi_vector_split(100, 8, 1 << 20, 512, 528, 256, 4, 4, 65).slices, 65);
  EXPECT_EQ(detail::plan_multi_vector_split(1 << 20, 8, 16384, 512, 528, 256, 4, 4, 64).slices,
            1);  // rows enough
  const std::size_t saved = ridgeline::workspace_limit();
  ridgeline::set_workspace_limit(1000);  // no room for the partials
  EXPECT_EQ(detail::plan_multi_vector_split(16384, 8, 16384, 512, 528, 256, 4, 4, 64).slices, 1);
  ridgeline::set_workspace_limit(saved);
}

#if defined(KOKKOS_ENABLE_CUDA)
// Every tile entry of the table fits its min_blocks teams on one SM of this device in every operand
// orientation: (scratch + Kokkos 3.4's team-reduction buffer + the block's reserved shared memory) x
// min_blocks within the SM's shared memory. An entry that does not throws "requested too large team size"
// at launch, only for the orientations that need most scratch: ceb9658's first fp64 few-columns entry
// (128x8x32, three stages, two teams) did so where op(A) is k-contiguous. Nothing is launched.
template <class Cfg, class K>
void expect_fits_per_sm(std::size_t per_sm, std::size_t reserved, const char* orientation) {
  const std::size_t team = K::scratch_bytes() + sizeof(double) * (Cfg::team_size + 2) + reserved;
  EXPECT_LE(team * Cfg::min_blocks, per_sm) << Cfg::bm << "x" << Cfg::bn << "x" << Cfg::bk << " "
                                            << Cfg::min_blocks << " teams per SM, " << orientation;
}
template <class T>
void table_entries_fit(std::size_t per_sm, std::size_t reserved) {
  using L = detail::GemmEntriesOf<Exec, T>;
  for (int i = 0; i < L::size; ++i) {
    L::visit(i, [&](auto e) {
      using E = decltype(e);
      using Cfg = typename E::Cfg;
      constexpr detail::GemmRole r = E::When::role;
      constexpr bool kVec = E::When::needs_packets;
      if constexpr (r == detail::GemmRole::tf32) {  // reads k-contiguous operands only
        expect_fits_per_sm<Cfg, detail::GemmKernelFor<Exec, Cfg, T, false, false, kVec>>(per_sm, reserved,
                                                                                         "k, k");
      } else if constexpr (r != detail::GemmRole::multi_vector && r != detail::GemmRole::multi_vector_dot) {
        expect_fits_per_sm<Cfg, detail::GemmKernelFor<Exec, Cfg, T, true, true, kVec>>(per_sm, reserved,
                                                                                       "m, n");
        expect_fits_per_sm<Cfg, detail::GemmKernelFor<Exec, Cfg, T, true, false, kVec>>(per_sm, reserved,
                                                                                        "m, k");
        expect_fits_per_sm<Cfg, detail::GemmKernelFor<Exec, Cfg, T, false, true, kVec>>(per_sm, reserved,
                                                                                        "k, n");
        expect_fits_per_sm<Cfg, detail::GemmKernelFor<Exec, Cfg, T, false, false, kVec>>(per_sm, reserved,
                                                                                         "k, k");
      }
    });
  }
}
TEST(GemmPlan, TableEntriesFitTheirTeamsPerSm) {
  int device = 0, per_sm = 0, reserved = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
            cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device), cudaSuccess);
  table_entries_fit<double>(std::size_t(per_sm), std::size_t(reserved));
  table_entries_fit<float>(std::size_t(per_sm), std::size_t(reserved));
}
#endif

// This backend's table through plan_gemm on a 132-SM device (the H200's count), operands never read.
TEST(GemmPlan, ThisTable) {
  using L = detail::GemmEntriesOf<Exec, double>;
  const double* p = nullptr;
  const auto plan = [&](std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t ld) {
    return detail::plan_gemm<Exec, double>(detail::Strided2D<const double>{p, m, k, 1, ld},
                                           detail::Strided2D<const double>{p, k, n, 1, k + (k % 2)}, 132);
  };
  // The host's packed panels (where its compiler has the vector types) take every real product that the
  // skinny-N entries do not; they pack operands of any strides themselves.
  const bool panels = L::find(detail::GemmRole::panels) >= 0;
  const bool in_place = L::find(detail::GemmRole::in_place) >= 0;
  const detail::GemmPlan odd = plan(1001, 1001, 1001, 1001);  // an odd leading dimension: no packets
  EXPECT_EQ(odd.role, panels     ? detail::GemmRole::panels
                      : in_place ? detail::GemmRole::in_place
                                 : detail::GemmRole::general);
  EXPECT_FALSE(odd.copies_aligned());  // too small to pay for copies on any table
  const detail::GemmPlan big = plan(8192, 8192, 8192, 8192);
  const int packets = L::find(detail::GemmRole::packets);
  const bool packets_run =
      packets >= 0 &&
      detail::entry_vector_capable<
          Exec, double, detail::GemmEntry<detail::GemmPacketCfg<Exec, double>, detail::when::packets>>(true,
                                                                                                       false);
  EXPECT_EQ(big.role, panels        ? detail::GemmRole::panels
                      : packets_run ? detail::GemmRole::packets
                                    : detail::GemmRole::general);
  const detail::GemmPlan mid = plan(2500, 2500, 2500, 2500);
  if (L::find(detail::GemmRole::small) >= 0) {
    EXPECT_EQ(mid.role, detail::GemmRole::small);
    EXPECT_EQ(mid.peel.m0, 0);
  } else {
    EXPECT_EQ(mid.role, big.role);
  }
  // Products under one wave: where the table has small-tile entries, they run them, split K for about
  // two teams per compute unit (fp64 256^3: 16 tiles of 64 x 64 in 8 slices; fp32 512^3: 64 in 4), or
  // tiles of their own for part of a wave (CUDA fp64: 64 x 32 tiles) in that entry's split.
  if (L::find(detail::GemmRole::small) >= 0) {
    const detail::GemmPlan tiny = plan(256, 256, 256, 256);
    EXPECT_EQ(tiny.role, detail::GemmRole::small);
    const detail::GemmEntryParams tp = L::params(tiny.entry);
    EXPECT_EQ(tiny.split.slices, detail::plan_k_split(tp, 256, 256, 256, 132, sizeof(double)).slices);
    if (tp.bm == 64 && tp.bn == 64) EXPECT_EQ(tiny.split.slices, 8);
  }
  if (detail::GemmEntriesOf<Exec, float>::find(detail::GemmRole::small) >= 0) {
    const float* q = nullptr;
    const detail::Strided2D<const float> op{q, 512, 512, 1, 512};
    const detail::GemmPlan s32 = detail::plan_gemm<Exec, float>(op, op, 132);
    EXPECT_EQ(s32.role, detail::GemmRole::small);
    EXPECT_EQ(s32.split.slices, 4);
    const detail::Strided2D<const float> big{q, 2048, 2048, 1, 2048};  // 97% of a wave of 128 x 128
    EXPECT_EQ((detail::plan_gemm<Exec, float>(big, big, 132).role), detail::GemmRole::packets);
  }
  // Through the public query, on this device: the role it prints is the plan's.
  const auto A = plan_only_view<double>(2500, 2500);
  const TileConfig t = gemm_tile_config(Exec(), "N", "N", A, A);
  const auto a = detail::strided_op(A, detail::Trans::N);
  const detail::Strided2D<const double> ca{a.data, a.rows, a.cols, a.rs, a.cs};
  EXPECT_EQ(t.entry, detail::role_name(detail::gemm_plan(Exec(), ca, ca).role));
  EXPECT_FALSE(t.entry.empty());
}

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
// The CUDA fp32 packet entry asks for L1 over shared memory (prefer_l1): after a call, its
// carveout is below Kokkos's 100%, and the product is still right.
TEST(Gemm, PacketEntryCarveoutLeavesL1) {
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    // A full wave of the packet entry's tiles (16 tile rows), past the small-tile entry's share of one, at a
    // K past its short-K entry's; TN, since NN of a wave or more runs the 64 x 128 tiles.
    using P = detail::GemmPacketCfg<Exec, float>;
    const std::int64_t slots =
        detail::ComputeUnits<detail::Backend<Exec, float>, Exec>::of(Exec()) * P::min_blocks;
    const std::int64_t m = 16 * P::bm, n = (slots + 15) / 16 * P::bn;
    const std::int64_t k = backends::cuda::GemmTilesFp32Small::max_depth + 128;
    GemmCase c{m, n, k, 'T', 'N', Lay::left, Lay::left, Lay::left, 1.0, 0.0, Dt::f32, 77};
    ASSERT_EQ(entry_of<float>('T', 'N', m, n, k), "packets");
    run(c);
    c.seed = 78;
    run(c);  // after the carveout changed
    const int percent =
        backends::cuda::carveout_of<detail::GemmPacketKernel<Exec, float, false, false, true>>();
    EXPECT_GT(percent, 0);
    EXPECT_LT(percent, 100);
  }
}
#endif

// ---- Math::allow_tf32 ----------------------------------------------------------------------------
// On a backend with a TF32 path (CUDA through the sm_90a route) the tensor cores read A and B as TF32:
// each input loses up to 2^-10 of itself (the 13 dropped mantissa bits), so each product up to
// 2^-9 * 1.01 of |a b|, on top of FP32 accumulation's (K + 2) 2^-23; reference_gemm's gamma is
// (K + 2) eps, so eps = 2^-9 * 1.01 / (K + 2) + 2^-23. Elsewhere the product is exact FP32, which
// passes the same bound. A misplaced K slice or operand misses it by orders of magnitude.
template <class LA, class LB>
void tf32_case(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, double beta,
               std::uint64_t seed, bool expect_copies) {
  const bool a_t = ta == 'T', b_t = tb == 'T';
  auto A = make_matrix<float, LA>("A", a_t ? k : m, a_t ? m : k);
  auto B = make_matrix<float, LB>("B", b_t ? n : k, b_t ? k : n);
  auto C = make_matrix<float, Kokkos::LayoutLeft>("C", m, n);
  fill_operands(A, B, C, beta, seed);
  const HostMatrix hC0 = to_host(C);
  const char tra[2] = {ta, 0}, trb[2] = {tb, 0};
  const TileConfig cfg = gemm_tile_config(Exec(), tra, trb, A, B, Math::allow_tf32);
  if constexpr (detail::has_tf32_entry<Exec>) {
    EXPECT_EQ(cfg.micro_kernel, "wgmma-m64n256k8-tf32");
    EXPECT_EQ(cfg.staging != "packets", expect_copies) << cfg.staging;
  }
  ridgeline::gemm(Exec(), tra, trb, 0.7f, A, B, static_cast<float>(beta), C, Math::allow_tf32);
  Kokkos::fence();
  const double eps = 0x1p-9 * 1.01 / double(k + 2) + 0x1p-23;
  const auto want =
      reference_gemm(transpose_if(to_host(A), a_t), transpose_if(to_host(B), b_t), hC0, 0.7, beta, eps);
  EXPECT_TRUE(matches(to_host(C), want))
      << ta << tb << " " << name(lay_of<LA>()) << "/" << name(lay_of<LB>()) << " " << m << "x" << n << "x"
      << k << " beta " << beta << " " << cfg.staging;
}

TEST(GemmMath, AllowTf32EveryOrientation) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  std::uint64_t seed = 9900;
  const bool r = reduced();
  // TN on column-major operands is k-contiguous on both sides: no copies. K % 4 == 0 keeps the lines
  // aligned; M and N tails (130, 257) and a K tail (516 = 16 steps of 32 + 4).
  tf32_case<L, L>('T', 'N', 130, 257, 516, 0.0, seed += 3, false);
  tf32_case<R, R>('N', 'T', 130, 257, 516, -0.4, seed += 3, false);
  // Everything else copies what is not k-contiguous (A of NN, B of TT, both of NT), and odd K
  // (515) copies even k-contiguous operands, whose lines are then unaligned.
  for (const char* t : {"NN", "NT", "TT"}) tf32_case<L, L>(t[0], t[1], 130, 257, 516, -0.4, seed += 3, true);
  for (const char* t : {"NN", "NT", "TN", "TT"})
    tf32_case<L, R>(t[0], t[1], 71, 90, 515, 0.5, seed += 3, true);
  // Copies that read 16-byte packets (the m- or n-contiguous operand's leading dimension a multiple
  // of 4), with M, N and K tails inside the last 64 x 64 block of the copy.
  tf32_case<L, L>('N', 'N', 132, 260, 516, 0.3, seed += 3, true);
  tf32_case<L, L>('T', 'T', 100, 132, 516, 0.0, seed += 3, true);
  // General strides; one partial tile and one partial K step.
  tf32_case<Kokkos::LayoutStride, L>('N', 'T', 70, 40, 33, 0.5, seed += 3, true);
  // (17 rows: 16 or fewer, with more columns, run transposed on a multi-vector entry, exact FP32.)
  tf32_case<L, L>('N', 'N', 17, 20, 5, 0.0, seed += 3, true);
  // Few tiles, deep K: split-K on the GPU tables.
  tf32_case<L, L>('T', 'N', 128, 256, r ? 2048 : 8192, -0.4, seed += 3, false);
}

// ---- few tiles: the narrow entry and split-K --------------------------------------------------
// Products too small in M x N to fill the device split K into slices, summed in order afterwards.
// Each case says which path it must take on backends that have it (split-K needs a table that
// reports compute units and two-stage tiles, i.e. the GPU tables), so it cannot pass by skipping it.
template <class T, class LA, class LB, class TC = T>
void few_tiles_case(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k, double beta,
                    std::uint64_t seed, bool expect_split) {
  const bool a_t = ta == 'T', b_t = tb == 'T';
  auto A = make_matrix<T, LA>("A", a_t ? k : m, a_t ? m : k);
  auto B = make_matrix<T, LB>("B", b_t ? n : k, b_t ? k : n);
  auto C = make_matrix<TC, Kokkos::LayoutLeft>("C", m, n);
  fill_operands(A, B, C, beta, seed);
  const HostMatrix hC0 = to_host(C);
  const char tra[2] = {ta, 0}, trb[2] = {tb, 0};
  const TileConfig cfg = gemm_tile_config(Exec(), tra, trb, A, B);
  if (expect_split) EXPECT_GT(cfg.k_slices, 1) << ta << tb << " " << m << "x" << n << "x" << k;
  using S = detail::GemmScalar<decltype(A)>;
  ridgeline::gemm(Exec(), tra, trb, S(0.7), A, B, static_cast<S>(beta), C);
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, TC>();
  const auto want = reference_gemm(transpose_if(to_host(A), a_t), transpose_if(to_host(B), b_t), hC0, 0.7,
                                   beta, tol.acc, tol.out);
  EXPECT_TRUE(matches(to_host(C), want))
      << ta << tb << " " << m << "x" << n << "x" << k << " beta " << beta << " slices " << cfg.k_slices;
}

TEST(Gemm, SplitKAndNarrowTiles) {
  // Split-K is a GPU-table feature: expect it where the table has two stages (CUDA, HIP).
  const bool gpu_table = gemm_tile_config<Exec, float>().stages == 2;
  std::uint64_t seed = 5000;
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  // The reduced (sanitizer) run: shorter K (fewer slices), and beta != 0 only.
  const bool r = reduced();
  for (double beta : {0.0, -0.4}) {
    if (r && beta == 0.0) continue;
    for (const char* t : {"NN", "NT", "TN", "TT"}) {
      // 64 rows, packet-aligned: the narrow entry; K with a tail after the last whole slice.
      few_tiles_case<float, L, L>(t[0], t[1], 64, r ? 256 : 512, r ? 524 : 3004, beta, seed += 3, gpu_table);
      // 192 rows, packet-aligned: the packet entry, split, with M and N edges.
      few_tiles_case<float, L, L>(t[0], t[1], 192, r ? 260 : 388, r ? 516 : 2052, beta, seed += 3, gpu_table);
      // 40 rows (under the narrow tile), K a multiple of 4 but not of the K step.
      few_tiles_case<float, L, R>(t[0], t[1], 40, r ? 260 : 300, r ? 516 : 2052, beta, seed += 3, gpu_table);
      // Element-wise staging (odd leading dimensions), fp32 and fp64.
      few_tiles_case<float, L, L>(t[0], t[1], 99, r ? 129 : 301, r ? 1027 : 4099, beta, seed += 3, gpu_table);
      few_tiles_case<double, R, L>(t[0], t[1], 130, 131, r ? 515 : 2999, beta, seed += 3, gpu_table);
    }
  }
  // Enough tiles to fill any device: no split.
  if (gpu_table) {
    auto A = make_matrix<float, L>("A", 4096, 64);
    auto B = make_matrix<float, L>("B", 64, 4096);
    EXPECT_EQ(gemm_tile_config(Exec(), "N", "N", A, B).k_slices, 1);
  }
}

// ---- skinny N: the multi-vector path where the table has one --------------------------------------
// 2 to 16 columns (fp64: 4) with op(A) rows-contiguous (A "N" in LayoutLeft, "T" in LayoutRight), op(B)
// either way, tails in M and K, A aligned and at an odd leading dimension (element loads), beta zero (C
// poisoned) and not, fp32 and fp64; K long enough for several slices; then a rerun, bit for bit.
TEST(Gemm, SkinnyNMatchesReference) {
  std::uint64_t seed = 9600;
  const std::int64_t k = reduced() ? 600 : 2051;
  for (std::int64_t n : {2, 3, 4, 5, 8, 9, 12, 16, 17}) {
    for (const char* t : {"NN", "NT"}) {
      const double beta = n % 2 ? 0.0 : 0.75;
      // Leading dimensions of whole packets (1004 floats, 518 doubles): packet loads, a partial team.
      run({1004, n, k, t[0], t[1], Lay::left, Lay::left, Lay::left, 1.25, beta, Dt::f32, seed += 3});
      run({518, n, k, t[0], t[1], Lay::left, Lay::right, Lay::stride, -0.5, beta, Dt::f64, seed += 3});
    }
    // Packet loads with a partial last packet: 1001 rows of a buffer with 1004.
    {
      auto bigA = make_matrix<float, Kokkos::LayoutLeft>("A", 1004, 301);
      auto A = Kokkos::subview(bigA, std::make_pair(std::int64_t(0), std::int64_t(1001)), Kokkos::ALL());
      auto B = make_matrix<float, Kokkos::LayoutLeft>("B", 301, n);
      auto C = make_matrix<float, Kokkos::LayoutLeft>("C", 1001, n);
      fill_random(bigA, seed += 3), fill_random(B, seed + 1), fill_value(C, poison<float>());
      ridgeline::gemm(Exec(), "N", "N", 0.5f, A, B, 0.0f, C);
      Kokkos::fence();
      const HostMatrix hC = to_host(C);
      EXPECT_TRUE(matches(hC, reference_gemm(to_host(A), to_host(B), hC, 0.5, 0.0, eps_of<float>())))
          << "1001x" << n << "x301 in a 1004-row buffer";
    }
    // op(A) rows-contiguous through A^T in LayoutRight; and an odd leading dimension (element loads).
    run({1001, n, 333, 'T', 'N', Lay::right, Lay::right, Lay::right, 1.0, 0.0, Dt::f32, seed += 3});
    run({999, n, 335, 'N', 'N', Lay::stride, Lay::left, Lay::right, 1.0, 0.5, Dt::f64, seed += 3});
  }
  // A row block or two of one team's rows (32 fp32 and 16 fp64 rows on the host's entry), whose K the
  // plan splits where the device has more compute units than row blocks.
  for (const char* t : {"NN", "TT"}) {
    run({32, 6, 3000, t[0], t[1], Lay::left, Lay::right, Lay::left, 0.9, 0.5, Dt::f32, seed += 3});
    run({45, 3, 2000, t[0], t[1], Lay::right, Lay::right, Lay::right, -1.1, 0.0, Dt::f32, seed += 3});
    run({16, 4, 3000, t[0], t[1], Lay::left, Lay::left, Lay::left, 0.8, 0.0, Dt::f64, seed += 3});
  }
  // What this backend runs there: the multi-vector entry where its table lists one, split along K on
  // GPU tables, whose teams 1003 rows cannot fill.
  using L = detail::GemmEntriesOf<Exec, float>;
  auto A = make_matrix<float, Kokkos::LayoutLeft>("A", 1003, k);
  auto B = make_matrix<float, Kokkos::LayoutLeft>("B", k, 8);
  const TileConfig t = gemm_tile_config(Exec(), "N", "N", A, B);
  EXPECT_EQ(t.entry == "multi-vector", L::find(detail::GemmRole::multi_vector) >= 0) << t.entry;
  if (t.entry == "multi-vector" && gemm_tile_config<Exec, float>().stages == 2) EXPECT_GT(t.k_slices, 1);
  rerun_is_bit_identical(4099, 8, reduced() ? 1000 : 4000, 9690);
  rerun_is_bit_identical<double>(4099, 4, reduced() ? 1000 : 4000, 9691);
}

// ---- skinny N with op(A) k-contiguous, and skinny M: the multi-vector dot path ---------------------
// 2 to 16 columns (fp64: 8) with op(A) k-contiguous (A "T" in LayoutLeft, "N" in LayoutRight), op(B)
// either way, tails in M (not a multiple of a team's rows) and K (not a multiple of a staged pass), A
// at leading dimensions of whole packets and not (element loads), beta zero (C poisoned) and not, fp32
// and fp64; then just outside the entry's columns; then a rerun, bit for bit.
// What this backend runs on TN products of 1003 rows: a dot entry where its table lists one, up to the
// most columns its dot entries take (a table may list several, by columns), split along K for the teams
// that 1003 rows cannot supply.
void dot_entry_bounds(std::int64_t k) {
  using L = detail::GemmEntriesOf<Exec, float>;
  int most = 0;  // columns
  for (int i = 0; i < L::size; ++i)
    if (L::params(i).role == detail::GemmRole::multi_vector_dot) most = std::max(most, L::params(i).bn);
  EXPECT_EQ(entry_of<float>('T', 'N', 1003, 8, k) == "multi-vector dot", most >= 8);
  if (most > 0) {
    auto A = make_matrix<float, Kokkos::LayoutLeft>("A", k, 1003);
    auto B = make_matrix<float, Kokkos::LayoutLeft>("B", k, 2);
    EXPECT_GT(gemm_tile_config(Exec(), "T", "N", A, B).k_slices, 1);
    EXPECT_EQ(entry_of<float>('T', 'N', 1003, most, k), "multi-vector dot");  // just inside
    EXPECT_NE(entry_of<float>('T', 'N', 1003, most + 1, k), "multi-vector dot");
  }
}
TEST(Gemm, SkinnyNDotMatchesReference) {
  std::uint64_t seed = 9700;
  const std::int64_t k = reduced() ? 600 : 2051;
  for (std::int64_t n : {2, 3, 4, 5, 8, 9, 16, 17}) {
    const double beta = n % 2 ? 0.0 : 0.75;
    for (char tb : {'N', 'T'}) {
      run({1004, n, k, 'T', tb, Lay::left, Lay::left, Lay::left, 1.25, beta, Dt::f32, seed += 3});
      run({518, n, k, 'T', tb, Lay::left, Lay::right, Lay::stride, -0.5, beta, Dt::f64, seed += 3});
    }
    // op(A) k-contiguous through A in LayoutRight; an odd K (rows of A off packet boundaries: element
    // loads); 33 rows (one team and a row).
    run({1001, n, 333, 'N', 'N', Lay::right, Lay::right, Lay::right, 1.0, 0.0, Dt::f32, seed += 3});
    run({33, n, 1000, 'T', 'N', Lay::left, Lay::left, Lay::left, 1.0, 0.5, Dt::f64, seed += 3});
    run({999, n, 335, 'N', 'T', Lay::stride, Lay::left, Lay::right, 1.0, 0.5, Dt::f32, seed += 3});
  }
  // Plans only (no launch), so at the full K in reduced runs too: 600 is one K step of the entry, too
  // shallow to split.
  dot_entry_bounds(2051);
  rerun_is_bit_identical(4099, 8, reduced() ? 1000 : 4000, 9790, 'T');
  rerun_is_bit_identical<double>(4099, 5, reduced() ? 1000 : 4000, 9791, 'T');
}

// Skinny M runs transposed (C^T = op(B)^T op(A)^T) where the transpose is skinny N for a multi-vector
// entry: 2 to 17 rows, every transpose pair (op(B) k-contiguous: the dot entry; n-contiguous: the rows
// entry), C in both layouts (C^T written through its strides), beta zero and not; the plan says
// "transposed" exactly there; a rerun is bit-identical.
TEST(Gemm, SkinnyMRunsTransposed) {
  std::uint64_t seed = 9900;
  const std::int64_t n = 1003, k = reduced() ? 500 : 1500;
  for (std::int64_t m : {2, 3, 8, 16, 17}) {
    for (const char* t : {"NN", "NT", "TN", "TT"}) {
      const double beta = m % 2 ? 0.0 : -0.5;
      run({m, n, k, t[0], t[1], Lay::left, Lay::left, Lay::left, 0.75, beta, Dt::f32, seed += 3});
      run({m, n, k, t[0], t[1], Lay::right, Lay::right, Lay::right, 1.5, beta, Dt::f64, seed += 3});
    }
  }
  using L = detail::GemmEntriesOf<Exec, float>;
  const bool rows = L::find(detail::GemmRole::multi_vector) >= 0;
  const bool dot = L::find(detail::GemmRole::multi_vector_dot) >= 0;
  const auto config = [&](char tb, std::int64_t m) {
    auto A = make_matrix<float, Kokkos::LayoutLeft>("A", m, k);
    auto B = make_matrix<float, Kokkos::LayoutLeft>("B", tb == 'T' ? n : k, tb == 'T' ? k : n);
    const char b[2] = {tb, 0};
    return gemm_tile_config(Exec(), "N", b, A, B);
  };
  // NN: B^T is k-contiguous (the dot entry); NT: B^T is n-contiguous (the rows entry).
  EXPECT_EQ(config('N', 8).transposed, dot);
  if (dot) EXPECT_EQ(config('N', 8).entry, "multi-vector dot");
  EXPECT_EQ(config('T', 8).transposed, rows);
  if (rows) EXPECT_EQ(config('T', 8).entry, "multi-vector");
  // 17 rows: past the multi-vector entries' 16 columns of the transpose, and A's leading dimension of 17
  // stages in no packets (the few-columns entry needs them): tiles.
  EXPECT_FALSE(config('N', 17).transposed);
  EXPECT_FALSE(config('N', 1).transposed);  // one row is a GEMV
  // 32 rows on a table with a few-columns entry: its 32-column tiles, transposed.
  const bool few = L::find(detail::GemmRole::few_columns) >= 0;
  EXPECT_EQ(config('N', 32).transposed, few);
  if (few) EXPECT_EQ(config('N', 32).entry, "few columns");
  rerun_is_bit_identical(8, 4099, reduced() ? 1000 : 4000, 9990);
}

// ---- 17 to 32 columns: the few-columns tile entry --------------------------------------------------
// Past the multi-vector entries' columns, products of up to 32 columns (fp32) take 32-column tiles where
// the table lists them, split along K: every transpose pair, tails in M (not a multiple of 128) and K,
// beta zero (C poisoned) and not, just inside and outside 32 columns, and skinny M (17 to 32 rows, run
// transposed); then a rerun, bit for bit.
TEST(Gemm, FewColumnsMatchesReference) {
  std::uint64_t seed = 9950;
  const std::int64_t m = 2052, k = reduced() ? 300 : 1204;
  for (std::int64_t n : {17, 24, 32, 33}) {
    for (const char* t : {"NN", "NT", "TN", "TT"}) {
      const double beta = n % 2 ? 0.0 : -0.5;
      run({m, n, k, t[0], t[1], Lay::left, Lay::left, Lay::left, 1.25, beta, Dt::f32, seed += 3});
    }
    run({n, 1004, k, 'N', 'N', Lay::left, Lay::right, Lay::left, 0.5, 0.25, Dt::f32, seed += 3});
    run({n, 1004, k, 'T', 'T', Lay::right, Lay::right, Lay::right, 1.0, 0.0, Dt::f32, seed += 3});
  }
  using L = detail::GemmEntriesOf<Exec, float>;
  const bool few = L::find(detail::GemmRole::few_columns) >= 0;
  EXPECT_EQ(entry_of<float>('N', 'N', m, 32, 1024) == "few columns", few);  // just inside
  EXPECT_NE(entry_of<float>('N', 'N', m, 33, 1024), "few columns");
  EXPECT_EQ(entry_of<float>('N', 'N', m, 17, 1024) == "few columns", few);
  if (few) {
    const auto A = plan_only_view<float>(16384, 4096), B = plan_only_view<float>(4096, 32);
    EXPECT_GT(gemm_tile_config(Exec(), "N", "N", A, B).k_slices, 1);  // 128 tiles for 132 SMs
  }
  rerun_is_bit_identical(4100, 32, reduced() ? 1000 : 4000, 9990);
}

// The condition of a table's first existing entry whose condition satisfies Pred (void: none).
template <class L, template <class> class Pred>
struct FirstWhen {
  using type = void;
};
template <template <class> class Pred, class E, class... Rest>
struct FirstWhen<detail::GemmEntries<E, Rest...>, Pred> {
  using type =
      std::conditional_t<Pred<typename E::When>::value && !std::is_void_v<typename E::Cfg>, typename E::When,
                         typename FirstWhen<detail::GemmEntries<Rest...>, Pred>::type>;
};
template <class W>
struct IsFewColumns : std::bool_constant<W::role == detail::GemmRole::few_columns> {};

// A few-columns condition's most columns (fallback: none in the table).
template <class W>
constexpr std::int64_t max_columns_of(std::int64_t fallback) {
  if constexpr (std::is_void_v<W>) {
    return fallback;
  } else {
    return W::max_columns;
  }
}

// fp64 past the multi-vector entry's columns: few-column tiles where the table lists them (5 to 16 columns
// on the CUDA table: DMMA 64x32), split along K: every transpose pair, M and K tails, beta zero (C
// poisoned) and not, just inside and outside the entry's columns, and skinny M run transposed onto it.
TEST(Gemm, FewColumnsFp64MatchesReference) {
  std::uint64_t seed = 9970;
  const std::int64_t m = 2052, k = reduced() ? 300 : 1204;
  using L = detail::GemmEntriesOf<Exec, double>;
  using W = typename FirstWhen<L, IsFewColumns>::type;
  const int few = L::find(detail::GemmRole::few_columns);
  const std::int64_t cols = max_columns_of<W>(8);
  for (std::int64_t n : {std::int64_t(5), cols, cols + 1}) {
    for (const char* t : {"NN", "NT", "TN", "TT"}) {
      const double beta = n % 2 ? 0.0 : -0.5;
      run({m, n, k, t[0], t[1], Lay::left, Lay::left, Lay::left, 1.25, beta, Dt::f64, seed += 3});
    }
    run({n, 1004, k, 'N', 'N', Lay::left, Lay::right, Lay::left, 0.5, 0.25, Dt::f64, seed += 3});
  }
  if (few >= 0) {
    EXPECT_EQ(entry_of<double>('N', 'N', m, cols, 1024), "few columns");  // just inside
    EXPECT_NE(entry_of<double>('N', 'N', m, cols + 1, 1024), "few columns");
    const auto A = plan_only_view<double>(16384, 4096), B = plan_only_view<double>(4096, cols);
    EXPECT_GT(gemm_tile_config(Exec(), "N", "N", A, B).k_slices, 1);  // 16384 rows: too few tiles for the SMs
  }
  rerun_is_bit_identical<double>(4100, cols, reduced() ? 1000 : 4000, 9991);
}

// GemmMultiVectorDot launched directly with a configuration of the test's, on every backend whatever its
// table lists: lanes of a GPU warp (one thread on CPUs), 3 rows per group, a staged pass of 2 steps,
// packets (even leading dimension) and element loads (odd), with one K slice and 7.
template <class T>
struct DotTestCfg {
  static constexpr bool kHost = std::is_same_v<typename Exec::memory_space, Kokkos::HostSpace>;
  static constexpr int lanes = kHost ? 1 : 32, team_size = kHost ? 1 : 64, row_block = 3;
  static constexpr int vec = int(16 / sizeof(T)), unroll = 1, b_rows = 2 * lanes * vec;
  static constexpr int max_vectors = 8, min_blocks = 1;
};
template <class T>
void dot_kernel_case(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, int slices,
                     double beta, std::uint64_t seed) {
  using Cfg = DotTestCfg<T>;
  Kokkos::View<T**, Kokkos::LayoutLeft, Exec> A("A", lda, m), B("B", k, n), C("C", m, n);
  fill_operands(A, B, C, beta, seed);
  const HostMatrix hB = to_host(B), hC0 = to_host(C);
  // op(A) = the first k rows of A, transposed: m x k, k contiguous.
  const HostMatrix opA =
      transpose_if(to_host(Kokkos::subview(A, std::make_pair(std::int64_t(0), k), Kokkos::ALL())), true);
  const detail::Strided2D<const T> a{A.data(), m, k, lda, 1};
  const detail::Strided2D<const T> b{B.data(), k, n, 1, k};
  const detail::Strided2D<T> c{C.data(), m, n, 1, m};
  const detail::KSplit split = slices > 1 ? detail::split_k(k, Cfg::b_rows, slices) : detail::KSplit{1, k};
  detail::launch_multi_vector_dot<Cfg>(Exec(), split, a, b, c, T(1.5), T(beta));
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, T>();
  EXPECT_TRUE(matches(to_host(C), reference_gemm(opA, hB, hC0, 1.5, beta, tol.acc, tol.out)))
      << m << "x" << n << "x" << k << " lda " << lda << " slices " << slices;
}
TEST(Gemm, MultiVectorDotKernel) {
  std::uint64_t seed = 9950;
  for (std::int64_t n : {2, 4, 7, 8}) {
    for (int slices : {1, 7}) {
      dot_kernel_case<float>(200, n, 1000, 1000, slices, 0.0, seed += 3);  // packets
      dot_kernel_case<float>(97, n, 1001, 1003, slices, 0.5, seed += 3);   // elements
      dot_kernel_case<double>(200, n, 998, 998, slices, -1.0, seed += 3);
      dot_kernel_case<double>(5, n, 129, 131, slices, 0.0, seed += 3);
    }
  }
}

// GemmMultiVector launched directly with a configuration of the test's, on every backend whatever its
// table lists: a staged pass of 8 rows of op(B) (many passes per slice), packets (leading dimension a
// whole number of them) and element loads (odd), one K slice and 5, depths that leave a tail of fewer than
// an unroll step, beta zero (C poisoned) and not.
template <class T>
struct RowsTestCfg {
  static constexpr bool kHost = std::is_same_v<typename Exec::memory_space, Kokkos::HostSpace>;
  static constexpr int team_size = kHost ? 1 : 64;
  static constexpr int vec = int(16 / sizeof(T)), unroll = 2, b_rows = 8, max_vectors = 16, min_blocks = 1;
};
template <class T>
void rows_kernel_case(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda, int slices,
                      double beta, std::uint64_t seed) {
  using Cfg = RowsTestCfg<T>;
  Kokkos::View<T**, Kokkos::LayoutLeft, Exec> A("A", lda, k), B("B", k, n), C("C", m, n);
  fill_operands(A, B, C, beta, seed);
  const HostMatrix hB = to_host(B), hC0 = to_host(C);
  // op(A) = the first m rows of A: m x k, rows contiguous.
  const HostMatrix opA = to_host(Kokkos::subview(A, std::make_pair(std::int64_t(0), m), Kokkos::ALL()));
  const detail::Strided2D<const T> a{A.data(), m, k, 1, lda};
  const detail::Strided2D<const T> b{B.data(), k, n, 1, k};
  const detail::Strided2D<T> c{C.data(), m, n, 1, m};
  const detail::KSplit split = slices > 1 ? detail::split_k(k, Cfg::unroll, slices) : detail::KSplit{1, k};
  detail::launch_multi_vector<Cfg>(Exec(), split, a, b, c, T(-0.75), T(beta));
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, T>();
  EXPECT_TRUE(matches(to_host(C), reference_gemm(opA, hB, hC0, -0.75, beta, tol.acc, tol.out)))
      << m << "x" << n << "x" << k << " lda " << lda << " slices " << slices;
}
TEST(Gemm, MultiVectorRowsKernel) {
  std::uint64_t seed = 9970;
  for (std::int64_t n : {2, 5, 8, 11, 16}) {
    for (int slices : {1, 5}) {
      // 300 rows: a team's 256 (fp32) and a partial team; 301 rows: a partial packet.
      rows_kernel_case<float>(300, n, 203, 304, slices, 0.0, seed += 3);  // packets
      rows_kernel_case<float>(301, n, 203, 303, slices, 0.5, seed += 3);  // elements
      rows_kernel_case<double>(150, n, 201, 152, slices, -1.0, seed += 3);
      rows_kernel_case<double>(77, n, 97, 79, slices, 0.0, seed += 3);
    }
  }
}

// ---- the host's packed panels (backends/host/gemm_panels.hpp) ---------------------------------------
// Each packed-panel entry of the table launched directly on every orientation, with K slices (the plan
// never splits a host entry, but the kernel writes slices where asked) and without: M, N and K off every
// block size (MR, NR, MC, BM, BN, KC and the transposes' W), so that every packing branch, partial
// micro-tile and partial block runs; beta zero on a poisoned C.
template <class T, class Cfg>
void panel_kernel_cases(std::uint64_t seed) {
  using E = detail::GemmEntry<Cfg, detail::when::panels>;
  const std::int64_t m = Cfg::bm + Cfg::mc + Cfg::tm + 3, n = Cfg::bn + Cfg::tn + 5, k = Cfg::bk + 19;
  for (const char* t : {"NN", "NT", "TN", "TT"})
    for (int slices : {1, 3, 0})  // 0: the whole league on the calling thread
      for (double beta : {0.0, -0.5}) {
        auto A = make_matrix<T, Kokkos::LayoutLeft>("A", t[0] == 'T' ? k : m, t[0] == 'T' ? m : k);
        auto B = make_matrix<T, Kokkos::LayoutLeft>("B", t[1] == 'T' ? n : k, t[1] == 'T' ? k : n);
        const std::string what = std::to_string(Cfg::bm) + "x" + std::to_string(Cfg::bn) + " blocks, " +
                                 (slices > 0 ? std::to_string(slices) + " slices" : "on the calling thread");
        expect_direct_product<T>(
            t[0], t[1], A, B, m, n, 0.7, beta, seed += 3, what, [&](auto ca, auto cb, auto c, T al, T be) {
              const detail::KSplit split =
                  slices > 1 ? detail::split_k(k, Cfg::bk, slices) : detail::KSplit{1, k};
              detail::with_entry_kernel<Exec, T, T, E>(detail::rows_contiguous(ca),
                                                       !detail::rows_contiguous(cb), [&](auto kernel) {
                                                         detail::launch_gemm<typename decltype(kernel)::type>(
                                                             Exec(), ca, cb, c, al, be, split, slices == 0);
                                                       });
            });
      }
}
// A packed-panel entry's blocks that it multiplies in place (Cfg::in_place_bytes, gemm_panels.hpp): op(B)
// read where it lies in every orientation, op(A) too where its rows are contiguous (N), from subviews
// whose leading dimensions pass their extents; micro-panels of op(A) cut short (M off MR), last micro-tiles
// of 1 to NR columns (each tail width), whole blocks on the calling thread and K slices each in place; the
// bound by K just inside and just outside, both computed. Beta zero on a poisoned C, and not.
template <class T, class Cfg>
void panel_in_place_cases(std::uint64_t seed) {
  using E = detail::GemmEntry<Cfg, detail::when::panels>;
  const std::int64_t k_in = Cfg::in_place_bytes / (std::int64_t(sizeof(T)) * (Cfg::bm + Cfg::bn));
  struct Shape {
    std::int64_t m, n, k;
    int slices, in_place;  // in_place: what reads_in_place must say for the first block (-1: not checked)
  };
  std::vector<Shape> shapes = {{Cfg::bm, Cfg::bn, k_in, 0, 1},
                               {Cfg::bm, Cfg::bn, k_in + 1, 0, 0},
                               {Cfg::tm, 5, 3 * Cfg::bk - 5, 3, -1}};
  for (std::int64_t m : {std::int64_t(3), std::int64_t(Cfg::tm), std::int64_t(2 * Cfg::tm + 5)})
    for (std::int64_t n : {1, 4, 7, Cfg::tn, Cfg::tn + 9}) shapes.push_back({m, n, 37, 0, 1});
  for (const Shape& sh : shapes)
    for (const char* t : {"NN", "NT", "TN", "TT"})
      for (double beta : {0.0, -0.5}) {
        const bool a_t = t[0] == 'T', b_t = t[1] == 'T';
        const std::int64_t ar = a_t ? sh.k : sh.m, br = b_t ? sh.n : sh.k;
        auto bigA = make_matrix<T, Kokkos::LayoutLeft>("A", odd_above(ar), a_t ? sh.m : sh.k);
        auto bigB = make_matrix<T, Kokkos::LayoutLeft>("B", odd_above(br), b_t ? sh.k : sh.n);
        auto A = Kokkos::subview(bigA, std::make_pair<std::int64_t>(0, ar), Kokkos::ALL());
        auto B = Kokkos::subview(bigB, std::make_pair<std::int64_t>(0, br), Kokkos::ALL());
        const std::string what = std::to_string(sh.m) + "x" + std::to_string(sh.n) + "x" +
                                 std::to_string(sh.k) +
                                 (sh.slices > 1 ? " in slices" : " on the calling thread");
        expect_direct_product<T>(
            t[0], t[1], A, B, sh.m, sh.n, 0.7, beta, seed += 3, what,
            [&](auto ca, auto cb, auto c, T al, T be) {
              const detail::KSplit split =
                  sh.slices > 1 ? detail::split_k(sh.k, Cfg::bk, sh.slices) : detail::KSplit{1, sh.k};
              if (sh.slices > 1) {
                EXPECT_EQ(split.slices, sh.slices) << what;
              }
              detail::with_entry_kernel<Exec, T, T, E>(
                  detail::rows_contiguous(ca), !detail::rows_contiguous(cb), [&](auto kernel) {
                    using K = typename decltype(kernel)::type;
                    const std::int64_t mb = std::min<std::int64_t>(sh.m, Cfg::bm);
                    const std::int64_t nb = std::min<std::int64_t>(sh.n, Cfg::bn);
                    if (sh.in_place >= 0)
                      EXPECT_EQ(K::reads_in_place(mb, nb, sh.k), sh.in_place == 1) << what;
                    detail::launch_gemm<K>(Exec(), ca, cb, c, al, be, split, sh.slices == 0);
                  });
            });
      }
}
// Every entry of the table with the packed-panel role (none on device tables: the cases are then never
// instantiated).
template <class T>
void every_panel_entry() {
  using L = detail::GemmEntriesOf<Exec, T>;
  int found = 0;
  for (int i = 0; i < L::size; ++i)
    L::visit(i, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::When::role == detail::GemmRole::panels) {
        panel_kernel_cases<T, typename E::Cfg>(9990 + 100 * found++);
        if constexpr (E::Cfg::in_place_bytes > 0)
          panel_in_place_cases<T, typename E::Cfg>(19990 + 100 * found);
      }
    });
  if (found == 0) GTEST_SKIP() << "no packed-panel entry in this table";
}
// Products of one block and at most the table's calling_thread_flops on a packed-panel entry run on the
// calling thread, whole (no split, no peel); larger ones and other entries never do. Tables without the
// threshold (the GPUs') never plan it.
template <class T>
void calling_thread_plans() {
  constexpr double lim = detail::CallingThreadFlops<detail::Backend<Exec, T>>::value;
  const T* p = nullptr;
  const auto plan = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    return detail::plan_gemm<Exec, T>(detail::Strided2D<const T>{p, m, k, 1, m},
                                      detail::Strided2D<const T>{p, k, n, 1, k}, 2);
  };
  for (std::int64_t e : {7, 32, 64, 96, 97, 128, 512}) {
    const detail::GemmPlan g = plan(e, e + 1, e);
    const auto entry = detail::GemmEntriesOf<Exec, T>::params(g.entry);
    const bool want = lim > 0 && g.role == detail::GemmRole::panels &&
                      detail::tiles_of(e, e + 1, entry.bm, entry.bn) == 1 && 2.0 * e * (e + 1) * e <= lim;
    EXPECT_EQ(g.calling_thread, want) << e;
    if (g.calling_thread) {
      EXPECT_EQ(g.split.slices, 1) << e;
      EXPECT_EQ(g.peel.m0, 0) << e;
    }
  }
  if (lim > 0) {
    // Just inside and just outside, by K.
    const std::int64_t k_in = static_cast<std::int64_t>(lim / (2.0 * 40 * 40));
    if (plan(40, 40, k_in).role == detail::GemmRole::panels) EXPECT_TRUE(plan(40, 40, k_in).calling_thread);
    if (plan(40, 40, k_in + 1).role == detail::GemmRole::panels)
      EXPECT_FALSE(plan(40, 40, k_in + 1).calling_thread);
  }
  // Skinny N within the bound runs there too, not on a launched multi-vector entry (8^3 fp32 took 4.2 us
  // on it, 140 times OpenBLAS's time); past one block or past the bound, a table's multi-vector entry
  // keeps it. Tables without a calling thread, or without panels (the portable host build), skip this.
  if (lim > 0 && plan(7, 20, 7).calling_thread) {
    for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
             {8, 8, 8}, {16, 16, 16}, {64, 2, 64}, {96, 16, 96}, {32, 8, 1000}, {5, 3, 7}}) {
      ASSERT_LE(2.0 * m * n * k, lim);
      const detail::GemmPlan g = plan(m, n, k);
      EXPECT_TRUE(g.calling_thread) << m << "x" << n << "x" << k;
      EXPECT_EQ(g.role, detail::GemmRole::panels) << m << "x" << n << "x" << k;
    }
    const bool multi_vector = plan(4096, 8, 4096).role == detail::GemmRole::multi_vector;
    for (const auto& [m, n, k] :
         std::vector<std::array<std::int64_t, 3>>{{97, 8, 96}, {96, 16, 577}, {4096, 8, 4096}}) {
      const detail::GemmPlan g = plan(m, n, k);
      EXPECT_FALSE(g.calling_thread) << m << "x" << n << "x" << k;
      if (multi_vector) EXPECT_EQ(g.role, detail::GemmRole::multi_vector) << m << "x" << n << "x" << k;
    }
  }
}
TEST(GemmPlan, CallingThread) {
  calling_thread_plans<float>();
  calling_thread_plans<double>();
}

TEST(Gemm, PanelKernelFloat) {
  every_panel_entry<float>();
}
TEST(Gemm, PanelKernelDouble) {
  every_panel_entry<double>();
}

// ---- the host's direct small-product kernel (backends/host/gemm_small_direct.hpp) ---------------------
// The table's direct entry (its gemm_batched_direct; none on device tables) launched on the calling thread
// at every transpose pair: M just inside and outside one vector and one micro-tile (W, MR: masked tails of
// one and two vectors), N at every width of a last micro-tile (1 to 13: the 8, 4, 3, 2 and 1 pieces), K of
// one step and of two (past bk), operands and C in subviews whose leading dimensions pass their extents, C
// also with rows not contiguous (the product transposed: C^T = op(B)^T op(A)^T); beta zero on a poisoned
// C, and not; every product run twice, bit-identical.
template <class T, class Cfg>
void direct_kernel_cases(std::uint64_t seed) {
  using E = detail::GemmEntry<Cfg, detail::when::panels>;
  constexpr std::int64_t W = Cfg::simd_bytes / std::int64_t(sizeof(T)), MR = Cfg::tm;
  std::vector<std::array<std::int64_t, 3>> shapes;
  for (std::int64_t m :
       {std::int64_t(1), W - 1, W, W + 1, MR - 1, MR, MR + 1, 2 * MR + 5, std::int64_t(Cfg::bm)})
    for (std::int64_t n : {1, 4, 12, 13}) shapes.push_back({m, n, 7});
  for (std::int64_t n = 1; n <= 13; ++n) shapes.push_back({MR + 3, n, 19});
  shapes.push_back({Cfg::bm, Cfg::bn, Cfg::bk + 9});  // two K steps: the second adds to C
  shapes.push_back({W + 3, 25, 1});
  // A few shapes again with B at strides 2 and 2 * its leading dimension (LayoutStride): op(B) has no unit
  // stride, so each K step's block is copied into the thread's buffer in the orientation's layout (b_block).
  const std::vector<std::array<std::int64_t, 3>> strided_b_shapes = {
      {MR + 3, 13, 19}, {W + 3, 25, 1}, {Cfg::bm, 30, Cfg::bk + 9}};
  int runs = 0;
  for (bool b_strided : {false, true})
    for (const auto& [m, n, k] : b_strided ? strided_b_shapes : shapes)
      for (const char* t : {"NN", "NT", "TN", "TT"})
        for (bool c_rows : {false, true})
          for (double beta : {0.0, -0.5}) {
            const bool a_t = t[0] == 'T', b_t = t[1] == 'T';
            const std::int64_t ar = a_t ? k : m, br = b_t ? n : k, bc = b_t ? k : n;
            auto bigA = make_matrix<T, Kokkos::LayoutLeft>("A", odd_above(ar), a_t ? m : k);
            auto bigB = make_matrix<T, Kokkos::LayoutLeft>("B", odd_above(2 * br), 2 * bc);
            auto A = Kokkos::subview(bigA, std::make_pair<std::int64_t>(0, ar), Kokkos::ALL());
            const std::int64_t lead = bigB.stride(1);
            Kokkos::View<T**, Kokkos::LayoutStride, Mem> B(
                bigB.data(), b_strided ? Kokkos::LayoutStride(br, 2, bc, 2 * lead)
                                       : Kokkos::LayoutStride(br, 1, bc, lead));
            const std::string what = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                                     (c_rows ? ", C rows not contiguous" : "") +
                                     (b_strided ? ", B strided" : "");
            expect_direct_product<T>(
                t[0], t[1], A, B, m, n, 0.7, beta, seed += 3, what,
                [&](auto ca, auto cb, auto c, T al, T be) {
                  const auto run = [&](auto x, auto y, auto z) {
                    detail::with_entry_kernel<Exec, T, T, E>(
                        detail::rows_contiguous(x), !detail::rows_contiguous(y), [&](auto kernel) {
                          detail::launch_gemm<typename decltype(kernel)::type>(
                              Exec(), x, y, z, al, be, detail::KSplit{1, x.cols}, true);
                        });
                  };
                  // The first run on a copy of C, the second on C itself: the two must match bit for bit.
                  // Host memory (the direct entry is the host table's), copied on the host: nvcc refuses a
                  // device lambda inside this generic lambda even where the template is never instantiated.
                  Kokkos::View<T**, Kokkos::LayoutLeft, Exec> copy("copy", c.rows, c.cols);
                  for (std::int64_t j = 0; j < c.cols; ++j)
                    for (std::int64_t i = 0; i < c.rows; ++i) copy(i, j) = c(i, j);
                  const detail::Strided2D<T> c2{copy.data(), c.rows, c.cols, 1, c.rows};
                  for (const detail::Strided2D<T>& z : {c2, c}) {
                    if (c_rows)
                      run(detail::transpose_of(cb), detail::transpose_of(ca), detail::transpose_of(z));
                    else
                      run(ca, cb, z);
                  }
                  Kokkos::fence();
                  std::int64_t differ = 0;
                  for (std::int64_t j = 0; j < c.cols; ++j)
                    for (std::int64_t i = 0; i < c.rows; ++i)
                      differ += std::memcmp(&copy(i, j), &c(i, j), sizeof(T)) != 0;
                  EXPECT_EQ(differ, 0) << t << " " << what << ": a rerun differs";
                  ++runs;
                });
          }
  EXPECT_GT(runs, 0);
}
template <class T>
void direct_entry_cases() {
  using Cfg = detail::BatchedDirectCfgOf<Exec, T>;
  if constexpr (std::is_void_v<Cfg>) {
    GTEST_SKIP() << "no direct small-product entry in this table";
  } else {
    direct_kernel_cases<T, Cfg>(29990);
  }
}
TEST(Gemm, DirectKernelFloat) {
  direct_entry_cases<float>();
}
TEST(Gemm, DirectKernelDouble) {
  direct_entry_cases<double>();
}
// The plan puts a product on the direct entry (and the calling thread) just inside its one block and the
// table's calling_thread_flops, in every orientation, and not just outside either bound.
template <class T>
void direct_entry_plans() {
  using Cfg = detail::BatchedDirectCfgOf<Exec, T>;
  if constexpr (std::is_void_v<Cfg>) {
    GTEST_SKIP() << "no direct small-product entry in this table";
  } else {
    constexpr double lim = detail::CallingThreadFlops<detail::Backend<Exec, T>>::value;
    const T* p = nullptr;
    const auto is_direct = [&](std::int64_t m, std::int64_t n, std::int64_t k, bool a_t, bool b_t) {
      const detail::GemmPlan g =
          detail::plan_gemm<Exec, T>(detail::Strided2D<const T>{p, m, k, a_t ? k : 1, a_t ? 1 : m},
                                     detail::Strided2D<const T>{p, k, n, b_t ? n : 1, b_t ? 1 : k}, 2);
      bool direct = false;
      detail::GemmEntriesOf<Exec, T>::visit(
          g.entry, [&](auto e) { direct = std::is_same_v<typename decltype(e)::Cfg, Cfg>; });
      if (direct) {
        EXPECT_TRUE(g.calling_thread) << m << "x" << n << "x" << k;
        EXPECT_EQ(g.split.slices, 1) << m << "x" << n << "x" << k;
      }
      return direct;
    };
    const std::int64_t bm = Cfg::bm, bn = Cfg::bn;
    const std::int64_t k_in = static_cast<std::int64_t>(lim / (2.0 * bm * bn));  // bm x bn x k_in: inside
    for (int t = 0; t < 4; ++t) {
      const bool a_t = t & 1, b_t = t & 2;
      for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
               {1, 2, 1}, {16, 16, 16}, {32, 32, 32}, {64, 64, 64}, {bm, bn, k_in}, {5, 3, 7}, {96, 17, 500}})
        EXPECT_TRUE(is_direct(m, n, k, a_t, b_t)) << m << "x" << n << "x" << k << " " << t;
      for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
               {bm + 1, bn, 32}, {bm, bn + 1, 32}, {bm, bn, k_in + 1}, {128, 128, 128}, {4096, 8, 4096}})
        EXPECT_FALSE(is_direct(m, n, k, a_t, b_t)) << m << "x" << n << "x" << k << " " << t;
    }
  }
}
TEST(GemmPlan, DirectSmallProducts) {
  direct_entry_plans<float>();
  direct_entry_plans<double>();
}

// ---- products under one wave: the small-tile entries ----------------------------------------------
// Whether an entry condition is a wave share (when::wave_share_of), for FirstWhen: the small-tile entry
// whose bounds the cases below probe. FirstWhen's predicate takes one parameter, and the detection needs
// a second (defaulted) one: C++17 lets a two-parameter template bind there (P0522), GCC does so, but
// Clang before 19 does not by default (hipcc 5.2 failed on it, CI 2026-12-03), so IsWaveShare wraps it.
template <class W, class = void>
struct HasWaveShare : std::false_type {};
template <class W>
struct HasWaveShare<W, std::void_t<typename W::big, decltype(W::min_percent)>> : std::true_type {};
template <class W>
struct IsWaveShare : HasWaveShare<W> {};

// Wave share W's bounds on this table (cu compute units): two tile rows of W's big entry by as many tile
// columns as stay just under W's share of a wave of its team slots, less `trim` rows and columns, plan
// the small tiles; one more tile column of the big entry does not. Plans only, at a K past any table's
// short-K small-tile entry (when::depth_at_most), and TN: for NN an entry listed before may take part of the
// share (the CUDA fp64 pairs entry takes 4 to 8 waves, GemmDmma.TableEntriesSplitKAndRerun). Returns {m, n}.
template <class T, class W>
std::array<std::int64_t, 2> expect_share_bounds(std::int64_t cu, std::int64_t trim) {
  using Big = typename W::big;
  const std::int64_t slots = cu * Big::min_blocks;
  const std::int64_t inside = (W::max_percent * slots + 99) / 100 - 1;  // most tiles still inside
  const std::int64_t m = 2 * Big::bm - trim, n = inside / 2 * Big::bn - trim;
  EXPECT_EQ(entry_of<T>('T', 'N', m, n, 8192), "small tiles") << m << "x" << n;
  EXPECT_NE(entry_of<T>('T', 'N', m, n + Big::bn, 8192), "small tiles") << m << "x" << n + Big::bn;
  return {m, n};
}

// Where the table's small-tile entry starts under one wave of its big entry's tiles: a product of two
// tile rows just under the entry's share of waves (small tiles) and one tile column more (past it), with
// tails in M, N and K, every transpose pair, beta zero (C poisoned) and not. Then a product a few tiles
// big, deep in K, whose split runs many slices (16 of 64 x 64 on 132 SMs), and a bit-identical rerun.
// Extents are multiples of 4, so every leading dimension is whole packets.
template <class T>
void sub_wave_products(Dt dt, std::uint64_t seed) {
  using W = typename FirstWhen<detail::GemmEntriesOf<Exec, T>, IsWaveShare>::type;
  const std::int64_t cu = detail::ComputeUnits<detail::Backend<Exec, T>, Exec>::of(Exec());
  if constexpr (!std::is_void_v<W>) {
    if (cu > 0 && W::min_percent == 0) {
      const auto [m, n] = expect_share_bounds<T, W>(cu, 4);
      const std::int64_t k = 68;
      // Up to one wave, the products are small enough for the host reference (8 waves: see GemmDmma).
      if (W::max_percent <= 100)
        for (const char* t : {"NN", "NT", "TN", "TT"})
          for (double beta : {0.0, 0.5})
            run({m, n, k, t[0], t[1], Lay::left, Lay::left, Lay::left, 0.7, beta, dt, seed += 3});
      EXPECT_EQ(entry_of<T>('T', 'N', 200, 196, 1000), "small tiles");
    }
  }
  for (const char* t : {"NN", "NT", "TN", "TT"})
    for (double beta : {0.0, -0.5})
      run({200, 196, 1000, t[0], t[1], Lay::left, Lay::left, Lay::left, 1.3, beta, dt, seed += 3});
  rerun_is_bit_identical<T>(200, 196, 1000, seed + 1);
}
TEST(Gemm, SubWaveProductsFloat) {
  sub_wave_products<float>(Dt::f32, 9800);
}
TEST(Gemm, SubWaveProductsDouble) {
  sub_wave_products<double>(Dt::f64, 9850);
}

// A wave-share entry for operands of any alignment (element staging), for FirstWhen.
template <class W>
struct IsElementWaveShare : std::bool_constant<HasWaveShare<W>::value && !W::needs_packets> {};

// Unaligned fp32 products under one wave: where the table lists an element-staged small-tile entry, its
// bounds (odd leading dimensions, just inside and one tile column past), then products whose edge tiles
// move back inside M and N by amounts that are no multiple of a packet, with tails in M, N and K, every
// transpose pair, beta zero (C poisoned) and not, and a bit-identical rerun. Every table runs the products.
// (A template, so that `if constexpr` discards the bounds where the table has no such entry.)
template <class T>
void sub_wave_unaligned(Dt dt) {
  using W = typename FirstWhen<detail::GemmEntriesOf<Exec, T>, IsElementWaveShare>::type;
  const std::int64_t cu = detail::ComputeUnits<detail::Backend<Exec, T>, Exec>::of(Exec());
  if constexpr (!std::is_void_v<W>) {
    if (cu > 0 && W::min_percent == 0) {
      expect_share_bounds<T, W>(cu, 3);
    }
  }
  std::uint64_t seed = 9900;
  for (const auto& s : {std::array<std::int64_t, 3>{253, 261, 133}, std::array<std::int64_t, 3>{125, 67, 35}})
    for (const char* t : {"NN", "NT", "TN", "TT"})
      for (double beta : {0.0, 0.5})
        run({s[0], s[1], s[2], t[0], t[1], Lay::left, Lay::left, Lay::left, 0.7, beta, dt, seed += 3});
  rerun_is_bit_identical<T>(253, 261, 1001, seed + 1);
}
TEST(Gemm, SubWaveUnalignedFloat) {
  sub_wave_unaligned<float>(Dt::f32);
}

TEST(Gemm, SplitKRerunIsBitIdentical) {
  rerun_is_bit_identical(64, 256, reduced() ? 1024 : 8192, 61);
}

// The workspace behind split-K and operand copies: held after a call that needs it, freed by
// release_workspace, and allocated again by the next such call, which still computes right.
TEST(Gemm, WorkspaceReleaseAndReuse) {
  const bool gpu_table = gemm_tile_config<Exec, float>().stages == 2;
  using L = Kokkos::LayoutLeft;
  few_tiles_case<float, L, L>('N', 'N', 64, 256, reduced() ? 524 : 3004, 0.0, 7001, gpu_table);
  packed_case<float>('N', 'T', 70, 90, 40, 0.5, 7004);  // copies, on every backend
  EXPECT_GT(ridgeline::workspace_bytes(), 0u);
  ridgeline::release_workspace();
  EXPECT_EQ(ridgeline::workspace_bytes(), 0u);
  few_tiles_case<float, L, L>('T', 'N', 64, 256, reduced() ? 524 : 3004, -0.4, 7007, gpu_table);
  packed_case<double>('T', 'T', 33, 65, 17, 0.0, 7010);
  EXPECT_GT(ridgeline::workspace_bytes(), 0u);
}

// Workspace::put, which holds the TMA kernels' tensor maps: the device copy always holds the bytes last
// put, whether they changed (copied again), repeated (no copy: the same buffer), grew (a new buffer) or
// were put after release_workspace freed everything.
TEST(Gemm, WorkspacePutKeepsTheLastBytes) {
  const auto device_bytes = [](const unsigned char* p, std::size_t n) {
    std::vector<unsigned char> h(n);
    Kokkos::deep_copy(Kokkos::View<unsigned char*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(h.data(), n),
                      Kokkos::View<const unsigned char*, Mem, Kokkos::MemoryUnmanaged>(p, n));
    return h;
  };
  std::vector<unsigned char> a(256), b(512);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<unsigned char>(7 * i + 1);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>(255 - 3 * i);
  const auto slot = detail::WorkSlot::kernel_params;
  ridgeline::release_workspace();
  {
    auto lease = detail::lease_workspace(Exec());
    const unsigned char* p = lease.put(slot, a.data(), a.size());
    EXPECT_EQ(device_bytes(p, a.size()), a);
    a[3] ^= 0xff;
    a[255] ^= 0x0f;
    p = lease.put(slot, a.data(), a.size());
    EXPECT_EQ(device_bytes(p, a.size()), a);
    const unsigned char* q = lease.put(slot, a.data(), a.size());
    EXPECT_EQ(q, p);
    EXPECT_EQ(device_bytes(q, a.size()), a);
    p = lease.put(slot, b.data(), b.size());
    EXPECT_EQ(device_bytes(p, b.size()), b);
  }
  ridgeline::release_workspace();
  {
    auto lease = detail::lease_workspace(Exec());
    const unsigned char* p = lease.put(slot, b.data(), b.size());
    EXPECT_EQ(device_bytes(p, b.size()), b);
  }
  ridgeline::release_workspace();
}

// A cap on the workspace. Restores the caller's cap, also when an assertion fails.
struct WorkspaceLimitScope {
  std::size_t saved = ridgeline::workspace_limit();
  ~WorkspaceLimitScope() { ridgeline::set_workspace_limit(saved); }
};

// Under a cap the plan drops copies and split-K that could not fit, and a call that finds the room
// taken by other buffers runs without them: results stay right, and the cap holds.
TEST(Gemm, WorkspaceLimit) {
  WorkspaceLimitScope scope;
  const bool gpu_table = gemm_tile_config<Exec, float>().stages == 2;
  using L = Kokkos::LayoutLeft;
  const std::int64_t k = reduced() ? 524 : 3004;
  ridgeline::release_workspace();

  // No room at all: copies fall back to element staging, split-K to one slice, nothing is held.
  ridgeline::set_workspace_limit(0);
  EXPECT_EQ(ridgeline::workspace_limit(), 0u);
  packed_case<float>('N', 'T', 70, 90, 40, 0.5, 7101);
  few_tiles_case<float, L, L>('N', 'N', 64, 256, k, 0.0, 7104, false);
  EXPECT_EQ(ridgeline::workspace_bytes(), 0u);
  {
    auto A = make_matrix<float, L>("A", 64, k);
    auto B = make_matrix<float, L>("B", k, 256);
    EXPECT_EQ(gemm_tile_config(Exec(), "N", "N", A, B).k_slices, 1);
  }
  constexpr std::int64_t lim = detail::PackMinExtent<detail::Backend<Exec, float>, float>::value;
  const std::int64_t n = lim > 0 ? lim + 1 : 4097;
  const detail::Strided2D<const float> odd{nullptr, n, n, 1, n};
  EXPECT_FALSE((detail::gemm_packs_operands<Exec, float>(odd, odd)));
  ridgeline::set_workspace_limit(std::numeric_limits<std::size_t>::max());
  EXPECT_EQ((detail::gemm_packs_operands<Exec, float>(odd, odd)), lim > 0);

  // A cap that the split-K partials alone fit under, but not together with copies already held:
  // the plan still splits, and the call runs as one slice.
  packed_case<float>('N', 'N', 200, 300, 90, 0.0, 7107);  // copies stay held
  const std::size_t copies = ridgeline::workspace_bytes();
  EXPECT_GT(copies, 0u);
  auto A = make_matrix<float, L>("A", 64, k);
  auto B = make_matrix<float, L>("B", k, 256);
  const int slices = gemm_tile_config(Exec(), "N", "N", A, B).k_slices;
  const std::size_t partials = std::size_t(slices) * 64 * 256 * sizeof(float);
  ridgeline::set_workspace_limit(std::max(copies, partials));
  few_tiles_case<float, L, L>('N', 'N', 64, 256, k, -0.4, 7110, gpu_table);
  EXPECT_EQ(ridgeline::workspace_bytes(), copies);
  // Larger copies, refused if they would pass the cap, and smaller ones: the cap holds either way.
  packed_case<float>('T', 'N', 300, 400, 120, 0.5, 7113);
  packed_case<float>('T', 'N', 20, 30, 10, 0.0, 7116);
  EXPECT_LE(ridgeline::workspace_bytes(), ridgeline::workspace_limit());
  ridgeline::release_workspace();
  EXPECT_EQ(ridgeline::workspace_bytes(), 0u);
}

// ---- vector epilogue: C a 16-byte aligned sub-view whose rows end mid-packet ---------------------
// C's columns start 16-byte aligned (row offset 4, leading dimension 52), M = 45 leaves a partial
// packet at the bottom edge, and the rows around the sub-view must survive, for beta = 0 and not.
template <class T>
void aligned_guard_band(double beta) {
  const std::int64_t M = 45, N = 37, K = 70, top = 4, ld = 52;
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> bigC("bigC", ld, N + 2);
  auto A = make_matrix<T, Kokkos::LayoutLeft>("A", M, K);
  auto B = make_matrix<T, Kokkos::LayoutLeft>("B", K, N);
  fill_random(A, 81), fill_random(B, 82), fill_random(bigC, 83);
  auto C = Kokkos::subview(bigC, std::make_pair(top, top + M), std::make_pair(std::int64_t(1), N + 1));
  if (beta == 0) fill_value(C, poison<T>());
  const HostMatrix before = to_host(bigC), hC0 = to_host(C);
  ridgeline::gemm(Exec(), "N", "N", T(0.3), A, B, static_cast<T>(beta), C);
  Kokkos::fence();
  EXPECT_EQ(changed_outside(before, to_host(bigC), top, M, 1, N), 0)
      << "elements outside the C subview changed";
  EXPECT_TRUE(matches(to_host(C), reference_gemm(to_host(A), to_host(B), hC0, 0.3, beta, eps_of<T>())));
}

TEST(Gemm, AlignedSubviewEpilogue) {
  aligned_guard_band<float>(0.0);
  aligned_guard_band<float>(-1.5);
  aligned_guard_band<double>(0.0);
  aligned_guard_band<double>(0.3);
}

// ---- one column with op(B) = B goes through GEMV ------------------------------------------------
TEST(Gemm, SingleColumnMatchesReference) {
  std::uint64_t seed = 3000;
  for (const char* t : {"NN", "TN"})
    for (double beta : {0.0, 0.3})
      for (Dt dt : kAllDtypes)
        run({211, 1, 179, t[0], t[1], Lay::left, Lay::left, Lay::left, 1.0, beta, dt, seed++});
  for (Dt dt : kAllDtypes)
    run({64, 1, 1000, 'N', 'N', Lay::right, Lay::stride, Lay::stride, -1.5, 1.0, dt, seed++});
}

// ---- same inputs, same bits -------------------------------------------------------------------
TEST(Gemm, RerunIsBitIdentical) {
  rerun_is_bit_identical(300, 260, 517, 21);
}

}  // namespace
}  // namespace ridgeline::test

namespace ridgeline::test {
namespace {

// ---- the macro-kernel under other backends' tile shapes ---------------------------------------
// Each backend runs only its own table, so the host never sees register staging (stages == 2) or
// split fragments, and a GPU never sees the scratch accumulator. These small configurations run
// every such path of the team kernel on whatever backend this binary targets.
template <int kTeam, int kStages, int kFm>
struct SmallTiles {
  static constexpr int bm = 16, bn = 8, bk = 4;
  static constexpr int tm = 4, tn = 4, fm = kFm, fn = kFm;
  static constexpr int pad_a = 2, pad_b = 2;
  static constexpr int team_size = kTeam, vector_length = 1, stages = kStages, min_blocks = 1;
  static constexpr int scratch_level = 0, group_m = 2;
};

// One micro-tile per thread (register accumulators), with or without fragment prefetch.
template <int kTeam, bool kPrefetch>
struct PrefetchTiles : SmallTiles<kTeam, 2, 2> {
  static constexpr int bm = 4 * (kTeam >= 4 ? 4 : kTeam), bn = 4 * (kTeam >= 4 ? kTeam / 4 : 1);
  static constexpr bool prefetch_fragments = kPrefetch;
};

// out, when given, receives C after the product (empty when the test is skipped).
template <class Cfg, bool kAFastM, bool kBFastN>
void run_small_tiles(char ta, char tb, std::int64_t m, std::int64_t n, std::int64_t k,
                     HostMatrix* out = nullptr) {
  using Kernel = detail::GemmTeamTiled<Exec, Cfg, double, double,
                                       detail::PortableMicroKernel<Cfg, double, double>, kAFastM, kBFastN>;
  typename Kernel::policy_type probe(Exec(), 1, 1);
  if (probe.team_size_max(Kernel{}, Kokkos::ParallelForTag()) < Cfg::team_size) {
    GTEST_SKIP() << "backend teams are smaller than " << Cfg::team_size;
  }
  auto A = make_matrix<double, Kokkos::LayoutStride>("A", ta == 'T' ? k : m, ta == 'T' ? m : k);
  auto B = make_matrix<double, Kokkos::LayoutLeft>("B", tb == 'T' ? n : k, tb == 'T' ? k : n);
  auto C = make_matrix<double, Kokkos::LayoutRight>("C", m, n);
  fill_random(A, 71), fill_random(B, 72), fill_random(C, 73);
  const HostMatrix hA = to_host(A), hB = to_host(B), hC0 = to_host(C);
  const auto a = detail::strided_op(A, ta == 'T' ? detail::Trans::T : detail::Trans::N);
  const auto b = detail::strided_op(B, tb == 'T' ? detail::Trans::T : detail::Trans::N);
  detail::launch_gemm<Kernel>(Exec(), detail::Strided2D<const double>{a.data, a.rows, a.cols, a.rs, a.cs},
                              detail::Strided2D<const double>{b.data, b.rows, b.cols, b.rs, b.cs},
                              detail::strided_op(C, detail::Trans::N), 0.7, -0.4,
                              detail::gemm_k_split<Kernel>(Exec(), m, n, k));
  Kokkos::fence();
  const auto want = reference_gemm(transpose_if(hA, ta == 'T'), transpose_if(hB, tb == 'T'), hC0, 0.7, -0.4,
                                   std::numeric_limits<double>::epsilon());
  const HostMatrix got = to_host(C);
  EXPECT_TRUE(matches(got, want)) << ta << tb << " " << m << "x" << n << "x" << k;
  if (out) *out = got;
}

template <class Cfg>
void run_small_tiles_all() {
  // 37x21x19: tails in M, N and K for a 16x8x4 tile; both contiguity choices for each operand.
  run_small_tiles<Cfg, true, false>('N', 'N', 37, 21, 19);
  run_small_tiles<Cfg, false, true>('T', 'T', 37, 21, 19);
  run_small_tiles<Cfg, true, true>('N', 'T', 37, 21, 19);
  run_small_tiles<Cfg, false, false>('T', 'N', 37, 21, 19);
}

TEST(GemmTeamKernel, OneThreadTwoStagesSplitFragments) {
  run_small_tiles_all<SmallTiles<1, 2, 2>>();
}
TEST(GemmTeamKernel, OneThreadOneStage) {
  run_small_tiles_all<SmallTiles<1, 1, 4>>();
}
TEST(GemmTeamKernel, RegisterAccumulatorTwoStages) {
  run_small_tiles_all<SmallTiles<8, 2, 2>>();
}
TEST(GemmTeamKernel, TwoMicroTilesPerThreadTwoStages) {
  run_small_tiles_all<SmallTiles<4, 2, 4>>();
}

// Fragment prefetch reorders loads and barriers, not sums: both loops must match the reference on
// tails in M, N and K (the K step is 4: 19 leaves a tail of 3; 1 and 4 are a single step). On GPU
// backends, whose compilers fuse every a * b + c of the micro-kernel into one FMA, C must also equal
// k_loop's bit for bit. Host compilers may contract the two loops differently (GCC's default
// -ffp-contract=fast did here; with -ffp-contract=off the host results were identical too).
template <int kTeam>
void prefetch_matches_k_loop() {
  const bool gpu_table = gemm_tile_config<Exec, float>().stages == 2;
  for (std::int64_t k : {19, 1, 4, 64}) {
    HostMatrix on, off;
    run_small_tiles<PrefetchTiles<kTeam, true>, true, false>('N', 'N', 37, 21, k, &on);
    run_small_tiles<PrefetchTiles<kTeam, false>, true, false>('N', 'N', 37, 21, k, &off);
    if (on.v.empty() || off.v.empty()) return;  // skipped: teams are too small here
    ASSERT_EQ(on.v.size(), off.v.size());
    if (gpu_table)
      EXPECT_EQ(std::memcmp(on.v.data(), off.v.data(), on.v.size() * sizeof(double)), 0) << "K = " << k;
  }
  run_small_tiles_all<PrefetchTiles<kTeam, true>>();
}
TEST(GemmTeamKernel, FragmentPrefetchOneThread) {
  prefetch_matches_k_loop<1>();
}
TEST(GemmTeamKernel, FragmentPrefetchEightThreads) {
  prefetch_matches_k_loop<8>();
}

// ---- the DMMA micro-kernel and asynchronous staging, on small tiles with tails -------------------
// The CUDA table's fp64 entries run the FP64 tensor cores (backends/cuda/dmma_sm90.hpp), with
// register staging (any strides) or asynchronous copies (packets). These tiles are small enough for
// every edge case to matter: M, N and K tails, odd extents whose last packet is half inside, every
// orientation of each operand (k-major and k-contiguous scratch), split-K, and reruns.
#if defined(KOKKOS_ENABLE_CUDA)
template <bool kAsync>
struct AsyncStagingOf {};
template <>
struct AsyncStagingOf<true> {
  using async_copy = backends::cuda::AsyncCopySm80;
};

// RIDGELINE_TEST_DMMA_TILES (default 1): the DMMA tile configurations below, each compiled for every operand
// orientation. CI's plain CUDA 11.8 build, which exists for the 16-bit paths without the sm_90a route, sets
// it to 0: the fp64 tensor-core code is the same with and without the route, and the route build compiles it.
#ifndef RIDGELINE_TEST_DMMA_TILES
#define RIDGELINE_TEST_DMMA_TILES 1
#endif
#if RIDGELINE_TEST_DMMA_TILES
// kSteady: interior tiles' whole K steps in the steady loop (gemm_team_async.hpp); 71x37x83 on 32x16 tiles
// has interior and edge tiles, and five whole K steps then a tail, so it runs both loops in one launch.
// kK: the DMMA instruction's k (16 or 8); kAcross: the slice-at-a-time K loop that loads the next slice's
// fragments across the K steps' barriers (fragments_across_steps), with kBk 16 or 32 (two or four slices).
template <int kBm, int kBn, int kWm, int kWn, int kStages, bool kAsync, bool kSteady = false,
          bool kCopiesAfter = false, int kK = 16, bool kAcross = false, int kBk = 16, bool kPairs = false>
struct DmmaTiles : AsyncStagingOf<kAsync> {
  static constexpr bool steady_loop = kSteady, copies_after_products = kCopiesAfter, dmma_pairs = kPairs;
  static constexpr bool fragments_across_steps = kAcross;
  static constexpr int dmma_k = kK;
  static constexpr int bm = kBm, bn = kBn, bk = kBk;
  static constexpr int warp_m = kWm, warp_n = kWn, tm = kWm / 8, tn = kWn / 4;
  static constexpr int pad_a = 4, pad_b = 4, pad_k = 4;
  static constexpr int team_size = (kBm / kWm) * (kBn / kWn) * 32, vector_length = 1, stages = kStages;
  static constexpr int min_blocks = 1, scratch_level = 0, group_m = 2;
  template <class T, class Acc>
  using micro_kernel = backends::cuda::DmmaSm90MicroKernel<DmmaTiles, T, Acc>;
};
#endif  // RIDGELINE_TEST_DMMA_TILES

// C = 0.7 op(A) op(B) - 0.4 C through kernel Cfg, with op(A) m- or k-contiguous (kAFastM) and op(B)
// n- or k-contiguous (kBFastN). The operands are sub-views of buffers whose leading dimension is rounded up
// to 16 bytes, so every line starts 16-byte aligned (packets) while m, n, k stay odd. T: A and B; TC: C.
template <class Cfg, bool kAFastM, bool kBFastN, class T = double, class TC = T>
void run_mma_tiles(std::int64_t m, std::int64_t n, std::int64_t k, std::uint64_t seed) {
  using Plain = detail::GemmKernelFor<Exec, Cfg, T, kAFastM, kBFastN, false, TC>;
  using Kernel = detail::GemmKernelFor<Exec, Cfg, T, kAFastM, kBFastN, Plain::vector_capable, TC>;
  using S = detail::AccumulatorType<T>;
  constexpr std::int64_t W = 16 / sizeof(T);
  const auto lead = [](std::int64_t x) { return (x + W - 1) / W * W; };
  const std::int64_t ar = kAFastM ? m : k, ac = kAFastM ? k : m;  // A as stored, LayoutLeft
  const std::int64_t br = kBFastN ? n : k, bc = kBFastN ? k : n;
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> bigA("bigA", lead(ar), ac), bigB("bigB", lead(br), bc);
  auto A = Kokkos::subview(bigA, std::make_pair(std::int64_t(0), ar), Kokkos::ALL);
  auto B = Kokkos::subview(bigB, std::make_pair(std::int64_t(0), br), Kokkos::ALL);
  auto C = make_matrix<TC, Kokkos::LayoutLeft>("C", m, n);
  fill_random(bigA, seed), fill_random(bigB, seed + 1), fill_random(C, seed + 2);
  const HostMatrix hA = to_host(A), hB = to_host(B), hC0 = to_host(C);
  const auto a = detail::strided_op(A, kAFastM ? detail::Trans::N : detail::Trans::T);
  const auto b = detail::strided_op(B, kBFastN ? detail::Trans::T : detail::Trans::N);
  const detail::Strided2D<const T> ac_{a.data, a.rows, a.cols, a.rs, a.cs},
      bc_{b.data, b.rows, b.cols, b.rs, b.cs};
  ASSERT_EQ(detail::rows_contiguous(ac_), kAFastM);
  ASSERT_EQ(detail::rows_contiguous(bc_), !kBFastN);
  if (detail::AsyncEntry<Cfg>::value) ASSERT_TRUE(detail::packet_staging_applies<Kernel>(ac_, bc_));
  detail::launch_gemm<Kernel>(Exec(), ac_, bc_, detail::strided_op(C, detail::Trans::N), S(0.7), S(-0.4),
                              detail::gemm_k_split<Kernel>(Exec(), m, n, k));
  Kokkos::fence();
  const Tolerance tol = tolerance_of<T, TC>();
  const auto want =
      reference_gemm(transpose_if(hA, !kAFastM), transpose_if(hB, kBFastN), hC0, 0.7, -0.4, tol.acc, tol.out);
  EXPECT_TRUE(matches(to_host(C), want))
      << (detail::AsyncEntry<Cfg>::value ? "async" : "registers") << " kAFastM=" << kAFastM
      << " kBFastN=" << kBFastN << " " << m << "x" << n << "x" << k;
}

// Every orientation (A m- or k-contiguous, B n- or k-contiguous) of each M x N x K shape, seeds
// counting on from `seed`.
template <class Cfg, class T, class TC, std::size_t kShapes>
void run_mma_tiles_every_orientation(const std::array<std::int64_t, 3> (&shapes)[kShapes],
                                     std::uint64_t seed) {
  for (const auto& s : shapes) {
    run_mma_tiles<Cfg, true, false, T, TC>(s[0], s[1], s[2], seed += 3);
    run_mma_tiles<Cfg, false, true, T, TC>(s[0], s[1], s[2], seed += 3);
    run_mma_tiles<Cfg, true, true, T, TC>(s[0], s[1], s[2], seed += 3);
    run_mma_tiles<Cfg, false, false, T, TC>(s[0], s[1], s[2], seed += 3);
  }
}

#if RIDGELINE_TEST_DMMA_TILES
template <class Cfg>
void run_dmma_tiles_all() {
  // 32x16x16 tiles: 71x37x83 leaves tails of 7, 5 and 3, and odd extents; 5 K steps, more than the
  // stages in flight. 20x9x5 is a single partial tile and a single partial K step.
  const std::array<std::int64_t, 3> shapes[] = {{71, 37, 83}, {20, 9, 5}, {64, 32, 48}};
  run_mma_tiles_every_orientation<Cfg, double, double>(shapes, 9100);
}

TEST(GemmDmma, RegisterStaging) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 2, false>>();
}
TEST(GemmDmma, AsyncStagingThreeStages) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 3, true>>();
}
TEST(GemmDmma, AsyncStagingSteadyLoop) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 3, true, true>>();
}
TEST(GemmDmma, AsyncStagingSteadyLoopCopiesAfter) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 4, true, true, true>>();
}
TEST(GemmDmma, AsyncStagingTwoStagesWideWarps) {
  run_dmma_tiles_all<DmmaTiles<64, 32, 32, 16, 2, true>>();
}

// Pairs (dmma_pairs, dmma_sm90.hpp): permuted rows, k and columns, 16-byte fragment reads, swizzled m- and
// n-lines. The table runs them for NN only, but every orientation must compute correctly: 8-byte reads where
// pairs do not fit, and n-contiguous B through the swizzle's odd-block offsets (32x16 warps: two 8-column
// blocks).
TEST(GemmDmma, PairsSteadyLoop) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 3, true, true, false, 16, false, 16, true>>();
}
TEST(GemmDmma, PairsTwoStagesWideWarps) {
  run_dmma_tiles_all<DmmaTiles<64, 32, 32, 16, 2, true, false, false, 16, false, 16, true>>();
}
TEST(GemmDmma, PairsRegisterStaging) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 2, false, false, false, 16, false, 16, true>>();
}
TEST(GemmDmma, PairsEntryTiles) {
  run_dmma_tiles_all<backends::cuda::GemmTilesFp64DmmaPairs>();
}

// m16n8k8 instructions, in mac_in's loop and in the slice-at-a-time loop (two and four stages here, three on
// the table's tiles below; K steps of two and four slices): 71x37x83 has 5 (or 3) K steps and a tail, 20x9x5
// a single partial step.
TEST(GemmDmma, K8InstructionsOneMacPerStep) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 3, true, false, false, 8>>();
}
TEST(GemmDmma, K8FragmentsAcrossStepsTwoStages) {
  run_dmma_tiles_all<DmmaTiles<32, 16, 16, 8, 2, true, false, false, 8, true>>();
}
TEST(GemmDmma, K8FragmentsAcrossStepsFourStagesK32) {
  run_dmma_tiles_all<DmmaTiles<64, 32, 32, 16, 4, true, false, false, 8, true, 32>>();
}
// The slice loop on the table's tiles (DmmaAcrossEntry, a candidate for k-contiguous op(A)).
struct DmmaSlicesEntry : backends::cuda::DmmaAcrossEntry<DmmaSlicesEntry, 128, 64, 64, 32, 3, 2> {};
TEST(GemmDmma, SliceLoopEntryTiles) {
  run_dmma_tiles_all<DmmaSlicesEntry>();
}

TEST(GemmDmma, SmallTileEntry) {
  run_dmma_tiles_all<backends::cuda::GemmTilesFp64DmmaSmall>();
}
// The short-K small tiles, whose epilogue stores alpha 1 / beta 0 products as summed (store_as_summed); with
// alpha 0.7 and beta -0.4 here, its other path (SmallTileEntryThroughGemm runs alpha 1, beta 0 on them).
TEST(GemmDmma, ShortTileEntry) {
  run_dmma_tiles_all<backends::cuda::GemmTilesFp64DmmaShort>();
}
#endif  // RIDGELINE_TEST_DMMA_TILES

// The small-tile entry through ridgeline::gemm, on a shape this device runs on it: three tile rows of
// the packet entry over one tile column more than its team slots, so three whole waves and a last one
// of three tiles; tails in M, N and K, every transpose pair, beta zero (C poisoned) and not, alpha 1 with
// beta 0 (the plain product), and a bit-identical rerun.
TEST(GemmDmma, SmallTileEntryThroughGemm) {
  using Big = detail::GemmPacketCfg<Exec, double>;
  const std::int64_t cu = detail::ComputeUnits<detail::Backend<Exec, double>, Exec>::of(Exec());
  const std::int64_t slots = cu * Big::min_blocks;
  // Even extents keep every leading dimension whole packets (fp64), so the packet entries apply.
  const std::int64_t m = 2 * Big::bm + 6, n = slots * Big::bn + 8, k = 38;
  std::uint64_t seed = 9400;
  for (const char* t : {"NN", "NT", "TN", "TT"}) {
    for (const auto& [alpha, beta] : {std::pair{0.7, 0.0}, std::pair{0.7, 0.5}, std::pair{1.0, 0.0}}) {
      const GemmCase c{m, n, k, t[0], t[1], Lay::left, Lay::left, Lay::left, alpha, beta, Dt::f64, seed += 3};
      auto A = make_matrix<double, Kokkos::LayoutLeft>("A", t[0] == 'T' ? k : m, t[0] == 'T' ? m : k);
      auto B = make_matrix<double, Kokkos::LayoutLeft>("B", t[1] == 'T' ? n : k, t[1] == 'T' ? k : n);
      EXPECT_EQ(
          gemm_tile_config(Exec(), std::string(1, t[0]).c_str(), std::string(1, t[1]).c_str(), A, B).entry,
          "small tiles")
          << t << " " << m << "x" << n << "x" << k;
      run(c);
    }
  }
  rerun_is_bit_identical<double>(m, n, k, 9450);
}

// The first short-K entry of the table (when::depth_at_most), where it lists one: NN 4096 x 4096 at its
// greatest K plans on it, one packet deeper does not (packets kept: LayoutLeft leading dimensions of whole
// packets). On CUDA, fp32's small tiles up to K 192 and fp64's (DMMA) up to 256, before the fp64 pairs
// entry's waves. Plans only.
template <class W, class = void>
struct ShortDepthOf : std::integral_constant<int, 0> {};
template <class W>
struct ShortDepthOf<W, std::void_t<decltype(W::max_k)>> : std::integral_constant<int, W::max_k> {};
template <class T>
void expect_short_depth_bounds() {
  using L = detail::GemmEntriesOf<Exec, T>;
  int first = -1, depth = 0;
  for (int i = 0; i < L::size && first < 0; ++i) {
    L::visit(i, [&](auto e) {
      constexpr int d = ShortDepthOf<typename decltype(e)::When>::value;
      if (d > 0) first = i, depth = d;
    });
  }
  if (first < 0) GTEST_SKIP() << "no short-K entry in this table";
  const std::int64_t n = 4096, w = 16 / sizeof(T);
  const auto plan = [&](std::int64_t k) {
    return detail::gemm_plan(Exec(), detail::Strided2D<const T>{nullptr, n, k, 1, n},
                             detail::Strided2D<const T>{nullptr, k, n, 1, k});
  };
  EXPECT_EQ(plan(depth).entry, first) << "K " << depth;
  EXPECT_EQ(plan(w).entry, first) << "K " << w;
  EXPECT_NE(plan(depth + w).entry, first) << "K " << depth + w;
}
TEST(GemmPlan, ShortDepthEntryBoundsFloat) {
  expect_short_depth_bounds<float>();
}
TEST(GemmPlan, ShortDepthEntryBoundsDouble) {
  expect_short_depth_bounds<double>();
}

// CUDA fp32 NN products of a full wave of the packet entry's 128 x 128 tiles or more and K up to max_nn_depth
// run the 64 x 128 tiles (tile_table.hpp, GemmTilesFp32Narrow): 16 tile rows and columns for just under a
// wave, then just over, K just inside and outside; other orientations keep the packet entry. Plans only, on
// this device's SMs.
TEST(GemmPlan, Fp32NnFromOneWaveOnNarrowTiles) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    using P = backends::cuda::GemmTilesFp32Packets;
    const std::int64_t slots =
        detail::ComputeUnits<detail::Backend<Exec, float>, Exec>::of(Exec()) * P::min_blocks;
    const std::int64_t m = 16 * P::bm, k = 1024, inside = (slots - 1) / 16 * P::bn,
                       over = (slots + 15) / 16 * P::bn;
    EXPECT_EQ(entry_of<float>('N', 'N', m, inside, k), "packets") << m << "x" << inside;
    EXPECT_EQ(entry_of<float>('N', 'N', m, over, k), "narrow") << m << "x" << over;
    // Deeper than max_nn_depth: the packet entry again.
    using N = backends::cuda::GemmTilesFp32Narrow;
    EXPECT_EQ(entry_of<float>('N', 'N', m, over, N::max_nn_depth), "narrow") << N::max_nn_depth;
    EXPECT_EQ(entry_of<float>('N', 'N', m, over, N::max_nn_depth + 4), "packets") << N::max_nn_depth + 4;
    EXPECT_EQ(entry_of<float>('N', 'N', 8192, 8192, 8192), "packets");
    EXPECT_EQ(entry_of<float>('T', 'N', m, over, k), "packets");
    EXPECT_EQ(entry_of<float>('N', 'T', m, over, k), "packets");
    EXPECT_EQ(entry_of<float>('T', 'T', m, over, k), "packets");
    return;
  }
#endif
  GTEST_SKIP() << "a CUDA table rule";
}

// CUDA fp64 products whose 64 x 32 tiles fill under max_wave_percent of a wave of their slots, K up to
// max_depth, run those tiles (tile_table.hpp, GemmTilesFp64DmmaFewColumns) in their entry's split (one slice
// for 256^3); more tiles, or a deeper K, do not. Plans only, on this device's SMs; and one such product run
// against the reference in every orientation.
TEST(GemmPlan, Fp64UnderAWaveOnFewColumnTiles) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    using F = backends::cuda::GemmTilesFp64DmmaFewColumns;
    const std::int64_t cu = detail::ComputeUnits<detail::Backend<Exec, double>, Exec>::of(Exec());
    const std::int64_t slots = cu * F::min_blocks;
    const auto plan = [](std::int64_t m, std::int64_t n, std::int64_t k) {
      return gemm_tile_config(Exec(), "N", "N", plan_only_view<double>(m, k), plan_only_view<double>(k, n));
    };
    const detail::GemmEntryParams p = detail::entry_params<detail::GemmEntry<F, detail::when::packets>>();
    for (const auto& [m, n, k] : std::vector<std::array<std::int64_t, 3>>{
             {256, 256, 256}, {384, 384, 384}, {384, 384, F::max_depth}}) {
      const TileConfig c = plan(m, n, k);
      EXPECT_EQ(c.bm, F::bm) << m << "x" << n << "x" << k;
      EXPECT_EQ(c.bn, F::bn) << m << "x" << n << "x" << k;
      EXPECT_EQ(c.k_slices, detail::plan_k_split(p, m, n, k, cu, sizeof(double)).slices)
          << m << "x" << n << "x" << k;
    }
    EXPECT_EQ(plan(256, 256, 256).k_slices, 1);
    // Just under the share of a wave in tiles (16 rows of tiles), and one column of tiles more; one K step
    // deeper than max_depth.
    const std::int64_t under = (F::max_wave_percent * slots - 1) / 100 / 16;
    EXPECT_EQ(plan(16 * F::bm, under * F::bn, 512).bn, F::bn) << under;
    EXPECT_NE(plan(16 * F::bm, (under + 1) * F::bn, 512).bn, F::bn) << under + 1;
    EXPECT_NE(plan(384, 384, F::max_depth + 16).bn, F::bn);
    std::uint64_t seed = 9400;
    for (const char* t : {"NN", "NT", "TN", "TT"})
      for (double beta : {0.0, 0.5})
        run({300, 260, 200, t[0], t[1], Lay::left, Lay::left, Lay::left, -0.75, beta, Dt::f64, seed += 3});
    return;
  }
#endif
  GTEST_SKIP() << "a CUDA table rule";
}

// CUDA fp64 products whose 32 x 64 tiles fill min_wave_percent to max_wave_percent of a wave of their slots,
// K up to max_depth, run those tiles in K steps of 32 (tile_table.hpp, GemmTilesFp64DmmaK32), one slice;
// fewer or more tiles, or a deeper K, do not. Plans only, on this device's SMs; and such products run
// against the reference in every orientation, K a multiple of 32 and not.
TEST(GemmPlan, Fp64HalfAWaveOnK32Tiles) {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
    using F = backends::cuda::GemmTilesFp64DmmaK32;
    const std::int64_t cu = detail::ComputeUnits<detail::Backend<Exec, double>, Exec>::of(Exec());
    const std::int64_t slots = cu * F::min_blocks;
    const auto plan = [](std::int64_t m, std::int64_t n, std::int64_t k) {
      return gemm_tile_config(Exec(), "N", "N", plan_only_view<double>(m, k), plan_only_view<double>(k, n));
    };
    // 16 rows of tiles and just enough columns of them for min_wave_percent, and just under max_wave_percent.
    const std::int64_t low = (F::min_wave_percent * slots + 16 * 100 - 1) / (16 * 100);
    const std::int64_t high = (F::max_wave_percent * slots - 1) / 100 / 16;
    ASSERT_LE(low, high);
    for (const std::int64_t cols : {low, high}) {
      const TileConfig c = plan(16 * F::bm, cols * F::bn, 512);
      EXPECT_EQ(c.bm, F::bm) << cols;
      EXPECT_EQ(c.bn, F::bn) << cols;
      EXPECT_EQ(c.bk, F::bk) << cols;
      EXPECT_EQ(c.k_slices, 1) << cols;
    }
    EXPECT_NE(plan(16 * F::bm, (low - 1) * F::bn, 512).bk, F::bk) << low - 1;
    EXPECT_NE(plan(16 * F::bm, (high + 1) * F::bn, 512).bk, F::bk) << high + 1;
    EXPECT_NE(plan(16 * F::bm, high * F::bn, F::max_depth + 32).bk, F::bk);
    std::uint64_t seed = 9500;
    // Edge tiles in both directions; even m and n keep every column 16-byte aligned (packets).
    const std::int64_t m = 16 * F::bm - 6, n = high * F::bn - 2;
    ASSERT_EQ(plan(m, n, 300).bk, F::bk);
    for (const char* t : {"NN", "NT", "TN", "TT"})
      for (const std::int64_t k : {std::int64_t(300), std::int64_t(F::max_depth)})
        for (double beta : {0.0, 0.5})
          run({m, n, k, t[0], t[1], Lay::left, Lay::left, Lay::left, -0.75, beta, Dt::f64, seed += 3});
    return;
  }
#endif
  GTEST_SKIP() << "a CUDA table rule";
}

// The table's fp64 entries through ridgeline::gemm: split-K (few tiles, deep K) on the packet
// entry, and a bit-identical rerun of it.
TEST(GemmDmma, TableEntriesSplitKAndRerun) {
  const TileConfig packets = gemm_tile_config<Exec, double>(true);
  EXPECT_EQ(packets.micro_kernel, "dmma-m16n8k16-pairs");  // the first packet entry: NN's
  EXPECT_EQ((gemm_tile_config<Exec, double>(false).micro_kernel), "dmma-m16n8k16");
  using L = Kokkos::LayoutLeft;
  {
    // 8192^2 x 2064 fills 31 waves of 128 x 64 tiles, deeper than the small entry's 2048: NN runs the pairs
    // entry, the other orientations the plain one. Plans only.
    const std::int64_t n = 8192, k = 2064;
    const auto A = plan_only_view<double>(n, k), At = plan_only_view<double>(k, n);
    const auto B = plan_only_view<double>(k, n), Bt = plan_only_view<double>(n, k);
    EXPECT_EQ(gemm_tile_config(Exec(), "N", "N", A, B).micro_kernel, "dmma-m16n8k16-pairs");
    EXPECT_EQ(gemm_tile_config(Exec(), "N", "T", A, Bt).micro_kernel, "dmma-m16n8k16");
    EXPECT_EQ(gemm_tile_config(Exec(), "T", "N", At, B).micro_kernel, "dmma-m16n8k16");
    EXPECT_EQ(gemm_tile_config(Exec(), "T", "T", At, Bt).micro_kernel, "dmma-m16n8k16");
  }
  {
    // 4096^3: 2048 tiles of 128 x 64, under 8 waves: NN runs the pairs entry from 4 waves up, peeled like a
    // packet entry; the other orientations the small tiles.
    const std::int64_t n = 4096;
    const auto A = plan_only_view<double>(n, n), B = plan_only_view<double>(n, n);
    const TileConfig nn = gemm_tile_config(Exec(), "N", "N", A, B),
                     tn = gemm_tile_config(Exec(), "T", "N", A, B);
    EXPECT_EQ(nn.entry, "packets");
    EXPECT_EQ(nn.micro_kernel, "dmma-m16n8k16-pairs");
    EXPECT_EQ(tn.entry, "small tiles");
    EXPECT_EQ(tn.micro_kernel, "dmma-m16n8k16");
  }
  few_tiles_case<double, L, L>('N', 'N', 128, 256, reduced() ? 1024 : 4096, 0.5, 9301, true);
  few_tiles_case<double, L, L>('T', 'T', 130, 250, reduced() ? 1001 : 4001, 0.0, 9304, true);
  rerun_is_bit_identical<double>(128, 256, reduced() ? 1024 : 4096, 9307);
  rerun_is_bit_identical<double>(1000, 1000, 1000, 9310);
}

// ---- the HMMA micro-kernel (FP16/BF16 in, FP32 accumulate), on small tiles with tails -----------
// As for DMMA: every orientation (ldmatrix reads k-major scratch with .trans and k-contiguous scratch
// as it is), M, N and K tails, a single partial tile, and both output types.
template <int kBm, int kBn, int kWm, int kWn, int kBk, int kStages, bool kAsync, bool kSteady = false,
          bool kAcross = false>
struct HmmaTiles : AsyncStagingOf<kAsync> {
  static constexpr bool steady_loop = kSteady, copies_after_products = kSteady;
  static constexpr bool fragments_across_steps = kAcross;
  static constexpr int bm = kBm, bn = kBn, bk = kBk;
  static constexpr int warp_m = kWm, warp_n = kWn, tm = kWm / 8, tn = kWn / 4;
  static constexpr int pad_a = 8, pad_b = 8, pad_k = 8;
  static constexpr int team_size = (kBm / kWm) * (kBn / kWn) * 32, vector_length = 1, stages = kStages;
  static constexpr int min_blocks = 1, scratch_level = 0, group_m = 2;
  template <class T, class Acc>
  using micro_kernel = backends::cuda::HmmaSm80MicroKernel<HmmaTiles, T, Acc>;
};

template <class Cfg, class T, class TC>
void run_hmma_tiles_all() {
  // 32x32x16 tiles: 71x37x83 leaves tails of 7, 5 and 3 (64x32x32: 7, 5, 19); 20x9x5 is one partial
  // tile and K step.
  const std::array<std::int64_t, 3> shapes[] = {{71, 37, 83}, {20, 9, 5}, {64, 64, 96}};
  run_mma_tiles_every_orientation<Cfg, T, TC>(shapes, 9500);
}

using HmmaRegisters = HmmaTiles<32, 32, 16, 16, 16, 2, false>;
using HmmaAsync = HmmaTiles<64, 32, 32, 16, 32, 3, true>;
using HmmaAsyncWide = HmmaTiles<64, 64, 32, 32, 32, 2, true>;
// The steady loop with each step's copies after its products (the table's entry before 2026-12-04).
using HmmaAsyncSteady = HmmaTiles<64, 64, 32, 32, 16, 3, true, true>;
// As the table's entry: k16 slices, the next one's fragments loaded across the K steps' barriers.
using HmmaAsyncAcross = HmmaTiles<64, 64, 32, 32, 32, 3, true, false, true>;
TEST(GemmHmma, RegisterStagingHalfToFloat) {
  run_hmma_tiles_all<HmmaRegisters, half_t, float>();
}
TEST(GemmHmma, RegisterStagingBf16) {
  run_hmma_tiles_all<HmmaRegisters, bhalf_t, bhalf_t>();
}
TEST(GemmHmma, AsyncStagingHalf) {
  run_hmma_tiles_all<HmmaAsync, half_t, half_t>();
}
TEST(GemmHmma, AsyncStagingBf16ToFloat) {
  run_hmma_tiles_all<HmmaAsync, bhalf_t, float>();
}
TEST(GemmHmma, AsyncStagingSteadyLoopHalfToFloat) {
  // 64x64x16 tiles: 130x71x83 has two interior tiles among edge tiles, five whole K steps then a tail,
  // so one launch runs both loops; 64x64x96 is one interior tile, all steps whole.
  const std::array<std::int64_t, 3> shapes[] = {{130, 71, 83}, {64, 64, 96}};
  run_mma_tiles_every_orientation<HmmaAsyncSteady, half_t, float>(shapes, 9550);
}
TEST(GemmHmma, AsyncStagingFragmentsAcrossStepsHalfToFloat) {
  // 64x64x32 tiles, three stages: 130x71x83 has interior and edge tiles and a K tail after two whole
  // steps; 64x64x224 is one interior tile of seven whole steps, four of them in the slice loop's
  // unchecked part; 20x9x5 is one partial tile and K step.
  const std::array<std::int64_t, 3> shapes[] = {{130, 71, 83}, {64, 64, 224}, {20, 9, 5}};
  run_mma_tiles_every_orientation<HmmaAsyncAcross, half_t, float>(shapes, 9560);
}
TEST(GemmHmma, AsyncStagingFragmentsAcrossStepsBf16) {
  const std::array<std::int64_t, 3> shapes[] = {{130, 71, 83}, {64, 64, 224}};
  run_mma_tiles_every_orientation<HmmaAsyncAcross, bhalf_t, bhalf_t>(shapes, 9570);
}
TEST(GemmHmma, AsyncStagingWideWarpsHalfToFloat) {
  run_hmma_tiles_all<HmmaAsyncWide, half_t, float>();
}

// The table's 16-bit entries through ridgeline::gemm: the tensor-core micro-kernel on both paths,
// split-K, and bit-identical reruns.
TEST(GemmHmma, TableEntriesSplitKAndRerun) {
  // The packet entry is wgmma's in builds through the sm_90a route.
  EXPECT_EQ((gemm_tile_config<Exec, half_t>(true).micro_kernel),
            backends::cuda::wgmma::kBuiltWithSm90a ? "wgmma-m64n256k16" : "hmma-m16n8k16");
  EXPECT_EQ((gemm_tile_config<Exec, bhalf_t>(false).micro_kernel), "hmma-m16n8k16");
  EXPECT_TRUE((gemm_tile_config<Exec, half_t>(true).matrix_unit));
  using L = Kokkos::LayoutLeft;
  // Split-K keeps 16 K steps per slice: K must reach 32 steps of the entry (BK 64) in every run.
  few_tiles_case<half_t, L, L, float>('N', 'N', 128, 256, 4096, 0.5, 9601, true);
  few_tiles_case<bhalf_t, L, L, bhalf_t>('T', 'T', 130, 250, 4001, 0.0, 9604, true);
  // At most 64 rows: the narrow entry, split K.
  EXPECT_EQ((gemm_tile_config(Exec(), "N", "N",
                              Kokkos::View<half_t**, L, Mem>(static_cast<half_t*>(nullptr), 64, 4096),
                              Kokkos::View<half_t**, L, Mem>(static_cast<half_t*>(nullptr), 4096, 512))
                 .bm),
            (detail::GemmNarrowCfg<Exec, half_t>::bm));
  few_tiles_case<half_t, L, L, float>('N', 'N', 64, 512, 4096, 0.3, 9605, true);
  few_tiles_case<bhalf_t, L, L, float>('N', 'T', 37, 520, 4096, 0.0, 9606, true);
  rerun_is_bit_identical<half_t, float>(128, 256, reduced() ? 1024 : 4096, 9607);
  rerun_is_bit_identical<bhalf_t, float>(1000, 1000, 1000, 9610);
}

// ---- the wgmma micro-kernel (sm_90a route only), on small tiles with tails ------------------------
// Every orientation stages its own layout: MN-major (a column-major A, a row-major B) or K-major, in
// the 128-byte swizzle the descriptors name; M, N and K tails (the K tail is zero-filled), a single
// partial tile, more K steps than stages (the products of one step still run while the next is
// staged), one and two warpgroups along M and N, and both output types.
#if RIDGELINE_HAVE_SM90A
template <int kBm, int kBn, int kWm, int kWn, int kStages, int kBk = 64, bool kProductsFirst = false>
struct WgmmaTiles {
  static constexpr int bm = kBm, bn = kBn, bk = kBk;
  static constexpr bool products_first = kProductsFirst;
  static constexpr int warp_m = kWm, warp_n = kWn, tm = kWm / 32, tn = kWn / 4;
  static constexpr int pad_a = 0, pad_b = 0, pad_k = 0;
  static constexpr int team_size = (kBm / kWm) * (kBn / kWn) * 128, vector_length = 1, stages = kStages;
  static constexpr int min_blocks = 1, scratch_level = 0, group_m = 2;
  using async_copy = backends::cuda::AsyncCopyToAsyncProxy;
  template <class T, class Acc>
  using micro_kernel = backends::cuda::WgmmaSm90aMicroKernel<WgmmaTiles, T, Acc>;
};

template <class Cfg, class T, class TC>
void run_wgmma_tiles_all() {
  // 64x64x64 tiles: 71x37x83 leaves tails of 7, 37 and 19 with two K steps; 20x9x5 is one partial
  // tile and K step; 130x200x300 has five K steps, more than the stages.
  const std::array<std::int64_t, 3> shapes[] = {{71, 37, 83}, {20, 9, 5}, {130, 200, 300}};
  run_mma_tiles_every_orientation<Cfg, T, TC>(shapes, 9700);
}

TEST(GemmWgmma, OneWarpgroupHalfToFloat) {
  run_wgmma_tiles_all<WgmmaTiles<64, 64, 64, 64, 3>, half_t, float>();
}
TEST(GemmWgmma, OneWarpgroupBf16) {
  run_wgmma_tiles_all<WgmmaTiles<64, 64, 64, 64, 3>, bhalf_t, bhalf_t>();
}
TEST(GemmWgmma, TwoWarpgroupsAlongMHalf) {
  run_wgmma_tiles_all<WgmmaTiles<128, 64, 64, 64, 4>, half_t, half_t>();
}
TEST(GemmWgmma, TwoWarpgroupsAlongNBf16ToFloat) {
  run_wgmma_tiles_all<WgmmaTiles<64, 256, 64, 128, 3>, bhalf_t, float>();
}
TEST(GemmWgmma, TallWarpgroupTileHalfToFloat) {
  run_wgmma_tiles_all<WgmmaTiles<128, 128, 128, 128, 3>, half_t, float>();
}
// K steps of 32 (K-major operands in the 64-byte swizzle), products issued before the copies.
TEST(GemmWgmma, ShortKStepsProductsFirstBf16ToFloat) {
  run_wgmma_tiles_all<WgmmaTiles<128, 128, 64, 128, 5, 32, true>, bhalf_t, float>();
}
TEST(GemmWgmma, ProductsFirstHalf) {
  run_wgmma_tiles_all<WgmmaTiles<64, 128, 64, 128, 3, 64, true>, half_t, half_t>();
}

// The TMA team kernel (gemm_team_tma_sm90a.hpp): a producer warpgroup stages boxes, which TMA cuts
// at the operand's edges (zeros outside), and the consumers hand stages back through mbarriers.
// The same shapes and orientations: MN-major operands land as 64-row boxes, K-major ones as
// 128-byte columns; 130x200x300 runs five K steps through two and three stages.
template <int kBm, int kBn, int kWm, int kWn, int kStages>
struct WgmmaTmaTiles : backends::cuda::WgmmaTmaEntry<WgmmaTmaTiles<kBm, kBn, kWm, kWn, kStages>, kBm, kBn, 64,
                                                     kWm, kWn, kStages, 1, 2> {};
TEST(GemmWgmmaTma, OneConsumerHalfToFloat) {
  run_wgmma_tiles_all<WgmmaTmaTiles<64, 64, 64, 64, 3>, half_t, float>();
}
TEST(GemmWgmmaTma, TwoStagesTwoConsumersAlongMBf16) {
  run_wgmma_tiles_all<WgmmaTmaTiles<128, 64, 64, 64, 2>, bhalf_t, bhalf_t>();
}
TEST(GemmWgmmaTma, TableGeometryHalf) {
  run_wgmma_tiles_all<WgmmaTmaTiles<128, 256, 64, 256, 4>, half_t, half_t>();
}
TEST(GemmWgmmaTma, TwoConsumersAlongNBf16ToFloat) {
  run_wgmma_tiles_all<WgmmaTmaTiles<64, 256, 64, 128, 3>, bhalf_t, float>();
}
#endif
#endif

}  // namespace
}  // namespace ridgeline::test
