#pragma once
// The Kokkos Kernels peer baseline, behind a plain declaration: only kokkos_kernels_baseline.cpp
// includes Kokkos Kernels, so the rest of the perf suite compiles against any Kokkos (the Kokkos 5
// gate checks it), while Kokkos Kernels 3.4 itself builds only against Kokkos 3.4.
#include "harness.hpp"

namespace ridgeline_perf {

template <class Scalar>
void kokkos_kernels_gemm(const char* ta, const char* tb, Scalar alpha, const Matrix<Scalar>& a,
                         const Matrix<Scalar>& b, Scalar beta, const Matrix<Scalar>& c);

template <class Scalar>
void kokkos_kernels_gemv(const char* ta, Scalar alpha, const Matrix<Scalar>& a, const Vector<Scalar>& x,
                         Scalar beta, const Vector<Scalar>& y);

}  // namespace ridgeline_perf
