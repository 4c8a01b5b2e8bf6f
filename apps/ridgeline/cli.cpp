#include "cli.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "ceilings_run.hpp"
#include "perf_report.hpp"
#include "ridgeline/ceilings.hpp"
#include "ridgeline/detect.hpp"
#include "ridgeline/library_info.hpp"
#include "ridgeline/process_affinity.hpp"
#include "ridgeline/roofline.hpp"
#include "ridgeline/roofline_plot.hpp"
#include "tune_run.hpp"

#ifndef RIDGELINE_CLI_GIT_SHA
#define RIDGELINE_CLI_GIT_SHA "unknown"
#endif

namespace ridgeline {
namespace cli {

namespace {

using Json = nlohmann::ordered_json;
namespace rl = roofline;

enum class Format { table, json, csv };

// ---- formatting -------------------------------------------------------------------------------------

std::string num(double v, int precision = 4) {
  std::ostringstream os;
  os << std::setprecision(precision) << v;
  return os.str();
}

std::string bytes_human(std::int64_t b) {
  if (b <= 0) return "-";
  if (b % (1024 * 1024) == 0) return std::to_string(b / (1024 * 1024)) + " MiB";
  if (b % 1024 == 0) return std::to_string(b / 1024) + " KiB";
  return std::to_string(b) + " B";
}

std::string tflops(double flops) {
  return flops > 0 ? num(flops / 1e12) : "-";
}

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  void print(std::ostream& os) const {
    std::vector<std::size_t> w(header.size(), 0);
    auto widen = [&](const std::vector<std::string>& r) {
      for (std::size_t i = 0; i < r.size() && i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
    };
    widen(header);
    for (const auto& r : rows) widen(r);
    auto line = [&](const std::vector<std::string>& r) {
      std::string s;
      for (std::size_t i = 0; i < r.size(); ++i) {
        s += r[i];
        if (i + 1 < r.size()) s += std::string(w[i] - r[i].size() + 2, ' ');
      }
      os << s << "\n";
    };
    line(header);
    std::size_t total = 0;
    for (auto x : w) total += x + 2;
    os << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
    for (const auto& r : rows) line(r);
  }
};

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void print_csv(std::ostream& os, const std::vector<std::string>& header,
               const std::vector<std::vector<std::string>>& rows) {
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size(); ++i) os << (i ? "," : "") << csv_cell(r[i]);
    os << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}

// One CSV record of key-value pairs, the keys as the header line.
void print_kv_csv(std::ostream& os, const std::vector<std::pair<std::string, std::string>>& kv) {
  std::vector<std::string> header, row;
  for (const auto& [k, v] : kv) {
    header.push_back(k);
    row.push_back(v);
  }
  print_csv(os, header, {row});
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// ---- specs ------------------------------------------------------------------------------------------

// Every field as text in full precision: the CSV form and the flat record of a spec.
std::vector<std::pair<std::string, std::string>> spec_record(const DeviceSpec& s) {
  auto full = [](double v) { return num(v, 10); };
  std::vector<std::pair<std::string, std::string>> r = {
      {"key", s.key},
      {"name", s.name},
      {"vendor", s.vendor},
      {"backend", s.backend},
      {"arch", s.arch},
      {"source", s.source},
      {"compute_units", std::to_string(s.compute_units)},
      {"boost_clock_ghz", full(s.boost_clock_ghz)},
      {"warp_width", std::to_string(s.warp_width)},
      {"max_team_scratch_bytes", std::to_string(s.max_team_scratch_bytes)},
      {"scratch_per_cu_bytes", std::to_string(s.scratch_per_cu_bytes)},
      {"l2_bytes", std::to_string(s.l2_bytes)},
      {"private_cache_bytes", std::to_string(s.private_cache_bytes)},
      {"memory_bytes", std::to_string(s.memory_bytes)},
      {"dram_bw_bytes_per_s", full(s.dram_bw_bytes_per_s)},
      {"l2_bw_bytes_per_s", full(s.l2_bw_bytes_per_s)},
      {"launch_overhead_s", full(s.launch_overhead_s)},
      {"estimated", s.estimated ? "true" : "false"},
  };
  for (DType d : kAllDTypes)
    for (Unit u : kAllUnits)
      r.push_back({"peak_" + to_string(d) + "_" + to_string(u), full(s.peak_flops(d, u))});
  r.push_back({"notes", s.notes});
  return r;
}

void print_spec_detail(std::ostream& os, const DeviceSpec& s) {
  os << s.name << "  [" << s.key;
  if (!s.aliases.empty()) os << "; also " << join(s.aliases, ", ");
  os << "]\n";
  Table t{{"field", "value"}, {}};
  t.rows.push_back({"vendor / backend / arch", s.vendor + " / " + s.backend + " / " + s.arch});
  t.rows.push_back({"source", s.source});
  t.rows.push_back({"compute units", std::to_string(s.compute_units) + " @ " + num(s.boost_clock_ghz) +
                                         " GHz boost, warp/wave width " + std::to_string(s.warp_width)});
  t.rows.push_back({"max team scratch (Kokkos cap)", bytes_human(s.max_team_scratch_bytes)});
  t.rows.push_back({"scratch per CU (hardware)", bytes_human(s.scratch_per_cu_bytes)});
  t.rows.push_back({"L2 / last-level cache", bytes_human(s.l2_bytes)});
  t.rows.push_back({"private cache per CU", bytes_human(s.private_cache_bytes)});
  t.rows.push_back({"memory", s.memory_bytes > 0 ? num(s.memory_bytes / 1e9) + " GB" : "-"});
  t.rows.push_back({"DRAM bandwidth", num(s.dram_bw_bytes_per_s / 1e12) + " TB/s"});
  t.rows.push_back(
      {"L2 bandwidth", s.l2_bw_bytes_per_s > 0 ? num(s.l2_bw_bytes_per_s / 1e12) + " TB/s" : "unpublished"});
  t.rows.push_back({"launch overhead", num(s.launch_overhead_s * 1e6) + " us"});
  t.rows.push_back({"estimated", s.estimated ? "yes (derived, not from a datasheet)" : "no"});
  t.print(os);
  os << "\n";
  Table p{{"dtype", "vector TFLOP/s", "matrix TFLOP/s", "ridge vector FLOP/B", "ridge matrix FLOP/B"}, {}};
  for (DType d : kAllDTypes) {
    std::vector<std::string> row = {to_string(d)};
    for (Unit u : kAllUnits) row.push_back(tflops(s.peak_flops(d, u)));
    for (Unit u : kAllUnits) {
      const double r = rl::ridge_point(s, d, u);
      row.push_back(r > 0 && std::isfinite(r) ? num(r) : "-");
    }
    p.rows.push_back(row);
  }
  p.print(os);
  if (!s.notes.empty()) os << "\nnotes: " << s.notes << "\n";
}

void print_spec_list(std::ostream& os, const std::vector<DeviceSpec>& specs) {
  Table t{{"key", "name", "backend", "arch", "units", "DRAM TB/s", "fp64 v/m", "fp32 v/m", "tf32 m",
           "fp16 v/m", "bf16 v/m"},
          {}};
  auto vm = [](const DeviceSpec& s, DType d) {
    return tflops(s.peak_flops(d, Unit::vector)) + "/" + tflops(s.peak_flops(d, Unit::matrix));
  };
  for (const auto& s : specs)
    t.rows.push_back({s.key, s.name, s.backend, s.arch, std::to_string(s.compute_units),
                      num(s.dram_bw_bytes_per_s / 1e12), vm(s, DType::fp64), vm(s, DType::fp32),
                      tflops(s.peak_flops(DType::tf32, Unit::matrix)), vm(s, DType::fp16),
                      vm(s, DType::bf16)});
  os << "Dense peaks in TFLOP/s (vector/matrix; - where the spec has no peak for the unit).\n";
  t.print(os);
  os << "\n`ridgeline spec NAME` shows one entry; `--json` writes it in the --file format.\n";
}

void emit_specs(std::ostream& os, const std::vector<DeviceSpec>& specs, Format f, bool list) {
  if (f == Format::json) {
    if (!list && specs.size() == 1) {
      os << device_spec_to_json(specs[0]) << "\n";
    } else {
      Json arr = Json::array();
      for (const auto& s : specs) arr.push_back(Json::parse(device_spec_to_json(s)));
      os << arr.dump(2) << "\n";
    }
  } else if (f == Format::csv) {
    std::vector<std::string> header;
    for (const auto& kv : spec_record(specs.front())) header.push_back(kv.first);
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : specs) {
      rows.emplace_back();
      for (const auto& kv : spec_record(s)) rows.back().push_back(kv.second);
    }
    print_csv(os, header, rows);
  } else if (list) {
    print_spec_list(os, specs);
  } else {
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (i) os << "\n";
      print_spec_detail(os, specs[i]);
    }
  }
}

// Only detection, `ceilings` and `tune` need Kokkos, and a CUDA/HIP Kokkos needs a GPU to initialize, so the
// other subcommands never touch it. Tests have initialized it already.
struct KokkosSession {
  bool here = !Kokkos::is_initialized();
  KokkosSession() {
    if (here) Kokkos::initialize();
  }
  ~KokkosSession() {
    if (here) Kokkos::finalize();
  }
  KokkosSession(const KokkosSession&) = delete;
  KokkosSession& operator=(const KokkosSession&) = delete;
};

DeviceSpec detect_running_device() {
  KokkosSession kokkos;
  return detect_device_spec<Kokkos::DefaultExecutionSpace>();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The saved ceilings of each spec: the entry of the same device (name, else key) whose Kokkos backend
// belongs to the spec's backend family. `path` "none" reads nothing.
struct SavedCeilings {
  std::string path;
  ceilings::CeilingsFile file;
  std::vector<int> index;  // per spec: its entry in file.entries, -1 for none
  const ceilings::DeviceCeilings* of(std::size_t spec) const {
    return index[spec] < 0 ? nullptr : &file.entries[static_cast<std::size_t>(index[spec])];
  }
  bool any() const {
    return std::any_of(index.begin(), index.end(), [](int i) { return i >= 0; });
  }
  std::vector<const ceilings::DeviceCeilings*> all() const {
    std::vector<const ceilings::DeviceCeilings*> v;
    for (std::size_t i = 0; i < index.size(); ++i) v.push_back(of(i));
    return v;
  }
  // "NVIDIA H200 SXM 141GB on Kokkos Cuda, 2026-12-02T11:38:17Z, git e25f322 (ceilings.json)"
  std::string describe(std::size_t spec) const {
    const auto* c = of(spec);
    return c->device + " on Kokkos " + c->backend + ", " + c->date_utc +
           (c->git_sha.empty() ? "" : ", git " + c->git_sha) + " (" + path + ")";
  }
};

SavedCeilings saved_ceilings(const std::vector<DeviceSpec>& specs, const std::string& path) {
  SavedCeilings saved{path, {}, std::vector<int>(specs.size(), -1)};
  if (path == "none") return saved;
  saved.file = ceilings::load_ceilings_file(path);
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (const auto* c =
            ceilings::find_ceilings(saved.file, specs[i].name, specs[i].key, "", specs[i].backend))
      saved.index[i] = static_cast<int>(c - saved.file.entries.data());
  return saved;
}

// The saved ceilings as dashed roofs for a plot. Says on `out` which were found.
std::vector<MeasuredRoofLine> saved_ceiling_lines(const std::vector<DeviceSpec>& specs,
                                                  const SavedCeilings& saved, std::ostream& out) {
  std::vector<MeasuredRoofLine> lines;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto* c = saved.of(i);
    if (!c) continue;
    out << "measured ceilings of " << specs[i].key << ": " << c->device << " on Kokkos " << c->backend << ", "
        << c->date_utc << " (" << saved.path << ")\n";
    for (const auto& l : measured_roof_lines(*c, i)) lines.push_back(l);
  }
  return lines;
}

// The plot `ridgeline ceilings --plot` draws: the spec's roofs of what was measured, and its matrix
// roofs (measured or not, so that a datasheet figure without a measurement still shows).
void plot_ceilings(const DeviceSpec& spec, const ceilings::DeviceCeilings& c, const std::string& path,
                   std::ostream& out) {
  std::vector<RoofSelection> roofs;
  for (Unit u : kAllUnits)
    for (DType d : kAllDTypes) {
      bool measured = false;
      for (const auto& r : c.roofs)
        measured = measured || (r.kind == "compute" && r.dtype == d && r.unit == u);
      if (measured || (u == Unit::matrix && spec.peak_flops(d, u) > 0)) roofs.push_back({d, u});
    }
  if (roofs.empty()) roofs.push_back({DType::fp64, Unit::vector});
  PlotOptions po;
  po.title = "Ceilings: " + c.device + " (" + c.backend + ")";
  po.measured = measured_roof_lines(c, 0);
  const PlotFiles files = write_roofline_plot({spec}, roofs, {}, path, po);
  out << "wrote " << files.output << (files.png.empty() ? "" : " and " + files.png) << "\n";
}

std::vector<DeviceSpec> resolve_all(const std::vector<std::string>& names) {
  std::vector<DeviceSpec> specs;
  for (const auto& n : names) specs.push_back(resolve_device_spec(n));
  return specs;
}

std::vector<DType> dtypes_of(const std::vector<std::string>& names) {
  std::vector<DType> out;
  for (const auto& n : names) out.push_back(parse_dtype(n));
  return out;
}

std::vector<Unit> units_of(const std::vector<std::string>& names) {
  std::vector<Unit> out;
  for (const auto& n : names) out.push_back(parse_unit(n));
  return out;
}

// ---- static estimates from a code-object report --------------------------------------------------------

// The architecture of a DeviceSpec that a code-object target stands for: LLVM 15, the HIP build's, has no
// gfx942, and the report takes gfx940 as its nearest CDNA3 target (scripts/hip_code_objects.py, CDNA3).
std::string spec_arch_of_target(const std::string& target) {
  return target == "gfx940" || target == "gfx941" ? "gfx942" : target;
}

struct StaticEstimates {
  std::string path;
  std::vector<rl::StaticEstimate> estimates;
  std::vector<std::string> targets;  // every target in the report with an MFMA static bound
};

// scripts/hip_code_objects.py --json FILE: per target and dtype, the lowest static bound (percent of the
// matrix peak) over the MFMA entries' kernels, as a StaticEstimate for every spec of that architecture. The
// lowest, because every MFMA entry the table may choose for a dtype allows at least that; `from` says the
// range.
StaticEstimates read_static_estimates(const std::string& path, const std::vector<DeviceSpec>& specs) {
  StaticEstimates out{path, {}, {}};
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open code-object report '" + path + "'");
  Json report;
  try {
    report = Json::parse(in);
  } catch (const Json::parse_error& e) {
    throw std::runtime_error("code-object report '" + path + "' is not JSON: " + e.what());
  }
  if (!report.is_object() || !report.contains("kernels") || !report["kernels"].is_array())
    throw std::runtime_error("'" + path +
                             "' is not a code-object report (scripts/hip_code_objects.py --json): "
                             "it has no \"kernels\" array");
  struct Range {
    double lo = 101, hi = -1;
    int count = 0;
  };
  std::map<std::pair<std::string, std::string>, Range> ranges;  // (target, dtype)
  for (const auto& k : report["kernels"]) {
    if (!k.is_object() || !k.value("mfma_entry", false)) continue;
    const auto sb = k.find("static_bound");
    if (sb == k.end() || !sb->is_object() || !sb->contains("percent_of_matrix_peak")) continue;
    const auto& pct = (*sb)["percent_of_matrix_peak"];
    if (!pct.is_number() || !k.contains("target") || !k.contains("dtype") || !k["dtype"].is_string())
      throw std::runtime_error("'" + path +
                               "': an MFMA kernel's static bound has no number, target or dtype");
    const double v = pct.get<double>();
    if (!(v > 0 && v <= 100))
      throw std::runtime_error("'" + path + "': a static bound of " + num(v) + "% of the matrix peak");
    Range& r = ranges[{k["target"].get<std::string>(), k["dtype"].get<std::string>()}];
    r.lo = std::min(r.lo, v);
    r.hi = std::max(r.hi, v);
    ++r.count;
  }
  if (ranges.empty())
    throw std::runtime_error("code-object report '" + path + "' has no MFMA kernel with a static bound");
  for (const auto& [key, r] : ranges) {
    const auto& [target, dtype] = key;
    if (std::find(out.targets.begin(), out.targets.end(), target) == out.targets.end())
      out.targets.push_back(target);
    const DType d = parse_dtype(dtype);
    const std::string from = path + ": " + target + " " + dtype + ", the lowest of " +
                             std::to_string(r.count) + " MFMA kernel" + (r.count == 1 ? "" : "s") + " (" +
                             num(r.lo, 3) + (r.hi > r.lo ? "-" + num(r.hi, 3) : "") + "% of the matrix peak)";
    for (std::size_t i = 0; i < specs.size(); ++i) {
      if (specs[i].arch.empty() || specs[i].arch != spec_arch_of_target(target)) continue;
      // Two targets of one architecture (gfx940 and gfx942): the lower bound stands.
      auto same = std::find_if(out.estimates.begin(), out.estimates.end(), [&](const rl::StaticEstimate& e) {
        return e.spec_index == i && e.dtype == d;
      });
      if (same == out.estimates.end())
        out.estimates.push_back({i, d, r.lo / 100, from});
      else if (r.lo / 100 < same->fraction)
        *same = {i, d, r.lo / 100, from};
    }
  }
  return out;
}

// ---- roofline compare -----------------------------------------------------------------------------------

// The fields of a compare row that have no value because it is out of range (a ridge that overflows
// a double, a count past kMaxCount), by their JSON/CSV names.
std::vector<std::string> out_of_range_fields(const rl::CompareRow& r) {
  std::vector<std::string> f;
  if (!r.available) return f;
  if (!std::isfinite(r.ridge)) f.push_back("ridge_flop_per_byte");
  if (r.gemm_n == rl::kOutOfRange) f.push_back("gemm_compute_bound_n");
  if (r.gemv_batch == rl::kOutOfRange) f.push_back("gemv_compute_bound_batch");
  return f;
}

// "datasheet" when every spec's figures come from a datasheet ("estimate" when all are estimates), else
// "spec": the line above the table then names each device's source.
std::string spec_rows_source(const std::vector<DeviceSpec>& specs) {
  const bool all_estimated =
      std::all_of(specs.begin(), specs.end(), [](const DeviceSpec& s) { return s.estimated; });
  const bool none_estimated =
      std::none_of(specs.begin(), specs.end(), [](const DeviceSpec& s) { return s.estimated; });
  return all_estimated ? "estimate" : none_estimated ? "datasheet" : "spec";
}

void emit_compare(std::ostream& os, const std::vector<DeviceSpec>& specs,
                  const std::vector<rl::CompareRow>& rows, rl::MemoryLevel level, Format f,
                  const SavedCeilings& saved, const StaticEstimates& est) {
  // Unavailable, not measured or out of range: "-" in the table, empty in CSV, null in JSON.
  auto has_count = [](const rl::CompareRow& r, std::int64_t v) { return r.available && v > 0; };
  auto has_ridge = [](const rl::CompareRow& r) {
    return r.available && r.ridge > 0 && std::isfinite(r.ridge);
  };
  // Which spec each row belongs to, by its device key.
  auto index_of = [&](const std::string& key) {
    std::size_t i = 0;
    while (i + 1 < specs.size() && specs[i].key != key) ++i;
    return i;
  };
  std::vector<std::size_t> spec_of;
  for (const auto& r : rows) spec_of.push_back(index_of(r.device));
  // What a measured row was measured on; empty for a spec row.
  auto measured_on = [&](std::size_t k) {
    return rows[k].source == "measured" ? saved.describe(spec_of[k]) : std::string();
  };
  if (f == Format::json) {
    Json arr = Json::array();
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto& r = rows[k];
      Json j;
      j["device"] = r.device;
      j["source"] = r.source;
      j["dtype"] = to_string(r.dtype);
      j["unit"] = to_string(r.unit);
      j["level"] = rl::to_string(level);
      j["available"] = r.available;
      j["peak_flops"] = r.peak_flops;
      j["bandwidth_bytes_per_s"] = r.bandwidth > 0 ? Json(r.bandwidth) : Json(nullptr);
      j["ridge_flop_per_byte"] = has_ridge(r) ? Json(r.ridge) : Json(nullptr);
      j["gemm_compute_bound_n"] = has_count(r, r.gemm_n) ? Json(r.gemm_n) : Json(nullptr);
      j["gemv_compute_bound_batch"] = has_count(r, r.gemv_batch) ? Json(r.gemv_batch) : Json(nullptr);
      j["measured_on"] = r.source == "measured" ? Json(measured_on(k)) : Json(nullptr);
      if (!r.estimated_from.empty()) j["estimated_from"] = r.estimated_from;
      j["out_of_range"] = out_of_range_fields(r);
      arr.push_back(j);
    }
    os << arr.dump(2) << "\n";
    return;
  }
  if (f == Format::csv) {
    std::vector<std::vector<std::string>> out;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const auto& r = rows[k];
      out.push_back({r.device, to_string(r.dtype), to_string(r.unit), rl::to_string(level), r.source,
                     measured_on(k), r.available ? "true" : "false", num(r.peak_flops, 10),
                     r.bandwidth > 0 ? num(r.bandwidth, 10) : "", has_ridge(r) ? num(r.ridge, 10) : "",
                     has_count(r, r.gemm_n) ? std::to_string(r.gemm_n) : "",
                     has_count(r, r.gemv_batch) ? std::to_string(r.gemv_batch) : "",
                     join(out_of_range_fields(r), " ")});
    }
    print_csv(os,
              {"device", "dtype", "unit", "level", "source", "measured_on", "available", "peak_flops",
               "bandwidth_bytes_per_s", "ridge_flop_per_byte", "gemm_compute_bound_n",
               "gemv_compute_bound_batch", "out_of_range"},
              out);
    return;
  }
  const ceilings::Level measured_level =
      level == rl::MemoryLevel::dram ? ceilings::Level::memory : ceilings::Level::cache;
  os << "Roofline at " << rl::to_string(level) << ":";
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto& s = specs[i];
    os << "  " << s.key << " " << num(rl::bandwidth(s, level) / 1e12) << " TB/s "
       << (s.estimated ? "estimate" : "datasheet");
    if (const auto* c = saved.of(i)) {
      const double bw = ceilings::level_bandwidth(*c, measured_level);
      os << (bw > 0 ? ", " + num(bw / 1e12) + " TB/s measured" : ", bandwidth not measured");
    }
  }
  os << "\n";
  for (std::size_t i = 0; i < specs.size(); ++i)
    if (saved.of(i)) os << "Measured (" << specs[i].key << "): " << saved.describe(i) << "\n";
  const std::string spec_source = spec_rows_source(specs);
  os << "source: where a row's figures come from: " << spec_source
     << (spec_source == "spec" ? " (each device's, as above)" : "")
     << (saved.any() ? "; measured: `ridgeline ceilings`, the fastest bandwidth at the level and the unit's "
                       "measured rate, on a line of its own where a rate was measured"
                     : "; no saved ceilings for these devices (`ridgeline ceilings` measures them)")
     << ".\nTF/s: dense peak; I*: ridge point [FLOP/B]; n*: smallest square GEMM n that is compute-bound;\n"
        "k*: GEMV batch (vectors sharing A) that is compute-bound. '-': the spec has no dense peak for\n"
        "that dtype on that unit, it was not measured, or the figure is out of range (n* or k* past "
        "2^53).\n";
  if (!est.path.empty()) {
    os << "static estimate: the matrix unit's rate that Ridgeline's MFMA kernels allow by their code "
          "objects\n"
          "(the K loop's issue rate if memory keeps up; the lowest over each dtype's kernels), as a share "
          "of\n"
          "the spec's peak, from "
       << est.path << " (targets " << join(est.targets, ", ")
       << ").\nNothing ran: an estimate, not a measurement.";
    if (est.estimates.empty()) os << " None of these devices is of those targets.";
    os << "\n";
  }
  os << "\n";
  Table t{{"dtype", "unit", "source"}, {}};
  for (const auto& s : specs)
    for (const char* col : {" TF/s", " I*", " n*", " k*"}) t.header.push_back(s.key + col);
  auto cells = [&](std::vector<std::string>& line, const rl::CompareRow* r) {
    if (!r) {
      line.insert(line.end(), 4, "-");
      return;
    }
    line.push_back(tflops(r->peak_flops));
    line.push_back(has_ridge(*r) ? num(r->ridge) : "-");
    line.push_back(has_count(*r, r->gemm_n) ? std::to_string(r->gemm_n) : "-");
    line.push_back(has_count(*r, r->gemv_batch) ? std::to_string(r->gemv_batch) : "-");
  };
  // One line of spec figures per dtype and unit, then one of measured figures when any device has them,
  // then one of static estimates where any device has one (each in its device's columns).
  std::size_t k = 0;
  while (k < rows.size()) {
    const std::string dtype = to_string(rows[k].dtype), unit = to_string(rows[k].unit);
    std::vector<std::string> line = {dtype, unit, spec_source};
    for (std::size_t i = 0; i < specs.size(); ++i) cells(line, &rows[k++]);
    t.rows.push_back(line);
    if (saved.any()) {
      line = {dtype, unit, "measured"};
      bool any_measured = false;
      for (std::size_t i = 0; i < specs.size(); ++i) {
        const rl::CompareRow* r = saved.of(i) ? &rows[k++] : nullptr;
        any_measured = any_measured || (r && r->available);
        cells(line, r);
      }
      // A line of dashes says nothing the JSON and CSV rows (available: false) do not.
      if (any_measured) t.rows.push_back(line);
    }
    std::vector<const rl::CompareRow*> estimated(specs.size(), nullptr);
    bool any_estimate = false;
    for (; k < rows.size() && rows[k].source == "static estimate"; ++k, any_estimate = true)
      estimated[spec_of[k]] = &rows[k];
    if (!any_estimate) continue;
    line = {dtype, unit, "static estimate"};
    for (std::size_t i = 0; i < specs.size(); ++i) cells(line, estimated[i]);
    t.rows.push_back(line);
  }
  t.print(os);
}

