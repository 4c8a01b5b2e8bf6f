#pragma once
// Batched dispatch: plans a gemm_batched call (gemm_batched_plan.hpp) from the backend's batched
// entries, and executes the plan. Like dispatch.hpp it holds no numbers: the small path's extents and
// scratch, and the tile entries, come from backends/<name>/tile_table.hpp:
//   gemm_batched_small<T>    the small path's configuration (team_size, min_blocks, cols_per_thread,
//                            max_extent, scratch_bytes, max_per_team)
//   gemm_batched_entries<T>  the tile entries a batch may run in one league, first match wins; their
//                            kernels take a league rank (run(team, rank)): the register-staging and
//                            asynchronous-staging team kernels, not the TMA or wgmma ones
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "ridgeline/detail/dispatch.hpp"
#include "ridgeline/detail/gemm_batched_plan.hpp"
#include "ridgeline/detail/gemm_batched_small.hpp"
#include "ridgeline/detail/gemm_batched_tiles.hpp"
#include "ridgeline/detail/scale.hpp"
#include "ridgeline/detail/strided_batch.hpp"

namespace ridgeline::detail {

template <class ExecSpace, class T>
using GemmBatchedEntriesOf = typename Backend<ExecSpace, T>::template gemm_batched_entries<T>;
template <class ExecSpace, class T>
using BatchedSmallCfgOf = typename Backend<ExecSpace, T>::template gemm_batched_small<T>;
// A table may name gemm_batched_panels<T>: a packed-panel entry whose kernel runs whole products on the
// calling thread (run_on_calling_thread). Batches past the small path with at least as many matrices as
// the exec's threads then run each matrix whole on one thread of a parallel loop over the batch (void or
// absent: never).
template <class Be, class T, class = void>
struct BatchedPanelsOf {
  using type = void;
};
template <class Be, class T>
struct BatchedPanelsOf<Be, T, std::void_t<typename Be::template gemm_batched_panels<T>>> {
  using type = typename Be::template gemm_batched_panels<T>;
};
template <class ExecSpace, class T>
using BatchedPanelsCfgOf = typename BatchedPanelsOf<Backend<ExecSpace, T>, T>::type;
// A table with a panels entry may also name gemm_batched_direct<T>: an entry whose kernel runs whole small
// products on the calling thread without packing; that loop's matrices of at most its batched_max_extent
// (M, N and K) run there instead (void or absent: never).
template <class Be, class T, class = void>
struct BatchedDirectOf {
  using type = void;
};
template <class Be, class T>
struct BatchedDirectOf<Be, T, std::void_t<typename Be::template gemm_batched_direct<T>>> {
  using type = typename Be::template gemm_batched_direct<T>;
};
template <class ExecSpace, class T>
using BatchedDirectCfgOf = typename BatchedDirectOf<Backend<ExecSpace, T>, T>::type;

// The panels path's entry for a plan: the table's gemm_batched_direct entry where the plan says direct, else
// its gemm_batched_panels one. Calls f(KernelTag<Cfg>{}, direct) and returns true, or returns false where
// the table names neither (a plan of that table never takes the panels path).
template <class ExecSpace, class T, class F>
bool visit_batched_panels_cfg(const BatchedPlan& plan, F&& f) {
  if constexpr (!std::is_void_v<BatchedDirectCfgOf<ExecSpace, T>>) {
    if (plan.direct) {
      f(KernelTag<BatchedDirectCfgOf<ExecSpace, T>>{}, true);
      return true;
    }
  }
  if constexpr (!std::is_void_v<BatchedPanelsCfgOf<ExecSpace, T>>) {
    f(KernelTag<BatchedPanelsCfgOf<ExecSpace, T>>{}, false);
    return true;
  }
  (void)plan, (void)f;
  return false;
}

// Whether every matrix of x stages in 16-byte packets as matrix 0 does: the batch stride keeps each
// one's origin aligned.
template <class T>
bool batch_stages_in_packets(const StridedBatch<const T>& x, bool rows_fast, int W) {
  return stages_in_packets(x.first(), rows_fast, W) && (x.count <= 1 || x.bs % W == 0);
}

// The plan for C_g = alpha * op(A)_g * op(B)_g + beta * C_g (shapes validated, every extent and the
// count > 0) on a device of compute_units SMs or CUs (0: unknown; then `concurrency` teams stand in for
// the team slots, the host's threads), which the small path spreads its matrices over. Pure: reads
// strides, extents and addresses.
template <class ExecSpace, class T>
BatchedPlan plan_gemm_batched(const StridedBatch<const T>& a, const StridedBatch<const T>& b,
                              std::int64_t compute_units, std::int64_t concurrency) {
  const std::int64_t m = a.rows, n = b.cols, k = a.cols;
  BatchedPlan plan;
  using Small = BatchedSmallCfgOf<ExecSpace, T>;
  if (m <= Small::max_extent && n <= Small::max_extent && k <= Small::max_extent) {
    plan.path = BatchedPath::small;
    plan.per_team = small_matrices_per_team(
        m, n, k, sizeof(T), sizeof(AccumulatorType<T>), Small::scratch_bytes, Small::max_per_team, a.count,
        compute_units > 0 ? compute_units * Small::min_blocks : concurrency);
    return plan;
  }
  if constexpr (!std::is_void_v<BatchedPanelsCfgOf<ExecSpace, T>>) {
    if (a.count >= concurrency) {
      plan.path = BatchedPath::panels;
      using Direct = BatchedDirectCfgOf<ExecSpace, T>;
      if constexpr (!std::is_void_v<Direct>)
        plan.direct = m <= Direct::batched_max_extent && k <= Direct::batched_max_extent;
      return plan;
    }
  }
  using L = GemmBatchedEntriesOf<ExecSpace, T>;
  static_assert(L::size > 0, "a backend's gemm_batched_entries needs at least its general entry");
  const Strided2D<const T> a0 = a.first(), b0 = b.first();
  const bool a_m = rows_contiguous(a0), b_n = !rows_contiguous(b0);
  constexpr int W = int(16 / sizeof(T));
  const GemmFacts f{m,     n,
                    k,     batch_stages_in_packets(a, a_m, W) && batch_stages_in_packets(b, !b_n, W),
                    false, compute_units,
                    a_m,   b_n};
  const auto usable = [&](int index) {
    bool ok = true;
    L::visit(index, [&](auto e) {
      using E = decltype(e);
      if constexpr (E::When::needs_packets) ok = entry_vector_capable<ExecSpace, T, E>(a_m, b_n);
    });
    return ok;
  };
  plan.path = BatchedPath::tiles;
  plan.entry = L::first_applying(f, usable);
  if (plan.entry < 0)
    throw std::logic_error(
        "ridgeline::gemm_batched: no batched entry applies (the table lacks a general one)");
  return plan;
}

template <class ExecSpace, class T>
BatchedPlan gemm_batched_plan(const ExecSpace& exec, const StridedBatch<const T>& a,
                              const StridedBatch<const T>& b) {
  return plan_gemm_batched<ExecSpace, T>(a, b, ComputeUnits<Backend<ExecSpace, T>, ExecSpace>::of(exec),
                                         static_cast<std::int64_t>(exec.concurrency()));
}

// ---- executing a plan ------------------------------------------------------------------------------
// Matrices [g0, g0 + count) of x.
template <class T>
StridedBatch<T> batch_part(const StridedBatch<T>& x, std::int64_t g0, std::int64_t count) {
  StridedBatch<T> p = x;
  p.data = x.data + g0 * x.bs, p.count = count;
  return p;
}

// The small path's kernel for the batch (a, b, c), per_team matrices a team; its own batch is the
// part a launch gives it.
template <class Cfg, class T, class TC, class Acc, class ExecSpace>
GemmBatchedSmall<ExecSpace, Cfg, T, TC, Acc> make_batched_small(const ExecSpace&, int per_team,
                                                                const StridedBatch<const T>& a,
                                                                const StridedBatch<const T>& b,
                                                                const StridedBatch<TC>& c, Acc alpha,
                                                                Acc beta) {
  GemmBatchedSmall<ExecSpace, Cfg, T, TC, Acc> f;
  f.a = a, f.b = b, f.c = c;
  f.alpha = alpha, f.beta = beta, f.per_team = per_team;
  // Each operand is staged along its own unit-stride index, so the team's scratch writes are
  // consecutive too; outputs walk C's.
  f.sa = batch_dense(a) ? dense_stage(a) : small_stage(a.rows, a.cols, rows_contiguous(a.first()));
  f.sb = batch_dense(b) ? dense_stage(b) : small_stage(b.rows, b.cols, rows_contiguous(b.first()));
  f.ca = small_copy(a, f.sa, per_team, Cfg::team_size);
  f.cb = small_copy(b, f.sb, per_team, Cfg::team_size);
  f.c_batch_fast = batch_interleaved(c) && per_team > 1;
  f.c_rows_fast = rows_contiguous(c.first());
  f.c_flat = batch_dense(c);
  f.div_m = ConstantDivisor(static_cast<int>(c.rows));
  f.div_nb = ConstantDivisor(static_cast<int>((c.cols + Cfg::cols_per_thread - 1) / Cfg::cols_per_thread));
  return f;
}

// The small path, in launches of at most INT_MAX teams.
template <class Cfg, class ExecSpace, class T, class TC, class Acc>
void launch_batched_small(const ExecSpace& exec, int per_team, const StridedBatch<const T>& a,
                          const StridedBatch<const T>& b, const StridedBatch<TC>& c, Acc alpha, Acc beta) {
  auto f = make_batched_small<Cfg>(exec, per_team, a, b, c, alpha, beta);
  using Kernel = decltype(f);
  const std::size_t bytes = f.scratch_bytes();
  const std::int64_t max_matrices = std::int64_t(std::numeric_limits<int>::max()) * per_team;
  for (std::int64_t g0 = 0; g0 < c.count; g0 += max_matrices) {
    const std::int64_t count = c.count - g0 < max_matrices ? c.count - g0 : max_matrices;
    f.a = batch_part(a, g0, count), f.b = batch_part(b, g0, count), f.c = batch_part(c, g0, count);
    typename Kernel::policy_type policy(exec, static_cast<int>((count + per_team - 1) / per_team),
                                        Cfg::team_size, 1);
    require_fits(policy, f, 0, bytes, Cfg::team_size, "gemm_batched",
                 std::to_string(per_team) + " small matrices per team");
    policy.set_scratch_size(0, Kokkos::PerTeam(bytes));
    Kokkos::parallel_for("ridgeline::gemm_batched small", policy, f);
  }
}

// A tile kernel (run(team, rank), run_in) set up for the whole of C = alpha * op(A) * op(B) + beta * C,
// K unsplit: gemm_batched's tiles for matrix 0, and team_gemm's staged form inside a user's kernel. The
// caller keeps the tile count in int range.
template <class Kernel, class T, class TC, class Acc>
KOKKOS_INLINE_FUNCTION Kernel tile_kernel_of(const Strided2D<const T>& a, const Strided2D<const T>& b,
                                             const Strided2D<TC>& c, Acc alpha, Acc beta) {
  using Cfg = typename Kernel::config;
  Kernel k;
  k.a = a, k.b = b, k.c = c, k.alpha = alpha, k.beta = beta;
  k.tiles_m = static_cast<int>((c.rows + Cfg::bm - 1) / Cfg::bm);
  k.tiles_n = static_cast<int>((c.cols + Cfg::bn - 1) / Cfg::bn);
  if constexpr (Kernel::c_packet_capable)
    k.c_packets = c.rs == 1 && c.cs % Kernel::kCV == 0 && aligned_to(c.data, Kernel::kCV);
  return k;
}

// The tiles path's kernel for the batch (a, b, c): Kernel set up for matrix 0, and the batch strides.
template <class Kernel, class T, class TC, class Acc>
GemmBatchedTiles<Kernel> make_batched_tiles(const StridedBatch<const T>& a, const StridedBatch<const T>& b,
                                            const StridedBatch<TC>& c, Acc alpha, Acc beta,
                                            const char* func) {
  static_assert(!HasDeviceParams<Kernel>::value, "a batched entry's kernel takes no device parameters");
  using Cfg = typename Kernel::config;
  const std::int64_t tiles_m = (c.rows + Cfg::bm - 1) / Cfg::bm, tiles_n = (c.cols + Cfg::bn - 1) / Cfg::bn;
  require_int_range(tiles_m * tiles_n, "number of C tiles per matrix", func);
  GemmBatchedTiles<Kernel> f;
  f.k = tile_kernel_of<Kernel>(a.first(), b.first(), c.first(), alpha, beta);
  if constexpr (Kernel::c_packet_capable)
    f.k.c_packets = f.k.c_packets && (c.count <= 1 || c.bs % Kernel::kCV == 0);
  f.a_step = a.bs, f.b_step = b.bs, f.c_step = c.bs;
  f.tiles = static_cast<int>(tiles_m * tiles_n);
  return f;
}

// Level-0 scratch beyond the policy's own cap that the backend lifts for F's kernel (0: none needed).
template <class F, class Policy, class ExecSpace>
std::size_t lifted_scratch(const ExecSpace& exec, const Policy& policy) {
  using Cfg = typename F::config;
  using Be = typename BackendFor<ExecSpace>::type;
  return F::scratch_bytes() > std::size_t(policy.scratch_size_max(Cfg::scratch_level))
             ? TeamScratchLimit<Be, F, ExecSpace>::of(exec, Cfg::team_size)
             : 0;
}

// The tiles path for one kernel instantiation, in launches of at most INT_MAX teams.
template <class Kernel, class ExecSpace, class T, class TC, class Acc>
void launch_batched_tiles(const ExecSpace& exec, const StridedBatch<const T>& a,
                          const StridedBatch<const T>& b, const StridedBatch<TC>& c, Acc alpha, Acc beta) {
  using Cfg = typename Kernel::config;
  using Batched = GemmBatchedTiles<Kernel>;
  const Batched f = make_batched_tiles<Kernel>(a, b, c, alpha, beta, "gemm_batched");
  const std::int64_t max_matrices = std::numeric_limits<int>::max() / f.tiles;
  for (std::int64_t g0 = 0; g0 < c.count; g0 += max_matrices) {
    const std::int64_t count = c.count - g0 < max_matrices ? c.count - g0 : max_matrices;
    Batched part = f;
    part.k.a.data += g0 * a.bs, part.k.b.data += g0 * b.bs, part.k.c.data += g0 * c.bs;
    typename Batched::policy_type policy(exec, static_cast<int>(count * f.tiles), Cfg::team_size,
                                         Cfg::vector_length);
    require_fits(policy, part, Cfg::scratch_level, Batched::scratch_bytes(), Cfg::team_size, "gemm_batched",
                 describe_gemm_cfg<Cfg>(), lifted_scratch<Batched>(exec, policy));
    policy.set_scratch_size(Cfg::scratch_level, Kokkos::PerTeam(Batched::scratch_bytes()));
    Kokkos::parallel_for("ridgeline::gemm_batched tiles", policy, part);
    after_launch<Batched, Cfg>(exec);
  }
}

// The panels path: each matrix whole on one thread (its kernel's run_on_calling_thread), a parallel loop
// over the batch. Cfg is the table's gemm_batched_panels entry, or its gemm_batched_direct one.
template <class Cfg, class ExecSpace, class T, class TC, class Acc>
void launch_batched_panels(const ExecSpace& exec, const StridedBatch<const T>& a,
                           const StridedBatch<const T>& b, const StridedBatch<TC>& c, Acc alpha, Acc beta) {
  using E = GemmEntry<Cfg, when::panels>;
  const bool a_m = rows_contiguous(a.first()), b_n = !rows_contiguous(b.first());
  with_entry_kernel<ExecSpace, T, TC, E>(a_m, b_n, [&](auto kernel) {
    using Kernel = typename decltype(kernel)::type;
    static_assert(RunsOnCallingThread<Kernel>::value, "a batched panels entry runs on the calling thread");
    // The tiles path's set-up: the kernel for matrix 0, the batch strides and the blocks per matrix.
    const GemmBatchedTiles<Kernel> f = make_batched_tiles<Kernel>(a, b, c, alpha, beta, "gemm_batched");
    Kokkos::parallel_for("ridgeline::gemm_batched panels",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, c.count),
                         [=](std::int64_t g) {
                           Kernel k = f.k;
                           k.a.data += g * f.a_step, k.b.data += g * f.b_step, k.c.data += g * f.c_step;
                           k.run_on_calling_thread(f.tiles);
                         });
  });
}

