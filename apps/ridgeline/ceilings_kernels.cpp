// `ridgeline ceilings`: bandwidth, vector-FMA and matrix-unit kernels on Kokkos's default execution
// space, timed as the median of repeated runs after a warm-up. The arithmetic they are judged by (levels,
// byte and FLOP counts, the FMA chains' exact result) is ridgeline/ceilings.hpp's; backend-specific
// instructions come from backends/<name>/ (CUDA: ceiling_rates_sm90.hpp).
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <ostream>
#include <ridgeline/config.hpp>
#include <ridgeline/detail/compat.hpp>
#include <stdexcept>
#include <type_traits>

#include "ceilings_run.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <ridgeline/backends/cuda/ceiling_rates_sm90.hpp>
#include <ridgeline/backends/cuda/team_scratch.hpp>
#include <ridgeline/backends/cuda/tile_table.hpp>
#endif

namespace ridgeline {
namespace cli {

namespace {

namespace cl = ceilings;
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
constexpr bool kHost = std::is_same<Mem, Kokkos::HostSpace>::value;
using Policy = Kokkos::TeamPolicy<Exec>;
using Member = Policy::member_type;
using Vec = Kokkos::View<double*, Mem>;
using Scratch = Kokkos::View<double*, Exec::scratch_memory_space, Kokkos::MemoryUnmanaged>;

#if defined(KOKKOS_ENABLE_CUDA)
constexpr bool kCuda = std::is_same<Exec, Kokkos::Cuda>::value;
#else
constexpr bool kCuda = false;
#endif

// Between passes: no compiler may carry a value in a register from one pass to the next, or drop a pass
// whose stores the next one overwrites. Within a pass loads and stores stay free to vectorize.
KOKKOS_FORCEINLINE_FUNCTION void compiler_barrier() {
  asm volatile("" ::: "memory");
}

// ---- bandwidth ----------------------------------------------------------------------------------------
// Copy alternates b = a and a = b; triad alternates a = b + s c and b = a - s c. The arrays start as
// a = b = v (copy) or a = b + s c, c = 1 (triad) with small integers v and s = 0.5, so every pass
// rewrites the values already there, exactly: the arrays' contents are known after any number of passes
// (the check), and the chunks that rotating teams share hold the same values whoever writes them.
constexpr double kTriadScalar = 0.5;

template <bool kTriad>
KOKKOS_FORCEINLINE_FUNCTION void stream_chunk(const Member& m, double* dst, const double* src,
                                              const double* c, double s, std::int64_t n) {
  if constexpr (kHost) {
    (void)m;
    for (std::int64_t i = 0; i < n; ++i) dst[i] = kTriad ? src[i] + s * c[i] : src[i];
  } else {
    for (std::int64_t i = m.team_rank(); i < n; i += m.team_size())
      dst[i] = kTriad ? src[i] + s * c[i] : src[i];
  }
}

template <bool kTriad>
struct GlobalStream {
  Vec a, b, c;
  std::int64_t chunk = 0;
  int teams = 1, passes = 1;
  bool rotate = false;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const int t = m.league_rank();
    for (int p = 0; p < passes; ++p) {
      const std::int64_t base = std::int64_t(rotate ? (t + p) % teams : t) * chunk;
      const bool even = p % 2 == 0;
      double* dst = kTriad ? (even ? a.data() : b.data()) : (even ? b.data() : a.data());
      const double* src = kTriad ? (even ? b.data() : a.data()) : (even ? a.data() : b.data());
      stream_chunk<kTriad>(m, dst + base, src + base, kTriad ? c.data() + base : nullptr,
                           even ? kTriadScalar : -kTriadScalar, chunk);
      compiler_barrier();
    }
  }
};

// The team's chunk of each array is loaded into team scratch, streamed there `passes` times and
// written back. Every thread touches only its own positions, so no barrier is needed.
template <bool kTriad>
struct ScratchStream {
  Vec a, b, c;
  std::int64_t chunk = 0;
  int passes = 1;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const std::int64_t base = std::int64_t(m.league_rank()) * chunk;
    Scratch sa(m.team_scratch(0), chunk), sb(m.team_scratch(0), chunk);
    Scratch sc(m.team_scratch(0), kTriad ? chunk : 0);
    const std::int64_t first = kHost ? 0 : m.team_rank(), step = kHost ? 1 : m.team_size();
    for (std::int64_t i = first; i < chunk; i += step) {
      sa(i) = a(base + i);
      sb(i) = b(base + i);
      if (kTriad) sc(i) = c(base + i);
    }
    for (int p = 0; p < passes; ++p) {
      const bool even = p % 2 == 0;
      double* dst = kTriad ? (even ? sa.data() : sb.data()) : (even ? sb.data() : sa.data());
      const double* src = kTriad ? (even ? sb.data() : sa.data()) : (even ? sa.data() : sb.data());
      stream_chunk<kTriad>(m, dst, src, kTriad ? sc.data() : nullptr, even ? kTriadScalar : -kTriadScalar,
                           chunk);
      compiler_barrier();
    }
    for (std::int64_t i = first; i < chunk; i += step) {
      a(base + i) = sa(i);
      b(base + i) = sb(i);
    }
  }
};

// The arrays of every level, allocated once at the largest size any level needs: a kernel at a level
// uses the first chunk x teams elements of each. One allocation matters on VMs where first touching
// memory costs seconds a GiB.
struct StreamArrays {
  Vec a, b, c;
};

struct FillStream {
  Vec a, b, c;
  bool triad = false;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    const double v = static_cast<double>(1 + i % 1024);
    b(i) = v;
    a(i) = triad ? v + kTriadScalar : v;
    if (triad) c(i) = 1.0;
  }
};

