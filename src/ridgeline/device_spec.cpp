#include "ridgeline/device_spec.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

#if defined(__linux__)
#include <sched.h>
#endif

#include <ridgeline/backends/cuda/device_specs.hpp>
#include <ridgeline/backends/hip/device_specs.hpp>
#include <ridgeline/backends/host/device_specs.hpp>

namespace ridgeline {

namespace {

using Json = nlohmann::ordered_json;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Names compare without case or separators, so "MI250X_GCD", "mi250x-gcd" and "mi250x gcd" agree.
std::string normalize_name(const std::string& s) {
  std::string out;
  for (unsigned char c : s)
    if (std::isalnum(c)) out += static_cast<char>(std::tolower(c));
  return out;
}

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

}  // namespace

// ---- enums ------------------------------------------------------------------------------------------

std::string to_string(DType d) {
  switch (d) {
    case DType::fp64:
      return "fp64";
    case DType::fp32:
      return "fp32";
    case DType::tf32:
      return "tf32";
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
  }
  return "?";
}

std::string to_string(Unit u) {
  return u == Unit::vector ? "vector" : "matrix";
}

DType parse_dtype(const std::string& s) {
  const std::string n = normalize_name(s);
  static const std::map<std::string, DType> names = {
      {"fp64", DType::fp64}, {"f64", DType::fp64},   {"double", DType::fp64}, {"fp32", DType::fp32},
      {"f32", DType::fp32},  {"float", DType::fp32}, {"tf32", DType::tf32},   {"fp16", DType::fp16},
      {"f16", DType::fp16},  {"half", DType::fp16},  {"bf16", DType::bf16},   {"bfloat16", DType::bf16}};
  auto it = names.find(n);
  if (it == names.end())
    throw std::invalid_argument("unknown dtype '" + s + "' (expected fp64, fp32, tf32, fp16 or bf16)");
  return it->second;
}

Unit parse_unit(const std::string& s) {
  const std::string n = normalize_name(s);
  if (n == "vector" || n == "simd") return Unit::vector;
  if (n == "matrix" || n == "tensor" || n == "mfma") return Unit::matrix;
  throw std::invalid_argument("unknown unit '" + s + "' (expected vector or matrix)");
}

int dtype_bytes(DType d) {
  switch (d) {
    case DType::fp64:
      return 8;
    case DType::fp32:
    case DType::tf32:
      return 4;
    case DType::fp16:
    case DType::bf16:
      return 2;
  }
  return 0;
}

// ---- built-in table and lookup ------------------------------------------------------------------------

const std::vector<DeviceSpec>& builtin_device_specs() {
  static const std::vector<DeviceSpec> all = [] {
    std::vector<DeviceSpec> v = cuda_data::cuda_device_specs();
    const auto& hip = hip_data::hip_device_specs();
    v.insert(v.end(), hip.begin(), hip.end());
    return v;
  }();
  return all;
}

std::vector<std::string> known_device_names() {
  std::vector<std::string> names;
  for (const auto& s : builtin_device_specs()) names.push_back(s.key);
  names.push_back("host");
  return names;
}

const DeviceSpec& find_device_spec(const std::string& name) {
  const std::string n = normalize_name(name);
  if (n == "host" || n == "cpu") {
    static const DeviceSpec host = derive_host_spec();
    return host;
  }
  for (const auto& s : builtin_device_specs()) {
    if (normalize_name(s.key) == n || normalize_name(s.name) == n) return s;
    for (const auto& a : s.aliases)
      if (normalize_name(a) == n) return s;
  }
  throw std::invalid_argument("unknown device '" + name + "'; known devices: " +
                              join(known_device_names(), ", ") + " (or a JSON spec file via --file)");
}

DeviceSpec resolve_device_spec(const std::string& name_or_path) {
  const bool looks_like_file =
      name_or_path.size() > 5 && lower(name_or_path.substr(name_or_path.size() - 5)) == ".json";
  if (looks_like_file) return load_device_spec_json(name_or_path);
  return find_device_spec(name_or_path);
}

// ---- JSON -------------------------------------------------------------------------------------------

namespace {

// A JSON value in an error message. Containers are described, not dumped: dump() recurses once per
// level, so a value nested a million levels deep would overflow the stack while we report it.
std::string describe(const Json& v) {
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " element(s)";
  if (v.is_object()) return "an object of " + std::to_string(v.size()) + " field(s)";
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return "a number beyond the range of a double";
  std::string d = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (d.size() > 64) d = d.substr(0, 60) + "...";
  if (v.is_string()) {
    const std::string n = normalize_name(v.get<std::string>());
    if (n == "nan" || n == "inf" || n == "infinity")
      d += " (a string: JSON has no NaN or Infinity, and the field needs a finite number)";
  }
  return d;
}

// A field name as the message shows it: user keys can be of any length.
std::string field_label(const std::string& field) {
  return field.size() > 64 ? field.substr(0, 60) + "..." : field;
}

// Where a JSON syntax error is, as the path of the last key read.
std::string last_field_of(const std::vector<std::string>& path) {
  if (path.empty()) return "before the first field";
  std::string dotted;
  for (const auto& p : path) dotted += (dotted.empty() ? "" : ".") + p;
  return "in or after field '" + field_label(dotted) + "'";
}

// ---- plausibility --------------------------------------------------------------------------------
// Every number a spec holds has a range real hardware falls in, wide enough for any device of the
// last and next decade, narrow enough that a figure written in the wrong unit (TB/s in a bytes/s
// field, MiB in a bytes field, MHz in a GHz field) lands outside it. A figure outside is an error
// that suggests the unit it was probably written in.

enum class Quantity { flops, bytes_per_s, bytes_binary, bytes_decimal, ghz, seconds, count };

struct Plausible {
  double lo, hi;  // inclusive
  bool zero_ok;   // 0 is allowed and means "not known" / "none"
  Quantity q;
  double typical;  // where unit-mistake suggestions aim
};

constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kPiB = kGiB * 1024 * 1024;

const Plausible* plausible_range(const std::string& field) {
  static const std::map<std::string, Plausible> table = {
      {"compute_units", {1, 1e6, false, Quantity::count, 100}},
      {"boost_clock_ghz", {0.1, 10, true, Quantity::ghz, 2}},
      {"warp_width", {1, 1024, true, Quantity::count, 32}},
      {"max_team_scratch_bytes", {kKiB, kGiB, true, Quantity::bytes_binary, 48 * kKiB}},
      {"scratch_per_cu_bytes", {kKiB, kGiB, true, Quantity::bytes_binary, 128 * kKiB}},
      {"l2_bytes", {16 * kKiB, 64 * kGiB, true, Quantity::bytes_binary, 32 * kMiB}},
      {"private_cache_bytes", {16 * kKiB, kGiB, true, Quantity::bytes_binary, kMiB}},
      {"memory_bytes", {1e8, 1e15, true, Quantity::bytes_decimal, 64e9}},
      {"dram_bw_bytes_per_s", {1e9, 1e15, false, Quantity::bytes_per_s, 1e12}},
      {"l2_bw_bytes_per_s", {1e9, 1e15, true, Quantity::bytes_per_s, 1e13}},
      {"launch_overhead_s", {1e-8, 1e-2, true, Quantity::seconds, 5e-6}},
      {"peak_flops", {1e9, 1e18, true, Quantity::flops, 1e13}},
  };
  auto it = table.find(field.rfind("peak_flops.", 0) == 0 ? std::string("peak_flops") : field);
  return it == table.end() ? nullptr : &it->second;
}

// A number as a user would type it back: "4.8e12", "5e-6", and byte counts in full ("52428800").
std::string plain_number(double v, bool whole = false) {
  if (whole && v == std::floor(v) && std::abs(v) < 1e18) return std::to_string(static_cast<std::int64_t>(v));
  std::ostringstream os;
  os.precision(6);
  os << v;
  std::string t = os.str();
  const auto e = t.find('e');
  if (e != std::string::npos) {
    std::string mant = t.substr(0, e), exp = t.substr(e + 1);
    const bool neg = !exp.empty() && exp[0] == '-';
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) exp.erase(0, 1);
    exp.erase(0, std::min(exp.find_first_not_of('0'), exp.size() - 1));
    t = mant + "e" + (neg ? "-" : "") + exp;
  }
  return t;
}

std::string with_unit(double v, Quantity q) {
  struct Step {
    double scale;
    const char* name;
  };
  std::vector<Step> steps;
  switch (q) {
    case Quantity::flops:
      steps = {{1, "FLOP/s"},     {1e3, "kFLOP/s"},  {1e6, "MFLOP/s"}, {1e9, "GFLOP/s"},
               {1e12, "TFLOP/s"}, {1e15, "PFLOP/s"}, {1e18, "EFLOP/s"}};
      break;
    case Quantity::bytes_per_s:
      steps = {{1, "B/s"}, {1e3, "kB/s"}, {1e6, "MB/s"}, {1e9, "GB/s"}, {1e12, "TB/s"}, {1e15, "PB/s"}};
      break;
    case Quantity::bytes_binary:
      steps = {{1, "B"}, {kKiB, "KiB"}, {kMiB, "MiB"}, {kGiB, "GiB"}, {kGiB * 1024, "TiB"}, {kPiB, "PiB"}};
      break;
    case Quantity::bytes_decimal:
      steps = {{1, "B"}, {1e3, "kB"}, {1e6, "MB"}, {1e9, "GB"}, {1e12, "TB"}, {1e15, "PB"}};
      break;
    case Quantity::ghz:
      steps = {{1e-9, "Hz"}, {1e-6, "kHz"}, {1e-3, "MHz"}, {1, "GHz"}};
      break;
    case Quantity::seconds:
      steps = {{1e-9, "ns"}, {1e-6, "us"}, {1e-3, "ms"}, {1, "s"}};
      break;
    case Quantity::count:
      return plain_number(v, true);
  }
  const Step* pick = &steps.front();
  for (const auto& st : steps)
    if (std::abs(v) >= st.scale * (1 - 1e-9)) pick = &st;
  // Far outside the prefixes (1e308 FLOP/s, 1e-320 B/s) the number reads better as it was written.
  const double scaled = v / pick->scale;
  if (scaled >= 1e4 || std::abs(v) < steps.front().scale * (1 - 1e-9)) {
    const Step* base = &steps.front();
    for (const auto& st : steps)
      if (st.scale == 1) base = &st;
    return plain_number(v) + " " + base->name;
  }
  std::ostringstream os;
  os.precision(4);
  os << scaled << " " << pick->name;
  return os.str();
}

// "did you mean 4.8e12, that is 4.8 TB/s?" when v times a unit step (1000^k, or 1024^k for binary
// sizes) lands in the range; the candidate nearest the field's typical value comes first.
std::string unit_hint(double v, const Plausible& p) {
  if (p.q == Quantity::count || !(v > 0)) return "";
  const double base = p.q == Quantity::bytes_binary ? 1024.0 : 1000.0;
  std::vector<std::pair<double, double>> found;  // {distance from typical in decades, candidate}
  for (int k = -6; k <= 6; ++k) {
    if (k == 0) continue;
    const double c = v * std::pow(base, k);
    if (c >= p.lo && c <= p.hi) found.push_back({std::abs(std::log10(c / p.typical)), c});
  }
  if (found.empty()) return "";
  std::sort(found.begin(), found.end());
  const bool whole = p.q == Quantity::bytes_binary || p.q == Quantity::bytes_decimal;
  std::string h = ": did you mean " + plain_number(found[0].second, whole) + ", that is " +
                  with_unit(found[0].second, p.q);
  if (found.size() > 1)
    h += " (or " + plain_number(found[1].second, whole) + ", " + with_unit(found[1].second, p.q) + ")";
  return h + "?";
}

// Empty when v is plausible for the field, else what is wrong with it.
std::string implausibility(const std::string& field, double v) {
  const Plausible* p = plausible_range(field);
  if (!p) return "";
  if (std::isnan(v)) return "NaN is not a figure";
  if (v == 0 && p->zero_ok) return "";
  if (v >= p->lo && v <= p->hi) return "";
  return with_unit(v, p->q) + " is outside the plausible range " + with_unit(p->lo, p->q) + " to " +
         with_unit(p->hi, p->q) + (p->zero_ok ? " (or 0 for unknown)" : "") + unit_hint(v, *p);
}

// Reads the fields of one spec object, naming the field in every error.
class FieldReader {
 public:
  FieldReader(const Json& j, std::string origin) : j_(j), origin_(std::move(origin)) {}

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::invalid_argument("device spec " + origin_ + ": field '" + field_label(field) + "': " + what);
  }

