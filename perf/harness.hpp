#pragma once
// The measuring half of ridgeline-perf: buffers in the default execution space's memory, input
// fill, the timing loop and the result reductions the correctness check needs. Everything here is
// Kokkos-only so the same code measures OpenMP on the host and Cuda on the GPU.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "shape_spec.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#endif
#if defined(__unix__)
#include <unistd.h>
#endif

namespace ridgeline_perf {

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;

// The memory the cases' buffers come from, in bytes, and what to call it; 0 when it cannot be
// told. The host's is its physical memory (free memory would count the page cache as used). A GPU's
// is what cudaMemGetInfo reports free now, after Kokkos and the context have taken theirs.
struct ExecSpaceMemory {
  std::uint64_t bytes = 0;
  std::string name;
};

inline ExecSpaceMemory exec_space_memory() {
  ExecSpaceMemory m;
#if defined(KOKKOS_ENABLE_CUDA)
  if (std::is_same<MemSpace, Kokkos::CudaSpace>::value ||
      std::is_same<MemSpace, Kokkos::CudaUVMSpace>::value) {
    std::size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) m.bytes = free_b;
    m.name = "the free memory of the CUDA device";
    return m;
  }
#endif
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) m.bytes = std::uint64_t(pages) * std::uint64_t(page);
#endif
  m.name = "the host's physical memory";
  return m;
}

template <class Scalar>
using Matrix = Kokkos::View<Scalar**, Kokkos::LayoutLeft, MemSpace>;
template <class Scalar>
using Vector = Kokkos::View<Scalar*, Kokkos::LayoutLeft, MemSpace>;
// A strided batch, cuBLAS's layout: matrix g is (:, :, g), column-major, the matrices one after another
// (ridgeline::gemm_batched with BatchLayout::right).
template <class Scalar>
using Batch = Kokkos::View<Scalar***, Kokkos::LayoutLeft, MemSpace>;

// Fills a freshly allocated (hence contiguous) view with the counter-based inputs. Index order is
// column-major storage order, which is what cublas_baseline.cu uses too. bits > 0 draws values with
// that many significant bits (input_value_bits: fp16, bf16 and tf32 inputs); 16-bit element types
// need it.
// Complex elements (cf32, cf64): the view as its interleaved (real, imaginary) pairs, twice as many reals.
template <class T>
struct ComplexParts {
  static constexpr bool value = false;
};
template <class R>
struct ComplexParts<Kokkos::complex<R>> {
  static constexpr bool value = true;
  using real = R;
};

// Complex views are filled as their interleaved parts: element i is (value 2i, value 2i + 1), which the
// cuBLAS program, filling its cuComplex buffers as reals, reproduces.
template <class ViewType>
void fill_inputs(const ViewType& v, std::uint64_t seed, int bits = 0) {
  using Scalar = typename ViewType::non_const_value_type;
  Scalar* p = v.data();
  if constexpr (ComplexParts<Scalar>::value) {
    using R = typename ComplexParts<Scalar>::real;
    fill_inputs(Kokkos::View<R*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(reinterpret_cast<R*>(p),
                                                                                    2 * v.size()),
                seed, bits);
  } else if constexpr (sizeof(Scalar) == 2) {
    if (bits <= 0 || bits > 11) throw std::invalid_argument("ridgeline-perf: 16-bit inputs need 1..11 bits");
    Kokkos::parallel_for(
        "ridgeline_perf::fill16", Kokkos::RangePolicy<ExecSpace>(0, std::int64_t(v.size())),
        KOKKOS_LAMBDA(const std::int64_t i) {
          p[i] = Scalar(input_value_bits(seed, std::uint64_t(i), bits));
        });
  } else if (bits > 0) {
    Kokkos::parallel_for(
        "ridgeline_perf::fill_bits", Kokkos::RangePolicy<ExecSpace>(0, std::int64_t(v.size())),
        KOKKOS_LAMBDA(const std::int64_t i) {
          p[i] = Scalar(input_value_bits(seed, std::uint64_t(i), bits));
        });
  } else {
    Kokkos::parallel_for(
        "ridgeline_perf::fill", Kokkos::RangePolicy<ExecSpace>(0, std::int64_t(v.size())),
        KOKKOS_LAMBDA(const std::int64_t i) { p[i] = input_value<Scalar>(seed, std::uint64_t(i)); });
  }
}

