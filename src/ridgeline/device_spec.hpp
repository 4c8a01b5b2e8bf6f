#pragma once
// What a device can do, as data. Every hardware figure Ridgeline uses lives in a DeviceSpec: the
// built-in entries are tables under backends/<name>/device_specs.hpp, a host CPU's entry is derived
// at run time from what the OS reports, and a JSON file with the same fields describes any other
// device without a rebuild.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline {

enum class DType { fp64, fp32, tf32, fp16, bf16 };
enum class Unit { vector, matrix };

inline constexpr std::array<DType, 5> kAllDTypes = {DType::fp64, DType::fp32, DType::tf32, DType::fp16,
                                                    DType::bf16};
inline constexpr std::array<Unit, 2> kAllUnits = {Unit::vector, Unit::matrix};

std::string to_string(DType);
std::string to_string(Unit);
DType parse_dtype(const std::string&);  // "fp64", "FP16", "bf16", ...; throws std::invalid_argument
Unit parse_unit(const std::string&);    // "vector" / "matrix" (also "simd", "tensor"); throws likewise
// Bytes one element occupies in memory. TF32 is stored as FP32, so it moves 4 bytes.
int dtype_bytes(DType);

struct DeviceSpec {
  std::string key;                   // short lookup name: "h200", "mi250x-gcd", "host"
  std::vector<std::string> aliases;  // other names find_device_spec accepts
  std::string name;                  // full product name
  std::string vendor;                // "NVIDIA", "AMD", CPU vendor
  std::string backend;               // Kokkos backend family: "cuda", "hip", "host"
  std::string arch;                  // "sm_90", "gfx942", "x86_64"
  std::string detect_token;          // substring of the runtime device name that tells siblings apart
  std::string source;                // datasheet or vendor document the figures come from

  int compute_units = 0;  // SMs, CUs, or physical cores
  double boost_clock_ghz = 0;
  int warp_width = 0;  // warp / wavefront width; SIMD lanes of FP32 for a CPU

  // Team scratch one Kokkos team may request at level 0: a Kokkos limit, not the hardware's.
  std::int64_t max_team_scratch_bytes = 0;
  std::int64_t scratch_per_cu_bytes = 0;  // shared memory / LDS per SM or CU (hardware)
  std::int64_t l2_bytes = 0;              // L2 or last-level cache
  // The cache each compute unit keeps to itself between scratch/L1 and l2_bytes: a CPU core's L2 when
  // l2_bytes is a shared L3. 0 where there is none or it is unknown. `ridgeline ceilings` sizes its
  // last-level-cache working set past it, so that what it labels LLC-resident is not core-private.
  std::int64_t private_cache_bytes = 0;
  std::int64_t memory_bytes = 0;  // device memory capacity (0 when not known)
  double dram_bw_bytes_per_s = 0;
  double l2_bw_bytes_per_s = 0;  // 0 when unpublished
  double launch_overhead_s = 0;  // the floor one kernel launch costs, typical rather than datasheet
  bool estimated = false;        // figures derived from the runtime/OS instead of a datasheet
  std::string notes;

  // Dense peaks in FLOP/s, [dtype][unit]; 0 means the unit does not run that dtype or the source
  // gives no figure for it (GPU datasheets quote FP16/BF16 for the matrix unit only).
  std::array<std::array<double, 2>, 5> peaks{};

  double peak_flops(DType d, Unit u) const { return peaks[static_cast<int>(d)][static_cast<int>(u)]; }
  void set_peak_flops(DType d, Unit u, double flops) {
    peaks[static_cast<int>(d)][static_cast<int>(u)] = flops;
  }
};

// The built-in datasheet entries of every vendor, whatever Kokkos backend this build enables.
const std::vector<DeviceSpec>& builtin_device_specs();

// Looks a device up by key, alias or full name, ignoring case, spaces, '-' and '_'. "host" gives the
// spec derived from this machine's CPU. Throws std::invalid_argument listing the known names.
const DeviceSpec& find_device_spec(const std::string& name);
std::vector<std::string> known_device_names();  // keys, "host" included

// A JSON spec with DeviceSpec's field names (peaks under "peak_flops": {"fp64": {"vector": ...}}).
// Bad content (not JSON, a missing field, a wrong type, a figure outside its plausible range) is a
// std::invalid_argument naming the offending field; a file that cannot be read is a std::runtime_error.
DeviceSpec load_device_spec_json(const std::string& path);
DeviceSpec parse_device_spec_json(const std::string& text, const std::string& origin = "<string>");
std::string device_spec_to_json(const DeviceSpec&, int indent = 2);
void save_device_spec_json(const DeviceSpec&, const std::string& path);