  const Json* get(const std::string& field, bool required) const {
    auto it = j_.find(field);
    if (it == j_.end() || it->is_null()) {
      if (required) fail(field, "missing (required)");
      return nullptr;
    }
    return &*it;
  }

  std::string str(const std::string& field, bool required, const std::string& dflt = "") const {
    const Json* v = get(field, required);
    if (!v) return dflt;
    if (!v->is_string()) fail(field, "expected a string, got " + describe(*v));
    return v->get<std::string>();
  }

  // A finite, non-negative (positive when required so) number.
  double number(const Json& v, const std::string& field, bool positive) const {
    if (!v.is_number()) fail(field, "expected a number, got " + describe(v));
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < 0 || (positive && x == 0))
      fail(field, std::string("expected a ") + (positive ? "positive" : "non-negative") + " number, got " +
                      describe(v));
    return x;
  }

  // number(), and inside the field's plausible range.
  double plausible(const Json& v, const std::string& field, bool positive) const {
    const double x = number(v, field, positive);
    const std::string why = implausibility(field, x);
    if (!why.empty()) fail(field, why);
    return x;
  }

  double num(const std::string& field, bool required, bool positive = false) const {
    const Json* v = get(field, required);
    return v ? plausible(*v, field, positive) : 0.0;
  }

  // Integral, and checked against the plausible range before the conversion, so that no value can
  // wrap around in the int or std::int64_t it is stored in.
  std::int64_t integer(const std::string& field, bool required, bool positive = false) const {
    const Json* v = get(field, required);
    if (!v) return 0;
    const double x = number(*v, field, positive);
    if (x != std::floor(x)) fail(field, "expected an integer, got " + describe(*v));
    const std::string why = implausibility(field, x);
    if (!why.empty()) fail(field, why);
    if (x > 9.0e18) fail(field, "expected an integer, got " + describe(*v));  // fields without a range
    return static_cast<std::int64_t>(x);
  }

  bool boolean(const std::string& field) const {
    const Json* v = get(field, false);
    if (!v) return false;
    if (!v->is_boolean()) fail(field, "expected true or false, got " + describe(*v));
    return v->get<bool>();
  }

 private:
  const Json& j_;
  std::string origin_;
};

