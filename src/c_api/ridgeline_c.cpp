// libridgeline_c.so: ridgeline.h over Ridgeline's GEMM and GEMV, on the build's default backend.
//
// - Host build: the kernels are host_abi's (src/blas/host_abi.cpp), the object libridgeline_blas.so
//   links too, so this translation unit instantiates nothing and includes no Kokkos header.
// - CUDA build (RIDGELINE_C_API_CUDA): float and double GEMM and GEMV on Kokkos::Cuda, over unmanaged
//   LayoutStride views of the caller's device pointers, on a Kokkos::Cuda instance made from the
//   handle's stream (Kokkos 3.4's Cuda(cudaStream_t)). Calls do not fence, like cuBLAS's.
//
// Every entry point checks its arguments before anything runs, and every C++ exception stops at the
// boundary (c_boundary): std::invalid_argument (Ridgeline's own checks, whose text names the shapes)
// becomes RIDGELINE_STATUS_INVALID_VALUE, std::bad_alloc RIDGELINE_STATUS_ALLOC_FAILED, anything else
// RIDGELINE_STATUS_INTERNAL_ERROR, each with its text in this thread's last-error message.
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "ridgeline.h"

#if defined(RIDGELINE_C_API_CUDA)
#include <cuda_runtime_api.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>

#include "ridgeline/gemm.hpp"
#include "ridgeline/gemv.hpp"
#endif
// Host builds run host_abi's kernels; every build takes its quick-return rule.
#include "blas/host_abi.hpp"

#define RIDGELINE_C_EXPORT extern "C" __attribute__((visibility("default")))

struct ridgeline_context {
  void* stream = nullptr;
#if defined(RIDGELINE_C_API_CUDA)
  std::optional<Kokkos::Cuda> exec;  // empty once Kokkos is finalized at exit
#endif
};

namespace {

thread_local std::string t_last_error;

// Thrown where starting Kokkos or the device fails: RIDGELINE_STATUS_NOT_INITIALIZED.
struct not_initialized : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

ridgeline_status_t fail(ridgeline_status_t status, std::string message) {
  t_last_error = std::move(message);
  return status;
}

// Runs f (which returns a status and sets the message of a failure itself) with no exception
// leaving; a success clears the message.
template <class F>
ridgeline_status_t c_boundary(const char* name, F&& f) noexcept {
  try {
    t_last_error.clear();
    return f();
  } catch (const not_initialized& e) {
    return fail(RIDGELINE_STATUS_NOT_INITIALIZED, std::string(name) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    return fail(RIDGELINE_STATUS_INVALID_VALUE, std::string(name) + ": " + e.what());
  } catch (const std::bad_alloc& e) {
    return fail(RIDGELINE_STATUS_ALLOC_FAILED, std::string(name) + ": out of memory (" + e.what() + ")");
  } catch (const std::exception& e) {
    return fail(RIDGELINE_STATUS_INTERNAL_ERROR, std::string(name) + ": " + e.what());
  } catch (...) {
    return fail(RIDGELINE_STATUS_INTERNAL_ERROR, std::string(name) + ": an unknown C++ exception");
  }
}

#if defined(RIDGELINE_C_API_CUDA)

// Handles alive now, so that Kokkos can be finalized at exit after their instances are gone.
std::mutex g_mutex;
std::set<ridgeline_context*> g_handles;
bool g_we_initialized = false, g_finalized = false;

void finalize_kokkos() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_finalized = true;
  if (!g_we_initialized || !Kokkos::is_initialized()) return;
  try {
    for (ridgeline_context* h : g_handles) h->exec.reset();
    ridgeline::release_workspace();
    Kokkos::finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[ridgeline_c] Kokkos::finalize at exit: %s\n", e.what());
  }
}

// Kokkos 3.4 drives one device per process: the calling thread's current device at the first
// ridgeline_create (the CUDA runtime's device 0 unless the application chose another).
void ensure_kokkos() {
  if (g_finalized) throw not_initialized("Ridgeline's Kokkos was finalized at exit");
  static std::once_flag once;
  std::call_once(once, [] {  // an exception leaves the flag unset, so a later call retries
    if (Kokkos::is_initialized()) return;
    int count = 0, device = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count == 0) e = cudaErrorNoDevice;
    if (e == cudaSuccess) e = cudaGetDevice(&device);
    if (e != cudaSuccess) {
      throw not_initialized(std::string("no usable CUDA device (") + cudaGetErrorName(e) + ": " +
                            cudaGetErrorString(e) + ")");
    }
#if KOKKOS_VERSION >= 40000
    Kokkos::initialize(Kokkos::InitializationSettings().set_disable_warnings(true).set_device_id(device));
#else
    Kokkos::InitArguments args;
    args.disable_warnings = true;
    args.device_id = device;
    Kokkos::initialize(args);
#endif
    g_we_initialized = true;
    std::atexit(finalize_kokkos);
  });
}