template <class T>
KOKKOS_INLINE_FUNCTION auto widen(const T& v) {
  if constexpr (std::is_arithmetic_v<T>)
    return double(v);
  else if constexpr (ComplexParts<T>::value)
    return Kokkos::complex<double>(v.real(), v.imag());
  else
    return double(static_cast<float>(v));  // ridgeline::half_t, ridgeline::bhalf_t
}

// The reference for rows no in-process library computes (16-bit inputs; complex ones on device builds):
// C = alpha op(A) op(B) + beta C in double (complex<double>), one output element per thread, a plain loop
// over K. Element (i, p) of op(A) is a[i * a_i + p * a_p], conjugated where conj_a (C), (p, j) of op(B) is
// b[p * b_p + j * b_j], conjugated where conj_b; C is m x n column-major, leading dimension m. A GEMV is
// the case n = 1. It runs once per shape, untimed, so plain is enough.
// nvcc's extended lambdas may not first-capture inside an if constexpr: the real and complex loops are
// functions of their own, and reference_product (below) picks one.
template <class In, class Out>
void reference_product_real(std::int64_t m, std::int64_t n, std::int64_t k, const In* a, std::int64_t a_i,
                            std::int64_t a_p, const In* b, std::int64_t b_p, std::int64_t b_j, double alpha,
                            double beta, Out* c) {
  Kokkos::parallel_for(
      "ridgeline_perf::reference", Kokkos::RangePolicy<ExecSpace>(0, m * n),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t i = e % m, j = e / m;
        const In* ar = a + i * a_i;
        const In* bc = b + j * b_j;
        // Captured here: nvcc's extended lambdas may not first-capture inside an if constexpr.
        const std::int64_t len = k, sa = a_p, sb = b_p;
        double acc = 0;
        if constexpr (sizeof(In) == 2) {
          // Two 16-bit values of at most 11 significant bits multiply exactly in float: one widening.
          for (std::int64_t p = 0; p < len; ++p)
            acc += double(static_cast<float>(ar[p * sa]) * static_cast<float>(bc[p * sb]));
        } else {
          for (std::int64_t p = 0; p < len; ++p) acc += widen(ar[p * sa]) * widen(bc[p * sb]);
        }
        double r = alpha * acc;
        if (beta != 0) r += beta * widen(c[e]);
        c[e] = Out(r);
      });
}

template <class In, class Out>
void reference_product_complex(std::int64_t m, std::int64_t n, std::int64_t k, const In* a, std::int64_t a_i,
                               std::int64_t a_p, const In* b, std::int64_t b_p, std::int64_t b_j,
                               double alpha, double beta, Out* c, bool conj_a, bool conj_b) {
  using W = Kokkos::complex<double>;
  Kokkos::parallel_for(
      "ridgeline_perf::reference_complex", Kokkos::RangePolicy<ExecSpace>(0, m * n),
      KOKKOS_LAMBDA(const std::int64_t e) {
        const std::int64_t i = e % m, j = e / m;
        const In* ar = a + i * a_i;
        const In* bc = b + j * b_j;
        W acc(0);
        for (std::int64_t p = 0; p < k; ++p) {
          const W x = widen(ar[p * a_p]), y = widen(bc[p * b_p]);
          acc += (conj_a ? Kokkos::conj(x) : x) * (conj_b ? Kokkos::conj(y) : y);
        }
        W r = alpha * acc;
        if (beta != 0) r += beta * widen(c[e]);
        c[e] = Out(r.real(), r.imag());
      });
}

