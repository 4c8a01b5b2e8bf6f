/* A plain C program that uses the BLAS the way an application does: Fortran symbols with gfortran's
 * hidden string lengths, and CBLAS through the system's own cblas.h (OpenBLAS's, which also checks
 * that Ridgeline's exports match the declarations applications compile against). It is built once
 * linked against OpenBLAS only (run with LD_PRELOAD=libridgeline_blas.so) and once linked against
 * libridgeline_blas.so before OpenBLAS (tests/blas_abi_check.sh runs both).
 *
 * Every result is compared with a long double reference on seeded random inputs, including the
 * padding around each output, which must stay as it was. Its last lines, "expect <routine> <n>", are
 * the calls it made, which the wrapper matches with RIDGELINE_BLAS_VERBOSE's counts. Exit status 1
 * on any mismatch. */
#define _GNU_SOURCE
#include <cblas.h>
#include <complex.h>
#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
            const int*, const float*, const int*, const float*, float*, const int*, size_t, size_t);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
            const int*, const double*, const int*, const double*, double*, const int*, size_t, size_t);
void sgemv_(const char*, const int*, const int*, const float*, const float*, const int*, const float*,
            const int*, const float*, float*, const int*, size_t);
void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*, const double*,
            const int*, const double*, double*, const int*, size_t);

void cgemm_(const char*, const char*, const int*, const int*, const int*, const float complex*,
            const float complex*, const int*, const float complex*, const int*, const float complex*,
            float complex*, const int*, size_t, size_t);
void zgemm_(const char*, const char*, const int*, const int*, const int*, const double complex*,
            const double complex*, const int*, const double complex*, const int*, const double complex*,
            double complex*, const int*, size_t, size_t);
void cgemv_(const char*, const int*, const int*, const float complex*, const float complex*, const int*,
            const float complex*, const int*, const float complex*, float complex*, const int*, size_t);
void zgemv_(const char*, const int*, const int*, const double complex*, const double complex*, const int*,
            const double complex*, const int*, const double complex*, double complex*, const int*, size_t);

enum {
  SGEMM,
  DGEMM,
  SGEMV,
  DGEMV,
  CSGEMM,
  CDGEMM,
  CSGEMV,
  CDGEMV,
  CGEMM,
  ZGEMM,
  CGEMV,
  ZGEMV,
  CCGEMM,
  CZGEMM,
  CCGEMV,
  CZGEMV,
  ROUTINES
};
static const char* const routine_names[ROUTINES] = {
    "sgemm_", "dgemm_", "sgemv_", "dgemv_", "cblas_sgemm", "cblas_dgemm", "cblas_sgemv", "cblas_dgemv",
    "cgemm_", "zgemm_", "cgemv_", "zgemv_", "cblas_cgemm", "cblas_zgemm", "cblas_cgemv", "cblas_zgemv"};
static int calls[ROUTINES];
static int failures;

/* Counted atomically: the OpenMP case calls from two threads at once. */
#define COUNT(r) __atomic_fetch_add(&calls[r], 1, __ATOMIC_RELAXED)

static void fail(const char* what) {
  printf("FAIL: %s\n", what);
  __atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED);
}

/* The application's own error handlers, which must replace the library's defaults. */
static char xerbla_name[8];
static int xerbla_info, cblas_xerbla_param;
void xerbla_(const char* name, const int* info, size_t len) {
  memset(xerbla_name, 0, sizeof xerbla_name);
  memcpy(xerbla_name, name, len < 7 ? len : 7);
  xerbla_info = *info;
}
void cblas_xerbla(blasint p, char* rout, char* form, ...) {
  (void)rout, (void)form;
  cblas_xerbla_param = p;
}

static _Thread_local uint64_t rng_state = 0x9e3779b97f4a7c15ull; /* per thread: seeded, no race */
static double uniform(void) {                                    /* xorshift64*, in [-1, 1) */
  rng_state ^= rng_state >> 12, rng_state ^= rng_state << 25, rng_state ^= rng_state >> 27;
  return (double)((rng_state * 0x2545f4914f6cdd1dull) >> 11) / 4503599627370496.0 - 1.0;
}

