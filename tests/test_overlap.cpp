// The output-overlaps-input check (detail::views_overlap) against the element sets themselves: blocks
// of one column-major or row-major array, vectors along its rows and columns, and views that share
// no leading dimension. The check may refuse disjoint operands only where no common leading dimension
// exists; it must never miss an overlap.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "ridgeline/detail/validate.hpp"

namespace {

using Matrix =
    Kokkos::View<double**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using Vector =
    Kokkos::View<double*, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class V>
std::set<const double*> elements(const V& v) {
  std::set<const double*> s;
  if constexpr (ridgeline::detail::compat::view_rank<V>() == 1) {
    for (std::size_t i = 0; i < v.extent(0); ++i) s.insert(&v(i));
  } else {
    for (std::size_t i = 0; i < v.extent(0); ++i)
      for (std::size_t j = 0; j < v.extent(1); ++j) s.insert(&v(i, j));
  }
  return s;
}

template <class A, class B>
bool share_element(const A& a, const B& b) {
  const auto ea = elements(a), eb = elements(b);
  return std::any_of(ea.begin(), ea.end(), [&](const double* p) { return eb.count(p) != 0; });
}

// The block of rows x cols at (i0, j0) of a column-major array, or the same elements seen as a
// row-major view (its transpose).
Matrix block(double* base, int ld, int i0, int j0, int rows, int cols, bool row_major) {
  if (row_major) return Matrix(base + i0 + j0 * ld, Kokkos::LayoutStride(cols, ld, rows, 1));
  return Matrix(base + i0 + j0 * ld, Kokkos::LayoutStride(rows, 1, cols, ld));
}

}  // namespace

// LAPACK's blocked LU: C = A22 and B = A12 of one array, whose spans interleave without sharing an
// element; the span test alone refused it.
TEST(Overlap, BlockedLuOperandsAreDisjoint) {
  const int n = 12, lda = 12, j = 2, jb = 4;
  std::vector<double> a(lda * n);
  const Matrix a12 = block(a.data(), lda, j, j + jb, jb, n - j - jb, false);
  const Matrix a22 = block(a.data(), lda, j + jb, j + jb, n - j - jb, n - j - jb, false);
  EXPECT_FALSE(ridgeline::detail::views_overlap(a22, a12));
  EXPECT_FALSE(share_element(a22, a12));
  EXPECT_TRUE(ridgeline::detail::spans_overlap(a22, a12));  // what the batched entries still compare
}

// Random blocks and vectors of one array: the answer is exact.
TEST(Overlap, BlocksOfOneArrayMatchTheirElementSets) {
  std::mt19937 rng(15);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  int overlapping = 0, disjoint = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int ld = pick(1, 9), cols = pick(1, 9);
    const bool row_major = pick(0, 1) == 1;
    std::vector<double> a(ld * cols);
    const auto random_block = [&] {
      const int i0 = pick(0, ld - 1), j0 = pick(0, cols - 1);
      return block(a.data(), ld, i0, j0, pick(1, ld - i0), pick(1, cols - j0), row_major);
    };
    const Matrix out = random_block(), in = random_block();
    const bool truth = share_element(out, in);
    ASSERT_EQ(ridgeline::detail::views_overlap(out, in), truth)
        << "ld " << ld << " out " << out.extent(0) << "x" << out.extent(1) << " at "
        << (out.data() - a.data()) << ", in " << in.extent(0) << "x" << in.extent(1) << " at "
        << (in.data() - a.data()) << (row_major ? " (row-major)" : "");
    // A vector along a column or a row of the array, as gemv's y against A.
    const int i0 = pick(0, ld - 1), j0 = pick(0, cols - 1);
    const Vector col(a.data() + i0 + j0 * ld, Kokkos::LayoutStride(pick(1, ld - i0), 1));
    const Vector row(a.data() + i0 + j0 * ld, Kokkos::LayoutStride(pick(1, cols - j0), ld));
    ASSERT_EQ(ridgeline::detail::views_overlap(col, in), share_element(col, in));
    ASSERT_EQ(ridgeline::detail::views_overlap(row, in), share_element(row, in));
    (truth ? overlapping : disjoint) += 1;
  }
  EXPECT_GT(overlapping, 500);
  EXPECT_GT(disjoint, 500);
}

// Without a common leading dimension the check falls back to the span test: never a missed overlap.
TEST(Overlap, OtherShapesNeverMissAnOverlap) {
  std::mt19937 rng(16);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<double> a(400);
  for (int trial = 0; trial < 4000; ++trial) {
    const auto random_view = [&] {
      const int rows = pick(1, 6), cols = pick(1, 6), rs = pick(1, 8), cs = pick(1, 8);
      const int off = pick(0, 400 - 1 - (rows - 1) * rs - (cols - 1) * cs);
      return Matrix(a.data() + off, Kokkos::LayoutStride(rows, rs, cols, cs));
    };
    const Matrix out = random_view(), in = random_view();
    if (share_element(out, in)) {
      ASSERT_TRUE(ridgeline::detail::views_overlap(out, in))
          << "out " << out.extent(0) << "x" << out.extent(1) << " strides " << out.stride(0) << ","
          << out.stride(1) << " at " << (out.data() - a.data()) << ", in " << in.extent(0) << "x"
          << in.extent(1) << " strides " << in.stride(0) << "," << in.stride(1) << " at "
          << (in.data() - a.data());
    }
  }
}
