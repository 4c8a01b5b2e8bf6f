#pragma once
// The wgmma GEMM kernels are compiled once, into the Ridgeline library
// (src/ridgeline/wgmma_instances_sm90a.cpp), not in every translation unit that calls gemm. Why: the
// sm_90a route assembles a whole translation unit with the newer ptxas as soon as its PTX holds a
// wgmma (scripts/sm90a/ptxas), and that ptxas made the fp32 SIMT kernels about 10% slower
// (perf/results/2026-12-01-h200-edc0727/h200-2026-12-01-edc0727-README.md). With the wgmma kernels in the
// library, a caller's objects hold none, so its other kernels keep CUDA 11.8's ptxas, and its own build needs
// no route at all. dispatch.hpp includes this after launch_gemm, before any caller instantiates it.
#include <Kokkos_Core.hpp>
#include <ridgeline/config.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && RIDGELINE_HAVE_SM90A
// X(T, TC, kAFastM, kBFastN) for each wgmma kernel pair (packet and narrow entries): 16-bit A and B,
// C float or the input type, every orientation.
// clang-format off
#define RIDGELINE_WGMMA_GEMM_INSTANCES(X)                                                                   \
  X(half_t, float, true, true)     X(half_t, float, true, false)     X(half_t, float, false, true)     X(half_t, float, false, false) \
  X(half_t, half_t, true, true)    X(half_t, half_t, true, false)    X(half_t, half_t, false, true)    X(half_t, half_t, false, false) \
  X(bhalf_t, float, true, true)    X(bhalf_t, float, true, false)    X(bhalf_t, float, false, true)    X(bhalf_t, float, false, false) \
  X(bhalf_t, bhalf_t, true, true)  X(bhalf_t, bhalf_t, true, false)  X(bhalf_t, bhalf_t, false, true)  X(bhalf_t, bhalf_t, false, false)
// clang-format on

// One instance's signature; `prefix` is `extern template` (here) or `template` (the library); Kernel
// is GemmPacketKernel or GemmNarrowKernel (both wgmma entries in route builds).
#define RIDGELINE_WGMMA_GEMM_LAUNCH_OF(prefix, Kernel, T, TC, kAFastM, kBFastN)                             \
  prefix void launch_gemm<Kernel<Kokkos::Cuda, T, kAFastM, kBFastN, true, TC>, Kokkos::Cuda, T, TC, float>( \
      const Kokkos::Cuda&, const Strided2D<const T>&, const Strided2D<const T>&, const Strided2D<TC>&,      \
      float, float, KSplit, bool);
#define RIDGELINE_WGMMA_GEMM_LAUNCH(prefix, T, TC, kAFastM, kBFastN)                \
  RIDGELINE_WGMMA_GEMM_LAUNCH_OF(prefix, GemmPacketKernel, T, TC, kAFastM, kBFastN) \
  RIDGELINE_WGMMA_GEMM_LAUNCH_OF(prefix, GemmNarrowKernel, T, TC, kAFastM, kBFastN)
#define RIDGELINE_WGMMA_GEMM_EXTERN(T, TC, kAFastM, kBFastN) \
  RIDGELINE_WGMMA_GEMM_LAUNCH(extern template, T, TC, kAFastM, kBFastN)

// And the TF32 kernel (Math::allow_tf32), whose operands are always k-contiguous.
#define RIDGELINE_WGMMA_TF32_LAUNCH(prefix)                                                 \
  prefix void launch_gemm<GemmTf32Kernel<Kokkos::Cuda>, Kokkos::Cuda, float, float, float>( \
      const Kokkos::Cuda&, const Strided2D<const float>&, const Strided2D<const float>&,    \
      const Strided2D<float>&, float, float, KSplit, bool);

namespace ridgeline::detail {
RIDGELINE_WGMMA_GEMM_INSTANCES(RIDGELINE_WGMMA_GEMM_EXTERN)
RIDGELINE_WGMMA_TF32_LAUNCH(extern template)
}  // namespace ridgeline::detail
#undef RIDGELINE_WGMMA_GEMM_EXTERN
#endif
