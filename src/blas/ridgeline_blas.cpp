// libridgeline_blas.so: Ridgeline behind the Fortran BLAS and CBLAS ABIs, for applications that never
// include a Kokkos header. Exports sgemm_, dgemm_, cgemm_, zgemm_, sgemv_, dgemv_, cgemv_, zgemv_ (LP64,
// gfortran's hidden string lengths), cblas_[sdcz]gemm and cblas_[sdcz]gemv (both orders), and weak
// defaults of xerbla_ and cblas_xerbla; every other symbol is local (ridgeline_blas.map).
//
// Kokkos lives inside the library, linked statically and hidden: an application with its own Kokkos
// (another version, other settings) keeps it untouched, and this copy is initialized on the first
// call, with OpenMP's thread count (OMP_NUM_THREADS), and finalized at exit (host_abi.cpp, whose
// kernels libridgeline_c.so shares). Kokkos 3.4's OpenMP space runs parallel work only from the
// thread that initialized it and outside any OpenMP parallel region; calls from elsewhere (application
// threads, OpenMP regions) run on Kokkos::Serial, one at a time, and so does every call when the first
// one came from inside a parallel region.
//
// Errors follow the reference BLAS: the first bad argument, in the reference's order of checks, goes
// to xerbla_ (or cblas_xerbla, in CBLAS numbering) and nothing is written. The defaults print the
// reference's message and return, as OpenBLAS's do; the reference's STOP would end a drop-in user's
// run where the library it replaces did not. RIDGELINE_BLAS_VERBOSE=1 prints at exit how many calls
// each routine served.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <complex>
#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <type_traits>
#include <vector>

#include "host_abi.hpp"

#define RIDGELINE_BLAS_EXPORT extern "C" __attribute__((visibility("default")))

using blas_int = int;  // LP64

// The standard CBLAS enumerators (the values every cblas.h uses). Taken as int at the boundary,
// which is the enums' C ABI, so that an out-of-range value is checked rather than undefined.
enum CblasOrderValue { CblasRowMajor = 101, CblasColMajor = 102 };
enum CblasTransposeValue { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };

RIDGELINE_BLAS_EXPORT void xerbla_(const char* srname, const blas_int* info, std::size_t len);
RIDGELINE_BLAS_EXPORT void cblas_xerbla(blas_int p, const char* rout, const char* form, ...);

namespace {

enum Routine {
  kSgemm,
  kDgemm,
  kSgemv,
  kDgemv,
  kCblasSgemm,
  kCblasDgemm,
  kCblasSgemv,
  kCblasDgemv,
  kCgemm,
  kZgemm,
  kCgemv,
  kZgemv,
  kCblasCgemm,
  kCblasZgemm,
  kCblasCgemv,
  kCblasZgemv,
  kRoutines
};
const char* const kRoutineNames[kRoutines] = {
    "sgemm_", "dgemm_", "sgemv_", "dgemv_", "cblas_sgemm", "cblas_dgemm", "cblas_sgemv", "cblas_dgemv",
    "cgemm_", "zgemm_", "cgemv_", "zgemv_", "cblas_cgemm", "cblas_zgemm", "cblas_cgemv", "cblas_zgemv"};
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;
std::atomic<long long> g_calls[kRoutines];

bool verbose() {
  const char* v = std::getenv("RIDGELINE_BLAS_VERBOSE");
  return v != nullptr && v[0] != '\0' && !(v[0] == '0' && v[1] == '\0');
}

// At unload (process exit): the call counts, read by users and CI to confirm that Ridgeline, not
// the BLAS behind it, served the calls. Printed even when nothing was served, since that is the
// answer a user who mislinked needs.
struct CallReport {
  ~CallReport() {
    if (!verbose()) return;
    for (int r = 0; r < kRoutines; ++r) {
      std::fprintf(stderr, "[ridgeline_blas] %s calls: %lld\n", kRoutineNames[r], g_calls[r].load());
    }
  }
} g_call_report;

// Ridgeline's own checks cannot fail after ours; if anything does (memory), no exception may cross
// the C boundary, and returning would leave the output silently unwritten.
template <class F>
void guarded(Routine r, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[ridgeline_blas] %s failed: %s\n", kRoutineNames[r], e.what());
    std::abort();
  }
}

