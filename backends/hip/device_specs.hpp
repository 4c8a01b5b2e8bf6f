#pragma once
// AMD data: the built-in datasheet entries and the rules for a HIP device that has none. Plain data,
// compiled into every build whichever Kokkos backend it enables.
//
// An MI250X is two GCDs, and HIP shows each GCD as its own device; "mi250x-gcd" is what a HIP run
// sees, "mi250x" the whole package as the datasheet quotes it. MI2xx matrix cores have no TF32.
#include <ridgeline/device_spec.hpp>
#include <vector>

namespace ridgeline {
namespace hip_data {

inline constexpr double kTera = 1e12;
inline constexpr std::int64_t kKiB = 1024;
inline constexpr std::int64_t kMiB = 1024 * 1024;

// Kokkos 3.4 HIP TeamPolicy::scratch_size_max(0) is 40 KB, copied from the CUDA backend; the
// hardware LDS per CU is 64 KB.
inline constexpr std::int64_t kKokkosLevel0Cap = 40 * kKiB;
// A HIP kernel launch, end to end; typical, not a datasheet figure.
inline constexpr double kLaunchOverhead = 8e-6;

inline DeviceSpec cdna_common() {
  DeviceSpec s;
  s.vendor = "AMD";
  s.backend = "hip";
  s.warp_width = 64;
  s.max_team_scratch_bytes = kKokkosLevel0Cap;
  s.scratch_per_cu_bytes = 64 * kKiB;
  s.launch_overhead_s = kLaunchOverhead;
  return s;
}

inline DeviceSpec mi210() {
  DeviceSpec s = cdna_common();
  s.key = "mi210";
  s.name = "AMD Instinct MI210";
  s.arch = "gfx90a";
  s.detect_token = "MI210";
  s.source = "AMD Instinct MI210 Accelerator data sheet";
  s.compute_units = 104;
  s.boost_clock_ghz = 1.7;
  s.l2_bytes = 8 * kMiB;
  s.memory_bytes = 64'000'000'000;
  s.dram_bw_bytes_per_s = 1.6384 * kTera;
  s.set_peak_flops(DType::fp64, Unit::vector, 22.6 * kTera);
  s.set_peak_flops(DType::fp64, Unit::matrix, 45.3 * kTera);
  s.set_peak_flops(DType::fp32, Unit::vector, 22.6 * kTera);
  s.set_peak_flops(DType::fp32, Unit::matrix, 45.3 * kTera);
  s.set_peak_flops(DType::fp16, Unit::matrix, 181.0 * kTera);
  s.set_peak_flops(DType::bf16, Unit::matrix, 181.0 * kTera);
  s.notes = "No TF32 on CDNA2 matrix cores.";
  return s;
}

inline DeviceSpec mi250x_package() {
  DeviceSpec s = cdna_common();
  s.key = "mi250x";
  s.aliases = {"mi250x-package", "mi250x-oam"};
  s.name = "AMD Instinct MI250X (package, 2 GCDs)";
  s.arch = "gfx90a";
  s.source = "AMD Instinct MI250X Accelerator data sheet";
  s.compute_units = 220;
  s.boost_clock_ghz = 1.7;
  s.l2_bytes = 16 * kMiB;
  s.memory_bytes = 128'000'000'000;
  s.dram_bw_bytes_per_s = 3.2768 * kTera;
  s.set_peak_flops(DType::fp64, Unit::vector, 47.9 * kTera);
  s.set_peak_flops(DType::fp64, Unit::matrix, 95.7 * kTera);
  s.set_peak_flops(DType::fp32, Unit::vector, 47.9 * kTera);
  s.set_peak_flops(DType::fp32, Unit::matrix, 95.7 * kTera);
  s.set_peak_flops(DType::fp16, Unit::matrix, 383.0 * kTera);
  s.set_peak_flops(DType::bf16, Unit::matrix, 383.0 * kTera);
  s.notes =
      "The whole package: HIP never shows it as one device (see mi250x-gcd). L2 is 8 MB per GCD. "
      "No TF32 on CDNA2 matrix cores.";
  return s;
}

// One GCD is half of the package in every figure; derived so the two can never drift apart.
inline DeviceSpec mi250x_gcd() {
  DeviceSpec s = mi250x_package();
  s.key = "mi250x-gcd";
  s.aliases = {"mi250x-1gcd"};
  s.name = "AMD Instinct MI250X (one GCD)";
  s.detect_token = "MI250X";
  s.compute_units /= 2;
  s.l2_bytes /= 2;
  s.memory_bytes /= 2;
  s.dram_bw_bytes_per_s /= 2;
  for (auto& row : s.peaks)
    for (auto& p : row) p /= 2;
  s.notes =
      "Half of the MI250X package datasheet figures; what one HIP device of an MI250X is. "
      "No TF32 on CDNA2 matrix cores.";
  return s;
}

inline DeviceSpec mi300x() {
  DeviceSpec s = cdna_common();
  s.key = "mi300x";
  s.aliases = {"mi300x-oam"};
  s.name = "AMD Instinct MI300X";
  s.arch = "gfx942";
  s.detect_token = "MI300X";
  s.source =
      "AMD Instinct MI300X Accelerator data sheet; AMD CDNA 3 Instinct MI300 white paper "
      "(Infinity Cache bandwidth)";
  s.compute_units = 304;
  s.boost_clock_ghz = 2.1;
  s.l2_bytes = 256 * kMiB;
  s.memory_bytes = 192'000'000'000;
  s.dram_bw_bytes_per_s = 5.3 * kTera;
  s.l2_bw_bytes_per_s = 17.2 * kTera;
  s.set_peak_flops(DType::fp64, Unit::vector, 81.7 * kTera);
  s.set_peak_flops(DType::fp64, Unit::matrix, 163.4 * kTera);
  s.set_peak_flops(DType::fp32, Unit::vector, 163.4 * kTera);
  s.set_peak_flops(DType::fp32, Unit::matrix, 163.4 * kTera);
  s.set_peak_flops(DType::tf32, Unit::matrix, 653.7 * kTera);
  s.set_peak_flops(DType::fp16, Unit::matrix, 1307.4 * kTera);
  s.set_peak_flops(DType::bf16, Unit::matrix, 1307.4 * kTera);
  s.notes =
      "Last-level cache is the 256 MB Infinity Cache (each XCD also has a 4 MB L2); the L2 "
      "bandwidth field holds the Infinity Cache peak. Dense (non-sparse) peaks.";
  return s;
}

inline const std::vector<DeviceSpec>& hip_device_specs() {
  static const std::vector<DeviceSpec> specs = {mi210(), mi250x_package(), mi250x_gcd(), mi300x()};
  return specs;
}

// Vector FLOP per clock per CU by gfx architecture, for devices with no entry.
inline const std::vector<ArchRate>& hip_arch_rates() {
  static const std::vector<ArchRate> rates = {
      {"gfx908", 64, 128},
      {"gfx90a", 128, 128},
      {"gfx942", 128, 256},
  };
  return rates;
}

inline BackendDefaults hip_backend_defaults() {
  return {kLaunchOverhead, kKokkosLevel0Cap};
}

}  // namespace hip_data
}  // namespace ridgeline
