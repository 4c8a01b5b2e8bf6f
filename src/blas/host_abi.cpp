// See host_abi.hpp. This is the code libridgeline_blas.so had in ridgeline_blas.cpp, moved so that
// libridgeline_c.so runs the same instantiations without compiling them a second time. The complex
// instantiations are here too, so both libraries share them as well.
#include "host_abi.hpp"

#include <Kokkos_Core.hpp>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "ridgeline/gemm.hpp"
#include "ridgeline/gemv.hpp"

namespace ridgeline::host_abi {
namespace {

bool g_we_initialized = false;

bool in_omp_parallel() {
#if defined(_OPENMP)
  return omp_in_parallel() != 0;
#else
  return false;
#endif
}

void finalize_kokkos() {
  // Kokkos refuses to finalize inside an OpenMP parallel region (an exit() from one); the process
  // is ending, so the memory is left to it rather than terminating.
  if (!g_we_initialized || !Kokkos::is_initialized() || in_omp_parallel()) return;
  try {
    ridgeline::release_workspace();
    Kokkos::finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "[ridgeline] Kokkos::finalize at exit: %s\n", e.what());
  }
}

// Runs f(exec) on the host execution space that can serve this thread (see host_abi.hpp).
template <class F>
void on_host(F&& f) {
  ensure_kokkos();
#if defined(KOKKOS_ENABLE_OPENMP) && defined(KOKKOS_ENABLE_SERIAL) && KOKKOS_VERSION < 40000
  if (Kokkos::OpenMP::in_parallel()) {
    static std::mutex serial_mutex;  // Kokkos::Serial has one instance; its team scratch is shared
    std::lock_guard<std::mutex> lock(serial_mutex);
    f(Kokkos::Serial());
    return;
  }
#endif
  f(Kokkos::DefaultHostExecutionSpace());
}

char upper(char c) {
  return static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
}
const char* trans_letter(char c) {
  return upper(c) == 'N' ? "N" : "T";  // 'C' is 'T' for real types
}

template <class T>
using Matrix =
    Kokkos::View<T**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
template <class T>
using Vector =
    Kokkos::View<T*, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T>
Matrix<T> column_major(T* p, int rows, int cols, int ld) {
  return Matrix<T>(p, Kokkos::LayoutStride(rows, 1, cols, ld));
}

template <class T>
void gemm_impl(char ta, char tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb,
               T beta, T* c, int ldc) {
  if (gemm_touches_nothing(m, n, k, alpha, beta)) return;
  const bool na = upper(ta) == 'N', nb = upper(tb) == 'N';
  const auto A = column_major(a, na ? m : k, na ? k : m, lda);
  const auto B = column_major(b, nb ? k : n, nb ? n : k, ldb);
  const auto C = column_major(c, m, n, ldc);
  on_host([&](const auto& exec) {
    ridgeline::gemm(exec, trans_letter(ta), trans_letter(tb), alpha, A, B, beta, C);
    exec.fence();
  });
}

// A BLAS vector of n entries with increment inc: a negative increment walks it from its end. Views
// cannot have negative strides, so such a vector goes through a contiguous copy in walking order.
template <class T>
struct BlasVector {
  T* base;
  int n, inc;
  std::vector<std::remove_const_t<T>> copy;