// ---- ledger -----------------------------------------------------------------------------------------

void emit_ledger(std::ostream& os, const rl::TileLedger& l, const DeviceSpec* device, Format f) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"tile", std::to_string(l.bm) + "x" + std::to_string(l.bn) + "x" + std::to_string(l.bk)},
      {"input_dtype", to_string(l.in)},
      {"accumulator_dtype", to_string(l.acc)},
      {"threads", std::to_string(l.threads)},
      {"stages", std::to_string(l.stages)},
      {"a_tile_bytes", std::to_string(l.a_tile_bytes)},
      {"b_tile_bytes", std::to_string(l.b_tile_bytes)},
      {"ab_stage_bytes", std::to_string(l.ab_stage_bytes)},
      {"staged_scratch_bytes", std::to_string(l.staged_bytes)},
      {"c_tile_bytes", std::to_string(l.c_tile_bytes)},
      {"flops_per_k_step", num(l.flops_per_k_step, 12)},
      {"flop_per_byte", num(l.flop_per_byte, 6)},
      {"accumulators_per_thread", std::to_string(l.accumulators_per_thread)},
      {"even_split", l.even_split ? "true" : "false"},
  };
  if (device) {
    kv.push_back({"device", device->key});
    kv.push_back({"max_team_scratch_bytes", std::to_string(device->max_team_scratch_bytes)});
    kv.push_back({"fits_team_scratch", l.staged_bytes <= device->max_team_scratch_bytes ? "true" : "false"});
    kv.push_back({"scratch_per_cu_bytes", std::to_string(device->scratch_per_cu_bytes)});
    const std::int64_t teams = l.staged_bytes > 0 ? device->scratch_per_cu_bytes / l.staged_bytes : 0;
    kv.push_back({"teams_per_cu_by_scratch", std::to_string(teams)});
  }
  kv.push_back({"note", l.note});
  if (f == Format::json) {
    Json j;
    for (const auto& [k, v] : kv) {
      // Numbers and booleans as JSON values, the rest as strings.
      if (v == "true" || v == "false") {
        j[k] = v == "true";
      } else if (!v.empty() && v.find_first_not_of("0123456789.e+-") == std::string::npos) {
        j[k] = std::strtod(v.c_str(), nullptr);
      } else {
        j[k] = v;
      }
    }
    os << j.dump(2) << "\n";
  } else if (f == Format::csv) {
    print_kv_csv(os, kv);
  } else {
    Table t{{"quantity", "value"}, {}};
    auto add = [&](const std::string& k, const std::string& v) { t.rows.push_back({k, v}); };
    add("tile BMxBNxBK", kv[0].second);
    add("input / accumulator", to_string(l.in) + " / " + to_string(l.acc));
    add("A tile (BMxBK)", std::to_string(l.a_tile_bytes) + " B");
    add("B tile (BKxBN)", std::to_string(l.b_tile_bytes) + " B");
    add("A + B per stage", std::to_string(l.ab_stage_bytes) + " B");
    add("stages", std::to_string(l.stages));
    add("staged scratch (stages x (A+B))", std::to_string(l.staged_bytes) + " B");
    add("C tile (BMxBN, accumulator)", std::to_string(l.c_tile_bytes) + " B (registers)");
    add("FLOPs per K step", num(l.flops_per_k_step, 12));
    add("FLOP/B vs A+B", num(l.flop_per_byte, 6));
    add("accumulators per thread", std::to_string(l.accumulators_per_thread) + " (" +
                                       std::to_string(l.threads) + " threads" +
                                       (l.even_split ? ")" : ", uneven split)"));
    if (device) {
      add("team scratch cap (" + device->key + ", Kokkos)",
          std::to_string(device->max_team_scratch_bytes) +
              " B: " + (l.staged_bytes <= device->max_team_scratch_bytes ? "fits" : "does NOT fit"));
      add("scratch per CU (" + device->key + ")", std::to_string(device->scratch_per_cu_bytes) + " B");
    }
    t.print(os);
    os << "\n" << l.note << "\n";
  }
}

