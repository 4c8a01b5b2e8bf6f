#pragma once
// Dispatch: picks the backend's tile table for the execution space, plans a call (gemm_plan, from
// the pure functions of gemm_plan.hpp), and executes the plan (run_gemm_plan): the kernel
// instantiation for the operands' contiguity, the copies, the peeled parts, the launch, after checking
// that the configuration fits the backend. It holds no numbers: every size comes from
// backends/<name>/tile_table.hpp.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <limits>
#include <optional>
#include <ridgeline/backends/host/tile_table.hpp>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ridgeline/detail/gemm_complex_as_real.hpp"
#include "ridgeline/detail/gemm_multi_vector.hpp"
#include "ridgeline/detail/gemm_multi_vector_dot.hpp"
#include "ridgeline/detail/gemm_plan.hpp"
#include "ridgeline/detail/gemm_team_async.hpp"
#include "ridgeline/detail/gemm_team_tiled.hpp"
#include "ridgeline/detail/gemv_team.hpp"
#include "ridgeline/detail/scale.hpp"
#include "ridgeline/detail/strided.hpp"
#include "ridgeline/detail/workspace.hpp"
#include "ridgeline/half.hpp"
#include "ridgeline/tile_config.hpp"
#if defined(KOKKOS_ENABLE_CUDA)
#include <ridgeline/backends/cuda/tile_table.hpp>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <ridgeline/backends/hip/tile_table.hpp>
#endif

