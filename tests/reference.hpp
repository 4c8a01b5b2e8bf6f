#pragma once
// Shared test support: the double-precision host reference, seeded random operands in any layout,
// poison values, and element-wise checks with a tolerance that scales with K and epsilon.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ridgeline/detail/compat.hpp"
#include "ridgeline/detail/dispatch.hpp"
#include "ridgeline/half.hpp"

namespace ridgeline::test {

using Exec = RIDGELINE_TEST_EXEC_SPACE;
using Mem = Exec::memory_space;

// Sanitizer runs set RIDGELINE_TEST_REDUCED=1 to skip the largest shapes. The Kokkos 5.2 run
// (scripts/check_kokkos5.sh, at -O1) sets 2, which also skips the wide GEMV cases (reduced_wide()): the
// sanitizers keep those, because they are the only ones that take the wide GEMV's split reduction.
inline bool reduced() {
  const char* v = std::getenv("RIDGELINE_TEST_REDUCED");
  return v != nullptr && (v[0] == '1' || v[0] == '2');
}
inline bool reduced_wide() {
  const char* v = std::getenv("RIDGELINE_TEST_REDUCED");
  return v != nullptr && v[0] == '2';
}

// Host-side dense copy of any rank-2 view, in double, indexed (i, j).
struct HostMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> v;
  const double& operator()(std::int64_t i, std::int64_t j) const { return v[i * cols + j]; }
  double& operator()(std::int64_t i, std::int64_t j) { return v[i * cols + j]; }
};

enum class Lay { left, right, stride };
inline const char* name(Lay l) {
  return l == Lay::left ? "L" : l == Lay::right ? "R" : "S";
}

template <class Layout>
constexpr Lay lay_of() {
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutLeft>) return Lay::left;
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutRight>) return Lay::right;
  return Lay::stride;
}

// A LayoutStride matrix here has non-unit strides in both indices (row stride 2, column stride
// 2*rows+3), so the kernels' general-stride paths run, not just the unit-stride ones.
template <class T, class Layout>
Kokkos::View<T**, Layout, Mem> make_matrix(const std::string& label, std::int64_t rows, std::int64_t cols) {
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutStride>) {
    return Kokkos::View<T**, Layout, Mem>(label, Kokkos::LayoutStride(rows, 2, cols, 2 * rows + 3));
  } else {
    return Kokkos::View<T**, Layout, Mem>(label, rows, cols);
  }
}

template <class T, class Layout>
Kokkos::View<T*, Layout, Mem> make_vector(const std::string& label, std::int64_t n) {
  if constexpr (std::is_same_v<Layout, Kokkos::LayoutStride>) {
    return Kokkos::View<T*, Layout, Mem>(label, Kokkos::LayoutStride(n, 3));
  } else {
    return Kokkos::View<T*, Layout, Mem>(label, n);
  }
}

// Kokkos copies between memory spaces only when both views are contiguous, and between layouts
// only within one space; a strided device view therefore goes to and from the host through a
// contiguous LayoutLeft copy in its own memory space.
template <class V>
auto contiguous_like(const V& v) {
  using T = typename V::non_const_value_type;
  using Space = typename V::memory_space;
  if constexpr (ridgeline::detail::compat::view_rank<V>() == 2) {
    return Kokkos::View<T**, Kokkos::LayoutLeft, Space>("contiguous", v.extent(0), v.extent(1));
  } else {
    return Kokkos::View<T*, Kokkos::LayoutLeft, Space>("contiguous", v.extent(0));
  }
}

// Uniform in [-1, 1), never zero-filled; each operand gets its own fixed seed.
template <class V>
void fill_random(const V& v, std::uint64_t seed) {
  auto c = contiguous_like(v);
  auto h = Kokkos::create_mirror_view(c);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  using T = typename V::non_const_value_type;
  if constexpr (ridgeline::detail::compat::view_rank<V>() == 2) {
    for (std::size_t j = 0; j < v.extent(1); ++j)
      for (std::size_t i = 0; i < v.extent(0); ++i) h(i, j) = static_cast<T>(d(gen));
  } else {
    for (std::size_t i = 0; i < v.extent(0); ++i) h(i) = static_cast<T>(d(gen));
  }
  Kokkos::deep_copy(c, h);
  Kokkos::deep_copy(v, c);
}

template <class V>
void fill_value(const V& v, typename V::non_const_value_type x) {
  Kokkos::deep_copy(v, x);
}

template <class T>
T poison() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {  // 16-bit storage types have no numeric_limits of their own
    return T(std::numeric_limits<float>::quiet_NaN());
  }
}

// Machine epsilon (the gap above 1) of every element type the kernels take.
template <class T>
double eps_of() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::epsilon();
  } else if constexpr (std::is_same_v<T, ridgeline::bhalf_t>) {
    return 0x1p-7;  // 8 significant bits
  } else {
    static_assert(std::is_same_v<T, ridgeline::half_t>, "an element type the tests know");
    return 0x1p-10;  // 11 significant bits
  }
}