using Exec = Kokkos::Cuda;
using Space = Kokkos::CudaSpace;

const Exec& exec_of(ridgeline_context* h) {
  if (!h->exec) throw not_initialized("Ridgeline's Kokkos was finalized at exit");
  return *h->exec;
}

template <class T>
using Matrix = Kokkos::View<T**, Kokkos::LayoutStride, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using Vector = Kokkos::View<T*, Kokkos::LayoutStride, Space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T>
Matrix<T> column_major(T* p, int rows, int cols, int ld) {
  return Matrix<T>(p, Kokkos::LayoutStride(rows, 1, cols, ld));
}

const char* trans_letter(ridgeline_operation_t t) {
  return t == RIDGELINE_OP_N ? "N" : "T";  // C is T for real types
}

// dst[i] = src[(n - 1 - i) * inc] (reverse = true) or dst[(n - 1 - i) * inc] = src[i]: a BLAS vector
// with a negative increment, which a view cannot express, to and from a contiguous copy.
template <class T>
struct ReversedCopy {
  const T* src;
  T* dst;
  int n;
  std::ptrdiff_t inc;
  bool gather;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const std::ptrdiff_t j = static_cast<std::ptrdiff_t>(n - 1 - i) * inc;
    if (gather) {
      dst[i] = src[j];
    } else {
      dst[j] = src[i];
    }
  }
};

template <class T>
void gemm_checked(ridgeline_context* h, ridgeline_operation_t ta, ridgeline_operation_t tb, int m, int n,
                  int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  const bool na = ta == RIDGELINE_OP_N, nb = tb == RIDGELINE_OP_N;
  const auto A = column_major(a, na ? m : k, na ? k : m, lda);
  const auto B = column_major(b, nb ? k : n, nb ? n : k, ldb);
  const auto C = column_major(c, m, n, ldc);
  ridgeline::gemm(exec_of(h), trans_letter(ta), trans_letter(tb), alpha, A, B, beta, C);
}

template <class T>
void gemv_checked(ridgeline_context* h, ridgeline_operation_t t, int m, int n, T alpha, const T* a, int lda,
                  const T* x, int incx, T beta, T* y, int incy) {
  const Exec& exec = exec_of(h);
  const bool nt = t == RIDGELINE_OP_N;
  const int nx = nt ? n : m, ny = nt ? m : n;
  const auto A = column_major(a, m, n, lda);
  if (incx > 0 && incy > 0) {
    ridgeline::gemv(exec, trans_letter(t), alpha, A, Vector<const T>(x, Kokkos::LayoutStride(nx, incx)), beta,
                    Vector<T>(y, Kokkos::LayoutStride(ny, incy)));
    return;
  }
  // A negative increment: contiguous copies in walking order, on the handle's stream; the stream is
  // fenced before they are freed, so this case is synchronous.
  using Tmp = Kokkos::View<T*, Space>;
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::IndexType<int>>;
  Tmp xt, yt;
  Vector<const T> X(x, Kokkos::LayoutStride(nx, incx > 0 ? incx : 1));
  Vector<T> Y(y, Kokkos::LayoutStride(ny, incy > 0 ? incy : 1));
  if (incx < 0) {
    xt = Tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline_c x"), nx);
    Kokkos::parallel_for("ridgeline_c reverse x", Policy(exec, 0, nx),
                         ReversedCopy<T>{x, xt.data(), nx, -static_cast<std::ptrdiff_t>(incx), true});
    X = Vector<const T>(xt.data(), Kokkos::LayoutStride(nx, 1));
  }
  if (incy < 0) {
    yt = Tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline_c y"), ny);
    if (beta != T(0)) {  // beta == 0 never reads y
      Kokkos::parallel_for("ridgeline_c reverse y", Policy(exec, 0, ny),
                           ReversedCopy<T>{y, yt.data(), ny, -static_cast<std::ptrdiff_t>(incy), true});
    }
    Y = Vector<T>(yt.data(), Kokkos::LayoutStride(ny, 1));
  }
  ridgeline::gemv(exec, trans_letter(t), alpha, A, X, beta, Y);
  if (incy < 0) {
    Kokkos::parallel_for("ridgeline_c restore y", Policy(exec, 0, ny),
                         ReversedCopy<T>{yt.data(), y, ny, -static_cast<std::ptrdiff_t>(incy), false});
  }
  exec.fence();
}

