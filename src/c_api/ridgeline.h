#pragma once
/* ridgeline.h: Ridgeline's C API (libridgeline_c.so), for C programs and for Fortran through
 * iso_c_binding (ridgeline.f90 is the interface module).
 *
 * Matrices are column-major and live in the memory of the build's default space: device pointers
 * (cudaMalloc) in a CUDA build, host pointers in a host build; ridgeline_get_memory_space() says
 * which. The calls mirror cuBLAS's (cublasDgemm, cublasDgemv, cublasCreate, cublasSetStream) argument
 * for argument, so that code ported from cuBLAS changes only names:
 *
 *   cuBLAS                              ridgeline.h
 *   cublasHandle_t, cublasStatus_t      ridgeline_handle_t, ridgeline_status_t
 *   cublasOperation_t: CUBLAS_OP_N/T/C  ridgeline_operation_t: RIDGELINE_OP_N/T/C
 *   cublasCreate, cublasDestroy         ridgeline_create, ridgeline_destroy
 *   cublasSetStream, cublasGetStream    ridgeline_set_stream, ridgeline_get_stream
 *   cublas[SDCZ]gemm, cublas[SDCZ]gemv  ridgeline_[sdcz]gemm, ridgeline_[sdcz]gemv
 *   cuComplex, cuDoubleComplex          ridgeline_complex_float, ridgeline_complex_double
 *
 * The status values are cuBLAS's numbers, so code that tests them keeps working. alpha and beta are
 * host pointers (cuBLAS's default pointer mode; there is no device pointer mode). On a CUDA build a
 * call is asynchronous on the handle's stream, as cuBLAS's are; on a host build it has finished when
 * it returns. Every argument is checked before anything runs; a call that fails writes nothing, and
 * ridgeline_get_last_error() names the argument and the shapes, e.g.
 * "ridgeline_dgemm: lda (3) < max(1, m) (5) with transa = N". No C++ exception leaves the library.
 *
 * Kokkos lives inside the library, private and hidden. ridgeline_create starts it if the library has
 * not yet (on a CUDA build, on the calling thread's current device; one device per process), and it
 * is finalized at exit. Like cuBLAS handles, a handle is meant for one host thread at a time. */
#ifdef __cplusplus
extern "C" {
#endif

typedef enum ridgeline_status {
  RIDGELINE_STATUS_SUCCESS = 0,
  RIDGELINE_STATUS_NOT_INITIALIZED = 1, /* a null handle, or Kokkos / the device could not start */
  RIDGELINE_STATUS_ALLOC_FAILED = 3,
  RIDGELINE_STATUS_INVALID_VALUE = 7, /* a bad argument: nothing was run */
  RIDGELINE_STATUS_EXECUTION_FAILED = 13,
  RIDGELINE_STATUS_INTERNAL_ERROR = 14,
  RIDGELINE_STATUS_NOT_SUPPORTED = 15
} ridgeline_status_t;

typedef enum ridgeline_operation {
  RIDGELINE_OP_N = 0, /* op(A) = A */
  RIDGELINE_OP_T = 1, /* op(A) = A^T */
  RIDGELINE_OP_C = 2  /* op(A) = A^H, which is A^T for the real types here */
} ridgeline_operation_t;

typedef enum ridgeline_memory_space {
  RIDGELINE_MEMORY_HOST = 0, /* host build: pointers from malloc */
  RIDGELINE_MEMORY_CUDA = 1  /* CUDA build: device pointers from cudaMalloc (or managed memory) */
} ridgeline_memory_space_t;

typedef struct ridgeline_context* ridgeline_handle_t;

/* The complex types: a real part then an imaginary one, aligned to the real type. That is the layout of
 * C99's float _Complex and double _Complex, C++'s std::complex, Fortran's complex(c_float_complex) and
 * complex(c_double_complex), cuBLAS's cuComplex and cuDoubleComplex; arrays of any of those can be
 * passed by a cast. Kokkos::complex, which the library computes in, has the same layout but aligns to
 * its whole size: an operand not aligned so (a submatrix at an odd element) goes through an aligned copy,
 * so any element's address may be passed. */
typedef struct ridgeline_complex_float {
  float re, im;
} ridgeline_complex_float;
typedef struct ridgeline_complex_double {
  double re, im;
} ridgeline_complex_double;

/* The memory the pointers of this library's build must live in. */
ridgeline_memory_space_t ridgeline_get_memory_space(void);

/* A static name for a status ("RIDGELINE_STATUS_INVALID_VALUE"); never null. */
const char* ridgeline_status_string(ridgeline_status_t status);

/* The message of this thread's last call into the library: the argument, the shapes and the cause
 * when it failed, "" when it succeeded. Valid until this thread's next call. */
const char* ridgeline_get_last_error(void);

ridgeline_status_t ridgeline_create(ridgeline_handle_t* handle);
ridgeline_status_t ridgeline_destroy(ridgeline_handle_t handle);

/* stream: a cudaStream_t on a CUDA build (NULL: the default stream); a host build has no streams and
 * takes only NULL (anything else is RIDGELINE_STATUS_INVALID_VALUE). */
ridgeline_status_t ridgeline_set_stream(ridgeline_handle_t handle, void* stream);
ridgeline_status_t ridgeline_get_stream(ridgeline_handle_t handle, void** stream);

/* C = alpha op(A) op(B) + beta C, column-major; op(A) is m x k, op(B) k x n, C m x n. beta == 0
 * never reads C; k == 0 or alpha == 0 never reads A or B. */
ridgeline_status_t ridgeline_sgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                   ridgeline_operation_t transb, int m, int n, int k, const float* alpha,
                                   const float* A, int lda, const float* B, int ldb, const float* beta,
                                   float* C, int ldc);
