// Bad input: every case throws std::invalid_argument before any launch, with a message that names
// the shapes, and leaves the output untouched.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstring>
#include <functional>
#include <ridgeline/ridgeline.hpp>
#include <string>

#include "reference.hpp"

namespace ridgeline::test {
namespace {

using M2 = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>;
using V1 = Kokkos::View<double*, Mem>;

// Runs f, expects std::invalid_argument whose message contains every needle.
void expect_invalid(const std::function<void()>& f, std::initializer_list<const char*> needles) {
  try {
    f();
    ADD_FAILURE() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    for (const char* n : needles)
      EXPECT_NE(msg.find(n), std::string::npos) << "'" << n << "' not in: " << msg;
  } catch (...) {
    ADD_FAILURE() << "wrong exception type";
  }
}

// The output keeps its poison after a rejected call: nothing was launched.
template <class V>
void expect_untouched(const V& v) {
  const auto h = to_host(v);
  for (double x : h.v) ASSERT_TRUE(std::isnan(x));
}

TEST(Validation, GemmInnerDimensionMismatch) {
  M2 A("A", 4, 5), B("B", 6, 7), C("C", 4, 7);
  fill_value(C, poison<double>());
  expect_invalid([&] { ridgeline::gemm(Exec(), "N", "N", 1.0, A, B, 0.0, C); },
                 {"op(A) is 4x5", "op(B) is 6x7", "C is 4x7"});
  expect_untouched(C);
}

TEST(Validation, GemmOutputShapeMismatch) {
  M2 A("A", 4, 5), B("B", 5, 7), C("C", 7, 4);
  fill_value(C, poison<double>());
  expect_invalid([&] { ridgeline::gemm(Exec(), "N", "N", 1.0, A, B, 0.0, C); }, {"C is 7x4", "op(A) is 4x5"});
  expect_untouched(C);
}

TEST(Validation, GemmTransposeChangesShapes) {
  M2 A("A", 4, 5), B("B", 5, 7), C("C", 4, 7);
  fill_value(C, poison<double>());
  // With transA = T, op(A) is 5x4 and no longer matches.
  expect_invalid([&] { ridgeline::gemm(Exec(), "T", "N", 1.0, A, B, 0.0, C); }, {"op(A) is 5x4", "transA=T"});
  expect_untouched(C);
}

TEST(Validation, GemmBadTransposeLetters) {
  M2 A("A", 4, 4), B("B", 4, 4), C("C", 4, 4);
  fill_value(C, poison<double>());
  expect_invalid([&] { ridgeline::gemm(Exec(), "X", "N", 1.0, A, B, 0.0, C); }, {"transA", "\"X\""});
  expect_invalid([&] { ridgeline::gemm(Exec(), "N", "", 1.0, A, B, 0.0, C); }, {"transB", "\"\""});
  expect_invalid([&] { ridgeline::gemm(Exec(), "NN", "N", 1.0, A, B, 0.0, C); }, {"transA", "\"NN\""});
  expect_invalid([&] { ridgeline::gemm(Exec(), nullptr, "N", 1.0, A, B, 0.0, C); }, {"transA", "(null)"});
  expect_untouched(C);
}

TEST(Validation, GemmOutputOverlappingInput) {
  M2 A("A", 6, 6), B("B", 6, 6);
  fill_random(A, 1), fill_random(B, 2);
  expect_invalid([&] { ridgeline::gemm(Exec(), "N", "N", 1.0, A, B, 0.0, A); },
                 {"output C (6x6)", "input A (6x6)"});
  auto Bsub = Kokkos::subview(B, std::make_pair(1, 4), std::make_pair(0, 6));
  M2 A3("A3", 3, 6);
  expect_invalid([&] { ridgeline::gemm(Exec(), "N", "T", 1.0, A3, B, 0.0, Bsub); },
                 {"output C (3x6)", "input B"});
}

TEST(Validation, GemvShapeMismatch) {
  M2 A("A", 5, 3);
  V1 x("x", 5), y("y", 5);
  fill_value(y, poison<double>());
  expect_invalid([&] { ridgeline::gemv(Exec(), "N", 1.0, A, x, 0.0, y); },
                 {"op(A) is 5x3", "A 5x3", "x has 5", "y 5"});
  expect_untouched(y);
  V1 x3("x3", 3), y3("y3", 3);
  fill_value(y3, poison<double>());
  expect_invalid([&] { ridgeline::gemv(Exec(), "T", 1.0, A, x3, 0.0, y3); },
                 {"op(A) is 3x5", "trans=T", "x has 3"});
  expect_untouched(y3);
}

TEST(Validation, GemvBadTransposeLetter) {
  M2 A("A", 5, 3);
  V1 x("x", 3), y("y", 5);
  expect_invalid([&] { ridgeline::gemv(Exec(), "Q", 1.0, A, x, 0.0, y); }, {"trans", "\"Q\""});
}

TEST(Validation, GemvOutputOverlappingInput) {
  V1 buf("buf", 10);
  M2 A("A", 5, 5);
  auto x = Kokkos::subview(buf, std::make_pair(0, 5));
  auto y = Kokkos::subview(buf, std::make_pair(3, 8));
  expect_invalid([&] { ridgeline::gemv(Exec(), "N", 1.0, A, x, 0.0, y); }, {"output y (5)", "input x (5)"});
}

// An empty team functor: require_fits only asks the policy about it. (A functor, not a lambda: CUDA
// rejects extended lambdas inside gtest's private TestBody.)
struct NoopTeam {
  KOKKOS_INLINE_FUNCTION void operator()(const Kokkos::TeamPolicy<Exec>::member_type&) const {}
};

// A configuration that needs more scratch than the backend allows is refused with the numbers.
TEST(Validation, OversizedTileConfigurationIsRejected) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  Policy policy(Exec(), 1, 1);
  const NoopTeam functor;
  const std::size_t too_big = static_cast<std::size_t>(policy.scratch_size_max(0)) + 1;
  expect_invalid(
      [&] { ridgeline::detail::require_fits(policy, functor, 0, too_big, 1, "gemm", "test-tile"); },
      {"test-tile", std::to_string(too_big).c_str(), "level-0"});
  expect_invalid(
      [&] { ridgeline::detail::require_fits(policy, functor, 0, 0, 1 << 20, "gemm", "test-tile"); },
      {"team of 1048576 threads"});
}

// Views the execution space cannot reach are refused. Only device backends have such spaces.
TEST(Validation, InaccessibleMemorySpace) {
  if constexpr (Kokkos::SpaceAccessibility<Exec, Kokkos::HostSpace>::accessible) {
    GTEST_SKIP() << "every memory space of this build is reachable from " << Exec::name();
  } else {
    Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> A("A", 4, 4), B("B", 4, 4), C("C", 4, 4);
    Kokkos::View<double*, Kokkos::HostSpace> x("x", 4), y("y", 4);
    expect_invalid([&] { ridgeline::gemm(Exec(), "N", "N", 1.0, A, B, 0.0, C); },
                   {"A (4x4)", Kokkos::HostSpace::name(), Exec::name()});
    expect_invalid([&] { ridgeline::gemv(Exec(), "N", 1.0, A, x, 0.0, y); },
                   {"A (4x4)", Kokkos::HostSpace::name(), Exec::name()});
  }
}

}  // namespace
}  // namespace ridgeline::test