namespace ridgeline::detail {

template <class ExecSpace>
struct BackendFor {
  static_assert(!std::is_same_v<ExecSpace, ExecSpace>,
                "Ridgeline has no tile table for this execution space");
};
#if defined(KOKKOS_ENABLE_SERIAL)
template <>
struct BackendFor<Kokkos::Serial> {
  using type = backends::host::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
template <>
struct BackendFor<Kokkos::OpenMP> {
  using type = backends::host::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_THREADS)
template <>
struct BackendFor<Kokkos::Threads> {
  using type = backends::host::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_CUDA)
template <>
struct BackendFor<Kokkos::Cuda> {
  using type = backends::cuda::Tiles;
};
#endif
#if defined(KOKKOS_ENABLE_HIP)
template <>
struct BackendFor<compat::HipSpace> {
  using type = backends::hip::Tiles;
};
#endif

// The accumulator may be wider than the storage type: 16-bit inputs accumulate in float. It is also
// the type of alpha and beta.
template <class T>
struct AccumulatorOf {
  using type = std::conditional_t<is_half_v<T>, float, T>;
};
template <class T>
using AccumulatorType = typename AccumulatorOf<T>::type;
// The type of alpha and beta for inputs like the View AV: the accumulator of its element type.
template <class AV>
using GemmScalar = AccumulatorType<typename AV::non_const_value_type>;
template <class T>
constexpr bool is_gemm_input_v = std::is_same_v<T, float> || std::is_same_v<T, double> || is_half_v<T>;
// gemm and gemv also take Kokkos::complex<float> and Kokkos::complex<double> (complex.hpp); the batched,
// grouped and team entries take the real types only.
// C's (or y's) element type may be the inputs' or, for 16-bit inputs, float.
template <class T, class TC>
constexpr bool is_gemm_output_v = std::is_same_v<T, TC> || (is_half_v<T> && std::is_same_v<TC, float>);

template <class ExecSpace, class T>
using Backend = typename BackendFor<ExecSpace>::type;
// The table's GEMM entries for T, in order, each with its condition (gemm_plan.hpp).
template <class ExecSpace, class T>
using GemmEntriesOf = typename Backend<ExecSpace, T>::template gemm_entries<T>;
// The general entry (any strides and alignment): every table has one.
template <class ExecSpace, class T>
using GemmCfg = typename EntryWithRole<GemmEntriesOf<ExecSpace, T>, GemmRole::general>::type;
template <class ExecSpace, class T>
using GemmMicroKernel =
    typename Backend<ExecSpace, T>::template micro_kernel<GemmCfg<ExecSpace, T>, T,
                                                          typename AccumulatorOf<T>::type>;
template <class ExecSpace, class T, bool kAFastM, bool kBFastN, bool kVec = false, class TC = T>
using GemmKernel = GemmTeamTiled<ExecSpace, GemmCfg<ExecSpace, T>, T, typename AccumulatorOf<T>::type,
                                 GemmMicroKernel<ExecSpace, T>, kAFastM, kBFastN, kVec, TC>;

// The entry for operands that stage in 16-byte packets, where the table has one (else the general
// one), and the entry for products of few rows (else the packet entry): for tests, reports, sweeps.
template <class ExecSpace, class T,
          class Packets = typename EntryWithRole<GemmEntriesOf<ExecSpace, T>, GemmRole::packets>::type>
using GemmPacketCfgOr = std::conditional_t<std::is_void_v<Packets>, GemmCfg<ExecSpace, T>, Packets>;
template <class ExecSpace, class T>
using GemmPacketCfg = GemmPacketCfgOr<ExecSpace, T>;
template <class ExecSpace, class T,
          class Narrow = typename EntryWithRole<GemmEntriesOf<ExecSpace, T>, GemmRole::narrow>::type>
using GemmNarrowCfg = std::conditional_t<std::is_void_v<Narrow>, GemmPacketCfg<ExecSpace, T>, Narrow>;
// An entry that names an asynchronous copy component (`async_copy`) runs the asynchronous-staging
// team kernel, which stages 16-byte packets only (the dispatcher checks packet_staging_applies
// first); every other entry runs register or direct staging.
template <class Cfg, class = void>
struct AsyncEntry : std::false_type {};
template <class Cfg>
struct AsyncEntry<Cfg, std::void_t<typename Cfg::async_copy>> : std::true_type {};
// How an entry moves its operand tiles, for reports: its pipeline_name, else its copy component's, else
// register staging.
template <class Cfg, class = void>
struct EntryPipelineName {
  static const char* get() {
    if constexpr (AsyncEntry<Cfg>::value) {
      return Cfg::async_copy::name;
    } else {
      return "registers";
    }
  }
};
template <class Cfg>
struct EntryPipelineName<Cfg, std::void_t<decltype(Cfg::pipeline_name)>> {
  static const char* get() { return Cfg::pipeline_name; }
};
// An entry may instead name its own team kernel (`team_kernel`, with GemmTeamAsync's parameters): a
// pipeline that is backend code, such as the CUDA table's TMA entries.
template <class Cfg, class ExecSpace, class T, class Acc, class MK, bool kAFastM, bool kBFastN, class TC,
          class = void>
struct EntryTeamKernel {
  using type = std::conditional_t<AsyncEntry<Cfg>::value,
                                  GemmTeamAsync<ExecSpace, Cfg, T, Acc, MK, kAFastM, kBFastN, TC>, void>;
};
template <class Cfg, class ExecSpace, class T, class Acc, class MK, bool kAFastM, bool kBFastN, class TC>
struct EntryTeamKernel<
    Cfg, ExecSpace, T, Acc, MK, kAFastM, kBFastN, TC,
    std::void_t<typename Cfg::template team_kernel<ExecSpace, T, Acc, MK, kAFastM, kBFastN, TC>>> {
  using type = typename Cfg::template team_kernel<ExecSpace, T, Acc, MK, kAFastM, kBFastN, TC>;
};
template <class ExecSpace, class Cfg, class T, bool kAFastM, bool kBFastN, bool kVec, class TC = T,
          class Acc = typename AccumulatorOf<T>::type,
          class MK = typename Backend<ExecSpace, T>::template micro_kernel<Cfg, T, Acc>,
          class Named = typename EntryTeamKernel<Cfg, ExecSpace, T, Acc, MK, kAFastM, kBFastN, TC>::type>
using GemmKernelFor =
    std::conditional_t<std::is_void_v<Named>,
                       GemmTeamTiled<ExecSpace, Cfg, T, Acc, MK, kAFastM, kBFastN, kVec, TC>, Named>;
template <class ExecSpace, class T, bool kAFastM, bool kBFastN, bool kVec = false, class TC = T>
using GemmPacketKernel = GemmKernelFor<ExecSpace, GemmPacketCfg<ExecSpace, T>, T, kAFastM, kBFastN, kVec, TC>;
template <class ExecSpace, class T, bool kAFastM, bool kBFastN, bool kVec = false, class TC = T>
using GemmNarrowKernel = GemmKernelFor<ExecSpace, GemmNarrowCfg<ExecSpace, T>, T, kAFastM, kBFastN, kVec, TC>;

// The entry for float products whose caller allows TF32 inputs (Math::allow_tf32), on the tensor
// cores, where the table has one (void otherwise). Its micro-kernel reads both operands k-contiguous in
// 16-byte packets (the plan copies them so where they are not).
template <class ExecSpace>
using GemmTf32Cfg = typename EntryWithRole<GemmEntriesOf<ExecSpace, float>, GemmRole::tf32>::type;
template <class ExecSpace>
constexpr bool has_tf32_entry = !std::is_void_v<GemmTf32Cfg<ExecSpace>>;
// The TF32 kernel: A and B k-contiguous (kAFastM = kBFastN = false), C float.
template <class ExecSpace>
using GemmTf32Kernel = GemmKernelFor<ExecSpace, GemmTf32Cfg<ExecSpace>, float, false, false, true, float>;

template <class T>
KOKKOS_INLINE_FUNCTION bool aligned_to(const T* p, int elems) {
  return reinterpret_cast<std::uintptr_t>(p) % (sizeof(T) * static_cast<std::size_t>(elems)) == 0;
}

// The level-0 team scratch a backend can give Kernel beyond what its Kokkos policy reports (the CUDA
// table lifts Kokkos 3.4's 48 KB, team_scratch.hpp); 0 where it has no such hook.
template <class Be, class Kernel, class ExecSpace, class = void>
struct TeamScratchLimit {
  static std::size_t of(const ExecSpace&, int) { return 0; }
};
template <class Be, class Kernel, class ExecSpace>
struct TeamScratchLimit<
    Be, Kernel, ExecSpace,
    std::void_t<decltype(Be::template team_scratch_limit<Kernel>(std::declval<const ExecSpace&>(), 0))>> {
  static std::size_t of(const ExecSpace& e, int team_size) {
    return Be::template team_scratch_limit<Kernel>(e, team_size);
  }
};

// Rejects a tile configuration the backend cannot run, before anything is launched. lifted: the
// backend's own level-0 limit for this kernel, where it raised Kokkos's (0: none).
template <class Policy, class Functor>
void require_fits(const Policy& policy, const Functor& f, int level, std::size_t bytes, int team_size,
                  const char* func, const std::string& what, std::size_t lifted = 0) {
  std::size_t max_bytes = static_cast<std::size_t>(policy.scratch_size_max(level));
  if (level == 0 && lifted > max_bytes) max_bytes = lifted;
  if (bytes > max_bytes) {
    throw std::invalid_argument(std::string("ridgeline::") + func + ": tile configuration " + what +
                                " needs " + std::to_string(bytes) + " B of level-" + std::to_string(level) +
                                " team scratch, but this backend allows " + std::to_string(max_bytes) + " B");
  }
  const int max_team = policy.team_size_max(f, Kokkos::ParallelForTag());
  if (team_size > max_team) {
    throw std::invalid_argument(std::string("ridgeline::") + func + ": tile configuration " + what +
                                " needs a team of " + std::to_string(team_size) +
                                " threads, but this backend allows " + std::to_string(max_team));
  }
}

template <class Cfg>
std::string describe_gemm_cfg() {
  return std::to_string(Cfg::bm) + "x" + std::to_string(Cfg::bn) + "x" + std::to_string(Cfg::bk) + "/" +
         std::to_string(Cfg::tm) + "x" + std::to_string(Cfg::tn);
}

// Compute units (SMs, CUs) of the device behind exec, where the backend's table can say; 0 where
// it cannot, which turns split-K off.
template <class Be, class ExecSpace, class = void>
struct ComputeUnits {
  static int of(const ExecSpace&) { return 0; }
};
template <class Be, class ExecSpace>
struct ComputeUnits<Be, ExecSpace,
                    std::void_t<decltype(Be::compute_units(std::declval<const ExecSpace&>()))>> {
  static int of(const ExecSpace& e) { return Be::compute_units(e); }
};

// The workspace of exec's instance. A table names `instance_key` where calls are asynchronous
// (its stream); elsewhere the calls on one space share a workspace, and the lease serialises them.
template <class Be, class ExecSpace, class = void>
struct InstanceKey {
  static const void* of(const ExecSpace&) { return nullptr; }
};
template <class Be, class ExecSpace>
struct InstanceKey<Be, ExecSpace, std::void_t<decltype(Be::instance_key(std::declval<const ExecSpace&>()))>> {
  static const void* of(const ExecSpace& e) { return Be::instance_key(e); }
};
template <class ExecSpace>
WorkspaceLease<ExecSpace> lease_workspace(const ExecSpace& exec) {
  return WorkspaceLease<ExecSpace>(exec,
                                   InstanceKey<typename BackendFor<ExecSpace>::type, ExecSpace>::of(exec));
}

// The K split a plan would give Kernel's entry on an M x N x K product on exec (plan_k_split), for
// tests and sweeps that launch a kernel directly.
template <class Kernel, class ExecSpace>
KSplit gemm_k_split(const ExecSpace& exec, std::int64_t m, std::int64_t n, std::int64_t k) {
  using Be = typename BackendFor<ExecSpace>::type;
  return plan_k_split(tile_params<typename Kernel::config>(), m, n, k, ComputeUnits<Be, ExecSpace>::of(exec),
                      sizeof(typename Kernel::accumulator_type));
}
template <class Kernel, class ExecSpace>
int gemm_k_slices(const ExecSpace& exec, std::int64_t m, std::int64_t n, std::int64_t k) {
  return gemm_k_split<Kernel>(exec, m, n, k).slices;
}

// C = sum over slices of work[s] (+ beta * C), in a fixed order so reruns are bit-identical: slice
// order, where a thread sums each element. From kLaneSumSlices slices on (a wide GEMV's hundreds of
// slices over a thousand rows), a thread per element would wait on its slices' loads nearly one
// after another, with a few thousand threads on the whole device; there the vector lanes of a team
// share each element, lane l summing slices l, l + V, ... in order, then the lanes' sums in Kokkos's
// vector reduction, whose tree is fixed for a vector length.
constexpr int kLaneSumSlices = 32;
template <class ExecSpace, class T, class Acc>
void split_k_reduce(const ExecSpace& exec, const Acc* work, int slices, const Strided2D<T>& c, Acc beta) {
  const std::int64_t mn = c.rows * c.cols;
  using Lanes = Kokkos::TeamPolicy<ExecSpace, Kokkos::IndexType<int>>;
  if (slices >= kLaneSumSlices && mn <= std::numeric_limits<int>::max()) {
    const int lanes = Lanes::vector_length_max() < 32 ? Lanes::vector_length_max() : 32;
    Kokkos::parallel_for(
        "ridgeline::gemm split-K reduce (lanes)", Lanes(exec, static_cast<int>(mn), 1, lanes),
        KOKKOS_LAMBDA(const typename Lanes::member_type& team) {
          const std::int64_t e = team.league_rank();
          Acc v = Acc(0);
          Kokkos::parallel_reduce(
              Kokkos::ThreadVectorRange(team, lanes),
              [&](const int l, Acc& part) {
                for (int s = l; s < slices; s += lanes) part += work[s * mn + e];
              },
              v);
          Kokkos::single(Kokkos::PerThread(team), [&] {
            const std::int64_t m = e % c.rows, n = e / c.rows;
            if (beta != Acc(0)) v += beta * static_cast<Acc>(c(m, n));
            c(m, n) = static_cast<T>(v);
          });
        });
    return;
  }
  // kPer consecutive elements per thread, every slice's loads issued before the first store: one element
  // per thread kept two loads in flight and took 12.8 us for 1021 x 1031 floats in two slices, about
  // 1 TB/s (ncu, perf/results/2026-12-03-h200-ceb9658/h200-2026-12-03-ceb9658-ncu.txt). One division per
  // thread places its first element; the sums keep slice order, so the bits are those of one per thread.
  // Measured 8.5-8.9 us (-42fc9b8-ncu.txt), not the 4-5 predicted: a slice's loads still wait on the
  // previous slice's adds.
  constexpr int kPer = 4;
  Kokkos::parallel_for(
      "ridgeline::gemm split-K reduce",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, (mn + kPer - 1) / kPer),
      KOKKOS_LAMBDA(const std::int64_t q) {
        const std::int64_t e0 = q * kPer;
        Acc v[kPer];
        for (int i = 0; i < kPer; ++i) v[i] = e0 + i < mn ? work[e0 + i] : Acc(0);
        for (int s = 1; s < slices; ++s) {
          const Acc* w = work + s * mn + e0;
          for (int i = 0; i < kPer; ++i) v[i] += e0 + i < mn ? w[i] : Acc(0);
        }
        std::int64_t m = e0 % c.rows, n = e0 / c.rows;
        for (int i = 0; i < kPer && e0 + i < mn; ++i) {
          Acc x = v[i];
          if (beta != Acc(0)) x += beta * static_cast<Acc>(c(m, n));
          c(m, n) = static_cast<T>(x);
          if (++m == c.rows) m = 0, ++n;
        }
      });
}

// A table entry may ask for L1 over shared memory (prefer_l1); its table then says how.
template <class Cfg, class = void>
struct PrefersL1 : std::false_type {};
template <class Cfg>
struct PrefersL1<Cfg, std::void_t<decltype(Cfg::prefer_l1)>> : std::bool_constant<Cfg::prefer_l1> {};

// Whether backend Be can act on prefer_l1 (CUDA); elsewhere the field is ignored.
template <class Be, class Kernel, class ExecSpace, class = void>
struct HasPreferL1 : std::false_type {};
template <class Be, class Kernel, class ExecSpace>
struct HasPreferL1<Be, Kernel, ExecSpace,
                   std::void_t<decltype(Be::template prefer_l1<Kernel>(
                       std::declval<const ExecSpace&>(), std::size_t(0), 0))>> : std::true_type {};

// Runs after a launch of Kernel (a kernel's carveout is set on its first launch by Kokkos).
template <class Kernel, class Cfg, class ExecSpace>
void after_launch(const ExecSpace& exec) {
  using Be = typename BackendFor<ExecSpace>::type;
  if constexpr (PrefersL1<Cfg>::value && HasPreferL1<Be, Kernel, ExecSpace>::value) {
    Be::template prefer_l1<Kernel>(exec, Kernel::scratch_bytes(), Cfg::team_size);
  } else {
    (void)exec;
  }
}

// A kernel may read launch parameters from device memory (`device_params`: the TMA kernels' tensor
// maps, which a kernel argument cannot hold for them). launch_gemm puts them in the instance's
// workspace and holds its lease until the kernel is enqueued.
template <class Kernel, class = void>
struct HasDeviceParams : std::false_type {};
template <class Kernel>
struct HasDeviceParams<Kernel, std::void_t<typename Kernel::device_params>> : std::true_type {};

// The split's partials for an M x N product (mn elements each) in lease's workspace, or nullptr where
// there is no room for them (the workspace limit, or device memory): then the product runs in one slice.
template <class Acc, class ExecSpace>
Acc* lease_partials(WorkspaceLease<ExecSpace>& lease, KSplit split, std::int64_t mn) {
  try {
    return lease.template get<Acc>(WorkSlot::partials,
                                   static_cast<std::size_t>(split.slices) * static_cast<std::size_t>(mn));
  } catch (const std::exception&) {
    return nullptr;
  }
}

// Kernels that can run their whole league on the calling thread (run_on_calling_thread: the host's packed
// panels) where the plan says so.
template <class Kernel, class = void>
struct RunsOnCallingThread : std::false_type {};
template <class Kernel>
struct RunsOnCallingThread<Kernel, std::void_t<decltype(&Kernel::run_on_calling_thread)>> : std::true_type {};

// Launches Kernel on C = alpha * op(A) * op(B) + beta * C, in split.slices K slices (the plan's
// split; without room for the partials in the workspace, one), or on the calling thread (the plan's
// calling_thread, for kernels that can).
template <class Kernel, class ExecSpace, class T, class TC, class Acc>
void launch_gemm(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                 const Strided2D<TC>& c, Acc alpha, Acc beta, KSplit split, bool calling_thread = false) {
  using Cfg = typename Kernel::config;
  const std::int64_t tiles_m = (c.rows + Cfg::bm - 1) / Cfg::bm;
  const std::int64_t tiles_n = (c.cols + Cfg::bn - 1) / Cfg::bn;
  require_int_range(tiles_m * tiles_n, "number of C tiles", "gemm");
  require_int_range(a.cols, "K", "gemm");
  Kernel f;  // not an aggregate initializer: the kernels derive from their epilogue
  f.a = a, f.b = b, f.c = c, f.alpha = alpha, f.beta = beta;
  f.tiles_m = static_cast<int>(tiles_m), f.tiles_n = static_cast<int>(tiles_n);
  if constexpr (Kernel::c_packet_capable) {
    f.c_packets = c.rs == 1 && c.cs % Kernel::kCV == 0 && aligned_to(c.data, Kernel::kCV);
  }
  std::optional<WorkspaceLease<ExecSpace>> params_lease;
  if constexpr (HasDeviceParams<Kernel>::value) {
    const typename Kernel::device_params host = f.make_device_params();
    params_lease.emplace(lease_workspace(exec));
    f.bind_device_params(params_lease->put(WorkSlot::kernel_params, &host, 1));
  }
  if constexpr (RunsOnCallingThread<Kernel>::value) {
    if (calling_thread) {
      exec.fence();  // what the instance ran before this call comes first, as with a launch
      f.run_on_calling_thread(static_cast<int>(tiles_m * tiles_n));
      return;
    }
  } else {
    (void)calling_thread;
  }
  typename Kernel::policy_type policy(exec, static_cast<int>(tiles_m * tiles_n), Cfg::team_size,
                                      Cfg::vector_length);
  using Be = typename BackendFor<ExecSpace>::type;
  const std::size_t lifted =
      Kernel::scratch_bytes() > std::size_t(policy.scratch_size_max(Cfg::scratch_level))
          ? TeamScratchLimit<Be, Kernel, ExecSpace>::of(exec, Cfg::team_size)
          : 0;
  require_fits(policy, f, Cfg::scratch_level, Kernel::scratch_bytes(), Cfg::team_size, "gemm",
               describe_gemm_cfg<Cfg>(), lifted);
  policy.set_scratch_size(Cfg::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
  if (split.slices > 1) {
    // The partials live in the instance's workspace, held until both kernels are enqueued.
    auto lease = lease_workspace(exec);
    if (Acc* work = lease_partials<Acc>(lease, split, c.rows * c.cols)) {
      f.work = work, f.k_slices = split.slices, f.k_chunk = split.k_chunk;
      typename Kernel::policy_type sliced(exec, static_cast<int>(tiles_m * tiles_n * split.slices),
                                          Cfg::team_size, Cfg::vector_length);
      sliced.set_scratch_size(Cfg::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
      Kokkos::parallel_for("ridgeline::gemm split-K", sliced, f);
      after_launch<Kernel, Cfg>(exec);
      split_k_reduce(exec, f.work, f.k_slices, c, beta);
      return;
    }
  }
  Kokkos::parallel_for("ridgeline::gemm", policy, f);
  after_launch<Kernel, Cfg>(exec);
}

}  // namespace ridgeline::detail
#if defined(KOKKOS_ENABLE_CUDA)
// The wgmma kernels' launches are compiled into the library, not here.
#include <ridgeline/backends/cuda/wgmma_instances_sm90a.hpp>
#endif
namespace ridgeline::detail {

// Whether one operand stages in packets of W elements with its rows (rows_fast) or its columns as
// the fast index: unit stride along it, a slow stride that keeps every line aligned, an aligned origin.
template <class T>
bool stages_in_packets(const Strided2D<const T>& x, bool rows_fast, int W) {
  const std::int64_t fs = rows_fast ? x.rs : x.cs, ss = rows_fast ? x.cs : x.rs;
  return fs == 1 && ss % W == 0 && aligned_to(x.data, W);
}

// Both operands of op(A) * op(B) stage in 16-byte packets along their contiguous index (GemmFacts::packets).
template <class T>
bool operands_stage_in_packets(const Strided2D<const T>& a, const Strided2D<const T>& b) {
  constexpr int W = int(16 / sizeof(T));
  return stages_in_packets(a, rows_contiguous(a), W) && stages_in_packets(b, rows_contiguous(b), W);
}
// Both have unit stride along their contiguous index, whatever their alignment (GemmFacts::unit_stride):
// what an entry of one-element copies needs (when::in_place).
template <class T>
bool operands_have_unit_stride(const Strided2D<const T>& a, const Strided2D<const T>& b) {
  return stages_in_packets(a, rows_contiguous(a), 1) && stages_in_packets(b, rows_contiguous(b), 1);
}

// Picks the 16-byte packet staging when both operands allow it. Anything else (an odd leading
// dimension such as 4097, a sub-view at an odd offset) stages element by element.
template <class Plain, class T>
bool packet_staging_applies(const Strided2D<const T>& a, const Strided2D<const T>& b) {
  if constexpr (Plain::vector_capable) {
    // op(A)'s rows index m, op(B)'s columns n.
    return stages_in_packets(a, Plain::a_fast_m, Plain::kVecW) &&
           stages_in_packets(b, !Plain::b_fast_n, Plain::kVecW);
  } else {
    return false;
  }
}

// ---- aligned operand copies ---------------------------------------------------------------------
// A table may name `pack_min_extent<T>`: when M, N and K all reach it, operands that cannot stage in
// packets (an odd leading dimension such as 4097, a sub-view at an odd offset) are first copied into
// workspace buffers whose lines start 16-byte aligned, and the packet entry runs on the copies. The
// copies move (M*K + K*N) elements twice, against M*N*K FMAs.
template <class Be, class T, class = void>
struct PackMinExtent {
  static constexpr std::int64_t value = 0;  // no copies
};
template <class Be, class T>
struct PackMinExtent<Be, T, std::void_t<decltype(Be::template pack_min_extent<T>)>> {
  static constexpr std::int64_t value = Be::template pack_min_extent<T>;
};

// Elements of x's aligned copy: the fast index (rows where rows_contiguous) padded to 128 bytes, a cache
// line, so that every line of the copy starts on one (the buffer does). A k-contiguous staged line of 16
// doubles is then four whole 32-byte sectors, where 16-byte padding could leave it across five: DGEMM TN 2039
// x 2053 x K on the H100 ran 597 us copied to leading dimension 2062 (K 2061) and 416 us copied to 2064 (K
// 2063) (perf/results/2026-12-07-h100-71950e0/). 32 bytes would do for that (2500^3's 20000-byte lines ran
// no faster copied onto cache lines, -761c493-); 128 costs at most 15 elements a line.
template <class T>
std::int64_t packed_lead(const Strided2D<const T>& x) {
  constexpr std::int64_t W = 128 / sizeof(T);
  return ((rows_contiguous(x) ? x.rows : x.cols) + W - 1) / W * W;
}
template <class T>
std::size_t packed_size(const Strided2D<const T>& x) {
  return static_cast<std::size_t>(packed_lead(x) * (rows_contiguous(x) ? x.cols : x.rows));
}

// A table may name copy_k_lines_off<T>: bytes (a sector) that the lines of a k-contiguous operand should
// start on; one that stages in packets but whose lines do not is copied too (onto cache lines, packed_lead),
// from pack_min_extent on (0: never).
template <class Be, class T, class = void>
struct CopyKLinesOff {
  static constexpr int value = 0;
};
template <class Be, class T>
struct CopyKLinesOff<Be, T, std::void_t<decltype(Be::template copy_k_lines_off<T>)>> {
  static constexpr int value = Be::template copy_k_lines_off<T>;
};
// Whether operand x (op(A) where is_a, else op(B)) either is not k-contiguous or has every line on a multiple
// of `bytes`: its origin and its stride between lines.
template <class T>
bool k_lines_aligned_to(const Strided2D<const T>& x, bool is_a, int bytes) {
  const bool rows_fast = rows_contiguous(x);
  if (rows_fast == is_a) return true;  // op(A) walks m contiguously, or op(B) n: not k-contiguous
  const std::int64_t line = rows_fast ? x.cs : x.rs;
  return (line * std::int64_t(sizeof(T))) % bytes == 0 &&
         reinterpret_cast<std::uintptr_t>(x.data) % std::uintptr_t(bytes) == 0;
}

// Copies x into d (packed_size(x) elements), keeping its fast index at unit stride, so the same
// kernel orientation applies to the copy; returns the copy. Padding is written as zero, never read.
// A team per line: a flat index would need a 64-bit division per element, which cost more than the
// copy's memory traffic on the H200.
template <class ExecSpace, class T>
Strided2D<const T> pack_aligned(const ExecSpace& exec, const Strided2D<const T>& x, T* d) {
  const bool rows_fast = rows_contiguous(x);
  const std::int64_t F = rows_fast ? x.rows : x.cols, ld = packed_lead(x);
  const std::int64_t S = rows_fast ? x.cols : x.rows;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  Kokkos::parallel_for(
      "ridgeline::gemm aligned copy", Policy(exec, static_cast<int>(S), Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        const std::int64_t sl = team.league_rank();
        T* line = d + sl * ld;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ld), [&](const std::int64_t f) {
          line[f] = f < F ? (rows_fast ? x(f, sl) : x(sl, f)) : T(0);
        });
      });
  // The copy holds the elements as they are; a conjugated operand stays conjugated, applied when staged.
  return with_conj_of(Strided2D<const T>{d, x.rows, x.cols, rows_fast ? 1 : ld, rows_fast ? ld : 1}, x);
}

template <class T>
Strided2D<T> block_of(const Strided2D<T>& x, std::int64_t r0, std::int64_t r1, std::int64_t c0,
                      std::int64_t c1) {
  return with_conj_of(Strided2D<T>{x.data + r0 * x.rs + c0 * x.cs, r1 - r0, c1 - c0, x.rs, x.cs}, x);
}

// ---- TF32 (Math::allow_tf32) ---------------------------------------------------------------------
// Copies x (lines x depth, element (l, p) at l * ls + p * ps) into d with p contiguous: line l at
// l * ld, ld = depth rounded up to 16 bytes, the padding zero. Through 64 x 64 blocks in scratch, so
// that both the reads (along whichever index is contiguous in x) and the writes are coalesced:
// copying op(A) of an NN product line by line would read 4 bytes out of every 32-byte sector. Reads
// and writes move 16-byte packets where x's and d's lines allow it (element by element otherwise),
// all of a thread's reads issued before its first store. The 32 x 32 element-by-element version moved
// 8192^2 floats at about 1.7 TB/s (0.32 ms of the TF32 NN 8192^3 call's 3.06 at ec88549), and 16
// element loads in flight per thread only took that to 1.8 (2266cfa). Complex elements are conjugated
// on the way where conj is set (the complex-as-real copy of a 'C' operand); complex<double> blocks are
// 32 x 32, since 64 x 65 of them (66 KB) pass Kokkos 3.4's 48 KB of team scratch on CUDA.
template <class ExecSpace, class T>
void copy_depth_contiguous(const ExecSpace& exec, const T* x, std::int64_t lines, std::int64_t depth,
                           std::int64_t ls, std::int64_t ps, std::int64_t ld, T* d, bool conj = false) {
  constexpr int B = sizeof(T) > 8 ? 32 : 64, kThreads = 256;                      // a B x B block per team
  constexpr int kW = int(16 / sizeof(T));                                         // elements per packet
  constexpr int kLanes = B / kW, kRows = kThreads / kLanes, kPasses = B / kRows;  // packet staging
  constexpr int kTx = B, kTy = kThreads / B, kPer = B / kTy;                      // element staging
  const std::int64_t bl = (lines + B - 1) / B, bp = (ld + B - 1) / B;
  require_int_range(bl * bp, "blocks of the K-contiguous copy", "gemm");
  // Four teams per SM at most 64 registers per thread: without the bound the unrolled 64-bit index
  // math took 168 and left one team per SM.
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kThreads, 4>>;
  using Scratch = Kokkos::View<T[B][B + 1], typename ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using P = Packet<kW, T>;
  Policy policy(exec, static_cast<int>(bl * bp), kThreads);
  policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size()));
  const bool lines_fast = ls == 1;  // x is contiguous along l (the transposing case) or along p
  // Packets of x: unit stride along its contiguous index, the other stride and the origin aligned.
  const bool vec_read = stages_in_packets(Strided2D<const T>{x, lines, depth, ls, ps}, lines_fast, kW);
  const bool vec_write = ld % kW == 0 && aligned_to(d, kW);
  Kokkos::parallel_for(
      "ridgeline::gemm K-contiguous copy", policy, KOKKOS_LAMBDA(const typename Policy::member_type& team) {
        Scratch tile(team.team_scratch(0));  // (p, l) of the block
        const std::int64_t l0 = (team.league_rank() / bp) * B, p0 = (team.league_rank() % bp) * B;
        const int t = team.team_rank();
        if (vec_read) {
          // Packet f (kW elements along x's contiguous index) of slow line s = row + pass * kRows.
          const int f = (t % kLanes) * kW, row = t / kLanes;
          const std::int64_t fast0 = (lines_fast ? l0 : p0) + f, slow0 = (lines_fast ? p0 : l0) + row;
          const std::int64_t fast_n = lines_fast ? lines : depth, slow_n = lines_fast ? depth : lines;
          const std::int64_t ss = lines_fast ? ps : ls;  // the slow stride
          P v[kPasses];
          RIDGELINE_UNROLL
          for (int i = 0; i < kPasses; ++i) {
            const std::int64_t sl = slow0 + i * kRows;
            const T* q = x + sl * ss + fast0;
            if (sl < slow_n && fast0 + kW <= fast_n) {
              v[i] = load_packet<kW>(q);
            } else {
              for (int e = 0; e < kW; ++e) v[i].v[e] = sl < slow_n && fast0 + e < fast_n ? q[e] : T(0);
            }
          }
          RIDGELINE_UNROLL
          for (int i = 0; i < kPasses; ++i) {
            const int r = row + i * kRows;
            for (int e = 0; e < kW; ++e)
              tile(lines_fast ? r : f + e, lines_fast ? f + e : r) = conj_if(v[i].v[e], conj);
          }
        } else {
          // Element by element: lanes walk x's contiguous index (l when lines_fast, else p).
          const int tx = t % kTx, ty = t / kTx;
          const std::int64_t lt = l0 + (lines_fast ? tx : ty), pt = p0 + (lines_fast ? ty : tx);
          const std::int64_t step = kTy * (lines_fast ? ps : ls);
          const T* src = x + lt * ls + pt * ps;
          const std::int64_t left = lines_fast ? depth - pt : lines - lt;  // rows of i inside x
          const bool lane_in = lines_fast ? lt < lines : pt < depth;
          T v[kPer];
          RIDGELINE_UNROLL
          for (int i = 0; i < kPer; ++i) v[i] = lane_in && i * kTy < left ? src[i * step] : T(0);
          RIDGELINE_UNROLL
          for (int i = 0; i < kPer; ++i) {
            const int r = ty + i * kTy;
            tile(lines_fast ? r : tx, lines_fast ? tx : r) = conj_if(v[i], conj);
          }
        }
        team.team_barrier();
        if (vec_write) {
          const int f = (t % kLanes) * kW, row = t / kLanes;
          const std::int64_t p = p0 + f;
          RIDGELINE_UNROLL
          for (int i = 0; i < kPasses; ++i) {
            const int r = row + i * kRows;
            const std::int64_t l = l0 + r;
            if (l < lines && p < ld) {  // p and ld are whole packets
              P v;
              for (int e = 0; e < kW; ++e) v.v[e] = tile(f + e, r);
              *reinterpret_cast<P*>(d + l * ld + p) = v;
            }
          }
        } else {
          const int tx = t % kTx, ty = t / kTx;
          RIDGELINE_UNROLL
          for (int i = 0; i < kPer; ++i) {
            const int r = ty + i * kTy;
            const std::int64_t l = l0 + r, p = p0 + tx;
            if (l < lines && p < ld) d[l * ld + p] = tile(tx, r);
          }
        }
      });
}

