/* A plain C program (C11, not C++) over ridgeline.h, the way an application ported from cuBLAS calls it.
 *
 * Every routine (real and complex) with every operation (N, T, C; C conjugates the complex types),
 * leading dimensions padded past the rows, increments of both signs, alpha and beta random (complex for
 * the complex routines), 0 and 1; beta == 0 with C poisoned with NaN (it must not be read); complex
 * operands also at addresses aligned only to their real type. Inputs are seeded random values, never zeros.
 * Each result is compared element by element with a long double reference, within a bound from K and the
 * type's epsilon; every element of the output buffer outside the result (the padding rows, the skipped
 * entries of a strided y) must keep its sentinel. Then every error path: the status, a message naming the
 * argument and the shapes, and the output untouched.
 *
 * Built twice:
 *   - as is, for a host build's libridgeline_c.so (host pointers), under ctest;
 *   - with -DRIDGELINE_TEST_CUDA, for a CUDA build's (device pointers from cudaMalloc, and a
 *     cudaStream_t of its own), by scripts/c_api_device_test.sh on the GPU machine. The few CUDA
 *     runtime calls it makes are declared below, so that no CUDA header is needed there; with
 *     -DRIDGELINE_TEST_CUDA_HEADER it includes cuda_runtime_api.h instead.
 * Exit status 0 when everything passed, 1 otherwise. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ridgeline.h"

/* ridgeline.h promises C99 _Complex's layout for its complex structs, so that arrays of either pass by a
   cast. */
_Static_assert(sizeof(ridgeline_complex_float) == sizeof(float _Complex) &&
                   _Alignof(ridgeline_complex_float) == _Alignof(float _Complex),
               "ridgeline_complex_float is not float _Complex's layout");
_Static_assert(sizeof(ridgeline_complex_double) == sizeof(double _Complex) &&
                   _Alignof(ridgeline_complex_double) == _Alignof(double _Complex),
               "ridgeline_complex_double is not double _Complex's layout");

