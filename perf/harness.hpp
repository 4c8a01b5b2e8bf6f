#pragma once
// The measuring half of ridgeline-perf: buffers in the default execution space's memory, input
// fill, the timing loop and the result reductions the correctness check needs. Everything here is
// Kokkos-only so the same code measures OpenMP on the host and Cuda on the GPU.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
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

// Fills a freshly allocated (hence contiguous) view with the counter-based inputs. Index order is
// column-major storage order, which is what cublas_baseline.cu uses too.
template <class ViewType>
void fill_inputs(const ViewType& v, std::uint64_t seed) {
  using Scalar = typename ViewType::non_const_value_type;
  Scalar* p = v.data();
  Kokkos::parallel_for(
      "ridgeline_perf::fill", Kokkos::RangePolicy<ExecSpace>(0, std::int64_t(v.size())),
      KOKKOS_LAMBDA(const std::int64_t i) { p[i] = input_value<Scalar>(seed, std::uint64_t(i)); });
}

// The numbers a result is judged by: its norm, its +-1 probe, and its distance to a reference.
struct ResultSignature {
  double norm = NAN;
  double probe = NAN;
  double diff_norm = NAN;  // ||out - ref||_F; NaN when no reference was given
};

template <class ViewType>
ResultSignature result_signature(const ViewType& out, const ViewType& ref) {
  using Policy = Kokkos::RangePolicy<ExecSpace>;
  const auto* p = out.data();
  const std::int64_t n = std::int64_t(out.size());
  ResultSignature s;
  double sq = 0, probe = 0;
  Kokkos::parallel_reduce(
      "ridgeline_perf::norm", Policy(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) { acc += double(p[i]) * double(p[i]); }, sq);
  Kokkos::parallel_reduce(
      "ridgeline_perf::probe", Policy(0, n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) {
        acc += probe_weight(std::uint64_t(i)) * double(p[i]);
      },
      probe);
  s.norm = std::sqrt(sq);
  s.probe = probe;
  if (ref.data() != nullptr) {
    const auto* q = ref.data();
    double d = 0;
    Kokkos::parallel_reduce(
        "ridgeline_perf::diff", Policy(0, n),
        KOKKOS_LAMBDA(const std::int64_t i, double& acc) {
          const double e = double(p[i]) - double(q[i]);
          acc += e * e;
        },
        d);
    s.diff_norm = std::sqrt(d);
  }
  return s;
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
// STREAM does), over buffers larger than the last-level cache. Used where the spec's bandwidth is
// an estimate (host CPUs: the OS reports none), so the roofline ledger has a measured ceiling.
inline double measured_copy_bandwidth(double llc_bytes, int reps = 5) {
  const std::size_t n =
      static_cast<std::size_t>(std::max(2.0 * llc_bytes, 256.0 * (1 << 20)) / sizeof(double));
  Kokkos::View<double*, MemSpace> a(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bw_a"), n);
  Kokkos::View<double*, MemSpace> b(Kokkos::view_alloc(Kokkos::WithoutInitializing, "bw_b"), n);
  Kokkos::deep_copy(a, 1.0);
  auto copy = [&] {
    Kokkos::parallel_for(
        "ridgeline_perf::copy_bandwidth", Kokkos::RangePolicy<ExecSpace>(0, n),
        KOKKOS_LAMBDA(std::size_t i) { b(i) = a(i); });
    Kokkos::fence();
  };
  copy();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto s = std::chrono::steady_clock::now();
    copy();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count());
  }
  std::sort(t.begin(), t.end());
  return 2.0 * n * sizeof(double) / t[t.size() / 2];
}

}  // namespace ridgeline_perf
