#include "ridgeline/roofline.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ridgeline {
namespace roofline {

std::string to_string(MemoryLevel l) {
  return l == MemoryLevel::dram ? "dram" : "l2";
}

MemoryLevel parse_memory_level(const std::string& s) {
  std::string n;
  for (char c : s) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "dram" || n == "hbm" || n == "memory") return MemoryLevel::dram;
  if (n == "l2" || n == "llc") return MemoryLevel::l2;
  throw std::invalid_argument("unknown memory level '" + s + "' (expected dram or l2)");
}

namespace {

std::string figure(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// The spec's peak for the unit: 0 when it has none, the figure when it is positive and finite. A
// DeviceSpec built in code (or detected) has not been through the file loader's checks, so a NaN,
// infinite or negative figure is an error here rather than a silent NaN further on.
double peak_or_zero(const DeviceSpec& s, DType d, Unit u) {
  const double p = s.peak_flops(d, u);
  if (p == 0) return 0;
  if (!(p > 0) || !std::isfinite(p))
    throw std::invalid_argument("device '" + s.key + "': field 'peak_flops." + to_string(d) + "." +
                                to_string(u) + "' is " + figure(p) +
                                ", expected a positive finite FLOP/s figure or 0");
  return p;
}

}  // namespace

double bandwidth(const DeviceSpec& s, MemoryLevel l) {
  const double bw = l == MemoryLevel::dram ? s.dram_bw_bytes_per_s : s.l2_bw_bytes_per_s;
  const std::string field = l == MemoryLevel::dram ? "dram_bw_bytes_per_s" : "l2_bw_bytes_per_s";
  if (bw == 0)
    throw std::invalid_argument("device '" + s.key + "' has no " + to_string(l) +
                                " bandwidth figure (field '" + field + "' is 0)");
  if (!(bw > 0) || !std::isfinite(bw))
    throw std::invalid_argument("device '" + s.key + "': field '" + field + "' is " + figure(bw) +
                                ", expected a positive finite bytes/s figure");
  return bw;
}

double peak(const DeviceSpec& s, DType d, Unit u) {
  const double p = peak_or_zero(s, d, u);
  if (p == 0)
    throw std::invalid_argument("device '" + s.key + "' has no " + to_string(d) + " " + to_string(u) +
                                " peak (the unit does not run that dtype; field 'peak_flops." + to_string(d) +
                                "." + to_string(u) + "' is 0)");
  return p;
}

double ridge_point(const DeviceSpec& s, DType d, Unit u, MemoryLevel l) {
  const double p = peak_or_zero(s, d, u);
  return p > 0 ? p / bandwidth(s, l) : 0.0;
}

double attainable(const DeviceSpec& s, DType d, Unit u, double intensity, MemoryLevel l) {
  return std::min(peak(s, d, u), bandwidth(s, l) * intensity);
}

namespace {
void require_positive(std::int64_t v, const char* what) {
  if (v <= 0) throw std::invalid_argument(std::string(what) + " must be positive");
}
}  // namespace

Traffic gemm_ideal(std::int64_t M, std::int64_t N, std::int64_t K, int elem_bytes, bool beta_nonzero) {
  require_positive(M, "M");
  require_positive(N, "N");
  require_positive(K, "K");
  require_positive(elem_bytes, "element size");
  const double m = static_cast<double>(M), n = static_cast<double>(N), k = static_cast<double>(K);
  Traffic t;
  t.flops = 2.0 * m * n * k;
  t.bytes = elem_bytes * (m * k + k * n + m * n * (beta_nonzero ? 2.0 : 1.0));
  return t;
}

TileTraffic gemm_tile_traffic_detail(std::int64_t M, std::int64_t N, std::int64_t K, int elem_bytes,
                                     bool beta_nonzero, const TileConfig& tile, double l2_bytes) {
  require_positive(M, "M");
  require_positive(N, "N");
  require_positive(K, "K");
  require_positive(elem_bytes, "element size");
  if (tile.bm <= 0 || tile.bn <= 0) throw std::invalid_argument("tile BM and BN must be positive");
  const double m = static_cast<double>(M), n = static_cast<double>(N), k = static_cast<double>(K);
  TileTraffic t;
  t.flops = 2.0 * m * n * k;
  // ceil(N / BN) without forming N + BN - 1, which overflows for N near the top of std::int64_t.
  t.a_reads = static_cast<double>(N / tile.bn + (N % tile.bn != 0));
  t.b_reads = static_cast<double>(M / tile.bm + (M % tile.bm != 0));
  const double a = elem_bytes * m * k, b = elem_bytes * k * n;
  const double c = elem_bytes * m * n * (beta_nonzero ? 2.0 : 1.0);
  t.l2_bytes = a * t.a_reads + b * t.b_reads + c;
  // All of A and B resident in L2: every re-read hits. Otherwise the resident share of the
  // footprint is taken as the share of re-reads that hit, a first-order estimate.
  t.l2_reuse = l2_bytes <= 0 ? 0.0 : std::min(1.0, l2_bytes / (a + b));
  const double rereads = a * (t.a_reads - 1) + b * (t.b_reads - 1);
  t.dram_bytes = a + b + c + (1.0 - t.l2_reuse) * rereads;
  return t;
}

Traffic gemm_tile_traffic(std::int64_t M, std::int64_t N, std::int64_t K, int elem_bytes, bool beta_nonzero,
                          const TileConfig& tile, double l2_bytes) {
  const TileTraffic d = gemm_tile_traffic_detail(M, N, K, elem_bytes, beta_nonzero, tile, l2_bytes);
  return {d.flops, d.dram_bytes};
}

Traffic gemv_ideal(std::int64_t rows, std::int64_t cols, int elem_bytes, bool beta_nonzero, int batch) {
  require_positive(rows, "rows");
  require_positive(cols, "cols");
  require_positive(elem_bytes, "element size");
  require_positive(batch, "batch");
  const double r = static_cast<double>(rows), c = static_cast<double>(cols), k = batch;
  Traffic t;
  t.flops = 2.0 * r * c * k;
  t.bytes = elem_bytes * (r * c + k * c + k * r * (beta_nonzero ? 2.0 : 1.0));
  return t;
}

std::string to_string(Bound b) {
  switch (b) {
    case Bound::memory:
      return "memory";
    case Bound::compute:
      return "compute";
    case Bound::latency:
      return "latency";
  }
  return "?";
}

Point evaluate(const DeviceSpec& s, DType d, Unit u, const Traffic& t, double seconds,
               const EvalOptions& opt) {
  const double p = peak(s, d, u);
  const double bw = bandwidth(s, opt.level);
  Point pt;
  pt.intensity = t.intensity();
  pt.ridge = p / bw;
  pt.roof_flops = std::min(p, bw * pt.intensity);
  const double t_compute = t.flops / p;
  const double t_memory = t.bytes / bw;
  const double overhead = opt.launch_overhead_s >= 0 ? opt.launch_overhead_s : s.launch_overhead_s;
  const double t_launch = overhead * std::max(1, opt.launches);
  pt.min_seconds = std::max({t_compute, t_memory, t_launch});
  if (t_launch >= std::max(t_compute, t_memory) && t_launch > 0) {
    pt.bound = Bound::latency;
  } else {
    pt.bound = t_memory > t_compute ? Bound::memory : Bound::compute;
  }
  pt.attainable_flops = pt.min_seconds > 0 ? t.flops / pt.min_seconds : pt.roof_flops;
  if (seconds > 0) {
    pt.achieved_flops = t.flops / seconds;
    pt.efficiency = pt.attainable_flops > 0 ? pt.achieved_flops / pt.attainable_flops : 0.0;
  }
  return pt;
}

TileLedger tile_ledger(int bm, int bn, int bk, DType in, DType acc, int threads, int stages) {
  if (bm <= 0 || bn <= 0 || bk <= 0) throw std::invalid_argument("tile dimensions must be positive");
  if (threads <= 0) throw std::invalid_argument("threads must be positive");
  if (stages <= 0) throw std::invalid_argument("stages must be positive");
  TileLedger l;
  l.bm = bm;
  l.bn = bn;
  l.bk = bk;
  l.in = in;
  l.acc = acc;
  l.threads = threads;
  l.stages = stages;
  const std::int64_t si = dtype_bytes(in), sa = dtype_bytes(acc);
  // Extents are ints, but their products in bytes can pass std::int64_t (2^31 x 2^31 x 8): checked.
  auto mul = [&](std::int64_t a, std::int64_t b, const char* what) {
    std::int64_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
      throw std::invalid_argument(std::string("tile ") + std::to_string(bm) + "x" + std::to_string(bn) + "x" +
                                  std::to_string(bk) + ": " + what + " exceeds the range of std::int64_t");
    return r;
  };
  l.a_tile_bytes = mul(mul(bm, bk, "A tile bytes"), si, "A tile bytes");
  l.b_tile_bytes = mul(mul(bk, bn, "B tile bytes"), si, "B tile bytes");
  if (__builtin_add_overflow(l.a_tile_bytes, l.b_tile_bytes, &l.ab_stage_bytes))
    throw std::invalid_argument("tile " + std::to_string(bm) + "x" + std::to_string(bn) + "x" +
                                std::to_string(bk) + ": A + B tile bytes exceed the range of std::int64_t");
  l.staged_bytes = mul(l.ab_stage_bytes, stages, "staged scratch bytes");
  l.c_tile_bytes = mul(mul(bm, bn, "C tile bytes"), sa, "C tile bytes");
  l.flops_per_k_step = 2.0 * bm * bn * bk;
  l.flop_per_byte = l.flops_per_k_step / static_cast<double>(l.ab_stage_bytes);
  const std::int64_t c_elems = static_cast<std::int64_t>(bm) * bn;
  const std::int64_t per_thread = c_elems / threads + (c_elems % threads != 0);
  if (per_thread > std::numeric_limits<int>::max())
    throw std::invalid_argument("tile " + std::to_string(bm) + "x" + std::to_string(bn) + " on " +
                                std::to_string(threads) + " threads: accumulators per thread exceed an int");
  l.accumulators_per_thread = static_cast<int>(per_thread);
  l.even_split = c_elems % threads == 0;
  l.note =
      "Logical count only: element bytes times tile extents. Padding, alignment, bank-conflict skew and "
      "the scratch Kokkos reserves for itself are not included; FLOP/B is against the A+B tile bytes of "
      "one K step.";
  return l;
}

namespace {
// Smallest integer count x >= 1 with x >= exact, the real-valued count at which the intensity reaches
// I*: a closed form, no search. A few ulps of slack keep an exact ridge (I* = 50 FLOP/B, n = 300) from
// becoming 301 through rounding in P / B. Past kMaxCount, and for an infinite ridge, out of range.
std::int64_t smallest_count(double exact) {
  const double x = std::ceil(exact * (1 - 4 * std::numeric_limits<double>::epsilon()));
  if (!(x <= static_cast<double>(kMaxCount))) return kOutOfRange;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(x));
}
// The counts at a ridge I*, for spec and measured ridges alike.
std::int64_t gemm_n_at_ridge(double ridge, DType d, bool beta_nonzero) {
  const double c_terms = beta_nonzero ? 4.0 : 3.0;  // A, B, C (+ C read)
  // I(n) = 2n^3 / (eb * c_terms * n^2) = 2n / (eb * c_terms) >= I*  <=>  n >= I* * eb * c_terms / 2.
  return smallest_count(ridge * dtype_bytes(d) * c_terms / 2.0);
}
std::int64_t gemv_batch_at_ridge(double ridge, DType d) {
  // I(k) = 2k / eb >= I*  <=>  k >= I* * eb / 2.
  return smallest_count(ridge * dtype_bytes(d) / 2.0);
}
}  // namespace