// Whether op(A) (a_side) or op(B) is k-contiguous in aligned 16-byte packets, as the TF32 kernel reads
// it: k is op(A)'s column index and op(B)'s row index.
inline bool tf32_stages_as_is(const Strided2D<const float>& x, bool a_side) {
  return stages_in_packets(x, !a_side, 4);
}

// ---- the plan ----------------------------------------------------------------------------------
// A table may name `calling_thread_flops`: packed-panel products of one block and at most that many flops
// (2 M N K) run on the calling thread, with no parallel launch, which would cost more than it could save:
// a block runs on one thread either way (host: the OpenMP fork and join). 0 or absent: never.
template <class Be, class = void>
struct CallingThreadFlops {
  static constexpr double value = 0;
};
template <class Be>
struct CallingThreadFlops<Be, std::void_t<decltype(Be::calling_thread_flops)>> {
  static constexpr double value = Be::calling_thread_flops;
};

// Completes a plan once its entry (an index into ExecSpace's table for T) is chosen: the entry's role,
// its peel and its K split for an M x N x K product on compute_units, or the calling thread.
template <class ExecSpace, class T>
void finish_plan(GemmPlan& plan, int entry, std::int64_t m, std::int64_t n, std::int64_t k,
                 std::int64_t compute_units) {
  const GemmEntryParams p = GemmEntriesOf<ExecSpace, T>::params(entry);
  plan.entry = entry, plan.role = p.role;
  constexpr double kCallingThread = CallingThreadFlops<Backend<ExecSpace, T>>::value;
  if (p.role == GemmRole::panels && one_block_within(m, n, k, p.bm, p.bn, kCallingThread)) {
    plan.calling_thread = true, plan.peel = {}, plan.split = KSplit{1, 0};
    return;
  }
  plan_peel_and_split(plan, p, m, n, k, compute_units, sizeof(AccumulatorType<T>));
}

