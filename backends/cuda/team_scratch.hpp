#pragma once
// Team scratch above Kokkos 3.4's 48 KB per team on CUDA.
//
// Kokkos 3.4 caps a team's level-0 scratch where the device's default per-block limit is (48 KB;
// scratch_size_max(0) even says 40 KB), in three places: ParallelFor's constructor and the launch
// check the instance's m_maxShmemPerBlock, the team-size deduction reads sharedMemPerBlock from the
// instance's device properties, and the launch never raises the kernel's
// cudaFuncAttributeMaxDynamicSharedMemorySize. Tensor-core tiles with several stages in flight want
// 100-200 KB. This hook, verified on the H200 with 40 to 219 KB of team scratch
// (../shared/TOOLCHAIN.md, "Team scratch above 40 KB"), lifts all three for one kernel:
//   - the kernel's dynamic shared-memory attribute goes to the device's opt-in maximum, once;
//   - the instance's limit and its copy of sharedMemPerBlock go to the opt-in maximum.
// The second is process-wide for that instance: Kokkos's own checks then let other kernels ask for
// more than 48 KB too, and such a kernel fails at launch unless its attribute was raised as here.
// Kokkos 4 and later size the attribute per kernel themselves (scratch_size_max(0) is about 200 KB
// on Hopper), so there the hook does nothing and Kokkos's limit applies.
#include <Kokkos_Core.hpp>
#include <cstddef>
#include <ridgeline/backends/cuda/carveout.hpp>

namespace ridgeline::backends::cuda {

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
// The team scratch (bytes) a team of Kernel with team_size threads may use on exec's instance, after
// lifting Kokkos 3.4's limits for it; 0 if they could not be lifted (Kokkos's own limit applies).
template <class Kernel>
std::size_t lift_team_scratch_limit(const Kokkos::Cuda& exec, int team_size) {
  static const std::size_t per_kernel = []() -> std::size_t {
    cudaFuncAttributes fa{};
    if (cudaFuncGetAttributes(&fa, kernel_function<Kernel>()) != cudaSuccess)
      return (void)cudaGetLastError(), 0;
    int device = 0, optin = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
      return (void)cudaGetLastError(), 0;
    const int dynamic = optin - static_cast<int>(fa.sharedSizeBytes);
    if (cudaFuncSetAttribute(kernel_function<Kernel>(), cudaFuncAttributeMaxDynamicSharedMemorySize,
                             dynamic) != cudaSuccess)
      return (void)cudaGetLastError(), 0;
    return static_cast<std::size_t>(dynamic);
  }();
  if (per_kernel == 0) return 0;
  auto* inst = exec.impl_internal_space_instance();
  const std::size_t optin = inst->m_deviceProp.sharedMemPerBlockOptin;
  if (static_cast<std::size_t>(inst->m_maxShmemPerBlock) < optin) {
    inst->m_maxShmemPerBlock = static_cast<int>(optin);
    inst->m_deviceProp.sharedMemPerBlock = optin;
  }
  // Kokkos 3.4 adds a team-reduction buffer of team_size + 2 doubles to the team's dynamic memory.
  const std::size_t reserved = sizeof(double) * (static_cast<std::size_t>(team_size) + 2);
  return per_kernel > reserved ? per_kernel - reserved : 0;
}
#endif

template <class Kernel, class Exec>
std::size_t lift_team_scratch_limit(const Exec&, int) {
  return 0;
}

}  // namespace ridgeline::backends::cuda