// The reference for rows no in-process library computes (16-bit inputs; complex ones on device builds):
// C = alpha op(A) op(B) + beta C in double (complex<double>), one output element per thread, a plain loop
// over K. Element (i, p) of op(A) is a[i * a_i + p * a_p], conjugated where conj_a (C), (p, j) of op(B) is
// b[p * b_p + j * b_j], conjugated where conj_b (complex types only); C is m x n column-major, leading
// dimension m. A GEMV is the case n = 1. It runs once per shape, untimed, so plain is enough.
template <class In, class Out>
void reference_product(std::int64_t m, std::int64_t n, std::int64_t k, const In* a, std::int64_t a_i,
                       std::int64_t a_p, const In* b, std::int64_t b_p, std::int64_t b_j, double alpha,
                       double beta, Out* c, bool conj_a = false, bool conj_b = false) {
  if constexpr (ComplexParts<In>::value) {
    reference_product_complex(m, n, k, a, a_i, a_p, b, b_p, b_j, alpha, beta, c, conj_a, conj_b);
  } else {
    (void)conj_a, (void)conj_b;
    reference_product_real(m, n, k, a, a_i, a_p, b, b_p, b_j, alpha, beta, c);
  }
}

// The numbers a result is judged by: its norm, its +-1 probe, and its distance to a reference.
struct ResultSignature {
  double norm = NAN;
  double probe = NAN;
  double diff_norm = NAN;  // ||out - ref||_F; NaN when no reference was given
};

// Sums of squares and the probe, before the square roots: the pieces several ranges add up.
struct SignatureSums {
  double sq = 0, probe = 0, diff_sq = 0;
};

// out's elements are elements first_index, first_index + 1, ... of the whole output: the probe weighs
// them by that index, so a range of a batch contributes what it does to the whole batch's probe.
template <class ViewType>
SignatureSums signature_sums_real(const ViewType& out, const ViewType& ref, std::int64_t first_index) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  const auto* p = out.data();
  const std::int64_t n = std::int64_t(out.size());
  SignatureSums s;
  Kokkos::parallel_reduce(
      "ridgeline_perf::norm", Policy(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) { acc += double(p[i]) * double(p[i]); }, s.sq);
  Kokkos::parallel_reduce(
      "ridgeline_perf::probe", Policy(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) {
        acc += probe_weight(std::uint64_t(first_index + i)) * double(p[i]);
      },
      s.probe);
  if (ref.data() != nullptr) {
    const auto* q = ref.data();
    Kokkos::parallel_reduce(
        "ridgeline_perf::diff", Policy(0, n),
        KOKKOS_LAMBDA(const std::int64_t i, double& acc) {
          const double e = double(p[i]) - double(q[i]);
          acc += e * e;
        },
        s.diff_sq);
  } else {
    s.diff_sq = NAN;
  }
  return s;
}

// signature_sums_real for any output. Complex outputs are judged as their interleaved parts (real output
// index 2i and 2i + 1), as the cuBLAS program judges its cuComplex buffers: the norm, the probe and the
// distance are the same numbers.
template <class ViewType>
SignatureSums signature_sums(const ViewType& out, const ViewType& ref, std::int64_t first_index = 0) {
  using Scalar = typename ViewType::non_const_value_type;
  if constexpr (ComplexParts<Scalar>::value) {
    using R = typename ComplexParts<Scalar>::real;
    using Parts = Kokkos::View<const R*, MemSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const auto parts = [](const ViewType& v) {
      return Parts(reinterpret_cast<const R*>(v.data()), v.data() ? 2 * v.size() : 0);
    };
    return signature_sums_real(parts(out), parts(ref), 2 * first_index);
  } else {
    return signature_sums_real(out, ref, first_index);
  }
}

inline ResultSignature signature_of(const SignatureSums& s) {
  ResultSignature r;
  r.norm = std::sqrt(s.sq);
  r.probe = s.probe;
  r.diff_norm = std::sqrt(s.diff_sq);  // NaN when no reference was given
  return r;
}

template <class ViewType>
ResultSignature result_signature(const ViewType& out, const ViewType& ref) {
  return signature_of(signature_sums(out, ref));
}

struct Timing {
  double median_s = NAN, min_s = NAN, max_s = NAN;
  int samples = 0;
  int calls_per_sample = 0;
};

struct TimingOptions {
  int reps = 10;               // timed samples; the median is over these
  int warmup = 2;              // untimed calls first (first-touch, JIT, caches, clocks)
  double min_sample_s = 1e-3;  // sample length that keeps fence/clock overhead < ~1%
  int max_calls_per_sample = 256;
  double long_call_s = 0.1;  // calls at least this long get a single warm-up call
};