/* Element (i, j) of op(X), X column-major with leading dimension ld. */
static long double at(const double* x, int ld, int trans, int i, int j) {
  return trans ? x[j + (size_t)i * ld] : x[i + (size_t)j * ld];
}

/* Checks c (m x n, leading dimension ldc, padded to ldc x n + pad) against alpha op(A) op(B) + beta c0,
 * in long double; eps is the precision's unit roundoff. Padding must equal the sentinel. */
static int check_gemm(const double* got, const double* c0, size_t csize, int m, int n, int k, int ldc,
                      double alpha, const double* a, int lda, int ta, const double* b, int ldb, int tb,
                      double beta, double eps, const char* label) {
  int bad = 0;
  for (size_t e = 0; e < csize; e++) {
    const int i = (int)(e % ldc), j = (int)(e / ldc);
    if (i >= m || j >= n) {
      if (memcmp(&got[e], &c0[e], sizeof(double)) != 0) bad = 1; /* outside C: untouched */
      continue;
    }
    long double ref = 0, mag = 0;
    for (int l = 0; l < k; l++) {
      ref += at(a, lda, ta, i, l) * at(b, ldb, tb, l, j);
      mag += fabsl(at(a, lda, ta, i, l) * at(b, ldb, tb, l, j));
    }
    ref *= alpha, mag *= fabs(alpha);
    if (beta != 0) ref += (long double)beta * c0[e], mag += fabs(beta * c0[e]);
    if (!(fabsl(got[e] - ref) <= 4 * (k + 2) * eps * mag + 1e-300)) bad = 1;
  }
  if (bad) fail(label);
  return bad;
}

static void fill(double* x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = uniform();
}
static void fill_nan(double* x, size_t n) {
  for (size_t i = 0; i < n; i++) x[i] = NAN;
}
static void to_float(float* f, const double* d, size_t n) {
  for (size_t i = 0; i < n; i++) f[i] = (float)d[i];
}
static void to_double(double* d, const float* f, size_t n) {
  for (size_t i = 0; i < n; i++) d[i] = f[i];
}

/* One GEMM through the Fortran symbols (both precisions) and CBLAS (both orders, both precisions);
 * inputs are generated in double and rounded to float for the single-precision calls, so one
 * reference serves. beta == 0 starts C as NaN: it must not be read. */