#if defined(RIDGELINE_TEST_CUDA)
#if defined(RIDGELINE_TEST_CUDA_HEADER)
#include <cuda_runtime_api.h>
#define CUDA_STREAM cudaStream_t
#else
/* The CUDA runtime's C ABI: cudaError_t and cudaMemcpyKind are C enums (int), cudaStream_t a pointer. */
int cudaMalloc(void** p, size_t bytes);
int cudaFree(void* p);
int cudaMemcpy(void* dst, const void* src, size_t bytes, int kind);
int cudaStreamCreate(void** stream);
int cudaStreamDestroy(void* stream);
int cudaStreamSynchronize(void* stream);
int cudaDeviceSynchronize(void);
const char* cudaGetErrorString(int error);
enum { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
#define CUDA_STREAM void*
#endif
#define CUDA_CHECK(call)                                                                            \
  do {                                                                                              \
    int e_ = (int)(call);                                                                           \
    if (e_ != 0) {                                                                                  \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(2);                                                                                      \
    }                                                                                               \
  } while (0)
static CUDA_STREAM g_stream;
#endif

static int failures, checks;

static void fail(const char* fmt, const char* a, const char* b) {
  printf("FAIL: ");
  printf(fmt, a, b);
  printf("\n");
  ++failures;
}

/* Memory of the library's space: host malloc, or device memory with copies. */
static void* space_alloc(size_t bytes) {
#if defined(RIDGELINE_TEST_CUDA)
  void* p = NULL;
  CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
  return p;
#else
  void* p = malloc(bytes ? bytes : 1);
  if (!p) exit(2);
  return p;
#endif
}
static void space_free(void* p) {
#if defined(RIDGELINE_TEST_CUDA)
  CUDA_CHECK(cudaFree(p));
#else
  free(p);
#endif
}
static void to_space(void* dst, const void* src, size_t bytes) {
#if defined(RIDGELINE_TEST_CUDA)
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
#else
  memcpy(dst, src, bytes);
#endif
}
static void from_space(void* dst, const void* src, size_t bytes) {
#if defined(RIDGELINE_TEST_CUDA)
  /* Calls are asynchronous on the handle's stream, as cuBLAS's are. */
  CUDA_CHECK(cudaStreamSynchronize(g_stream));
  CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
#else
  memcpy(dst, src, bytes);
#endif
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static double uniform(void) { /* xorshift64*, in [-1, 1) */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 4503599627370496.0 - 1.0;
}
/* Never zero: +-[0.25, 1). */
static double nonzero(void) {
  const double u = uniform();
  return (u < 0 ? -0.25 : 0.25) + 0.75 * u;
}

static const double kSentinel = 7777.0; /* padding and skipped entries: must stay */
static const ridgeline_operation_t kOps[3] = {RIDGELINE_OP_N, RIDGELINE_OP_T, RIDGELINE_OP_C};
static const char* const kOpNames[3] = {"N", "T", "C"};

static int expect_status(ridgeline_status_t got, ridgeline_status_t want, const char* what) {
  ++checks;
  if (got == want) return 1;
  printf("FAIL: %s: status %s (%d), expected %s; message \"%s\"\n", what, ridgeline_status_string(got),
         (int)got, ridgeline_status_string(want), ridgeline_get_last_error());
  ++failures;
  return 0;
}

/* One GEMM case of type T (float or double) through routine R, checked against long double. */
#define DEFINE_GEMM_CASE(T, R, EPS)                                                                          \
  static void gemm_case_##T(ridgeline_handle_t h, int ta, int tb, int m, int n, int k, int pad, T alpha,     \
                            T beta) {                                                                        \
    const int na = kOps[ta] == RIDGELINE_OP_N, nb = kOps[tb] == RIDGELINE_OP_N;                              \
    const int ar = na ? m : k, ac = na ? k : m, br = nb ? k : n, bc = nb ? n : k;                            \
    const int lda = (ar > 1 ? ar : 1) + pad, ldb = (br > 1 ? br : 1) + pad + 1,                              \
              ldc = (m > 1 ? m : 1) + pad + 2;                                                               \
    const size_t sa = (size_t)lda * (ac ? ac : 1), sb = (size_t)ldb * (bc ? bc : 1),                         \
                 sc = (size_t)ldc * (n ? n : 1);                                                             \
    T* a = malloc(sa * sizeof(T));                                                                           \
    T* b = malloc(sb * sizeof(T));                                                                           \
    T* c = malloc(sc * sizeof(T));                                                                           \
    T* out = malloc(sc * sizeof(T));                                                                         \
    for (size_t i = 0; i < sa; ++i) a[i] = (T)nonzero();                                                     \
    for (size_t i = 0; i < sb; ++i) b[i] = (T)nonzero();                                                     \
    for (int j = 0; j < (n ? n : 1); ++j)                                                                    \
      for (int i = 0; i < ldc; ++i)                                                                          \
        c[i + (size_t)j * ldc] = i < m ? (beta == 0 ? (T)NAN : (T)nonzero()) : (T)kSentinel;                 \
    T *da = space_alloc(sa * sizeof(T)), *db = space_alloc(sb * sizeof(T)),                                  \
      *dc = space_alloc(sc * sizeof(T));                                                                     \
    to_space(da, a, sa * sizeof(T));                                                                         \
    to_space(db, b, sb * sizeof(T));                                                                         \
    to_space(dc, c, sc * sizeof(T));                                                                         \
    char what[160];                                                                                          \
    snprintf(what, sizeof what, #R " %s%s m=%d n=%d k=%d lda=%d ldb=%d ldc=%d alpha=%g beta=%g",             \
             kOpNames[ta], kOpNames[tb], m, n, k, lda, ldb, ldc, (double)alpha, (double)beta);               \
    if (expect_status(R(h, kOps[ta], kOps[tb], m, n, k, &alpha, da, lda, db, ldb, &beta, dc, ldc),           \
                      RIDGELINE_STATUS_SUCCESS, what)) {                                                     \
      from_space(out, dc, sc * sizeof(T));                                                                   \
      int bad = 0;                                                                                           \
      for (int j = 0; j < (n ? n : 1) && bad < 5; ++j) {                                                     \
        for (int i = 0; i < ldc && bad < 5; ++i) {                                                           \
          const T got = out[i + (size_t)j * ldc];                                                            \
          ++checks;                                                                                          \
          if (i >= m || n == 0) {                                                                            \
            if (!(got == (T)kSentinel)) {                                                                    \
              printf("FAIL: %s: padding C(%d,%d) = %g was written\n", what, i, j, (double)got);              \
              ++bad;                                                                                         \
            }                                                                                                \
            continue;                                                                                        \
          }                                                                                                  \
          long double ref = 0, mag = 0;                                                                      \
          for (int l = 0; l < k; ++l) {                                                                      \
            const long double x = na ? a[i + (size_t)l * lda] : a[l + (size_t)i * lda];                      \
            const long double y = nb ? b[l + (size_t)j * ldb] : b[j + (size_t)l * ldb];                      \
            ref += x * y;                                                                                    \
            mag += fabsl(x * y);                                                                             \
          }                                                                                                  \
          ref *= alpha;                                                                                      \
          mag *= fabsl((long double)alpha);                                                                  \
          if (beta != 0) {                                                                                   \
            ref += (long double)beta * c[i + (size_t)j * ldc];                                               \
            mag += fabsl((long double)beta * c[i + (size_t)j * ldc]);                                        \
          }                                                                                                  \
          /* Error bound of a K-term dot product, the scaling and the beta term: (K + 2) eps sum|terms| */   \
          const long double tol = 2.0L * (k + 3) * (EPS) * (mag > 0 ? mag : 1);                              \
          if (!(fabsl((long double)got - ref) <= tol)) {                                                     \
            printf("FAIL: %s: C(%d,%d) = %.9g, reference %.9Lg, tolerance %.3Lg\n", what, i, j, (double)got, \
                   ref, tol);                                                                                \
            ++bad;                                                                                           \
          }                                                                                                  \
        }                                                                                                    \
      }                                                                                                      \
      failures += bad;                                                                                       \
    }                                                                                                        \
    space_free(da);                                                                                          \
    space_free(db);                                                                                          \
    space_free(dc);                                                                                          \
    free(a);                                                                                                 \
    free(b);                                                                                                 \
    free(c);                                                                                                 \
    free(out);                                                                                               \
  }

DEFINE_GEMM_CASE(float, ridgeline_sgemm, FLT_EPSILON)
DEFINE_GEMM_CASE(double, ridgeline_dgemm, DBL_EPSILON)

/* One GEMV case: y = alpha op(A) x + beta y with increments incx, incy of either sign. */
#define DEFINE_GEMV_CASE(T, R, EPS)                                                                          \
  static void gemv_case_##T(ridgeline_handle_t h, int t, int m, int n, int pad, int incx, int incy, T alpha, \
                            T beta) {                                                                        \
    const int nt = kOps[t] == RIDGELINE_OP_N, nx = nt ? n : m, ny = nt ? m : n;                              \
    const int lda = (m > 1 ? m : 1) + pad, ax = abs(incx), ay = abs(incy);                                   \
    const size_t sa = (size_t)lda * (n ? n : 1), sx = (size_t)(nx ? nx : 1) * ax,                            \
                 sy = (size_t)(ny ? ny : 1) * ay + 2;                                                        \
    T* a = malloc(sa * sizeof(T));                                                                           \
    T* x = malloc(sx * sizeof(T));                                                                           \
    T* y = malloc(sy * sizeof(T));                                                                           \
    T* out = malloc(sy * sizeof(T));                                                                         \
    for (size_t i = 0; i < sa; ++i) a[i] = (T)nonzero();                                                     \
    for (size_t i = 0; i < sx; ++i) x[i] = (T)nonzero();                                                     \
    for (size_t i = 0; i < sy; ++i) y[i] = (T)kSentinel;                                                     \
    /* Entry i of a vector with increment inc < 0 is at (len - 1 - i) |inc|, as in the BLAS. */              \
    for (int i = 0; i < ny; ++i) {                                                                           \
      const size_t at = (size_t)(incy < 0 ? ny - 1 - i : i) * ay;                                            \
      y[at] = beta == 0 ? (T)NAN : (T)nonzero();                                                             \
    }                                                                                                        \
    T *da = space_alloc(sa * sizeof(T)), *dx = space_alloc(sx * sizeof(T)),                                  \
      *dy = space_alloc(sy * sizeof(T));                                                                     \
    to_space(da, a, sa * sizeof(T));                                                                         \
    to_space(dx, x, sx * sizeof(T));                                                                         \
    to_space(dy, y, sy * sizeof(T));                                                                         \
    char what[160];                                                                                          \
    snprintf(what, sizeof what, #R " %s m=%d n=%d lda=%d incx=%d incy=%d alpha=%g beta=%g", kOpNames[t], m,  \
             n, lda, incx, incy, (double)alpha, (double)beta);                                               \
    if (expect_status(R(h, kOps[t], m, n, &alpha, da, lda, dx, incx, &beta, dy, incy),                       \
                      RIDGELINE_STATUS_SUCCESS, what)) {                                                     \
      from_space(out, dy, sy * sizeof(T));                                                                   \
      int bad = 0;                                                                                           \
      for (size_t p = 0; p < sy && bad < 5; ++p) {                                                           \
        const T got = out[p];                                                                                \
        ++checks;                                                                                            \
        const int hit = p % ay == 0 && (int)(p / ay) < ny;                                                   \
        if (!hit) {                                                                                          \
          if (!(got == (T)kSentinel)) {                                                                      \
            printf("FAIL: %s: y[%zu], not an entry, = %g was written\n", what, p, (double)got);              \
            ++bad;                                                                                           \
          }                                                                                                  \
          continue;                                                                                          \
        }                                                                                                    \
        const int i = incy < 0 ? ny - 1 - (int)(p / ay) : (int)(p / ay);                                     \
        long double ref = 0, mag = 0;                                                                        \
        for (int l = 0; l < nx; ++l) {                                                                       \
          const long double av = nt ? a[i + (size_t)l * lda] : a[l + (size_t)i * lda];                       \
          const long double xv = x[(size_t)(incx < 0 ? nx - 1 - l : l) * ax];                                \
          ref += av * xv;                                                                                    \
          mag += fabsl(av * xv);                                                                             \
        }                                                                                                    \
        ref *= alpha;                                                                                        \
        mag *= fabsl((long double)alpha);                                                                    \
        if (beta != 0) {                                                                                     \
          ref += (long double)beta * y[p];                                                                   \
          mag += fabsl((long double)beta * y[p]);                                                            \
        }                                                                                                    \
        const long double tol = 2.0L * (nx + 3) * (EPS) * (mag > 0 ? mag : 1);                               \
        if (!(fabsl((long double)got - ref) <= tol)) {                                                       \
          printf("FAIL: %s: y(%d) = %.9g, reference %.9Lg, tolerance %.3Lg\n", what, i, (double)got, ref,    \
                 tol);                                                                                       \
          ++bad;                                                                                             \
        }                                                                                                    \
      }                                                                                                      \
      failures += bad;                                                                                       \
    }                                                                                                        \
    space_free(da);                                                                                          \
    space_free(dx);                                                                                          \
    space_free(dy);                                                                                          \
    free(a);                                                                                                 \
    free(x);                                                                                                 \
    free(y);                                                                                                 \
    free(out);                                                                                               \
  }

