#include "kokkos_kernels_baseline.hpp"

#include <KokkosBlas2_gemv.hpp>
#include <KokkosBlas3_gemm.hpp>

namespace ridgeline_perf {

template <class Scalar>
void kokkos_kernels_gemm(const char* ta, const char* tb, Scalar alpha, const Matrix<Scalar>& a,
                         const Matrix<Scalar>& b, Scalar beta, const Matrix<Scalar>& c) {
  KokkosBlas::gemm(ta, tb, alpha, a, b, beta, c);
}

template <class Scalar>
void kokkos_kernels_gemv(const char* ta, Scalar alpha, const Matrix<Scalar>& a, const Vector<Scalar>& x,
                         Scalar beta, const Vector<Scalar>& y) {
  KokkosBlas::gemv(ta, alpha, a, x, beta, y);
}

template void kokkos_kernels_gemm<float>(const char*, const char*, float, const Matrix<float>&,
                                         const Matrix<float>&, float, const Matrix<float>&);
template void kokkos_kernels_gemm<double>(const char*, const char*, double, const Matrix<double>&,
                                          const Matrix<double>&, double, const Matrix<double>&);
template void kokkos_kernels_gemv<float>(const char*, float, const Matrix<float>&, const Vector<float>&,
                                         float, const Vector<float>&);
template void kokkos_kernels_gemv<double>(const char*, double, const Matrix<double>&, const Vector<double>&,
                                          double, const Vector<double>&);

}  // namespace ridgeline_perf
