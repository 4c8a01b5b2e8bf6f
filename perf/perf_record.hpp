#pragma once
// One measured row and its CSV form, shared by ridgeline-perf and cublas_baseline.cu so that both
// write the same columns and merge_results.py can join them. Standard C++ only (see shape_spec.hpp).
#include <cmath>
#include <cstdio>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "ridgeline/tile_config.hpp"
#include "shape_spec.hpp"

namespace ridgeline_perf {

// Run-wide metadata; repeated on every CSV row so that a row cut out of a file still names the
// build, device and command that produced it.
struct RunInfo {
  std::string command;
  std::string git_sha;
  std::string date_utc;  // ISO 8601, e.g. 2024-06-11T09:30:00Z
  std::string device;
  std::string backend;
  std::string kokkos;  // ridgeline::kokkos_description(), empty for the cuBLAS program
};

// Numbers that were not measured or do not apply are NaN and written as empty CSV fields.
struct PerfRecord {
  ShapeSpec shape;
  std::string impl;        // "ridgeline", "kokkos-kernels", "openblas", "cublas"
  std::string math = "-";  // cuBLAS math mode; "-" where the library has none
  std::string config;      // the kernel configuration that ran, when the library reports one
  std::optional<ridgeline::TileConfig> tile;  // Ridgeline GEMM: the table entry that ran (config prints it)
  double alpha = 1, beta = 0;
  double median_ms = NAN, min_ms = NAN, max_ms = NAN;  // per call, milliseconds
  int samples = 0;                                     // timed samples the median is taken over
  int calls_per_sample = 0;                            // back-to-back calls inside one timed sample
  int buffer_sets = 0;                                 // rotated input/output sets
  double rotate_bytes = NAN;                           // bytes of all rotated sets together
  double gflops = NAN;                                 // 2MNK or 2MN (complex: 8MNK, 8MN) / time, 1e9 FLOP/s
  double gbs = NAN;                                    // ideal-model bytes / median time, 1e9 B/s
  double ratio_vendor = NAN;  // this impl's GFLOP/s over the vendor baseline's (>1: faster)
  double ratio_kk = NAN;      // this impl's GFLOP/s over Kokkos Kernels' (>1: faster)
  // roofline ledger
  double intensity = NAN;          // FLOP/B, ideal traffic model
  double attainable_gflops = NAN;  // min(peak, intensity * bandwidth), 1e9 FLOP/s
  double ridge = NAN;              // FLOP/B where the roof turns
  std::string bound;               // memory / compute / latency
  double efficiency = NAN;         // measured / attainable
  double tile_intensity = NAN;     // FLOP/B, tile traffic model of the tile config that ran
  double peak_gflops = NAN;        // the dtype's datasheet peak (its fastest unit), 1e9 FLOP/s
  double peak_gbs = NAN;           // the spec's DRAM bandwidth, 1e9 B/s
  double peak_fraction = NAN;      // GEMM: gflops / peak_gflops; GEMV: gbs / peak_gbs
  double copy_gbs = NAN;           // device copy bandwidth measured in the same run, 1e9 B/s
  double bw_fraction = NAN;        // GEMV: gbs / copy_gbs
  // correctness against the reference impl of the same run
  std::string check_ref;  // the impl this row was compared with
  double rel_err = NAN;   // ||out - ref||_F / ||ref||_F
  double tol = NAN;
  std::string check;       // "ok", "MISMATCH", "ref" (this row is the reference) or "-"
  double out_norm = NAN;   // ||out||_F of the check run, for cross-program checks
  double out_probe = NAN;  // sum_i probe_weight(i) out_i of the check run
};

inline std::vector<std::string> csv_columns() {
  return {"op",
          "trans",
          "shape",
          "m",
          "n",
          "k",
          "dtype",
          "impl",
          "math",
          "config",
          "alpha",
          "beta",
          "median_ms",
          "min_ms",
          "max_ms",
          "samples",
          "calls_per_sample",
          "buffer_sets",
          "rotate_bytes",
          "gflops",
          "gbs",
          "ratio_vendor",
          "ratio_kk",
          "intensity_flop_per_byte",
          "attainable_gflops",
          "ridge_flop_per_byte",
          "bound",
          "efficiency",
          "tile_intensity_flop_per_byte",
          "peak_gflops",
          "peak_gbs",
          "peak_fraction",
          "copy_gbs",
          "bw_fraction",
          "check_ref",
          "rel_err",
          "tol",
          "check",
          "out_norm",
          "out_probe",
          "device",
          "backend",
          "kokkos",
          "git_sha",
          "date_utc",
          "command"};
}

namespace detail {
inline std::string csv_quote(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string r = "\"";
  for (char c : s) {
    if (c == '"') r += '"';
    r += c;
  }
  return r + "\"";
}

inline std::string csv_num(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// Probes and norms are compared across programs; keep every digit.
inline std::string csv_exact(double v) {
  if (!std::isfinite(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
}  // namespace detail

inline void write_csv_header(std::ostream& out) {
  const auto cols = csv_columns();
  for (std::size_t i = 0; i < cols.size(); ++i) out << (i ? "," : "") << cols[i];
  out << "\n";
}

inline void write_csv_row(std::ostream& out, const PerfRecord& r, const RunInfo& info) {
  using detail::csv_exact;
  using detail::csv_num;
  using detail::csv_quote;
  const ShapeSpec& s = r.shape;
  const std::vector<std::string> f = {op_name(s.op),
                                      s.trans,
                                      shape_string(s),
                                      std::to_string(s.m),
                                      std::to_string(s.n),
                                      std::to_string(s.k),
                                      precision_name(s.precision),
                                      r.impl,
                                      r.math,
                                      csv_quote(r.config),
                                      csv_num(r.alpha),
                                      csv_num(r.beta),
                                      csv_num(r.median_ms),
                                      csv_num(r.min_ms),
                                      csv_num(r.max_ms),
                                      std::to_string(r.samples),
                                      std::to_string(r.calls_per_sample),
                                      std::to_string(r.buffer_sets),
                                      csv_num(r.rotate_bytes),
                                      csv_num(r.gflops),
                                      csv_num(r.gbs),
                                      csv_num(r.ratio_vendor),
                                      csv_num(r.ratio_kk),
                                      csv_num(r.intensity),
                                      csv_num(r.attainable_gflops),
                                      csv_num(r.ridge),
                                      r.bound,
                                      csv_num(r.efficiency),
                                      csv_num(r.tile_intensity),
                                      csv_num(r.peak_gflops),
                                      csv_num(r.peak_gbs),
                                      csv_num(r.peak_fraction),
                                      csv_num(r.copy_gbs),
                                      csv_num(r.bw_fraction),
                                      csv_quote(r.check_ref),
                                      csv_num(r.rel_err),
                                      csv_num(r.tol),
                                      r.check,
                                      csv_exact(r.out_norm),
                                      csv_exact(r.out_probe),
                                      csv_quote(info.device),
                                      csv_quote(info.backend),
                                      csv_quote(info.kokkos),
                                      csv_quote(info.git_sha),
                                      info.date_utc,
                                      csv_quote(info.command)};
  for (std::size_t i = 0; i < f.size(); ++i) out << (i ? "," : "") << f[i];
  out << "\n";
}

// Ideal-model bytes for GB/s in programs that do not link the roofline module (cuBLAS), and for the
// mixed-width (16-bit in, float out) rows everywhere: every input read once, the output written once
// and read once more when beta != 0. The roofline module's gemm_ideal/gemv_ideal is the authority
// inside ridgeline-perf for rows of one element type; for those the two agree (square GEMV included).
// A batch moves each of its matrices once: batch times one product's bytes.
inline double ideal_bytes(const ShapeSpec& s, bool beta_nonzero) {
  const double ei = s.in_bytes(), eo = s.out_bytes();
  if (s.op == Op::gemm)
    return double(s.batch) *
           (ei * (double(s.m) * s.k + double(s.k) * s.n) + eo * double(s.m) * s.n * (beta_nonzero ? 2 : 1));
  return ei * (double(s.m) * s.n + double(s.x_len())) + eo * double(s.y_len()) * (beta_nonzero ? 2 : 1);
}

}  // namespace ridgeline_perf
