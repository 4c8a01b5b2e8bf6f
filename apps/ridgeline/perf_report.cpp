#include "perf_report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "ridgeline/roofline.hpp"

namespace ridgeline {
namespace cli {

namespace {

using Json = nlohmann::json;

std::string str(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A JSON number, or 0 for null/absent (ridgeline-perf writes null for "no value").
double number(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string fixed(double v, int digits) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(digits);
  os << v;
  return os.str();
}

// Three significant figures without exponent for the magnitudes of a perf table.
std::string sig3(double v) {
  if (!(v > 0)) return "-";
  const int digits = v >= 100 ? 0 : v >= 10 ? 1 : v >= 1 ? 2 : 3;
  return fixed(v, digits);
}

std::string ratio(double v) {
  return v > 0 ? fixed(v, 3) : "-";
}

std::string cell(std::string s) {
  for (auto& c : s)
    if (c == '|') c = '/';
  return s.empty() ? "-" : s;
}

// fp16/bf16/tf32 multiply-add in FP32 on the vector units.
DType vector_dtype(DType d) {
  return d == DType::fp64 ? DType::fp64 : DType::fp32;
}

// The measured ceilings as rows of the Ceilings table, each saying how it was measured and against
// what share of the spec's figure.
void add_measured_rows(PerfRun& run) {
  const auto& c = run.measured;
  for (const auto& r : c.roofs) {
    const bool bw = r.kind == "bandwidth";
    std::string source = "measured ceilings (`ridgeline ceilings` " + c.mode + ", " + c.date_utc + ", git " +
                         c.git_sha + "; " + run.measured_origin + ")";
    if (r.spec_value > 0)
      source += "; " + fixed(r.percent_of_spec(), 1) + "% of the " + r.spec_source + " figure";
    run.ceilings.push_back({bw ? r.label : to_string(r.dtype) + " " + to_string(r.unit) + ", " + r.kernel,
                            r.value / 1e9, bw ? "GB/s" : "GFLOP/s", source});
  }
  for (const auto& a : c.absent) run.ceilings.push_back({a.what, 0, "", "not measured: " + a.why});
}

}  // namespace

PerfRun parse_perf_json(const std::string& text, const std::string& origin) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::exception& e) {
    throw std::runtime_error(origin + ": not JSON: " + e.what());
  }
  if (!j.is_object() || !j.contains("metadata") || !j.contains("rows") || !j["rows"].is_array())
    throw std::runtime_error(origin + ": expected ridgeline-perf --json output (metadata and rows)");
  const Json& m = j["metadata"];
  if (!m.contains("spec")) throw std::runtime_error(origin + ": metadata has no device spec (spec)");
  PerfRun run;
  run.json_path = origin;
  run.command = str(m, "command");
  run.git_sha = str(m, "git_sha");
  run.date_utc = str(m, "date_utc");
  run.device = str(m, "device");
  run.backend = str(m, "exec_space");
  run.kokkos = str(m, "kokkos");
  run.vendor = str(m, "vendor_baseline");
  run.spec = parse_device_spec_json(m["spec"].dump(), origin + ": metadata.spec");
  int point = 0;
  for (const Json& r : j["rows"]) {
    PerfRow row;
    row.op = str(r, "op");
    row.trans = str(r, "trans");
    row.shape = str(r, "shape");
    row.dtype = str(r, "dtype");
    row.impl = str(r, "impl");
    row.check = str(r, "check");
    row.bound = str(r, "bound");
    row.median_ms = number(r, "median_ms");
    row.gflops = number(r, "gflops");
    row.gbs = number(r, "gbs");
    row.ratio_vendor = number(r, "ratio_vendor");
    row.ratio_kk = number(r, "ratio_kk");
    row.intensity = number(r, "intensity_flop_per_byte");
    row.ridge = number(r, "ridge_flop_per_byte");
    row.efficiency = number(r, "efficiency");
    if (row.intensity > 0 && row.gflops > 0) row.point = ++point;
    run.rows.push_back(row);
  }
  // The roofs of the spec the run used (its JSON copy: on a host, DRAM is the run's measured copy).
  const std::string spec_source =
      run.spec.estimated ? "estimated (" + run.spec.source + ")" : "datasheet: " + run.spec.source;
  for (const RoofSelection& r : perf_roofs(run))
    run.ceilings.push_back({to_string(r.dtype) + " " + to_string(r.unit),
                            run.spec.peak_flops(r.dtype, r.unit) / 1e9, "GFLOP/s", spec_source});
  run.ceilings.push_back(
      {"DRAM", run.spec.dram_bw_bytes_per_s / 1e9, "GB/s",
       run.spec.estimated ? "measured in this run (copy kernel; see the run's header)" : spec_source});
  if (m.contains("ceilings") && m["ceilings"].is_object()) {
    run.measured = ceilings::parse_device_ceilings(m["ceilings"].dump(), origin + ": metadata.ceilings");
    run.has_measured = true;
    run.measured_origin = "copied into the run's JSON by ridgeline-perf";
    add_measured_rows(run);
  }
  return run;
}

bool attach_saved_ceilings(PerfRun& run, const std::string& path) {
  if (run.has_measured) return true;
  if (path.empty() || path == "none") return false;
  const ceilings::CeilingsFile file = ceilings::load_ceilings_file(path);
  const ceilings::DeviceCeilings* c = ceilings::find_ceilings(file, run.spec.name, run.spec.key, run.backend);
  if (!c) return false;
  run.measured = *c;
  run.has_measured = true;
  run.measured_origin = "saved in " + path;
  add_measured_rows(run);
  return true;
}

PerfRun load_perf_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_perf_json(ss.str(), path);
}