// Times call(set) where set cycles through n_sets buffer sets, so consecutive calls read inputs
// the previous call did not leave in cache. Each sample is a fenced batch of back-to-back calls;
// the batch length is chosen from the last warm-up call so that short kernels are not measured
// as launch + fence latency. Returns seconds per call.
template <class Call>
Timing time_calls(Call&& call, int n_sets, const TimingOptions& opt) {
  using clock = std::chrono::steady_clock;
  int next = 0;
  auto run_batch = [&](int calls) {
    Kokkos::fence();
    const auto t0 = clock::now();
    for (int i = 0; i < calls; ++i) {
      call(next);
      next = (next + 1) % n_sets;
    }
    Kokkos::fence();
    return std::chrono::duration<double>(clock::now() - t0).count() / calls;
  };
  double last = run_batch(1);
  // A call long enough to amortize first-touch and clock ramp-up is its own warm-up.
  for (int w = 1; w < opt.warmup && last < opt.long_call_s; ++w) last = run_batch(1);
  int per_sample = 1;
  if (last > 0 && last < opt.min_sample_s)
    per_sample = std::min(opt.max_calls_per_sample, int(std::ceil(opt.min_sample_s / last)));
  std::vector<double> t;
  t.reserve(std::size_t(opt.reps));
  for (int r = 0; r < opt.reps; ++r) t.push_back(run_batch(per_sample));
  std::sort(t.begin(), t.end());
  Timing out;
  const std::size_t n = t.size();
  out.median_s = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  out.min_s = t.front();
  out.max_s = t.back();
  out.samples = int(n);
  out.calls_per_sample = per_sample;
  return out;
}

// Sustained copy bandwidth of the execution space's memory, in bytes/s (read + write counted, as
// STREAM does): one buffer of buffer_bytes copied into another, median of reps fenced copies after
// one untimed, by two copies: a Kokkos parallel_for over doubles and Kokkos::deep_copy (cudaMemcpy
// on Cuda). best() is the faster of the two medians: the ceiling GEMV rows are held to.
struct CopyBandwidth {
  double buffer_bytes = 0;
  int reps = 0;
  double kernel_bytes_per_s = NAN;
  double deep_copy_bytes_per_s = NAN;
  double best() const { return std::max(kernel_bytes_per_s, deep_copy_bytes_per_s); }
};

inline CopyBandwidth measure_copy_bandwidth(double buffer_bytes, int reps) {
  const std::size_t n = static_cast<std::size_t>(buffer_bytes / sizeof(double));
  Kokkos::View<double*, MemSpace> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bw_a"), n);
  Kokkos::View<double*, MemSpace> b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bw_b"), n);
  Kokkos::deep_copy(a, 1.0);
  Kokkos::deep_copy(b, 0.0);
  auto median_rate = [&](auto&& copy) {
    Kokkos::fence();
    copy();
    Kokkos::fence();
    std::vector<double> t;
    for (int r = 0; r < std::max(1, reps); ++r) {
      const auto s = std::chrono::steady_clock::now();
      copy();
      Kokkos::fence();
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
    }
    std::sort(t.begin(), t.end());
    const std::size_t k = t.size();
    const double med = k % 2 ? t[k / 2] : 0.5 * (t[k / 2 - 1] + t[k / 2]);
    return 2.0 * double(n) * sizeof(double) / med;
  };
  CopyBandwidth bw;
  bw.buffer_bytes = double(n) * sizeof(double);
  bw.reps = std::max(1, reps);
  bw.kernel_bytes_per_s = median_rate([&] {
    Kokkos::parallel_for(
        "ridgeline_perf::copy_bandwidth", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(std::size_t i) { b(i) = a(i); });
  });
  bw.deep_copy_bytes_per_s = median_rate([&] { Kokkos::deep_copy(b, a); });
  return bw;
}

// The copy over buffers larger than the last-level cache. Used where the spec's bandwidth is an
// estimate (host CPUs: the OS reports none), so the roofline ledger has a measured ceiling.
inline double measured_copy_bandwidth(double llc_bytes, int reps = 5) {
  return measure_copy_bandwidth(std::max(2.0 * llc_bytes, 256.0 * (1 << 20)), reps).kernel_bytes_per_s;
}

}  // namespace ridgeline_perf