DEFINE_GEMV_CASE(float, ridgeline_sgemv, FLT_EPSILON)
DEFINE_GEMV_CASE(double, ridgeline_dgemv, DBL_EPSILON)

/* One complex GEMM case of struct type CT (parts R) through routine R_, against long double. misalign
 * shifts every operand by one R from malloc's alignment: still a valid CT address, but not one that
 * Kokkos::complex (aligned to its whole size) can take, so the library's aligned copies run. */
#define DEFINE_CGEMM_CASE(CT, R, R_, EPS)                                                                   \
  static void gemm_case_##CT(ridgeline_handle_t h, int ta, int tb, int m, int n, int k, int pad,            \
                             int misalign, CT alpha, CT beta) {                                             \
    const int na = kOps[ta] == RIDGELINE_OP_N, nb = kOps[tb] == RIDGELINE_OP_N;                             \
    const int ca = kOps[ta] == RIDGELINE_OP_C, cb = kOps[tb] == RIDGELINE_OP_C;                             \
    const int ar = na ? m : k, ac = na ? k : m, br = nb ? k : n, bc = nb ? n : k;                           \
    const int lda = (ar > 1 ? ar : 1) + pad, ldb = (br > 1 ? br : 1) + pad + 1,                             \
              ldc = (m > 1 ? m : 1) + pad + 2;                                                              \
    const size_t sa = (size_t)lda * (ac ? ac : 1), sb = (size_t)ldb * (bc ? bc : 1),                        \
                 sc = (size_t)ldc * (n ? n : 1);                                                            \
    const int beta0 = beta.re == 0 && beta.im == 0;                                                         \
    const size_t shift = misalign ? sizeof(R) : 0;                                                          \
    CT* a = malloc(sa * sizeof(CT));                                                                        \
    CT* b = malloc(sb * sizeof(CT));                                                                        \
    CT* c = malloc(sc * sizeof(CT));                                                                        \
    CT* out = malloc(sc * sizeof(CT));                                                                      \
    for (size_t i = 0; i < sa; ++i) a[i].re = (R)nonzero(), a[i].im = (R)nonzero();                         \
    for (size_t i = 0; i < sb; ++i) b[i].re = (R)nonzero(), b[i].im = (R)nonzero();                         \
    for (int j = 0; j < (n ? n : 1); ++j) {                                                                 \
      for (int i = 0; i < ldc; ++i) {                                                                       \
        CT* e = &c[i + (size_t)j * ldc];                                                                    \
        if (i >= m) {                                                                                       \
          e->re = e->im = (R)kSentinel;                                                                     \
        } else if (beta0) {                                                                                 \
          e->re = e->im = (R)NAN;                                                                           \
        } else {                                                                                            \
          e->re = (R)nonzero(), e->im = (R)nonzero();                                                       \
        }                                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
    char *ba = space_alloc(sa * sizeof(CT) + shift), *bb = space_alloc(sb * sizeof(CT) + shift),            \
         *bcm = space_alloc(sc * sizeof(CT) + shift);                                                       \
    CT *da = (CT*)(ba + shift), *db = (CT*)(bb + shift), *dc = (CT*)(bcm + shift);                          \
    to_space(da, a, sa * sizeof(CT));                                                                       \
    to_space(db, b, sb * sizeof(CT));                                                                       \
    to_space(dc, c, sc * sizeof(CT));                                                                       \
    char what[200];                                                                                         \
    snprintf(what, sizeof what,                                                                             \
             #R_ " %s%s m=%d n=%d k=%d lda=%d ldb=%d ldc=%d%s alpha=(%g,%g) beta=(%g,%g)", kOpNames[ta],    \
             kOpNames[tb], m, n, k, lda, ldb, ldc, misalign ? " misaligned" : "", (double)alpha.re,         \
             (double)alpha.im, (double)beta.re, (double)beta.im);                                           \
    if (expect_status(R_(h, kOps[ta], kOps[tb], m, n, k, &alpha, da, lda, db, ldb, &beta, dc, ldc),         \
                      RIDGELINE_STATUS_SUCCESS, what)) {                                                    \
      from_space(out, dc, sc * sizeof(CT));                                                                 \
      int bad = 0;                                                                                          \
      for (int j = 0; j < (n ? n : 1) && bad < 5; ++j) {                                                    \
        for (int i = 0; i < ldc && bad < 5; ++i) {                                                          \
          const CT got = out[i + (size_t)j * ldc];                                                          \
          ++checks;                                                                                         \
          if (i >= m || n == 0) {                                                                           \
            if (!(got.re == (R)kSentinel && got.im == (R)kSentinel)) {                                      \
              printf("FAIL: %s: padding C(%d,%d) = (%g,%g) was written\n", what, i, j, (double)got.re,      \
                     (double)got.im);                                                                       \
              ++bad;                                                                                        \
            }                                                                                               \
            continue;                                                                                       \
          }                                                                                                 \
          /* mag bounds sum |terms| with |z| <= |re| + |im|; each complex product and sum adds at most a    \
             few epsilons of it per part. */                                                                \
          long double re = 0, im = 0, mag = 0;                                                              \
          for (int l = 0; l < k; ++l) {                                                                     \
            const CT x = na ? a[i + (size_t)l * lda] : a[l + (size_t)i * lda];                              \
            const CT y = nb ? b[l + (size_t)j * ldb] : b[j + (size_t)l * ldb];                              \
            const long double xr = x.re, xi = ca ? -(long double)x.im : x.im;                               \
            const long double yr = y.re, yi = cb ? -(long double)y.im : y.im;                               \
            re += xr * yr - xi * yi;                                                                        \
            im += xr * yi + xi * yr;                                                                        \
            mag += (fabsl(xr) + fabsl(xi)) * (fabsl(yr) + fabsl(yi));                                       \
          }                                                                                                 \
          long double rr = alpha.re * re - alpha.im * im, ri = alpha.re * im + alpha.im * re;               \
          mag *= fabsl((long double)alpha.re) + fabsl((long double)alpha.im);                               \
          if (!beta0) {                                                                                     \
            const CT c0 = c[i + (size_t)j * ldc];                                                           \
            rr += (long double)beta.re * c0.re - (long double)beta.im * c0.im;                              \
            ri += (long double)beta.re * c0.im + (long double)beta.im * c0.re;                              \
            mag += (fabsl((long double)beta.re) + fabsl((long double)beta.im)) *                            \
                   (fabsl((long double)c0.re) + fabsl((long double)c0.im));                                 \
          }                                                                                                 \
          const long double tol = 4.0L * (k + 4) * (EPS) * (mag > 0 ? mag : 1);                             \
          if (!(fabsl((long double)got.re - rr) <= tol && fabsl((long double)got.im - ri) <= tol)) {        \
            printf("FAIL: %s: C(%d,%d) = (%.9g,%.9g), reference (%.9Lg,%.9Lg), tolerance %.3Lg\n", what, i, \
                   j, (double)got.re, (double)got.im, rr, ri, tol);                                         \
            ++bad;                                                                                          \
          }                                                                                                 \
        }                                                                                                   \
      }                                                                                                     \
      failures += bad;                                                                                      \
    }                                                                                                       \
    space_free(ba);                                                                                         \
    space_free(bb);                                                                                         \
    space_free(bcm);                                                                                        \
    free(a);                                                                                                \
    free(b);                                                                                                \
    free(c);                                                                                                \
    free(out);                                                                                              \
  }

DEFINE_CGEMM_CASE(ridgeline_complex_float, float, ridgeline_cgemm, FLT_EPSILON)
DEFINE_CGEMM_CASE(ridgeline_complex_double, double, ridgeline_zgemm, DBL_EPSILON)

/* One complex GEMV case: y = alpha op(A) x + beta y, increments of either sign, operands optionally
 * misaligned for Kokkos::complex as in the GEMM case. */
#define DEFINE_CGEMV_CASE(CT, R, R_, EPS)                                                                \
  static void gemv_case_##CT(ridgeline_handle_t h, int t, int m, int n, int pad, int misalign, int incx, \
                             int incy, CT alpha, CT beta) {                                              \
    const int nt = kOps[t] == RIDGELINE_OP_N, conj = kOps[t] == RIDGELINE_OP_C, nx = nt ? n : m,         \
              ny = nt ? m : n;                                                                           \
    const int lda = (m > 1 ? m : 1) + pad, ax = abs(incx), ay = abs(incy);                               \
    const size_t sa = (size_t)lda * (n ? n : 1), sx = (size_t)(nx ? nx : 1) * ax,                        \
                 sy = (size_t)(ny ? ny : 1) * ay + 2;                                                    \
    const int beta0 = beta.re == 0 && beta.im == 0;                                                      \
    const size_t shift = misalign ? sizeof(R) : 0;                                                       \
    CT* a = malloc(sa * sizeof(CT));                                                                     \
    CT* x = malloc(sx * sizeof(CT));                                                                     \
    CT* y = malloc(sy * sizeof(CT));                                                                     \
    CT* out = malloc(sy * sizeof(CT));                                                                   \
    for (size_t i = 0; i < sa; ++i) a[i].re = (R)nonzero(), a[i].im = (R)nonzero();                      \
    for (size_t i = 0; i < sx; ++i) x[i].re = (R)nonzero(), x[i].im = (R)nonzero();                      \
    for (size_t i = 0; i < sy; ++i) y[i].re = y[i].im = (R)kSentinel;                                    \
    for (int i = 0; i < ny; ++i) {                                                                       \
      CT* e = &y[(size_t)(incy < 0 ? ny - 1 - i : i) * ay];                                              \
      if (beta0) {                                                                                       \
        e->re = e->im = (R)NAN;                                                                          \
      } else {                                                                                           \
        e->re = (R)nonzero(), e->im = (R)nonzero();                                                      \
      }                                                                                                  \
    }                                                                                                    \
    char *ba = space_alloc(sa * sizeof(CT) + shift), *bx = space_alloc(sx * sizeof(CT) + shift),         \
         *by = space_alloc(sy * sizeof(CT) + shift);                                                     \
    CT *da = (CT*)(ba + shift), *dx = (CT*)(bx + shift), *dy = (CT*)(by + shift);                        \
    to_space(da, a, sa * sizeof(CT));                                                                    \
    to_space(dx, x, sx * sizeof(CT));                                                                    \
    to_space(dy, y, sy * sizeof(CT));                                                                    \
    char what[200];                                                                                      \
    snprintf(what, sizeof what, #R_ " %s m=%d n=%d lda=%d incx=%d incy=%d%s alpha=(%g,%g) beta=(%g,%g)", \
             kOpNames[t], m, n, lda, incx, incy, misalign ? " misaligned" : "", (double)alpha.re,        \
             (double)alpha.im, (double)beta.re, (double)beta.im);                                        \
    if (expect_status(R_(h, kOps[t], m, n, &alpha, da, lda, dx, incx, &beta, dy, incy),                  \
                      RIDGELINE_STATUS_SUCCESS, what)) {                                                 \
      from_space(out, dy, sy * sizeof(CT));                                                              \
      int bad = 0;                                                                                       \
      for (size_t p = 0; p < sy && bad < 5; ++p) {                                                       \
        const CT got = out[p];                                                                           \
        ++checks;                                                                                        \
        const int hit = p % ay == 0 && (int)(p / ay) < ny;                                               \
        if (!hit) {                                                                                      \
          if (!(got.re == (R)kSentinel && got.im == (R)kSentinel)) {                                     \
            printf("FAIL: %s: y[%zu], not an entry, = (%g,%g) was written\n", what, p, (double)got.re,   \
                   (double)got.im);                                                                      \
            ++bad;                                                                                       \
          }                                                                                              \
          continue;                                                                                      \
        }                                                                                                \
        const int i = incy < 0 ? ny - 1 - (int)(p / ay) : (int)(p / ay);                                 \
        long double re = 0, im = 0, mag = 0;                                                             \
        for (int l = 0; l < nx; ++l) {                                                                   \
          const CT av = nt ? a[i + (size_t)l * lda] : a[l + (size_t)i * lda];                            \
          const CT xv = x[(size_t)(incx < 0 ? nx - 1 - l : l) * ax];                                     \
          const long double ar_ = av.re, ai = conj ? -(long double)av.im : av.im;                        \
          re += ar_ * xv.re - ai * xv.im;                                                                \
          im += ar_ * xv.im + ai * xv.re;                                                                \
          mag += (fabsl(ar_) + fabsl(ai)) * (fabsl((long double)xv.re) + fabsl((long double)xv.im));     \
        }                                                                                                \
        long double rr = alpha.re * re - alpha.im * im, ri = alpha.re * im + alpha.im * re;              \
        mag *= fabsl((long double)alpha.re) + fabsl((long double)alpha.im);                              \
        if (!beta0) {                                                                                    \
          rr += (long double)beta.re * y[p].re - (long double)beta.im * y[p].im;                         \
          ri += (long double)beta.re * y[p].im + (long double)beta.im * y[p].re;                         \
          mag += (fabsl((long double)beta.re) + fabsl((long double)beta.im)) *                           \
                 (fabsl((long double)y[p].re) + fabsl((long double)y[p].im));                            \
        }                                                                                                \
        const long double tol = 4.0L * (nx + 4) * (EPS) * (mag > 0 ? mag : 1);                           \
        if (!(fabsl((long double)got.re - rr) <= tol && fabsl((long double)got.im - ri) <= tol)) {       \
          printf("FAIL: %s: y(%d) = (%.9g,%.9g), reference (%.9Lg,%.9Lg), tolerance %.3Lg\n", what, i,   \
                 (double)got.re, (double)got.im, rr, ri, tol);                                           \
          ++bad;                                                                                         \
        }                                                                                                \
      }                                                                                                  \
      failures += bad;                                                                                   \
    }                                                                                                    \
    space_free(ba);                                                                                      \
    space_free(bx);                                                                                      \
    space_free(by);                                                                                      \
    free(a);                                                                                             \
    free(x);                                                                                             \
    free(y);                                                                                             \
    free(out);                                                                                           \
  }

DEFINE_CGEMV_CASE(ridgeline_complex_float, float, ridgeline_cgemv, FLT_EPSILON)
DEFINE_CGEMV_CASE(ridgeline_complex_double, double, ridgeline_zgemv, DBL_EPSILON)

static ridgeline_complex_float random_cf(void) {
  ridgeline_complex_float z;
  z.re = (float)nonzero(), z.im = (float)nonzero();
  return z;
}
static ridgeline_complex_double random_cd(void) {
  ridgeline_complex_double z;
  z.re = nonzero(), z.im = nonzero();
  return z;
}
static ridgeline_complex_float cf(float re, float im) {
  ridgeline_complex_float z;
  z.re = re, z.im = im;
  return z;
}
static ridgeline_complex_double cd(double re, double im) {
  ridgeline_complex_double z;
  z.re = re, z.im = im;
  return z;
}

/* The complex routines: every operation pair (C conjugates, T does not), sizes 1, 7 and 33 in every
   position, padded leading dimensions, alpha and beta complex, beta == 0 with C NaN; operands at
   addresses Kokkos::complex cannot take as they are. */
static void complex_correctness(ridgeline_handle_t h) {
  const ridgeline_complex_float zero_f = cf(0, 0), one_f = cf(1, 0);
  const ridgeline_complex_double zero_d = cd(0, 0), one_d = cd(1, 0);
  for (int ta = 0; ta < 3; ++ta) {
    for (int tb = 0; tb < 3; ++tb) {
      gemm_case_ridgeline_complex_float(h, ta, tb, 33, 7, 33, 3, 0, random_cf(), random_cf());
      gemm_case_ridgeline_complex_double(h, ta, tb, 33, 7, 33, 3, 0, random_cd(), random_cd());
      gemm_case_ridgeline_complex_double(h, ta, tb, 7, 33, 1, 2, 0, random_cd(), random_cd());
      gemm_case_ridgeline_complex_float(h, ta, tb, 1, 7, 33, 1, 0, random_cf(), zero_f);
      gemm_case_ridgeline_complex_double(h, ta, tb, 7, 1, 33, 0, 0, random_cd(), zero_d);
      gemm_case_ridgeline_complex_double(h, ta, tb, 33, 33, 7, 1, 1, random_cd(), random_cd());
      gemm_case_ridgeline_complex_float(h, ta, tb, 7, 7, 7, 0, 1, random_cf(), zero_f);
    }
  }
  /* Past one tile; one column (Ridgeline's GEMV route); 1 x 1 x 1. */
  gemm_case_ridgeline_complex_double(h, 2, 1, 130, 70, 260, 5, 0, random_cd(), random_cd());
  gemm_case_ridgeline_complex_float(h, 0, 2, 130, 70, 260, 0, 0, random_cf(), random_cf());
  gemm_case_ridgeline_complex_float(h, 2, 0, 65, 1, 300, 2, 0, random_cf(), random_cf());
  gemm_case_ridgeline_complex_double(h, 0, 0, 1, 1, 1, 0, 0, random_cd(), random_cd());
  /* k == 0 and alpha == 0: C scaled by beta (beta == 0: set to 0), A and B never read; quick returns. */
  gemm_case_ridgeline_complex_double(h, 2, 2, 9, 7, 0, 2, 0, random_cd(), random_cd());
  gemm_case_ridgeline_complex_float(h, 1, 2, 9, 7, 5, 2, 1, zero_f, random_cf());
  gemm_case_ridgeline_complex_double(h, 2, 0, 9, 7, 5, 2, 0, zero_d, zero_d);
  gemm_case_ridgeline_complex_double(h, 0, 2, 9, 7, 5, 2, 0, zero_d, one_d);
  gemm_case_ridgeline_complex_float(h, 0, 0, 0, 7, 5, 0, 0, one_f, zero_f);

  const int incs[][2] = {{1, 1}, {2, 3}, {-1, 1}, {1, -2}, {-3, -1}};
  for (int t = 0; t < 3; ++t) {
    for (int s = 0; s < 5; ++s) {
      gemv_case_ridgeline_complex_float(h, t, 33, 7, 4, 0, incs[s][0], incs[s][1], random_cf(), random_cf());
      gemv_case_ridgeline_complex_double(h, t, 7, 33, 1, 0, incs[s][0], incs[s][1], random_cd(), random_cd());
      gemv_case_ridgeline_complex_double(h, t, 33, 1, 0, 0, incs[s][0], incs[s][1], random_cd(), zero_d);
      gemv_case_ridgeline_complex_float(h, t, 1, 33, 2, 0, incs[s][0], incs[s][1], random_cf(), zero_f);
      gemv_case_ridgeline_complex_double(h, t, 33, 7, 3, 1, incs[s][0], incs[s][1], random_cd(), random_cd());
      gemv_case_ridgeline_complex_float(h, t, 7, 33, 0, 1, incs[s][0], incs[s][1], random_cf(), zero_f);
    }
  }
  gemv_case_ridgeline_complex_double(h, 2, 300, 257, 3, 0, 1, 1, random_cd(), random_cd());
  gemv_case_ridgeline_complex_float(h, 0, 300, 257, 0, 0, 2, 1, random_cf(), random_cf());
  gemv_case_ridgeline_complex_double(h, 1, 5, 0, 0, 0, 1, 1, one_d, zero_d);       /* n == 0: y untouched */
  gemv_case_ridgeline_complex_float(h, 2, 6, 4, 0, 0, 1, -1, zero_f, random_cf()); /* alpha == 0: y scaled */
  gemv_case_ridgeline_complex_double(h, 0, 6, 4, 0, 0, 1, 1, zero_d, one_d);       /* quick return */
}

static void correctness(ridgeline_handle_t h) {
  const int checks_before = checks, failures_before = failures;
  /* Every operation pair, with padded leading dimensions; beta random, 0 (C NaN) and 1. */
  for (int ta = 0; ta < 3; ++ta) {
    for (int tb = 0; tb < 3; ++tb) {
      const int m = 37, n = 29, k = 45;
      gemm_case_float(h, ta, tb, m, n, k, 3, (float)nonzero(), (float)nonzero());
      gemm_case_double(h, ta, tb, m, n, k, 3, nonzero(), nonzero());
      gemm_case_float(h, ta, tb, m, n, k, 1, (float)nonzero(), 0.0f);
      gemm_case_double(h, ta, tb, m, n, k, 1, nonzero(), 0.0);
    }
  }
  /* Sizes past one tile, square-ish and thin; unpadded; one column (Ridgeline's GEMV route). */
  gemm_case_float(h, 0, 0, 130, 70, 260, 0, 1.0f, 1.0f);
  gemm_case_double(h, 1, 1, 130, 70, 260, 5, -0.5, 0.25);
  gemm_case_double(h, 0, 1, 200, 3, 97, 0, 1.5, 0.0);
  gemm_case_float(h, 1, 0, 65, 1, 300, 2, 0.75f, -1.0f);
  gemm_case_double(h, 0, 0, 1, 1, 1, 0, 2.0, 3.0);
  /* k == 0 and alpha == 0: C scaled by beta, A and B never read (beta == 0: C set to 0). */
  gemm_case_double(h, 0, 0, 9, 7, 0, 2, 1.0, 0.5);
  gemm_case_float(h, 1, 0, 9, 7, 5, 2, 0.0f, 0.0f);
  gemm_case_double(h, 0, 2, 9, 7, 5, 2, 0.0, 1.0); /* quick return */
  gemm_case_double(h, 0, 0, 0, 7, 5, 0, 1.0, 0.0); /* m == 0 */

  const int incs[][2] = {{1, 1}, {2, 3}, {-1, 1}, {1, -2}, {-3, -1}};
  for (int t = 0; t < 3; ++t) {
    for (int s = 0; s < 5; ++s) {
      gemv_case_float(h, t, 33, 47, 4, incs[s][0], incs[s][1], (float)nonzero(), (float)nonzero());
      gemv_case_double(h, t, 33, 47, 4, incs[s][0], incs[s][1], nonzero(), nonzero());
      gemv_case_double(h, t, 33, 47, 0, incs[s][0], incs[s][1], nonzero(), 0.0);
      gemv_case_float(h, t, 33, 47, 1, incs[s][0], incs[s][1], (float)nonzero(), 0.0f);
    }
  }
  gemv_case_double(h, 0, 300, 257, 3, 1, 1, 1.0, 1.0);
  gemv_case_float(h, 1, 300, 257, 0, 2, 1, -1.0f, 0.5f);
  gemv_case_double(h, 1, 5, 0, 0, 1, 1, 1.0, 0.0); /* n == 0: quick return, y untouched */
  gemv_case_double(h, 0, 6, 4, 0, 1, 1, 0.0, 2.0); /* alpha == 0: y scaled */
  complex_correctness(h);
  printf("correctness: %d checks, %d failures\n", checks - checks_before, failures - failures_before);
}

/* A call that must fail with `want`, leave the `bytes` bytes at dc as they were (c_before), and name
   `needle` (and `needle2`) in its message. */
static void expect_error_bytes(ridgeline_status_t got, ridgeline_status_t want, const char* what,
                               const char* needle, const char* needle2, const void* dc, const void* c_before,
                               size_t bytes) {
  if (!expect_status(got, want, what)) return;
  const char* msg = ridgeline_get_last_error();
  ++checks;
  if (!msg || !strstr(msg, needle) || (needle2 && !strstr(msg, needle2))) {
    fail("%s: message \"%s\" does not name what failed", what, msg ? msg : "(null)");
  }
  printf("  %-44s -> %s: %s\n", what, ridgeline_status_string(got), msg);
  if (dc) {
    void* now = malloc(bytes);
    from_space(now, dc, bytes);
    ++checks;
    if (memcmp(now, c_before, bytes) != 0) {
      fail("%s: the output was written (%s)", what, "a failed call must write nothing");
    }
    free(now);
  }
}
static void expect_error(ridgeline_status_t got, ridgeline_status_t want, const char* what,
                         const char* needle, const char* needle2, const double* dc, const double* c_before,
                         size_t sc) {
  expect_error_bytes(got, want, what, needle, needle2, dc, c_before, sc * sizeof(double));
}

/* The complex routines' error paths: the real ones' checks, with the complex names and C's shapes. */
static void complex_errors(ridgeline_handle_t h) {
  enum { M = 5, N = 4, K = 6, LD = 8 };
  const size_t s = (size_t)LD * 8;
  ridgeline_complex_double hz[LD * 8];
  ridgeline_complex_float hc[LD * 8];
  for (size_t i = 0; i < s; ++i) hz[i] = random_cd(), hc[i] = random_cf();
  ridgeline_complex_double *za = space_alloc(sizeof hz), *zb = space_alloc(sizeof hz),
                           *zc = space_alloc(sizeof hz);
  ridgeline_complex_float *ca = space_alloc(sizeof hc), *cb = space_alloc(sizeof hc),
                          *cc = space_alloc(sizeof hc);
  to_space(za, hz, sizeof hz), to_space(zb, hz, sizeof hz), to_space(zc, hz, sizeof hz);
  to_space(ca, hc, sizeof hc), to_space(cb, hc, sizeof hc), to_space(cc, hc, sizeof hc);
  const ridgeline_complex_double alpha = cd(0.5, -1.5), beta = cd(-0.25, 2.0);
  const ridgeline_complex_float alphaf = cf(0.5f, -1.5f), betaf = cf(-0.25f, 2.0f);
  const ridgeline_operation_t N_ = RIDGELINE_OP_N, T_ = RIDGELINE_OP_T, C_ = RIDGELINE_OP_C;

  expect_error_bytes(ridgeline_zgemm(NULL, N_, N_, M, N, K, &alpha, za, LD, zb, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_NOT_INITIALIZED, "zgemm null handle", "ridgeline_zgemm: handle is NULL",
                     NULL, zc, hz, sizeof hz);
  expect_error_bytes(
      ridgeline_zgemm(h, (ridgeline_operation_t)'C', N_, M, N, K, &alpha, za, LD, zb, LD, &beta, zc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "zgemm transa 'C'", "ridgeline_zgemm: transa (67)", NULL, zc, hz,
      sizeof hz);
  expect_error_bytes(
      ridgeline_zgemm(h, C_, (ridgeline_operation_t)3, M, N, K, &alpha, za, LD, zb, LD, &beta, zc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "zgemm transb 3", "transb (3)", NULL, zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, N_, -1, N, K, &alpha, za, LD, zb, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm m -1", "ridgeline_zgemm: m (-1) < 0", NULL, zc,
                     hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, N_, M, -2, K, &alpha, za, LD, zb, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm n -2", "n (-2) < 0", NULL, zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, N_, M, N, -3, &alpha, za, LD, zb, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm k -3", "k (-3) < 0", NULL, zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, C_, N_, M, N, K, &alpha, za, M, zb, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm lda 5 < k with transa C",
                     "ridgeline_zgemm: lda (5) < max(1, k) (6)", "transa = C (A is 6x5)", zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, T_, M, N, K, &alpha, za, LD, zb, 3, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm ldb 3 < n with transb T",
                     "ldb (3) < max(1, n) (4)", "B is 4x6", zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, N_, M, N, K, &alpha, za, LD, zb, LD, &beta, zc, 4),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm ldc 4 < m", "ldc (4) < max(1, m) (5)", "C is 5x4",
                     zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, N_, M, N, K, NULL, za, LD, zb, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm alpha NULL", "alpha is NULL", NULL, zc, hz,
                     sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, N_, M, N, K, &alpha, za, LD, NULL, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm B NULL", "B is NULL with m = 5, n = 4, k = 6",
                     NULL, zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemm(h, N_, N_, M, N, K, &alpha, zc, LD, zb, LD, &beta, zc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemm C overlaps A",
                     "ridgeline_zgemm: ridgeline::gemm:", "overlaps input A", zc, hz, sizeof hz);

  expect_error_bytes(ridgeline_cgemm(NULL, C_, C_, M, N, K, &alphaf, ca, LD, cb, LD, &betaf, cc, LD),
                     RIDGELINE_STATUS_NOT_INITIALIZED, "cgemm null handle", "ridgeline_cgemm: handle is NULL",
                     NULL, cc, hc, sizeof hc);
  expect_error_bytes(
      ridgeline_cgemm(h, (ridgeline_operation_t)-1, N_, M, N, K, &alphaf, ca, LD, cb, LD, &betaf, cc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "cgemm transa -1", "ridgeline_cgemm: transa (-1)", NULL, cc, hc,
      sizeof hc);
  expect_error_bytes(ridgeline_cgemm(h, N_, N_, M, -1, K, &alphaf, ca, LD, cb, LD, &betaf, cc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemm n -1", "ridgeline_cgemm: n (-1) < 0", NULL, cc,
                     hc, sizeof hc);
  expect_error_bytes(ridgeline_cgemm(h, N_, C_, M, N, K, &alphaf, ca, 3, cb, LD, &betaf, cc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemm lda 3 < m",
                     "ridgeline_cgemm: lda (3) < max(1, m) (5)", "transa = N", cc, hc, sizeof hc);
  expect_error_bytes(ridgeline_cgemm(h, N_, C_, M, N, K, &alphaf, ca, LD, cb, 3, &betaf, cc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemm ldb 3 < n with transb C",
                     "ridgeline_cgemm: ldb (3) < max(1, n) (4)", "transb = C", cc, hc, sizeof hc);
  expect_error_bytes(ridgeline_cgemm(h, N_, N_, M, N, K, &alphaf, ca, LD, cb, LD, NULL, cc, LD),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemm beta NULL", "beta is NULL", NULL, cc, hc,
                     sizeof hc);

  expect_error_bytes(ridgeline_zgemv(NULL, C_, M, N, &alpha, za, LD, zb, 1, &beta, zc, 1),
                     RIDGELINE_STATUS_NOT_INITIALIZED, "zgemv null handle", "ridgeline_zgemv: handle is NULL",
                     NULL, zc, hz, sizeof hz);
  expect_error_bytes(
      ridgeline_zgemv(h, (ridgeline_operation_t)'N', M, N, &alpha, za, LD, zb, 1, &beta, zc, 1),
      RIDGELINE_STATUS_INVALID_VALUE, "zgemv trans 'N'", "ridgeline_zgemv: trans (78)", NULL, zc, hz,
      sizeof hz);
  expect_error_bytes(ridgeline_zgemv(h, C_, M, -4, &alpha, za, LD, zb, 1, &beta, zc, 1),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemv n -4", "ridgeline_zgemv: n (-4) < 0", NULL, zc,
                     hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemv(h, C_, M, N, &alpha, za, 4, zb, 1, &beta, zc, 1),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemv lda 4 < m",
                     "ridgeline_zgemv: lda (4) < max(1, m) (5)", "A is 5x4", zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemv(h, T_, M, N, &alpha, za, LD, zb, 0, &beta, zc, 1),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemv incx 0", "ridgeline_zgemv: incx is 0", NULL, zc,
                     hz, sizeof hz);
  expect_error_bytes(ridgeline_zgemv(h, C_, M, N, &alpha, za, LD, NULL, 1, &beta, zc, 1),
                     RIDGELINE_STATUS_INVALID_VALUE, "zgemv x NULL", "x is NULL with 5 entries", "trans = C",
                     zc, hz, sizeof hz);
  expect_error_bytes(ridgeline_cgemv(NULL, N_, M, N, &alphaf, ca, LD, cb, 1, &betaf, cc, 1),
                     RIDGELINE_STATUS_NOT_INITIALIZED, "cgemv null handle", "ridgeline_cgemv: handle is NULL",
                     NULL, cc, hc, sizeof hc);
  expect_error_bytes(ridgeline_cgemv(h, C_, -1, N, &alphaf, ca, LD, cb, 1, &betaf, cc, 1),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemv m -1", "ridgeline_cgemv: m (-1) < 0", NULL, cc,
                     hc, sizeof hc);
  expect_error_bytes(ridgeline_cgemv(h, T_, M, N, &alphaf, ca, 2, cb, 1, &betaf, cc, 1),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemv lda 2 < m",
                     "ridgeline_cgemv: lda (2) < max(1, m) (5)", NULL, cc, hc, sizeof hc);
  expect_error_bytes(ridgeline_cgemv(h, N_, M, N, &alphaf, ca, LD, cb, 1, &betaf, cc, 0),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemv incy 0", "ridgeline_cgemv: incy is 0", NULL, cc,
                     hc, sizeof hc);
  expect_error_bytes(ridgeline_cgemv(h, N_, M, N, &alphaf, ca, LD, cb, 1, &betaf, NULL, 1),
                     RIDGELINE_STATUS_INVALID_VALUE, "cgemv y NULL", "y is NULL with 5 entries", NULL, NULL,
                     NULL, 0);

  /* A success after the errors clears the message. */
  expect_status(ridgeline_zgemm(h, C_, T_, M, N, K, &alpha, za, LD, zb, LD, &beta, zc, LD),
                RIDGELINE_STATUS_SUCCESS, "zgemm after errors");
  ++checks;
  if (ridgeline_get_last_error()[0] != '\0')
    fail("a success left the message \"%s\"%s", ridgeline_get_last_error(), "");
  space_free(za), space_free(zb), space_free(zc), space_free(ca), space_free(cb), space_free(cc);
}

static void errors(ridgeline_handle_t h) {
  const int checks_before = checks, failures_before = failures;
  enum { M = 5, N = 4, K = 6, LD = 8 };
  const size_t s = (size_t)LD * 8;
  double host[LD * 8];
  float hostf[LD * 8];
  for (size_t i = 0; i < s; ++i) host[i] = nonzero(), hostf[i] = (float)host[i];
  double *da = space_alloc(s * sizeof(double)), *db = space_alloc(s * sizeof(double)),
         *dc = space_alloc(s * sizeof(double));
  float *fa = space_alloc(s * sizeof(float)), *fb = space_alloc(s * sizeof(float)),
        *fc = space_alloc(s * sizeof(float));
  to_space(da, host, sizeof host), to_space(db, host, sizeof host), to_space(dc, host, sizeof host);
  to_space(fa, hostf, sizeof hostf), to_space(fb, hostf, sizeof hostf), to_space(fc, hostf, sizeof hostf);
  const double one = 1.0, half = 0.5;
  const float onef = 1.0f, halff = 0.5f;
  const ridgeline_operation_t bad_op = (ridgeline_operation_t)'T'; /* a BLAS letter, not the enum */

  printf("error paths:\n");
  expect_error(
      ridgeline_dgemm(NULL, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, da, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_NOT_INITIALIZED, "dgemm null handle", "ridgeline_dgemm: handle is NULL", NULL, dc,
      host, s);
  expect_error(ridgeline_dgemm(h, bad_op, RIDGELINE_OP_N, M, N, K, &one, da, LD, db, LD, &half, dc, LD),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemm transa 'T'", "transa (84)", NULL, dc, host, s);
  expect_error(ridgeline_dgemm(h, RIDGELINE_OP_N, (ridgeline_operation_t)3, M, N, K, &one, da, LD, db, LD,
                               &half, dc, LD),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemm transb 3", "transb (3)", NULL, dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, -1, N, K, &one, da, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm m -1", "m (-1) < 0", NULL, dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, -2, K, &one, da, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm n -2", "n (-2) < 0", NULL, dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, -3, &one, da, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm k -3", "k (-3) < 0", NULL, dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, da, 3, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm lda 3 < m", "ridgeline_dgemm: lda (3) < max(1, m) (5)",
      "transa = N", dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_T, RIDGELINE_OP_N, M, N, K, &one, da, M, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm lda 5 < k with transa T", "lda (5) < max(1, k) (6)",
      "transa = T", dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_C, M, N, K, &one, da, LD, db, 3, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm ldb 3 < n with transb C", "ldb (3) < max(1, n) (4)", "B is 4x6",
      dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, da, LD, db, LD, &half, dc, 4),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm ldc 4 < m", "ldc (4) < max(1, m) (5)", "C is 5x4", dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, 0, N, K, &one, da, 0, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm lda 0 with m 0", "lda (0) < max(1, m) (1)", NULL, dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, NULL, da, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm alpha NULL", "alpha is NULL", NULL, dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, da, LD, db, LD, NULL, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm beta NULL", "beta is NULL", NULL, dc, host, s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, NULL, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm A NULL", "A is NULL with m = 5, n = 4, k = 6", NULL, dc, host,
      s);
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, da, LD, db, LD, &half, NULL, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm C NULL", "C is NULL with m = 5, n = 4", NULL, NULL, NULL, 0);
  /* Ridgeline's own C++ check (an output overlapping an input), its text passed through. */
  expect_error(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, dc, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "dgemm C overlaps A",
      "ridgeline_dgemm: ridgeline::gemm:", "overlaps input A", dc, host, s);

  expect_error(
      ridgeline_sgemm(NULL, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &onef, fa, LD, fb, LD, &halff, fc, LD),
      RIDGELINE_STATUS_NOT_INITIALIZED, "sgemm null handle", "ridgeline_sgemm: handle is NULL", NULL, NULL,
      NULL, 0);
  expect_error(
      ridgeline_sgemm(h, RIDGELINE_OP_T, RIDGELINE_OP_T, M, N, K, &onef, fa, LD, fb, 3, &halff, fc, LD),
      RIDGELINE_STATUS_INVALID_VALUE, "sgemm ldb 3 < n with transb T",
      "ridgeline_sgemm: ldb (3) < max(1, n) (4)", NULL, NULL, NULL, 0);
  expect_error(ridgeline_sgemm(h, (ridgeline_operation_t)-1, RIDGELINE_OP_N, M, N, K, &onef, fa, LD, fb, LD,
                               &halff, fc, LD),
               RIDGELINE_STATUS_INVALID_VALUE, "sgemm transa -1", "transa (-1)", NULL, NULL, NULL, 0);

  expect_error(ridgeline_dgemv(NULL, RIDGELINE_OP_N, M, N, &one, da, LD, db, 1, &half, dc, 1),
               RIDGELINE_STATUS_NOT_INITIALIZED, "dgemv null handle", "ridgeline_dgemv: handle is NULL", NULL,
               dc, host, s);
  expect_error(ridgeline_dgemv(h, bad_op, M, N, &one, da, LD, db, 1, &half, dc, 1),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemv trans 'T'", "trans (84)", NULL, dc, host, s);
  expect_error(ridgeline_dgemv(h, RIDGELINE_OP_N, -1, N, &one, da, LD, db, 1, &half, dc, 1),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemv m -1", "m (-1) < 0", NULL, dc, host, s);
  expect_error(ridgeline_dgemv(h, RIDGELINE_OP_T, M, N, &one, da, 4, db, 1, &half, dc, 1),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemv lda 4 < m", "ridgeline_dgemv: lda (4) < max(1, m) (5)",
               "A is 5x4", dc, host, s);
  expect_error(ridgeline_dgemv(h, RIDGELINE_OP_N, M, N, &one, da, LD, db, 0, &half, dc, 1),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemv incx 0", "incx is 0", NULL, dc, host, s);
  expect_error(ridgeline_dgemv(h, RIDGELINE_OP_N, M, N, &one, da, LD, db, 1, &half, dc, 0),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemv incy 0", "incy is 0", NULL, dc, host, s);
  expect_error(ridgeline_dgemv(h, RIDGELINE_OP_T, M, N, &one, da, LD, NULL, 1, &half, dc, 1),
               RIDGELINE_STATUS_INVALID_VALUE, "dgemv x NULL", "x is NULL with 5 entries", NULL, dc, host, s);
  expect_error(ridgeline_sgemv(NULL, RIDGELINE_OP_N, M, N, &onef, fa, LD, fb, 1, &halff, fc, 1),
               RIDGELINE_STATUS_NOT_INITIALIZED, "sgemv null handle", "ridgeline_sgemv: handle is NULL", NULL,
               NULL, NULL, 0);
  expect_error(ridgeline_sgemv(h, RIDGELINE_OP_C, M, N, &onef, fa, 2, fb, 1, &halff, fc, 1),
               RIDGELINE_STATUS_INVALID_VALUE, "sgemv lda 2 < m", "ridgeline_sgemv: lda (2) < max(1, m) (5)",
               NULL, NULL, NULL, 0);
  expect_error(ridgeline_sgemv(h, RIDGELINE_OP_N, M, N, &onef, fa, LD, fb, 1, NULL, fc, 1),
               RIDGELINE_STATUS_INVALID_VALUE, "sgemv beta NULL", "beta is NULL", NULL, NULL, NULL, 0);

  /* The handle functions. */
  expect_error(ridgeline_create(NULL), RIDGELINE_STATUS_INVALID_VALUE, "create(NULL)", "ridgeline_create",
               NULL, NULL, NULL, 0);
  expect_error(ridgeline_destroy(NULL), RIDGELINE_STATUS_NOT_INITIALIZED, "destroy(NULL)", "handle is NULL",
               NULL, NULL, NULL, 0);
  expect_error(ridgeline_set_stream(NULL, NULL), RIDGELINE_STATUS_NOT_INITIALIZED, "set_stream(NULL handle)",
               "handle is NULL", NULL, NULL, NULL, 0);
  expect_error(ridgeline_get_stream(h, NULL), RIDGELINE_STATUS_INVALID_VALUE, "get_stream(h, NULL)",
               "stream is NULL", NULL, NULL, NULL, 0);
#if !defined(RIDGELINE_TEST_CUDA)
  expect_error(ridgeline_set_stream(h, (void*)&host), RIDGELINE_STATUS_INVALID_VALUE,
               "set_stream on a host build", "host build", NULL, NULL, NULL, 0);
#endif

  /* A success clears the message; the status names are the enumerators'. */
  expect_status(
      ridgeline_dgemm(h, RIDGELINE_OP_N, RIDGELINE_OP_N, M, N, K, &one, da, LD, db, LD, &half, dc, LD),
      RIDGELINE_STATUS_SUCCESS, "dgemm after errors");
  ++checks;
  if (ridgeline_get_last_error()[0] != '\0')
    fail("a success left the message \"%s\"%s", ridgeline_get_last_error(), "");
  ++checks;
  if (strcmp(ridgeline_status_string(RIDGELINE_STATUS_INVALID_VALUE), "RIDGELINE_STATUS_INVALID_VALUE") !=
          0 ||
      strcmp(ridgeline_status_string(RIDGELINE_STATUS_SUCCESS), "RIDGELINE_STATUS_SUCCESS") != 0 ||
      ridgeline_status_string((ridgeline_status_t)99) == NULL) {
    fail("ridgeline_status_string: %s%s", "wrong names", "");
  }
  space_free(da), space_free(db), space_free(dc), space_free(fa), space_free(fb), space_free(fc);
  complex_errors(h);
  printf("error paths: %d checks, %d failures\n", checks - checks_before, failures - failures_before);
}

int main(void) {
#if defined(RIDGELINE_TEST_CUDA)
  const ridgeline_memory_space_t want = RIDGELINE_MEMORY_CUDA;
#else
  const ridgeline_memory_space_t want = RIDGELINE_MEMORY_HOST;
#endif
  if (ridgeline_get_memory_space() != want) {
    printf("FAIL: this test was built for %s pointers, but libridgeline_c.so takes %s pointers\n",
           want == RIDGELINE_MEMORY_CUDA ? "CUDA device" : "host",
           ridgeline_get_memory_space() == RIDGELINE_MEMORY_CUDA ? "CUDA device" : "host");
    return 1;
  }
  ridgeline_handle_t h = NULL;
  if (!expect_status(ridgeline_create(&h), RIDGELINE_STATUS_SUCCESS, "ridgeline_create")) return 1;
  void* stream = (void*)1;
  expect_status(ridgeline_get_stream(h, &stream), RIDGELINE_STATUS_SUCCESS, "ridgeline_get_stream");
  ++checks;
  if (stream != NULL) fail("a new handle's stream is %s%s, not NULL", "not", "");
  expect_status(ridgeline_set_stream(h, NULL), RIDGELINE_STATUS_SUCCESS, "ridgeline_set_stream(NULL)");
#if defined(RIDGELINE_TEST_CUDA)
  /* Half the run on the default stream, the rest on a stream of the application's own. */
  g_stream = NULL;
  correctness(h);
  CUDA_CHECK(cudaStreamCreate(&g_stream));
  expect_status(ridgeline_set_stream(h, (void*)g_stream), RIDGELINE_STATUS_SUCCESS, "ridgeline_set_stream");
  expect_status(ridgeline_get_stream(h, &stream), RIDGELINE_STATUS_SUCCESS, "ridgeline_get_stream");
  ++checks;
  if (stream != (void*)g_stream) fail("ridgeline_get_stream: %s%s", "not the stream set", "");
  correctness(h);
#else
  correctness(h);
#endif
  errors(h);
  expect_status(ridgeline_destroy(h), RIDGELINE_STATUS_SUCCESS, "ridgeline_destroy");
#if defined(RIDGELINE_TEST_CUDA)
  CUDA_CHECK(cudaStreamDestroy(g_stream));
#endif
  printf("%s: %d checks, %d failures\n", failures ? "FAILED" : "PASSED", checks, failures);
  return failures ? 1 : 0;
}
