#pragma once
// Measured ceilings (`ridgeline ceilings`): the rates that bandwidth and compute kernels reached on one
// device and Kokkos backend, kept beside the spec's datasheet roofs. This header is the data and its
// arithmetic, free of Kokkos: which working set samples which memory level (from the spec's cache
// sizes), how bytes and FLOPs are counted, what the FMA chains must leave behind, and the JSON file that
// holds the ceilings of every device and backend measured. The Kokkos kernels that measure them are the
// CLI's (apps/ridgeline/ceilings_kernels.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include "ridgeline/device_spec.hpp"

namespace ridgeline {
namespace ceilings {

// ---- bandwidth ----------------------------------------------------------------------------------------

enum class Level { scratch, cache, memory };
std::string to_string(Level);  // "scratch", "cache", "memory"

enum class StreamKernel { copy, triad };
std::string to_string(StreamKernel);
int stream_arrays(StreamKernel);  // copy b = a: 2; triad a = b + s c: 3
// Bytes one element position moves: every array read or written once (copy 2, triad 3 elements). With
// write_allocate, the line a store fills first is counted too (one more element per stored array), as
// a write-allocate cache moves it; the figures Ridgeline reports leave it out, as STREAM does.
int stream_bytes_per_element(StreamKernel, int elem_bytes, bool write_allocate = false);
// Bytes a timed run moves: `elements` positions (per array), `passes` times over.
double stream_bytes(StreamKernel, std::int64_t elements, std::int64_t passes, int elem_bytes);

// One bandwidth level to measure: the working set (all arrays of a kernel together) that should live
// in it, and how it is split among Kokkos teams.
struct LevelPlan {
  Level level = Level::memory;
  std::string residence;  // what the label says about where the data lives: "L2-resident", "DRAM", ...
  std::int64_t working_set_bytes = 0;  // all the kernel's arrays together
  int teams = 0;                       // Kokkos teams (league size); each owns working_set / teams
  int team_size = 1;                   // threads per team
  // Device backends only: pass p of team t works on team (t + p)'s chunk, so that a chunk is read by a
  // different compute unit than the one that touched it last and only the shared level can serve it.
  bool rotate = false;
  std::string why;  // how the size follows from the spec, for the table and the JSON
};

// The levels a spec's cache sizes call for, smallest first. Host (spec.backend "host"):
//   scratch: each of `concurrency` teams (one thread each) works in team scratch of
//            min(max_team_scratch - 1 KiB, L1d / 2), in whole 4 KiB: L1-resident;
//   cache:   4 x the cores' private caches together (private_cache_bytes x compute_units), at most half
//            the LLC (l2_bytes); without a private-cache size, a quarter of the LLC: LLC-resident;
//   memory:  4 x the LLC (quick: 2 x), at least 256 MiB: DRAM.
// GPUs: scratch: the same from the scratch per CU, per team of 256 threads, as many teams per CU
// as fit (at most 8); cache: a quarter of the L2, rotated between teams; memory: 8 x the L2, at least
// 1 GiB (quick: 4 x). A level whose size the spec lacks is left out (a spec without l2_bytes has no cache
// level). memory_bytes, when known, caps the memory level at a quarter of it. STREAM asks for 4 x the LLC;
// quick runs take half that, still well past it, because first touching memory can cost seconds a GiB on a
// VM.
std::vector<LevelPlan> plan_levels(const DeviceSpec&, int concurrency, bool quick = false);

// Elements per array and team for a kernel at a level: working_set / (arrays x teams x elem_bytes),
// rounded down to whole 32-element segments on a GPU (team_size > 1), 8 on a CPU.
std::int64_t elements_per_team(const LevelPlan&, StreamKernel, int elem_bytes);

// "copy, 24 KiB team scratch per team x 2 teams (L1-resident)", "triad, 8 MiB working set
// (LLC-resident)": the bytes of double arrays the kernel touches (elements_per_team's).
std::string bandwidth_label(StreamKernel, const LevelPlan&);
// 1536 -> "1.5 KiB", 8388608 -> "8 MiB"
std::string bytes_text(double bytes);

// ---- compute ------------------------------------------------------------------------------------------

// A timed FMA run: `threads` threads each advance `chains` independent chains a <- a * x + y by `steps`
// steps. Each step is one fused multiply-add: 2 FLOPs.
double fma_flops(std::int64_t threads, int chains, std::int64_t steps);
// The chains run with x = -1, so a chain alternates between a0 and y - a0. With small integers both
// values are exact in every dtype (FP16 included), so the result is known exactly: a0 after an even
// number of steps, y - a0 after an odd one. The inputs come from memory, so no compiler can fold the
// chain; a run that skipped or repeated a step leaves the wrong value.
double fma_chain_reference(double a0, double y, std::int64_t steps);
// Chain j of thread t starts from this small integer (distinct per chain so no two chains are one).
double fma_chain_start(std::int64_t thread, int chain);
// Odd, so that y - a0 never equals a0: a lost or extra step always changes the value.
inline constexpr double kFmaChainY = 61;
// Number of positions where got[i] differs from want[i] (exactly), and the first of them in *first.
std::int64_t count_mismatches(const std::vector<double>& got, const std::vector<double>& want,
                              std::int64_t* first = nullptr);

// FLOPs of one m16n8k16 matrix instruction: 2 x 16 x 8 x 16.
inline constexpr double kMma16816Flops = 2.0 * 16 * 8 * 16;

// ---- records ------------------------------------------------------------------------------------------

// One measured roof.
struct Roof {
  std::string kind;             // "bandwidth" or "compute"
  std::string kernel;           // "copy", "triad", "fma chains", "dmma m16n8k16 (DmmaSm90MicroKernel)", ...
  Level level = Level::memory;  // bandwidth roofs
  DType dtype = DType::fp64;    // compute roofs
  Unit unit = Unit::vector;     // compute roofs
  std::string label;            // what was measured, e.g. "copy, 8 MiB working set (LLC-resident)"
  double value = 0;             // bytes/s or FLOP/s: the median run's rate
  double spec_value = 0;        // the spec's figure for the same roof; 0: the spec has none
  std::string spec_source;      // "datasheet", "estimate" (a derived host spec), "" without one
  double working_set_bytes = 0;
  double work = 0;  // bytes or FLOPs of one timed run
  int reps = 0;
  double median_s = 0, min_s = 0, max_s = 0;
  std::string check;  // compute roofs: "ok (…)" when the output matched the reference; "-" otherwise
  double percent_of_spec() const { return spec_value > 0 ? 100.0 * value / spec_value : 0.0; }
};

// What was not measured, and why ("fp16 vector", "no FP16 arithmetic on the host backend").
struct Absent {
  std::string what, why;
};

// The ceilings of one device on one Kokkos backend.
struct DeviceCeilings {
  std::string device;      // the spec's name: "NVIDIA H200 SXM 141GB", a host's CPU model
  std::string device_key;  // the spec's key: "h200", "host"
  std::string backend;     // the Kokkos execution space: "Cuda", "OpenMP", "HIP", "Serial"
  int concurrency = 0;
  std::string git_sha, date_utc, command, kokkos, mode;  // mode: "quick" or "full"
  std::string byte_counting;                             // how bytes were counted (write-allocate or not)
  std::vector<Roof> roofs;
  std::vector<Absent> absent;
};

struct CeilingsFile {
  std::vector<DeviceCeilings> entries;
};

// The file `ridgeline ceilings` writes and `perf`, `roofline plot` and `report` read: $RIDGELINE_CEILINGS,
// else $XDG_DATA_HOME/ridgeline/ceilings.json, else ~/.local/share/ridgeline/ceilings.json.
std::string default_ceilings_path();

std::string to_json(const DeviceCeilings&, int indent = 2);
std::string to_json(const CeilingsFile&, int indent = 2);
// Throws std::invalid_argument naming the origin and field.
DeviceCeilings parse_device_ceilings(const std::string& json_text, const std::string& origin);
CeilingsFile parse_ceilings_file(const std::string& json_text, const std::string& origin);
// A file that does not exist is an empty CeilingsFile; one that cannot be parsed throws.
CeilingsFile load_ceilings_file(const std::string& path);
// Adds c to the file at path (created with its folders), replacing the entry of the same device and
// backend: a device keeps one set of ceilings per backend, the latest.
void save_ceilings(const DeviceCeilings& c, const std::string& path);

// The entry for a device (by name, or by key when no name matches; case, spaces, '-' and '_' ignored)
// and backend (a Kokkos execution-space name; empty: the first entry whose backend belongs to the
// spec-backend family `family` — "host" matches OpenMP/Serial/Threads, "cuda" Cuda, "hip" HIP — or any
// backend when family is empty too). nullptr when none.
const DeviceCeilings* find_ceilings(const CeilingsFile&, const std::string& device_name,
                                    const std::string& device_key, const std::string& backend,
                                    const std::string& family = "");

// Per level, the faster of the bandwidth roofs measured at it (the roof the plot draws); then per dtype
// and unit the fastest compute roof (a GEMM entry's warp-tile rate sits under its instruction's
// register-resident rate: the table lists both, the plot the roof). The memory-level roof is the one
// compute roofs meet.
std::vector<const Roof*> plotted_roofs(const DeviceCeilings&);
// The fastest memory-level bandwidth (bytes/s), 0 without one.
double memory_bandwidth(const DeviceCeilings&);
// The fastest bandwidth measured at a level (bytes/s), 0 without one.
double level_bandwidth(const DeviceCeilings&, Level);
// The fastest compute roof measured for a dtype and unit (FLOP/s), 0 when none was.
double compute_rate(const DeviceCeilings&, DType, Unit);

// The table `ridgeline ceilings` prints: each roof, its measured figure, the spec's, % of spec, and how it
// was measured; then what was not measured.
std::string ceilings_table(const DeviceCeilings&);

}  // namespace ceilings
}  // namespace ridgeline
