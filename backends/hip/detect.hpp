#pragma once
// The HIP runtime's report on the current device (the one Kokkos selected at initialization). On an
// MI250X each GCD is its own device. Included only when Kokkos enables HIP.
#include <hip/hip_runtime.h>

#include <ridgeline/device_spec.hpp>
#include <stdexcept>
#include <string>

namespace ridgeline {
namespace hip_detect {

inline void check(hipError_t err, const char* what) {
  if (err != hipSuccess)
    throw std::runtime_error(std::string("HIP device detection: ") + what + ": " + hipGetErrorString(err));
}

inline RuntimeDeviceInfo query_current_device() {
  int dev = 0;
  check(hipGetDevice(&dev), "hipGetDevice");
  hipDeviceProp_t prop{};
  check(hipGetDeviceProperties(&prop, dev), "hipGetDeviceProperties");

  RuntimeDeviceInfo rt;
  rt.backend = "hip";
  rt.name = prop.name;
  // gcnArchName is "gfx90a:sramecc+:xnack-": the architecture, then target features.
  std::string arch = prop.gcnArchName;
  rt.arch = arch.substr(0, arch.find(':'));
  rt.compute_units = prop.multiProcessorCount;
  rt.clock_ghz = prop.clockRate / 1e6;
  rt.warp_width = prop.warpSize;
  rt.scratch_per_cu_bytes = static_cast<std::int64_t>(prop.maxSharedMemoryPerMultiProcessor);
  rt.l2_bytes = prop.l2CacheSize;
  rt.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  rt.dram_bw_bytes_per_s = 2.0 * prop.memoryClockRate * 1e3 * (prop.memoryBusWidth / 8.0);
  return rt;
}

}  // namespace hip_detect
}  // namespace ridgeline