static void gemm_case(char ta, char tb, int m, int n, int k, double alpha, double beta) {
  const int tra = ta != 'N' && ta != 'n', trb = tb != 'N' && tb != 'n';
  const int lda = (tra ? k : m) + 3, ldb = (trb ? n : k) + 2, ldc = m + 1;
  const size_t asz = (size_t)lda * (tra ? m : k) + 1, bsz = (size_t)ldb * (trb ? k : n) + 1,
               csz = (size_t)ldc * n + 5;
  double *a = malloc(asz * sizeof *a), *b = malloc(bsz * sizeof *b), *c0 = malloc(csz * sizeof *c0),
         *c = malloc(csz * sizeof *c);
  float *af = malloc(asz * sizeof *af), *bf = malloc(bsz * sizeof *bf), *cf = malloc(csz * sizeof *cf);
  fill(a, asz), fill(b, bsz), fill(c0, csz);
  to_float(af, a, asz), to_float(bf, b, bsz);
  to_double(a, af, asz), to_double(b, bf, bsz); /* both precisions see the same inputs */
  if (beta == 0) fill_nan(c0, csz);
  to_float(cf, c0, csz), to_double(c0, cf, csz);
  char label[160];
  const float alphaf = (float)alpha, betaf = (float)beta;
  const double eps_d = 1.2e-16, eps_s = 6.0e-8;

  snprintf(label, sizeof label, "dgemm_ %c%c m=%d n=%d k=%d alpha=%g beta=%g", ta, tb, m, n, k, alpha, beta);
  memcpy(c, c0, csz * sizeof *c);
  dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1), COUNT(DGEMM);
  check_gemm(c, c0, csz, m, n, k, ldc, alpha, a, lda, tra, b, ldb, trb, beta, eps_d, label);

  label[0] = 's';
  to_float(cf, c0, csz);
  sgemm_(&ta, &tb, &m, &n, &k, &alphaf, af, &lda, bf, &ldb, &betaf, cf, &ldc, 1, 1), COUNT(SGEMM);
  to_double(c, cf, csz);
  check_gemm(c, c0, csz, m, n, k, ldc, alpha, a, lda, tra, b, ldb, trb, beta, eps_s, label);

  const enum CBLAS_TRANSPOSE cta = tra ? (ta == 'C' ? CblasConjTrans : CblasTrans) : CblasNoTrans,
                             ctb = trb ? CblasTrans : CblasNoTrans;
  snprintf(label, sizeof label, "cblas_dgemm col-major %c%c m=%d n=%d k=%d", ta, tb, m, n, k);
  memcpy(c, c0, csz * sizeof *c);
  cblas_dgemm(CblasColMajor, cta, ctb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc), COUNT(CDGEMM);
  check_gemm(c, c0, csz, m, n, k, ldc, alpha, a, lda, tra, b, ldb, trb, beta, eps_d, label);

  /* Row-major: the same buffers read as the transposes: C^T (n x m) = op(B)^T op(A)^T, i.e.
   * row-major C' = op'(B') op'(A') with B' = B read row-major. */
  snprintf(label, sizeof label, "cblas_dgemm row-major %c%c m=%d n=%d k=%d", ta, tb, m, n, k);
  memcpy(c, c0, csz * sizeof *c);
  cblas_dgemm(CblasRowMajor, ctb, cta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc), COUNT(CDGEMM);
  check_gemm(c, c0, csz, m, n, k, ldc, alpha, a, lda, tra, b, ldb, trb, beta, eps_d, label);

  snprintf(label, sizeof label, "cblas_sgemm row-major %c%c m=%d n=%d k=%d", ta, tb, m, n, k);
  to_float(cf, c0, csz);
  cblas_sgemm(CblasRowMajor, ctb, cta, n, m, k, alphaf, bf, ldb, af, lda, betaf, cf, ldc), COUNT(CSGEMM);
  to_double(c, cf, csz);
  check_gemm(c, c0, csz, m, n, k, ldc, alpha, a, lda, tra, b, ldb, trb, beta, eps_s, label);
  free(a), free(b), free(c0), free(c), free(af), free(bf), free(cf);
}

/* y (BLAS vector of len entries, increment inc) as a gemm output column: element i's offset. */
static size_t vec_at(int len, int inc, int i) {
  return (size_t)(inc < 0 ? len - 1 - i : i) * (size_t)abs(inc);
}

