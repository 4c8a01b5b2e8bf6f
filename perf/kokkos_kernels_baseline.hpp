#pragma once
// The Kokkos Kernels peer baseline, behind a plain declaration: only kokkos_kernels_baseline.cpp
// includes Kokkos Kernels, so the rest of the perf suite compiles against any Kokkos (the Kokkos 5
// gate checks it), while Kokkos Kernels 3.4 itself builds only against Kokkos 3.4.
#include <string>

#include "harness.hpp"

namespace ridgeline_perf {

template <class Scalar>
void kokkos_kernels_gemm(const char* ta, const char* tb, Scalar alpha, const Matrix<Scalar>& a,
                         const Matrix<Scalar>& b, Scalar beta, const Matrix<Scalar>& c);

template <class Scalar>
void kokkos_kernels_gemv(const char* ta, Scalar alpha, const Matrix<Scalar>& a, const Vector<Scalar>& x,
                         Scalar beta, const Vector<Scalar>& y);

// Batched GEMM the way KokkosBatched's users write it: a Kokkos::TeamPolicy over the batch, one matrix
// per team, KokkosBatched::TeamGemm<member, transA, transB, Algo::Gemm::Unblocked>::invoke on the 2-D
// subviews (:, :, g) of A, B and C.
//
// The team size for a batch whose matrices have m x n outputs: on a GPU the rule of KokkosBatched's own
// perf test (KokkosBatched_Test_Gemm_Cuda.cpp, Team V2: min(max(m n, 4), team_size_max)); on the host,
// where that perf test runs only its serial kernels, Kokkos::AUTO's size (team_size_recommended), as
// KokkosBatched's team unit tests do.
template <class Scalar>
int kokkos_kernels_gemm_batched_team_size(const char* ta, const char* tb, std::int64_t m, std::int64_t n,
                                          std::int64_t batch);

// The TeamGemm instantiation the transposes pick, for the config column.
std::string kokkos_kernels_gemm_batched_routine(const char* ta, const char* tb);

template <class Scalar>
void kokkos_kernels_gemm_batched(const char* ta, const char* tb, Scalar alpha, const Batch<Scalar>& a,
                                 const Batch<Scalar>& b, Scalar beta, const Batch<Scalar>& c, int team_size);

}  // namespace ridgeline_perf