  T* at(int i) const { return base + static_cast<std::ptrdiff_t>(inc < 0 ? n - 1 - i : i) * std::abs(inc); }
  Vector<T> view() {
    if (inc > 0) return Vector<T>(base, Kokkos::LayoutStride(n, inc));
    copy.resize(n);
    for (int i = 0; i < n; ++i) copy[i] = *at(i);
    return Vector<T>(copy.data(), Kokkos::LayoutStride(n, 1));
  }
  void write_back() const {
    if constexpr (!std::is_const_v<T>) {
      if (inc < 0) {
        for (int i = 0; i < n; ++i) *at(i) = copy[i];
      }
    }
  }
};

template <class T>
void gemv_impl(char t, int m, int n, T alpha, const T* a, int lda, const T* x, int incx, T beta, T* y,
               int incy) {
  if (gemv_touches_nothing(m, n, alpha, beta)) return;
  const bool nt = upper(t) == 'N';
  const auto A = column_major(a, m, n, lda);
  BlasVector<const T> xv{x, nt ? n : m, incx, {}};
  BlasVector<T> yv{y, nt ? m : n, incy, {}};
  const auto X = xv.view();
  const auto Y = yv.view();
  on_host([&](const auto& exec) {
    ridgeline::gemv(exec, trans_letter(t), alpha, A, X, beta, Y);
    exec.fence();
  });
  yv.write_back();
}

// ---- complex ------------------------------------------------------------------------------------------
// std::complex<R> (the ABI's type) and Kokkos::complex<R> share their layout, but Kokkos aligns its type
// to its whole size (KOKKOS_ENABLE_COMPLEX_ALIGN) where Fortran and C align only to R's. An operand
// whose address Kokkos::complex<R> cannot take goes through an aligned, contiguous copy (read in where
// the product reads it, written back where it is an output); aligned operands are used in place.
template <class R>
using Z = Kokkos::complex<R>;

template <class R>
bool kokkos_aligned(const std::complex<R>* p) {
  return reinterpret_cast<std::uintptr_t>(p) % alignof(Z<R>) == 0;
}

// rows x cols column-major at p with leading dimension ld, as Kokkos::complex, in place or copied.
template <class R>
struct ComplexBlock {
  std::vector<Z<R>> copy;
  Z<R>* data = nullptr;
  int ld = 1;
  ComplexBlock(const std::complex<R>* p, int rows, int cols, int ld_in, bool read) {
    if (kokkos_aligned(p)) {
      data = reinterpret_cast<Z<R>*>(const_cast<std::complex<R>*>(p));
      ld = ld_in;
      return;
    }
    ld = rows > 1 ? rows : 1;
    copy.resize(static_cast<std::size_t>(ld) * static_cast<std::size_t>(cols));
    data = copy.data();
    if (!read) return;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        const std::complex<R> v = p[i + static_cast<std::ptrdiff_t>(j) * ld_in];
        copy[i + static_cast<std::size_t>(j) * ld] = Z<R>(v.real(), v.imag());
      }
  }
  void write_back(std::complex<R>* p, int rows, int cols, int ld_out) const {
    if (copy.empty()) return;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        const Z<R> v = copy[i + static_cast<std::size_t>(j) * ld];
        p[i + static_cast<std::ptrdiff_t>(j) * ld_out] = std::complex<R>(v.real(), v.imag());
      }
  }
};

// A BLAS vector as Kokkos::complex: in place where its increment is positive and its address aligned,
// otherwise copied in walking order (a negative increment walks from the end).
template <class R>
struct ComplexVector {
  std::vector<Z<R>> copy;
  Z<R>* data = nullptr;
  int n = 0, inc = 1;
  ComplexVector(const std::complex<R>* p, int n_, int inc_, bool read) : n(n_), inc(inc_) {
    if (inc_ > 0 && kokkos_aligned(p)) {
      data = reinterpret_cast<Z<R>*>(const_cast<std::complex<R>*>(p));
      return;
    }
    copy.resize(static_cast<std::size_t>(n));
    data = copy.data();
    inc = 1;
    if (!read) return;
    for (int i = 0; i < n; ++i) {
      const std::complex<R> v = *at(p, i, n_, inc_);
      copy[i] = Z<R>(v.real(), v.imag());
    }
  }
  static const std::complex<R>* at(const std::complex<R>* p, int i, int n, int inc) {
    return p + static_cast<std::ptrdiff_t>(inc < 0 ? n - 1 - i : i) * std::abs(inc);
  }
  void write_back(std::complex<R>* p, int inc_out) const {
    if (copy.empty()) return;
    for (int i = 0; i < n; ++i)
      *const_cast<std::complex<R>*>(at(p, i, n, inc_out)) = std::complex<R>(copy[i].real(), copy[i].imag());
  }
};

const char* complex_letter(char c) {
  c = upper(c);
  return c == 'N' ? "N" : c == 'C' ? "C" : "T";
}

template <class R>
void complex_gemm_impl(char ta, char tb, int m, int n, int k, std::complex<R> alpha, const std::complex<R>* a,
                       int lda, const std::complex<R>* b, int ldb, std::complex<R> beta, std::complex<R>* c,
                       int ldc) {
  if (gemm_touches_nothing(m, n, k, alpha, beta)) return;
  const bool na = upper(ta) == 'N', nb = upper(tb) == 'N';
  const int ar = na ? m : k, ac = na ? k : m, br = nb ? k : n, bc = nb ? n : k;
  // A and B are read only where the product is formed; C only where beta != 0 (beta == 0 never reads it).
  const bool product = !(alpha == std::complex<R>(0) || k == 0);
  const ComplexBlock<R> A(a, ar, ac, lda, product), B(b, br, bc, ldb, product);
  const ComplexBlock<R> C(c, m, n, ldc, beta != std::complex<R>(0));
  on_host([&](const auto& exec) {
    ridgeline::gemm(exec, complex_letter(ta), complex_letter(tb), Z<R>(alpha.real(), alpha.imag()),
                    column_major<const Z<R>>(A.data, ar, ac, A.ld),
                    column_major<const Z<R>>(B.data, br, bc, B.ld), Z<R>(beta.real(), beta.imag()),
                    column_major(C.data, m, n, C.ld));
    exec.fence();
  });
  C.write_back(c, m, n, ldc);
}

