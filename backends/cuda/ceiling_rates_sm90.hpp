#pragma once
// Register-resident rate loops for `ridgeline ceilings` (apps/ridgeline/ceilings_kernels.cpp): how fast
// Ridgeline's own tensor-core instructions run when nothing else is in the way. They issue the GEMM
// micro-kernels' instruction wrappers, DmmaSm90MicroKernel::mma (DMMA m16n8k16, FP64) and
// HmmaSm80MicroKernel::mma (HMMA m16n8k16, FP16/BF16 into FP32), on fragments already in registers, so
// the rate is the instruction's, not the kernels' staging. This replaces the idea of
// perf/fp64_pipe_probe.cu (a standalone nvcc program) with loops any Kokkos CUDA build runs. Also the
// FP16 vector rate: HFMA2 chains (two FP16 FMAs per instruction), which no GEMM kernel issues.
//
// The build targets sm_90 (the DMMA shape exists from sm_90 on; HMMA from sm_80). Every loop keeps
// kRateChains independent accumulators per lane, enough to cover the pipes' latency with 16 warps per
// SM, and returns them, so the caller can check them against the exact result and no compiler can drop
// an instruction whose output is unused.
//
// WarpTileRate runs a GEMM entry's micro-kernel as the GEMM does, from scratch, but with nothing else:
// the rate its warp tiles reach at the occupancy that the entry's registers and scratch allow.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <ridgeline/backends/cuda/dmma_sm90.hpp>
#include <ridgeline/backends/cuda/hmma_sm80.hpp>
#include <ridgeline/detail/compat.hpp>
#include <ridgeline/detail/gemm_team_async.hpp>
#include <ridgeline/half.hpp>

#if defined(__CUDACC__)
#include <cuda_fp16.h>
#endif