// Whether entry E's kernel stages op(A) and op(B) in packets in this orientation (a_m: op(A) walks m
// contiguously; b_n: op(B) walks n contiguously). The asynchronous and TMA kernels always do; the
// register-staging kernel only for some tile shapes.
template <class ExecSpace, class T, class E>
bool entry_vector_capable(bool a_m, bool b_n) {
  using Cfg = typename E::Cfg;
  if (a_m && b_n) return GemmKernelFor<ExecSpace, Cfg, T, true, true, false>::vector_capable;
  if (a_m) return GemmKernelFor<ExecSpace, Cfg, T, true, false, false>::vector_capable;
  if (b_n) return GemmKernelFor<ExecSpace, Cfg, T, false, true, false>::vector_capable;
  return GemmKernelFor<ExecSpace, Cfg, T, false, false, false>::vector_capable;
}

// The plan for C = alpha * op(A) * op(B) + beta * C (shapes validated, M, N, K > 0) on a device of
// compute_units SMs or CUs (0: unknown). tf32: the caller allows TF32 (float only). allow_copies =
// false: the operands are already copies, or parts of a product that was split. Pure: reads the
// operands' strides, extents and addresses (never their elements) and the workspace limit.
template <class ExecSpace, class T>
GemmPlan plan_gemm(const Strided2D<const T>& a, const Strided2D<const T>& b, std::int64_t compute_units,
                   bool tf32 = false, bool allow_copies = true) {
  using L = GemmEntriesOf<ExecSpace, T>;
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  GemmPlan plan;
  const bool a_m = rows_contiguous(a), b_n = !rows_contiguous(b);
  GemmFacts f{m,
              n,
              k,
              operands_stage_in_packets(a, b),
              tf32 && std::is_same_v<T, float>,
              compute_units,
              a_m,
              b_n,
              operands_have_unit_stride(a, b)};
  // Whether entry `index` can stage operands of orientation (am, bn) in packets, where it needs them.
  const auto usable_for = [](bool am, bool bn) {
    return [am, bn](int index) {
      bool ok = true;
      L::visit(index, [&](auto e) {
        using E = decltype(e);
        if constexpr (E::When::needs_packets && E::When::role != GemmRole::tf32)
          ok = entry_vector_capable<ExecSpace, T, E>(am, bn);
      });
      return ok;
    };
  };
  const auto usable = usable_for(a_m, b_n);
  // Skinny M: a product with fewer rows than columns whose transpose, C^T = op(B)^T op(A)^T, a
  // multi-vector or few-columns entry takes as skinny N (8 x 16384 x 16384 NN: 16384 dot products of
  // rows of B^T with 8 columns) runs transposed. The tile entries would leave most rows of every tile
  // empty.
  if (m >= 2 && m < n) {
    const Strided2D<const T> at = transpose_of(b), bt = transpose_of(a);
    const bool at_m = rows_contiguous(at), bt_n = !rows_contiguous(bt);
    GemmFacts ft;
    ft.m = n, ft.n = m, ft.k = k, ft.compute_units = compute_units, ft.a_rows_contiguous = at_m;
    ft.b_cols_contiguous = bt_n;
    ft.packets = operands_stage_in_packets(at, bt), ft.unit_stride = operands_have_unit_stride(at, bt);
    const int e = L::first_applying(ft, usable_for(at_m, bt_n));
    const GemmRole r = L::params(e).role;
    if (e >= 0 &&
        (r == GemmRole::multi_vector || r == GemmRole::multi_vector_dot || r == GemmRole::few_columns)) {
      plan.transposed = true;
      finish_plan<ExecSpace, T>(plan, e, n, m, k, compute_units);
      return plan;
    }
  }
  plan.entry = L::first_applying(f, usable);
  if constexpr (std::is_same_v<T, float>) {
    if (L::params(plan.entry).role == GemmRole::tf32) {
      // The copies, where the operands are not k-contiguous already; without room for them under the
      // workspace limit, exact FP32 (Math::allow_tf32 is a permission).
      const std::int64_t ld = (k + 3) / 4 * 4;
      plan.copy_a = !tf32_stages_as_is(a, true), plan.copy_b = !tf32_stages_as_is(b, false);
      const std::size_t bytes =
          sizeof(float) * std::size_t((plan.copy_a ? m * ld : 0) + (plan.copy_b ? n * ld : 0));
      if (workspace_allows(bytes)) {
        finish_plan<ExecSpace, T>(plan, plan.entry, m, n, k, compute_units);
        return plan;
      }
      plan.copy_a = plan.copy_b = false;
      f.tf32 = false;
      plan.entry = L::first_applying(f, usable);
    }
  }
  // Operands are copied aligned first where the table says the product is large enough to pay for the copies
  // (pack_min_extent) and the workspace limit allows them: each operand that cannot stage in packets, and
  // each k-contiguous one whose lines are off the table's sectors (copy_k_lines_off), that one alone. An
  // entry that reads unaligned operands in place (when::in_place) runs where no copies are made.
  constexpr std::int64_t lim = PackMinExtent<Backend<ExecSpace, T>, T>::value;
  if (allow_copies && lim > 0 && m >= lim && n >= lim && k >= lim) {
    constexpr int W = int(16 / sizeof(T)), line = CopyKLinesOff<Backend<ExecSpace, T>, T>::value;
    const auto needs_copy = [&](const Strided2D<const T>& x, bool is_a) {
      return !stages_in_packets(x, rows_contiguous(x), W) || (line > 0 && !k_lines_aligned_to(x, is_a, line));
    };
    const bool ca = needs_copy(a, true), cb = needs_copy(b, false);
    if ((ca || cb) && workspace_allows(((ca ? packed_size(a) : 0) + (cb ? packed_size(b) : 0)) * sizeof(T))) {
      GemmFacts copied = f;
      copied.packets = true;  // the copies keep each operand's fast index, on aligned lines
      const int i = L::first_applying(copied, usable);
      if (L::params(i).needs_packets) plan.entry = i, plan.copy_a_aligned = ca, plan.copy_b_aligned = cb;
    }
  }
  finish_plan<ExecSpace, T>(plan, plan.entry, m, n, k, compute_units);
  return plan;
}