template <class R>
void complex_gemv_impl(char t, int m, int n, std::complex<R> alpha, const std::complex<R>* a, int lda,
                       const std::complex<R>* x, int incx, std::complex<R> beta, std::complex<R>* y,
                       int incy) {
  if (gemv_touches_nothing(m, n, alpha, beta)) return;
  const bool nt = upper(t) == 'N';
  const bool product = alpha != std::complex<R>(0);
  const ComplexBlock<R> A(a, m, n, lda, product);
  const ComplexVector<R> X(x, nt ? n : m, incx, product), Y(y, nt ? m : n, incy, beta != std::complex<R>(0));
  on_host([&](const auto& exec) {
    ridgeline::gemv(exec, complex_letter(t), Z<R>(alpha.real(), alpha.imag()),
                    column_major<const Z<R>>(A.data, m, n, A.ld),
                    Vector<const Z<R>>(X.data, Kokkos::LayoutStride(X.n, X.inc)),
                    Z<R>(beta.real(), beta.imag()), Vector<Z<R>>(Y.data, Kokkos::LayoutStride(Y.n, Y.inc)));
    exec.fence();
  });
  Y.write_back(y, incy);
}

}  // namespace

void ensure_kokkos() {
  static std::once_flag once;
  std::call_once(once, [] {
    // With the library's private Kokkos this is always the first initialization; with a shared
    // Kokkos (a build that links it dynamically) the application's own settings are kept.
    if (Kokkos::is_initialized()) return;
    std::exception_ptr error;
    const auto initialize = [&error] {
      try {
#if KOKKOS_VERSION >= 40000
        Kokkos::initialize(Kokkos::InitializationSettings().set_disable_warnings(true));
#else
        Kokkos::InitArguments args;  // num_threads -1: OpenMP's own count, i.e. OMP_NUM_THREADS
        args.disable_warnings = true;
        Kokkos::initialize(args);
#endif
      } catch (...) {
        error = std::current_exception();
      }
    };
    // Kokkos's OpenMP space cannot start inside a parallel region, so a first call from one starts
    // it on a thread of its own; every call then runs on Serial (no thread owns the OpenMP space).
    if (in_omp_parallel()) {
      std::thread(initialize).join();
    } else {
      initialize();
    }
    if (error) std::rethrow_exception(error);
    g_we_initialized = true;
    std::atexit(finalize_kokkos);
  });
}

void gemm(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
          int ldb, float beta, float* c, int ldc) {
  gemm_impl(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm(char ta, char tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
          int ldb, double beta, double* c, int ldc) {
  gemm_impl(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemv(char t, int m, int n, float alpha, const float* a, int lda, const float* x, int incx, float beta,
          float* y, int incy) {
  gemv_impl(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void gemv(char t, int m, int n, double alpha, const double* a, int lda, const double* x, int incx,
          double beta, double* y, int incy) {
  gemv_impl(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void gemm(char ta, char tb, int m, int n, int k, std::complex<float> alpha, const std::complex<float>* a,
          int lda, const std::complex<float>* b, int ldb, std::complex<float> beta, std::complex<float>* c,
          int ldc) {
  complex_gemm_impl(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemm(char ta, char tb, int m, int n, int k, std::complex<double> alpha, const std::complex<double>* a,
          int lda, const std::complex<double>* b, int ldb, std::complex<double> beta, std::complex<double>* c,
          int ldc) {
  complex_gemm_impl(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void gemv(char t, int m, int n, std::complex<float> alpha, const std::complex<float>* a, int lda,
          const std::complex<float>* x, int incx, std::complex<float> beta, std::complex<float>* y,
          int incy) {
  complex_gemv_impl(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
void gemv(char t, int m, int n, std::complex<double> alpha, const std::complex<double>* a, int lda,
          const std::complex<double>* x, int incx, std::complex<double> beta, std::complex<double>* y,
          int incy) {
  complex_gemv_impl(t, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

}  // namespace ridgeline::host_abi