char upper(char c) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}
bool is_trans(char c) {
  c = upper(c);
  return c == 'N' || c == 'T' || c == 'C';
}

// The reference xGEMM's checks, in its order: the number of the first bad argument, or 0.
blas_int gemm_info(char ta, char tb, blas_int m, blas_int n, blas_int k, blas_int lda, blas_int ldb,
                   blas_int ldc) {
  const blas_int nrowa = upper(ta) == 'N' ? m : k;
  const blas_int nrowb = upper(tb) == 'N' ? k : n;
  if (!is_trans(ta)) return 1;
  if (!is_trans(tb)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, nrowa)) return 8;
  if (ldb < std::max(1, nrowb)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

// The reference xGEMV's checks, in its order.
blas_int gemv_info(char t, blas_int m, blas_int n, blas_int lda, blas_int incx, blas_int incy) {
  if (!is_trans(t)) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < std::max(1, m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  return 0;
}

// Column-major, arguments already checked; the kernels and the host execution space are host_abi's.
template <class T>
void gemm_checked(Routine r, char ta, char tb, blas_int m, blas_int n, blas_int k, T alpha, const T* a,
                  blas_int lda, const T* b, blas_int ldb, T beta, T* c, blas_int ldc) {
  guarded(r, [&] { ridgeline::host_abi::gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc); });
}

template <class T>
void gemv_checked(Routine r, char t, blas_int m, blas_int n, T alpha, const T* a, blas_int lda, const T* x,
                  blas_int incx, T beta, T* y, blas_int incy) {
  guarded(r, [&] { ridgeline::host_abi::gemv(t, m, n, alpha, a, lda, x, incx, beta, y, incy); });
}

template <class T>
void fortran_gemm(Routine r, const char* name, const char* ta, const char* tb, const blas_int* m,
                  const blas_int* n, const blas_int* k, const T* alpha, const T* a, const blas_int* lda,
                  const T* b, const blas_int* ldb, const T* beta, T* c, const blas_int* ldc) {
  g_calls[r].fetch_add(1, std::memory_order_relaxed);
  const blas_int info = gemm_info(*ta, *tb, *m, *n, *k, *lda, *ldb, *ldc);
  if (info != 0) return xerbla_(name, &info, 6);
  gemm_checked(r, *ta, *tb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc);
}

template <class T>
void fortran_gemv(Routine r, const char* name, const char* t, const blas_int* m, const blas_int* n,
                  const T* alpha, const T* a, const blas_int* lda, const T* x, const blas_int* incx,
                  const T* beta, T* y, const blas_int* incy) {
  g_calls[r].fetch_add(1, std::memory_order_relaxed);
  const blas_int info = gemv_info(*t, *m, *n, *lda, *incx, *incy);
  if (info != 0) return xerbla_(name, &info, 6);
  gemv_checked(r, *t, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy);
}

char cblas_trans(int t) {
  return t == CblasNoTrans ? 'N' : t == CblasTrans ? 'T' : t == CblasConjTrans ? 'C' : '?';
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: the same call with A and B, M and
// N swapped. Parameter numbers are CBLAS's (the order is number 1); after the order and the two
// transposes, checks run in the reference's order on the column-major call, as reference CBLAS does.
template <class T>
void cblas_gemm(Routine r, const char* name, int order, int transa, int transb, blas_int m, blas_int n,
                blas_int k, T alpha, const T* a, blas_int lda, const T* b, blas_int ldb, T beta, T* c,
                blas_int ldc) {
  g_calls[r].fetch_add(1, std::memory_order_relaxed);
  const char ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (order != CblasRowMajor && order != CblasColMajor)
    return cblas_xerbla(1, name, "Illegal layout setting, %d\n", order);
  if (ta == '?') return cblas_xerbla(2, name, "Illegal TransA setting, %d\n", transa);
  if (tb == '?') return cblas_xerbla(3, name, "Illegal TransB setting, %d\n", transb);
  if (order == CblasColMajor) {
    const blas_int info = gemm_info(ta, tb, m, n, k, lda, ldb, ldc);
    if (info != 0) return cblas_xerbla(info + 1, name, "");
    return gemm_checked(r, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  const blas_int info = gemm_info(tb, ta, n, m, k, ldb, lda, ldc);
  if (info != 0) {
    // Column-major numbers of the swapped call, back to the row-major caller's arguments.
    const blas_int row_major = info == 3 ? 5 : info == 4 ? 4 : info == 8 ? 11 : info == 10 ? 9 : info + 1;
    return cblas_xerbla(row_major, name, "");
  }
  gemm_checked(r, tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
}

// y = alpha conj(A) x + beta y for column-major A (m x n): what a row-major conjugate transpose is. There is
// no such letter, so, as reference CBLAS does, it runs as conj(y) = conj(alpha) A conj(x) + conj(beta)
// conj(y): x conjugated into a copy (walking order), y conjugated in place before and after.
template <class T>
void gemv_conjugated(Routine r, blas_int m, blas_int n, T alpha, const T* a, blas_int lda, const T* x,
                     blas_int incx, T beta, T* y, blas_int incy) {
  if (ridgeline::host_abi::gemv_touches_nothing(m, n, alpha, beta)) return;
  const auto at = [](auto* v, blas_int i, blas_int len, blas_int inc) {
    return v + static_cast<std::ptrdiff_t>(inc < 0 ? len - 1 - i : i) * std::abs(inc);
  };
  std::vector<T> xc(static_cast<std::size_t>(n));
  for (blas_int i = 0; i < n; ++i) xc[i] = std::conj(*at(x, i, n, incx));
  for (blas_int i = 0; i < m; ++i) *at(y, i, m, incy) = std::conj(*at(y, i, m, incy));
  gemv_checked(r, 'N', m, n, std::conj(alpha), a, lda, xc.data(), 1, std::conj(beta), y, incy);
  for (blas_int i = 0; i < m; ++i) *at(y, i, m, incy) = std::conj(*at(y, i, m, incy));
}

// Row-major A (M x N) is column-major A^T (N x M): the same call with the transpose flipped; a complex
// conjugate transpose becomes a conjugate without transpose (gemv_conjugated).
template <class T>
void cblas_gemv(Routine r, const char* name, int order, int trans, blas_int m, blas_int n, T alpha,
                const T* a, blas_int lda, const T* x, blas_int incx, T beta, T* y, blas_int incy) {
  g_calls[r].fetch_add(1, std::memory_order_relaxed);
  const char t = cblas_trans(trans);
  if (order != CblasRowMajor && order != CblasColMajor)
    return cblas_xerbla(1, name, "Illegal layout setting, %d\n", order);
  if (t == '?') return cblas_xerbla(2, name, "Illegal TransA setting, %d\n", trans);
  const bool row = order == CblasRowMajor;
  const char tc = row ? (t == 'N' ? 'T' : 'N') : t;
  const blas_int info = row ? gemv_info(tc, n, m, lda, incx, incy) : gemv_info(tc, m, n, lda, incx, incy);
  if (info != 0) {
    const blas_int p = row && info == 2 ? 4 : row && info == 3 ? 3 : info + 1;
    return cblas_xerbla(p, name, "");
  }
  if constexpr (std::is_same_v<T, cfloat> || std::is_same_v<T, cdouble>) {
    if (row && t == 'C')
      return guarded(r, [&] { gemv_conjugated(r, n, m, alpha, a, lda, x, incx, beta, y, incy); });
  }
  if (row) return gemv_checked(r, tc, n, m, alpha, a, lda, x, incx, beta, y, incy);
  gemv_checked(r, tc, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

}  // namespace

// The reference XERBLA's message. Weak, and called through the dynamic symbol table, so the
// application's own xerbla_ (or an earlier library's) replaces it, as BLAS users expect.
RIDGELINE_BLAS_EXPORT __attribute__((weak)) void xerbla_(const char* srname, const blas_int* info,
                                                         std::size_t len) {
  while (len > 0 && srname[len - 1] == ' ') --len;
  std::printf(" ** On entry to %.*s parameter number %2d had an illegal value\n", static_cast<int>(len),
              srname, *info);
  std::fflush(stdout);
}

// Reference CBLAS's message (its cblas_xerbla then exits; see the file comment).
RIDGELINE_BLAS_EXPORT __attribute__((weak)) void cblas_xerbla(blas_int p, const char* rout, const char* form,
                                                              ...) {
  if (p != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, rout);
  va_list args;
  va_start(args, form);
  std::vfprintf(stderr, form, args);
  va_end(args);
}

RIDGELINE_BLAS_EXPORT void sgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
                                  const blas_int* k, const float* alpha, const float* a, const blas_int* lda,
                                  const float* b, const blas_int* ldb, const float* beta, float* c,
                                  const blas_int* ldc, std::size_t, std::size_t) {
  fortran_gemm(kSgemm, "SGEMM ", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGELINE_BLAS_EXPORT void dgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
                                  const blas_int* k, const double* alpha, const double* a,
                                  const blas_int* lda, const double* b, const blas_int* ldb,
                                  const double* beta, double* c, const blas_int* ldc, std::size_t,
                                  std::size_t) {
  fortran_gemm(kDgemm, "DGEMM ", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGELINE_BLAS_EXPORT void sgemv_(const char* t, const blas_int* m, const blas_int* n, const float* alpha,
                                  const float* a, const blas_int* lda, const float* x, const blas_int* incx,
                                  const float* beta, float* y, const blas_int* incy, std::size_t) {
  fortran_gemv(kSgemv, "SGEMV ", t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGELINE_BLAS_EXPORT void dgemv_(const char* t, const blas_int* m, const blas_int* n, const double* alpha,
                                  const double* a, const blas_int* lda, const double* x, const blas_int* incx,
                                  const double* beta, double* y, const blas_int* incy, std::size_t) {
  fortran_gemv(kDgemv, "DGEMV ", t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGELINE_BLAS_EXPORT void cblas_sgemm(int order, int transa, int transb, blas_int m, blas_int n, blas_int k,
                                       float alpha, const float* a, blas_int lda, const float* b,
                                       blas_int ldb, float beta, float* c, blas_int ldc) {
  cblas_gemm(kCblasSgemm, "cblas_sgemm", order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGELINE_BLAS_EXPORT void cblas_dgemm(int order, int transa, int transb, blas_int m, blas_int n, blas_int k,
                                       double alpha, const double* a, blas_int lda, const double* b,
                                       blas_int ldb, double beta, double* c, blas_int ldc) {
  cblas_gemm(kCblasDgemm, "cblas_dgemm", order, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGELINE_BLAS_EXPORT void cblas_sgemv(int order, int trans, blas_int m, blas_int n, float alpha,
                                       const float* a, blas_int lda, const float* x, blas_int incx,
                                       float beta, float* y, blas_int incy) {
  cblas_gemv(kCblasSgemv, "cblas_sgemv", order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGELINE_BLAS_EXPORT void cblas_dgemv(int order, int trans, blas_int m, blas_int n, double alpha,
                                       const double* a, blas_int lda, const double* x, blas_int incx,
                                       double beta, double* y, blas_int incy) {
  cblas_gemv(kCblasDgemv, "cblas_dgemv", order, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

// Complex: COMPLEX and COMPLEX*16 (Fortran), float and double _Complex or any (real, imaginary) pair
// (CBLAS, which passes alpha and beta by address).
RIDGELINE_BLAS_EXPORT void cgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
                                  const blas_int* k, const cfloat* alpha, const cfloat* a,
                                  const blas_int* lda, const cfloat* b, const blas_int* ldb,
                                  const cfloat* beta, cfloat* c, const blas_int* ldc, std::size_t,
                                  std::size_t) {
  fortran_gemm(kCgemm, "CGEMM ", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGELINE_BLAS_EXPORT void zgemm_(const char* ta, const char* tb, const blas_int* m, const blas_int* n,
                                  const blas_int* k, const cdouble* alpha, const cdouble* a,
                                  const blas_int* lda, const cdouble* b, const blas_int* ldb,
                                  const cdouble* beta, cdouble* c, const blas_int* ldc, std::size_t,
                                  std::size_t) {
  fortran_gemm(kZgemm, "ZGEMM ", ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGELINE_BLAS_EXPORT void cgemv_(const char* t, const blas_int* m, const blas_int* n, const cfloat* alpha,
                                  const cfloat* a, const blas_int* lda, const cfloat* x, const blas_int* incx,
                                  const cfloat* beta, cfloat* y, const blas_int* incy, std::size_t) {
  fortran_gemv(kCgemv, "CGEMV ", t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGELINE_BLAS_EXPORT void zgemv_(const char* t, const blas_int* m, const blas_int* n, const cdouble* alpha,
                                  const cdouble* a, const blas_int* lda, const cdouble* x,
                                  const blas_int* incx, const cdouble* beta, cdouble* y, const blas_int* incy,
                                  std::size_t) {
  fortran_gemv(kZgemv, "ZGEMV ", t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGELINE_BLAS_EXPORT void cblas_cgemm(int order, int transa, int transb, blas_int m, blas_int n, blas_int k,
                                       const void* alpha, const void* a, blas_int lda, const void* b,
                                       blas_int ldb, const void* beta, void* c, blas_int ldc) {
  cblas_gemm(kCblasCgemm, "cblas_cgemm", order, transa, transb, m, n, k, *static_cast<const cfloat*>(alpha),
             static_cast<const cfloat*>(a), lda, static_cast<const cfloat*>(b), ldb,
             *static_cast<const cfloat*>(beta), static_cast<cfloat*>(c), ldc);
}

RIDGELINE_BLAS_EXPORT void cblas_zgemm(int order, int transa, int transb, blas_int m, blas_int n, blas_int k,
                                       const void* alpha, const void* a, blas_int lda, const void* b,
                                       blas_int ldb, const void* beta, void* c, blas_int ldc) {
  cblas_gemm(kCblasZgemm, "cblas_zgemm", order, transa, transb, m, n, k, *static_cast<const cdouble*>(alpha),
             static_cast<const cdouble*>(a), lda, static_cast<const cdouble*>(b), ldb,
             *static_cast<const cdouble*>(beta), static_cast<cdouble*>(c), ldc);
}

RIDGELINE_BLAS_EXPORT void cblas_cgemv(int order, int trans, blas_int m, blas_int n, const void* alpha,
                                       const void* a, blas_int lda, const void* x, blas_int incx,
                                       const void* beta, void* y, blas_int incy) {
  cblas_gemv(kCblasCgemv, "cblas_cgemv", order, trans, m, n, *static_cast<const cfloat*>(alpha),
             static_cast<const cfloat*>(a), lda, static_cast<const cfloat*>(x), incx,
             *static_cast<const cfloat*>(beta), static_cast<cfloat*>(y), incy);
}

RIDGELINE_BLAS_EXPORT void cblas_zgemv(int order, int trans, blas_int m, blas_int n, const void* alpha,
                                       const void* a, blas_int lda, const void* x, blas_int incx,
                                       const void* beta, void* y, blas_int incy) {
  cblas_gemv(kCblasZgemv, "cblas_zgemv", order, trans, m, n, *static_cast<const cdouble*>(alpha),
             static_cast<const cdouble*>(a), lda, static_cast<const cdouble*>(x), incx,
             *static_cast<const cdouble*>(beta), static_cast<cdouble*>(y), incy);
}