// The plan for exec's device.
template <class ExecSpace, class T>
GemmPlan gemm_plan(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                   bool tf32 = false, bool allow_copies = true) {
  return plan_gemm<ExecSpace, T>(a, b, ComputeUnits<Backend<ExecSpace, T>, ExecSpace>::of(exec), tf32,
                                 allow_copies);
}

// The plan with another entry of the table (by index; the tile sweep times the alternatives through
// the executor): its own peel and split for this shape, the rest as planned.
template <class ExecSpace, class T>
GemmPlan gemm_plan_with_entry(const ExecSpace& exec, GemmPlan plan, int entry, std::int64_t m, std::int64_t n,
                              std::int64_t k) {
  finish_plan<ExecSpace, T>(plan, entry, m, n, k, ComputeUnits<Backend<ExecSpace, T>, ExecSpace>::of(exec));
  return plan;
}

}  // namespace ridgeline::detail
// The tune cache's choices on top of the table's plan (gemm_call_plan).
#include "ridgeline/detail/gemm_tuned_plan.hpp"
namespace ridgeline::detail {

// Whether ridgeline::gemm stages these operands in 16-byte packets as they are (for tests and reports).
template <class ExecSpace, class T>
bool gemm_uses_packets(const Strided2D<const T>& a, const Strided2D<const T>& b) {
  const GemmPlan plan = gemm_plan(ExecSpace(), a, b, false, false);
  return GemmEntriesOf<ExecSpace, T>::params(plan.entry).needs_packets;
}
// Whether ridgeline::gemm copies these operands into aligned buffers before the product.
template <class ExecSpace, class T>
bool gemm_packs_operands(const Strided2D<const T>& a, const Strided2D<const T>& b) {
  return gemm_plan(ExecSpace(), a, b).copies_aligned();
}

// ---- executing a plan ------------------------------------------------------------------------------
template <class ExecSpace, class T, class TC>
void gemm_dispatch(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                   const Strided2D<TC>& c, AccumulatorType<T> alpha, AccumulatorType<T> beta,
                   bool allow_copies = true, bool tf32 = false);

template <class ExecSpace, class T, class TY>
void gemv_dispatch(const ExecSpace& exec, const Strided2D<const T>& a, const Strided1D<const T>& x,
                   const Strided1D<TY>& y, AccumulatorType<T> alpha, AccumulatorType<T> beta);

// One multi-vector kernel (either form; Kernel: rows of BR per team, K slices, partials in `work`) on
// C = alpha * op(A) * op(B) + beta * C in split.slices K slices; without room for the partials in the
// workspace, one. The slices are summed in slice order afterwards (bit-identical reruns).
template <class Kernel, class Cfg, class ExecSpace, class T, class TC, class Acc>
void launch_multi_vector_kernel(const ExecSpace& exec, KSplit split, const Strided2D<const T>& a,
                                const Strided2D<const T>& b, const Strided2D<TC>& c, Acc alpha, Acc beta,
                                const char* label) {
  Kernel f;
  f.a = a, f.b = b, f.c = c, f.alpha = alpha, f.beta = beta;
  const std::int64_t row_blocks = (a.rows + Kernel::BR - 1) / Kernel::BR;
  f.row_blocks = static_cast<int>(row_blocks);
  std::optional<WorkspaceLease<ExecSpace>> lease;
  if (split.slices > 1) {
    lease.emplace(lease_workspace(exec));
    if ((f.work = lease_partials<Acc>(*lease, split, c.rows * c.cols))) {
      f.slices = split.slices, f.k_chunk = split.k_chunk;
    }
  }
  require_int_range(row_blocks * f.slices, "number of multi-vector teams", "gemm");
  typename Kernel::policy_type policy(exec, static_cast<int>(row_blocks * f.slices), Cfg::team_size, 1);
  require_fits(policy, f, 0, Kernel::scratch_bytes(), Cfg::team_size, "gemm",
               std::to_string(Cfg::b_rows) + " staged rows of op(B)");
  policy.set_scratch_size(0, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for(label, policy, f);
  if (f.slices > 1) split_k_reduce(exec, f.work, f.slices, c, beta);
}

// The multi-vector GEMV on C = alpha * op(A) * op(B) + beta * C (N <= Cfg::max_vectors, op(A)
// rows-contiguous) in split.slices K slices; without room for the partials in the workspace, one.
template <class Cfg, class ExecSpace, class T, class TC, class Acc>
void launch_multi_vector(const ExecSpace& exec, KSplit split, const Strided2D<const T>& a,
                         const Strided2D<const T>& b, const Strided2D<TC>& c, Acc alpha, Acc beta) {
  const bool vec = Cfg::vec > 1 && a.rs == 1 && a.cs % Cfg::vec == 0 && aligned_to(a.data, Cfg::vec);
  const auto run = [&](auto nv, auto packets) {
    using Kernel = typename MultiVectorKernelOf<ExecSpace, Cfg, T, Acc, decltype(nv)::value,
                                                decltype(packets)::value, TC>::type;
    launch_multi_vector_kernel<Kernel, Cfg>(exec, split, a, b, c, alpha, beta,
                                            "ridgeline::gemm multi-vector");
  };
  const auto run_columns = [&](auto nv) { vec ? run(nv, std::true_type{}) : run(nv, std::false_type{}); };
  // Instances for 1 (GEMV) and up to 4, 8 and 16 columns, as far as the entry goes: the columns past N
  // are computed and dropped.
  static_assert(Cfg::max_vectors == 4 || Cfg::max_vectors == 16, "instances for up to 4, 8 and 16 columns");
  if (c.cols == 1) {  // a GEMV split along its columns (gemv_split_columns)
    run_columns(std::integral_constant<int, 1>{});
    return;
  }
  if (c.cols <= 4) {
    run_columns(std::integral_constant<int, 4>{});
    return;
  }
  if constexpr (Cfg::max_vectors == 16) {
    if (c.cols <= 8) {
      run_columns(std::integral_constant<int, 8>{});
    } else {
      run_columns(std::integral_constant<int, 16>{});
    }
  } else {
    throw std::logic_error("ridgeline::gemm: a multi-vector plan for more columns than its entry serves");
  }
}

// The multi-vector dot products on C = alpha * op(A) * op(B) + beta * C (N <= Cfg::max_vectors, op(A)
// k-contiguous) in split.slices K slices; without room for the partials in the workspace, one.
template <class Cfg, class ExecSpace, class T, class TC, class Acc>
void launch_multi_vector_dot(const ExecSpace& exec, KSplit split, const Strided2D<const T>& a,
                             const Strided2D<const T>& b, const Strided2D<TC>& c, Acc alpha, Acc beta) {
  const bool vec = Cfg::vec > 1 && a.cs == 1 && a.rs % Cfg::vec == 0 && aligned_to(a.data, Cfg::vec);
  const auto run = [&](auto nv, auto packets) {
    using Kernel =
        GemmMultiVectorDot<ExecSpace, Cfg, T, Acc, decltype(nv)::value, decltype(packets)::value, TC>;
    launch_multi_vector_kernel<Kernel, Cfg>(exec, split, a, b, c, alpha, beta,
                                            "ridgeline::gemm multi-vector dot");
  };
  const auto run_columns = [&](auto nv) { vec ? run(nv, std::true_type{}) : run(nv, std::false_type{}); };
  // Instances for up to 4, 8 and 16 columns, as far as the entry goes: the columns past N are computed
  // (on staged zeros) and dropped.
  static_assert(Cfg::max_vectors == 4 || Cfg::max_vectors == 8 || Cfg::max_vectors == 16,
                "instances for up to 4, 8 and 16 columns");
  if (c.cols <= 4) {
    run_columns(std::integral_constant<int, 4>{});
  } else if constexpr (Cfg::max_vectors >= 8) {
    if (c.cols <= 8) {
      run_columns(std::integral_constant<int, 8>{});
    } else if constexpr (Cfg::max_vectors >= 16) {
      run_columns(std::integral_constant<int, 16>{});
    } else {
      throw std::logic_error(
          "ridgeline::gemm: a multi-vector dot plan for more columns than its entry serves");
    }
  } else {
    throw std::logic_error("ridgeline::gemm: a multi-vector dot plan for more columns than its entry serves");
  }
}

template <class K>
struct KernelTag {
  using type = K;
};
// Calls launch(KernelTag<Kernel>{}) with tile entry E's kernel for the operands' orientation (a_m: op(A)
// walks m contiguously; b_n: op(B) walks n contiguously), its packet-staging instance where E needs
// packets. For the entries of register, direct or asynchronous staging (not multi-vector or TF32).
template <class ExecSpace, class T, class TC, class E, class Launch>
void with_entry_kernel(bool a_m, bool b_n, Launch&& launch) {
  using Cfg = typename E::Cfg;
  const auto run = [&](auto am, auto bn) {
    constexpr bool kAm = decltype(am)::value, kBn = decltype(bn)::value;
    using Plain = GemmKernelFor<ExecSpace, Cfg, T, kAm, kBn, false, TC>;
    if constexpr (!E::When::needs_packets) {
      launch(KernelTag<Plain>{});
    } else if constexpr (Plain::vector_capable) {
      launch(KernelTag<GemmKernelFor<ExecSpace, Cfg, T, kAm, kBn, true, TC>>{});
    } else {
      throw std::logic_error("ridgeline: a packet plan for a kernel without packet staging");
    }
  };
  using Y = std::true_type;
  using N = std::false_type;
  if (a_m && b_n) {
    run(Y{}, Y{});
  } else if (a_m) {
    run(Y{}, N{});
  } else if (b_n) {
    run(N{}, Y{});
  } else {
    run(N{}, N{});
  }
}

// Launches the plan's entry on a product it has been planned for (or on the bulk of one), with the
// plan's split, in the operands' orientation. The TF32 entry reads both operands k-contiguous.
template <class ExecSpace, class T, class TC, class Acc>
void launch_entry(const ExecSpace& exec, const GemmPlan& plan, const Strided2D<const T>& a,
                  const Strided2D<const T>& b, const Strided2D<TC>& c, Acc al, Acc be) {
  const bool a_m = rows_contiguous(a), b_n = !rows_contiguous(b);
  GemmEntriesOf<ExecSpace, T>::visit(plan.entry, [&](auto e) {
    using E = decltype(e);
    using Cfg = typename E::Cfg;
    // Complex products run on entries of the portable micro-kernel, which stages (and conjugates) every
    // element through registers: no matrix-unit micro-kernel multiplies complex numbers, and an
    // asynchronous copy would land elements in scratch without passing a register to conjugate them in.
    static_assert(
        !is_complex_v<T> || (!EntryMatrixUnit<Cfg>::value && !AsyncEntry<Cfg>::value &&
                             E::When::role != GemmRole::multi_vector &&
                             E::When::role != GemmRole::multi_vector_dot && E::When::role != GemmRole::tf32),
        "a complex product may only run on a portable-micro-kernel entry");
    if constexpr (E::When::role == GemmRole::multi_vector) {
      if constexpr (std::is_same_v<T, TC> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
        launch_multi_vector<Cfg>(exec, plan.split, a, b, c, al, be);
      } else {
        throw std::logic_error(
            "ridgeline::gemm: a multi-vector plan for a product that is not float or double");
      }
    } else if constexpr (E::When::role == GemmRole::multi_vector_dot) {
      if constexpr (std::is_same_v<T, TC> && (std::is_same_v<T, float> || std::is_same_v<T, double>)) {
        launch_multi_vector_dot<Cfg>(exec, plan.split, a, b, c, al, be);
      } else {
        throw std::logic_error(
            "ridgeline::gemm: a multi-vector dot plan for a product that is not float or double");
      }
    } else if constexpr (E::When::role == GemmRole::tf32) {
      if constexpr (std::is_same_v<T, float> && std::is_same_v<TC, float>) {
        launch_gemm<GemmKernelFor<ExecSpace, Cfg, T, false, false, true, TC>>(exec, a, b, c, al, be,
                                                                              plan.split);
      } else {
        throw std::logic_error("ridgeline::gemm: a TF32 plan for a product that is not float");
      }
    } else {
      with_entry_kernel<ExecSpace, T, TC, E>(a_m, b_n, [&](auto kernel) {
        launch_gemm<typename decltype(kernel)::type>(exec, a, b, c, al, be, plan.split, plan.calling_thread);
      });
    }
  });
}

// A part of a split product. One row or one column is a GEMV, which reads the operand it streams
// at memory speed; a GEMM tile would spend its full K loop on one useful row or column (4097^3:
// 121 and 70 us against ~20 us each, under ncu,
// perf/results/2026-11-30-h200-565bb80/h200-2026-11-30-565bb80-README.md).
template <class ExecSpace, class T, class TC>
void gemm_dispatch_part(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                        const Strided2D<TC>& c, AccumulatorType<T> alpha, AccumulatorType<T> beta) {
  // GEMV conjugates its matrix only, never x: a conjugated operand that would become x stays a GEMM.
  if (c.cols == 1 && !b.conj) {  // c = alpha * op(A) * b(:, 0) + beta * c
    gemv_dispatch(exec, a, Strided1D<const T>{b.data, b.rows, b.rs}, Strided1D<TC>{c.data, c.rows, c.rs},
                  alpha, beta);
  } else if (c.rows == 1 && !a.conj) {  // c^T = alpha * op(B)^T * a(0, :)^T + beta * c^T
    gemv_dispatch(exec, with_conj_of(Strided2D<const T>{b.data, b.cols, b.rows, b.cs, b.rs}, b),
                  Strided1D<const T>{a.data, a.cols, a.cs}, Strided1D<TC>{c.data, c.cols, c.cs}, alpha, beta);
  } else {
    gemm_dispatch(exec, a, b, c, alpha, beta, false);
  }
}

// The plan's entry on C's bulk [0, m0) x [0, n0), then the rows below it (full width) and the columns
// right of the bulk, each planned as a product of its own. The three parts of C are disjoint.
template <class ExecSpace, class T, class TC>
void run_peeled(const ExecSpace& exec, const GemmPlan& plan, const Strided2D<const T>& a,
                const Strided2D<const T>& b, const Strided2D<TC>& c, AccumulatorType<T> alpha,
                AccumulatorType<T> beta) {
  const PeelPlan& p = plan.peel;
  const std::int64_t m = c.rows, n = c.cols, k = a.cols;
  launch_entry(exec, plan, block_of(a, 0, p.m0, 0, k), block_of(b, 0, k, 0, p.n0),
               block_of(c, 0, p.m0, 0, p.n0), alpha, beta);
  if (p.m0 < m)
    gemm_dispatch_part(exec, block_of(a, p.m0, m, 0, k), b, block_of(c, p.m0, m, 0, n), alpha, beta);
  if (p.n0 < n)
    gemm_dispatch_part(exec, block_of(a, 0, p.m0, 0, k), block_of(b, 0, k, p.n0, n),
                       block_of(c, 0, p.m0, p.n0, n), alpha, beta);
}

// The same with a given bulk on the entry the product would run (tests: every backend, any cut).
template <class ExecSpace, class T, class TC>
void gemm_dispatch_peeled(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                          const Strided2D<TC>& c, AccumulatorType<T> alpha, AccumulatorType<T> beta,
                          const PeelPlan& p) {
  GemmPlan plan = gemm_plan(exec, a, b, false, false);
  plan.peel = p;
  plan.split =
      plan_k_split(GemmEntriesOf<ExecSpace, T>::params(plan.entry), p.m0, p.n0, a.cols,
                   ComputeUnits<Backend<ExecSpace, T>, ExecSpace>::of(exec), sizeof(AccumulatorType<T>));
  run_peeled(exec, plan, a, b, c, alpha, beta);
}

// A copy (pack_aligned) whose fast index is op(A)'s rows or op(B)'s columns, its extent along them taken to
// the next whole 16-byte packet: the copy's lines hold zeros there (packed_lead), so a tile entry reads them
// as any other row or column of the tile and stores only C's. The tiles of the last row (column) can then
// always move back inside the product (tile_inside_origin needs their move to be whole packets) and load as
// interior tiles do, where they otherwise test every element of every K step: SGEMM 4095^3 ran 1.093x the
// time of 4096^3 on the same aligned tiles, C aligned (perf/results/2026-12-07-h100-52b4bc8/, -probe.txt).
// Tile entries of real types alone, unpeeled and untransposed: they take C's tiles from C, and read the
// operands only for their loads. The plan was made on the copy as it is.
template <class T>
Strided2D<const T> extended_to_packets(Strided2D<const T> x, const GemmPlan& plan) {
  constexpr std::int64_t W = std::int64_t(16 / sizeof(T));
  const GemmRole r = plan.role;
  const bool tiles = r == GemmRole::general || r == GemmRole::packets || r == GemmRole::narrow ||
                     r == GemmRole::small || r == GemmRole::few_columns;
  if (!std::is_floating_point_v<T> || !tiles || plan.peel.m0 > 0 || plan.transposed || plan.calling_thread)
    return x;
  std::int64_t& fast = rows_contiguous(x) ? x.rows : x.cols;
  fast = (fast + W - 1) / W * W;  // within packed_lead(x), a multiple of 128 bytes
  return x;
}

// The product on aligned copies of op(A) (copy_a) and op(B) (copy_b), in the instance's workspace, planned
// again on the operands it then has (GemmPlan::copy_a_aligned, copy_b_aligned); without room for the copies
// on the device, on the operands as they are.
template <class ExecSpace, class T, class TC>
void gemm_dispatch_packed(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                          const Strided2D<TC>& c, AccumulatorType<T> alpha, AccumulatorType<T> beta,
                          bool copy_a = true, bool copy_b = true) {
  if (copy_a) require_int_range(rows_contiguous(a) ? a.cols : a.rows, "lines of the copy of op(A)", "gemm");
  if (copy_b) require_int_range(rows_contiguous(b) ? b.cols : b.rows, "lines of the copy of op(B)", "gemm");
  auto lease = lease_workspace(exec);
  T *da = nullptr, *db = nullptr;
  try {
    if (copy_a) da = lease.template get<T>(WorkSlot::a_copy, packed_size(a));
    if (copy_b) db = lease.template get<T>(WorkSlot::b_copy, packed_size(b));
  } catch (const std::exception&) {
    lease.drop(WorkSlot::a_copy), lease.drop(WorkSlot::b_copy);
    gemm_dispatch(exec, a, b, c, alpha, beta, false);
    return;
  }
  const Strided2D<const T> a2 = copy_a ? pack_aligned(exec, a, da) : a,
                           b2 = copy_b ? pack_aligned(exec, b, db) : b;
  const GemmPlan plan = gemm_plan(exec, a2, b2, false, false);
  run_gemm_plan(exec, plan, copy_a && rows_contiguous(a2) ? extended_to_packets(a2, plan) : a2,
                copy_b && !rows_contiguous(b2) ? extended_to_packets(b2, plan) : b2, c, alpha, beta);
}

// The TF32 plan: operands that are not k-contiguous in aligned 16-byte packets are first copied so
// into the workspace (an NN product's A, say: M x K elements moved twice, about 7% of an 8192^3
// product at TF32 speed). Without room for the copies on the device the product runs in exact FP32,
// which Math::allow_tf32 permits.
template <class ExecSpace, class TC>
void run_tf32(const ExecSpace& exec, const GemmPlan& plan, const Strided2D<const float>& a,
              const Strided2D<const float>& b, const Strided2D<TC>& c, float alpha, float beta) {
  constexpr int W = 4;  // floats per 16-byte packet
  const std::int64_t M = a.rows, N = b.cols, K = a.cols, ld = (K + W - 1) / W * W;
  Strided2D<const float> a2 = a, b2 = b;
  auto lease = lease_workspace(exec);
  float *da = nullptr, *db = nullptr;
  try {
    if (plan.copy_a) da = lease.template get<float>(WorkSlot::a_copy, static_cast<std::size_t>(M * ld));
    if (plan.copy_b) db = lease.template get<float>(WorkSlot::b_copy, static_cast<std::size_t>(N * ld));
  } catch (const std::exception&) {
    lease.drop(WorkSlot::a_copy), lease.drop(WorkSlot::b_copy);
    gemm_dispatch(exec, a, b, c, alpha, beta);
    return;
  }
  if (plan.copy_a) {  // op(A)(m, k) -> da[m * ld + k]
    copy_depth_contiguous(exec, a.data, M, K, a.rs, a.cs, ld, da);
    a2 = Strided2D<const float>{da, M, K, ld, 1};
  }
  if (plan.copy_b) {  // op(B)(k, n) -> db[n * ld + k]
    copy_depth_contiguous(exec, b.data, N, K, b.cs, b.rs, ld, db);
    b2 = Strided2D<const float>{db, K, N, 1, ld};
  }
  launch_entry(exec, plan, a2, b2, c, alpha, beta);
}

// Executes a plan made for these operands by gemm_plan (or gemm_plan_with_entry).
template <class ExecSpace, class T, class TC>
void run_gemm_plan(const ExecSpace& exec, const GemmPlan& plan, const Strided2D<const T>& a,
                   const Strided2D<const T>& b, const Strided2D<TC>& c, AccumulatorType<T> alpha,
                   AccumulatorType<T> beta) {
  if (plan.transposed) {  // C^T = op(B)^T * op(A)^T on a multi-vector or few-columns entry, which never
                          // copy or peel (plan_peel_and_split)
    launch_entry(exec, plan, transpose_of(b), transpose_of(a), transpose_of(c), alpha, beta);
    return;
  }
  if (plan.role == GemmRole::tf32) {
    if constexpr (std::is_same_v<T, float>) {
      run_tf32(exec, plan, a, b, c, alpha, beta);
      return;
    }
  }
  if (plan.copies_aligned()) {
    gemm_dispatch_packed(exec, a, b, c, alpha, beta, plan.copy_a_aligned, plan.copy_b_aligned);
  } else if (plan.peel.m0 > 0) {
    run_peeled(exec, plan, a, b, c, alpha, beta);
  } else {
    launch_entry(exec, plan, a, b, c, alpha, beta);
  }
}

// ---- complex products as real ones (gemm_complex_as_real.hpp) ------------------------------------
// A table may name complex_as_real<T> (ComplexAsRealTerms) for a complex T: from which extents its real
// entries run complex products faster than its complex ones, with the measurement that says so.
template <class Be, class T, class = void>
struct ComplexAsRealOf {
  static constexpr ComplexAsRealTerms value{};  // never
};
template <class Be, class T>
struct ComplexAsRealOf<Be, T, std::void_t<decltype(Be::template complex_as_real<T>)>> {
  static constexpr ComplexAsRealTerms value = Be::template complex_as_real<T>;
};

// Whether (and how) a complex product runs as a real one on ExecSpace's table, with C's strides c_rs,
// c_cs; never for real types, or where the workspace limit leaves no room for the expansion. Pure.
template <class ExecSpace, class T>
ComplexAsRealPlan complex_as_real_plan(const Strided2D<const T>& a, const Strided2D<const T>& b,
                                       std::int64_t c_rs, std::int64_t c_cs) {
  if constexpr (is_complex_v<T>) {
    ComplexAsRealPlan p =
        plan_complex_as_real(a, b, c_rs, c_cs, ComplexAsRealOf<Backend<ExecSpace, T>, T>::value);
    if (p.applies && !workspace_allows(p.bytes)) p = ComplexAsRealPlan{};
    return p;
  } else {
    (void)a, (void)b, (void)c_rs, (void)c_cs;
    return ComplexAsRealPlan{};
  }
}

// y (kc x n) into d with k contiguous, line j at j * ld, conjugated where y.conj. On GPUs through the
// blocked copy, whose reads and writes both coalesce; host threads copy a line each (a team of 256, which
// that copy takes, is more than a host backend gives).
template <class ExecSpace, class Z>
void copy_k_contiguous(const ExecSpace& exec, const Strided2D<const Z>& y, Z* d, std::int64_t ld) {
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible) {
    require_int_range(y.cols, "lines of the K-contiguous copy", "gemm");
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    Kokkos::parallel_for(
        "ridgeline::gemm complex as real: copy", Policy(exec, static_cast<int>(y.cols), Kokkos::AUTO),
        KOKKOS_LAMBDA(const typename Policy::member_type& team) {
          const std::int64_t j = team.league_rank();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, y.rows),
                               [&](const std::int64_t k) { d[j * ld + k] = conj_if(y(k, j), y.conj); });
        });
  } else {
    copy_depth_contiguous(exec, y.data, y.cols, y.rows, y.cs, y.rs, ld, d, y.conj);
  }
}

