// libridgeline_c.so: ridgeline.h over Ridgeline's GEMM and GEMV, on the build's default backend.
//
// - Host build: the kernels are host_abi's (src/blas/host_abi.cpp), the object libridgeline_blas.so
//   links too, so this translation unit instantiates nothing and includes no Kokkos header.
// - CUDA build (RIDGELINE_C_API_CUDA): float, double and complex GEMM and GEMV on Kokkos::Cuda, over
//   unmanaged LayoutStride views of the caller's device pointers, on a Kokkos::Cuda instance made from
//   the handle's stream (Kokkos 3.4's Cuda(cudaStream_t)). Calls do not fence, like cuBLAS's.
//
// The complex types of ridgeline.h are std::complex's layout (static_asserted below), so the entry points
// pass them on as std::complex; the kernels run on Kokkos::complex, the same layout aligned to its whole
// size, which operands not aligned so reach through an aligned copy (host_abi's on the host, below on CUDA).
//
// Every entry point checks its arguments before anything runs, and every C++ exception stops at the
// boundary (c_boundary): std::invalid_argument (Ridgeline's own checks, whose text names the shapes)
// becomes RIDGELINE_STATUS_INVALID_VALUE, std::bad_alloc RIDGELINE_STATUS_ALLOC_FAILED, anything else
// RIDGELINE_STATUS_INTERNAL_ERROR, each with its text in this thread's last-error message.
#include <complex>
#include <cstdarg>
#include <cstdint>
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

// ridgeline.h's complex structs are passed on as std::complex (and, on CUDA, read as Kokkos::complex):
// the same size, and no stricter alignment than the struct's, which is C99 _Complex's and Fortran's.
static_assert(sizeof(ridgeline_complex_float) == sizeof(std::complex<float>) &&
                  alignof(ridgeline_complex_float) == alignof(std::complex<float>),
              "ridgeline_complex_float must have std::complex<float>'s layout");
static_assert(sizeof(ridgeline_complex_double) == sizeof(std::complex<double>) &&
                  alignof(ridgeline_complex_double) == alignof(std::complex<double>),
              "ridgeline_complex_double must have std::complex<double>'s layout");
static_assert(sizeof(ridgeline_complex_float) == 2 * sizeof(float) &&
                  alignof(ridgeline_complex_float) == alignof(float),
              "ridgeline_complex_float must be two floats, aligned as one");
static_assert(sizeof(ridgeline_complex_double) == 2 * sizeof(double) &&
                  alignof(ridgeline_complex_double) == alignof(double),
              "ridgeline_complex_double must be two doubles, aligned as one");
#if defined(RIDGELINE_C_API_CUDA)
static_assert(sizeof(Kokkos::complex<float>) == sizeof(ridgeline_complex_float) &&
                  alignof(Kokkos::complex<float>) % alignof(ridgeline_complex_float) == 0,
              "Kokkos::complex<float> must have ridgeline_complex_float's layout");
static_assert(sizeof(Kokkos::complex<double>) == sizeof(ridgeline_complex_double) &&
                  alignof(Kokkos::complex<double>) % alignof(ridgeline_complex_double) == 0,
              "Kokkos::complex<double> must have ridgeline_complex_double's layout");
#endif

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

// ---- complex on CUDA ----
// Kokkos::complex<R> is aligned to its whole size (KOKKOS_ENABLE_COMPLEX_ALIGN), the C API's types only
// to R's, and a misaligned 16-byte load faults on the device. An operand whose address Kokkos::complex
// cannot take, or a vector with a negative increment, goes through a contiguous copy in device memory;
// the copies run on the handle's stream, which is fenced before they are freed, so such a call is
// synchronous (as the real GEMV's negative increments are). Aligned operands are used in place.
template <class R>
using Z = Kokkos::complex<R>;

template <class R>
bool kokkos_aligned(const std::complex<R>* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(Z<R>) == 0;
}

// dst[d0 + i drow + j dcol] = src[s0 + i srow + j scol] for i < rows, j < cols, in complex elements, moved
// as two R each so that neither side needs more than R's alignment. Strides may be negative (a BLAS
// vector walked from its end).
template <class R>
struct CopyComplex {
  const R* src;
  std::int64_t s0, srow, scol;
  R* dst;
  std::int64_t d0, drow, dcol;
  std::int64_t rows;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e) const {
    const std::int64_t i = e % rows, j = e / rows;
    const std::int64_t s = 2 * (s0 + i * srow + j * scol), d = 2 * (d0 + i * drow + j * dcol);
    dst[d] = src[s];
    dst[d + 1] = src[s + 1];
  }
};

template <class R>
void copy_complex(const Exec& exec, const CopyComplex<R>& copy, std::int64_t cols) {
  const std::int64_t count = copy.rows * cols;
  if (count == 0) return;
  Kokkos::parallel_for("ridgeline_c complex copy",
                       Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, count), copy);
}

