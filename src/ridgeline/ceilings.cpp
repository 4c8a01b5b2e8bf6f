#include "ridgeline/ceilings.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace ridgeline {
namespace ceilings {

namespace {

using Json = nlohmann::ordered_json;

constexpr std::int64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;

std::string normalize(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

std::string sig(double v, int digits = 3) {
  std::ostringstream os;
  os << std::setprecision(digits) << v;
  return os.str();
}

}  // namespace

// ---- bandwidth ----------------------------------------------------------------------------------------

std::string to_string(Level l) {
  switch (l) {
    case Level::scratch:
      return "scratch";
    case Level::cache:
      return "cache";
    case Level::memory:
      return "memory";
  }
  return "?";
}

std::string to_string(StreamKernel k) {
  return k == StreamKernel::copy ? "copy" : "triad";
}

int stream_arrays(StreamKernel k) {
  return k == StreamKernel::copy ? 2 : 3;
}

int stream_bytes_per_element(StreamKernel k, int elem_bytes, bool write_allocate) {
  // Both kernels store one array; a write-allocate cache first reads the stored line.
  return (stream_arrays(k) + (write_allocate ? 1 : 0)) * elem_bytes;
}

double stream_bytes(StreamKernel k, std::int64_t elements, std::int64_t passes, int elem_bytes) {
  return static_cast<double>(stream_bytes_per_element(k, elem_bytes)) * static_cast<double>(elements) *
         static_cast<double>(passes);
}

std::string bytes_text(double b) {
  // Three significant figures, never an exponent: 1016 MiB, 24 KiB, 1.98 GiB.
  auto fmt = [](double v, const char* unit) {
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(v >= 100 ? 0 : v >= 10 ? 1 : 2);
    os << v;
    std::string t = os.str();
    if (t.find('.') != std::string::npos) {
      t.erase(t.find_last_not_of('0') + 1);
      if (t.back() == '.') t.pop_back();
    }
    return t + " " + unit;
  };
  if (b >= kGiB) return fmt(b / kGiB, "GiB");
  if (b >= kMiB) return fmt(b / kMiB, "MiB");
  if (b >= kKiB) return fmt(b / kKiB, "KiB");
  return fmt(b, "B");
}

std::vector<LevelPlan> plan_levels(const DeviceSpec& s, int concurrency, bool quick) {
  const bool host = s.backend == "host";
  const int units = std::max(1, s.compute_units);
  const int threads = std::max(1, concurrency);
  // GPU teams: 256 threads, 8 per compute unit for the global-memory levels, which keeps every SM/CU
  // full without relying on one launch's occupancy rules.
  constexpr int kDeviceTeamSize = 256, kDeviceTeamsPerUnit = 8;
  std::vector<LevelPlan> out;

  if (s.max_team_scratch_bytes > 0) {
    LevelPlan p;
    p.level = Level::scratch;
    // Half the L1 / shared memory, so the team's arrays stay resident beside whatever else is there,
    // and 1 KiB under Kokkos's cap, which also holds each scratch view's alignment padding; whole 4 KiB.
    std::int64_t per_team = s.max_team_scratch_bytes - kKiB;
    if (s.scratch_per_cu_bytes > 0) per_team = std::min(per_team, s.scratch_per_cu_bytes / 2);
    per_team = std::max<std::int64_t>(4 * kKiB, per_team / (4 * kKiB) * (4 * kKiB));
    const std::string sizes =
        "min(Kokkos team scratch cap " + bytes_text(double(s.max_team_scratch_bytes)) +
        (s.scratch_per_cu_bytes > 0 ? ", " + bytes_text(double(s.scratch_per_cu_bytes)) +
                                          (host ? " L1d" : " scratch per CU") + " / 2)"
                                    : ")");
    if (host) {
      p.teams = threads;
      p.team_size = 1;
      p.residence = "L1-resident";
      p.why = sizes + " per team, one team per thread";
    } else {
      const std::int64_t fit = s.scratch_per_cu_bytes > 0 ? s.scratch_per_cu_bytes / per_team : 1;
      const int per_unit = static_cast<int>(std::clamp<std::int64_t>(fit, 1, 8));
      p.teams = units * per_unit;
      p.team_size = kDeviceTeamSize;
      p.residence = "shared memory";
      p.why = sizes + " per team, " + std::to_string(per_unit) + " teams per CU";
    }
    p.working_set_bytes = per_team * p.teams;
    out.push_back(p);
  }

  if (s.l2_bytes > 0) {
    LevelPlan p;
    p.level = Level::cache;
    if (host) {
      const std::int64_t private_total = s.private_cache_bytes * units;
      if (private_total > 0) {
        p.working_set_bytes = std::min(4 * private_total, s.l2_bytes / 2);
        p.why = "4 x the cores' private caches (" + std::to_string(units) + " x " +
                bytes_text(double(s.private_cache_bytes)) + "), at most half the LLC (" +
                bytes_text(double(s.l2_bytes)) + ")";
        if (p.working_set_bytes < 2 * private_total)
          p.why +=
              "; the LLC is not much larger than the private caches, so part of this may be core-private";
      } else {
        p.working_set_bytes = s.l2_bytes / 4;
        p.why = "a quarter of the LLC (" + bytes_text(double(s.l2_bytes)) + "; private cache size unknown)";
      }
      p.teams = threads;
      p.team_size = 1;
      p.residence = "LLC-resident";
    } else {
      // A quarter: GPUs with a partitioned L2 (Hopper's two halves) keep it near the SMs' own half.
      p.working_set_bytes = s.l2_bytes / 4;
      p.why = "a quarter of the L2 (" + bytes_text(double(s.l2_bytes)) +
              "); each pass moves every team onto another team's chunk, so no SM's L1 holds what it reads";
      p.teams = units * kDeviceTeamsPerUnit;
      p.team_size = kDeviceTeamSize;
      p.rotate = true;
      p.residence = "L2-resident";
    }
    out.push_back(p);
  }

  {
    LevelPlan p;
    p.level = Level::memory;
    const std::int64_t cache = std::max<std::int64_t>(s.l2_bytes, 0);
    if (host) {
      const int times = quick ? 2 : 4;
      p.working_set_bytes = std::max(times * cache, 256 * kMiB);
      p.why = std::to_string(times) + " x the LLC (" + bytes_text(double(cache)) + "), at least 256 MiB";
      p.teams = threads;
      p.team_size = 1;
      p.residence = "DRAM";
    } else {
      const int times = quick ? 4 : 8;
      p.working_set_bytes = std::max(times * cache, kGiB);
      p.why = std::to_string(times) + " x the L2 (" + bytes_text(double(cache)) + "), at least 1 GiB";
      p.teams = units * kDeviceTeamsPerUnit;
      p.team_size = kDeviceTeamSize;
      p.residence = "device memory";
    }
    if (s.memory_bytes > 0 && p.working_set_bytes > s.memory_bytes / 4) {
      p.working_set_bytes = s.memory_bytes / 4;
      p.why += ", capped at a quarter of the memory";
    }
    out.push_back(p);
  }
  return out;
}

std::int64_t elements_per_team(const LevelPlan& p, StreamKernel k, int elem_bytes) {
  const std::int64_t per =
      p.working_set_bytes / (std::int64_t(stream_arrays(k)) * std::max(1, p.teams) * std::max(1, elem_bytes));
  // Whole 256-byte segments of a warp's loads on a GPU, whole 64-byte lines on a CPU.
  const std::int64_t align = p.team_size > 1 ? 32 : 8;
  return std::max(align, per / align * align);
}

std::string bandwidth_label(StreamKernel k, const LevelPlan& p) {
  // The bytes the kernel really touches, after rounding the chunks.
  const double ws = double(elements_per_team(p, k, 8)) * std::max(1, p.teams) * stream_arrays(k) * 8;
  if (p.level == Level::scratch)
    return to_string(k) + ", " + bytes_text(ws / std::max(1, p.teams)) + " team scratch per team x " +
           std::to_string(p.teams) + " teams (" + p.residence + ")";
  return to_string(k) + ", " + bytes_text(ws) + " working set (" + p.residence + ")";
}

// ---- compute ------------------------------------------------------------------------------------------

double fma_flops(std::int64_t threads, int chains, std::int64_t steps) {
  return 2.0 * static_cast<double>(threads) * chains * static_cast<double>(steps);
}

double fma_chain_reference(double a0, double y, std::int64_t steps) {
  return steps % 2 == 0 ? a0 : y - a0;
}

double fma_chain_start(std::int64_t thread, int chain) {
  // 1..60: exact in FP16, and y - a0 (1..60) too.
  return static_cast<double>(1 + (thread * 7 + chain) % 60);
}

std::int64_t count_mismatches(const std::vector<double>& got, const std::vector<double>& want,
                              std::int64_t* first) {
  std::int64_t bad = 0;
  if (first) *first = -1;
  const std::size_t n = std::max(got.size(), want.size());
  for (std::size_t i = 0; i < n; ++i) {
    const bool same = i < got.size() && i < want.size() && got[i] == want[i];
    if (same) continue;
    if (bad == 0 && first) *first = static_cast<std::int64_t>(i);
    ++bad;
  }
  return bad;
}

// ---- records ------------------------------------------------------------------------------------------

std::string default_ceilings_path() {
  if (const char* env = std::getenv("RIDGELINE_CEILINGS"); env && *env) return env;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    return (std::filesystem::path(xdg) / "ridgeline" / "ceilings.json").string();
  const char* home = std::getenv("HOME");
  return (std::filesystem::path(home && *home ? home : ".") / ".local" / "share" / "ridgeline" /
          "ceilings.json")
      .string();
}

namespace {

Json roof_json(const Roof& r) {
  Json j;
  j["kind"] = r.kind;
  j["kernel"] = r.kernel;
  if (r.kind == "bandwidth") {
    j["level"] = to_string(r.level);
  } else {
    j["dtype"] = to_string(r.dtype);
    j["unit"] = to_string(r.unit);
  }
  j["label"] = r.label;
  j["value"] = r.value;
  j["value_unit"] = r.kind == "bandwidth" ? "bytes/s" : "FLOP/s";
  j["spec_value"] = r.spec_value;
  j["spec_source"] = r.spec_source;
  j["percent_of_spec"] = r.spec_value > 0 ? Json(r.percent_of_spec()) : Json(nullptr);
  j["working_set_bytes"] = r.working_set_bytes;
  j["work_per_run"] = r.work;
  j["reps"] = r.reps;
  j["median_s"] = r.median_s;
  j["min_s"] = r.min_s;
  j["max_s"] = r.max_s;
  j["check"] = r.check;
  return j;
}

struct Reader {
  const Json& j;
  std::string where;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::invalid_argument(where + ": field '" + field + "': " + what);
  }
  std::string str(const char* f, bool required = false) const {
    const auto it = j.find(f);
    if (it == j.end() || it->is_null()) {
      if (required) fail(f, "missing");
      return "";
    }
    if (!it->is_string()) fail(f, "expected a string");
    return it->get<std::string>();
  }
  double num(const char* f, bool required = false) const {
    const auto it = j.find(f);
    if (it == j.end() || it->is_null()) {
      if (required) fail(f, "missing");
      return 0;
    }
    if (!it->is_number()) fail(f, "expected a number");
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0) fail(f, "expected a finite non-negative number");
    return v;
  }
};

Level parse_level(const std::string& s, const Reader& r) {
  if (s == "scratch") return Level::scratch;
  if (s == "cache") return Level::cache;
  if (s == "memory") return Level::memory;
  r.fail("level", "expected scratch, cache or memory, got '" + s + "'");
}

Roof parse_roof(const Json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": expected an object");
  Reader r{j, where};
  Roof roof;
  roof.kind = r.str("kind", true);
  if (roof.kind != "bandwidth" && roof.kind != "compute")
    r.fail("kind", "expected bandwidth or compute, got '" + roof.kind + "'");
  roof.kernel = r.str("kernel", true);
  try {
    if (roof.kind == "bandwidth") {
      roof.level = parse_level(r.str("level", true), r);
    } else {
      roof.dtype = parse_dtype(r.str("dtype", true));
      roof.unit = parse_unit(r.str("unit", true));
    }
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).rfind(where, 0) == 0) throw;
    throw std::invalid_argument(where + ": " + e.what());
  }
  roof.label = r.str("label", true);
  roof.value = r.num("value", true);
  roof.spec_value = r.num("spec_value");
  roof.spec_source = r.str("spec_source");
  roof.working_set_bytes = r.num("working_set_bytes");
  roof.work = r.num("work_per_run");
  roof.reps = static_cast<int>(r.num("reps"));
  roof.median_s = r.num("median_s");
  roof.min_s = r.num("min_s");
  roof.max_s = r.num("max_s");
  roof.check = r.str("check");
  return roof;
}

