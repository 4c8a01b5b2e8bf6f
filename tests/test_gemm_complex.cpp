// Complex GEMM (Kokkos::complex<float>: CGEMM, Kokkos::complex<double>: ZGEMM) correctness, written once
// for both types and compiled into test_gemm for every enabled backend. Its own translation unit, with a
// chosen set of layout instantiations rather than the real suite's cross product, to keep CI's compile
// time down. Every case checks every element of C against a complex long double reference
// (complex_reference.hpp, whose bound (2K + 8) eps (|alpha| sum |a||b| + |beta||c|) says why it holds).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cmath>
#include <limits>
#include <ridgeline/ridgeline.hpp>
#include <string>
#include <vector>

#include "complex_reference.hpp"

// A complex product that runs as a real one (gemm_complex_as_real.hpp) calls the real dispatch. Compiled
// again here it cost about 94 s of CPU per backend. libridgeline holds it (detail/instances.hpp); in a build
// without the instances (RIDGELINE_DISPATCH_INSTANCES=OFF: CI's HIP step) test_gemm.cpp, which compiles it
// anyway, holds the one instantiation (its explicit definitions).
#if !RIDGELINE_HAVE_DISPATCH_INSTANCES
extern template void ridgeline::detail::gemm_dispatch<ridgeline::test::Exec, float, float>(
    const ridgeline::test::Exec&, const ridgeline::detail::Strided2D<const float>&,
    const ridgeline::detail::Strided2D<const float>&, const ridgeline::detail::Strided2D<float>&, float,
    float, bool, bool);
extern template void ridgeline::detail::gemm_dispatch<ridgeline::test::Exec, double, double>(
    const ridgeline::test::Exec&, const ridgeline::detail::Strided2D<const double>&,
    const ridgeline::detail::Strided2D<const double>&, const ridgeline::detail::Strided2D<double>&, double,
    double, bool, bool);
#endif

