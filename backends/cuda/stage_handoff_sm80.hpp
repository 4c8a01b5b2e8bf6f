#pragma once
// Stage handoff through mbarriers (sm_80 and later): the component an asynchronous-staging entry names
// as `stage_handoff` (gemm_team_async.hpp, k_loop_handoff) so that its warps pass stage buffers to each
// other without a team barrier per K step.
//
// Each stage has two mbarriers in scratch (8 bytes each):
//   full:  kThreads arrivals, one per thread, made by the hardware when that thread's cp.async copies of
//          the stage have landed (cp.async.mbarrier.arrive.noinc): its phase completes when the whole
//          K step is in scratch, and a thread that waits on it then sees every thread's copies.
//   empty: one arrival per warp, once the warp has loaded its last fragments of the stage.
// A phase is waited on by its parity (0, 1, 0, ...): round r of a stage (the K steps r * stages + s) is
// parity r & 1. No waiter is ever two phases behind: a stage's round r + 1 copies are issued only after
// every warp released round r, which each does after waiting for round r's copies.
//
// Why: with one team of 8 warps per SM (the 256 x 128 HMMA tiles that read 3/4 of the 128 x 128 tiles'
// bytes per flop, tile_table.hpp), a team barrier per K step stops all warps together at every step;
// here a warp waits only for data that has not landed, or for a warp a whole step behind it.
#include <Kokkos_Core.hpp>
#include <cstdint>

namespace ridgeline::backends::cuda {

struct StageHandoffSm80 {
  static constexpr const char* name = "cp.async+mbarrier";
  // Scratch address of an mbarrier (or any scratch object).
  KOKKOS_FORCEINLINE_FUNCTION static std::uint32_t address(const void* p) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
#else
    (void)p;
    return 0u;
#endif
  }
  KOKKOS_FORCEINLINE_FUNCTION static void init(std::uint32_t bar, unsigned arrivals) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
#else
    (void)bar, (void)arrivals;
#endif
  }
  // The calling thread's arrival, made once all of its cp.async copies issued so far have landed.
  KOKKOS_FORCEINLINE_FUNCTION static void arrive_when_copied(std::uint32_t bar) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(bar) : "memory");
#else
    (void)bar;
#endif
  }
  // One arrival per warp (lane 0), after the whole warp got here. t: the team rank (Kokkos puts team
  // ranks along threadIdx.y, so a warp is 32 consecutive ranks).
  KOKKOS_FORCEINLINE_FUNCTION static void warp_arrive(std::uint32_t bar, int t) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __syncwarp();
    if (t % 32 == 0) {
      std::uint64_t state;
      asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(bar) : "memory");
      (void)state;
    }
#else
    (void)bar, (void)t;
#endif
  }
  // Returns once the phase of this parity has completed.
  KOKKOS_FORCEINLINE_FUNCTION static void wait(std::uint32_t bar, unsigned parity) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned done = 0;
    do {
      asm volatile(
          "{\n.reg .pred p;\nmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
          : "=r"(done)
          : "r"(bar), "r"(parity)
          : "memory");
    } while (!done);
#else
    (void)bar, (void)parity;
#endif
  }
};

}  // namespace ridgeline::backends::cuda