const std::set<std::string>& spec_fields() {
  static const std::set<std::string> fields = {"key",
                                               "aliases",
                                               "name",
                                               "vendor",
                                               "backend",
                                               "arch",
                                               "detect_token",
                                               "source",
                                               "compute_units",
                                               "boost_clock_ghz",
                                               "warp_width",
                                               "max_team_scratch_bytes",
                                               "scratch_per_cu_bytes",
                                               "l2_bytes",
                                               "private_cache_bytes",
                                               "memory_bytes",
                                               "dram_bw_bytes_per_s",
                                               "l2_bw_bytes_per_s",
                                               "launch_overhead_s",
                                               "estimated",
                                               "notes",
                                               "peak_flops"};
  return fields;
}

}  // namespace

void validate_device_spec(const DeviceSpec& s, const std::string& origin_or_empty) {
  const std::string origin = origin_or_empty.empty() ? "'" + s.key + "'" : origin_or_empty;
  auto check = [&](const std::string& field, double v) {
    const std::string why = implausibility(field, v);
    if (!why.empty())
      throw std::invalid_argument("device spec " + origin + ": field '" + field + "': " + why);
  };
  check("compute_units", s.compute_units);
  check("boost_clock_ghz", s.boost_clock_ghz);
  check("warp_width", s.warp_width);
  check("max_team_scratch_bytes", static_cast<double>(s.max_team_scratch_bytes));
  check("scratch_per_cu_bytes", static_cast<double>(s.scratch_per_cu_bytes));
  check("l2_bytes", static_cast<double>(s.l2_bytes));
  check("private_cache_bytes", static_cast<double>(s.private_cache_bytes));
  check("memory_bytes", static_cast<double>(s.memory_bytes));
  check("dram_bw_bytes_per_s", s.dram_bw_bytes_per_s);
  check("l2_bw_bytes_per_s", s.l2_bw_bytes_per_s);
  check("launch_overhead_s", s.launch_overhead_s);
  for (DType d : kAllDTypes)
    for (Unit u : kAllUnits) check("peak_flops." + to_string(d) + "." + to_string(u), s.peak_flops(d, u));
}