static void gemv_case(char t, int m, int n, int incx, int incy, double alpha, double beta) {
  const int tr = t != 'N' && t != 'n', lda = m + 2;
  const int lx = tr ? m : n, ly = tr ? n : m;
  const size_t asz = (size_t)lda * n, xsz = (size_t)lx * abs(incx), ysz = (size_t)ly * abs(incy) + 2;
  double *a = malloc(asz * sizeof *a), *x = malloc(xsz * sizeof *x), *y0 = malloc(ysz * sizeof *y0),
         *y = malloc(ysz * sizeof *y);
  float *af = malloc(asz * sizeof *af), *xf = malloc(xsz * sizeof *xf), *yf = malloc(ysz * sizeof *yf);
  fill(a, asz), fill(x, xsz), fill(y0, ysz);
  if (beta == 0) fill_nan(y0, ysz);
  to_float(af, a, asz), to_double(a, af, asz), to_float(xf, x, xsz), to_double(x, xf, xsz);
  to_float(yf, y0, ysz), to_double(y0, yf, ysz);
  const float alphaf = (float)alpha, betaf = (float)beta;
  for (int variant = 0; variant < 5; variant++) {
    const double eps = variant == 1 || variant == 4 ? 6.0e-8 : 1.2e-16;
    memcpy(y, y0, ysz * sizeof *y);
    to_float(yf, y0, ysz);
    if (variant == 0) dgemv_(&t, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy, 1), COUNT(DGEMV);
    if (variant == 1) {
      sgemv_(&t, &m, &n, &alphaf, af, &lda, xf, &incx, &betaf, yf, &incy, 1), COUNT(SGEMV);
      to_double(y, yf, ysz);
    }
    if (variant == 2) {
      cblas_dgemv(CblasColMajor, tr ? CblasTrans : CblasNoTrans, m, n, alpha, a, lda, x, incx, beta, y, incy);
      COUNT(CDGEMV);
    }
    if (variant == 3) { /* row-major n x m matrix on the same buffer = A^T */
      cblas_dgemv(CblasRowMajor, tr ? CblasNoTrans : CblasTrans, n, m, alpha, a, lda, x, incx, beta, y, incy);
      COUNT(CDGEMV);
    }
    if (variant == 4) {
      cblas_sgemv(CblasRowMajor, tr ? CblasNoTrans : CblasTrans, n, m, alphaf, af, lda, xf, incx, betaf, yf,
                  incy);
      COUNT(CSGEMV);
      to_double(y, yf, ysz);
    }
    int bad = 0;
    for (size_t e = 0; e < ysz; e++) {
      int i = -1;
      for (int r = 0; r < ly; r++)
        if (vec_at(ly, incy, r) == e) i = r;
      if (i < 0 || m == 0 || n == 0) { /* outside y, or the reference's quick return: untouched */
        if (memcmp(&y[e], &y0[e], sizeof(double)) != 0) bad = 1;
        continue;
      }
      long double ref = 0, mag = 0;
      for (int l = 0; l < lx; l++) {
        const long double p = at(a, lda, tr, i, l) * (long double)x[vec_at(lx, incx, l)];
        ref += p, mag += fabsl(p);
      }
      ref *= alpha, mag *= fabs(alpha);
      if (beta != 0) ref += (long double)beta * y0[e], mag += fabs(beta * y0[e]);
      if (!(fabsl(y[e] - ref) <= 4 * (lx + 2) * eps * mag + 1e-300)) bad = 1;
    }
    if (bad) {
      char label[160];
      snprintf(label, sizeof label, "gemv variant %d %c m=%d n=%d incx=%d incy=%d alpha=%g beta=%g", variant,
               t, m, n, incx, incy, alpha, beta);
      fail(label);
    }
  }
  free(a), free(x), free(y0), free(y), free(af), free(xf), free(yf);
}

/* ---- complex: N, T and C, Fortran and CBLAS, both orders ---------------------------------------------
 * Element (i, j) of X (column-major, leading dimension ld) read transposed (tr) and conjugated (cj). */
static long double complex zop(const double complex* x, int ld, int tr, int cj, int i, int j) {
  const double complex v = tr ? x[j + (size_t)i * ld] : x[i + (size_t)j * ld];
  return cj ? conj(v) : v;
}
static void zfill(double complex* x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const double re = uniform();
    x[i] = re + I * uniform();
  }
}
static void to_cfloat(float complex* f, double complex* d, size_t n) { /* rounds d to float, in place too */
  /* Two loops: one loop writing both f[i] and d[i] left the last element of d unrounded (n = 1107) under
   * Debian 12's GCC 12.2 at -O3 -std=c11, and those elements were compared bit for bit. */
  for (size_t i = 0; i < n; i++) f[i] = CMPLXF((float)creal(d[i]), (float)cimag(d[i]));
  for (size_t i = 0; i < n; i++) d[i] = CMPLX(crealf(f[i]), cimagf(f[i]));
}
/* c (m x n, leading dimension ldc, csize elements with padding) against alpha op(A) op(B) + beta c0:
 * each part of a complex dot product of length k is a real one of length 2k, hence 4 (2k + 2) eps. */
static int check_zgemm(const double complex* got, const double complex* c0, size_t csize, int m, int n, int k,
                       int ldc, double complex alpha, const double complex* a, int lda, char ta,
                       const double complex* b, int ldb, char tb, double complex beta, double eps,
                       const char* label) {
  int bad = 0;
  for (size_t e = 0; e < csize; e++) {
    const int i = (int)(e % ldc), j = (int)(e / ldc);
    if (i >= m || j >= n) {
      if (memcmp(&got[e], &c0[e], sizeof got[e]) != 0) bad = 1;
      continue;
    }
    long double complex ref = 0;
    long double mag = 0;
    for (int l = 0; l < k; l++) {
      const long double complex p =
          zop(a, lda, ta != 'N', ta == 'C', i, l) * zop(b, ldb, tb != 'N', tb == 'C', l, j);
      ref += p, mag += cabsl(p);
    }
    ref *= alpha, mag *= cabs(alpha);
    if (beta != 0) ref += beta * c0[e], mag += cabs(beta * c0[e]);
    if (!(cabsl(got[e] - ref) <= 4 * (2 * k + 2) * eps * mag + 1e-300)) bad = 1;
  }
  if (bad) fail(label);
  return bad;
}