// The element types a kernel test runs: A and B (and x) in, C (or y) out. 16-bit inputs accumulate in
// float and may write float.
enum class Dt { f32, f64, f16, bf16, f16_f32, bf16_f32 };
inline const Dt kAllDtypes[] = {Dt::f32, Dt::f64, Dt::f16, Dt::bf16, Dt::f16_f32, Dt::bf16_f32};
inline const char* name(Dt d) {
  switch (d) {
    case Dt::f32:
      return "s";
    case Dt::f64:
      return "d";
    case Dt::f16:
      return "h";
    case Dt::bf16:
      return "b";
    case Dt::f16_f32:
      return "h->s ";
    case Dt::bf16_f32:
      return "b->s ";
  }
  return "?";
}
// Calls f(In{}, Out{}) with value-initialized objects of dt's input and output types.
template <class F>
void with_dtype(Dt d, F&& f) {
  switch (d) {
    case Dt::f32:
      return f(float{}, float{});
    case Dt::f64:
      return f(double{}, double{});
    case Dt::f16:
      return f(ridgeline::half_t{}, ridgeline::half_t{});
    case Dt::bf16:
      return f(ridgeline::bhalf_t{}, ridgeline::bhalf_t{});
    case Dt::f16_f32:
      return f(ridgeline::half_t{}, float{});
    case Dt::bf16_f32:
      return f(ridgeline::bhalf_t{}, float{});
  }
}

// Tolerances for inputs T and output TC: the products of T's values are exact in the accumulator, so
// the sum's error scales with K and the accumulator's epsilon (acc); a 16-bit output adds one
// rounding of the result (out).
struct Tolerance {
  double acc, out;
};
template <class T, class TC>
Tolerance tolerance_of() {
  return {eps_of<ridgeline::detail::AccumulatorType<T>>(), std::is_floating_point_v<TC> ? 0.0 : eps_of<TC>()};
}

template <class V>
HostMatrix to_host(const V& v) {
  auto c = contiguous_like(v);
  Kokkos::deep_copy(c, v);
  auto h = Kokkos::create_mirror_view(c);
  Kokkos::deep_copy(h, c);
  HostMatrix m;
  if constexpr (ridgeline::detail::compat::view_rank<V>() == 2) {
    m.rows = v.extent(0), m.cols = v.extent(1);
    m.v.resize(m.rows * m.cols);
    for (std::int64_t i = 0; i < m.rows; ++i)
      for (std::int64_t j = 0; j < m.cols; ++j) m(i, j) = static_cast<double>(h(i, j));
  } else {
    m.rows = v.extent(0), m.cols = 1;
    m.v.resize(m.rows);
    for (std::int64_t i = 0; i < m.rows; ++i) m(i, 0) = static_cast<double>(h(i));
  }
  return m;
}

inline HostMatrix transpose_if(const HostMatrix& m, bool t) {
  if (!t) return m;
  HostMatrix r;
  r.rows = m.cols, r.cols = m.rows;
  r.v.resize(m.v.size());
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) r(j, i) = m(i, j);
  return r;
}

// Reference C = alpha*opA*opB + beta*C0 in double, with the element-wise error bound
// gamma * (|alpha| sum_k |a_ik||b_kj| + |beta||c_ij|), gamma = (K + 2) * eps(T): twice the classic
// K*u bound of a length-K dot product, so a correct kernel passes and a wrong one (a lost K tile, a
// misplaced element) fails by orders of magnitude.
struct Expected {
  HostMatrix value, bound;
};

// out_eps: the epsilon of a 16-bit C, which adds one rounding of each result, out_eps / 2 * |c|
// (and half of FP16's subnormal spacing near zero: out_eps * 2^-14 covers both with room).
inline Expected reference_gemm(const HostMatrix& opA, const HostMatrix& opB, const HostMatrix& C0,
                               double alpha, double beta, double eps, double out_eps = 0) {
  Expected e;
  e.value.rows = e.bound.rows = opA.rows;
  e.value.cols = e.bound.cols = opB.cols;
  e.value.v.assign(opA.rows * opB.cols, 0.0);
  e.bound.v.assign(opA.rows * opB.cols, 0.0);
  const std::int64_t K = opA.cols;
  const double gamma = (K + 2) * eps;
  for (std::int64_t i = 0; i < opA.rows; ++i) {
    for (std::int64_t j = 0; j < opB.cols; ++j) {
      double s = 0, sa = 0;
      for (std::int64_t k = 0; k < K; ++k) {
        s += opA(i, k) * opB(k, j);
        sa += std::abs(opA(i, k) * opB(k, j));
      }
      const double c0 = beta == 0 ? 0.0 : C0(i, j);
      e.value(i, j) = alpha * s + beta * c0;
      e.bound(i, j) = gamma * (std::abs(alpha) * sa + std::abs(beta * c0)) +
                      out_eps * (std::abs(e.value(i, j)) + 0x1p-14) + std::numeric_limits<double>::min();
    }
  }
  return e;
}

// Checks every element: finite, and within its bound of the reference.
inline ::testing::AssertionResult matches(const HostMatrix& got, const Expected& want) {
  if (got.rows != want.value.rows || got.cols != want.value.cols)
    return ::testing::AssertionFailure() << "shape " << got.rows << "x" << got.cols;
  std::int64_t bad = 0;
  std::ostringstream first;
  for (std::int64_t i = 0; i < got.rows; ++i) {
    for (std::int64_t j = 0; j < got.cols; ++j) {
      const double g = got(i, j), w = want.value(i, j), b = want.bound(i, j);
      if (!(std::abs(g - w) <= b)) {
        if (bad < 5)
          first << " (" << i << "," << j << "): got " << g << " want " << w << " bound " << b << ";";
        ++bad;
      }
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << bad << " of " << got.rows * got.cols << " elements wrong:" << first.str();
}

}  // namespace ridgeline::test