DeviceSpec parse_device_spec_json(const std::string& text, const std::string& origin) {
  Json j;
  // The path of the last key read, so that a syntax error (a truncated file, a NaN written bare) can
  // say which field it is in.
  std::vector<std::string> path;
  // A spec nests three levels (peak_flops.fp64.vector). Deeper values are refused while parsing:
  // ordered_json keeps an object's fields in a vector whose reallocation copies them, and copying a
  // value nested a million levels deep recurses once per level, overflowing the stack.
  constexpr int kMaxDepth = 64;
  try {
    j = Json::parse(text, [&](int depth, Json::parse_event_t ev, Json& parsed) {
      if (ev == Json::parse_event_t::key && depth >= 1 && depth <= 3) {
        path.resize(static_cast<std::size_t>(depth));
        path.back() = parsed.get<std::string>();
      }
      if ((ev == Json::parse_event_t::object_start || ev == Json::parse_event_t::array_start) &&
          depth >= kMaxDepth) {
        const std::string deep =
            "nested more than " + std::to_string(kMaxDepth) + " levels deep (a spec needs 3)";
        if (path.empty())
          throw std::invalid_argument("device spec " + origin +
                                      ": expected a JSON object at the top, got a value " + deep);
        std::string dotted;
        for (const auto& p : path) dotted += (dotted.empty() ? "" : ".") + p;
        throw std::invalid_argument("device spec " + origin + ": field '" + field_label(dotted) +
                                    "': " + deep);
      }
      return true;
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument("device spec " + origin + ": not valid JSON at byte " +
                                std::to_string(e.byte) + ", " + last_field_of(path) + " (" + e.what() + ")");
  } catch (const nlohmann::json::exception& e) {
    // 1e999 parses as JSON grammar but not as a double (out_of_range.406).
    throw std::invalid_argument("device spec " + origin + ": not valid JSON, " + last_field_of(path) + " (" +
                                e.what() + ")");
  }
  if (!j.is_object())
    throw std::invalid_argument("device spec " + origin + ": expected a JSON object at the top, got " +
                                describe(j));
  FieldReader r(j, origin);
  // An unknown field is most often a misspelt known one whose value would silently be lost.
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!spec_fields().count(it.key())) r.fail(it.key(), "unknown field");

  DeviceSpec s;
  s.name = r.str("name", true);
  s.key = r.str("key", false, normalize_name(s.name));
  if (const Json* a = r.get("aliases", false)) {
    if (!a->is_array()) r.fail("aliases", "expected an array of strings, got " + describe(*a));
    for (const auto& e : *a) {
      if (!e.is_string()) r.fail("aliases", "expected an array of strings, one element is " + describe(e));
      s.aliases.push_back(e.get<std::string>());
    }
  }
  s.vendor = r.str("vendor", true);
  s.backend = lower(r.str("backend", true));
  if (s.backend != "cuda" && s.backend != "hip" && s.backend != "host")
    r.fail("backend", "expected \"cuda\", \"hip\" or \"host\", got \"" + s.backend + "\"");
  s.arch = r.str("arch", false);
  s.detect_token = r.str("detect_token", false);
  s.source = r.str("source", false, "user spec file " + origin);
  s.compute_units = static_cast<int>(r.integer("compute_units", true, true));
  s.boost_clock_ghz = r.num("boost_clock_ghz", false);
  s.warp_width = static_cast<int>(r.integer("warp_width", false));
  s.max_team_scratch_bytes = r.integer("max_team_scratch_bytes", false);
  s.scratch_per_cu_bytes = r.integer("scratch_per_cu_bytes", false);
  s.l2_bytes = r.integer("l2_bytes", false);
  s.private_cache_bytes = r.integer("private_cache_bytes", false);
  s.memory_bytes = r.integer("memory_bytes", false);
  s.dram_bw_bytes_per_s = r.num("dram_bw_bytes_per_s", true, true);
  s.l2_bw_bytes_per_s = r.num("l2_bw_bytes_per_s", false);
  s.launch_overhead_s = r.num("launch_overhead_s", false);
  s.estimated = r.boolean("estimated");
  s.notes = r.str("notes", false);

  const Json* peaks = r.get("peak_flops", true);
  if (!peaks->is_object())
    r.fail("peak_flops", "expected an object {\"fp64\": {\"vector\": ..., \"matrix\": ...}}");
  bool any = false;
  for (auto it = peaks->begin(); it != peaks->end(); ++it) {
    const std::string dfield = "peak_flops." + it.key();
    DType d;
    try {
      d = parse_dtype(it.key());
    } catch (const std::invalid_argument&) {
      r.fail(dfield, "unknown dtype (expected fp64, fp32, tf32, fp16, bf16)");
    }
    if (!it->is_object()) r.fail(dfield, "expected an object {\"vector\": ..., \"matrix\": ...}");
    for (auto u = it->begin(); u != it->end(); ++u) {
      const std::string ufield = dfield + "." + u.key();
      Unit unit;
      try {
        unit = parse_unit(u.key());
      } catch (const std::invalid_argument&) {
        r.fail(ufield, "unknown unit (expected vector or matrix)");
      }
      if (u->is_null()) continue;
      const double p = r.plausible(*u, ufield, false);
      s.set_peak_flops(d, unit, p);
      any = any || p > 0;
    }
  }
  if (!any) r.fail("peak_flops", "no positive peak: at least one dtype/unit needs a FLOP/s figure");
  return s;
}

DeviceSpec load_device_spec_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("device spec file '" + path + "' cannot be opened");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_device_spec_json(ss.str(), "'" + path + "'");
}