static void complex_gemm_case(char ta, char tb, int m, int n, int k, double complex alpha,
                              double complex beta) {
  const int tra = ta != 'N', trb = tb != 'N';
  const int lda = (tra ? k : m) + 3, ldb = (trb ? n : k) + 2, ldc = m + 1;
  const size_t asz = (size_t)lda * (tra ? m : k) + 1, bsz = (size_t)ldb * (trb ? k : n) + 1,
               csz = (size_t)ldc * n + 5;
  double complex *a = malloc(asz * sizeof *a), *b = malloc(bsz * sizeof *b), *c0 = malloc(csz * sizeof *c0),
                 *c = malloc(csz * sizeof *c);
  float complex *af = malloc(asz * sizeof *af), *bf = malloc(bsz * sizeof *bf),
                *cf = malloc(csz * sizeof *cf);
  zfill(a, asz), zfill(b, bsz), zfill(c0, csz);
  if (beta == 0)
    for (size_t e = 0; e < csz; e++) c0[e] = NAN + I * NAN;
  to_cfloat(af, a, asz), to_cfloat(bf, b, bsz), to_cfloat(cf, c0, csz); /* one set of inputs for both */
  const float complex alphaf = (float complex)alpha, betaf = (float complex)beta;
  const enum CBLAS_TRANSPOSE cta = ta == 'N'   ? CblasNoTrans
                                   : ta == 'T' ? CblasTrans
                                               : CblasConjTrans,
                             ctb = tb == 'N'   ? CblasNoTrans
                                   : tb == 'T' ? CblasTrans
                                               : CblasConjTrans;
  char label[160];
  for (int variant = 0; variant < 5; variant++) {
    const double eps = variant >= 3 ? 6.0e-8 : 1.2e-16;
    memcpy(c, c0, csz * sizeof *c);
    for (size_t e = 0; e < csz; e++) cf[e] = (float complex)c0[e];
    if (variant == 0)
      zgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1), COUNT(ZGEMM);
    if (variant == 1)
      cblas_zgemm(CblasColMajor, cta, ctb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc), COUNT(CZGEMM);
    if (variant == 2) /* row-major C^T = op(B)^T op(A)^T: the same letters, B and A swapped */
      cblas_zgemm(CblasRowMajor, ctb, cta, n, m, k, &alpha, b, ldb, a, lda, &beta, c, ldc), COUNT(CZGEMM);
    if (variant == 3)
      cgemm_(&ta, &tb, &m, &n, &k, &alphaf, af, &lda, bf, &ldb, &betaf, cf, &ldc, 1, 1), COUNT(CGEMM);
    if (variant == 4)
      cblas_cgemm(CblasRowMajor, ctb, cta, n, m, k, &alphaf, bf, ldb, af, lda, &betaf, cf, ldc),
          COUNT(CCGEMM);
    if (variant >= 3)
      for (size_t e = 0; e < csz; e++) c[e] = cf[e];
    snprintf(label, sizeof label, "complex gemm variant %d %c%c m=%d n=%d k=%d", variant, ta, tb, m, n, k);
    check_zgemm(c, c0, csz, m, n, k, ldc, alpha, a, lda, ta, b, ldb, tb, beta, eps, label);
  }
  free(a), free(b), free(c0), free(c), free(af), free(bf), free(cf);
}

/* y = alpha op(A) x + beta y on one m x n column-major buffer, through col-major letter t (zgemv_, cgemv_,
 * cblas col-major) and through the row-major n x m matrix the same buffer is (cblas row-major, letter t
 * on A^T: N is A^T, T is A, C is conj(A), a conjugate without transpose). */