// ---- eval -------------------------------------------------------------------------------------------

void emit_point(std::ostream& os, const DeviceSpec& s, DType d, Unit u, const rl::Traffic& t,
                const rl::Point& p, double seconds, Format f) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"device", s.key},
      {"dtype", to_string(d)},
      {"unit", to_string(u)},
      {"flops", num(t.flops, 12)},
      {"bytes", num(t.bytes, 12)},
      {"intensity_flop_per_byte", num(p.intensity, 6)},
      {"ridge_flop_per_byte", num(p.ridge, 6)},
      {"roof_flops", num(p.roof_flops, 6)},
      {"attainable_flops", num(p.attainable_flops, 6)},
      {"min_seconds", num(p.min_seconds, 6)},
      {"bound", rl::to_string(p.bound)},
  };
  if (seconds > 0) {
    kv.push_back({"seconds", num(seconds, 6)});
    kv.push_back({"achieved_flops", num(p.achieved_flops, 6)});
    kv.push_back({"efficiency", num(p.efficiency, 4)});
  }
  if (f == Format::json) {
    Json j;
    for (const auto& [k, v] : kv) {
      if (k == "device" || k == "dtype" || k == "unit" || k == "bound") {
        j[k] = v;
      } else {
        // strtod, not stod: a denormal figure is a number to print, not an out_of_range exception.
        j[k] = std::strtod(v.c_str(), nullptr);
      }
    }
    os << j.dump(2) << "\n";
  } else if (f == Format::csv) {
    print_kv_csv(os, kv);
  } else {
    Table tab{{"quantity", "value"}, {}};
    for (const auto& [k, v] : kv) tab.rows.push_back({k, v});
    tab.print(os);
  }
}