std::int64_t gemm_compute_bound_n(const DeviceSpec& s, DType d, Unit u, bool beta_nonzero, MemoryLevel l) {
  if (peak_or_zero(s, d, u) == 0) return 0;
  return gemm_n_at_ridge(ridge_point(s, d, u, l), d, beta_nonzero);
}

std::int64_t gemv_compute_bound_batch(const DeviceSpec& s, DType d, Unit u, MemoryLevel l) {
  if (peak_or_zero(s, d, u) == 0) return 0;
  return gemv_batch_at_ridge(ridge_point(s, d, u, l), d);
}

namespace {
// A row from a peak and a bandwidth, either 0 when unknown: the ridge and the counts need both. The
// counts are gemm_compute_bound_n's (beta = 0) and gemv_compute_bound_batch's on that ridge.
CompareRow compare_row(const std::string& device, const std::string& source, DType d, Unit u, double peak,
                       double bw) {
  CompareRow r;
  r.device = device;
  r.source = source;
  r.dtype = d;
  r.unit = u;
  r.bandwidth = bw;
  r.peak_flops = peak;
  r.available = peak > 0;
  if (r.available && bw > 0) {
    r.ridge = peak / bw;
    r.gemm_n = gemm_n_at_ridge(r.ridge, d, false);
    r.gemv_batch = gemv_batch_at_ridge(r.ridge, d);
  }
  return r;
}
}  // namespace

