#pragma once
// The CUDA runtime's report on the current device (the one Kokkos selected at initialization).
// Plain C++17 against cuda_runtime.h; included only when Kokkos enables CUDA.
#include <cuda_runtime.h>

#include <ridgeline/device_spec.hpp>
#include <stdexcept>
#include <string>

namespace ridgeline {
namespace cuda_detect {

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw std::runtime_error(std::string("CUDA device detection: ") + what + ": " + cudaGetErrorString(err));
}

inline RuntimeDeviceInfo query_current_device() {
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  // Clock rates through attributes: the cudaDeviceProp fields are deprecated in newer CUDA.
  int clock_khz = 0, mem_clock_khz = 0, bus_bits = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev), "clock rate");
  check(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev), "memory clock rate");
  check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev), "memory bus width");

  RuntimeDeviceInfo rt;
  rt.backend = "cuda";
  rt.name = prop.name;
  rt.arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  rt.compute_units = prop.multiProcessorCount;
  rt.clock_ghz = clock_khz / 1e6;
  rt.warp_width = prop.warpSize;
  rt.scratch_per_cu_bytes = static_cast<std::int64_t>(prop.sharedMemPerMultiprocessor);
  rt.l2_bytes = prop.l2CacheSize;
  rt.memory_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  // Double data rate: two transfers per memory clock across the bus.
  rt.dram_bw_bytes_per_s = 2.0 * mem_clock_khz * 1e3 * (bus_bits / 8.0);
  return rt;
}

}  // namespace cuda_detect
}  // namespace ridgeline