std::vector<MeasuredPoint> read_points_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open points file '" + path + "'");
  std::vector<MeasuredPoint> pts;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string c;
    while (std::getline(ss, c, ',')) cells.push_back(c);
    if (cells.size() != 3 && cells.size() != 4)
      throw std::runtime_error(path + ":" + std::to_string(lineno) +
                               ": expected label,intensity,gflops[,implementation]");
    try {
      // The optional fourth cell names the implementation (ridgeline, cublas, ...): the point's colour,
      // marker and legend entry, as in ridgeline perf's plots.
      pts.push_back({cells[0], std::stod(cells[1]), std::stod(cells[2]), cells.size() == 4 ? cells[3] : ""});
    } catch (const std::logic_error&) {
      if (pts.empty() && lineno == 1) continue;  // a header line
      throw std::runtime_error(path + ":" + std::to_string(lineno) +
                               ": intensity and gflops must be numbers");
    }
  }
  return pts;
}

void add_format_flags(CLI::App* cmd, bool* json, bool* csv) {
  auto* j = cmd->add_flag("--json", *json, "Write JSON instead of a table");
  auto* c = cmd->add_flag("--csv", *csv, "Write CSV instead of a table");
  j->excludes(c);
}

Format format_of(bool json, bool csv) {
  return json ? Format::json : csv ? Format::csv : Format::table;
}

}  // namespace