#else  // host build

void ensure_kokkos() {
  ridgeline::host_abi::ensure_kokkos();
}

char trans_letter(ridgeline_operation_t t) {
  return t == RIDGELINE_OP_N ? 'N' : 'T';
}

template <class T>
void gemm_checked(ridgeline_context*, ridgeline_operation_t ta, ridgeline_operation_t tb, int m, int n, int k,
                  T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c, int ldc) {
  ridgeline::host_abi::gemm(trans_letter(ta), trans_letter(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <class T>
void gemv_checked(ridgeline_context*, ridgeline_operation_t t, int m, int n, T alpha, const T* a, int lda,
                  const T* x, int incx, T beta, T* y, int incy) {
  ridgeline::host_abi::gemv(trans_letter(t), m, n, alpha, a, lda, x, incx, beta, y, incy);
}

#endif

bool is_op(ridgeline_operation_t t) {
  return t == RIDGELINE_OP_N || t == RIDGELINE_OP_T || t == RIDGELINE_OP_C;
}
const char* op_name(ridgeline_operation_t t) {
  return t == RIDGELINE_OP_N ? "N" : t == RIDGELINE_OP_T ? "T" : "C";
}
int max1(int v) {
  return v > 1 ? v : 1;
}

// The checks, in the reference BLAS's order, then the pointers that the call would use; an empty
// string when all pass.
template <class T>
std::string gemm_error(const char* name, ridgeline_operation_t ta, ridgeline_operation_t tb, int m, int n,
                       int k, const T* alpha, const T* a, int lda, const T* b, int ldb, const T* beta,
                       const T* c, int ldc) {
  if (!is_op(ta)) {
    return format("%s: transa (%d) is not RIDGELINE_OP_N (0), RIDGELINE_OP_T (1) or RIDGELINE_OP_C (2)", name,
                  static_cast<int>(ta));
  }
  if (!is_op(tb)) {
    return format("%s: transb (%d) is not RIDGELINE_OP_N (0), RIDGELINE_OP_T (1) or RIDGELINE_OP_C (2)", name,
                  static_cast<int>(tb));
  }
  if (m < 0) return format("%s: m (%d) < 0", name, m);
  if (n < 0) return format("%s: n (%d) < 0", name, n);
  if (k < 0) return format("%s: k (%d) < 0", name, k);
  const bool na = ta == RIDGELINE_OP_N, nb = tb == RIDGELINE_OP_N;
  if (lda < max1(na ? m : k)) {
    return format("%s: lda (%d) < max(1, %s) (%d) with transa = %s (A is %dx%d)", name, lda, na ? "m" : "k",
                  max1(na ? m : k), op_name(ta), na ? m : k, na ? k : m);
  }
  if (ldb < max1(nb ? k : n)) {
    return format("%s: ldb (%d) < max(1, %s) (%d) with transb = %s (B is %dx%d)", name, ldb, nb ? "k" : "n",
                  max1(nb ? k : n), op_name(tb), nb ? k : n, nb ? n : k);
  }
  if (ldc < max1(m)) return format("%s: ldc (%d) < max(1, m) (%d) (C is %dx%d)", name, ldc, max1(m), m, n);
  if (alpha == nullptr) return format("%s: alpha is NULL", name);
  if (beta == nullptr) return format("%s: beta is NULL", name);
  if (ridgeline::host_abi::gemm_touches_nothing(m, n, k, *alpha, *beta)) return {};
  if (c == nullptr) return format("%s: C is NULL with m = %d, n = %d", name, m, n);
  if (k > 0 && *alpha != T(0)) {
    if (a == nullptr) return format("%s: A is NULL with m = %d, n = %d, k = %d", name, m, n, k);
    if (b == nullptr) return format("%s: B is NULL with m = %d, n = %d, k = %d", name, m, n, k);
  }
  return {};
}

template <class T>
std::string gemv_error(const char* name, ridgeline_operation_t t, int m, int n, const T* alpha, const T* a,
                       int lda, const T* x, int incx, const T* beta, const T* y, int incy) {
  if (!is_op(t)) {
    return format("%s: trans (%d) is not RIDGELINE_OP_N (0), RIDGELINE_OP_T (1) or RIDGELINE_OP_C (2)", name,
                  static_cast<int>(t));
  }
  if (m < 0) return format("%s: m (%d) < 0", name, m);
  if (n < 0) return format("%s: n (%d) < 0", name, n);
  if (lda < max1(m)) return format("%s: lda (%d) < max(1, m) (%d) (A is %dx%d)", name, lda, max1(m), m, n);
  if (incx == 0) return format("%s: incx is 0", name);
  if (incy == 0) return format("%s: incy is 0", name);
  if (alpha == nullptr) return format("%s: alpha is NULL", name);
  if (beta == nullptr) return format("%s: beta is NULL", name);
  if (ridgeline::host_abi::gemv_touches_nothing(m, n, *alpha, *beta)) return {};
  const bool nt = t == RIDGELINE_OP_N;
  if (y == nullptr)
    return format("%s: y is NULL with %d entries (m = %d, n = %d, trans = %s)", name, nt ? m : n, m, n,
                  op_name(t));
  if (*alpha != T(0)) {
    if (a == nullptr) return format("%s: A is NULL with m = %d, n = %d", name, m, n);
    if (x == nullptr)
      return format("%s: x is NULL with %d entries (m = %d, n = %d, trans = %s)", name, nt ? n : m, m, n,
                    op_name(t));
  }
  return {};
}

ridgeline_status_t null_handle(const char* name) {
  return fail(RIDGELINE_STATUS_NOT_INITIALIZED,
              std::string(name) + ": handle is NULL (create one with ridgeline_create)");
}

template <class T>
ridgeline_status_t gemm(const char* name, ridgeline_handle_t h, ridgeline_operation_t ta,
                        ridgeline_operation_t tb, int m, int n, int k, const T* alpha, const T* a, int lda,
                        const T* b, int ldb, const T* beta, T* c, int ldc) {
  return c_boundary(name, [&] {
    if (h == nullptr) return null_handle(name);
    std::string error = gemm_error(name, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (!error.empty()) return fail(RIDGELINE_STATUS_INVALID_VALUE, std::move(error));
    if (ridgeline::host_abi::gemm_touches_nothing(m, n, k, *alpha, *beta)) return RIDGELINE_STATUS_SUCCESS;
    gemm_checked(h, ta, tb, m, n, k, *alpha, a, lda, b, ldb, *beta, c, ldc);
    return RIDGELINE_STATUS_SUCCESS;
  });
}

template <class T>
ridgeline_status_t gemv(const char* name, ridgeline_handle_t h, ridgeline_operation_t t, int m, int n,
                        const T* alpha, const T* a, int lda, const T* x, int incx, const T* beta, T* y,
                        int incy) {
  return c_boundary(name, [&] {
    if (h == nullptr) return null_handle(name);
    std::string error = gemv_error(name, t, m, n, alpha, a, lda, x, incx, beta, y, incy);
    if (!error.empty()) return fail(RIDGELINE_STATUS_INVALID_VALUE, std::move(error));
    if (ridgeline::host_abi::gemv_touches_nothing(m, n, *alpha, *beta)) return RIDGELINE_STATUS_SUCCESS;
    gemv_checked(h, t, m, n, *alpha, a, lda, x, incx, *beta, y, incy);
    return RIDGELINE_STATUS_SUCCESS;
  });
}

}  // namespace

RIDGELINE_C_EXPORT ridgeline_memory_space_t ridgeline_get_memory_space(void) {
#if defined(RIDGELINE_C_API_CUDA)
  return RIDGELINE_MEMORY_CUDA;
#else
  return RIDGELINE_MEMORY_HOST;
#endif
}

RIDGELINE_C_EXPORT const char* ridgeline_status_string(ridgeline_status_t status) {
  switch (status) {
    case RIDGELINE_STATUS_SUCCESS:
      return "RIDGELINE_STATUS_SUCCESS";
    case RIDGELINE_STATUS_NOT_INITIALIZED:
      return "RIDGELINE_STATUS_NOT_INITIALIZED";
    case RIDGELINE_STATUS_ALLOC_FAILED:
      return "RIDGELINE_STATUS_ALLOC_FAILED";
    case RIDGELINE_STATUS_INVALID_VALUE:
      return "RIDGELINE_STATUS_INVALID_VALUE";
    case RIDGELINE_STATUS_EXECUTION_FAILED:
      return "RIDGELINE_STATUS_EXECUTION_FAILED";
    case RIDGELINE_STATUS_INTERNAL_ERROR:
      return "RIDGELINE_STATUS_INTERNAL_ERROR";
    case RIDGELINE_STATUS_NOT_SUPPORTED:
      return "RIDGELINE_STATUS_NOT_SUPPORTED";
  }
  return "RIDGELINE_STATUS_<unknown>";
}

RIDGELINE_C_EXPORT const char* ridgeline_get_last_error(void) {
  return t_last_error.c_str();
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_create(ridgeline_handle_t* handle) {
  return c_boundary("ridgeline_create", [&] {
    if (handle == nullptr) return fail(RIDGELINE_STATUS_INVALID_VALUE, "ridgeline_create: handle is NULL");
    *handle = nullptr;
    ensure_kokkos();
    auto* h = new ridgeline_context;
#if defined(RIDGELINE_C_API_CUDA)
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_finalized) {
      delete h;
      throw not_initialized("Ridgeline's Kokkos was finalized at exit");
    }
    try {
      h->exec.emplace();  // the default stream, as cuBLAS's handles start
      g_handles.insert(h);
    } catch (...) {
      delete h;
      throw;
    }
#endif
    *handle = h;
    return RIDGELINE_STATUS_SUCCESS;
  });
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_destroy(ridgeline_handle_t handle) {
  return c_boundary("ridgeline_destroy", [&] {
    if (handle == nullptr) return null_handle("ridgeline_destroy");
#if defined(RIDGELINE_C_API_CUDA)
    std::lock_guard<std::mutex> lock(g_mutex);
    g_handles.erase(handle);
#endif
    delete handle;
    return RIDGELINE_STATUS_SUCCESS;
  });
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_set_stream(ridgeline_handle_t handle, void* stream) {
  return c_boundary("ridgeline_set_stream", [&] {
    if (handle == nullptr) return null_handle("ridgeline_set_stream");
#if defined(RIDGELINE_C_API_CUDA)
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_finalized) throw not_initialized("Ridgeline's Kokkos was finalized at exit");
    // A Kokkos instance allocates on creation; codes that set the stream before every call keep it.
    if (stream == handle->stream && handle->exec) return RIDGELINE_STATUS_SUCCESS;
    if (stream == nullptr) {
      handle->exec.emplace();
    } else {
      handle->exec.emplace(static_cast<cudaStream_t>(stream));
    }
#else
    if (stream != nullptr) {
      return fail(RIDGELINE_STATUS_INVALID_VALUE,
                  format("ridgeline_set_stream: stream %p, but this libridgeline_c.so is a host build, which "
                         "has no streams (only NULL)",
                         stream));
    }
#endif
    handle->stream = stream;
    return RIDGELINE_STATUS_SUCCESS;
  });
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_get_stream(ridgeline_handle_t handle, void** stream) {
  return c_boundary("ridgeline_get_stream", [&] {
    if (handle == nullptr) return null_handle("ridgeline_get_stream");
    if (stream == nullptr)
      return fail(RIDGELINE_STATUS_INVALID_VALUE, "ridgeline_get_stream: stream is NULL");
    *stream = handle->stream;
    return RIDGELINE_STATUS_SUCCESS;
  });
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_sgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                                      ridgeline_operation_t transb, int m, int n, int k,
                                                      const float* alpha, const float* A, int lda,
                                                      const float* B, int ldb, const float* beta, float* C,
                                                      int ldc) {
  return gemm("ridgeline_sgemm", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_dgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                                      ridgeline_operation_t transb, int m, int n, int k,
                                                      const double* alpha, const double* A, int lda,
                                                      const double* B, int ldb, const double* beta, double* C,
                                                      int ldc) {
  return gemm("ridgeline_dgemm", handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_sgemv(ridgeline_handle_t handle, ridgeline_operation_t trans,
                                                      int m, int n, const float* alpha, const float* A,
                                                      int lda, const float* x, int incx, const float* beta,
                                                      float* y, int incy) {
  return gemv("ridgeline_sgemv", handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_dgemv(ridgeline_handle_t handle, ridgeline_operation_t trans,
                                                      int m, int n, const double* alpha, const double* A,
                                                      int lda, const double* x, int incx, const double* beta,
                                                      double* y, int incy) {
  return gemv("ridgeline_dgemv", handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}