std::string device_spec_to_json(const DeviceSpec& s, int indent) {
  Json j;
  j["key"] = s.key;
  j["aliases"] = s.aliases;
  j["name"] = s.name;
  j["vendor"] = s.vendor;
  j["backend"] = s.backend;
  j["arch"] = s.arch;
  j["detect_token"] = s.detect_token;
  j["source"] = s.source;
  j["compute_units"] = s.compute_units;
  j["boost_clock_ghz"] = s.boost_clock_ghz;
  j["warp_width"] = s.warp_width;
  j["max_team_scratch_bytes"] = s.max_team_scratch_bytes;
  j["scratch_per_cu_bytes"] = s.scratch_per_cu_bytes;
  j["l2_bytes"] = s.l2_bytes;
  j["private_cache_bytes"] = s.private_cache_bytes;
  j["memory_bytes"] = s.memory_bytes;
  j["dram_bw_bytes_per_s"] = s.dram_bw_bytes_per_s;
  j["l2_bw_bytes_per_s"] = s.l2_bw_bytes_per_s;
  j["launch_overhead_s"] = s.launch_overhead_s;
  j["estimated"] = s.estimated;
  j["notes"] = s.notes;
  Json peaks = Json::object();
  for (DType d : kAllDTypes) {
    Json row = Json::object();
    for (Unit u : kAllUnits) row[to_string(u)] = s.peak_flops(d, u);
    peaks[to_string(d)] = row;
  }
  j["peak_flops"] = peaks;
  // Replace, not throw, on bytes that are not UTF-8: a host spec's model name comes from /proc.
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

void save_device_spec_json(const DeviceSpec& s, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write device spec file '" + path + "'");
  out << device_spec_to_json(s) << "\n";
  if (!out) throw std::runtime_error("error writing device spec file '" + path + "'");
}

// ---- host CPUs ----------------------------------------------------------------------------------------

namespace {

std::int64_t parse_cache_size(const std::string& text) {
  std::int64_t v = 0;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) v = v * 10 + (text[i++] - '0');
  const char unit =
      i < text.size() ? static_cast<char>(std::toupper(static_cast<unsigned char>(text[i]))) : 0;
  if (unit == 'K') v *= 1024;
  if (unit == 'M') v *= 1024 * 1024;
  if (unit == 'G') v *= 1024LL * 1024 * 1024;
  return v;
}

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return trim(line);
}

}  // namespace

