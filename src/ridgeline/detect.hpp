#pragma once
// The spec of the device a Kokkos execution space runs on. CUDA and HIP ask their runtime (the calls
// live in backends/<name>/detect.hpp) and look the answer up in the built-in tables; host spaces
// derive the CPU's spec. Whatever the table says, the team-scratch cap is the running Kokkos's own.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <type_traits>

#include "ridgeline/device_spec.hpp"

#if defined(KOKKOS_ENABLE_CUDA)
#include <ridgeline/backends/cuda/detect.hpp>
#endif
#if defined(KOKKOS_ENABLE_HIP)
#include <ridgeline/backends/hip/detect.hpp>
#endif

#include "ridgeline/detail/compat.hpp"

namespace ridgeline {

namespace detail {

template <class ExecSpace>
std::int64_t kokkos_team_scratch_cap(const ExecSpace& exec) {
  return Kokkos::TeamPolicy<ExecSpace>(exec, 1, 1).scratch_size_max(0);
}
}  // namespace detail

// Needs Kokkos initialized. An unknown GPU gets a spec built from the runtime's report, marked
// estimated, with notes saying so.
template <class ExecSpace>
DeviceSpec detect_device_spec(const ExecSpace& exec = ExecSpace()) {
  DeviceSpec spec;
  bool done = false;
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    spec = spec_from_runtime(cuda_detect::query_current_device());
    done = true;
  }
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same<ExecSpace, detail::compat::HipSpace>::value) {
    spec = spec_from_runtime(hip_detect::query_current_device());
    done = true;
  }
#endif
  if (!done) {
    HostCpuInfo cpu = read_host_cpu_info();
    // With OMP_PROC_BIND set, Kokkos has pinned this (the master) thread to one CPU by now, and the
    // affinity read_host_cpu_info honours is that thread's: the space's own thread count is the floor.
    const int threads = exec.concurrency();
    if (threads > cpu.logical_cpus) {
      const int per_core = std::max(1, cpu.logical_cpus / std::max(1, cpu.physical_cores));
      cpu.logical_cpus = threads;
      cpu.physical_cores = std::max(1, threads / per_core);
    }
    spec = derive_host_spec(cpu);
    spec.notes = std::string("Kokkos execution space ") + ExecSpace::name() + " with " +
                 std::to_string(exec.concurrency()) + " threads. " + spec.notes;
  }
  spec.max_team_scratch_bytes = detail::kokkos_team_scratch_cap(exec);
  return spec;
}

}  // namespace ridgeline