std::vector<MeasuredPoint> perf_points(const PerfRun& run) {
  std::vector<MeasuredPoint> pts;
  for (const auto& r : run.rows)
    if (r.point > 0)
      pts.push_back({r.op + ":" + r.trans + ":" + r.shape + ":" + r.dtype, r.intensity, r.gflops, r.impl});
  return pts;
}

std::vector<RoofSelection> perf_roofs(const PerfRun& run) {
  std::vector<RoofSelection> roofs;
  auto add = [&](RoofSelection want) {
    for (const auto& have : roofs)
      if (have.dtype == want.dtype && have.unit == want.unit) return;
    if (run.spec.peak_flops(want.dtype, want.unit) > 0) roofs.push_back(want);
  };
  for (const auto& r : run.rows) {
    if (r.point == 0) continue;
    DType d;
    try {
      d = parse_dtype(r.dtype);
    } catch (const std::invalid_argument&) {
      continue;
    }
    add({vector_dtype(d), Unit::vector});
    // A row judged against the matrix unit (its ridge is the matrix roof's) adds that roof.
    const double bw = run.spec.dram_bw_bytes_per_s;
    const double matrix = run.spec.peak_flops(d, Unit::matrix);
    if (matrix > 0 && bw > 0 && r.ridge > 0 && std::fabs(matrix / bw - r.ridge) <= 1e-6 * r.ridge)
      add({d, Unit::matrix});
  }
  if (roofs.empty()) add({DType::fp64, Unit::vector});
  return roofs;
}