struct CheckStream {
  Vec a, b;
  bool triad = false;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, std::int64_t& bad) const {
    const double v = static_cast<double>(1 + i % 1024);
    if (b(i) != v || a(i) != (triad ? v + kTriadScalar : v)) ++bad;
  }
};

StreamArrays allocate_arrays(std::int64_t n_ab, std::int64_t n_c) {
  StreamArrays s;
  s.a = Vec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline_ceilings_a"), n_ab);
  s.b = Vec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline_ceilings_b"), n_ab);
  s.c = Vec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ridgeline_ceilings_c"), n_c);
  return s;
}

// The kernel's starting values in the first n positions, written by the execution space itself, so
// that on the host each thread first touches pages it streams later.
void prepare_arrays(cl::StreamKernel k, const StreamArrays& s, std::int64_t n) {
  Kokkos::parallel_for("ridgeline_ceilings_fill", Kokkos::RangePolicy<Exec>(0, n),
                       FillStream{s.a, s.b, s.c, k == cl::StreamKernel::triad});
  Kokkos::fence();
}

// Positions among the first n where the arrays no longer hold what they started with.
std::int64_t stream_mismatches(cl::StreamKernel k, const StreamArrays& s, std::int64_t n) {
  std::int64_t bad = 0;
  Kokkos::parallel_reduce("ridgeline_ceilings_check", Kokkos::RangePolicy<Exec>(0, n),
                          CheckStream{s.a, s.b, k == cl::StreamKernel::triad}, bad);
  return bad;
}

void launch_stream(cl::StreamKernel k, const cl::LevelPlan& plan, const StreamArrays& s, std::int64_t chunk,
                   int passes) {
  const bool triad = k == cl::StreamKernel::triad;
  if (plan.level == cl::Level::scratch) {
    const std::size_t bytes = std::size_t(cl::stream_arrays(k)) * Scratch::shmem_size(chunk);
    const auto policy = Policy(plan.teams, plan.team_size).set_scratch_size(0, Kokkos::PerTeam(bytes));
    if (triad)
      Kokkos::parallel_for("ridgeline_ceilings_scratch_triad", policy,
                           ScratchStream<true>{s.a, s.b, s.c, chunk, passes});
    else
      Kokkos::parallel_for("ridgeline_ceilings_scratch_copy", policy,
                           ScratchStream<false>{s.a, s.b, s.c, chunk, passes});
  } else {
    const Policy policy(plan.teams, plan.team_size);
    if (triad)
      Kokkos::parallel_for("ridgeline_ceilings_triad", policy,
                           GlobalStream<true>{s.a, s.b, s.c, chunk, plan.teams, passes, plan.rotate});
    else
      Kokkos::parallel_for("ridgeline_ceilings_copy", policy,
                           GlobalStream<false>{s.a, s.b, s.c, chunk, plan.teams, passes, plan.rotate});
  }
}

// ---- timing -------------------------------------------------------------------------------------------

struct Sample {
  double median = 0, min = 0, max = 0;
  int reps = 0;
};

template <class Run>
double seconds_of(Run&& run) {
  Kokkos::fence();
  Kokkos::Timer timer;
  run();
  Kokkos::fence();
  return timer.seconds();
}