// rows x cols column-major at p with leading dimension ld, as Kokkos::complex: in place or copied.
template <class R>
struct DeviceComplexBlock {
  Kokkos::View<Z<R>*, Space> copy;
  Z<R>* data = nullptr;
  int ld = 1;
  DeviceComplexBlock(const Exec& exec, const std::complex<R>* p, int rows, int cols, int ld_in, bool read) {
    if (kokkos_aligned(p)) {
      data = reinterpret_cast<Z<R>*>(const_cast<std::complex<R>*>(p));
      ld = ld_in;
      return;
    }
    ld = rows > 1 ? rows : 1;
    copy = Kokkos::View<Z<R>*, Space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline_c complex"),
                                      static_cast<std::size_t>(ld) * static_cast<std::size_t>(cols));
    data = copy.data();
    if (read) {
      copy_complex(exec,
                   CopyComplex<R>{reinterpret_cast<const R*>(p), 0, 1, ld_in, reinterpret_cast<R*>(data), 0,
                                  1, ld, rows},
                   cols);
    }
  }
  bool copied() const { return copy.data() != nullptr; }
  void write_back(const Exec& exec, std::complex<R>* p, int rows, int cols, int ld_out) const {
    if (!copied()) return;
    copy_complex(exec,
                 CopyComplex<R>{reinterpret_cast<const R*>(data), 0, 1, ld, reinterpret_cast<R*>(p), 0, 1,
                                ld_out, rows},
                 cols);
  }
};

// A BLAS vector as Kokkos::complex: in place where its increment is positive and its address aligned,
// otherwise a contiguous copy in walking order.
template <class R>
struct DeviceComplexVector {
  Kokkos::View<Z<R>*, Space> copy;
  Z<R>* data = nullptr;
  int n = 0, inc = 1;
  DeviceComplexVector(const Exec& exec, const std::complex<R>* p, int n_, int inc_, bool read)
      : n(n_), inc(inc_) {
    if (inc_ > 0 && kokkos_aligned(p)) {
      data = reinterpret_cast<Z<R>*>(const_cast<std::complex<R>*>(p));
      return;
    }
    copy =
        Kokkos::View<Z<R>*, Space>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline_c complex"), n);
    data = copy.data();
    inc = 1;
    if (read) copy_complex(exec, from(reinterpret_cast<const R*>(p), inc_, reinterpret_cast<R*>(data)), 1);
  }
  bool copied() const { return copy.data() != nullptr; }
  // Entry i of the caller's vector is at (inc < 0 ? n - 1 - i : i) |inc|, as in the BLAS.
  CopyComplex<R> from(const R* p, int inc_p, R* to) const {
    const std::int64_t a = inc_p < 0 ? -static_cast<std::int64_t>(inc_p) : inc_p;
    return inc_p < 0 ? CopyComplex<R>{p, (n - 1) * a, -a, 0, to, 0, 1, 0, n}
                     : CopyComplex<R>{p, 0, a, 0, to, 0, 1, 0, n};
  }
  void write_back(const Exec& exec, std::complex<R>* p, int inc_out) const {
    if (!copied()) return;
    const std::int64_t a = inc_out < 0 ? -static_cast<std::int64_t>(inc_out) : inc_out;
    R* to = reinterpret_cast<R*>(p);
    const R* src = reinterpret_cast<const R*>(data);
    copy_complex(exec,
                 inc_out < 0 ? CopyComplex<R>{src, 0, 1, 0, to, (n - 1) * a, -a, 0, n}
                             : CopyComplex<R>{src, 0, 1, 0, to, 0, a, 0, n},
                 1);
  }
};

const char* complex_letter(ridgeline_operation_t t) {
  return t == RIDGELINE_OP_N ? "N" : t == RIDGELINE_OP_T ? "T" : "C";
}

template <class R>
void gemm_checked(ridgeline_context* h, ridgeline_operation_t ta, ridgeline_operation_t tb, int m, int n,
                  int k, std::complex<R> alpha, const std::complex<R>* a, int lda, const std::complex<R>* b,
                  int ldb, std::complex<R> beta, std::complex<R>* c, int ldc) {
  const Exec& exec = exec_of(h);
  const bool na = ta == RIDGELINE_OP_N, nb = tb == RIDGELINE_OP_N;
  const int ar = na ? m : k, ac = na ? k : m, br = nb ? k : n, bc = nb ? n : k;
  // A and B are read only where the product is formed, C only where beta != 0 (beta == 0 never reads C).
  const bool product = !(alpha == std::complex<R>(0) || k == 0);
  const DeviceComplexBlock<R> A(exec, a, ar, ac, lda, product), B(exec, b, br, bc, ldb, product);
  const DeviceComplexBlock<R> C(exec, c, m, n, ldc, beta != std::complex<R>(0));
  ridgeline::gemm(exec, complex_letter(ta), complex_letter(tb), Z<R>(alpha.real(), alpha.imag()),
                  column_major<const Z<R>>(A.data, ar, ac, A.ld),
                  column_major<const Z<R>>(B.data, br, bc, B.ld), Z<R>(beta.real(), beta.imag()),
                  column_major(C.data, m, n, C.ld));
  C.write_back(exec, c, m, n, ldc);
  if (A.copied() || B.copied() || C.copied()) exec.fence();
}