namespace ridgeline::backends::cuda {
namespace ceiling_rates {

inline constexpr int kRateChains = 8;

// The smallest configurations the micro-kernels accept: one warp, one instruction per K step.
struct DmmaRateCfg {
  static constexpr int bm = 16, bn = 8, bk = 16, warp_m = 16, warp_n = 8, tm = 2, tn = 2;
  static constexpr int pad_a = 0, pad_b = 0, team_size = 32;
};
struct HmmaRateCfg {
  static constexpr int bm = 16, bn = 16, bk = 16, warp_m = 16, warp_n = 16, tm = 2, tn = 4;
  static constexpr int pad_a = 0, pad_b = 0, team_size = 32;
};

// acc[c] += A B, `steps` times for each of the kRateChains accumulators, with this lane's fragments a
// (A, 16 x 16) and b (B, 16 x 8). With A and B all ones, every accumulator element grows by 16 a step.
KOKKOS_INLINE_FUNCTION void dmma_rate(double (&acc)[kRateChains][4], const double (&a)[8],
                                      const double (&b)[4], long steps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  using Mk = DmmaSm90MicroKernel<DmmaRateCfg, double, double>;
  for (long s = 0; s < steps; ++s) {
    RIDGELINE_UNROLL
    for (int c = 0; c < kRateChains; ++c) Mk::mma(acc[c], a, b);
  }
#else
  (void)acc, (void)a, (void)b, (void)steps;
  Kokkos::abort("ridgeline: the DMMA rate loop runs on sm_90 devices only");
#endif
}

// The same with HMMA: T is ridgeline::half_t or ridgeline::bhalf_t, each register two 16-bit values.
template <class T>
KOKKOS_INLINE_FUNCTION void hmma_rate(float (&acc)[kRateChains][4], const unsigned (&a)[4],
                                      const unsigned (&b)[2], long steps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using Mk = HmmaSm80MicroKernel<HmmaRateCfg, T, float>;
  for (long s = 0; s < steps; ++s) {
    RIDGELINE_UNROLL
    for (int c = 0; c < kRateChains; ++c) Mk::mma(acc[c], a, b);
  }
#else
  (void)acc, (void)a, (void)b, (void)steps;
  Kokkos::abort("ridgeline: the HMMA rate loop runs on sm_80 and later devices only");
#endif
}

// FP16 vector FMA chains: lanes holds 2 kRateChains FP16 values (as floats, exact), each advanced
// `steps` times by a <- a * x + y through HFMA2 and returned the same way.
KOKKOS_INLINE_FUNCTION void hfma2_rate(float (&lanes)[2 * kRateChains], float x, float y, long steps) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 530
  __half2 acc[kRateChains];
  RIDGELINE_UNROLL
  for (int c = 0; c < kRateChains; ++c) acc[c] = __floats2half2_rn(lanes[2 * c], lanes[2 * c + 1]);
  const __half2 hx = __float2half2_rn(x), hy = __float2half2_rn(y);
  for (long s = 0; s < steps; ++s) {
    RIDGELINE_UNROLL
    for (int c = 0; c < kRateChains; ++c) acc[c] = __hfma2(acc[c], hx, hy);
  }
  RIDGELINE_UNROLL
  for (int c = 0; c < kRateChains; ++c) {
    lanes[2 * c] = __low2float(acc[c]);
    lanes[2 * c + 1] = __high2float(acc[c]);
  }
#else
  (void)lanes, (void)x, (void)y, (void)steps;
  Kokkos::abort("ridgeline: the HFMA2 rate loop runs on CUDA devices only");
#endif
}

#if defined(KOKKOS_ENABLE_CUDA)
// A GEMM entry's own warp tiles at the GEMM's occupancy: Cfg's micro-kernel (mac_in: one K step's
// fragment loads from scratch and its MMA instructions), K step after K step, in teams of Cfg's team
// kernel for NN operands (its launch bounds, its scratch of every stage, its staged layouts), one team per
// slot of one wave, with no global traffic and no team barrier. As in the GEMM, step s reads stage
// s mod kStages (`stride` 1, a run-time value): with one fixed stage, ptxas saw the same loads in every
// step and kept their fragments in registers across steps, which measured the MMA instructions alone.
// What Cfg's GEMM loses against this rate is its staging's (copies, waits, barriers) and its epilogue's;
// what this loses against the register-resident rate above is the micro-kernel's (fragment loads, issue
// slots, and the warps per SM that its registers allow). Every staged element is one, so after `steps`
// K steps every accumulator element holds steps x BK exactly (FP32: while that stays under 2^24); `bad`
// counts those that do not.
template <class Cfg, class T, class Acc>
struct WarpTileRate {
  using MK = typename Cfg::template micro_kernel<T, Acc>;
  using Kernel = detail::GemmTeamAsync<Kokkos::Cuda, Cfg, T, Acc, MK, true, false, Acc>;
  using policy_type = typename Kernel::policy_type;
  using member_type = typename policy_type::member_type;
  using TileA = typename Kernel::TileA;
  using TileB = typename Kernel::TileB;
  static constexpr double kFlopsPerTeamStep = 2.0 * Cfg::bm * Cfg::bn * Cfg::bk;
  Kokkos::View<int*, Kokkos::CudaSpace> bad;  // one element: the wrong accumulator elements, summed
  T one{};
  std::int64_t steps = 0;
  int stride = 1;  // stages from one K step to the next
  static std::size_t scratch_bytes() { return Kernel::scratch_bytes(); }

  KOKKOS_INLINE_FUNCTION void operator()(const member_type& team) const {
    auto scratch = team.team_scratch(static_cast<int>(Cfg::scratch_level));
    // kStages x the stage tiles, as the team kernel allocates them.
    T* As = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * Kernel::kStages * TileA::kElems, TileA::kAlign));
    T* Bs = static_cast<T*>(
        scratch.get_shmem_aligned(sizeof(T) * Kernel::kStages * TileB::kElems, TileB::kAlign));
    for (int i = team.team_rank(); i < Kernel::kStages * TileA::kElems; i += Cfg::team_size) As[i] = one;
    for (int i = team.team_rank(); i < Kernel::kStages * TileB::kElems; i += Cfg::team_size) Bs[i] = one;
    team.team_barrier();
    const typename MK::Owner o = MK::owner(team.team_rank());
    typename MK::Accumulator acc;
    MK::zero(acc);
    int read = 0;
    for (std::int64_t s = 0; s < steps; ++s) {
      MK::template mac_in<typename Kernel::LayoutA, typename Kernel::LayoutB>(acc, As + read * TileA::kElems,
                                                                              Bs + read * TileB::kElems, o);
      read += stride;
      if (read >= Kernel::kStages) read -= Kernel::kStages;
    }
    const Acc expect = static_cast<Acc>(steps * Cfg::bk);
    int wrong = 0;
    for (int i = 0; i < Cfg::tm; ++i)
      for (int j = 0; j < Cfg::tn; ++j) wrong += MK::get(acc, i, j) != expect;
    if (wrong > 0) Kokkos::atomic_add(&bad(0), wrong);
  }
};
#endif

}  // namespace ceiling_rates
}  // namespace ridgeline::backends::cuda