// The work count (passes, steps) that makes one run last at least target_s and at least 8 times a
// one-unit run: that run is mostly the fixed cost of a launch (on a loaded host, waking an OpenMP thread
// whose core another process holds took 12 ms), which a run must outlast for its rate to be the
// kernel's. Each count is timed as the fastest of three; growing by at most 16 x per step. These runs,
// and one more at the chosen count, are the warm-up: the timed runs find caches, clocks and the runtime
// settled.
template <class RunN>
std::int64_t calibrate(RunN&& run_n, double target_s, std::int64_t max_n) {
  auto fastest = [&](std::int64_t n) {
    double t = seconds_of([&] { run_n(n); });
    for (int k = 0; k < 2; ++k) t = std::min(t, seconds_of([&] { run_n(n); }));
    return t;
  };
  const double one = fastest(1);
  // A unit already longer than the target (a pass over DRAM) is run once: its fixed cost is small beside it.
  const double want = one < target_s ? std::max(target_s, 8 * one) : target_s;
  std::int64_t n = 1;
  double t = one;
  while (t < want && n < max_n) {
    const double factor = std::clamp(want / std::max(t, 1e-9), 2.0, 16.0);
    n = std::min(max_n, static_cast<std::int64_t>(std::ceil(double(n) * factor)));
    t = fastest(n);
  }
  seconds_of([&] { run_n(n); });
  return n;
}

template <class Run>
Sample time_runs(Run&& run, int reps) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) t.push_back(seconds_of(run));
  std::sort(t.begin(), t.end());
  Sample s;
  s.reps = reps;
  s.min = t.front();
  s.max = t.back();
  s.median = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
  return s;
}

void fill_timing(cl::Roof& r, const Sample& s, double work) {
  r.work = work;
  r.reps = s.reps;
  r.median_s = s.median;
  r.min_s = s.min;
  r.max_s = s.max;
  r.value = work / s.median;
}

// ---- vector FMA chains ----------------------------------------------------------------------------------

template <class T>
KOKKOS_FORCEINLINE_FUNCTION T fused(T a, T b, T c) {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
  if constexpr (std::is_same<T, float>::value) {
    return fmaf(a, b, c);
  } else {
    return fma(a, b, c);
  }
#else
  return std::fma(a, b, c);
#endif
}

// Host builds hold the chains in SIMD registers through the compiler's vector extension: GCC does not
// vectorize 64 scalar chains by itself (it issued 64 scalar FMAs a step and spilled). Eight registers'
// worth: 2 FMA pipes x 4 cycles of latency, so one thread per core saturates the pipes.
#if !defined(KOKKOS_ENABLE_CUDA) && !defined(KOKKOS_ENABLE_HIP) && (defined(__GNUC__) || defined(__clang__))
#define RIDGELINE_CEILINGS_HOST_SIMD 1
#if defined(__AVX512F__)
constexpr int kSimdBytes = 64;
#elif defined(__AVX__)
constexpr int kSimdBytes = 32;
#else
constexpr int kSimdBytes = 16;
#endif
template <class T>
struct SimdOf {
  typedef T type __attribute__((vector_size(kSimdBytes)));
};
#endif

// Chains per thread: 8 SIMD registers' worth on a CPU; 8 on a GPU, with thousands of threads in flight.
template <class T>
constexpr int fma_chains_per_thread() {
#if defined(RIDGELINE_CEILINGS_HOST_SIMD)
  return static_cast<int>(8 * kSimdBytes / sizeof(T));
#else
  return 8;
#endif
}

template <class T>
struct FmaChains {
  static constexpr int C = fma_chains_per_thread<T>();
  Kokkos::View<T*, Mem> xy;  // x = -1, y = kFmaChainY: from memory, so the compiler knows neither
  Kokkos::View<T*, Mem> out;
  std::int64_t steps = 0;
  // Chain j of thread t starts at ceilings::fma_chain_start(t, j), which device code cannot call;
  // test_cli checks that the two agree.
  KOKKOS_INLINE_FUNCTION static T start(std::int64_t t, int j) {
    return static_cast<T>(1 + (t * 7 + j) % 60);
  }
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    const T x = xy(0), y = xy(1);
#if defined(RIDGELINE_CEILINGS_HOST_SIMD)
    // a * x + y in one expression: contracted to an FMA (-ffp-contract=fast for this file, clang by
    // default); without contraction the values are the same (a * -1 is exact), only slower.
    using V = typename SimdOf<T>::type;
    constexpr int L = kSimdBytes / sizeof(T), K = C / L;
    V acc[K];
    const V vx = V{} + x, vy = V{} + y;
    for (int k = 0; k < K; ++k)
      for (int l = 0; l < L; ++l) acc[k][l] = start(t, k * L + l);
    for (std::int64_t s = 0; s < steps; ++s) {
      RIDGELINE_UNROLL
      for (int k = 0; k < K; ++k) acc[k] = acc[k] * vx + vy;
    }
    for (int k = 0; k < K; ++k)
      for (int l = 0; l < L; ++l) out(t * C + k * L + l) = acc[k][l];
#else
    T acc[C];
    RIDGELINE_UNROLL
    for (int j = 0; j < C; ++j) acc[j] = start(t, j);
    for (std::int64_t s = 0; s < steps; ++s) {
      RIDGELINE_UNROLL
      for (int j = 0; j < C; ++j) acc[j] = fused(acc[j], x, y);
    }
    RIDGELINE_UNROLL
    for (int j = 0; j < C; ++j) out(t * C + j) = acc[j];
#endif
  }
};