// The plan's tile entry, in the operands' orientation.
template <class ExecSpace, class T, class TC, class Acc>
void launch_batched_entry(const ExecSpace& exec, int entry, const StridedBatch<const T>& a,
                          const StridedBatch<const T>& b, const StridedBatch<TC>& c, Acc al, Acc be) {
  const bool a_m = rows_contiguous(a.first()), b_n = !rows_contiguous(b.first());
  GemmBatchedEntriesOf<ExecSpace, T>::visit(entry, [&](auto e) {
    with_entry_kernel<ExecSpace, T, TC, decltype(e)>(a_m, b_n, [&](auto kernel) {
      launch_batched_tiles<typename decltype(kernel)::type>(exec, a, b, c, al, be);
    });
  });
}

// C_g = alpha * op(A)_g * op(B)_g + beta * C_g for every g (shapes validated; M, N, K and the count
// > 0; alpha != 0).
template <class ExecSpace, class T, class TC>
void gemm_batched_dispatch(const ExecSpace& exec, const StridedBatch<const T>& a,
                           const StridedBatch<const T>& b, const StridedBatch<TC>& c,
                           AccumulatorType<T> alpha, AccumulatorType<T> beta) {
  const BatchedPlan plan = gemm_batched_plan(exec, a, b);
  switch (plan.path) {
    case BatchedPath::small:
      launch_batched_small<BatchedSmallCfgOf<ExecSpace, T>>(exec, plan.per_team, a, b, c, alpha, beta);
      return;
    case BatchedPath::tiles:
      launch_batched_entry(exec, plan.entry, a, b, c, alpha, beta);
      return;
    case BatchedPath::panels:
      visit_batched_panels_cfg<ExecSpace, T>(plan, [&](auto cfg, bool) {
        launch_batched_panels<typename decltype(cfg)::type>(exec, a, b, c, alpha, beta);
      });
      return;
  }
}