std::string perf_report_markdown(const PerfRun& run, const std::string& plot_png,
                                 const std::string& plot_svg) {
  std::ostringstream os;
  os << "# Perf run: " << cell(run.device) << ", " << cell(run.date_utc) << ", git " << cell(run.git_sha)
     << "\n\n";
  os << "Written by `ridgeline report` from `" << std::filesystem::path(run.json_path).filename().string()
     << "`; every number below is copied from it.\n\n";
  os << "- command: `" << run.command << "`\n";
  os << "- exec space: " << cell(run.backend) << "; " << cell(run.kokkos) << "\n";
  os << "- vendor baseline: " << cell(run.vendor) << "\n\n";
  os << "## Roofline\n\n";
  if (!plot_png.empty()) os << "![Roofline of " << cell(run.device) << "](" << plot_png << ")\n\n";
  if (!plot_svg.empty()) os << "Vector version: [" << plot_svg << "](" << plot_svg << "). ";
  os << "Solid lines are the spec's roofs (" << (run.spec.estimated ? "an estimate" : "datasheet figures")
     << ")";
  if (run.has_measured)
    os << "; dashed lines are measured ceilings (`ridgeline ceilings`, " << run.measured.date_utc << ")";
  os << ", all listed under **Ceilings**; each point's number is its `#` in the table below.\n\n";
  os << "## Results\n\n";
  os << "| # | op | shape | dtype | implementation | median ms | GFLOP/s | GB/s | ÷ " << cell(run.vendor)
     << " | ÷ Kokkos Kernels | FLOP/B | roofline eff. | check |\n";
  os << "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : run.rows) {
    os << "| " << (r.point > 0 ? std::to_string(r.point) : "-") << " | " << cell(r.op) << " " << cell(r.trans)
       << " | " << cell(r.shape) << " | " << cell(r.dtype) << " | " << series_style(r.impl).title << " | "
       << (r.median_ms > 0 ? fixed(r.median_ms, 4) : "-") << " | " << sig3(r.gflops) << " | " << sig3(r.gbs)
       << " | " << ratio(r.ratio_vendor) << " | " << ratio(r.ratio_kk) << " | "
       << (r.intensity > 0 ? sig3(r.intensity) : "-") << " | "
       << (r.efficiency > 0 ? fixed(r.efficiency * 100, 1) + "%" : "-") << " | " << cell(r.check) << " |\n";
  }
  os << "\n## Ceilings\n\n";
  os << "| roof | figure | source |\n|---|---|---|\n";
  for (const auto& c : run.ceilings)
    os << "| " << cell(c.name) << " | " << (c.value > 0 ? sig3(c.value) + " " + c.unit : "-") << " | "
       << cell(c.source) << " |\n";
  const bool measured = std::any_of(run.ceilings.begin(), run.ceilings.end(), [](const Ceiling& c) {
    return c.source.rfind("measured ceilings", 0) == 0;
  });
  if (measured) {
    os << "\nMeasured ceilings: " << cell(run.measured.device) << " on Kokkos " << cell(run.measured.backend)
       << ", " << run.measured_origin << ". Bytes: " << run.measured.byte_counting << ".\n";
  } else {
    os << "\nMeasured ceilings: none for this run. The roofs above are the device spec's"
       << (run.spec.estimated ? " (an estimated host spec; DRAM is this run's copy bandwidth)" : "")
       << "; `ridgeline ceilings` measures this machine's, which then appear here beside them and dashed in "
          "the plot.\n";
  }
  return os.str();
}

ReportFiles write_perf_report(const std::string& json_path, const std::string& out_path,
                              const std::string& gnuplot, const std::string& ceilings_path) {
  PerfRun run = load_perf_json(json_path);
  attach_saved_ceilings(run, ceilings_path.empty() ? ceilings::default_ceilings_path() : ceilings_path);
  const std::filesystem::path out(out_path);
  const std::filesystem::path dir = out.has_parent_path() ? out.parent_path() : std::filesystem::path(".");
  ReportFiles files{out_path, (dir / "roofline.svg").string(), ""};
  PlotOptions po;
  po.title = "Roofline: " + run.device + " (" + run.backend + ")";
  po.gnuplot = gnuplot;
  if (run.has_measured) po.measured = measured_roof_lines(run.measured, 0);
  const PlotFiles plot = write_roofline_plot({run.spec}, perf_roofs(run), perf_points(run), files.svg, po);
  files.png = plot.png;
  std::ofstream f(out_path);
  if (!f || !(f << perf_report_markdown(run, "roofline.png", "roofline.svg")))
    throw std::runtime_error("cannot write '" + out_path + "'");
  return files;
}

}  // namespace cli
}  // namespace ridgeline