static void complex_gemv_case(char t, int m, int n, int incx, int incy, double complex alpha,
                              double complex beta) {
  const int lda = m + 2;
  const enum CBLAS_TRANSPOSE ct = t == 'N' ? CblasNoTrans : t == 'T' ? CblasTrans : CblasConjTrans;
  for (int variant = 0; variant < 5; variant++) {
    const int row = variant >= 3;
    /* op(A) as (transposed, conjugated) reads of the column-major buffer */
    const int tr = row ? t == 'N' : t != 'N', cj = t == 'C';
    const int lx = tr ? m : n, ly = tr ? n : m;
    const size_t asz = (size_t)lda * n, xsz = (size_t)lx * abs(incx), ysz = (size_t)ly * abs(incy) + 2;
    double complex *a = malloc(asz * sizeof *a), *x = malloc(xsz * sizeof *x), *y0 = malloc(ysz * sizeof *y0),
                   *y = malloc(ysz * sizeof *y);
    float complex *af = malloc(asz * sizeof *af), *xf = malloc(xsz * sizeof *xf),
                  *yf = malloc(ysz * sizeof *yf);
    zfill(a, asz), zfill(x, xsz), zfill(y0, ysz);
    if (beta == 0)
      for (size_t e = 0; e < ysz; e++) y0[e] = NAN + I * NAN;
    to_cfloat(af, a, asz), to_cfloat(xf, x, xsz), to_cfloat(yf, y0, ysz);
    const float complex alphaf = (float complex)alpha, betaf = (float complex)beta;
    memcpy(y, y0, ysz * sizeof *y);
    double eps = 1.2e-16;
    if (variant == 0) zgemv_(&t, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy, 1), COUNT(ZGEMV);
    if (variant == 1)
      cblas_zgemv(CblasColMajor, ct, m, n, &alpha, a, lda, x, incx, &beta, y, incy), COUNT(CZGEMV);
    if (variant == 2) {
      cgemv_(&t, &m, &n, &alphaf, af, &lda, xf, &incx, &betaf, yf, &incy, 1), COUNT(CGEMV);
      eps = 6.0e-8;
    }
    if (variant == 3)
      cblas_zgemv(CblasRowMajor, ct, n, m, &alpha, a, lda, x, incx, &beta, y, incy), COUNT(CZGEMV);
    if (variant == 4) {
      cblas_cgemv(CblasRowMajor, ct, n, m, &alphaf, af, lda, xf, incx, &betaf, yf, incy), COUNT(CCGEMV);
      eps = 6.0e-8;
    }
    if (variant == 2 || variant == 4)
      for (size_t e = 0; e < ysz; e++) y[e] = yf[e];
    int bad = 0;
    for (size_t e = 0; e < ysz; e++) {
      int i = -1;
      for (int r = 0; r < ly; r++)
        if (vec_at(ly, incy, r) == e) i = r;
      if (i < 0) {
        if (memcmp(&y[e], &y0[e], sizeof y[e]) != 0) bad = 1;
        continue;
      }
      long double complex ref = 0;
      long double mag = 0;
      for (int l = 0; l < lx; l++) {
        const long double complex p = zop(a, lda, tr, cj, i, l) * x[vec_at(lx, incx, l)];
        ref += p, mag += cabsl(p);
      }
      ref *= alpha, mag *= cabs(alpha);
      if (beta != 0) ref += beta * y0[e], mag += cabs(beta * y0[e]);
      if (!(cabsl(y[e] - ref) <= 4 * (2 * lx + 2) * eps * mag + 1e-300)) bad = 1;
    }
    if (bad) {
      char label[160];
      snprintf(label, sizeof label, "complex gemv variant %d %c m=%d n=%d incx=%d incy=%d", variant, t, m, n,
               incx, incy);
      fail(label);
    }
    free(a), free(x), free(y0), free(y), free(af), free(xf), free(yf);
  }
}