HostCpuInfo parse_cpuinfo(const std::string& text) {
  HostCpuInfo info;
#if defined(__x86_64__) || defined(_M_X64)
  info.arch = "x86_64";
#elif defined(__aarch64__)
  info.arch = "aarch64";
#else
  info.arch = "unknown";
#endif
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> flags;
  std::string physical_id, mhz;
  int processors = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = lower(trim(line.substr(0, colon)));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "processor") {
      ++processors;
    } else if ((key == "model name" || key == "cpu model" || key == "hardware") && info.model.empty()) {
      info.model = value;
    } else if (key == "vendor_id" && info.vendor.empty()) {
      info.vendor = value;
    } else if ((key == "flags" || key == "features") && flags.empty()) {
      std::istringstream fs(value);
      std::string f;
      while (fs >> f) flags.insert(lower(f));
    } else if (key == "physical id") {
      physical_id = value;
    } else if (key == "core id") {
      cores.insert({physical_id, value});
    } else if (key == "cpu mhz" && mhz.empty()) {
      mhz = value;
    }
  }
  info.logical_cpus = processors;
  info.physical_cores = cores.empty() ? processors : static_cast<int>(cores.size());
  if (info.model.empty()) info.model = "unknown CPU";
  if (info.vendor.empty()) info.vendor = info.arch == "aarch64" ? "Arm" : "unknown";

  if (flags.count("avx512f")) {
    info.simd_bits = 512;
  } else if (flags.count("avx")) {
    info.simd_bits = 256;
  } else if (flags.count("sse2") || flags.count("asimd")) {
    info.simd_bits = 128;
  }
  info.fma = flags.count("fma") || flags.count("asimd");
  info.native_fp16 = flags.count("avx512_fp16") > 0;
  info.native_bf16 = flags.count("avx512_bf16") > 0;

  // A model name such as "... CPU @ 2.30GHz" gives the base clock; "cpu MHz" is the clock of the
  // moment, which a governor may have lowered.
  static const std::regex ghz(R"(@\s*([0-9]+(\.[0-9]+)?)\s*GHz)", std::regex::icase);
  std::smatch m;
  if (std::regex_search(info.model, m, ghz)) {
    info.clock_ghz = std::stod(m[1].str());
    info.clock_source = "base clock in the CPU model name";
  } else if (!mhz.empty()) {
    info.clock_ghz = std::stod(mhz) / 1000.0;
    info.clock_source = "current clock ('cpu MHz' in /proc/cpuinfo)";
  }
  return info;
}

