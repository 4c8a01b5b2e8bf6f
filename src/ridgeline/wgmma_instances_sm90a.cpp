// The library's copies of the wgmma GEMM kernels (backends/cuda/wgmma_instances_sm90a.hpp says why
// they live here). Empty in builds without Kokkos::Cuda or without the sm_90a route.
#include <ridgeline/gemm.hpp>

#if defined(KOKKOS_ENABLE_CUDA) && RIDGELINE_HAVE_SM90A
namespace ridgeline::detail {
#define RIDGELINE_WGMMA_GEMM_DEFINE(T, TC, kAFastM, kBFastN) \
  RIDGELINE_WGMMA_GEMM_LAUNCH(template, T, TC, kAFastM, kBFastN)
RIDGELINE_WGMMA_GEMM_INSTANCES(RIDGELINE_WGMMA_GEMM_DEFINE)
#undef RIDGELINE_WGMMA_GEMM_DEFINE
RIDGELINE_WGMMA_TF32_LAUNCH(template)
}  // namespace ridgeline::detail
#endif