// Throws std::invalid_argument naming the field, its value, the plausible range and the unit it was
// probably written in ("4.8 B/s ...: did you mean 4.8e12, that is 4.8 TB/s?") when a figure is outside
// what real hardware has: peaks 1 GFLOP/s to 1 EFLOP/s, bandwidths 1 GB/s to 1 PB/s, clocks 0.1 to
// 10 GHz, and likewise for cache sizes, memory, unit counts and launch overhead (0 is allowed where the
// field means "unknown"). The JSON loader checks every file against the same ranges, field by field;
// origin names the spec in the message (empty: its key).
void validate_device_spec(const DeviceSpec&, const std::string& origin = "");

// A name on the command line or in a config: a built-in name, "host", or a path to a .json spec.
DeviceSpec resolve_device_spec(const std::string& name_or_path);

// ---- host CPUs -------------------------------------------------------------------------------------
// What the OS says about the CPU; the inputs of the host derivation, kept apart so it can be tested.
struct HostCpuInfo {
  std::string model;
  std::string vendor;
  std::string arch;  // "x86_64", "aarch64"
  int physical_cores = 0;
  int logical_cpus = 0;
  double clock_ghz = 0;
  std::string clock_source;  // where clock_ghz came from
  int simd_bits = 0;         // widest FP SIMD the CPU flags advertise
  bool fma = false;
  bool native_fp16 = false;  // FP16 arithmetic at twice the FP32 rate (AVX512-FP16)
  bool native_bf16 = false;  // BF16 dot products at twice the FP32 rate (AVX512-BF16)
  std::int64_t l1d_bytes = 0;
  std::int64_t l2_private_bytes = 0;  // a core's own L2 when a larger last level is shared (else 0)
  std::int64_t llc_bytes = 0;
};

HostCpuInfo parse_cpuinfo(const std::string& proc_cpuinfo_text);
HostCpuInfo read_host_cpu_info();  // /proc/cpuinfo, cpufreq and cache sizes from /sys
// peak = cores x FMA lanes x 2 x FMA pipes x clock; an estimate, and the spec says so.
DeviceSpec derive_host_spec(const HostCpuInfo&);
DeviceSpec derive_host_spec();

// ---- run-time derivation rules (the figures themselves are data in backends/<name>/) ----------------
// Vector-unit throughput per clock of one compute unit of an architecture, so that an unknown device
// of a known architecture still gets vector peaks from its reported clock and unit count.
struct ArchRate {
  std::string arch;
  double fp64_flop_per_clk_per_cu = 0;
  double fp32_flop_per_clk_per_cu = 0;
};

// What a backend's runtime-built specs assume where neither the runtime nor a datasheet says.
struct BackendDefaults {
  double launch_overhead_s = 0;
  std::int64_t max_team_scratch_bytes = 0;  // Kokkos 3.4's TeamPolicy::scratch_size_max(0)
};

// How a host CPU's spec is estimated from cores, SIMD width and clock.
struct HostDerivationRules {
  int fma_pipes_per_core = 0;               // FMA issue ports assumed per core
  double dram_bw_bytes_per_s_per_core = 0;  // placeholder: the OS does not report bandwidth
  double launch_overhead_s = 0;             // a parallel region's fork/join
  std::int64_t max_team_scratch_bytes = 0;  // Kokkos 3.4 host TeamPolicy::scratch_size_max(0)
};

// ---- detection support (the runtime queries themselves live in backends/<name>/detect.hpp) ---------
// What a GPU runtime reports about the device it runs on.
struct RuntimeDeviceInfo {
  std::string backend;  // "cuda" or "hip"
  std::string name;
  std::string arch;  // "sm_90", "gfx90a" (gcnArchName without its feature suffix)
  int compute_units = 0;
  double clock_ghz = 0;
  int warp_width = 0;
  std::int64_t scratch_per_cu_bytes = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  double dram_bw_bytes_per_s = 0;  // from memory clock x bus width
};

// The built-in entry the runtime's answer matches (same backend, arch and unit count, and the
// entry's detect_token in the name when the runtime gives one), or nullptr.
const DeviceSpec* match_builtin_spec(const RuntimeDeviceInfo&);
// The matching entry, or for an unknown device a spec built from the runtime's report, marked
// estimated, whose notes say that it is unknown and how to supply a spec file.
DeviceSpec spec_from_runtime(const RuntimeDeviceInfo&);

}  // namespace ridgeline
