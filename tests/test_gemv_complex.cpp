// Complex GEMV (Kokkos::complex<float>: CGEMV, Kokkos::complex<double>: ZGEMV) correctness, written once for
// both types and compiled into test_gemv for every enabled backend, in its own translation unit with a
// chosen set of layout instantiations. y = alpha op(A) x + beta y with op = N, T or C; every element of y
// is checked against a complex long double reference, whose bound (2K + 8) eps (|alpha| sum |a||x| +
// |beta||y|), K the length of each dot product, complex_reference.hpp explains.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <ridgeline/ridgeline.hpp>
#include <string>
#include <vector>

#include "complex_reference.hpp"

namespace ridgeline::test {
namespace {

struct ZGemvCase {
  std::int64_t m, n;  // A is m x n as stored
  char trans;
  Lay la, lx, ly;
  Cld alpha, beta;
  Zt zt;
  std::uint64_t seed;
};

std::string describe(const ZGemvCase& c) {
  std::ostringstream s;
  s << name(c.zt) << "gemv " << c.trans << " " << c.m << "x" << c.n << " layouts " << name(c.la) << name(c.lx)
    << name(c.ly) << " alpha=" << c.alpha << " beta=" << c.beta;
  return s.str();
}
void PrintTo(const ZGemvCase& c, std::ostream* os) {
  *os << describe(c);
}

template <class Z>
Z to_z(Cld v) {
  using R = typename Z::value_type;
  return Z(static_cast<R>(v.real()), static_cast<R>(v.imag()));
}
template <class Z>
Cld as_seen(Cld v) {
  const Z z = to_z<Z>(v);
  return Cld(z.real(), z.imag());
}

template <class Z, class LA, class LX, class LY>
void run_gemv(const ZGemvCase& c) {
  const bool t = c.trans != 'N';
  const std::int64_t nx = t ? c.m : c.n, ny = t ? c.n : c.m;
  auto A = make_matrix<Z, LA>("A", c.m, c.n);
  auto x = make_vector<Z, LX>("x", nx);
  auto y = make_vector<Z, LY>("y", ny);
  fill_random_complex(A, c.seed * 3 + 1);
  fill_random_complex(x, c.seed * 3 + 2);
  if (c.beta == Cld(0)) {
    fill_value(y, complex_poison<Z>());
  } else {
    fill_random_complex(y, c.seed * 3 + 3);
  }
  const CMatrix hA = to_host_complex(A), hx = to_host_complex(x), hy0 = to_host_complex(y);
  const char tr[2] = {c.trans, 0};
  ridgeline::gemv(Exec(), tr, to_z<Z>(c.alpha), A, x, to_z<Z>(c.beta), y);
  Kokkos::fence();
  // y = alpha op(A) x + beta y is the GEMM of op(A) with the one-column matrix x.
  const auto want = reference_gemm_complex(op_of(hA, c.trans), hx, hy0, as_seen<Z>(c.alpha),
                                           as_seen<Z>(c.beta), eps_of_complex<Z>());
  EXPECT_TRUE(matches_complex(to_host_complex(y), want)) << describe(c);
}

template <class Z>
void run_layouts(const ZGemvCase& c) {
  using L = Kokkos::LayoutLeft;
  using R = Kokkos::LayoutRight;
  using S = Kokkos::LayoutStride;
  const auto key = std::string(name(c.la)) + name(c.lx) + name(c.ly);
  if (key == "LLL") return run_gemv<Z, L, L, L>(c);
  if (key == "RLL") return run_gemv<Z, R, L, L>(c);
  if (key == "SSS") return run_gemv<Z, S, S, S>(c);
  if (key == "RLS") return run_gemv<Z, R, L, S>(c);
  FAIL() << "no instantiation for layouts " << key;
}

void run(const ZGemvCase& c) {
  with_complex(c.zt, [&](auto z) { run_layouts<decltype(z)>(c); });
}

constexpr Zt kBoth[] = {Zt::c, Zt::z};
const Cld kAlpha(0.75, -1.25), kBeta(-0.4, 0.9);

// ---- every letter, every layout mix, tails: both GEMV kernels (rows and dot) conjugate ------------
// With LayoutLeft A, N runs the rows kernel and T/C the dot kernel; LayoutRight swaps them; LayoutStride
// takes the scalar paths. Extents cover an empty side, one element, tails of packets and of teams, and
// rows longer than a GPU team's.
std::vector<ZGemvCase> cases() {
  const Lay mixes[][3] = {{Lay::left, Lay::left, Lay::left},
                          {Lay::right, Lay::left, Lay::left},
                          {Lay::stride, Lay::stride, Lay::stride},
                          {Lay::right, Lay::left, Lay::stride}};
  const std::int64_t shapes[][2] = {{0, 5},     {5, 0},     {1, 1},     {7, 13},
                                    {300, 257}, {1000, 37}, {37, 1000}, {129, 2049}};
  std::vector<ZGemvCase> out;
  std::uint64_t seed = 7100;
  for (const char t : {'N', 'T', 'C'})
    for (const auto& mix : mixes)
      for (const auto& s : shapes)
        for (Zt zt : kBoth)
          out.push_back(
              {s[0], s[1], t, mix[0], mix[1], mix[2], kAlpha, seed % 3 == 0 ? Cld(0) : kBeta, zt, seed++});
  return out;
}
class ComplexGemvCases : public ::testing::TestWithParam<ZGemvCase> {};
TEST_P(ComplexGemvCases, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, ComplexGemvCases, ::testing::ValuesIn(cases()));

// ---- alpha and beta: zero, one, imaginary, general -----------------------------------------------
std::vector<ZGemvCase> alpha_beta_cases() {
  const Cld scalars[] = {Cld(0), Cld(1), Cld(0, -1), Cld(0.3, -0.6)};
  std::vector<ZGemvCase> out;
  std::uint64_t seed = 7400;
  for (const Cld& a : scalars)
    for (const Cld& b : scalars)
      for (Zt zt : kBoth) out.push_back({45, 33, 'C', Lay::left, Lay::left, Lay::left, a, b, zt, seed++});
  return out;
}
class ComplexGemvAlphaBeta : public ::testing::TestWithParam<ZGemvCase> {};
TEST_P(ComplexGemvAlphaBeta, MatchesReference) {
  run(GetParam());
}
INSTANTIATE_TEST_SUITE_P(All, ComplexGemvAlphaBeta, ::testing::ValuesIn(alpha_beta_cases()));

// ---- beta == 0 never reads y; alpha == 0 never reads A or x ----------------------------------------
template <class Z>
void nan_inputs_are_never_read() {
  for (const char* t : {"N", "C"}) {
    auto A = make_matrix<Z, Kokkos::LayoutLeft>("A", 70, 50);
    auto x = make_vector<Z, Kokkos::LayoutLeft>("x", t[0] == 'N' ? 50 : 70);
    auto y = make_vector<Z, Kokkos::LayoutLeft>("y", t[0] == 'N' ? 70 : 50);
    // beta == 0: y poisoned, the product right.
    fill_random_complex(A, 1), fill_random_complex(x, 2), fill_value(y, complex_poison<Z>());
    ridgeline::gemv(Exec(), t, Z(2, 1), A, x, Z(0), y);
    Kokkos::fence();
    EXPECT_TRUE(
        matches_complex(to_host_complex(y),
                        reference_gemm_complex(op_of(to_host_complex(A), t[0]), to_host_complex(x),
                                               to_host_complex(y), Cld(2, 1), Cld(0), eps_of_complex<Z>())))
        << t;
    // alpha == 0: A and x poisoned; beta == 0 writes zeros, beta != 0 scales y.
    fill_value(A, complex_poison<Z>()), fill_value(x, complex_poison<Z>()),
        fill_value(y, complex_poison<Z>());
    ridgeline::gemv(Exec(), t, Z(0), A, x, Z(0), y);
    Kokkos::fence();
    for (const Cld& v : to_host_complex(y).v) ASSERT_EQ(v, Cld(0)) << t;
    fill_random_complex(y, 3);
    const CMatrix y0 = to_host_complex(y);
    const Cld beta(0, 2);
    ridgeline::gemv(Exec(), t, Z(0), A, x, to_z<Z>(beta), y);
    Kokkos::fence();
    const CMatrix got = to_host_complex(y);
    for (std::size_t e = 0; e < got.v.size(); ++e)
      EXPECT_LE(std::abs(got.v[e] - beta * y0.v[e]), 4 * eps_of_complex<Z>() * std::abs(beta * y0.v[e])) << t;
  }
}
TEST(ComplexGemv, NaNInputsAreNeverReadFloat) {
  nan_inputs_are_never_read<Zf>();
}
TEST(ComplexGemv, NaNInputsAreNeverReadDouble) {
  nan_inputs_are_never_read<Zd>();
}

// ---- same inputs, same bits; 'C' and 'T' of the conjugate both right ---------------------------------
// GEMV conjugates A's elements as it loads them, inside the multiply-add, so the compiler may contract
// the two calls' expressions into FMAs differently (GCC 12 did, -ffp-contract=fast: 208 of 700 ZGEMV
// results differed in the last bits, none with contraction off); both are held to the reference, and
// only the rerun to the same bits. (GEMM stages conjugated elements into scratch, and its test compares
// 'C' with 'T' of the conjugate bit for bit.)
template <class Z, class Layout>
void rerun_and_conjugate(std::int64_t m, std::int64_t n) {
  auto A = make_matrix<Z, Layout>("A", m, n);
  auto Abar = make_matrix<Z, Layout>("Abar", m, n);
  auto x = make_vector<Z, Kokkos::LayoutLeft>("x", m);
  auto y1 = make_vector<Z, Kokkos::LayoutLeft>("y1", n), y2 = make_vector<Z, Kokkos::LayoutLeft>("y2", n),
       y3 = make_vector<Z, Kokkos::LayoutLeft>("y3", n);
  fill_random_complex(A, 51), fill_random_complex(x, 52);
  Kokkos::parallel_for(
      "conjugate", Kokkos::RangePolicy<Exec>(0, m), KOKKOS_LAMBDA(const int i) {
        for (std::int64_t j = 0; j < n; ++j) Abar(i, j) = Kokkos::conj(A(i, j));
      });
  const Z alpha(1, 0.5);
  ridgeline::gemv(Exec(), "C", alpha, A, x, Z(0), y1);
  ridgeline::gemv(Exec(), "C", alpha, A, x, Z(0), y2);
  ridgeline::gemv(Exec(), "T", alpha, Abar, x, Z(0), y3);
  Kokkos::fence();
  const CMatrix h1 = to_host_complex(y1);
  EXPECT_TRUE(same_values(h1, to_host_complex(y2))) << "rerun " << m << "x" << n;
  const auto want = reference_gemm_complex(op_of(to_host_complex(A), 'C'), to_host_complex(x), h1,
                                           as_seen<Z>(Cld(1, 0.5)), Cld(0), eps_of_complex<Z>());
  EXPECT_TRUE(matches_complex(h1, want)) << "C " << m << "x" << n;
  EXPECT_TRUE(matches_complex(to_host_complex(y3), want)) << "T of the conjugate " << m << "x" << n;
}
TEST(ComplexGemv, RerunIsBitIdenticalAndConjugateAgrees) {
  // Several GPU teams' worth of rows and columns either way (64 and 1024 rows per team on CUDA).
  rerun_and_conjugate<Zf, Kokkos::LayoutLeft>(1500, 300);
  rerun_and_conjugate<Zd, Kokkos::LayoutLeft>(1500, 300);
  rerun_and_conjugate<Zf, Kokkos::LayoutRight>(300, 1500);
  rerun_and_conjugate<Zd, Kokkos::LayoutRight>(300, 1500);
}

// ---- errors: before any launch, naming the shapes and the letter ----------------------------------
TEST(ComplexGemv, ErrorsNameShapesAndLetter) {
  Kokkos::View<Zd**, Kokkos::LayoutLeft, Mem> A("A", 4, 5);
  Kokkos::View<Zd*, Mem> x4("x4", 4), x5("x5", 5), y4("y4", 4), y5("y5", 5);
  try {
    ridgeline::gemv(Exec(), "C", Zd(1), A, x5, Zd(0), y4);
    FAIL() << "no exception for a shape mismatch";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("op(A) is 5x4"), std::string::npos) << what;
    EXPECT_NE(what.find("trans=C"), std::string::npos) << what;
  }
  EXPECT_NO_THROW(ridgeline::gemv(Exec(), "C", Zd(1), A, x4, Zd(0), y5));
  EXPECT_THROW(ridgeline::gemv(Exec(), "H", Zd(1), A, x4, Zd(0), y5), std::invalid_argument);
  // y overlapping x.
  Kokkos::View<Zf*, Mem> v("v", 9);
  Kokkos::View<Zf**, Kokkos::LayoutLeft, Mem> Af("Af", 5, 5);
  auto xs = Kokkos::subview(v, std::make_pair(0, 5));
  auto ys = Kokkos::subview(v, std::make_pair(4, 9));
  EXPECT_THROW(ridgeline::gemv(Exec(), "C", Zf(1), Af, xs, Zf(0), ys), std::invalid_argument);
  Kokkos::fence();
}

}  // namespace
}  // namespace ridgeline::test
