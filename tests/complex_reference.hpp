#pragma once
// Test support for complex GEMM and GEMV (Kokkos::complex<float>, Kokkos::complex<double>): seeded random
// operands with both parts random, NaN poison, host copies in std::complex<long double>, the reference
// op(A) op(B) with op = N, T or C, and element-wise checks against a bound that scales with K and epsilon.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "reference.hpp"

namespace ridgeline::test {

using Cld = std::complex<long double>;
using Zf = Kokkos::complex<float>;
using Zd = Kokkos::complex<double>;

// The two complex element types a test runs: "c" (complex<float>, CGEMM) and "z" (complex<double>).
enum class Zt { c, z };
inline const char* name(Zt t) {
  return t == Zt::c ? "c" : "z";
}
template <class F>
void with_complex(Zt t, F&& f) {
  if (t == Zt::c) return f(Zf{});
  return f(Zd{});
}
template <class Z>
double eps_of_complex() {
  return std::numeric_limits<typename Z::value_type>::epsilon();
}

// Host-side dense copy of a rank-2 view (or a rank-1 view as one column), indexed (i, j).
struct CMatrix {
  std::int64_t rows = 0, cols = 0;
  std::vector<Cld> v;
  const Cld& operator()(std::int64_t i, std::int64_t j) const { return v[i * cols + j]; }
  Cld& operator()(std::int64_t i, std::int64_t j) { return v[i * cols + j]; }
};

// Real and imaginary parts uniform in [-1, 1), each operand with its own fixed seed.
template <class V>
void fill_random_complex(const V& v, std::uint64_t seed) {
  auto c = contiguous_like(v);
  auto h = Kokkos::create_mirror_view(c);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  using T = typename V::non_const_value_type;
  using R = typename T::value_type;
  if constexpr (detail::compat::view_rank<V>() == 2) {
    for (std::size_t j = 0; j < v.extent(1); ++j)
      for (std::size_t i = 0; i < v.extent(0); ++i) {
        const R re = static_cast<R>(d(gen));
        h(i, j) = T(re, static_cast<R>(d(gen)));
      }
  } else {
    for (std::size_t i = 0; i < v.extent(0); ++i) {
      const R re = static_cast<R>(d(gen));
      h(i) = T(re, static_cast<R>(d(gen)));
    }
  }
  Kokkos::deep_copy(c, h);
  Kokkos::deep_copy(v, c);
}

template <class Z>
Z complex_poison() {
  using R = typename Z::value_type;
  return Z(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
}

template <class V>
CMatrix to_host_complex(const V& v) {
  auto c = contiguous_like(v);
  Kokkos::deep_copy(c, v);
  auto h = Kokkos::create_mirror_view(c);
  Kokkos::deep_copy(h, c);
  CMatrix m;
  const auto at = [](const auto& z) { return Cld(z.real(), z.imag()); };
  if constexpr (detail::compat::view_rank<V>() == 2) {
    m.rows = v.extent(0), m.cols = v.extent(1);
    m.v.resize(m.rows * m.cols);
    for (std::int64_t i = 0; i < m.rows; ++i)
      for (std::int64_t j = 0; j < m.cols; ++j) m(i, j) = at(h(i, j));
  } else {
    m.rows = v.extent(0), m.cols = 1;
    m.v.resize(m.rows);
    for (std::int64_t i = 0; i < m.rows; ++i) m(i, 0) = at(h(i));
  }
  return m;
}

// op(m) for a BLAS letter: N as is, T transposed, C transposed and conjugated.
inline CMatrix op_of(const CMatrix& m, char t) {
  if (t == 'N') return m;
  CMatrix r;
  r.rows = m.cols, r.cols = m.rows;
  r.v.resize(m.v.size());
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = 0; j < m.cols; ++j) r(j, i) = t == 'C' ? std::conj(m(i, j)) : m(i, j);
  return r;
}

// Reference C = alpha op(A) op(B) + beta C0 in complex long double, and each element's bound
//   gamma * (|alpha| sum_k |a_ik| |b_kj| + |beta| |c_ij|),  gamma = (2K + 8) eps.
// Why: each part of a complex dot product of length K is a real dot product of length 2K whose terms
// obey |a_r b_r| + |a_i b_i| <= |a| |b|, so each part errs by at most 2K u sum |a||b| (u = eps / 2), the
// modulus by sqrt(2) times that; the 8 covers alpha's and beta's complex products and the final sum. A
// correct kernel passes with room (rounding errors add up like a random walk, far below the bound); a
// wrong one (a lost conjugation, a misplaced element, a lost K tile) errs by about sum |a||b| itself,
// 1/eps times the bound.
struct CExpected {
  CMatrix value;
  std::vector<long double> bound;
};
inline CExpected reference_gemm_complex(const CMatrix& opA, const CMatrix& opB, const CMatrix& C0, Cld alpha,
                                        Cld beta, double eps) {
  CExpected e;
  const std::int64_t M = opA.rows, N = opB.cols, K = opA.cols;
  e.value.rows = M, e.value.cols = N;
  e.value.v.assign(M * N, Cld(0));
  e.bound.assign(M * N, 0.0L);
  const long double gamma = (2.0L * K + 8.0L) * eps;
  // Parts and moduli laid out once, k fastest, and the products written out: std::complex<long double>'s
  // operator* and abs (a library call each, NaN-aware) made the reference most of the test's time.
  std::vector<long double> ar(M * K), ai(M * K), am(M * K), br(N * K), bi(N * K), bm(N * K);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t k = 0; k < K; ++k) {
      const Cld a = opA(i, k);
      ar[i * K + k] = a.real(), ai[i * K + k] = a.imag(), am[i * K + k] = std::abs(a);
    }
  for (std::int64_t j = 0; j < N; ++j)
    for (std::int64_t k = 0; k < K; ++k) {
      const Cld b = opB(k, j);
      br[j * K + k] = b.real(), bi[j * K + k] = b.imag(), bm[j * K + k] = std::abs(b);
    }
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) {
      long double re = 0, im = 0, sa = 0;
      const long double *xr = &ar[i * K], *xi = &ai[i * K], *xm = &am[i * K];
      const long double *yr = &br[j * K], *yi = &bi[j * K], *ym = &bm[j * K];
      for (std::int64_t k = 0; k < K; ++k) {
        re += xr[k] * yr[k] - xi[k] * yi[k];
        im += xr[k] * yi[k] + xi[k] * yr[k];
        sa += xm[k] * ym[k];
      }
      const Cld c0 = beta == Cld(0) ? Cld(0) : C0(i, j);
      e.value(i, j) = alpha * Cld(re, im) + beta * c0;
      e.bound[i * N + j] = gamma * (std::abs(alpha) * sa + std::abs(beta) * std::abs(c0)) +
                           std::numeric_limits<long double>::min();
    }
  }
  return e;
}

// Every element finite and within its bound of the reference.
inline ::testing::AssertionResult matches_complex(const CMatrix& got, const CExpected& want) {
  if (got.rows != want.value.rows || got.cols != want.value.cols)
    return ::testing::AssertionFailure() << "shape " << got.rows << "x" << got.cols;
  std::int64_t bad = 0;
  std::ostringstream first;
  for (std::int64_t i = 0; i < got.rows; ++i) {
    for (std::int64_t j = 0; j < got.cols; ++j) {
      const Cld g = got(i, j), w = want.value(i, j);
      const long double b = want.bound[i * got.cols + j];
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

// Exact equality of two host copies (reruns, and 'C' against 'T' of the conjugate): every float or
// double is exact in long double, so equal values here are equal values there.
inline bool same_values(const CMatrix& a, const CMatrix& b) {
  return a.rows == b.rows && a.cols == b.cols && a.v == b.v;
}

}  // namespace ridgeline::test