HostCpuInfo read_host_cpu_info() {
  std::ifstream in("/proc/cpuinfo");
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  HostCpuInfo info = parse_cpuinfo(ss.str());
  if (info.logical_cpus == 0) {
    info.logical_cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    info.physical_cores = info.logical_cpus;
  }
#if defined(__linux__)
  // A container or taskset may allow fewer CPUs than the machine has (what nproc reports).
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int allowed = CPU_COUNT(&set);
    if (allowed > 0 && allowed < info.logical_cpus) {
      const int per_core = std::max(1, info.logical_cpus / std::max(1, info.physical_cores));
      info.physical_cores = std::max(1, allowed / per_core);
      info.logical_cpus = allowed;
    }
  }
#endif
  const std::string max_khz = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!max_khz.empty()) {
    info.clock_ghz = std::stod(max_khz) / 1e6;
    info.clock_source = "maximum clock from cpufreq (cpuinfo_max_freq)";
  }
  int llc_level = 0;
  std::int64_t l2 = 0;
  for (int i = 0; i < 16; ++i) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    const std::string level = read_first_line(dir + "level");
    if (level.empty()) break;
    const std::string type = read_first_line(dir + "type");
    const std::int64_t size = parse_cache_size(read_first_line(dir + "size"));
    const int lv = std::atoi(level.c_str());
    if (lv == 1 && type == "Data") info.l1d_bytes = size;
    if (lv == 2 && type != "Instruction") l2 = size;
    if (lv >= llc_level && type != "Instruction") {
      llc_level = lv;
      info.llc_bytes = size;
    }
  }
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
  // Some VMs have no cache folders in /sys; glibc still answers from CPUID.
  if (llc_level == 0) {
    const long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2c = sysconf(_SC_LEVEL2_CACHE_SIZE),
               l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l1 > 0) info.l1d_bytes = l1;
    if (l2c > 0) l2 = l2c;
    llc_level = l3 > 0 ? 3 : l2c > 0 ? 2 : 0;
    info.llc_bytes = l3 > 0 ? l3 : l2c > 0 ? l2c : 0;
  }
#endif
  // Below a shared L3 the L2 is a core's own on current x86 and Arm server cores.
  if (llc_level > 2) info.l2_private_bytes = l2;
  return info;
}

DeviceSpec derive_host_spec(const HostCpuInfo& info) {
  const HostDerivationRules rules = host_data::host_derivation_rules();
  DeviceSpec s;
  s.key = "host";
  s.name = info.model;
  s.vendor = info.vendor;
  s.backend = "host";
  s.arch = info.arch;
  s.source = "derived at run time from /proc/cpuinfo and /sys (cores x FMA SIMD width x clock): an estimate";
  s.compute_units = info.physical_cores;
  s.boost_clock_ghz = info.clock_ghz;
  s.warp_width = info.simd_bits / 32;
  s.max_team_scratch_bytes = rules.max_team_scratch_bytes;
  s.scratch_per_cu_bytes = info.l1d_bytes;
  s.l2_bytes = info.llc_bytes;
  s.private_cache_bytes = info.l2_private_bytes;
  s.dram_bw_bytes_per_s = rules.dram_bw_bytes_per_s_per_core * std::max(1, info.physical_cores);
  s.launch_overhead_s = rules.launch_overhead_s;
  s.estimated = true;

  // Without FMA a core still retires a multiply and an add per lane per cycle on separate ports.
  const double flop_per_lane_per_clk = info.fma ? 2.0 * rules.fma_pipes_per_core : 2.0;
  const double fp64 =
      info.physical_cores * (info.simd_bits / 64.0) * flop_per_lane_per_clk * info.clock_ghz * 1e9;
  s.set_peak_flops(DType::fp64, Unit::vector, fp64);
  s.set_peak_flops(DType::fp32, Unit::vector, 2 * fp64);
  // Half precision is converted to FP32 for arithmetic unless the ISA computes in it natively.
  s.set_peak_flops(DType::fp16, Unit::vector, (info.native_fp16 ? 4 : 2) * fp64);
  s.set_peak_flops(DType::bf16, Unit::vector, (info.native_bf16 ? 4 : 2) * fp64);

  std::ostringstream notes;
  notes << "Estimate: " << info.physical_cores << " cores x " << info.simd_bits << "-bit SIMD"
        << (info.fma ? " FMA" : " (no FMA)") << " x " << rules.fma_pipes_per_core << " pipes assumed x "
        << info.clock_ghz << " GHz (" << (info.clock_source.empty() ? "clock unknown" : info.clock_source)
        << "). DRAM bandwidth is a placeholder (" << rules.dram_bw_bytes_per_s_per_core / 1e9
        << " GB/s per core); put a measured STREAM figure in a --file spec. Matrix units (AMX, SME) are not "
           "modelled; scratch_per_cu is the L1d, l2_bytes the last-level cache, private_cache a core's L2.";
  s.notes = notes.str();
  return s;
}