std::int64_t fma_threads(const DeviceSpec& spec) {
  return kHost ? Exec().concurrency() : std::int64_t(std::max(1, spec.compute_units)) * 2048;
}

#if defined(KOKKOS_ENABLE_CUDA)
namespace cr = backends::cuda::ceiling_rates;

struct Hfma2Chains {
  static constexpr int C = 2 * cr::kRateChains;
  Kokkos::View<float*, Mem> xy, out;
  std::int64_t steps = 0;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    float lanes[C];
    for (int j = 0; j < C; ++j) lanes[j] = static_cast<float>(1 + (t * 7 + j) % 60);
    cr::hfma2_rate(lanes, xy(0), xy(1), static_cast<long>(steps));
    for (int j = 0; j < C; ++j) out(t * C + j) = lanes[j];
  }
};
#endif

// One dtype's chains, allocated once, so that a timed run is the launch alone.
class FmaRunner {
 public:
  FmaRunner(const std::string& dtype, std::int64_t threads) : dtype_(dtype), threads_(threads) {
    if (dtype == "fp64") {
      chains_ = FmaChains<double>::C;
    } else if (dtype == "fp32") {
      chains_ = FmaChains<float>::C;
#if defined(KOKKOS_ENABLE_CUDA)
    } else if (dtype == "fp16" && kCuda) {
      chains_ = Hfma2Chains::C;
#endif
    } else {
      throw std::invalid_argument("no " + dtype + " FMA-chain kernel on Kokkos " + std::string(Exec::name()));
    }
    if (dtype == "fp64") {
      xd_ = Kokkos::View<double*, Mem>("ridgeline_ceilings_xy", 2);
      od_ = Kokkos::View<double*, Mem>("ridgeline_ceilings_out", threads * chains_);
      set_xy(xd_);
    } else {
      xf_ = Kokkos::View<float*, Mem>("ridgeline_ceilings_xy", 2);
      of_ = Kokkos::View<float*, Mem>("ridgeline_ceilings_out", threads * chains_);
      set_xy(xf_);
    }
  }
  int chains() const {
    return chains_;
  }
  void launch(std::int64_t steps) const {
    const Kokkos::RangePolicy<Exec> policy(0, threads_);
    if (dtype_ == "fp64") {
      Kokkos::parallel_for("ridgeline_ceilings_fma_fp64", policy, FmaChains<double>{xd_, od_, steps});
    } else if (dtype_ == "fp32") {
      Kokkos::parallel_for("ridgeline_ceilings_fma_fp32", policy, FmaChains<float>{xf_, of_, steps});
    } else {
#if defined(KOKKOS_ENABLE_CUDA)
      Kokkos::parallel_for("ridgeline_ceilings_hfma2", policy, Hfma2Chains{xf_, of_, steps});
#endif
    }
  }
  std::vector<double> result() const {
    Kokkos::fence();
    if (dtype_ == "fp64") {
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), od_);
      return std::vector<double>(h.data(), h.data() + h.extent(0));
    }
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), of_);
    return std::vector<double>(h.data(), h.data() + h.extent(0));
  }

 private:
  template <class V>
  static void set_xy(const V& xy) {
    auto h = Kokkos::create_mirror_view(xy);
    h(0) = -1;
    h(1) = static_cast<typename V::value_type>(cl::kFmaChainY);
    Kokkos::deep_copy(xy, h);
  }
  std::string dtype_;
  std::int64_t threads_ = 0;
  int chains_ = 0;
  Kokkos::View<double*, Mem> xd_, od_;
  Kokkos::View<float*, Mem> xf_, of_;
};

#if defined(KOKKOS_ENABLE_CUDA)
// ---- matrix units (CUDA) --------------------------------------------------------------------------------