namespace ridgeline::test {
namespace {

struct ZGemmCase {
  std::int64_t m, n, k;
  char ta, tb;
  Lay la, lb, lc;
  Cld alpha, beta;
  Zt zt;
  std::uint64_t seed;
};

std::string describe(const ZGemmCase& c) {
  std::ostringstream s;
  s << name(c.zt) << "gemm " << c.ta << c.tb << " " << c.m << "x" << c.n << "x" << c.k << " layouts "
    << name(c.la) << name(c.lb) << name(c.lc) << " alpha=" << c.alpha << " beta=" << c.beta;
  return s.str();
}
void PrintTo(const ZGemmCase& c, std::ostream* os) {
  *os << describe(c);
}

template <class Z>
Z to_z(Cld v) {
  using R = typename Z::value_type;
  return Z(static_cast<R>(v.real()), static_cast<R>(v.imag()));
}
// v as the kernel sees it: rounded to Z's parts.
template <class Z>
Cld as_seen(Cld v) {
  const Z z = to_z<Z>(v);
  return Cld(z.real(), z.imag());
}

template <class Z, class LA, class LB, class LC>
void run_gemm(const ZGemmCase& c) {
  const bool ta = c.ta != 'N', tb = c.tb != 'N';
  auto A = make_matrix<Z, LA>("A", ta ? c.k : c.m, ta ? c.m : c.k);
  auto B = make_matrix<Z, LB>("B", tb ? c.n : c.k, tb ? c.k : c.n);
  auto C = make_matrix<Z, LC>("C", c.m, c.n);
  fill_random_complex(A, c.seed * 3 + 1);
  fill_random_complex(B, c.seed * 3 + 2);
  // beta == 0: C is pure output, poisoned with NaN; otherwise an input with random data.
  if (c.beta == Cld(0)) {
    fill_value(C, complex_poison<Z>());
  } else {
    fill_random_complex(C, c.seed * 3 + 3);
  }
  const CMatrix hA = to_host_complex(A), hB = to_host_complex(B), hC0 = to_host_complex(C);
  const char tra[2] = {c.ta, 0}, trb[2] = {c.tb, 0};
  ridgeline::gemm(Exec(), tra, trb, to_z<Z>(c.alpha), A, B, to_z<Z>(c.beta), C);
  Kokkos::fence();
  const auto want = reference_gemm_complex(op_of(hA, c.ta), op_of(hB, c.tb), hC0, as_seen<Z>(c.alpha),
                                           as_seen<Z>(c.beta), eps_of_complex<Z>());
  EXPECT_TRUE(matches_complex(to_host_complex(C), want)) << describe(c);
}

// The layout mixes instantiated here: the three uniform ones and two mixed ones in which each operand
// takes each layout once (LayoutStride has non-unit strides in both indices, make_matrix).
template <class Z>
void run_layouts(const ZGemmCase& c) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  const auto key = std::string(name(c.la)) + name(c.lb) + name(c.lc);
  if (key == "LLL") return run_gemm<Z, L, L, L>(c);
  if (key == "RRR") return run_gemm<Z, R, R, R>(c);
  if (key == "SSS") return run_gemm<Z, S, S, S>(c);
  if (key == "LRS") return run_gemm<Z, L, R, S>(c);
  if (key == "RSL") return run_gemm<Z, R, S, L>(c);
  FAIL() << "no instantiation for layouts " << key;
}

void run(const ZGemmCase& c) {
  with_complex(c.zt, [&](auto z) { run_layouts<decltype(z)>(c); });
}

constexpr Zt kBoth[] = {Zt::c, Zt::z};
const Cld kAlpha(-1.5, 0.75), kBeta(0.3, -0.6);

// ---- shapes: tiny, awkward, tails, tile multiples and one off ------------------------------------
std::vector<ZGemmCase> shape_cases() {
  std::vector<std::array<std::int64_t, 3>> shapes = {
      {0, 5, 7}, {5, 0, 7}, {5, 7, 0},    {1, 1, 1},      {7, 7, 7},    {1, 7, 7},
      {7, 1, 7}, {7, 7, 1}, {13, 15, 17}, {179, 15, 211}, {3, 2, 1000}, {150, 140, 300}};
  // Multiples of this backend's complex tiles, and one off each way.
  for (const auto& t : {gemm_tile_config<Exec, Zf>(), gemm_tile_config<Exec, Zd>()}) {
    shapes.push_back({2 * t.bm, 2 * t.bn, 2 * t.bk});
    shapes.push_back({2 * t.bm + 1, 2 * t.bn - 1, 2 * t.bk + 1});
    shapes.push_back({2 * t.bm - 1, 2 * t.bn + 1, 2 * t.bk - 1});
  }
  std::vector<ZGemmCase> cases;
  std::uint64_t seed = 5100;
  for (const auto& s : shapes)
    for (Zt zt : kBoth)
      cases.push_back(
          {s[0], s[1], s[2], 'N', 'N', Lay::left, Lay::left, Lay::left, kAlpha, kBeta, zt, seed++});
  return cases;
}
class ComplexGemmShapes : public ::testing::TestWithParam<ZGemmCase> {};
TEST_P(ComplexGemmShapes, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, ComplexGemmShapes, ::testing::ValuesIn(shape_cases()));

// ---- every pair of N, T and C against every layout mix --------------------------------------------
std::vector<ZGemmCase> trans_layout_cases() {
  const Lay mixes[][3] = {{Lay::left, Lay::left, Lay::left},
                          {Lay::right, Lay::right, Lay::right},
                          {Lay::stride, Lay::stride, Lay::stride},
                          {Lay::left, Lay::right, Lay::stride},
                          {Lay::right, Lay::stride, Lay::left}};
  std::vector<ZGemmCase> cases;
  std::uint64_t seed = 5300;
  for (const char* t : {"NN", "NT", "NC", "TN", "TT", "TC", "CN", "CT", "CC"}) {
    for (const auto& mix : mixes)
      for (Zt zt : kBoth)
        // K = 300 crosses every backend's K step with a tail; 37 x 29 is under one GPU tile.
        cases.push_back({37, 29, 300, t[0], t[1], mix[0], mix[1], mix[2], kAlpha, kBeta, zt, seed++});
    // Interior tiles on every backend (the host's complex tile is 64 x 64), so the unchecked staging
    // paths conjugate too, with unit and non-unit strides.
    for (int mix : {0, 2})
      for (Zt zt : kBoth)
        cases.push_back({150, 140, 300, t[0], t[1], mixes[mix][0], mixes[mix][1], mixes[mix][2], kAlpha,
                         Cld(0), zt, seed++});
  }
  return cases;
}
class ComplexGemmTransLayout : public ::testing::TestWithParam<ZGemmCase> {};
TEST_P(ComplexGemmTransLayout, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, ComplexGemmTransLayout, ::testing::ValuesIn(trans_layout_cases()));

// ---- alpha and beta: zero, one, real, imaginary, general -----------------------------------------
std::vector<ZGemmCase> alpha_beta_cases() {
  const Cld scalars[] = {Cld(0), Cld(1), Cld(-1.5, 0), Cld(0, 1), Cld(0.3, -0.6)};
  std::vector<ZGemmCase> cases;
  std::uint64_t seed = 5600;
  for (const Cld& a : scalars)
    for (const Cld& b : scalars)
      for (Zt zt : kBoth)
        cases.push_back({33, 21, 45, 'C', 'T', Lay::left, Lay::left, Lay::left, a, b, zt, seed++});
  return cases;
}
class ComplexGemmAlphaBeta : public ::testing::TestWithParam<ZGemmCase> {};
TEST_P(ComplexGemmAlphaBeta, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, ComplexGemmAlphaBeta, ::testing::ValuesIn(alpha_beta_cases()));

// ---- beta == 0 never reads C; alpha == 0 (or K == 0) never reads A or B ---------------------------
template <class Z>
void nan_inputs_are_never_read() {
  for (const Cld alpha : {Cld(1, -1), Cld(0)}) {
    for (std::int64_t k : {0, 9}) {
      auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", k, 33);
      auto B = make_matrix<Z, Kokkos::LayoutLeft>("B", k, 21);
      auto C = make_matrix<Z, Kokkos::LayoutLeft>("C", 33, 21);
      fill_random_complex(A, 7), fill_random_complex(B, 8);
      // With alpha == 0 the product is not formed, so A and B may hold NaN; C is always poisoned.
      if (alpha == Cld(0)) fill_value(A, complex_poison<Z>()), fill_value(B, complex_poison<Z>());
      fill_value(C, complex_poison<Z>());
      ridgeline::gemm(Exec(), "C", "N", to_z<Z>(alpha), A, B, Z(0), C);
      Kokkos::fence();
      const auto got = to_host_complex(C);
      const auto want = reference_gemm_complex(op_of(to_host_complex(A), 'C'), to_host_complex(B), got,
                                               alpha == Cld(0) ? Cld(0) : alpha, Cld(0), eps_of_complex<Z>());
      if (alpha == Cld(0)) {
        for (const Cld& v : got.v) ASSERT_EQ(v, Cld(0)) << "alpha = 0, beta = 0 must write zeros, K=" << k;
      } else {
        EXPECT_TRUE(matches_complex(got, want)) << "alpha=" << alpha << " K=" << k;
      }
    }
  }
  // alpha == 0 with beta != 0 scales C and reads neither A nor B.
  auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", 17, 19);
  auto B = make_matrix<Z, Kokkos::LayoutLeft>("B", 23, 19);
  auto C = make_matrix<Z, Kokkos::LayoutLeft>("C", 17, 23);
  fill_value(A, complex_poison<Z>()), fill_value(B, complex_poison<Z>());
  fill_random_complex(C, 9);
  const CMatrix c0 = to_host_complex(C);
  const Cld beta(0.5, -2);
  ridgeline::gemm(Exec(), "N", "C", Z(0), A, B, to_z<Z>(beta), C);
  Kokkos::fence();
  const CMatrix got = to_host_complex(C);
  for (std::size_t e = 0; e < got.v.size(); ++e)
    EXPECT_LE(std::abs(got.v[e] - beta * c0.v[e]), 4 * eps_of_complex<Z>() * std::abs(beta * c0.v[e]));
}
TEST(ComplexGemm, NaNInputsAreNeverReadFloat) {
  nan_inputs_are_never_read<Zf>();
}
TEST(ComplexGemm, NaNInputsAreNeverReadDouble) {
  nan_inputs_are_never_read<Zd>();
}

// ---- 'C' is 'T' of the conjugate, bit for bit: conjugation happens in staging, nothing else changes ----
template <class Z>
void conj_transpose_is_transpose_of_conjugate(std::int64_t m, std::int64_t n, std::int64_t k) {
  auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", k, m);
  auto Abar = make_matrix<Z, Kokkos::LayoutLeft>("Abar", k, m);
  auto B = make_matrix<Z, Kokkos::LayoutRight>("B", n, k);
  auto Bbar = make_matrix<Z, Kokkos::LayoutRight>("Bbar", n, k);
  auto C1 = make_matrix<Z, Kokkos::LayoutLeft>("C1", m, n);
  auto C2 = make_matrix<Z, Kokkos::LayoutLeft>("C2", m, n);
  fill_random_complex(A, 21), fill_random_complex(B, 22);
  Kokkos::parallel_for(
      "conjugate", Kokkos::RangePolicy<Exec>(0, k), KOKKOS_LAMBDA(const int p) {
        for (std::int64_t i = 0; i < m; ++i) Abar(p, i) = Kokkos::conj(A(p, i));
        for (std::int64_t j = 0; j < n; ++j) Bbar(j, p) = Kokkos::conj(B(j, p));
      });
  const Z alpha(0.5, 1.25), beta(0);
  ridgeline::gemm(Exec(), "C", "C", alpha, A, B, beta, C1);
  ridgeline::gemm(Exec(), "T", "T", alpha, Abar, Bbar, beta, C2);
  Kokkos::fence();
  EXPECT_TRUE(same_values(to_host_complex(C1), to_host_complex(C2))) << m << "x" << n << "x" << k;
}
TEST(ComplexGemm, ConjTransposeIsTransposeOfConjugateFloat) {
  conj_transpose_is_transpose_of_conjugate<Zf>(70, 133, 77);
}
TEST(ComplexGemm, ConjTransposeIsTransposeOfConjugateDouble) {
  conj_transpose_is_transpose_of_conjugate<Zd>(70, 133, 77);
}

// ---- strided subviews: a C block of a bigger matrix, the rest untouched --------------------------
template <class Z, class Layout>
void guard_band(char ta, char tb, Cld beta) {
  const std::int64_t M = 45, N = 39, K = 70, pad = 5;
  using Big = Kokkos::View<Z**, Layout, Mem>;
  const bool at = ta != 'N', bt = tb != 'N';
  Big bigC("bigC", M + 2 * pad, N + 2 * pad);
  Big bigA("bigA", (at ? K : M) + 2 * pad, (at ? M : K) + 2 * pad);
  Big bigB("bigB", (bt ? N : K) + 2 * pad, (bt ? K : N) + 2 * pad);
  fill_random_complex(bigA, 11), fill_random_complex(bigB, 12), fill_random_complex(bigC, 13);
  const auto r = [&](std::int64_t len) { return std::make_pair(pad, pad + len); };
  auto A = Kokkos::subview(bigA, r(at ? K : M), r(at ? M : K));
  auto B = Kokkos::subview(bigB, r(bt ? N : K), r(bt ? K : N));
  auto C = Kokkos::subview(bigC, r(M), r(N));
  if (beta == Cld(0)) fill_value(C, complex_poison<Z>());
  const CMatrix before = to_host_complex(bigC), hC0 = to_host_complex(C);
  const char a[2] = {ta, 0}, b[2] = {tb, 0};
  const Cld alpha(0.3, 0.2);
  ridgeline::gemm(Exec(), a, b, to_z<Z>(alpha), A, B, to_z<Z>(beta), C);
  Kokkos::fence();
  const CMatrix after = to_host_complex(bigC);
  std::int64_t touched = 0;
  for (std::int64_t i = 0; i < after.rows; ++i)
    for (std::int64_t j = 0; j < after.cols; ++j) {
      const bool inside = i >= pad && i < pad + M && j >= pad && j < pad + N;
      if (!inside && after(i, j) != before(i, j)) ++touched;
    }
  EXPECT_EQ(touched, 0) << "elements outside the C subview changed";
  const auto want = reference_gemm_complex(op_of(to_host_complex(A), ta), op_of(to_host_complex(B), tb), hC0,
                                           as_seen<Z>(alpha), as_seen<Z>(beta), eps_of_complex<Z>());
  EXPECT_TRUE(matches_complex(to_host_complex(C), want)) << ta << tb;
}
TEST(ComplexGemm, SubviewGuardBandFloat) {
  guard_band<Zf, Kokkos::LayoutLeft>('C', 'N', Cld(0));
  guard_band<Zf, Kokkos::LayoutRight>('N', 'C', Cld(0.5, 0.5));
}
TEST(ComplexGemm, SubviewGuardBandDouble) {
  guard_band<Zd, Kokkos::LayoutLeft>('T', 'C', Cld(-1, 0.25));
  guard_band<Zd, Kokkos::LayoutRight>('C', 'C', Cld(0));
}

// ---- peeled products: remainders of one row or column with conjugated operands ---------------------
// A remainder of one column is a GEMV of op(A) with a column of op(B), one row a GEMV of op(B)^T with a
// row of op(A); GEMV never conjugates its vector, so a conjugated operand that would become the vector
// keeps its part a GEMM (gemm_dispatch_part). Forced here with a cut one row and one column short.
template <class Z>
void peeled_conjugates() {
  const std::int64_t M = 65, N = 66, K = 40;
  for (const char* t : {"CC", "CN", "NC", "TC"}) {
    auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", t[0] == 'N' ? M : K, t[0] == 'N' ? K : M);
    auto B = make_matrix<Z, Kokkos::LayoutLeft>("B", t[1] == 'N' ? K : N, t[1] == 'N' ? N : K);
    auto C = make_matrix<Z, Kokkos::LayoutLeft>("C", M, N);
    fill_random_complex(A, 31), fill_random_complex(B, 32), fill_value(C, complex_poison<Z>());
    const auto a =
        detail::as_const(detail::strided_op(A, detail::parse_trans(std::string(1, t[0]).c_str(), "", "")));
    const auto b =
        detail::as_const(detail::strided_op(B, detail::parse_trans(std::string(1, t[1]).c_str(), "", "")));
    detail::gemm_dispatch_peeled(Exec(), a, b, detail::strided_op(C, detail::Trans::N), Z(1, -0.5), Z(0),
                                 detail::PeelPlan{M - 1, N - 1});
    Kokkos::fence();
    const auto want = reference_gemm_complex(op_of(to_host_complex(A), t[0]), op_of(to_host_complex(B), t[1]),
                                             to_host_complex(C), Cld(1, -0.5), Cld(0), eps_of_complex<Z>());
    EXPECT_TRUE(matches_complex(to_host_complex(C), want)) << t;
  }
}
TEST(ComplexGemm, PeeledRemaindersKeepConjugationFloat) {
  peeled_conjugates<Zf>();
}
TEST(ComplexGemm, PeeledRemaindersKeepConjugationDouble) {
  peeled_conjugates<Zd>();
}

// ---- one column with op(B) = B goes through GEMV, which conjugates A for 'C' ------------------------
TEST(ComplexGemm, SingleColumnConjTranspose) {
  for (Zt zt : kBoth) {
    run({300, 1, 257, 'C', 'N', Lay::left, Lay::left, Lay::left, kAlpha, kBeta, zt, 5900});
    run({300, 1, 257, 'T', 'N', Lay::right, Lay::stride, Lay::left, kAlpha, Cld(0), zt, 5901});
  }
}

// ---- same inputs, same bits (split K where the backend splits: few tiles, deep K) -----------------
template <class Z>
void rerun_is_bit_identical(std::int64_t m, std::int64_t n, std::int64_t k) {
  auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", k, m);
  auto B = make_matrix<Z, Kokkos::LayoutLeft>("B", k, n);
  auto C1 = make_matrix<Z, Kokkos::LayoutLeft>("C1", m, n);
  auto C2 = make_matrix<Z, Kokkos::LayoutLeft>("C2", m, n);
  fill_random_complex(A, 41), fill_random_complex(B, 42);
  fill_value(C1, complex_poison<Z>()), fill_value(C2, complex_poison<Z>());
  ridgeline::gemm(Exec(), "C", "N", Z(1), A, B, Z(0), C1);
  ridgeline::gemm(Exec(), "C", "N", Z(1), A, B, Z(0), C2);
  Kokkos::fence();
  const auto h1 = to_host_complex(C1), h2 = to_host_complex(C2);
  EXPECT_TRUE(same_values(h1, h2)) << m << "x" << n << "x" << k;
  EXPECT_TRUE(matches_complex(h1, reference_gemm_complex(op_of(to_host_complex(A), 'C'), to_host_complex(B),
                                                         h1, Cld(1), Cld(0), eps_of_complex<Z>())));
}
TEST(ComplexGemm, RerunIsBitIdentical) {
  rerun_is_bit_identical<Zf>(200, 190, 300);
  rerun_is_bit_identical<Zd>(200, 190, 300);
  // One or two tiles over a deep K: the GPU tables split K here, and sum the slices in a fixed order.
  rerun_is_bit_identical<Zf>(64, 64, 4000);
  rerun_is_bit_identical<Zd>(64, 64, 4000);
}

// ---- the plan: below the table's complex-as-real extent, the complex entries, never a matrix unit ------
template <class Z>
void complex_plan_is_portable() {
  const std::int64_t from = detail::ComplexAsRealOf<detail::Backend<Exec, Z>, Z>::value.min_extent;
  const std::int64_t e = from > 1 ? from - 1 : 60;  // under the table's complex-as-real extent
  for (const char* t : {"NN", "NT", "NC", "TN", "CN", "CC"}) {
    auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", e, e);
    auto B = make_matrix<Z, Kokkos::LayoutLeft>("B", e, e);
    const char a[2] = {t[0], 0}, b[2] = {t[1], 0};
    const TileConfig cfg = gemm_tile_config(Exec(), a, b, A, B);
    EXPECT_TRUE(cfg.complex_as_real.empty()) << t << ": " << cfg.complex_as_real;
    EXPECT_FALSE(cfg.matrix_unit) << t;
    EXPECT_NE(std::string(cfg.micro_kernel).find("complex"), std::string::npos) << cfg.micro_kernel;
    EXPECT_EQ(cfg.bm, (gemm_tile_config<Exec, Z>().bm));
  }
  const TileConfig general = gemm_tile_config<Exec, Z>(), packets = gemm_tile_config<Exec, Z>(true);
  EXPECT_FALSE(general.matrix_unit);
  EXPECT_FALSE(packets.matrix_unit);
  EXPECT_NE(std::string(general.micro_kernel).find("complex"), std::string::npos) << general.micro_kernel;
}
TEST(ComplexGemmPlan, PortableEntriesOnly) {
  complex_plan_is_portable<Zf>();
  complex_plan_is_portable<Zd>();
}

// ---- complex products as real ones (gemm_complex_as_real.hpp) ------------------------------------
// The plan, pure: which orientation, which operand is copied, the K chunks, and when it does not apply.
TEST(ComplexAsRealPlan, OrientationCopiesAndChunks) {
  using Z = Zd;
  using S = detail::Strided2D<const Z>;
  const std::size_t unlimited = std::numeric_limits<std::size_t>::max();
  const detail::ComplexAsRealTerms terms{100, unlimited};
  const S a{nullptr, 500, 400, 1, 500};  // op(A) = A, column-major 500 x 400
  const S b{nullptr, 400, 300, 1, 400};  // op(B) = B, column-major 400 x 300
  detail::ComplexAsRealPlan p = detail::plan_complex_as_real(a, b, 1, 500, terms);
  ASSERT_TRUE(p.applies);
  EXPECT_FALSE(p.transposed);
  EXPECT_FALSE(p.copy_b);  // B is read as reals where it lies
  EXPECT_EQ(p.k_chunk, 400);
  EXPECT_EQ(p.bytes, sizeof(Z) * 2 * 500 * 400);  // Ax only
  S bc = b;
  bc.conj = true;  // 'C': copied, conjugated in the copy
  EXPECT_TRUE(detail::plan_complex_as_real(a, bc, 1, 500, terms).copy_b);
  const S bt{nullptr, 400, 300, 300, 1};  // op(B) = B^T of a column-major B: n contiguous
  p = detail::plan_complex_as_real(a, bt, 1, 500, terms);
  EXPECT_TRUE(p.copy_b);
  EXPECT_EQ(p.bytes, sizeof(Z) * (2 * 500 * 400 + 300 * 400));
  // Row-major C: the transposed product, whose operand read as reals is op(A)^T (k contiguous only when
  // op(A) is).
  p = detail::plan_complex_as_real(a, b, 300, 1, terms);
  EXPECT_TRUE(p.applies && p.transposed && p.copy_b);
  const S ak{nullptr, 500, 400, 400, 1};  // op(A) k-contiguous
  p = detail::plan_complex_as_real(ak, b, 300, 1, terms);
  EXPECT_TRUE(p.applies && p.transposed && !p.copy_b);
  // No unit stride in C, or an extent under the table's: the complex entries.
  EXPECT_FALSE(detail::plan_complex_as_real(a, b, 2, 1000, terms).applies);
  EXPECT_FALSE(
      detail::plan_complex_as_real(a, b, 1, 500, detail::ComplexAsRealTerms{401, unlimited}).applies);
  EXPECT_FALSE(detail::plan_complex_as_real(a, b, 1, 500, detail::ComplexAsRealTerms{}).applies);
  // A byte limit under the whole expansion: K chunks of a multiple of 64 within it; none under 64.
  const std::size_t whole = sizeof(Z) * 2 * 500 * 400;
  p = detail::plan_complex_as_real(a, b, 1, 500, detail::ComplexAsRealTerms{100, whole / 3});
  ASSERT_TRUE(p.applies);
  EXPECT_EQ(p.k_chunk % 64, 0);
  EXPECT_LT(p.k_chunk, 400);
  EXPECT_GT(p.k_chunk, 0);
  EXPECT_LE(p.bytes, whole / 3);
  EXPECT_FALSE(
      detail::plan_complex_as_real(a, b, 1, 500, detail::ComplexAsRealTerms{100, whole / 10}).applies);
}

// The table's terms reach gemm: at twice its extent a column-major product is described (and so run) as
// real, on a real entry; at half of it, on the complex entries.
template <class Z>
void table_terms_reach_gemm() {
  const detail::ComplexAsRealTerms terms = detail::ComplexAsRealOf<detail::Backend<Exec, Z>, Z>::value;
  if (terms.min_extent <= 0) GTEST_SKIP() << "this backend runs complex products on its complex entries only";
  using S = detail::Strided2D<const Z>;
  const std::int64_t big = 2 * terms.min_extent, small = terms.min_extent / 2;
  const TileConfig on = detail::describe_gemm_call(Exec(), S{nullptr, big, big, 1, big},
                                                   S{nullptr, big, big, 1, big}, 1, big, false);
  EXPECT_FALSE(on.complex_as_real.empty());
  EXPECT_EQ(std::string(on.micro_kernel).find("complex"), std::string::npos) << on.micro_kernel;
  const TileConfig off = detail::describe_gemm_call(Exec(), S{nullptr, small, small, 1, small},
                                                    S{nullptr, small, small, 1, small}, 1, small, false);
  EXPECT_TRUE(off.complex_as_real.empty()) << off.complex_as_real;
}
TEST(ComplexAsRealPlan, TableTermsReachGemmFloat) {
  table_terms_reach_gemm<Zf>();
}
TEST(ComplexAsRealPlan, TableTermsReachGemmDouble) {
  table_terms_reach_gemm<Zd>();
}

// The executor, forced with terms of extent 1 on every backend: every letter pair, op(A) and op(B) in
// both orientations and strided, C column- and row-major inside a NaN guard band that must stay as it
// was, beta zero (C poisoned too), real or complex, and K cut into chunks of 64 where K passes 64.
struct AsRealCase {
  std::int64_t m, n, k;
  char ta, tb;
  bool c_right, strided;
  Cld beta;
  Zt zt;
  std::uint64_t seed;
};
std::string describe(const AsRealCase& c) {
  std::ostringstream s;
  s << name(c.zt) << "gemm as real " << c.ta << c.tb << " " << c.m << "x" << c.n << "x" << c.k << " C "
    << (c.c_right ? "row" : "column") << "-major" << (c.strided ? ", strided A and B" : "")
    << " beta=" << c.beta;
  return s.str();
}
void PrintTo(const AsRealCase& c, std::ostream* os) {
  *os << describe(c);
}

template <class Z, class LA, class LB, class LC>
void run_as_real(const AsRealCase& c) {
  const std::int64_t pad = 3;
  const bool at = c.ta != 'N', bt = c.tb != 'N';
  auto A = make_matrix<Z, LA>("A", at ? c.k : c.m, at ? c.m : c.k);
  auto B = make_matrix<Z, LB>("B", bt ? c.n : c.k, bt ? c.k : c.n);
  Kokkos::View<Z**, LC, Mem> bigC("bigC", c.m + 2 * pad, c.n + 2 * pad);
  fill_random_complex(A, c.seed * 3 + 1), fill_random_complex(B, c.seed * 3 + 2);
  fill_value(bigC, complex_poison<Z>());
  auto C = Kokkos::subview(bigC, std::make_pair(pad, pad + c.m), std::make_pair(pad, pad + c.n));
  if (c.beta != Cld(0)) fill_random_complex(C, c.seed * 3 + 3);
  const CMatrix hC0 = to_host_complex(C), before = to_host_complex(bigC);
  const char tra[2] = {c.ta, 0}, trb[2] = {c.tb, 0};
  const auto a = detail::as_const(detail::strided_op(A, detail::parse_trans(tra, "gemm", "transA")));
  const auto b = detail::as_const(detail::strided_op(B, detail::parse_trans(trb, "gemm", "transB")));
  const auto cs = detail::strided_op(C, detail::Trans::N);
  detail::ComplexAsRealTerms terms{1, std::numeric_limits<std::size_t>::max()};
  detail::ComplexAsRealPlan p = detail::plan_complex_as_real(a, b, cs.rs, cs.cs, terms);
  ASSERT_TRUE(p.applies) << describe(c);
  ASSERT_EQ(p.transposed, c.c_right) << describe(c);
  if (c.k > 64) {
    // The byte limit of a 64-deep chunk: K runs in ceil(K / 64) expansions.
    const std::int64_t m = p.transposed ? c.n : c.m, n = p.transposed ? c.m : c.n;
    terms.max_bytes = sizeof(Z) * 64 * std::size_t(2 * (m + 1) + (p.copy_b ? n + 1 : 0));
    p = detail::plan_complex_as_real(a, b, cs.rs, cs.cs, terms);
    ASSERT_TRUE(p.applies) << describe(c);
    ASSERT_EQ(p.k_chunk, 64) << describe(c);
  }
  const Cld alpha(-0.75, 1.25);
  detail::run_complex_as_real(Exec(), p, a, b, cs, to_z<Z>(alpha), to_z<Z>(c.beta));
  Kokkos::fence();
  const CMatrix after = to_host_complex(bigC);
  std::int64_t touched = 0;
  for (std::int64_t i = 0; i < after.rows; ++i)
    for (std::int64_t j = 0; j < after.cols; ++j) {
      const bool inside = i >= pad && i < pad + c.m && j >= pad && j < pad + c.n;
      // NaN != NaN: the guard band is compared by its bits' meaning, poisoned or not.
      const bool same = (std::isnan(static_cast<double>(before(i, j).real())) &&
                         std::isnan(static_cast<double>(after(i, j).real()))) ||
                        after(i, j) == before(i, j);
      if (!inside && !same) ++touched;
    }
  EXPECT_EQ(touched, 0) << describe(c) << ": elements outside C changed";
  const auto want = reference_gemm_complex(op_of(to_host_complex(A), c.ta), op_of(to_host_complex(B), c.tb),
                                           hC0, as_seen<Z>(alpha), as_seen<Z>(c.beta), eps_of_complex<Z>());
  EXPECT_TRUE(matches_complex(to_host_complex(C), want)) << describe(c);
}

std::vector<AsRealCase> as_real_cases() {
  const std::array<std::int64_t, 3> shapes[] = {{7, 5, 3}, {33, 17, 150}, {65, 31, 129}};
  const Cld betas[] = {Cld(0), Cld(-0.5, 0), Cld(0.3, -0.6)};
  std::vector<AsRealCase> cases;
  std::uint64_t seed = 6100;
  int turn = 0;
  for (const char* t : {"NN", "NT", "NC", "TN", "TT", "TC", "CN", "CT", "CC"})
    for (const auto& s : shapes)
      for (bool c_right : {false, true})
        for (Zt zt : kBoth) {
          cases.push_back({s[0], s[1], s[2], t[0], t[1], c_right, false, betas[turn % 3], zt, seed++});
          ++turn;
        }
  for (const char* t : {"NN", "CT", "TC"})
    for (bool c_right : {false, true})
      for (Zt zt : kBoth) cases.push_back({40, 23, 130, t[0], t[1], c_right, true, kBeta, zt, seed++});
  cases.push_back({1, 1, 1, 'N', 'N', false, false, kBeta, Zt::z, seed++});
  return cases;
}
class ComplexAsReal : public ::testing::TestWithParam<AsRealCase> {};
TEST_P(ComplexAsReal, MatchesReference) {
  const AsRealCase& c = GetParam();
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  with_complex(c.zt, [&](auto z) {
    using Z = decltype(z);
    if (c.strided) {
      c.c_right ? run_as_real<Z, S, S, R>(c) : run_as_real<Z, S, S, L>(c);
    } else {
      c.c_right ? run_as_real<Z, L, R, R>(c) : run_as_real<Z, L, R, L>(c);
    }
  });
}
INSTANTIATE_TEST_SUITE_P(All, ComplexAsReal, ::testing::ValuesIn(as_real_cases()));

// Through ridgeline::gemm where the table runs it (its extent, when small enough to check here).
template <class Z>
void gemm_runs_as_real() {
  const detail::ComplexAsRealTerms terms = detail::ComplexAsRealOf<detail::Backend<Exec, Z>, Z>::value;
  if (terms.min_extent <= 0 || terms.min_extent > 512)
    GTEST_SKIP() << "no complex-as-real extent to check here";
  const std::int64_t e = terms.min_extent;
  auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", e + 1, e);
  auto B = make_matrix<Z, Kokkos::LayoutLeft>("B", e + 3, e + 1);
  auto C = make_matrix<Z, Kokkos::LayoutLeft>("C", e, e + 3);
  fill_random_complex(A, 71), fill_random_complex(B, 72), fill_value(C, complex_poison<Z>());
  ASSERT_FALSE(gemm_tile_config(Exec(), "C", "T", A, B, C).complex_as_real.empty());
  const Cld alpha(0.5, -1);
  ridgeline::gemm(Exec(), "C", "T", to_z<Z>(alpha), A, B, Z(0), C);
  Kokkos::fence();
  const auto want =
      reference_gemm_complex(op_of(to_host_complex(A), 'C'), op_of(to_host_complex(B), 'T'),
                             to_host_complex(C), as_seen<Z>(alpha), Cld(0), eps_of_complex<Z>());
  EXPECT_TRUE(matches_complex(to_host_complex(C), want));
}
TEST(ComplexAsReal, ThroughGemmFloat) {
  gemm_runs_as_real<Zf>();
}
TEST(ComplexAsReal, ThroughGemmDouble) {
  gemm_runs_as_real<Zd>();
}

// ---- errors: before any launch, naming the shapes and the letters --------------------------------
TEST(ComplexGemm, ErrorsNameShapesAndLetters) {
  using V = Kokkos::View<Zd**, Kokkos::LayoutLeft, Mem>;
  V A("A", 4, 5), B("B", 4, 7), C("C", 5, 7), Cbad("Cbad", 4, 7);
  try {
    ridgeline::gemm(Exec(), "C", "N", Zd(1), A, B, Zd(0), Cbad);
    FAIL() << "no exception for a shape mismatch";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("transA=C"), std::string::npos) << what;
    EXPECT_NE(what.find("op(A) is 5x4"), std::string::npos) << what;
    EXPECT_NE(what.find("C is 4x7"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(ridgeline::gemm(Exec(), "c", "n", Zd(1), A, B, Zd(0), C));
  for (const char* bad : {"X", "H", "CC", ""}) {
    try {
      ridgeline::gemm(Exec(), bad, "N", Zd(1), A, B, Zd(0), C);
      FAIL() << "no exception for transA=\"" << bad << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("\"N\", \"T\" or \"C\""), std::string::npos) << e.what();
    }
  }
  // An output that overlaps an input.
  Kokkos::View<Zf**, Kokkos::LayoutLeft, Mem> S("S", 8, 8);
  auto S1 = Kokkos::subview(S, std::make_pair(0, 4), std::make_pair(0, 4));
  auto S2 = Kokkos::subview(S, std::make_pair(2, 6), std::make_pair(2, 6));
  EXPECT_THROW(ridgeline::gemm(Exec(), "C", "N", Zf(1), S1, S1, Zf(0), S2), std::invalid_argument);
  Kokkos::fence();
}

}  // namespace
}  // namespace ridgeline::test