// Runs plan (applies) on C = alpha * op(A) * op(B) + beta * C: per K chunk, the expansion of alpha * x,
// the copy of y where planned, and the real product on C's real view, beta on the first chunk only. A
// beta with an imaginary part scales C first (the real product can only scale by a real number).
// Without device memory for the buffers, the complex entries run the product.
template <class ExecSpace, class Z>
void run_complex_as_real(const ExecSpace& exec, const ComplexAsRealPlan& p, const Strided2D<const Z>& a,
                         const Strided2D<const Z>& b, const Strided2D<Z>& c, Z alpha, Z beta) {
  using R = typename Z::value_type;
  const ComplexAsRealOperands<Z> o = oriented_operands(p.transposed, a, b, c);
  const std::int64_t m = o.x.rows, n = o.y.cols, k = o.x.cols, kc = p.k_chunk;
  const std::int64_t ldx = expanded_lead(o, kc), ldy = even_up(kc);
  auto lease = lease_workspace(exec);
  Z *dx = nullptr, *dy = nullptr;
  try {
    dx = lease.template get<Z>(WorkSlot::complex_a, static_cast<std::size_t>(expanded_size(m, kc, o.x_rows)));
    if (p.copy_b)
      dy = lease.template get<Z>(WorkSlot::complex_b, static_cast<std::size_t>(real_copy_size(kc, n)));
  } catch (const std::exception&) {
    lease.drop(WorkSlot::complex_a), lease.drop(WorkSlot::complex_b);
    run_gemm_plan(exec, gemm_plan(exec, a, b), a, b, c, alpha, beta);
    return;
  }
  R beta_r = beta.real();
  if (beta.imag() != R(0)) {
    scale_matrix(exec, c, beta);
    beta_r = R(1);
  }
  const Strided2D<R> cr{reinterpret_cast<R*>(o.c.data), 2 * m, n, 1, 2 * o.c.cs};
  for (std::int64_t k0 = 0; k0 < k; k0 += kc) {
    const std::int64_t k1 = k - k0 > kc ? k0 + kc : k;
    const Strided2D<const Z> xs = block_of(o.x, 0, m, k0, k1), ys = block_of(o.y, k0, k1, 0, n);
    const Strided2D<const R> xr = expand_complex(exec, xs, o.x_rows, alpha, dx, ldx);
    Strided2D<const R> yr = real_view(ys);
    if (p.copy_b) {
      copy_k_contiguous(exec, ys, dy, ldy);
      yr = real_view(Strided2D<const Z>{dy, k1 - k0, n, 1, ldy});
    }
    gemm_dispatch(exec, xr, yr, cr, R(1), k0 == 0 ? beta_r : R(1));
  }
}

