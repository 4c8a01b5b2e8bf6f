#pragma once
// The host half of Ridgeline's two C ABIs: libridgeline_blas.so (the BLAS and CBLAS symbols) and, in
// host builds, libridgeline_c.so (ridgeline.h). Both run the same column-major float, double, complex
// float and complex double GEMM and GEMV on raw host pointers; host_abi.cpp instantiates them once, the
// largest compile of either library, and both link its object. Each library still gets its own copy of the
// state below (its own hidden Kokkos), since each links the object into itself.
//
// Callers check the arguments first (BLAS rules: trans letters N/T/C in either case, non-negative
// extents, leading dimensions >= max(1, rows), nonzero increments); what fails here afterwards (memory,
// an output overlapping an input) throws, and each library turns that into its own kind of error.
#include <complex>
#include <cstddef>

namespace ridgeline::host_abi {

// The reference BLAS's quick returns: calls that read and write nothing. Otherwise k == 0 or alpha == 0
// still scales C (y) by beta. One rule for every ABI entry, checked before the output pointer is.
template <class T>
bool gemm_touches_nothing(int m, int n, int k, T alpha, T beta) {
  return m == 0 || n == 0 || ((alpha == T(0) || k == 0) && beta == T(1));
}
template <class T>
bool gemv_touches_nothing(int m, int n, T alpha, T beta) {
  return m == 0 || n == 0 || (alpha == T(0) && beta == T(1));
}

// Starts Kokkos if this library's copy has not started (OpenMP's thread count: OMP_NUM_THREADS) and
// finalizes it at exit. Kokkos 3.4's OpenMP space runs parallel work only from the thread that
// initialized it and outside any OpenMP parallel region; calls from elsewhere run on Kokkos::Serial,
// one at a time. A first call from inside a parallel region starts Kokkos on a thread of its own.
// Throws what Kokkos::initialize throws.
void ensure_kokkos();

// C = alpha op(A) op(B) + beta C, with the reference BLAS's quick returns; synchronous.
void gemm(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc);
void gemm(char ta, char tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc);

// y = alpha op(A) x + beta y; a negative increment walks its vector from the end, as in the BLAS.
void gemv(char t, int m, int n, float alpha, const float* a, int lda, const float* x, int incx, float beta,
          float* y, int incy);
void gemv(char t, int m, int n, double alpha, const double* a, int lda, const double* x, int incx,
          double beta, double* y, int incy);

// Complex (BLAS COMPLEX and COMPLEX*16, C99 float/double _Complex: std::complex's layout, a real part
// then an imaginary one). Letters N, T and C; C conjugates. Operands need only their real type's
// alignment: those that Kokkos::complex (aligned to its whole size) cannot take as they are go through
// an aligned copy.
void gemm(char ta, char tb, int m, int n, int k, std::complex<float> alpha, const std::complex<float>* a,
          int lda, const std::complex<float>* b, int ldb, std::complex<float> beta, std::complex<float>* c,
          int ldc);
void gemm(char ta, char tb, int m, int n, int k, std::complex<double> alpha, const std::complex<double>* a,
          int lda, const std::complex<double>* b, int ldb, std::complex<double> beta, std::complex<double>* c,
          int ldc);
void gemv(char t, int m, int n, std::complex<float> alpha, const std::complex<float>* a, int lda,
          const std::complex<float>* x, int incx, std::complex<float> beta, std::complex<float>* y, int incy);
void gemv(char t, int m, int n, std::complex<double> alpha, const std::complex<double>* a, int lda,
          const std::complex<double>* x, int incx, std::complex<double> beta, std::complex<double>* y,
          int incy);

}  // namespace ridgeline::host_abi
