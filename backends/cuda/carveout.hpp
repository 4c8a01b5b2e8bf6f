#pragma once
// Shared-memory carveout of a Kokkos 3.4 TeamPolicy kernel.
//
// Kokkos 3.4 launches every TeamPolicy kernel preferring shared memory (cudaFuncCachePreferShared),
// the largest carveout: ncu shows 233 KB of shared memory and ~23 KB of L1 per SM even for the GEMV
// kernels. L1 holds the lines of every global load in flight and data reread across warps (x in the
// GEMV dot kernel). Cutting the carveout to what the resident teams need gave 1.06-1.09x on the GEMV
// kernels and 1.03-1.07x on the fp32 GEMM entries, and nothing on fp64 GEMM
// (perf/results/2026-11-30-h200-4b5f324/h200-2026-11-30-4b5f324-sweep.txt, -565bb80-sweep.txt). Table entries
// ask for it with prefer_l1.
//
// Kokkos 4 sizes the carveout to the kernel's occupancy itself, so this does nothing there.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstddef>

namespace ridgeline::backends::cuda {

#if defined(KOKKOS_ENABLE_CUDA) && KOKKOS_VERSION < 40000
template <class Kernel>
const void* kernel_function() {
  using Policy = typename Kernel::policy_type;
  using Driver = Kokkos::Impl::ParallelFor<Kernel, Policy, Kokkos::Cuda>;
  return reinterpret_cast<const void*>(
      Kokkos::Impl::CudaParallelLaunch<Driver, typename Policy::launch_bounds>::get_kernel_func());
}

// Kernel's preferred carveout in percent; -1 where none was set.
template <class Kernel>
int carveout_of() {
  cudaFuncAttributes a{};
  if (cudaFuncGetAttributes(&a, kernel_function<Kernel>()) != cudaSuccess)
    return (void)cudaGetLastError(), -2;
  return a.preferredShmemCarveout;
}

// The carveout (percent of the SM's shared memory) that holds as many teams of Kernel as the SM can
// run by threads, registers and blocks, each with team_shmem bytes of team scratch; -1 where the
// kernel's attributes cannot be read.
template <class Kernel>
int fitted_carveout(const Kokkos::Cuda& exec, std::size_t team_shmem, int team_size) {
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, kernel_function<Kernel>()) != cudaSuccess)
    return (void)cudaGetLastError(), -1;
  const cudaDeviceProp& p = exec.cuda_device_prop();
  const int warps = (team_size + p.warpSize - 1) / p.warpSize;
  // Registers are allocated per warp in units of 256.
  const int regs_per_warp = (fa.numRegs * p.warpSize + 255) / 256 * 256;
  const int by_regs =
      regs_per_warp > 0 ? p.regsPerMultiprocessor / regs_per_warp / warps : p.maxBlocksPerMultiProcessor;
  const int teams = std::max(
      1, std::min({p.maxThreadsPerMultiProcessor / team_size, by_regs, p.maxBlocksPerMultiProcessor}));
  // Per team: Kokkos 3.4's team-reduction buffer (team_size + 2 doubles), the team's scratch, static
  // shared memory, and the runtime's reserved share.
  const std::size_t per_team =
      sizeof(double) * (team_size + 2) + team_shmem + fa.sharedSizeBytes + p.reservedSharedMemPerBlock;
  const std::size_t need = std::size_t(teams) * per_team;
  return static_cast<int>(std::min<std::size_t>(
      100, (need * 100 + p.sharedMemPerMultiprocessor - 1) / p.sharedMemPerMultiprocessor));
}

// Sets Kernel's carveout to fitted_carveout. Call it after a launch of Kernel: Kokkos sets its
// preference on the first launch only, and this overrides it. The carveout is a hint; a refused one
// changes nothing.
template <class Kernel>
void fit_carveout(const Kokkos::Cuda& exec, std::size_t team_shmem, int team_size) {
  static const bool done = [&] {
    const int percent = fitted_carveout<Kernel>(exec, team_shmem, team_size);
    if (percent >= 0 &&
        cudaFuncSetAttribute(kernel_function<Kernel>(), cudaFuncAttributePreferredSharedMemoryCarveout,
                             percent) != cudaSuccess) {
      (void)cudaGetLastError();  // clear it: the kernel keeps Kokkos's preference
    }
    return true;
  }();
  (void)done;
}
#endif

template <class Kernel, class Exec>
void fit_carveout(const Exec&, std::size_t, int) {}

}  // namespace ridgeline::backends::cuda