std::string perf_program() {
  if (const char* env = std::getenv("RIDGELINE_PERF_PROGRAM"); env && *env) return env;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = self.parent_path() / "ridgeline-perf";
    if (::access(beside.c_str(), X_OK) == 0) return beside.string();
  }
#if defined(RIDGELINE_PERF_BUILD_PATH)
  if (::access(RIDGELINE_PERF_BUILD_PATH, X_OK) == 0) return RIDGELINE_PERF_BUILD_PATH;
#endif
  return "ridgeline-perf";  // execvp searches PATH
}

int run_program(const std::string& program, const std::vector<std::string>& args, std::ostream& err) {
  std::vector<std::string> argv_s = {program};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    err << "ridgeline: error: cannot start '" << program << "'\n";
    return kExitError;
  }
  if (pid == 0) {
    ridgeline::restore_openmp_start_affinity();
    ::execvp(argv[0], argv.data());
    // 127, as a shell reports a program it cannot find; the parent explains.
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return kExitError;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  const int code = WEXITSTATUS(status);
  if (code == 127)
    err << "ridgeline: error: could not run '" << program
        << "' (ridgeline perf needs the perf suite: build target ridgeline_perf, install it beside "
           "ridgeline, "
           "or set RIDGELINE_PERF_PROGRAM)\n";
  return code;
}

TileShape parse_tile_shape(const std::string& s) {
  const auto e = parse_extents(s, 3);
  auto fits = [](std::int64_t v) { return v <= (1 << 20); };
  if (!fits(e[0]) || !fits(e[1]) || !fits(e[2])) throw std::invalid_argument("tile '" + s + "' is too large");
  return {static_cast<int>(e[0]), static_cast<int>(e[1]), static_cast<int>(e[2])};
}