Json entry_json(const DeviceCeilings& c) {
  Json j;
  j["device"] = c.device;
  j["device_key"] = c.device_key;
  j["backend"] = c.backend;
  j["concurrency"] = c.concurrency;
  j["git_sha"] = c.git_sha;
  j["date_utc"] = c.date_utc;
  j["command"] = c.command;
  j["kokkos"] = c.kokkos;
  j["mode"] = c.mode;
  j["byte_counting"] = c.byte_counting;
  Json roofs = Json::array();
  for (const auto& r : c.roofs) roofs.push_back(roof_json(r));
  j["roofs"] = roofs;
  Json absent = Json::array();
  for (const auto& a : c.absent) absent.push_back({{"what", a.what}, {"why", a.why}});
  j["not_measured"] = absent;
  return j;
}

DeviceCeilings parse_entry(const Json& j, const std::string& where) {
  if (!j.is_object()) throw std::invalid_argument(where + ": expected an object");
  Reader r{j, where};
  DeviceCeilings c;
  c.device = r.str("device", true);
  c.device_key = r.str("device_key");
  c.backend = r.str("backend", true);
  c.concurrency = static_cast<int>(r.num("concurrency"));
  c.git_sha = r.str("git_sha");
  c.date_utc = r.str("date_utc");
  c.command = r.str("command");
  c.kokkos = r.str("kokkos");
  c.mode = r.str("mode");
  c.byte_counting = r.str("byte_counting");
  const auto roofs = j.find("roofs");
  if (roofs == j.end() || !roofs->is_array()) r.fail("roofs", "expected an array");
  for (std::size_t i = 0; i < roofs->size(); ++i)
    c.roofs.push_back(parse_roof((*roofs)[i], where + ": roofs[" + std::to_string(i) + "]"));
  const auto absent = j.find("not_measured");
  if (absent != j.end() && absent->is_array())
    for (const auto& a : *absent) {
      if (!a.is_object()) r.fail("not_measured", "expected objects {what, why}");
      Reader ra{a, where + ": not_measured"};
      c.absent.push_back({ra.str("what"), ra.str("why")});
    }
  return c;
}