// Every lane of every warp runs cr::kRateChains accumulators; all operands are ones, so each element
// ends at init + 16 x steps, and `bad` counts the elements that do not.
struct DmmaRate {
  Kokkos::View<double*, Mem> init;
  Kokkos::View<int*, Mem> bad;
  double one = 1.0;  // a kernel argument, not a literal: the compiler cannot know the fragments
  std::int64_t steps = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const std::int64_t i = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank();
    double a[8], b[4], acc[cr::kRateChains][4];
    for (int v = 0; v < 8; ++v) a[v] = one;
    for (int v = 0; v < 4; ++v) b[v] = one;
    for (int c = 0; c < cr::kRateChains; ++c)
      for (int e = 0; e < 4; ++e) acc[c][e] = init(c);
    cr::dmma_rate(acc, a, b, static_cast<long>(steps));
    int wrong = 0;
    for (int c = 0; c < cr::kRateChains; ++c)
      for (int e = 0; e < 4; ++e) wrong += acc[c][e] != init(c) + 16.0 * static_cast<double>(steps);
    bad(i) = wrong;
  }
};

struct SumInts {
  Kokkos::View<int*, Mem> v;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i, int& acc) const { acc += v(i); }
};

template <class T>
struct HmmaRate {
  Kokkos::View<float*, Mem> init;
  Kokkos::View<int*, Mem> bad;
  unsigned ones = 0;  // two 16-bit ones of T
  std::int64_t steps = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const Member& m) const {
    const std::int64_t i = std::int64_t(m.league_rank()) * m.team_size() + m.team_rank();
    unsigned a[4] = {ones, ones, ones, ones}, b[2] = {ones, ones};
    float acc[cr::kRateChains][4];
    for (int c = 0; c < cr::kRateChains; ++c)
      for (int e = 0; e < 4; ++e) acc[c][e] = init(c);
    cr::hmma_rate<T>(acc, a, b, static_cast<long>(steps));
    int wrong = 0;
    for (int c = 0; c < cr::kRateChains; ++c)
      for (int e = 0; e < 4; ++e) wrong += acc[c][e] != init(c) + 16.0f * static_cast<float>(steps);
    bad(i) = wrong;
  }
};
#endif

std::string spec_source_of(const DeviceSpec& s) {
  return s.estimated ? "estimate" : "datasheet";
}

}  // namespace

// ---- entry points -----------------------------------------------------------------------------------------

std::vector<double> fma_chains_expected(std::int64_t threads, int chains, std::int64_t steps) {
  std::vector<double> v;
  v.reserve(std::size_t(threads) * chains);
  for (std::int64_t t = 0; t < threads; ++t)
    for (int j = 0; j < chains; ++j)
      v.push_back(cl::fma_chain_reference(cl::fma_chain_start(t, j), cl::kFmaChainY, steps));
  return v;
}

std::vector<double> run_fma_chains(const std::string& dtype, std::int64_t threads, std::int64_t steps,
                                   int* chains) {
  const FmaRunner runner(dtype, threads);
  *chains = runner.chains();
  runner.launch(steps);
  return runner.result();
}

std::int64_t run_stream_check(cl::StreamKernel k, const cl::LevelPlan& plan, int passes) {
  const std::int64_t chunk = cl::elements_per_team(plan, k, sizeof(double)), n = chunk * plan.teams;
  const StreamArrays s = allocate_arrays(n, k == cl::StreamKernel::triad ? n : 0);
  prepare_arrays(k, s, n);
  launch_stream(k, plan, s, chunk, passes);
  Kokkos::fence();
  return stream_mismatches(k, s, n);
}