template <class R>
void gemv_checked(ridgeline_context* h, ridgeline_operation_t t, int m, int n, std::complex<R> alpha,
                  const std::complex<R>* a, int lda, const std::complex<R>* x, int incx, std::complex<R> beta,
                  std::complex<R>* y, int incy) {
  const Exec& exec = exec_of(h);
  const bool nt = t == RIDGELINE_OP_N;
  const bool product = alpha != std::complex<R>(0);
  const DeviceComplexBlock<R> A(exec, a, m, n, lda, product);
  const DeviceComplexVector<R> X(exec, x, nt ? n : m, incx, product);
  const DeviceComplexVector<R> Y(exec, y, nt ? m : n, incy, beta != std::complex<R>(0));
  ridgeline::gemv(exec, complex_letter(t), Z<R>(alpha.real(), alpha.imag()),
                  column_major<const Z<R>>(A.data, m, n, A.ld),
                  Vector<const Z<R>>(X.data, Kokkos::LayoutStride(X.n, X.inc)),
                  Z<R>(beta.real(), beta.imag()), Vector<Z<R>>(Y.data, Kokkos::LayoutStride(Y.n, Y.inc)));
  Y.write_back(exec, y, incy);
  if (A.copied() || X.copied() || Y.copied()) exec.fence();
}

#else  // host build

void ensure_kokkos() {
  ridgeline::host_abi::ensure_kokkos();
}

// host_abi takes BLAS letters: C conjugates the complex types and is T for the real ones.
char trans_letter(ridgeline_operation_t t) {
  return t == RIDGELINE_OP_N ? 'N' : t == RIDGELINE_OP_T ? 'T' : 'C';
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

// The complex entry points hand their structs on as std::complex, whose layout they have (asserted above).
namespace {
const std::complex<float>* as_std(const ridgeline_complex_float* p) {
  return reinterpret_cast<const std::complex<float>*>(p);
}
std::complex<float>* as_std(ridgeline_complex_float* p) {
  return reinterpret_cast<std::complex<float>*>(p);
}
const std::complex<double>* as_std(const ridgeline_complex_double* p) {
  return reinterpret_cast<const std::complex<double>*>(p);
}
std::complex<double>* as_std(ridgeline_complex_double* p) {
  return reinterpret_cast<std::complex<double>*>(p);
}
}  // namespace

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_cgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                                      ridgeline_operation_t transb, int m, int n, int k,
                                                      const ridgeline_complex_float* alpha,
                                                      const ridgeline_complex_float* A, int lda,
                                                      const ridgeline_complex_float* B, int ldb,
                                                      const ridgeline_complex_float* beta,
                                                      ridgeline_complex_float* C, int ldc) {
  return gemm("ridgeline_cgemm", handle, transa, transb, m, n, k, as_std(alpha), as_std(A), lda, as_std(B),
              ldb, as_std(beta), as_std(C), ldc);
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_zgemm(ridgeline_handle_t handle, ridgeline_operation_t transa,
                                                      ridgeline_operation_t transb, int m, int n, int k,
                                                      const ridgeline_complex_double* alpha,
                                                      const ridgeline_complex_double* A, int lda,
                                                      const ridgeline_complex_double* B, int ldb,
                                                      const ridgeline_complex_double* beta,
                                                      ridgeline_complex_double* C, int ldc) {
  return gemm("ridgeline_zgemm", handle, transa, transb, m, n, k, as_std(alpha), as_std(A), lda, as_std(B),
              ldb, as_std(beta), as_std(C), ldc);
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_cgemv(ridgeline_handle_t handle, ridgeline_operation_t trans,
                                                      int m, int n, const ridgeline_complex_float* alpha,
                                                      const ridgeline_complex_float* A, int lda,
                                                      const ridgeline_complex_float* x, int incx,
                                                      const ridgeline_complex_float* beta,
                                                      ridgeline_complex_float* y, int incy) {
  return gemv("ridgeline_cgemv", handle, trans, m, n, as_std(alpha), as_std(A), lda, as_std(x), incx,
              as_std(beta), as_std(y), incy);
}

RIDGELINE_C_EXPORT ridgeline_status_t ridgeline_zgemv(ridgeline_handle_t handle, ridgeline_operation_t trans,
                                                      int m, int n, const ridgeline_complex_double* alpha,
                                                      const ridgeline_complex_double* A, int lda,
                                                      const ridgeline_complex_double* x, int incx,
                                                      const ridgeline_complex_double* beta,
                                                      ridgeline_complex_double* y, int incy) {
  return gemv("ridgeline_zgemv", handle, trans, m, n, as_std(alpha), as_std(A), lda, as_std(x), incx,
              as_std(beta), as_std(y), incy);
}