Json parse_text(const std::string& text, const std::string& origin) {
  try {
    return Json::parse(text);
  } catch (const Json::exception& e) {
    throw std::invalid_argument(origin + ": not valid JSON (" + e.what() + ")");
  }
}

constexpr const char* kFormat = "ridgeline-ceilings/1";

}  // namespace

std::string to_json(const DeviceCeilings& c, int indent) {
  return entry_json(c).dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string to_json(const CeilingsFile& f, int indent) {
  Json j;
  j["format"] = kFormat;
  j["written_by"] = "ridgeline ceilings; one entry per device and Kokkos backend, the latest run of each";
  Json entries = Json::array();
  for (const auto& e : f.entries) entries.push_back(entry_json(e));
  j["entries"] = entries;
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

DeviceCeilings parse_device_ceilings(const std::string& text, const std::string& origin) {
  return parse_entry(parse_text(text, origin), origin);
}

CeilingsFile parse_ceilings_file(const std::string& text, const std::string& origin) {
  const Json j = parse_text(text, origin);
  if (!j.is_object() || j.value("format", std::string()) != kFormat || !j.contains("entries") ||
      !j["entries"].is_array())
    throw std::invalid_argument(origin + ": expected a ceilings file (format \"" + kFormat +
                                "\" with an entries array)");
  CeilingsFile f;
  for (std::size_t i = 0; i < j["entries"].size(); ++i)
    f.entries.push_back(parse_entry(j["entries"][i], origin + ": entries[" + std::to_string(i) + "]"));
  return f;
}

CeilingsFile load_ceilings_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read ceilings file '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_ceilings_file(ss.str(), "ceilings file '" + path + "'");
}

void save_ceilings(const DeviceCeilings& c, const std::string& path) {
  CeilingsFile f = load_ceilings_file(path);
  auto same = [&](const DeviceCeilings& e) {
    return normalize(e.device) == normalize(c.device) && normalize(e.backend) == normalize(c.backend);
  };
  f.entries.erase(std::remove_if(f.entries.begin(), f.entries.end(), same), f.entries.end());
  f.entries.push_back(c);
  const std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  // Written whole to a neighbour, then renamed: an interrupted run never leaves half a file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out || !(out << to_json(f) << "\n"))
      throw std::runtime_error("cannot write ceilings file '" + tmp + "'");
  }
  std::filesystem::rename(tmp, path);
}

