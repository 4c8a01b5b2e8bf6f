#include "report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <stdexcept>

namespace ridgeline_perf {

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string fmt(double v, const char* f) {
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(const std::string& s, std::size_t w, bool left = false) {
  if (s.size() >= w) return s;
  return left ? s + std::string(w - s.size(), ' ') : std::string(w - s.size(), ' ') + s;
}

std::string impl_label(const PerfRecord& r) {
  return r.math == "-" ? r.impl : r.impl + "(" + r.math + ")";
}

nlohmann::json num_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

// The shape column: 20 wide as it always was, wider where a batch's "MxNxK:batch=B" needs it.
std::size_t shape_width(const std::vector<PerfRecord>& rows) {
  std::size_t w = 20;
  for (const auto& r : rows) w = std::max(w, shape_string(r.shape).size() + 1);
  return w;
}

}  // namespace

void print_results_table(std::ostream& out, const std::vector<PerfRecord>& rows, const std::string& vendor) {
  const std::size_t sw = shape_width(rows);
  out << "Results: time = median per call over the timed samples (ms); GFLOP/s = 2MNK (x batch) or 2MN "
         "(complex: 8MNK, 8MN) / time (1e9 FLOP/s);\n"
      << "GB/s = ideal-model bytes / time (1e9 B/s); x" << vendor << " and xKK = GFLOP/s ratio to " << vendor
      << " and Kokkos Kernels (>1 is faster);\n"
      << "eff = measured / roofline-attainable; check = rel. Frobenius error vs the reference impl.\n";
  out << pad("op", 5, true) << pad("tr", 3, true) << pad("shape", sw, true) << pad("dtype", 6, true)
      << pad("impl", 16, true) << pad("time(ms)", 11) << pad("GFLOP/s", 10) << pad("GB/s", 9)
      << pad("x" + vendor, 11) << pad("xKK", 7) << pad("eff", 7) << pad("rel_err", 10) << "  check\n";
  for (const auto& r : rows) {
    out << pad(op_name(r.shape.op), 5, true) << pad(r.shape.trans, 3, true)
        << pad(shape_string(r.shape), sw, true) << pad(precision_name(r.shape.precision), 6, true)
        << pad(impl_label(r), 16, true) << pad(fmt(r.median_ms, "%.4f"), 11) << pad(fmt(r.gflops, "%.1f"), 10)
        << pad(fmt(r.gbs, "%.1f"), 9) << pad(fmt(r.ratio_vendor, "%.3f"), 11)
        << pad(fmt(r.ratio_kk, "%.3f"), 7) << pad(fmt(r.efficiency * 100, "%.1f%%"), 7)
        << pad(fmt(r.rel_err, "%.2e"), 10) << "  " << r.check << "\n";
  }
}

void print_roofline_ledger(std::ostream& out, const std::vector<PerfRecord>& rows) {
  const std::size_t sw = shape_width(rows);
  out << "Roofline ledger: I = ideal-model intensity (FLOP/B); attainable = min(peak, I x DRAM BW) "
         "(GFLOP/s);\n"
      << "ridge = peak / DRAM BW (FLOP/B); eff = measured / attainable; tile I = intensity of the "
         "tile-traffic model\nfor the tile config that ran (Ridgeline GEMM rows only); %peak = measured / "
         "the datasheet peak\n(GEMM: the dtype's FLOP/s on its fastest unit; GEMV: DRAM bandwidth);\nBW/copy "
         "= GB/s / the copy bandwidth measured in this run (GEMV "
         "rows).\n";
  out << pad("op", 5, true) << pad("tr", 3, true) << pad("shape", sw, true) << pad("dtype", 6, true)
      << pad("impl", 16, true) << pad("I", 9) << pad("attain", 10) << pad("ridge", 8) << pad("bound", 9)
      << pad("measured", 10) << pad("eff", 8) << pad("tile I", 9) << pad("%peak", 8) << pad("BW/copy", 8)
      << "  config\n";
  for (const auto& r : rows) {
    out << pad(op_name(r.shape.op), 5, true) << pad(r.shape.trans, 3, true)
        << pad(shape_string(r.shape), sw, true) << pad(precision_name(r.shape.precision), 6, true)
        << pad(impl_label(r), 16, true) << pad(fmt(r.intensity, "%.2f"), 9)
        << pad(fmt(r.attainable_gflops, "%.1f"), 10) << pad(fmt(r.ridge, "%.2f"), 8)
        << pad(r.bound.empty() ? "-" : r.bound, 9) << pad(fmt(r.gflops, "%.1f"), 10)
        << pad(fmt(r.efficiency * 100, "%.1f%%"), 8) << pad(fmt(r.tile_intensity, "%.2f"), 9)
        << pad(fmt(r.peak_fraction * 100, "%.1f%%"), 8) << pad(fmt(r.bw_fraction, "%.3f"), 8) << "  "
        << (r.config.empty() ? "-" : r.config) << "\n";
  }
}

void write_csv_file(const std::string& path, const std::vector<PerfRecord>& rows, const RunInfo& info) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  write_csv_header(f);
  for (const auto& r : rows) write_csv_row(f, r, info);
  if (!f) throw std::runtime_error("error writing " + path);
}