std::vector<std::int64_t> parse_extents(const std::string& s, std::size_t count) {
  std::vector<std::int64_t> out;
  std::string cur;
  auto flush = [&] {
    if (cur.empty() || cur.find_first_not_of("0123456789") != std::string::npos || cur.size() > 15)
      throw std::invalid_argument("'" + s + "': expected " + std::to_string(count) +
                                  " positive integers separated by 'x'");
    out.push_back(std::stoll(cur));
    cur.clear();
  };
  for (char c : s) {
    if (c == 'x' || c == 'X' || c == ',') {
      flush();
    } else {
      cur += c;
    }
  }
  flush();
  if (out.size() != count || std::any_of(out.begin(), out.end(), [](std::int64_t v) { return v <= 0; }))
    throw std::invalid_argument("'" + s + "': expected " + std::to_string(count) +
                                " positive integers separated by 'x'");
  return out;
}

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  // Everything after `perf` is the suite's own command line (--help included), passed on untouched.
  if (!args.empty() && args[0] == "perf") {
    out.flush();
    return run_program(perf_program(), std::vector<std::string>(args.begin() + 1, args.end()), err);
  }
  CLI::App app{"Ridgeline: device specs, rooflines and tile ledgers for GEMM/GEMV.", "ridgeline"};
  app.require_subcommand(1);
  app.footer("Device names: " + join(known_device_names(), ", ") +
             ", or a path to a JSON spec (*.json).\n"
             "Examples:\n"
             "  ridgeline spec h200\n"
             "  ridgeline spec --detect --json > mygpu.json\n"
             "  ridgeline roofline compare h200 mi300x --dtype fp64,fp32,fp16\n"
             "  ridgeline roofline compare h200 mi300x --dtype fp64,fp16 --plot compare.svg\n"
             "  ridgeline roofline plot h200 mi300x --out roofline.svg\n"
             "  ridgeline ledger --tile 64x64x32 --dtype fp16 --acc fp32 --threads 128 --stages 2\n"
             "  ridgeline ceilings --quick\n"
             "  ridgeline perf --shapes quick-host --json run.json --plot roofline.svg\n"
             "  ridgeline report run.json --out report.md");

  // perf: listed here for --help; run() hands it to the suite before parsing.
  app.add_subcommand("perf", "Run the perf suite (ridgeline-perf; same options: `ridgeline perf --help`)")
      ->allow_extras();

  // report
  std::string rep_json, rep_out;
  auto* rep = app.add_subcommand(
      "report",
      "Markdown report of a perf run (table, roofline plot as SVG and PNG, ceilings) from its JSON");
  rep->add_option("json", rep_json, "The run's JSON (ridgeline perf --json)")->required();
  rep->add_option("--out,-o", rep_out,
                  "Report file (default: report.md beside the JSON); roofline.svg/.png "
                  "are written beside it");
  std::string rep_ceilings;
  rep->add_option("--ceilings", rep_ceilings,
                  "Saved ceilings to use when the JSON carries none (default: ridgeline ceilings' file; "
                  "'none': none)");

  // ceilings
  bool ceil_quick = false, ceil_no_save = false, ceil_json = false, ceil_show = false;
  std::string ceil_file, ceil_sha, ceil_plot;
  int ceil_reps = 0;
  auto* ceil = app.add_subcommand(
      "ceilings",
      "Measure this machine's ceilings on the build's default execution space (copy and triad bandwidth per "
      "memory level, vector FMA rates, the matrix units' rate) beside the spec's, and save them");
  ceil->add_flag("--quick", ceil_quick, "A few seconds in all: 5 reps of shorter runs (the main job's)");
  ceil->add_option("--file", ceil_file,
                   "Ceilings file (default: $RIDGELINE_CEILINGS, else "
                   "<$XDG_DATA_HOME or ~/.local/share>/ridgeline/ceilings.json)");
  ceil->add_flag("--no-save", ceil_no_save, "Print only; leave the file as it is");
  ceil->add_flag("--json", ceil_json, "Write the measured entry as JSON (progress goes to stderr)");
  ceil->add_flag("--show", ceil_show,
                 "Print the saved ceilings of every device and backend; measure nothing");
  ceil->add_option("--reps", ceil_reps, "Timed runs per roof (default 10; --quick 5)")
      ->check(CLI::Range(3, 1000));
  ceil->add_option("--plot", ceil_plot,
                   "Also write this device's roofline (.svg with a .png twin, .png, .pdf): spec roofs solid, "
                   "measured dashed");
  ceil->add_option("--git-sha", ceil_sha, "The sha to record (default: the build's)");
  std::vector<std::string> ceil_only;
  ceil->add_option("--only", ceil_only, "Measure only these: bandwidth, compute, matrix (comma-separated)")
      ->delimiter(',')
      ->check(CLI::IsMember({"bandwidth", "compute", "matrix"}));

  // tune
  TuneRunOptions tune_opt;
  bool tune_report = false, tune_dry = false;
  std::string tune_cache, tune_sha;
  auto* tune = app.add_subcommand(
      "tune",
      "Measure every plan this build can run each GEMM shape with on the default execution space, against "
      "the tile table's own, and cache the fastest (ridgeline::gemm then runs it for the shape's class)");
  tune->add_option("--shapes", tune_opt.shapes, "Shapes MxNxK (comma-separated)")->delimiter(',');
  tune->add_option("--dtype", tune_opt.dtypes, "fp32, fp64 (comma-separated; default fp32)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "fp64"}));
  tune->add_option("--trans", tune_opt.trans, "Transpose pairs NN, NT, TN, TT (comma-separated; default NN)")
      ->delimiter(',')
      ->check(CLI::IsMember({"NN", "NT", "TN", "TT"}));
  tune->add_option("--reps", tune_opt.reps, "Timed runs per candidate, median taken (default 10)")
      ->check(CLI::Range(1, 1000));
  tune->add_option("--warmup", tune_opt.warmup, "Untimed runs per candidate first (default 2)")
      ->check(CLI::Range(0, 100));
  tune->add_option("--min-gain", tune_opt.min_gain,
                   "A plan is cached only where the table's takes this many times its median (default 1.02)")
      ->check(CLI::Range(1.0, 100.0));
  tune->add_option(
      "--beta", tune_opt.beta,
      "The beta your calls pass (default 0): beta = 0 and beta != 0 are tuned and cached apart, as "
      "C is then read too; C is restored before every run either way");
  tune->add_option(
          "--slices", tune_opt.slices,
          "K slice counts to try each entry at besides its own plan's (comma-separated; default: the "
          "backend's tune_space.hpp)")
      ->delimiter(',')
      ->check(CLI::Range(1, 256));
  tune->add_option("--cache", tune_cache,
                   "Cache file (default: $RIDGELINE_TUNE_CACHE, else "
                   "<$XDG_CACHE_HOME or ~/.cache>/ridgeline/tune.json)");
  tune->add_flag("--dry-run", tune_dry, "Measure and print; leave the cache as it is");
  tune->add_flag("--report", tune_report,
                 "Print what the cache changes against the built-in table, with the measured gains; measure "
                 "nothing");
  tune->add_option("--git-sha", tune_sha, "The sha to record (default: the build's)");

  // spec
  std::vector<std::string> spec_names;
  bool spec_detect = false, spec_json = false, spec_csv = false;
  std::string spec_file;
  auto* spec =
      app.add_subcommand("spec", "Show built-in, detected or file device specs (none named: list all)");
  spec->add_option("name", spec_names, "Device name(s); see the list below");
  auto* detect_flag = spec->add_flag("--detect", spec_detect,
                                     "The device of Kokkos' default execution space (initializes Kokkos)");
  auto* file_opt = spec->add_option("--file", spec_file, "A JSON spec file (same fields as --json writes)");
  detect_flag->excludes(file_opt);
  add_format_flags(spec, &spec_json, &spec_csv);

  // roofline compare / plot / eval
  auto* roof = app.add_subcommand("roofline", "Roofline comparisons, plots and single-shape evaluations");
  roof->require_subcommand(1);
  std::vector<std::string> cmp_names, cmp_dtypes = {"fp64", "fp32", "tf32", "fp16", "bf16"},
                                      cmp_units = {"vector", "matrix"};
  std::string cmp_level = "dram";
  bool cmp_json = false, cmp_csv = false;
  auto* cmp = roof->add_subcommand("compare", "Ridge points and where each device turns compute-bound");
  cmp->add_option("devices", cmp_names, "Device names or spec files")->required();
  cmp->add_option("--dtype", cmp_dtypes, "Comma-separated dtypes")->delimiter(',')->capture_default_str();
  cmp->add_option("--unit", cmp_units, "Comma-separated units: vector, matrix")
      ->delimiter(',')
      ->capture_default_str();
  cmp->add_option("--level", cmp_level, "Memory level: dram or l2")->capture_default_str();
  add_format_flags(cmp, &cmp_json, &cmp_csv);
  std::string cmp_ceilings_file, cmp_plot, cmp_points, cmp_title;
  cmp->add_option(
      "--ceilings", cmp_ceilings_file,
      "Saved ceilings to report as measured rows (default: ridgeline ceilings' file; 'none': none)");
  cmp->add_option(
      "--plot", cmp_plot,
      "Also draw every device's roofs and ridge points in one figure (.svg with a .png twin, .png, "
      ".pdf): spec roofs solid, measured dashed, --estimates dotted");
  cmp->add_option(
      "--points", cmp_points,
      "With --plot: CSV of measured points (label,intensity[FLOP/B],GFLOP/s[,implementation]), as "
      "roofline plot's");
  cmp->add_option("--title", cmp_title, "With --plot: the plot's title (default: the devices compared)");
  std::string cmp_estimates;
  cmp->add_option(
      "--estimates", cmp_estimates,
      "A code-object report (scripts/hip_code_objects.py --json) whose MFMA kernels' static bounds "
      "add 'static estimate' matrix rows for the devices of its targets (AMD: no GPU needed)");

  std::vector<std::string> plot_names, plot_dtypes = {"fp64", "fp32", "fp16"},
                                       plot_units = {"vector", "matrix"};
  std::string plot_out, plot_level = "dram", plot_title = "Roofline", plot_points;
  auto* plot = roof->add_subcommand("plot", "Log-log roofline plot through gnuplot (.svg, .png or .pdf)");
  plot->add_option("devices", plot_names, "Device names or spec files")->required();
  plot->add_option("--out,-o", plot_out, "Output file; <out>.gp and <out>.dat are written beside it")
      ->required();
  plot->add_option("--dtype", plot_dtypes, "Comma-separated dtypes")->delimiter(',')->capture_default_str();
  plot->add_option("--unit", plot_units, "Comma-separated units")->delimiter(',')->capture_default_str();
  plot->add_option("--level", plot_level, "Memory level: dram or l2")->capture_default_str();
  plot->add_option("--title", plot_title, "Plot title")->capture_default_str();
  plot->add_option("--points", plot_points,
                   "CSV of measured points: label,intensity[FLOP/B],GFLOP/s[,implementation: ridgeline, "
                   "cublas, ...]");
  std::string plot_ceilings_file;
  plot->add_option("--ceilings", plot_ceilings_file,
                   "Saved ceilings to draw dashed (default: ridgeline ceilings' file; 'none': none)");

  std::string ev_name, ev_gemm, ev_gemv, ev_dtype = "fp32", ev_unit = "vector", ev_level = "dram", ev_tile;
  int ev_batch = 1, ev_launches = 1;
  bool ev_beta = false, ev_json = false, ev_csv = false;
  double ev_seconds = 0, ev_overhead = -1;
  auto* ev = roof->add_subcommand("eval", "Attainable performance and bound of one GEMM or GEMV shape");
  ev->add_option("device", ev_name, "Device name or spec file")->required();
  auto* gemm_opt = ev->add_option("--gemm", ev_gemm, "GEMM shape MxNxK");
  auto* gemv_opt = ev->add_option("--gemv", ev_gemv, "GEMV shape ROWSxCOLS");
  gemm_opt->excludes(gemv_opt);
  ev->add_option("--batch", ev_batch, "GEMV vectors sharing A")->capture_default_str();
  ev->add_option("--tile", ev_tile, "GEMM tile BMxBNxBK: use the tile-traffic model against the device L2");
  ev->add_option("--dtype", ev_dtype, "dtype")->capture_default_str();
  ev->add_option("--unit", ev_unit, "vector or matrix")->capture_default_str();
  ev->add_option("--level", ev_level, "Memory level: dram or l2")->capture_default_str();
  ev->add_flag("--beta", ev_beta, "beta != 0 (C is read too)");
  ev->add_option("--seconds", ev_seconds, "Measured time, for efficiency");
  ev->add_option("--launch-overhead", ev_overhead,
                 "Measured launch overhead in seconds (default: the spec's)");
  ev->add_option("--launches", ev_launches, "Kernel launches the operation takes")->capture_default_str();
  add_format_flags(ev, &ev_json, &ev_csv);

  // ledger
  std::string led_tile, led_dtype = "fp32", led_acc = "fp32", led_device;
  int led_threads = 0, led_stages = 1;
  bool led_json = false, led_csv = false;
  auto* led = app.add_subcommand("ledger", "Per-tile scratch ledger (a logical count)");
  led->add_option("--tile", led_tile, "Team tile BMxBNxBK, e.g. 64x64x32")->required();
  led->add_option("--dtype", led_dtype, "Input dtype of A and B")->capture_default_str();
  led->add_option("--acc", led_acc, "Accumulator dtype of C")->capture_default_str();
  led->add_option("--threads", led_threads, "Threads per team")->required();
  led->add_option("--stages", led_stages, "Scratch buffers for A/B (2 = double buffered)")
      ->capture_default_str();
  led->add_option("--device", led_device, "Check the staged bytes against a device's scratch");
  add_format_flags(led, &led_json, &led_csv);

  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }

  try {
    if (*rep) {
      if (rep_out.empty()) {
        const std::filesystem::path j(rep_json);
        rep_out =
            ((j.has_parent_path() ? j.parent_path() : std::filesystem::path(".")) / "report.md").string();
      }
      const ReportFiles files = write_perf_report(rep_json, rep_out, "", rep_ceilings);
      out << "wrote " << files.report << " (plot " << files.svg << ", " << files.png << ")\n";
    } else if (*ceil) {
      const std::string path = ceil_file.empty() ? ceilings::default_ceilings_path() : ceil_file;
      if (ceil_show) {
        const ceilings::CeilingsFile f = ceilings::load_ceilings_file(path);
        if (f.entries.empty()) out << "no ceilings saved in " << path << "\n";
        for (std::size_t i = 0; i < f.entries.size(); ++i)
          out << (i ? "\n" : "") << ceilings::ceilings_table(f.entries[i]);
        return kExitOk;
      }
      std::ostream& log = ceil_json ? err : out;
      ceilings::DeviceCeilings c;
      DeviceSpec device;
      {
        KokkosSession kokkos;
        device = detect_device_spec<Kokkos::DefaultExecutionSpace>();
        log << "ridgeline ceilings: " << device.name << " [" << device.source << "], Kokkos "
            << Kokkos::DefaultExecutionSpace::name() << ", " << (ceil_quick ? "quick" : "full") << " run\n"
            << std::flush;
        CeilingsOptions opt;
        opt.quick = ceil_quick;
        opt.reps = ceil_reps;
        if (!ceil_only.empty()) {
          auto on = [&](const char* w) {
            return std::find(ceil_only.begin(), ceil_only.end(), w) != ceil_only.end();
          };
          opt.bandwidth = on("bandwidth");
          opt.compute = on("compute");
          opt.matrix = on("matrix");
        }
        c = measure_ceilings(device, opt, log);
      }
      c.command = "ridgeline " + join(args, " ");
      c.git_sha = ceil_sha.empty() ? RIDGELINE_CLI_GIT_SHA : ceil_sha;
      c.date_utc = utc_now();
      c.kokkos = kokkos_description();
      if (ceil_json) {
        out << ceilings::to_json(c) << "\n";
      } else {
        out << "\n" << ceilings::ceilings_table(c);
      }
      if (!ceil_no_save) {
        ceilings::save_ceilings(c, path);
        log << "saved to " << path << " (entry " << c.device << ", " << c.backend << ")\n";
      }
      if (!ceil_plot.empty()) plot_ceilings(device, c, ceil_plot, log);
      for (const auto& r : c.roofs)
        if (r.check.rfind("MISMATCH", 0) == 0) {
          err << "ridgeline: error: " << r.label << ": " << r.check << "\n";
          return kExitError;
        }
    } else if (*tune) {
      const std::string path = tune_cache.empty() ? tune_cache_path() : tune_cache;
      if (path.empty() && (tune_report || !tune_dry))
        throw std::invalid_argument("no tune cache file: give --cache FILE (RIDGELINE_TUNE_CACHE is empty)");
      const auto load = [&] {
        std::error_code ec;
        return std::filesystem::exists(path, ec) ? TuneCache::load(path) : TuneCache{};
      };
      if (tune_report) {
        out << format_tune_report(load(), path);
        return kExitOk;
      }
      TuneCache cache = load();  // a file that does not parse stops here, before anything is measured
      std::vector<TuneOutcome> outcomes;
      {
        KokkosSession kokkos;
        out << "ridgeline tune: Kokkos " << Kokkos::DefaultExecutionSpace::name() << ", " << tune_opt.reps
            << " timed runs per candidate\n\n"
            << std::flush;
        outcomes = run_tune(tune_opt, out);
      }
      const std::string date = utc_now(), sha = tune_sha.empty() ? RIDGELINE_CLI_GIT_SHA : tune_sha;
      for (TuneOutcome& o : outcomes) {
        o.choice.date = date, o.choice.git_sha = sha;
        cache.set(o.key, o.choice);
      }
      if (!tune_dry) {
        cache.save(path);
        out << "\nsaved " << outcomes.size() << " choice" << (outcomes.size() == 1 ? "" : "s") << " to "
            << path << "\n";
      }
    } else if (*spec) {
      std::vector<DeviceSpec> specs;
      if (spec_detect) specs.push_back(detect_running_device());
      if (!spec_file.empty()) specs.push_back(load_device_spec_json(spec_file));
      for (const auto& s : resolve_all(spec_names)) specs.push_back(s);
      const bool list = specs.empty();
      if (list) {
        specs = builtin_device_specs();
        specs.push_back(find_device_spec("host"));
      }
      emit_specs(out, specs, format_of(spec_json, spec_csv), list);
    } else if (*cmp) {
      const auto specs = resolve_all(cmp_names);
      const auto level = rl::parse_memory_level(cmp_level);
      if (!cmp_points.empty() && cmp_plot.empty()) throw std::invalid_argument("--points needs --plot FILE");
      const SavedCeilings saved = saved_ceilings(
          specs, cmp_ceilings_file.empty() ? ceilings::default_ceilings_path() : cmp_ceilings_file);
      const auto dtypes = dtypes_of(cmp_dtypes);
      const auto units = units_of(cmp_units);
      const Format format = format_of(cmp_json, cmp_csv);
      const StaticEstimates est =
          cmp_estimates.empty() ? StaticEstimates{} : read_static_estimates(cmp_estimates, specs);
      emit_compare(out, specs, rl::compare(specs, dtypes, units, level, saved.all(), est.estimates), level,
                   format, saved, est);
      if (!cmp_plot.empty()) {
        // What the table compares, as one figure; the notes go to stderr where stdout is JSON or CSV.
        std::ostream& log = format == Format::table ? out : err;
        std::vector<RoofSelection> roofs;
        for (DType d : dtypes)
          for (Unit u : units) roofs.push_back({d, u});
        PlotOptions opt;
        // The default title says per device what its roofs are: datasheet (or estimate) only, or measured
        // beside them.
        std::ostringstream found;  // the table has said which ceilings were found already
        opt.measured = saved_ceiling_lines(specs, saved, found);
        // A static estimate of a dtype and unit the figure draws: a dotted roof at that share of the spec's
        // matrix peak, in that roof's colour.
        std::vector<bool> estimated(specs.size(), false);
        for (const auto& e : est.estimates) {
          if (std::find(dtypes.begin(), dtypes.end(), e.dtype) == dtypes.end() ||
              std::find(units.begin(), units.end(), Unit::matrix) == units.end())
            continue;
          MeasuredRoofLine m;
          m.spec_index = e.spec_index;
          m.dtype = e.dtype;
          m.unit = Unit::matrix;
          m.value = e.fraction * rl::peak(specs[e.spec_index], e.dtype, Unit::matrix) / 1e9;
          m.label = to_string(e.dtype) + " matrix, " + num(100 * e.fraction, 3) + "% of peak by code objects";
          m.estimate = true;
          opt.measured.push_back(m);
          estimated[e.spec_index] = true;
        }
        std::vector<std::string> who;
        for (std::size_t i = 0; i < specs.size(); ++i) {
          std::vector<std::string> kinds;
          if (saved.of(i)) kinds.push_back("measured dashed");
          if (estimated[i]) kinds.push_back("static estimate dotted");
          const std::string source = specs[i].estimated ? "estimate" : "datasheet";
          who.push_back(specs[i].key + " (" + source +
                        (kinds.empty() ? " only)" : " solid, " + join(kinds, ", ") + ")"));
        }
        opt.title = cmp_title.empty() ? "Roofline: " + join(who, " vs ") : cmp_title;
        opt.level = level;
        const auto points = cmp_points.empty() ? std::vector<MeasuredPoint>{} : read_points_csv(cmp_points);
        const PlotFiles files = write_roofline_plot(specs, roofs, points, cmp_plot, opt);
        log << (format == Format::table ? "\n" : "") << "wrote " << files.output
            << (files.png.empty() ? "" : " and " + files.png) << " (gnuplot script " << files.script << ")\n";
      }
    } else if (*plot) {
      const auto specs = resolve_all(plot_names);
      std::vector<RoofSelection> roofs;
      for (DType d : dtypes_of(plot_dtypes))
        for (Unit u : units_of(plot_units)) roofs.push_back({d, u});
      PlotOptions opt;
      opt.title = plot_title;
      opt.level = rl::parse_memory_level(plot_level);
      const auto points = plot_points.empty() ? std::vector<MeasuredPoint>{} : read_points_csv(plot_points);
      opt.measured = saved_ceiling_lines(
          specs,
          saved_ceilings(specs,
                         plot_ceilings_file.empty() ? ceilings::default_ceilings_path() : plot_ceilings_file),
          out);
      const PlotFiles files = write_roofline_plot(specs, roofs, points, plot_out, opt);
      out << "wrote " << files.output << " (gnuplot script " << files.script << ", data " << files.data
          << ")\n";
    } else if (*ev) {
      if (ev_gemm.empty() == ev_gemv.empty())
        throw std::invalid_argument("give one of --gemm MxNxK or --gemv RxC");
      const DeviceSpec s = resolve_device_spec(ev_name);
      const DType d = parse_dtype(ev_dtype);
      const Unit u = parse_unit(ev_unit);
      rl::Traffic t;
      if (!ev_gemm.empty()) {
        const auto e = parse_extents(ev_gemm, 3);
        if (!ev_tile.empty()) {
          const TileShape ts = parse_tile_shape(ev_tile);
          TileConfig tc;
          tc.bm = ts.bm;
          tc.bn = ts.bn;
          tc.bk = ts.bk;
          t = rl::gemm_tile_traffic(e[0], e[1], e[2], dtype_bytes(d), ev_beta, tc,
                                    static_cast<double>(s.l2_bytes));
        } else {
          t = rl::gemm_ideal(e[0], e[1], e[2], dtype_bytes(d), ev_beta);
        }
      } else {
        const auto e = parse_extents(ev_gemv, 2);
        t = rl::gemv_ideal(e[0], e[1], dtype_bytes(d), ev_beta, ev_batch);
      }
      rl::EvalOptions opt;
      opt.level = rl::parse_memory_level(ev_level);
      opt.launch_overhead_s = ev_overhead;
      opt.launches = ev_launches;
      emit_point(out, s, d, u, t, rl::evaluate(s, d, u, t, ev_seconds, opt), ev_seconds,
                 format_of(ev_json, ev_csv));
    } else if (*led) {
      const TileShape ts = parse_tile_shape(led_tile);
      const auto ledger = rl::tile_ledger(ts.bm, ts.bn, ts.bk, parse_dtype(led_dtype), parse_dtype(led_acc),
                                          led_threads, led_stages);
      DeviceSpec device;
      if (!led_device.empty()) device = resolve_device_spec(led_device);
      emit_ledger(out, ledger, led_device.empty() ? nullptr : &device, format_of(led_json, led_csv));
    }
  } catch (const std::exception& e) {
    err << "ridgeline: error: " << e.what() << "\n";
    return kExitError;
  }
  return kExitOk;
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return run(args, std::cout, std::cerr);
}

}  // namespace cli
}  // namespace ridgeline
