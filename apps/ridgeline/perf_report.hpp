#pragma once
// One Markdown report per perf run: the roofline plot, the results table keyed to the plot's numbered
// points, and the ceilings the run was judged against. Every number is read from the run's JSON
// (ridgeline-perf --json), so the report can be rewritten from a recorded run at any time.
#include <ridgeline/ceilings.hpp>
#include <ridgeline/device_spec.hpp>
#include <ridgeline/roofline_plot.hpp>
#include <string>
#include <vector>

namespace ridgeline {
namespace cli {

struct PerfRow {
  std::string op, trans, shape, dtype, impl, check, bound;
  double median_ms = 0, gflops = 0, gbs = 0, ratio_vendor = 0, ratio_kk = 0;  // 0: none in the JSON
  double intensity = 0, ridge = 0, efficiency = 0;
  int point = 0;  // its number on the plot; 0: not plotted (no intensity or no rate)
};

// A roof the run was judged against, or a measured ceiling beside them. source says where the figure
// comes from: "datasheet: ..." , "estimated (...)" (a derived host spec), "measured in this run ...",
// "measured ceilings (...)" (`ridgeline ceilings`); the report and plot show both kinds.
struct Ceiling {
  std::string name;  // "fp64 vector", "DRAM"
  double value = 0;
  std::string unit;  // "GFLOP/s", "GB/s"
  std::string source;
};

struct PerfRun {
  std::string json_path, command, git_sha, date_utc, device, backend, kokkos, vendor;
  DeviceSpec spec;
  std::vector<PerfRow> rows;
  std::vector<Ceiling> ceilings;
  // Measured ceilings of the run's device and backend: the ones ridgeline-perf copied into its JSON
  // (metadata.ceilings), else a saved set (attach_saved_ceilings). measured_origin says which.
  bool has_measured = false;
  ceilings::DeviceCeilings measured;
  std::string measured_origin;
};

// Parses ridgeline-perf's JSON (metadata + rows); throws std::runtime_error naming what is missing.
PerfRun parse_perf_json(const std::string& text, const std::string& origin);
PerfRun load_perf_json(const std::string& path);
// A run whose JSON carries no measured ceilings takes the saved ones of its device and backend from the
// ceilings file at `path` (ceilings::default_ceilings_path() by default), if there are any; their rows
// join run.ceilings. Returns whether the run has measured ceilings now.
bool attach_saved_ceilings(PerfRun&, const std::string& path);

// The plot's inputs: numbered points (rows with a rate and an intensity, in row order, series = impl)
// and the roofs their rows were judged against.
std::vector<MeasuredPoint> perf_points(const PerfRun&);
std::vector<RoofSelection> perf_roofs(const PerfRun&);

// The Markdown. plot_png / plot_svg: paths relative to the report (empty: no plot section image).
std::string perf_report_markdown(const PerfRun&, const std::string& plot_png, const std::string& plot_svg);

struct ReportFiles {
  std::string report, svg, png;
};
// Writes <out> and roofline.svg/.png beside it (through gnuplot); gnuplot may be "" for the default.
// ceilings_path: the saved ceilings consulted when the JSON carries none ("" for the default path,
// "none" for no file).
ReportFiles write_perf_report(const std::string& json_path, const std::string& out_path,
                              const std::string& gnuplot = "", const std::string& ceilings_path = "");

}  // namespace cli
}  // namespace ridgeline