void write_json_file(const std::string& path, const std::vector<PerfRecord>& rows, const RunInfo& info,
                     const nlohmann::json& metadata) {
  nlohmann::json meta = metadata;
  meta["command"] = info.command;
  meta["git_sha"] = info.git_sha;
  meta["date_utc"] = info.date_utc;
  meta["device"] = info.device;
  meta["backend"] = info.backend;
  meta["kokkos"] = info.kokkos;
  meta["units"] = {{"median_ms", "milliseconds per call"},
                   {"gflops",
                    "1e9 FLOP/s, FLOP = 2MNK (GEMM; times batch for a batch) or 2MN (GEMV); 8MNK and 8MN for "
                    "complex dtypes"},
                   {"batch", "matrices of a batched GEMM (shape MxNxK:batch=B); 1 for a single product"},
                   {"gbs", "1e9 bytes/s of the ideal traffic model"},
                   {"intensity_flop_per_byte", "FLOP per byte, ideal traffic model"},
                   {"ratio_vendor", "GFLOP/s over the vendor baseline's, same run"},
                   {"ratio_kk", "GFLOP/s over Kokkos Kernels', same run"},
                   {"peak_gflops", "the dtype's datasheet peak on its fastest unit, 1e9 FLOP/s"},
                   {"peak_gbs", "the device spec's DRAM bandwidth, 1e9 B/s"},
                   {"peak_fraction", "GEMM: gflops / peak_gflops; GEMV: gbs / peak_gbs"},
                   {"copy_gbs", "device copy bandwidth measured in the same run (read + write), 1e9 B/s"},
                   {"bw_fraction", "GEMV rows: gbs / copy_gbs"}};
  nlohmann::json out_rows = nlohmann::json::array();
  for (const auto& r : rows) {
    const ShapeSpec& s = r.shape;
    out_rows.push_back({{"op", op_name(s.op)},
                        {"trans", s.trans},
                        {"shape", shape_string(s)},
                        {"m", s.m},
                        {"n", s.n},
                        {"k", s.k},
                        {"batch", s.batch},
                        {"dtype", precision_name(s.precision)},
                        {"impl", r.impl},
                        {"math", r.math},
                        {"config", r.config},
                        {"alpha", r.alpha},
                        {"beta", r.beta},
                        {"median_ms", num_or_null(r.median_ms)},
                        {"min_ms", num_or_null(r.min_ms)},
                        {"max_ms", num_or_null(r.max_ms)},
                        {"samples", r.samples},
                        {"calls_per_sample", r.calls_per_sample},
                        {"buffer_sets", r.buffer_sets},
                        {"rotate_bytes", num_or_null(r.rotate_bytes)},
                        {"gflops", num_or_null(r.gflops)},
                        {"gbs", num_or_null(r.gbs)},
                        {"ratio_vendor", num_or_null(r.ratio_vendor)},
                        {"ratio_kk", num_or_null(r.ratio_kk)},
                        {"intensity_flop_per_byte", num_or_null(r.intensity)},
                        {"attainable_gflops", num_or_null(r.attainable_gflops)},
                        {"ridge_flop_per_byte", num_or_null(r.ridge)},
                        {"bound", r.bound},
                        {"efficiency", num_or_null(r.efficiency)},
                        {"tile_intensity_flop_per_byte", num_or_null(r.tile_intensity)},
                        {"peak_gflops", num_or_null(r.peak_gflops)},
                        {"peak_gbs", num_or_null(r.peak_gbs)},
                        {"peak_fraction", num_or_null(r.peak_fraction)},
                        {"copy_gbs", num_or_null(r.copy_gbs)},
                        {"bw_fraction", num_or_null(r.bw_fraction)},
                        {"check_ref", r.check_ref},
                        {"rel_err", num_or_null(r.rel_err)},
                        {"tol", num_or_null(r.tol)},
                        {"check", r.check},
                        {"out_norm", num_or_null(r.out_norm)},
                        {"out_probe", num_or_null(r.out_probe)}});
  }
  std::ofstream f(path);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << nlohmann::json{{"metadata", meta}, {"rows", out_rows}}.dump(2) << "\n";
  if (!f) throw std::runtime_error("error writing " + path);
}

}  // namespace ridgeline_perf