namespace {
std::string family_of(const std::string& backend) {
  const std::string b = normalize(backend);
  if (b == "cuda") return "cuda";
  if (b == "hip") return "hip";
  if (b == "openmp" || b == "serial" || b == "threads" || b == "host") return "host";
  return b;
}
}  // namespace

const DeviceCeilings* find_ceilings(const CeilingsFile& f, const std::string& device_name,
                                    const std::string& device_key, const std::string& backend,
                                    const std::string& family) {
  auto backend_ok = [&](const DeviceCeilings& e) {
    if (!backend.empty()) return normalize(e.backend) == normalize(backend);
    if (!family.empty()) return family_of(e.backend) == family_of(family);
    return true;
  };
  // The name first: every host CPU has key "host", so only its name tells two CPUs apart.
  for (const auto& e : f.entries)
    if (!device_name.empty() && normalize(e.device) == normalize(device_name) && backend_ok(e)) return &e;
  for (const auto& e : f.entries)
    if (!device_key.empty() && normalize(device_key) != "host" &&
        normalize(e.device_key) == normalize(device_key) && backend_ok(e))
      return &e;
  return nullptr;
}

std::vector<const Roof*> plotted_roofs(const DeviceCeilings& c) {
  std::vector<const Roof*> out;
  for (Level l : {Level::scratch, Level::cache, Level::memory}) {
    const Roof* best = nullptr;
    for (const auto& r : c.roofs)
      if (r.kind == "bandwidth" && r.level == l && (!best || r.value > best->value)) best = &r;
    if (best) out.push_back(best);
  }
  for (const auto& r : c.roofs) {
    if (r.kind != "compute") continue;
    bool fastest = true;
    for (const auto& o : c.roofs)
      if (o.kind == "compute" && o.dtype == r.dtype && o.unit == r.unit &&
          (o.value > r.value || (o.value == r.value && &o < &r)))
        fastest = false;
    if (fastest) out.push_back(&r);
  }
  return out;
}