static void complex_cases(void) {
  const char letters[] = {'N', 'T', 'C'};
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 3; q++)
      complex_gemm_case(letters[p], letters[q], 37, 29, 41, 0.7 - 0.4 * I, q % 2 ? 0.0 : 1.3 + 0.2 * I);
  complex_gemm_case('C', 'N', 70, 1, 33, 1.0, 0.5);     /* one column: GEMV inside GEMM */
  complex_gemm_case('N', 'C', 13, 11, 0, 1.0, 0.5 * I); /* k == 0: C = beta C */
  complex_gemm_case('C', 'C', 130, 150, 140, 1.1 + 0.1 * I, 0.0);
  const int incs[] = {1, -2};
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++)
        complex_gemv_case(letters[t], 23, 31, incs[i], incs[j], 0.7 + 0.3 * I, j ? 0.0 : 0.4 - 1.0 * I);
}

/* Errors: the first bad argument's number reaches the application's xerbla, and nothing is written. */
static void error_cases(void) {
  double a[64], b[64], c[64], c0[64], alpha = 1, beta = 0;
  fill(a, 64), fill(b, 64), fill(c0, 64), memcpy(c, c0, sizeof c);
  int m = 4, n = 4, k = 4, lda = 3, ldb = 4, ldc = 4, inc0 = 0, inc1 = 1, neg = -1;
  xerbla_info = 0;
  dgemm_("N", "N", &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1), COUNT(DGEMM);
  if (xerbla_info != 8 || strncmp(xerbla_name, "DGEMM", 5) != 0) fail("dgemm_ lda < m: xerbla_ DGEMM 8");
  xerbla_info = 0;
  dgemm_("N", "X", &neg, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1), COUNT(DGEMM);
  if (xerbla_info != 2) fail("dgemm_ bad transb before bad m: xerbla_ 2");
  xerbla_info = 0;
  dgemv_("T", &m, &n, &alpha, a, &ldb, b, &inc1, &beta, c, &inc0, 1), COUNT(DGEMV);
  if (xerbla_info != 11 || strncmp(xerbla_name, "DGEMV", 5) != 0) fail("dgemv_ incy 0: xerbla_ DGEMV 11");
  cblas_xerbla_param = 0;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 3, b, 4, 0.0, c, 4), COUNT(CDGEMM);
  if (cblas_xerbla_param != 9) fail("cblas_dgemm row-major lda < k: cblas_xerbla 9");
  cblas_xerbla_param = 0;
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 3, b, 4, 0.0, c, 4), COUNT(CDGEMM);
  if (cblas_xerbla_param != 9) fail("cblas_dgemm col-major lda < m: cblas_xerbla 9");
  cblas_xerbla_param = 0;
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 4, b, 3, 0.0, c, 4), COUNT(CDGEMM);
  if (cblas_xerbla_param != 11) fail("cblas_dgemm row-major ldb < n: cblas_xerbla 11");
  cblas_xerbla_param = 0;
  cblas_dgemm((enum CBLAS_ORDER)99, CblasNoTrans, CblasNoTrans, 4, 4, 4, 1.0, a, 4, b, 4, 0.0, c, 4);
  COUNT(CDGEMM);
  if (cblas_xerbla_param != 1) fail("cblas_dgemm bad order: cblas_xerbla 1");
  cblas_xerbla_param = 0;
  cblas_dgemv(CblasRowMajor, CblasNoTrans, -1, -1, 1.0, a, 4, b, 1, 0.0, c, 1), COUNT(CDGEMV);
  if (cblas_xerbla_param != 4) fail("cblas_dgemv row-major m, n < 0: cblas_xerbla 4 (n is checked first)");
  cblas_xerbla_param = 0;
  cblas_dgemv(CblasColMajor, CblasNoTrans, -1, -1, 1.0, a, 4, b, 1, 0.0, c, 1), COUNT(CDGEMV);
  if (cblas_xerbla_param != 3) fail("cblas_dgemv col-major m, n < 0: cblas_xerbla 3");
  if (memcmp(c, c0, sizeof c) != 0) fail("an erroneous call wrote its output");
}