// C = alpha * op(A) * op(B) + beta * C with all shapes already validated and M, N, K > 0: plan, then
// execute. allow_copies = false: the operands are already copies (or parts of a product that was
// split). tf32: the caller allows TF32 (float products).
template <class ExecSpace, class T, class TC>
void gemm_dispatch(const ExecSpace& exec, const Strided2D<const T>& a, const Strided2D<const T>& b,
                   const Strided2D<TC>& c, AccumulatorType<T> alpha, AccumulatorType<T> beta,
                   bool allow_copies, bool tf32) {
  if constexpr (is_complex_v<T> && std::is_same_v<T, TC>) {
    if (allow_copies) {
      const ComplexAsRealPlan p = complex_as_real_plan<ExecSpace>(a, b, c.rs, c.cs);
      if (p.applies) return run_complex_as_real(exec, p, a, b, c, alpha, beta);
    }
  }
  run_gemm_plan(exec, gemm_call_plan(exec, a, b, tf32, allow_copies, beta == AccumulatorType<T>(0)), a, b, c,
                alpha, beta);
}

// GEMV "rows": a table may add `gemv_rows_tall`, a taller team whose column chunks are longer
// runs of memory (DRAM reads them faster), for products with enough rows to fill the device with it.
template <class Be, class T, class = void>
struct RowsTallCfgOf {
  using type = void;
};
template <class Be, class T>
struct RowsTallCfgOf<Be, T, std::void_t<typename Be::template gemv_rows_tall<T>>> {
  using type = typename Be::template gemv_rows_tall<T>;
};

// The fraction of team slots busy over all waves: teams / (waves * slots).
inline double wave_fill(std::int64_t teams, std::int64_t slots) {
  const std::int64_t waves = (teams + slots - 1) / slots;
  return double(teams) / double(waves * slots);
}

// Whether gemv runs the tall rows entry for `rows` outputs: when it fills the device's team slots
// as well as the regular entry does (within 1%); 8192 rows would leave half the H200's SMs idle.
template <class ExecSpace, class T>
bool gemv_uses_tall(const ExecSpace& exec, std::int64_t rows) {
  using Be = Backend<ExecSpace, T>;
  using Tall = typename RowsTallCfgOf<Be, T>::type;
  if constexpr (std::is_void_v<Tall>) {
    (void)exec, (void)rows;
    return false;
  } else {
    using Reg = typename Be::template gemv_rows<T>;
    const std::int64_t cu = ComputeUnits<Be, ExecSpace>::of(exec);
    if (cu <= 0) return false;
    return wave_fill((rows + Tall::rows - 1) / Tall::rows, cu * GemvMinBlocks<Tall>::value) >=
           wave_fill((rows + Reg::rows - 1) / Reg::rows, cu * GemvMinBlocks<Reg>::value) - 0.01;
  }
}