double memory_bandwidth(const DeviceCeilings& c) {
  return level_bandwidth(c, Level::memory);
}

double level_bandwidth(const DeviceCeilings& c, Level l) {
  double bw = 0;
  for (const auto& r : c.roofs)
    if (r.kind == "bandwidth" && r.level == l) bw = std::max(bw, r.value);
  return bw;
}

double compute_rate(const DeviceCeilings& c, DType d, Unit u) {
  double rate = 0;
  for (const auto& r : c.roofs)
    if (r.kind == "compute" && r.dtype == d && r.unit == u) rate = std::max(rate, r.value);
  return rate;
}

std::string ceilings_table(const DeviceCeilings& c) {
  auto rate = [](const Roof& r, double v) {
    if (!(v > 0)) return std::string("-");
    return r.kind == "bandwidth" ? sig(v / 1e9, 4) + " GB/s" : sig(v / 1e9, 4) + " GFLOP/s";
  };
  std::vector<std::vector<std::string>> rows = {
      {"roof", "measured", "spec", "% of spec", "measured as (median of reps after warm-up)"}};
  for (const auto& r : c.roofs) {
    const std::string name = r.kind == "bandwidth" ? to_string(r.level) + " bandwidth"
                                                   : to_string(r.dtype) + " " + to_string(r.unit);
    std::string how = r.label + "; " + std::to_string(r.reps) + " reps";
    if (!r.check.empty() && r.check != "-") how += "; check " + r.check;
    rows.push_back({name, rate(r, r.value),
                    r.spec_value > 0 ? rate(r, r.spec_value) + " (" + r.spec_source + ")" : "-",
                    r.spec_value > 0 ? sig(r.percent_of_spec(), 3) + "%" : "-", how});
  }
  std::vector<std::size_t> w(rows[0].size(), 0);
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) w[i] = std::max(w[i], row[i].size());
  std::ostringstream os;
  os << "Measured ceilings: " << c.device << ", Kokkos " << c.backend << " (concurrency " << c.concurrency
     << "), " << c.mode << " run, git " << c.git_sha << ", " << c.date_utc << "\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    std::string line;
    for (std::size_t i = 0; i < rows[k].size(); ++i)
      line += rows[k][i] + (i + 1 < rows[k].size() ? std::string(w[i] - rows[k][i].size() + 2, ' ') : "");
    os << line << "\n";
    if (k == 0) {
      std::size_t total = 0;
      for (auto x : w) total += x + 2;
      os << std::string(total - 2, '-') << "\n";
    }
  }
  for (const auto& a : c.absent) os << "not measured: " << a.what << ": " << a.why << "\n";
  if (!c.byte_counting.empty()) os << "bytes: " << c.byte_counting << "\n";
  return os.str();
}

}  // namespace ceilings
}  // namespace ridgeline