DeviceSpec derive_host_spec() {
  return derive_host_spec(read_host_cpu_info());
}

// ---- detection support --------------------------------------------------------------------------------

const DeviceSpec* match_builtin_spec(const RuntimeDeviceInfo& rt) {
  const std::string rt_name = lower(rt.name);
  for (const auto& s : builtin_device_specs()) {
    if (s.backend != rt.backend || s.arch != rt.arch || s.compute_units != rt.compute_units) continue;
    // The whole-package MI250X never shows up as one runtime device.
    if (s.detect_token.empty()) continue;
    if (!rt_name.empty() && rt_name.find(lower(s.detect_token)) == std::string::npos) continue;
    return &s;
  }
  return nullptr;
}

DeviceSpec spec_from_runtime(const RuntimeDeviceInfo& rt) {
  if (const DeviceSpec* known = match_builtin_spec(rt)) {
    DeviceSpec s = *known;
    std::string differs;
    // The runtime reports what this part has enabled; where it disagrees with the table it wins.
    if (rt.l2_bytes > 0 && rt.l2_bytes != s.l2_bytes) {
      differs += " L2 " + std::to_string(rt.l2_bytes) + " B (table: " + std::to_string(s.l2_bytes) + ").";
      s.l2_bytes = rt.l2_bytes;
    }
    if (rt.scratch_per_cu_bytes > 0 && rt.scratch_per_cu_bytes != s.scratch_per_cu_bytes) {
      differs += " Scratch per CU " + std::to_string(rt.scratch_per_cu_bytes) +
                 " B (table: " + std::to_string(s.scratch_per_cu_bytes) + ").";
      s.scratch_per_cu_bytes = rt.scratch_per_cu_bytes;
    }
    s.notes = "Detected '" + rt.name + "' (" + rt.arch + ", " + std::to_string(rt.compute_units) +
              " units)." + (differs.empty() ? "" : " Runtime figures used:" + differs) + " " + s.notes;
    return s;
  }
  const bool cuda = rt.backend == "cuda";
  const BackendDefaults defaults =
      cuda ? cuda_data::cuda_backend_defaults() : hip_data::hip_backend_defaults();
  const std::vector<ArchRate>& rates = cuda ? cuda_data::cuda_arch_rates() : hip_data::hip_arch_rates();

  DeviceSpec s;
  s.key = "detected";
  s.name = rt.name.empty() ? rt.arch : rt.name;
  s.vendor = cuda ? "NVIDIA" : "AMD";
  s.backend = rt.backend;
  s.arch = rt.arch;
  s.source = "reported by the " + std::string(cuda ? "CUDA" : "HIP") + " runtime (no datasheet entry)";
  s.compute_units = rt.compute_units;
  s.boost_clock_ghz = rt.clock_ghz;
  s.warp_width = rt.warp_width;
  s.max_team_scratch_bytes = defaults.max_team_scratch_bytes;
  s.scratch_per_cu_bytes = rt.scratch_per_cu_bytes;
  s.l2_bytes = rt.l2_bytes;
  s.memory_bytes = rt.memory_bytes;
  s.dram_bw_bytes_per_s = rt.dram_bw_bytes_per_s;
  s.launch_overhead_s = defaults.launch_overhead_s;
  s.estimated = true;
  bool arch_known = false;
  for (const auto& r : rates) {
    if (r.arch != rt.arch) continue;
    arch_known = true;
    const double per_clk = rt.compute_units * rt.clock_ghz * 1e9;
    s.set_peak_flops(DType::fp64, Unit::vector, r.fp64_flop_per_clk_per_cu * per_clk);
    s.set_peak_flops(DType::fp32, Unit::vector, r.fp32_flop_per_clk_per_cu * per_clk);
  }
  s.notes = "Unknown device '" + s.name + "' (" + rt.arch + ", " + std::to_string(rt.compute_units) +
            " units): no built-in entry. " +
            (arch_known ? "Vector peaks are estimated from the runtime's clock and unit count; "
                        : "The architecture is unknown too, so no peak is known; ") +
            "matrix peaks are unknown (0). DRAM bandwidth is memory clock x bus width. For datasheet figures "
            "write a JSON spec (start from `ridgeline spec h100 --json`) and pass it with --file.";
  return s;
}

}  // namespace ridgeline
