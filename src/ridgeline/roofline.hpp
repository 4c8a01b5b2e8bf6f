#pragma once
// The roofline: what a device can attain at a given arithmetic intensity, which bound applies, and
// traffic models that turn a GEMM/GEMV shape (or a tile configuration) into FLOPs and bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "ridgeline/ceilings.hpp"
#include "ridgeline/device_spec.hpp"
#include "ridgeline/tile_config.hpp"

namespace ridgeline {
namespace roofline {

// The memory level whose bandwidth the intensity is taken against.
enum class MemoryLevel { dram, l2 };
std::string to_string(MemoryLevel);
MemoryLevel parse_memory_level(const std::string&);  // "dram"/"hbm", "l2"/"llc"; throws invalid_argument
// Bytes/s at the level; throws std::invalid_argument when the spec has no figure for it.
double bandwidth(const DeviceSpec&, MemoryLevel);

struct Traffic {
  double flops = 0;
  double bytes = 0;
  double intensity() const { return bytes > 0 ? flops / bytes : 0.0; }  // FLOP/B
};

// Peak FLOP/s of the unit for the dtype; throws std::invalid_argument when the unit lacks the dtype or
// the figure is negative or not finite.
double peak(const DeviceSpec&, DType, Unit);
// I* = P_peak / B: the intensity above which the unit, not memory, limits. 0 when the unit lacks the dtype;
// +inf when the quotient overflows a double.
double ridge_point(const DeviceSpec&, DType, Unit, MemoryLevel = MemoryLevel::dram);
// min(P_peak, B * I).
double attainable(const DeviceSpec&, DType, Unit, double intensity, MemoryLevel = MemoryLevel::dram);

// C = alpha*A*B + beta*C with A, B read once and C written once, C also read when beta != 0.
Traffic gemm_ideal(std::int64_t M, std::int64_t N, std::int64_t K, int elem_bytes, bool beta_nonzero);

// Traffic of a tiled GEMM: every BM x BN team tile streams its A row panel and B column panel, so A is
// read ceil(N/BN) times and B ceil(M/BM) times from L2. What also comes from DRAM depends on how much
// of A and B stays in L2 between re-reads; estimated as the share of A+B's footprint that L2 holds.
struct TileTraffic {
  double flops = 0;
  double a_reads = 0, b_reads = 0;  // times A and B are streamed
  double l2_bytes = 0;              // bytes the tiles move through L2 (no reuse assumed)
  double dram_bytes = 0;            // estimated DRAM bytes after L2 reuse
  double l2_reuse = 0;              // 0..1: share of re-reads assumed to hit L2
};
TileTraffic gemm_tile_traffic_detail(std::int64_t M, std::int64_t N, std::int64_t K, int elem_bytes,
                                     bool beta_nonzero, const TileConfig& tile, double l2_bytes);
// {flops, estimated DRAM bytes}; l2_bytes <= 0 means no reuse in L2 at all.
Traffic gemm_tile_traffic(std::int64_t M, std::int64_t N, std::int64_t K, int elem_bytes, bool beta_nonzero,
                          const TileConfig& tile, double l2_bytes);

// y = alpha*A*x + beta*y for `batch` vectors sharing A (rows x cols): I ~ 2*batch/elem_bytes while
// reading A dominates.
Traffic gemv_ideal(std::int64_t rows, std::int64_t cols, int elem_bytes, bool beta_nonzero, int batch = 1);

// Complex elements (Kokkos::complex<float>, Kokkos::complex<double>): a complex multiply-add is four
// real ones, 8 real FLOPs against 2, and an element is two reals. The models above, called with the
// complex element's bytes (8 or 16), become the complex product's by complex_traffic: the same bytes,
// four times the FLOPs, which the real dtype's peak (fp32, fp64) then bounds.
inline constexpr double kComplexFlopsPerMac = 8;
inline Traffic complex_traffic(const Traffic& real_model) {
  return {real_model.flops * (kComplexFlopsPerMac / 2), real_model.bytes};
}
inline Traffic gemm_ideal_complex(std::int64_t M, std::int64_t N, std::int64_t K, int elem_bytes,
                                  bool beta_nonzero) {
  return complex_traffic(gemm_ideal(M, N, K, elem_bytes, beta_nonzero));
}
inline Traffic gemv_ideal_complex(std::int64_t rows, std::int64_t cols, int elem_bytes, bool beta_nonzero) {
  return complex_traffic(gemv_ideal(rows, cols, elem_bytes, beta_nonzero));
}

enum class Bound { memory, compute, latency };
std::string to_string(Bound);

struct EvalOptions {
  MemoryLevel level = MemoryLevel::dram;
  double launch_overhead_s = -1;  // < 0: the spec's figure; pass a measured one when there is one
  int launches = 1;               // kernel launches the operation takes
};

struct Point {
  double intensity = 0;         // FLOP/B at the level
  double attainable_flops = 0;  // FLOP/s: the roofline, lowered by the launch floor for small work
  double ridge = 0;             // I* at the level
  double achieved_flops = 0;    // FLOP/s measured (0 without a measurement)
  double efficiency = 0;        // achieved / attainable (0 without a measurement)
  Bound bound = Bound::memory;
  double roof_flops = 0;   // min(P_peak, B*I) without the launch floor
  double min_seconds = 0;  // max(compute time, memory time, launch floor)
};
// seconds <= 0: no measurement.
Point evaluate(const DeviceSpec&, DType, Unit, const Traffic&, double seconds, const EvalOptions& = {});

// What one team tile holds in scratch and does per K step. A logical count: it ignores padding,
// alignment, bank-conflict skew and the scratch Kokkos itself reserves.
struct TileLedger {
  int bm = 0, bn = 0, bk = 0;
  DType in = DType::fp32, acc = DType::fp32;
  int threads = 0, stages = 0;
  std::int64_t a_tile_bytes = 0;    // BM x BK of the input type
  std::int64_t b_tile_bytes = 0;    // BK x BN of the input type
  std::int64_t ab_stage_bytes = 0;  // A + B of one stage
  std::int64_t staged_bytes = 0;    // stages x (A + B): the scratch the tiles need
  std::int64_t c_tile_bytes = 0;    // BM x BN of the accumulator type (held in registers)
  double flops_per_k_step = 0;      // 2 x BM x BN x BK
  double flop_per_byte = 0;         // flops_per_k_step / ab_stage_bytes
  int accumulators_per_thread = 0;  // ceil(BM x BN / threads)
  bool even_split = true;           // threads divide BM x BN
  std::string note;
};
// Throws std::invalid_argument for non-positive extents, threads or stages, and for byte counts past
// std::int64_t.
TileLedger tile_ledger(int bm, int bn, int bk, DType in, DType acc, int threads, int stages);

// Where a device turns compute-bound. Both counts come from closed forms, so any spec answers at once.
// The largest count reported: beyond 2^53 a double no longer holds every integer, so figures given as
// doubles cannot pin the smallest count down (and no GEMM has such an extent).
inline constexpr std::int64_t kMaxCount = std::int64_t(1) << 53;
// What the two functions below return when the count exceeds kMaxCount: a ridge past about 10^15
// FLOP/B, or one that overflows a double, from an absurd peak or bandwidth in a spec built in code
// (spec files are range-checked). 0 still means the unit lacks the dtype.
inline constexpr std::int64_t kOutOfRange = -1;
// Smallest n for which an n x n x n GEMM (ideal traffic, elements of the dtype) reaches I*.
std::int64_t gemm_compute_bound_n(const DeviceSpec&, DType, Unit, bool beta_nonzero = false,
                                  MemoryLevel = MemoryLevel::dram);
// Smallest batch k of GEMV vectors reaching I*, in the limit where reading A dominates (I = 2k/s).
std::int64_t gemv_compute_bound_batch(const DeviceSpec&, DType, Unit, MemoryLevel = MemoryLevel::dram);

struct CompareRow {
  std::string device;  // spec key
  // Where every figure of the row comes from: "datasheet", "estimate" (a derived spec, the host's),
  // "measured" (saved `ridgeline ceilings`) or "static estimate" (a code-object report's bound on the spec's
  // matrix peak, StaticEstimate). A row never mixes measured and spec figures: a measured row leaves a
  // figure that was not measured at 0 rather than fill it in from the spec.
  std::string source = "datasheet";
  DType dtype = DType::fp64;
  Unit unit = Unit::vector;
  bool available = false;  // the unit runs the dtype (measured rows: its rate was measured)
  double peak_flops = 0;
  double bandwidth = 0;         // measured rows: 0 when the level's bandwidth was not measured
  double ridge = 0;             // +inf when it overflows a double
  std::int64_t gemm_n = 0;      // 0 when unavailable, kOutOfRange past kMaxCount
  std::int64_t gemv_batch = 0;  // 0 when unavailable, kOutOfRange past kMaxCount
  std::string estimated_from;   // static estimates: StaticEstimate::from; empty otherwise
};
// One row per dtype, unit and spec, in that nesting order.
std::vector<CompareRow> compare(const std::vector<DeviceSpec>&, const std::vector<DType>&,
                                const std::vector<Unit>& = {Unit::vector, Unit::matrix},
                                MemoryLevel = MemoryLevel::dram);
// The same, with the saved ceilings of each spec (measured[i] belongs to specs[i]; nullptr: none): per
// dtype and unit, the specs' rows, then one "measured" row for each spec that has ceilings, in spec order.
// A measured row takes the measured rate of that dtype and unit and the fastest bandwidth measured at the
// level (dram: the memory level, l2: the cache level), and its ridge and counts from those two.
std::vector<CompareRow> compare(const std::vector<DeviceSpec>&, const std::vector<DType>&,
                                const std::vector<Unit>&, MemoryLevel,
                                const std::vector<const ceilings::DeviceCeilings*>& measured);
// A static estimate of a device's matrix-unit rate for one dtype: the share of its spec's matrix peak that
// Ridgeline's kernels allow by their code objects (scripts/hip_code_objects.py's static bound: the issue rate
// of the K loop if memory keeps up). Nothing ran: it is an estimate, never a measurement.
struct StaticEstimate {
  std::size_t spec_index = 0;  // the device: an index into compare's specs
  DType dtype = DType::fp64;
  double fraction = 0;  // of the spec's matrix peak for dtype, in (0, 1]
  std::string from;     // what it was read from, for the report
};
// The same again, with a "static estimate" row (unit matrix, the spec's bandwidth at the level) after the
// measured rows of each matrix group, per estimate of that dtype, in the estimates' order.
std::vector<CompareRow> compare(const std::vector<DeviceSpec>&, const std::vector<DType>&,
                                const std::vector<Unit>&, MemoryLevel,
                                const std::vector<const ceilings::DeviceCeilings*>& measured,
                                const std::vector<StaticEstimate>& estimates);

}  // namespace roofline
}  // namespace ridgeline