ridgeline_status_t ridgeline_dgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                   ridgeline_operation_t transb, int m, int n, int k, const double* alpha,
                                   const double* A, int lda, const double* B, int ldb, const double* beta,
                                   double* C, int ldc);
/* Complex: RIDGELINE_OP_T transposes, RIDGELINE_OP_C conjugates and transposes. */
ridgeline_status_t ridgeline_cgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                   ridgeline_operation_t transb, int m, int n, int k,
                                   const ridgeline_complex_float* alpha, const ridgeline_complex_float* A,
                                   int lda, const ridgeline_complex_float* B, int ldb,
                                   const ridgeline_complex_float* beta, ridgeline_complex_float* C, int ldc);
ridgeline_status_t ridgeline_zgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                   ridgeline_operation_t transb, int m, int n, int k,
                                   const ridgeline_complex_double* alpha, const ridgeline_complex_double* A,
                                   int lda, const ridgeline_complex_double* B, int ldb,
                                   const ridgeline_complex_double* beta, ridgeline_complex_double* C,
                                   int ldc);

/* y = alpha op(A) x + beta y, A m x n column-major; incx and incy may be negative (BLAS order: the
 * vector is walked from its end), not zero. beta == 0 never reads y. */
ridgeline_status_t ridgeline_sgemv(ridgeline_handle_t handle, ridgeline_operation_t trans, int m, int n,
                                   const float* alpha, const float* A, int lda, const float* x, int incx,
                                   const float* beta, float* y, int incy);
ridgeline_status_t ridgeline_dgemv(ridgeline_handle_t handle, ridgeline_operation_t trans, int m, int n,
                                   const double* alpha, const double* A, int lda, const double* x, int incx,
                                   const double* beta, double* y, int incy);
ridgeline_status_t ridgeline_cgemv(ridgeline_handle_t handle, ridgeline_operation_t trans, int m, int n,
                                   const ridgeline_complex_float* alpha, const ridgeline_complex_float* A,
                                   int lda, const ridgeline_complex_float* x, int incx,
                                   const ridgeline_complex_float* beta, ridgeline_complex_float* y, int incy);
ridgeline_status_t ridgeline_zgemv(ridgeline_handle_t handle, ridgeline_operation_t trans, int m, int n,
                                   const ridgeline_complex_double* alpha, const ridgeline_complex_double* A,
                                   int lda, const ridgeline_complex_double* x, int incx,
                                   const ridgeline_complex_double* beta, ridgeline_complex_double* y,
                                   int incy);

#ifdef __cplusplus
}
#endif