// C_g = beta * C_g for every g (K == 0 or alpha == 0): one launch, walking C's unit-stride index.
template <class ExecSpace, class T, class S>
void scale_batch(const ExecSpace& exec, const StridedBatch<T>& c, S beta) {
  const std::int64_t per = c.rows * c.cols, n = per * c.count;
  if (n == 0) return;
  const bool batch_fast = batch_interleaved(c) && per > 1;
  const bool rows_fast = rows_contiguous(c.first());
  Kokkos::parallel_for(
      "ridgeline::gemm_batched scale",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(std::int64_t e) {
        const std::int64_t g = batch_fast ? e % c.count : e / per, r = batch_fast ? e / c.count : e % per;
        const std::int64_t i = rows_fast ? r % c.rows : r / c.cols, j = rows_fast ? r / c.rows : r % c.cols;
        scale_in_place(c(g, i, j), beta);
      });
}

}  // namespace ridgeline::detail

// The library holds these for the build's execution space (instances.hpp).
#if RIDGELINE_HAVE_DISPATCH_INSTANCES
namespace ridgeline::detail {
#define RIDGELINE_BATCHED_DISPATCH_EXTERN(T, TC) RIDGELINE_BATCHED_DISPATCH_OF(extern template, T, TC)
RIDGELINE_BATCHED_DISPATCH_INSTANCES(RIDGELINE_BATCHED_DISPATCH_EXTERN)
#undef RIDGELINE_BATCHED_DISPATCH_EXTERN
}  // namespace ridgeline::detail
#endif
