#pragma once
// NVIDIA data: the built-in datasheet entries and the rules for a CUDA device that has none. Plain
// data, compiled into every build whichever Kokkos backend it enables.
//
// Tensor-core figures in NVIDIA's datasheets are quoted with 2:4 sparsity; the entries hold the dense
// figure, half of that. Cache and shared-memory sizes are binary units (what the runtime reports).
#include <ridgeline/device_spec.hpp>
#include <vector>

namespace ridgeline {
namespace cuda_data {

inline constexpr double kTera = 1e12;
inline constexpr std::int64_t kKiB = 1024;
inline constexpr std::int64_t kMiB = 1024 * 1024;

// Kokkos 3.4 Cuda TeamPolicy::scratch_size_max(0): 40 KB, below the hardware's 48 KB static limit so
// that team reductions keep some shared memory. Newer Kokkos reports its own figure at detection.
inline constexpr std::int64_t kKokkosLevel0Cap = 40 * kKiB;
// A kernel launch costs a few microseconds end to end; typical, not a datasheet figure.
inline constexpr double kLaunchOverhead = 5e-6;

inline DeviceSpec hopper_sxm_common() {
  DeviceSpec s;
  s.vendor = "NVIDIA";
  s.backend = "cuda";
  s.arch = "sm_90";
  s.compute_units = 132;
  s.boost_clock_ghz = 1.98;
  s.warp_width = 32;
  s.max_team_scratch_bytes = kKokkosLevel0Cap;
  s.scratch_per_cu_bytes = 228 * kKiB;
  s.l2_bytes = 50 * kMiB;
  s.launch_overhead_s = kLaunchOverhead;
  s.set_peak_flops(DType::fp64, Unit::vector, 34 * kTera);
  s.set_peak_flops(DType::fp64, Unit::matrix, 67 * kTera);
  s.set_peak_flops(DType::fp32, Unit::vector, 67 * kTera);
  s.set_peak_flops(DType::tf32, Unit::matrix, 495 * kTera);
  s.set_peak_flops(DType::fp16, Unit::matrix, 989.5 * kTera);
  s.set_peak_flops(DType::bf16, Unit::matrix, 989.5 * kTera);
  return s;
}

inline DeviceSpec h100_sxm() {
  DeviceSpec s = hopper_sxm_common();
  s.key = "h100";
  s.aliases = {"h100-sxm", "h100-sxm5", "h100-sxm-80gb"};
  s.name = "NVIDIA H100 SXM 80GB";
  s.detect_token = "H100";
  s.source = "NVIDIA H100 Tensor Core GPU Datasheet";
  s.memory_bytes = 80'000'000'000;
  s.dram_bw_bytes_per_s = 3.35 * kTera;
  s.notes =
      "Tensor-core peaks are the datasheet's sparse figures halved (dense). No FP32 matrix unit: "
      "FP32 GEMM on tensor cores runs as TF32.";
  return s;
}

inline DeviceSpec h200_sxm() {
  DeviceSpec s = hopper_sxm_common();
  s.key = "h200";
  s.aliases = {"h200-sxm", "h200-sxm-141gb"};
  s.name = "NVIDIA H200 SXM 141GB";
  s.detect_token = "H200";
  s.source = "NVIDIA H200 Tensor Core GPU product brief";
  s.memory_bytes = 141'000'000'000;
  s.dram_bw_bytes_per_s = 4.8 * kTera;
  // The product brief gives no L2 size; 60 MiB is what cudaDeviceProp::l2CacheSize reports on an H200.
  s.l2_bytes = 60 * kMiB;
  s.notes =
      "Same GH100 compute as the H100 SXM with HBM3e. Tensor-core peaks are the sparse figures "
      "halved (dense). No FP32 matrix unit.";
  return s;
}

inline DeviceSpec a100_sxm_80gb() {
  DeviceSpec s;
  s.key = "a100";
  s.aliases = {"a100-sxm", "a100-80gb", "a100-sxm4-80gb"};
  s.name = "NVIDIA A100 SXM 80GB";
  s.vendor = "NVIDIA";
  s.backend = "cuda";
  s.arch = "sm_80";
  s.detect_token = "A100";
  s.source = "NVIDIA A100 Tensor Core GPU Datasheet";
  s.compute_units = 108;
  s.boost_clock_ghz = 1.41;
  s.warp_width = 32;
  s.max_team_scratch_bytes = kKokkosLevel0Cap;
  s.scratch_per_cu_bytes = 164 * kKiB;
  s.l2_bytes = 40 * kMiB;
  s.memory_bytes = 80'000'000'000;
  s.dram_bw_bytes_per_s = 2.039 * kTera;
  s.launch_overhead_s = kLaunchOverhead;
  s.set_peak_flops(DType::fp64, Unit::vector, 9.7 * kTera);
  s.set_peak_flops(DType::fp64, Unit::matrix, 19.5 * kTera);
  s.set_peak_flops(DType::fp32, Unit::vector, 19.5 * kTera);
  s.set_peak_flops(DType::tf32, Unit::matrix, 156 * kTera);
  s.set_peak_flops(DType::fp16, Unit::matrix, 312 * kTera);
  s.set_peak_flops(DType::bf16, Unit::matrix, 312 * kTera);
  s.notes = "The 40GB A100 shares the name token and SM count but has 1.555 TB/s: pass --file for it.";
  return s;
}

inline const std::vector<DeviceSpec>& cuda_device_specs() {
  static const std::vector<DeviceSpec> specs = {a100_sxm_80gb(), h100_sxm(), h200_sxm()};
  return specs;
}

// Vector FLOP per clock per SM (2 x FMA lanes) by compute capability, for devices with no entry.
inline const std::vector<ArchRate>& cuda_arch_rates() {
  static const std::vector<ArchRate> rates = {
      {"sm_70", 64, 128}, {"sm_75", 4, 128}, {"sm_80", 64, 128},
      {"sm_86", 4, 256},  {"sm_89", 4, 256}, {"sm_90", 128, 256},
  };
  return rates;
}

inline BackendDefaults cuda_backend_defaults() {
  return {kLaunchOverhead, kKokkosLevel0Cap};
}

}  // namespace cuda_data
}  // namespace ridgeline