/* LAPACK's blocked LU update: A22 -= A21 A12, all three blocks of one array. */
static void blocked_lu_update(void) {
  enum { N = 40, LDA = 43, J = 8, JB = 8 };
  double* a = malloc(sizeof(double) * LDA * N);
  fill(a, (size_t)LDA * N);
  double* ref = malloc(sizeof(double) * LDA * N);
  memcpy(ref, a, sizeof(double) * LDA * N);
  const int m = N - J - JB, n = N - J - JB, k = JB, lda = LDA;
  const double alpha = -1, beta = 1;
  dgemm_("N", "N", &m, &n, &k, &alpha, a + (J + JB) + (size_t)J * LDA, &lda, a + J + (size_t)(J + JB) * LDA,
         &lda, &beta, a + (J + JB) + (size_t)(J + JB) * LDA, &lda, 1, 1);
  COUNT(DGEMM);
  check_gemm(a + (J + JB) + (size_t)(J + JB) * LDA, ref + (J + JB) + (size_t)(J + JB) * LDA,
             (size_t)LDA * (n - 1) + m, m, n, k, LDA, alpha, ref + (J + JB) + (size_t)J * LDA, LDA, 0,
             ref + J + (size_t)(J + JB) * LDA, LDA, 0, beta, 1.2e-16,
             "dgemm_ blocked LU update (A12, A22 of one array)");
  free(a), free(ref);
}

/* Calls from a thread other than the first caller's, and from inside an OpenMP parallel region. */
static void* thread_body(void* arg) {
  (void)arg;
  gemm_case('T', 'N', 19, 23, 17, 0.5, 1.5);
  return NULL;
}

/* "first-in-parallel": the first calls come from inside an OpenMP parallel region, where Kokkos's
 * OpenMP space cannot start; everything must still be served, and right. */
int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "first-in-parallel") == 0) {
#pragma omp parallel num_threads(2)
    { gemv_case(omp_get_thread_num() ? 'N' : 'T', 15, 12, -2, 1, 0.9, 0.3); }
  }
  Dl_info info = {0};
  if (dladdr(dlsym(RTLD_DEFAULT, "dgemm_"), &info) == 0 ||
      strstr(info.dli_fname, "libridgeline_blas") == NULL) {
    printf("dgemm_ comes from %s, not libridgeline_blas.so\n", info.dli_fname ? info.dli_fname : "(unknown)");
    return 1;
  }
  const char letters[] = {'N', 'T', 'c', 'n'};
  for (int p = 0; p < 4; p++) {
    for (int q = 0; q < 4; q++) gemm_case(letters[p], letters[q], 37, 29, 41, 0.7, q % 2 ? 0.0 : 1.3);
  }
  gemm_case('N', 'N', 64, 1, 33, 1.0, 0.5); /* one column: Ridgeline's GEMV inside GEMM */
  gemm_case('T', 'T', 1, 1, 70, 1.0, 0.0);
  gemm_case('N', 'T', 13, 11, 0, 1.0, 0.5); /* k == 0: C = beta C */
  gemm_case('N', 'N', 13, 11, 5, 0.0, 0.0); /* alpha == 0, beta == 0: C = 0, NaN never read */
  gemm_case('N', 'N', 0, 11, 5, 1.0, 0.0);  /* m == 0: nothing */
  gemm_case('N', 'N', 130, 150, 140, 1.1, 0.9);
  const int incs[] = {1, 2, -1, -3};
  for (int t = 0; t < 2; t++) {
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) gemv_case(t ? 'T' : 'N', 23, 31, incs[i], incs[j], 0.7, j % 2 ? 0.0 : 0.4);
    }
  }
  gemv_case('N', 23, 0, 1, 1, 1.0, 0.5); /* n == 0: y untouched, as the reference BLAS returns first */
  gemv_case('T', 9, 7, 1, -2, 0.0, 0.5); /* alpha == 0: y = beta y */
  complex_cases();
  error_cases();
  blocked_lu_update();

  pthread_t thread;
  pthread_create(&thread, NULL, thread_body, NULL);
  pthread_join(thread, NULL);
#pragma omp parallel num_threads(2)
  { gemv_case(omp_get_thread_num() ? 'T' : 'N', 17, 21, 1, -1, 1.0, 0.0); }

  for (int r = 0; r < ROUTINES; r++) printf("expect %s %d\n", routine_names[r], calls[r]);
  if (failures != 0) printf("%d checks failed\n", failures);
  return failures == 0 ? 0 : 1;
}