std::vector<CompareRow> compare(const std::vector<DeviceSpec>& specs, const std::vector<DType>& dtypes,
                                const std::vector<Unit>& units, MemoryLevel l) {
  return compare(specs, dtypes, units, l, {});
}

std::vector<CompareRow> compare(const std::vector<DeviceSpec>& specs, const std::vector<DType>& dtypes,
                                const std::vector<Unit>& units, MemoryLevel l,
                                const std::vector<const ceilings::DeviceCeilings*>& measured) {
  return compare(specs, dtypes, units, l, measured, {});
}

std::vector<CompareRow> compare(const std::vector<DeviceSpec>& specs, const std::vector<DType>& dtypes,
                                const std::vector<Unit>& units, MemoryLevel l,
                                const std::vector<const ceilings::DeviceCeilings*>& measured,
                                const std::vector<StaticEstimate>& estimates) {
  for (const auto& e : estimates)
    if (e.spec_index >= specs.size() || !(e.fraction > 0 && e.fraction <= 1))
      throw std::invalid_argument("roofline compare: a static estimate (" + e.from + ") for device " +
                                  std::to_string(e.spec_index) + " of " + std::to_string(specs.size()) +
                                  " at " + std::to_string(e.fraction) + " of the peak (needs (0, 1])");
  if (!measured.empty() && measured.size() != specs.size())
    throw std::invalid_argument("roofline compare: " + std::to_string(measured.size()) +
                                " sets of ceilings for " + std::to_string(specs.size()) + " devices");
  const ceilings::Level level = l == MemoryLevel::dram ? ceilings::Level::memory : ceilings::Level::cache;
  std::vector<CompareRow> rows;
  for (DType d : dtypes)
    for (Unit u : units) {
      for (const auto& s : specs) {
        // The bandwidth first: a spec lacking the level's figure is the error reported, whatever its peaks.
        const double bw = bandwidth(s, l);
        rows.push_back(
            compare_row(s.key, s.estimated ? "estimate" : "datasheet", d, u, peak_or_zero(s, d, u), bw));
      }
      for (std::size_t i = 0; i < measured.size(); ++i)
        if (measured[i])
          rows.push_back(compare_row(specs[i].key, "measured", d, u,
                                     ceilings::compute_rate(*measured[i], d, u),
                                     ceilings::level_bandwidth(*measured[i], level)));
      if (u != Unit::matrix) continue;
      for (const auto& e : estimates)
        if (e.dtype == d) {
          const DeviceSpec& s = specs[e.spec_index];
          rows.push_back(compare_row(s.key, "static estimate", d, u, e.fraction * peak_or_zero(s, d, u),
                                     bandwidth(s, l)));
          rows.back().estimated_from = e.from;
        }
    }
  return rows;
}

}  // namespace roofline
}  // namespace ridgeline