// A GEMV whose op(A) is rows-contiguous with too few rows to fill the device (1000 x 100000: 16 teams
// of 64 rows for 132 SMs, 0.42 of cuBLAS at fb6ed4d) runs as a one-column multi-vector product
// (gemm_multi_vector.hpp) instead: its K slices put teams along the long dimension, and
// split_k_reduce sums them in a fixed order. The table says below which fill of its team slots the
// rows entry gives way (Be::gemv_split_percent); backends without a multi-vector entry never split.
template <class ExecSpace, class T>
using MultiVectorCfg = typename EntryWithRole<GemmEntriesOf<ExecSpace, T>, GemmRole::multi_vector>::type;
template <class Be, class = void>
struct GemvSplitPercent : std::integral_constant<int, 0> {};
template <class Be>
struct GemvSplitPercent<Be, std::void_t<decltype(Be::gemv_split_percent)>>
    : std::integral_constant<int, Be::gemv_split_percent> {};

template <class ExecSpace, class T, class TY>
bool gemv_splits_columns(const ExecSpace& exec, std::int64_t rows) {
  using Be = Backend<ExecSpace, T>;
  if constexpr (std::is_void_v<MultiVectorCfg<ExecSpace, T>> || !std::is_same_v<T, TY> ||
                !(std::is_same_v<T, float> || std::is_same_v<T, double>) ||
                GemvSplitPercent<Be>::value == 0) {
    (void)exec, (void)rows;
    return false;
  } else {
    using Reg = typename Be::template gemv_rows<T>;
    const std::int64_t cu = ComputeUnits<Be, ExecSpace>::of(exec);
    if (cu <= 0) return false;
    const std::int64_t teams = (rows + Reg::rows - 1) / Reg::rows;
    return teams * 100 < std::int64_t(GemvSplitPercent<Be>::value) * cu * GemvMinBlocks<Reg>::value;
  }
}

// The K split gemv_split_columns runs an M x K GEMV with (pure: the plan of the multi-vector entry).
template <class Cfg>
KSplit gemv_column_split(std::int64_t m, std::int64_t k, std::int64_t compute_units, std::size_t acc_bytes) {
  return multi_vector_split(tile_params<Cfg>(), m, 1, k, compute_units, acc_bytes);
}

// y = alpha * op(A) * x + beta * y on multi-vector entry Cfg, in the given K slices.
template <class Cfg, class ExecSpace, class T, class TY, class Acc>
void launch_gemv_split(const ExecSpace& exec, KSplit split, const Strided2D<const T>& a,
                       const Strided1D<const T>& x, const Strided1D<TY>& y, Acc alpha, Acc beta) {
  launch_multi_vector<Cfg>(exec, split, a, Strided2D<const T>{x.data, a.cols, 1, x.s, 1},
                           Strided2D<TY>{y.data, a.rows, 1, y.s, 1}, alpha, beta);
}

template <class ExecSpace, class T, class TY, class Acc>
void gemv_split_columns(const ExecSpace& exec, const Strided2D<const T>& a, const Strided1D<const T>& x,
                        const Strided1D<TY>& y, Acc alpha, Acc beta) {
  using Cfg = MultiVectorCfg<ExecSpace, T>;
  if constexpr (std::is_void_v<Cfg> || !std::is_same_v<T, TY>) {
    throw std::logic_error("ridgeline::gemv: no multi-vector entry to split the columns with");
  } else {
    using Be = Backend<ExecSpace, T>;
    launch_gemv_split<Cfg>(
        exec, gemv_column_split<Cfg>(a.rows, a.cols, ComputeUnits<Be, ExecSpace>::of(exec), sizeof(Acc)), a,
        x, y, alpha, beta);
  }
}

// GEMV "dot": a table may add `gemv_dot_short`, for rows (op(A)'s contiguous index) of at most
// `gemv_dot_short_bytes<T>` bytes, which its regular dot entry reads with too few loads per lane.
template <class Be, class T, class = void>
struct DotShortCfgOf {
  using type = void;
  static constexpr std::int64_t max_bytes = 0;
};
template <class Be, class T>
struct DotShortCfgOf<Be, T, std::void_t<typename Be::template gemv_dot_short<T>>> {
  using type = typename Be::template gemv_dot_short<T>;
  static constexpr std::int64_t max_bytes = Be::template gemv_dot_short_bytes<T>;
};
// Whether gemv reads rows of `cols` elements with the short-row dot entry (packets only).
template <class ExecSpace, class T>
bool gemv_uses_short_dot(std::int64_t cols) {
  return cols * std::int64_t(sizeof(T)) <= DotShortCfgOf<Backend<ExecSpace, T>, T>::max_bytes;
}

template <class Kernel, class Cfg, class ExecSpace, class T, class TY, class Acc>
void launch_gemv(const ExecSpace& exec, const Strided2D<const T>& a, const Strided1D<const T>& x,
                 const Strided1D<TY>& y, Acc alpha, Acc beta) {
  const std::int64_t teams = (a.rows + Cfg::rows - 1) / Cfg::rows;
  require_int_range(teams, "number of GEMV teams", "gemv");
  Kernel f{a, x, y, alpha, beta};
  typename Kernel::policy_type policy(exec, static_cast<int>(teams), Cfg::team_size, Cfg::vector_length);
  require_fits(policy, f, Cfg::scratch_level, Kernel::scratch_bytes(), Cfg::team_size, "gemv",
               std::to_string(Cfg::rows) + " rows/team");
  if (Kernel::scratch_bytes() > 0)
    policy.set_scratch_size(Cfg::scratch_level, Kokkos::PerTeam(Kernel::scratch_bytes()));
  Kokkos::parallel_for("ridgeline::gemv", policy, f);
  after_launch<Kernel, Cfg>(exec);
}

// A GEMV entry may name a kernel of its backend's own for unit-stride operands of real type T
// (`Cfg::unit_kernel<ExecSpace, T>`, void where it has none for T): the host's vector-register kernels
// (backends/host/gemv_kernel.hpp). It takes the call's operands as the portable kernel does, says how
// many teams it runs (teams()), and needs no scratch. y must have A's type.
template <class Cfg, class ExecSpace, class T, class TY, class = void>
struct GemvUnitKernelOf {
  using type = void;
};
template <class Cfg, class ExecSpace, class T, class TY>
struct GemvUnitKernelOf<Cfg, ExecSpace, T, TY,
                        std::void_t<typename Cfg::template unit_kernel<ExecSpace, T>>> {
  using type =
      std::conditional_t<std::is_same_v<T, TY>, typename Cfg::template unit_kernel<ExecSpace, T>, void>;
};

template <class Kernel, class ExecSpace>
void launch_gemv_unit(const ExecSpace& exec, const Kernel& f) {
  static_assert(Kernel::scratch_bytes() == 0, "unit-stride GEMV kernels use no team scratch");
  const std::int64_t teams = f.teams();
  require_int_range(teams, "number of GEMV teams", "gemv");
  Kokkos::parallel_for("ridgeline::gemv", typename Kernel::policy_type(exec, static_cast<int>(teams), 1), f);
}

// y = alpha * op(A) * x + beta * y with op(A) already applied as strides; rows, cols > 0.
template <class ExecSpace, class T, class TY>
void gemv_dispatch(const ExecSpace& exec, const Strided2D<const T>& a, const Strided1D<const T>& x,
                   const Strided1D<TY>& y, AccumulatorType<T> alpha, AccumulatorType<T> beta) {
  using Acc = AccumulatorType<T>;
  using Be = Backend<ExecSpace, T>;
  const Acc al = alpha, be = beta;
  if (rows_contiguous(a)) {
    if (gemv_splits_columns<ExecSpace, T, TY>(exec, a.rows)) return gemv_split_columns(exec, a, x, y, al, be);
    const auto run = [&](auto cfg) {
      using Cfg = decltype(cfg);
      using Unit = typename GemvUnitKernelOf<Cfg, ExecSpace, T, TY>::type;
      if constexpr (!std::is_void_v<Unit>) {
        if (a.rs == 1)
          return launch_gemv_unit(exec,
                                  Unit{a, x, y, al, be, Unit::plan_block_rows(a.rows, exec.concurrency())});
      }
      // Packets run down a column: every column must start on a packet boundary.
      const bool vec = Cfg::vec > 1 && a.rs == 1 && a.cs % Cfg::vec == 0 && aligned_to(a.data, Cfg::vec);
      if (vec) {
        launch_gemv<GemvRows<ExecSpace, Cfg, T, Acc, true, true, TY>, Cfg>(exec, a, x, y, al, be);
      } else if (a.rs == 1) {
        launch_gemv<GemvRows<ExecSpace, Cfg, T, Acc, true, false, TY>, Cfg>(exec, a, x, y, al, be);
      } else {
        launch_gemv<GemvRows<ExecSpace, Cfg, T, Acc, false, false, TY>, Cfg>(exec, a, x, y, al, be);
      }
    };
    using Tall = typename RowsTallCfgOf<Be, T>::type;
    if constexpr (!std::is_void_v<Tall>) {
      if (gemv_uses_tall<ExecSpace, T>(exec, a.rows)) return run(Tall{});
    }
    run(typename Be::template gemv_rows<T>{});
  } else {
    using Cfg = typename Be::template gemv_dot<T>;
    using Unit = typename GemvUnitKernelOf<Cfg, ExecSpace, T, TY>::type;
    if constexpr (!std::is_void_v<Unit>) {
      if (a.cs == 1 && x.s == 1) return launch_gemv_unit(exec, Unit{a, x, y, al, be});
    }
    // Packets run along a row and along x: both must start on packet boundaries.
    const bool vec = Cfg::vec > 1 && a.cs == 1 && a.rs % Cfg::vec == 0 && aligned_to(a.data, Cfg::vec) &&
                     x.s == 1 && aligned_to(x.data, Cfg::vec);
    if (vec) {
      using Short = typename DotShortCfgOf<Be, T>::type;
      if constexpr (DotShortCfgOf<Be, T>::max_bytes > 0) {
        static_assert(Short::vec == Cfg::vec, "the dot entries read the same packets");
        if (gemv_uses_short_dot<ExecSpace, T>(a.cols))
          return launch_gemv<GemvDot<ExecSpace, Short, T, Acc, true, true, TY>, Short>(exec, a, x, y, al, be);
      }
      launch_gemv<GemvDot<ExecSpace, Cfg, T, Acc, true, true, TY>, Cfg>(exec, a, x, y, al, be);
    } else if (a.cs == 1) {
      launch_gemv<GemvDot<ExecSpace, Cfg, T, Acc, true, false, TY>, Cfg>(exec, a, x, y, al, be);
    } else {
      launch_gemv<GemvDot<ExecSpace, Cfg, T, Acc, false, false, TY>, Cfg>(exec, a, x, y, al, be);
    }
  }
}

}  // namespace ridgeline::detail

// The library holds these functions for the build's execution space (instances.hpp).
#include "ridgeline/detail/instances.hpp"