cl::DeviceCeilings measure_ceilings(const DeviceSpec& spec, const CeilingsOptions& opt, std::ostream& log) {
  cl::DeviceCeilings out;
  out.device = spec.name;
  out.device_key = spec.key;
  out.backend = Exec::name();
  out.concurrency = Exec().concurrency();
  out.kokkos = "";
  out.mode = opt.quick ? "quick" : "full";
  out.byte_counting =
      "per pass, every array read or written once (copy 2, triad 3 doubles per position); the write-allocate "
      "read of stored lines is not counted (STREAM's convention: with it, copy would count 1.5x and triad "
      "1.33x these bytes)";
  const int reps = opt.reps > 0 ? opt.reps : opt.quick ? 5 : 10;
  const double target = opt.target_s > 0 ? opt.target_s : kHost ? (opt.quick ? 0.01 : 0.05) : 0.02;

  if (opt.bandwidth) {
    const std::vector<cl::LevelPlan> plans = cl::plan_levels(spec, out.concurrency, opt.quick);
    std::int64_t n_ab = 0, n_c = 0;
    for (const auto& plan : plans) {
      n_ab = std::max(n_ab, cl::elements_per_team(plan, cl::StreamKernel::copy, sizeof(double)) * plan.teams);
      n_c = std::max(n_c, cl::elements_per_team(plan, cl::StreamKernel::triad, sizeof(double)) * plan.teams);
    }
    const StreamArrays s = allocate_arrays(n_ab, n_c);
    for (const cl::LevelPlan& plan : plans) {
      for (cl::StreamKernel k : {cl::StreamKernel::copy, cl::StreamKernel::triad}) {
        Kokkos::Timer roof_timer;
        const std::int64_t chunk = cl::elements_per_team(plan, k, sizeof(double)), n = chunk * plan.teams;
        prepare_arrays(k, s, n);
        const std::int64_t passes = calibrate(
            [&](std::int64_t p) { launch_stream(k, plan, s, chunk, static_cast<int>(p)); }, target, 1 << 20);
        const Sample t = time_runs([&] { launch_stream(k, plan, s, chunk, static_cast<int>(passes)); }, reps);
        cl::Roof r;
        r.kind = "bandwidth";
        r.kernel = cl::to_string(k);
        r.level = plan.level;
        r.label = cl::bandwidth_label(k, plan);
        r.working_set_bytes = double(n) * cl::stream_arrays(k) * sizeof(double);
        fill_timing(r, t, cl::stream_bytes(k, n, passes, sizeof(double)));
        if (plan.level == cl::Level::memory) {
          r.spec_value = spec.dram_bw_bytes_per_s;
          r.spec_source = spec.estimated ? "placeholder" : "datasheet";
        } else if (plan.level == cl::Level::cache && spec.l2_bw_bytes_per_s > 0) {
          r.spec_value = spec.l2_bw_bytes_per_s;
          r.spec_source = spec_source_of(spec);
        }
        const std::int64_t bad = stream_mismatches(k, s, n);
        r.check = bad == 0 ? "ok" : "MISMATCH at " + std::to_string(bad) + " positions";
        log << "  " << r.label << ": " << r.value / 1e9 << " GB/s (" << passes << " passes a run; "
            << plan.why << "; " << roof_timer.seconds() << " s)\n"
            << std::flush;
        out.roofs.push_back(r);
      }
    }
  }

  if (opt.compute) {
    const std::int64_t threads = fma_threads(spec);
    auto fma_roof = [&](const std::string& dtype, DType d, const std::string& kernel) {
      Kokkos::Timer roof_timer;
      const FmaRunner runner(dtype, threads);
      const int chains = runner.chains();
      const std::int64_t steps =
          calibrate([&](std::int64_t n) { runner.launch(n); }, target, std::int64_t(1) << 40);
      const Sample t = time_runs([&] { runner.launch(steps); }, reps);
      cl::Roof r;
      r.kind = "compute";
      r.kernel = kernel;
      r.dtype = d;
      r.unit = Unit::vector;
      r.label = dtype + " " + kernel + ": " + std::to_string(threads) + " threads x " +
                std::to_string(chains) + " chains";
      // One FMA (2 FLOPs) per chain and step; an HFMA2 is two chains.
      fill_timing(r, t, cl::fma_flops(threads, chains, steps));
      r.spec_value = spec.peak_flops(d, Unit::vector);
      r.spec_source = r.spec_value > 0 ? spec_source_of(spec) : "";
      const std::int64_t bad =
          cl::count_mismatches(runner.result(), fma_chains_expected(threads, chains, steps));
      r.check = bad == 0 ? "ok (every chain exact after " + std::to_string(steps) + " steps)"
                         : "MISMATCH in " + std::to_string(bad) + " chains";
      log << "  " << r.label << ": " << r.value / 1e9 << " GFLOP/s (" << steps << " steps a run; "
          << roof_timer.seconds() << " s)\n"
          << std::flush;
      out.roofs.push_back(r);
    };
    fma_roof("fp64", DType::fp64, "fma chains");
    fma_roof("fp32", DType::fp32, "fma chains");
    if (kCuda) {
      fma_roof("fp16", DType::fp16, "hfma2 chains");
    } else {
      out.absent.push_back({"fp16 vector", std::string("no FP16 arithmetic kernel on Kokkos ") +
                                               Exec::name() +
                                               (kHost ? " (Ridgeline's host half_t computes in FP32)" : "")});
    }
  }

  if (opt.matrix) {
#if defined(KOKKOS_ENABLE_CUDA)
    if (kCuda && spec.arch == "sm_90") {
      // Two teams of four warps per SM, all resident at once (a second, partial wave would leave SMs
      // idle at the end): 2 warps per scheduler, each with 8 independent accumulators in flight.
      const int teams = 2 * std::max(1, spec.compute_units), team_size = 128;
      const std::int64_t threads = std::int64_t(teams) * team_size;
      const Policy policy(teams, team_size);
      const double warps = double(threads) / 32;
      Kokkos::View<int*, Mem> bad("ridgeline_ceilings_bad", threads);
      auto count_bad = [&] {
        int total = 0;
        Kokkos::parallel_reduce("ridgeline_ceilings_bad_sum", Kokkos::RangePolicy<Exec>(0, threads),
                                SumInts{bad}, total);
        return total;
      };
      // One matrix-unit roof: its timing, spec figure and check (`wrong` accumulator elements off the exact
      // value after `steps`, counted in `step_name`), logged and kept.
      auto push_matrix_roof = [&](DType d, const std::string& kernel, const std::string& label,
                                  const Sample& t, double flops, int wrong, std::int64_t steps,
                                  const std::string& step_name) {
        cl::Roof r;
        r.kind = "compute";
        r.kernel = kernel;
        r.dtype = d;
        r.unit = Unit::matrix;
        r.label = label;
        fill_timing(r, t, flops);
        r.spec_value = spec.peak_flops(d, Unit::matrix);
        r.spec_source = r.spec_value > 0 ? spec_source_of(spec) : "";
        r.check = wrong == 0
                      ? "ok (every accumulator exact after " + std::to_string(steps) + " " + step_name + ")"
                      : "MISMATCH in " + std::to_string(wrong) + " accumulator elements";
        log << "  " << r.label << ": " << r.value / 1e12 << " TFLOP/s\n" << std::flush;
        out.roofs.push_back(r);
      };
      auto matrix_roof = [&](DType d, const std::string& kernel, auto&& launch, std::int64_t max_steps) {
        const std::int64_t steps = calibrate(launch, target, max_steps);
        const Sample t = time_runs([&] { launch(steps); }, reps);
        const std::string label = to_string(d) + " " + kernel + ", register-resident, operands all ones: " +
                                  std::to_string(static_cast<long long>(warps)) + " warps x " +
                                  std::to_string(cr::kRateChains) + " accumulators";
        push_matrix_roof(d, kernel, label, t, warps * cr::kRateChains * double(steps) * cl::kMma16816Flops,
                         count_bad(), steps, "steps");
      };
      Kokkos::View<double*, Mem> init_d("ridgeline_ceilings_init", cr::kRateChains);
      Kokkos::View<float*, Mem> init_f("ridgeline_ceilings_init", cr::kRateChains);
      {
        auto hd = Kokkos::create_mirror_view(init_d);
        auto hf = Kokkos::create_mirror_view(init_f);
        for (int c = 0; c < cr::kRateChains; ++c) hd(c) = hf(c) = float(c + 1);
        Kokkos::deep_copy(init_d, hd);
        Kokkos::deep_copy(init_f, hf);
      }
      matrix_roof(
          DType::fp64, "dmma m16n8k16 (DmmaSm90MicroKernel::mma)",
          [&](std::int64_t n) {
            Kokkos::parallel_for("ridgeline_ceilings_dmma", policy, DmmaRate{init_d, bad, 1.0, n});
          },
          std::int64_t(1) << 40);
      // FP32 accumulators count exactly up to 2^24: 16 a step from at most 8.
      const std::int64_t hmma_max = ((std::int64_t(1) << 24) - 16) / 16;
      const std::string hmma =
          std::string("hmma m16n8k16 (HmmaSm80MicroKernel::mma)") +
          (RIDGELINE_HAVE_SM90A ? "; this build's 16-bit GEMM runs wgmma, not measured here" : "");
      matrix_roof(
          DType::fp16, hmma,
          [&](std::int64_t n) {
            Kokkos::parallel_for("ridgeline_ceilings_hmma_f16", policy,
                                 HmmaRate<half_t>{init_f, bad, 0x3C003C00u, n});
          },
          hmma_max);
      matrix_roof(
          DType::bf16, hmma,
          [&](std::int64_t n) {
            Kokkos::parallel_for("ridgeline_ceilings_hmma_bf16", policy,
                                 HmmaRate<bhalf_t>{init_f, bad, 0x3F803F80u, n});
          },
          hmma_max);
      // The GEMM entries' warp tiles from scratch at the entries' occupancy (cr::WarpTileRate): one wave of
      // teams, each re-reading its resident stages of ones in turn.
      auto warp_tile_roof = [&](DType d, auto proto, const std::string& entry, std::int64_t max_steps) {
        using Rate = decltype(proto);
        using Cfg = typename Rate::Kernel::config;
        const int league = std::max(1, spec.compute_units) * Cfg::min_blocks;
        typename Rate::policy_type wave(league, Cfg::team_size, 1);
        const std::size_t bytes = Rate::scratch_bytes();
        if (bytes > std::size_t(wave.scratch_size_max(0)) &&
            ridgeline::backends::cuda::lift_team_scratch_limit<Rate>(Kokkos::Cuda(), Cfg::team_size) <
                bytes) {
          out.absent.push_back(
              {to_string(d) + " warp tiles of " + entry,
               std::to_string(bytes) + " bytes of team scratch are more than this Kokkos gives"});
          return;
        }
        wave.set_scratch_size(0, Kokkos::PerTeam(bytes));
        Kokkos::View<int*, Kokkos::CudaSpace> wrong_elems("ridgeline_ceilings_warp_tile_bad", 1);
        auto launch = [&](std::int64_t n) {
          Rate f = proto;
          f.bad = wrong_elems, f.steps = n;
          Kokkos::parallel_for("ridgeline_ceilings_warp_tiles", wave, f);
        };
        const std::int64_t steps = calibrate(launch, target, max_steps);
        Kokkos::deep_copy(wrong_elems, 0);
        const Sample t = time_runs([&] { launch(steps); }, reps);
        const int wrong = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), wrong_elems)(0);
        const std::string kernel = std::string(Cfg::micro_kernel_name) + " warp tiles of " + entry;
        const std::string label =
            to_string(d) + " " + kernel + " (" + std::to_string(Cfg::bm) + "x" + std::to_string(Cfg::bn) +
            "x" + std::to_string(Cfg::bk) + " team tiles, " + std::to_string(Cfg::warp_m) + "x" +
            std::to_string(Cfg::warp_n) + " per warp, " + std::to_string(Cfg::team_size) + " threads, " +
            std::to_string(Cfg::min_blocks) +
            " teams per SM), its resident stages re-read in turn: no global traffic, no barrier";
        push_matrix_roof(d, kernel, label, t, double(league) * Rate::kFlopsPerTeamStep * double(steps), wrong,
                         steps, "K steps");
      };
      namespace cu = ridgeline::backends::cuda;
      using cu::GemmTilesFp64DmmaPairs, cu::GemmTilesFp64DmmaSmall, cu::GemmTilesHalfMmaAsync;
      warp_tile_roof(DType::fp64, cr::WarpTileRate<GemmTilesFp64DmmaPairs, double, double>{{}, 1.0, 0, 1},
                     "GemmTilesFp64DmmaPairs", std::int64_t(1) << 36);
      warp_tile_roof(DType::fp64, cr::WarpTileRate<GemmTilesFp64DmmaSmall, double, double>{{}, 1.0, 0, 1},
                     "GemmTilesFp64DmmaSmall", std::int64_t(1) << 36);
      // FP32 accumulators count exactly up to 2^24: BK a step.
      const std::int64_t half_max = (std::int64_t(1) << 24) / GemmTilesHalfMmaAsync::bk - 1;
      warp_tile_roof(DType::fp16,
                     cr::WarpTileRate<GemmTilesHalfMmaAsync, half_t, float>{{}, half_t(1.0f), 0, 1},
                     "GemmTilesHalfMmaAsync", half_max);
      warp_tile_roof(DType::bf16,
                     cr::WarpTileRate<GemmTilesHalfMmaAsync, bhalf_t, float>{{}, bhalf_t(1.0f), 0, 1},
                     "GemmTilesHalfMmaAsync", half_max);
      out.absent.push_back(
          {"tf32 matrix", "Ridgeline's TF32 GEMM runs wgmma only (sm_90a route); no rate loop"});
    } else if (kCuda) {
      out.absent.push_back(
          {"matrix units", "the DMMA m16n8k16 rate loop needs sm_90; this device is " + spec.arch});
    }
#endif
    if (!kCuda)
      out.absent.push_back(
          {"matrix units", std::string("none: Ridgeline has no matrix-unit micro-kernel on Kokkos ") +
                               Exec::name() + (kHost ? " (AMX/SME are not used)" : "")});
  }
  return out;
}

}  // namespace cli
}  // namespace ridgeline
