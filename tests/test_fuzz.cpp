// Seeded fuzzing of everything that reads what a user writes about a device or a shape:
//  - device-spec JSON (mutations of every built-in spec) through the loader, every roofline entry point
//    the `ridgeline` CLI uses (spec --file, roofline compare / eval / plot) and the CLI itself;
//  - DeviceSpec values with extreme figures built in code, which skip the loader's checks, straight
//    into the roofline (a detected or programmatic spec reaches it that way);
//  - the perf suite's --shapes lists through the parser and the memory check.
// Every input must finish within a generous bound (a hang is the defect; speed is not measured) with
// a result or a std::invalid_argument that names what is wrong. Seeds are fixed: a failure names its
// seed and input and reproduces.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <thread>

#include "cli.hpp"
#include "ridgeline/device_spec.hpp"
#include "ridgeline/roofline.hpp"
#include "ridgeline/roofline_plot.hpp"
#include "shape_spec.hpp"

namespace rl = ridgeline::roofline;
using ridgeline::DeviceSpec;
using ridgeline::DType;
using ridgeline::Unit;
using Json = nlohmann::ordered_json;

namespace {

// Generous on purpose: a case takes milliseconds; only a case that never returns gets near this.
constexpr auto kCaseBound = std::chrono::seconds(30);

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ---- running cases under a bound ------------------------------------------------------------------

// What the worker records: the problems found (empty when every case behaved) and how cases ended.
struct Tally {
  std::mutex mu;
  std::vector<std::string> problems;
  std::map<std::string, int> counts;
  void problem(const std::string& p) {
    std::lock_guard<std::mutex> g(mu);
    problems.push_back(p);
  }
  void count(const std::string& what) {
    std::lock_guard<std::mutex> g(mu);
    ++counts[what];
  }
};

// Runs body(i) for every i < n on a worker thread and watches each case's duration. A case that does
// not return within kCaseBound cannot be stopped from outside: it is reported, and the worker (which
// holds everything it uses through `state`) is abandoned to the process exit. Returns the label of the
// case that hung, or "".
struct BoundedRun {
  std::atomic<int> current{-1};
  std::atomic<long long> started_ns{0};
  std::atomic<bool> done{false};
  std::function<void(int)> body;
  std::function<std::string(int)> label;
  Tally tally;
};

std::string run_bounded(const std::shared_ptr<BoundedRun>& state, int n) {
  using clock = std::chrono::steady_clock;
  auto now_ns = [] {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now().time_since_epoch()).count();
  };
  std::thread worker([state, n, now_ns] {
    for (int i = 0; i < n; ++i) {
      state->started_ns = now_ns();
      state->current = i;
      try {
        state->body(i);
      } catch (const std::exception& e) {
        state->tally.problem(state->label(i) + ": escaped the checks: " + e.what());
      } catch (...) {
        state->tally.problem(state->label(i) + ": escaped the checks: a non-std exception");
      }
    }
    state->done = true;
  });
  while (!state->done) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const int i = state->current;
    const auto ran = std::chrono::nanoseconds(now_ns() - state->started_ns);
    if (!state->done && i >= 0 && ran > kCaseBound) {
      worker.detach();
      return state->label(i);
    }
  }
  worker.join();
  return "";
}

void report(const std::shared_ptr<BoundedRun>& state, const std::string& hung, const char* what) {
  EXPECT_EQ(hung, "") << what << ": this input did not finish within " << kCaseBound.count() << " s";
  std::lock_guard<std::mutex> g(state->tally.mu);
  std::ostringstream counts;
  for (const auto& [k, v] : state->tally.counts) counts << " " << k << "=" << v;
  std::cout << "[ fuzz     ] " << what << ":" << counts.str() << "\n";
  const auto& p = state->tally.problems;
  std::ostringstream first;
  for (std::size_t i = 0; i < p.size() && i < 12; ++i) first << "\n  " << p[i];
  EXPECT_TRUE(p.empty()) << p.size() << " problem(s) in " << what << ", the first:" << first.str();
}

// ---- outcomes -------------------------------------------------------------------------------------

// Runs f; a std::invalid_argument whose message passes `names_it` counts as an answer, anything else
// thrown is a problem. Returns whether f returned normally.
template <class F>
bool returns_or_names(Tally& t, const std::string& label, const char* entry, F&& f,
                      const std::function<bool(const std::string&)>& names_it) {
  try {
    f();
    return true;
  } catch (const std::invalid_argument& e) {
    if (!names_it(e.what()))
      t.problem(label + ": " + entry + ": std::invalid_argument that names no field: " + e.what());
    t.count(std::string(entry) + ":invalid_argument");
  } catch (const std::exception& e) {
    t.problem(label + ": " + entry + ": threw something other than std::invalid_argument: " + e.what());
  }
  return false;
}

bool names_a_field(const std::string& m) {
  return contains(m, "field '");
}

// A spec file's error names the field, or says that the file is no JSON (and where) or no object.
bool names_a_spec_problem(const std::string& m) {
  return contains(m, "device spec ") &&
         (contains(m, "field '") || contains(m, "not valid JSON") || contains(m, "JSON object at the top"));
}

// What the CLI may answer with: a spec-file error as above, or a roofline error naming a field.
bool names_what_is_wrong(const std::string& m) {
  return names_a_spec_problem(m) || names_a_field(m);
}

// ---- the roofline entry points ----------------------------------------------------------------------

// Checks a compute-bound count against its definition: the smallest count whose intensity reaches I*.
void check_count(Tally& t, const std::string& label, const char* what, std::int64_t n, double ridge,
                 double scale) {
  if (n == rl::kOutOfRange) {
    // Only where the exact count really is past the limit.
    if (ridge * scale < 0.99 * static_cast<double>(rl::kMaxCount))
      t.problem(label + ": " + what + " reported out of range for a ridge of " + std::to_string(ridge));
    t.count(std::string(what) + ":out_of_range");
    return;
  }
  const double exact = ridge * scale;  // the count, as a real number
  if (n < 1 || std::abs(static_cast<double>(n) - std::max(1.0, std::ceil(exact))) > 1 + 1e-9 * exact)
    t.problem(label + ": " + what + " = " + std::to_string(n) + ", expected about ceil(" +
              std::to_string(exact) + ")");
}

// What the CLI does with a spec, at the library level, so that the exception type can be checked:
// compare (both memory levels, every dtype and unit), eval (ideal and tile traffic, GEMM and GEMV, tiny
// to huge shapes) and the plot's data and script.
void exercise_roofline(Tally& t, const std::string& label, const DeviceSpec& s) {
  const std::vector<DType> dtypes(ridgeline::kAllDTypes.begin(), ridgeline::kAllDTypes.end());
  const std::vector<Unit> units(ridgeline::kAllUnits.begin(), ridgeline::kAllUnits.end());
  ridgeline::TileConfig tile;  // what `roofline eval --tile 64x64x32` passes
  tile.bm = 64;
  tile.bn = 64;
  tile.bk = 32;
  for (rl::MemoryLevel level : {rl::MemoryLevel::dram, rl::MemoryLevel::l2}) {
    std::vector<rl::CompareRow> rows;
    if (returns_or_names(
            t, label, "compare", [&] { rows = rl::compare({s}, dtypes, units, level); }, names_a_field)) {
      t.count("compare:rows");
      for (const auto& r : rows) {
        if (!r.available) continue;
        if (std::isnan(r.ridge)) t.problem(label + ": compare: NaN ridge");
        const int eb = ridgeline::dtype_bytes(r.dtype);
        check_count(t, label, "gemm_n", r.gemm_n, r.ridge, eb * 3.0 / 2.0);
        check_count(t, label, "gemv_batch", r.gemv_batch, r.ridge, eb / 2.0);
      }
    }
    for (DType d : dtypes)
      for (Unit u : units) {
        returns_or_names(
            t, label, "gemm_compute_bound_n(beta)", [&] { rl::gemm_compute_bound_n(s, d, u, true, level); },
            names_a_field);
        const std::vector<rl::Traffic> traffics = {
            rl::gemm_ideal(1, 1, 1, ridgeline::dtype_bytes(d), false),
            rl::gemm_ideal(8192, 8192, 8192, ridgeline::dtype_bytes(d), true),
            rl::gemm_ideal(999999999999999, 999999999999999, 999999999999999, ridgeline::dtype_bytes(d),
                           false),
            rl::gemv_ideal(16384, 16384, ridgeline::dtype_bytes(d), false, 8),
            rl::gemm_tile_traffic(4097, 4097, 4097, ridgeline::dtype_bytes(d), false, tile,
                                  static_cast<double>(s.l2_bytes))};
        for (const auto& tr : traffics) {
          rl::EvalOptions opt;
          opt.level = level;
          rl::Point p;
          if (returns_or_names(
                  t, label, "evaluate", [&] { p = rl::evaluate(s, d, u, tr, 1e-3, opt); }, names_a_field)) {
            for (double v : {p.intensity, p.attainable_flops, p.ridge, p.achieved_flops, p.efficiency,
                             p.roof_flops, p.min_seconds})
              if (std::isnan(v)) t.problem(label + ": evaluate gave a NaN");
          }
        }
      }
    ridgeline::PlotOptions po;
    po.level = level;
    std::vector<ridgeline::RoofSelection> roofs;
    for (DType d : dtypes)
      for (Unit u : units) roofs.push_back({d, u});
    returns_or_names(
        t, label, "plot",
        [&] {
          ridgeline::roofline_plot_data({s}, roofs, {{"point", 10.0, 1000.0}}, po);
          ridgeline::roofline_plot_script({s}, roofs, {}, "r.dat", "r.svg", po);
        },
        [](const std::string& m) {
          return names_a_field(m) || contains(m, "none of the devices has a peak");
        });
  }
}

// ---- spec documents -----------------------------------------------------------------------------

struct CliResult {
  int code;
  std::string out, err;
};

CliResult cli_run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = ridgeline::cli::run(args, out, err);
  return {code, out.str(), err.str()};
}

// One mutated document through the loader, the roofline and the CLI (from a file, as a user runs it).
void check_document(Tally& t, const std::string& label, const std::string& doc, const std::string& path) {
  DeviceSpec spec;
  const bool loaded = returns_or_names(
      t, label, "load", [&] { spec = ridgeline::parse_device_spec_json(doc, "'fuzz'"); },
      names_a_spec_problem);
  t.count(loaded ? "load:ok" : "load:rejected");
  if (loaded) exercise_roofline(t, label, spec);

  {
    std::ofstream f(path, std::ios::binary);
    f << doc;
  }
  auto expect_answer = [&](const std::vector<std::string>& args) {
    const CliResult r = cli_run(args);
    std::string cmd;
    for (const auto& a : args) cmd += (a == path ? std::string("FILE") : a) + " ";
    if (r.code == ridgeline::cli::kExitOk) return r;
    if (r.code != ridgeline::cli::kExitError || r.err.rfind("ridgeline: error: ", 0) != 0 ||
        !names_what_is_wrong(r.err))
      t.problem(label + ": `ridgeline " + cmd + "` exit " + std::to_string(r.code) + ": " +
                r.err.substr(0, 300));
    if (loaded && contains(args[0], "spec"))
      t.problem(label + ": `ridgeline " + cmd +
                "` failed on a spec the loader accepted: " + r.err.substr(0, 300));
    return r;
  };
  const CliResult json = expect_answer({"spec", "--file", path, "--json"});
  if (loaded != (json.code == 0)) t.problem(label + ": spec --file disagrees with the loader");
  if (json.code == 0) {
    // What `spec --json` writes must load again, to the same text.
    returns_or_names(
        t, label, "reload",
        [&] {
          const DeviceSpec back = ridgeline::parse_device_spec_json(json.out, "'reloaded'");
          if (ridgeline::device_spec_to_json(back) + "\n" != json.out)
            t.problem(label + ": spec --json does not round-trip");
        },
        names_a_spec_problem);
  }
  expect_answer({"spec", "--file", path});
  expect_answer({"spec", "--file", path, "--csv"});
  expect_answer({"roofline", "compare", path});
  expect_answer({"roofline", "compare", path, "h200", "--json"});
  expect_answer({"roofline", "compare", path, "--csv", "--level", "l2"});
  expect_answer({"roofline", "eval", path, "--gemm", "8192x8192x8192", "--dtype", "fp64", "--json"});
  expect_answer({"roofline", "eval", path, "--gemm", "999999999999999x1x999999999999999", "--tile",
                 "64x64x32", "--dtype", "fp16", "--unit", "matrix"});
  expect_answer({"roofline", "eval", path, "--gemv", "16384x16384", "--batch", "8", "--csv"});
  t.count("documents");
}

// The spec's numeric fields, as paths into its JSON ("peak_flops.fp64.vector" included).
std::vector<std::vector<std::string>> numeric_paths(const Json& j) {
  std::vector<std::vector<std::string>> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_number()) out.push_back({it.key()});
    if (it.key() == "peak_flops")
      for (auto d = it->begin(); d != it->end(); ++d)
        for (auto u = d->begin(); u != d->end(); ++u) out.push_back({"peak_flops", d.key(), u.key()});
  }
  return out;
}

Json* at_path(Json& j, const std::vector<std::string>& path) {
  Json* v = &j;
  for (const auto& p : path) {
    if (!v->is_object() || !v->contains(p)) return nullptr;
    v = &(*v)[p];
  }
  return v;
}

std::string dotted(const std::vector<std::string>& path) {
  std::string s;
  for (const auto& p : path) s += (s.empty() ? "" : ".") + p;
  return s;
}

// Extreme, denormal, negative, integer-wrapping and unit-mistaken figures.
Json extreme_number(std::mt19937_64& rng, double current) {
  const std::vector<Json> fixed = {
      Json(1e308),
      Json(-1e308),
      Json(DBL_MAX),
      Json(5e-324),
      Json(1e-320),
      Json(DBL_MIN),
      Json(0),
      Json(-0.0),
      Json(-1),
      Json(1e19),
      Json(9.3e18),
      Json(std::numeric_limits<std::int64_t>::max()),
      Json(std::numeric_limits<std::uint64_t>::max()),
      Json(std::int64_t(1) << 53),
      Json(4294967297LL),
      Json(2147483648LL),
      Json(1e-9),
      Json(0.5),
      Json(1.5),
      Json(current * 1e-12),  // TB/s or TFLOP/s written as a count
      Json(current * 1e-9),
      Json(current * 1e12),
      Json(current / 1048576.0),  // MiB written as bytes
      Json(current * 1e3),
      Json(current * 1e-3),
  };
  return fixed[rng() % fixed.size()];
}

Json wrong_type(std::mt19937_64& rng) {
  const std::vector<Json> v = {
      Json("a string"),    Json(true),       Json(false),  Json::array(), Json::object(),
      Json::array({1, 2}), Json({{"x", 1}}), Json("1e12"), Json(nullptr), Json("")};
  return v[rng() % v.size()];
}

Json nan_as_string(std::mt19937_64& rng) {
  const std::vector<std::string> v = {"NaN", "nan", "Infinity", "-Infinity", "inf", "-inf", "INF"};
  return Json(v[rng() % v.size()]);
}

// A value wrapped in `depth` arrays or objects.
std::string nested(const std::string& inner, int depth, bool objects) {
  std::string s;
  s.reserve(inner.size() + std::size_t(depth) * 8);
  for (int i = 0; i < depth; ++i) s += objects ? "{\"a\":" : "[";
  s += inner;
  for (int i = 0; i < depth; ++i) s += objects ? "}" : "]";
  return s;
}

// Mutation `kind` of one spec's JSON, deterministic in rng.
std::string mutate(const Json& base, int kind, std::mt19937_64& rng, std::string& what) {
  Json j = base;
  const auto paths = numeric_paths(j);
  const auto& path = paths[rng() % paths.size()];
  const std::string marker = "\"@@FUZZ@@\"";
  auto replace_marker = [&](const std::string& text) {
    std::string doc = j.dump(2);
    const auto at = doc.find(marker);
    return doc.replace(at, marker.size(), text);
  };
  switch (kind) {
    case 0: {  // delete a field (top level, a dtype, or one peak)
      std::vector<std::string> keys;
      for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
      const std::string k = keys[rng() % keys.size()];
      if (k == "peak_flops" && rng() % 2) {
        Json& peaks = j["peak_flops"];
        std::vector<std::string> ds;
        for (auto it = peaks.begin(); it != peaks.end(); ++it) ds.push_back(it.key());
        const std::string d = ds[rng() % ds.size()];
        if (rng() % 2) {
          peaks.erase(d);
          what = "delete peak_flops." + d;
        } else {
          peaks[d].erase("vector");
          what = "delete peak_flops." + d + ".vector";
        }
      } else {
        j.erase(k);
        what = "delete " + k;
      }
      return j.dump(2);
    }
    case 1: {  // wrong type
      const Json v = wrong_type(rng);
      *at_path(j, path) = v;
      what = dotted(path) + " = " + v.dump();
      return j.dump(2);
    }
    case 2: {  // extreme number
      const Json v = extreme_number(rng, at_path(j, path)->get<double>());
      *at_path(j, path) = v;
      what = dotted(path) + " = " + v.dump();
      return j.dump(2);
    }
    case 3: {  // NaN / Infinity as strings
      const Json v = nan_as_string(rng);
      *at_path(j, path) = v;
      what = dotted(path) + " = " + v.dump();
      return j.dump(2);
    }
    case 4: {  // NaN / Infinity / out-of-double literals written bare (not JSON)
      const std::vector<std::string> v = {"NaN", "Infinity", "-Infinity", "1e999", "-1e999", "1e-999", "nan"};
      const std::string lit = v[rng() % v.size()];
      *at_path(j, path) = "@@FUZZ@@";
      what = dotted(path) + " = " + lit + " (bare)";
      return replace_marker(lit);
    }
    case 5: {  // truncation
      const std::string doc = j.dump(2);
      const std::size_t at = rng() % doc.size();
      what = "truncated at byte " + std::to_string(at);
      return doc.substr(0, at);
    }
    case 6: {  // deep nesting of one value, or of the whole document
      const int depths[] = {2, 64, 1000, 1000000};
      const int depth = depths[rng() % 4];
      const bool objects = rng() % 2;
      if (rng() % 4 == 0) {
        what = "document nested " + std::to_string(depth) + (objects ? " objects" : " arrays") + " deep";
        return nested(j.dump(), depth, objects);
      }
      const std::string inner = at_path(j, path)->dump();
      *at_path(j, path) = "@@FUZZ@@";
      what = dotted(path) + " nested " + std::to_string(depth) + (objects ? " objects" : " arrays") + " deep";
      return replace_marker(nested(inner, depth, objects));
    }
    case 7: {  // several extreme figures at once (the issue's hangs had one, this keeps the rest intact)
      const int n = 2 + int(rng() % 3);
      for (int i = 0; i < n; ++i) {
        const auto& p = paths[rng() % paths.size()];
        const Json v = extreme_number(rng, at_path(j, p)->get<double>());
        *at_path(j, p) = v;
        what += dotted(p) + " = " + v.dump() + "; ";
      }
      return j.dump(2);
    }
    case 8: {  // bytes: replaced, inserted or deleted
      std::string doc = j.dump(2);
      const char bytes[] = {'\0', '\xff', '"', '{', '}', '[', ']', ',', ':', '-', 'e', '9', '\\', '\n'};
      const int n = 1 + int(rng() % 4);
      for (int i = 0; i < n && !doc.empty(); ++i) {
        const std::size_t at = rng() % doc.size();
        const char b = bytes[rng() % sizeof bytes];
        switch (rng() % 3) {
          case 0:
            doc[at] = b;
            break;
          case 1:
            doc.insert(doc.begin() + long(at), b);
            break;
          default:
            doc.erase(at, 1);
        }
      }
      what = std::to_string(n) + " byte edit(s)";
      return doc;
    }
    default: {  // unknown, renamed or duplicated fields
      std::string doc = j.dump(2);
      const std::vector<std::string> extra = {"\"dram_bw\": 4.8e12,", "\"dram_bw_bytes_per_s\": 1e-320,",
                                              "\"peak_flops\": {},", "\"\": 1,", "\"compute_units\": 1e9,"};
      const std::string e = extra[rng() % extra.size()];
      what = "inserted " + e;
      return doc.insert(doc.find('{') + 1, e);
    }
  }
}

// Every built-in spec and this machine's host spec: the templates users start from.
std::vector<DeviceSpec> template_specs() {
  std::vector<DeviceSpec> v = ridgeline::builtin_device_specs();
  v.push_back(ridgeline::find_device_spec("host"));
  return v;
}

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir =
      std::filesystem::temp_directory_path() / ("ridgeline_fuzz_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace

// ---- the tests ------------------------------------------------------------------------------------------

TEST(SpecFuzz, BuiltinSpecsPassTheirPlausibilityChecks) {
  for (const auto& s : template_specs()) {
    SCOPED_TRACE(s.key);
    EXPECT_NO_THROW(ridgeline::validate_device_spec(s));
    EXPECT_NO_THROW(ridgeline::parse_device_spec_json(ridgeline::device_spec_to_json(s)));
  }
}

TEST(SpecFuzz, MutatedSpecFilesThroughLoaderRooflineAndCli) {
  constexpr int kKinds = 10, kPerSpec = 100;
  const auto specs = template_specs();
  const auto dir = fresh_dir("docs");
  auto state = std::make_shared<BoundedRun>();
  auto docs = std::make_shared<std::vector<std::pair<std::string, std::string>>>();  // {label, document}
  for (std::size_t si = 0; si < specs.size(); ++si) {
    const Json base = Json::parse(ridgeline::device_spec_to_json(specs[si]));
    for (int i = 0; i < kPerSpec; ++i) {
      const std::uint64_t seed = 19000 + si * 1000 + std::uint64_t(i);
      std::mt19937_64 rng(seed);
      std::string what;
      const std::string doc = mutate(base, i % kKinds, rng, what);
      docs->push_back({specs[si].key + " seed " + std::to_string(seed) + " (" + what + ")", doc});
    }
  }
  // The two hangs of issue 19, each with the rest of the file intact.
  {
    Json j = Json::parse(ridgeline::device_spec_to_json(ridgeline::find_device_spec("h200")));
    j["peak_flops"]["fp64"]["matrix"] = 1e308;
    docs->push_back({"h200 with a 1e308 FP64 matrix peak", j.dump(2)});
    j = Json::parse(ridgeline::device_spec_to_json(ridgeline::find_device_spec("h200")));
    j["dram_bw_bytes_per_s"] = 1e-320;
    docs->push_back({"h200 with a DRAM bandwidth of 1e-320", j.dump(2)});
  }
  const std::string path = (dir / "spec.json").string();
  state->label = [docs](int i) { return (*docs)[std::size_t(i)].first; };
  state->body = [docs, state, path](int i) {
    check_document(state->tally, (*docs)[std::size_t(i)].first, (*docs)[std::size_t(i)].second, path);
  };
  const std::string hung = run_bounded(state, int(docs->size()));
  report(state, hung, "mutated spec files");
  std::lock_guard<std::mutex> g(state->tally.mu);
  // The mutations must reach both sides: specs that load and run, and specs rejected with a reason.
  EXPECT_GT(state->tally.counts["load:ok"], 0);
  EXPECT_GT(state->tally.counts["load:rejected"], 0);
  if (hung.empty()) std::filesystem::remove_all(dir);
}

TEST(SpecFuzz, ExtremeFiguresInCodeBuiltSpecsReachTheRoofline) {
  // A DeviceSpec built in code or detected at run time has not been through the loader's range checks.
  const std::vector<double> figures = {1e308,
                                       DBL_MAX,
                                       5e-324,
                                       1e-320,
                                       DBL_MIN,
                                       1e-300,
                                       1e300,
                                       1e30,
                                       1e18,
                                       1e9,
                                       1,
                                       0,
                                       -1,
                                       -0.0,
                                       std::nan(""),
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity()};
  const auto specs = template_specs();
  auto cases = std::make_shared<std::vector<std::pair<std::string, DeviceSpec>>>();
  std::mt19937_64 rng(1919);
  for (const auto& base : specs)
    for (int i = 0; i < 60; ++i) {
      DeviceSpec s = base;
      std::string what;
      const int n = 1 + int(rng() % 3);
      for (int k = 0; k < n; ++k) {
        const double v = figures[rng() % figures.size()];
        std::ostringstream os;
        os << v;
        switch (rng() % 4) {
          case 0:
            s.dram_bw_bytes_per_s = v;
            what += "dram_bw_bytes_per_s=" + os.str() + " ";
            break;
          case 1:
            s.l2_bw_bytes_per_s = v;
            what += "l2_bw_bytes_per_s=" + os.str() + " ";
            break;
          case 2:
            s.launch_overhead_s = v;
            what += "launch_overhead_s=" + os.str() + " ";
            break;
          default: {
            const DType d = ridgeline::kAllDTypes[rng() % 5];
            const Unit u = ridgeline::kAllUnits[rng() % 2];
            s.set_peak_flops(d, u, v);
            what += "peak_flops." + ridgeline::to_string(d) + "." + ridgeline::to_string(u) + "=" + os.str() +
                    " ";
          }
        }
      }
      cases->push_back({base.key + " #" + std::to_string(i) + " (" + what + ")", s});
    }
  auto state = std::make_shared<BoundedRun>();
  state->label = [cases](int i) { return (*cases)[std::size_t(i)].first; };
  state->body = [cases, state](int i) {
    // Not a structured binding: nvcc's C++17 cannot capture one in the lambda below.
    const std::string& label = (*cases)[std::size_t(i)].first;
    const auto& spec = (*cases)[std::size_t(i)].second;
    exercise_roofline(state->tally, label, spec);
    // The range check names the field for whatever it rejects.
    returns_or_names(
        state->tally, label, "validate", [&] { ridgeline::validate_device_spec(spec); }, names_a_field);
    state->tally.count("specs");
  };
  report(state, run_bounded(state, int(cases->size())), "code-built specs");
}

// ---- perf shapes --------------------------------------------------------------------------------------

namespace {

// A shape list a user might type, mangled: extents at and past every integer boundary, odd separators,
// presets, empty items, stray bytes. Most pieces are well-formed, so that most lists get past the parser
// to the memory check.
std::string random_shape_list(std::mt19937_64& rng) {
  const std::vector<std::string> ops = {"gemm", "gemv"}, bad_ops = {"GEMM", "gem", "", "gemmm"};
  // C (conjugate transpose) is taken with the complex dtypes and refused, naming the shape, with real ones.
  const std::vector<std::string> trans = {"NN", "NT", "TN", "TT", "N", "T", "nn", "t", "CN", "NC", "C", "cc"},
                                 bad_trans = {"X", "NNN", "", "NX"};
  const std::vector<std::string> extents = {"1",
                                            "2",
                                            "512",
                                            "4097",
                                            "65536",
                                            "2147483647",
                                            "2147483648",
                                            "4294967296",
                                            "99999999999",
                                            "9007199254740993",
                                            "4611686018427387904",
                                            "9223372036854775807",
                                            "00000000000000000000001",
                                            " 5",
                                            "+5"};
  const std::vector<std::string> bad_extents = {"9223372036854775808",
                                                "18446744073709551616",
                                                "99999999999999999999999",
                                                "0",
                                                "-1",
                                                "-0",
                                                "5 ",
                                                "1e9",
                                                "0x10",
                                                "",
                                                "\xd9\xa3"};
  const std::vector<std::string> dtypes = {"fp32", "fp64", "f32",  "double", "float",
                                           "fp16", "bf16", "tf32", "cf32",   "cf64"},
                                 bad_dtypes = {"fp8", "", "FP32", "FP16"};
  const std::vector<std::string> presets = {"quick-host",  "host-2048",   "h200",         "h200-half",
                                            "cliffs-host", "h100",        "batched-host", "batched",
                                            "complex",     "complex-host"};
  // The optional fifth field of a batched GEMM (shape_spec.hpp): counts at and past the 32-bit boundary.
  const std::vector<std::string> batches = {"1", "2", "3", "30000", "2147483648", "9223372036854775807"},
                                 bad_batches = {"0", "-1", "", "1e3", "x"};
  auto pick = [&](const std::vector<std::string>& good, const std::vector<std::string>& bad) {
    return rng() % 16 ? good[rng() % good.size()] : bad[rng() % bad.size()];
  };
  std::string list;
  const int items = 1 + int(rng() % 4);
  for (int i = 0; i < items; ++i) {
    if (i) list += rng() % 16 ? "," : ",,";
    if (rng() % 16 == 0) {
      list += presets[rng() % presets.size()];
      continue;
    }
    const std::string op = pick(ops, bad_ops);
    std::string t = pick(trans, bad_trans);
    if (op == "gemm" && t.size() == 1) t += t;  // mostly the transpose count the op wants
    if (op == "gemv" && t.size() == 2) t.resize(1);
    const int n_ext = rng() % 16 ? (op == "gemv" ? 2 : 3) : int(rng() % 5);
    std::string ext;
    for (int e = 0; e < n_ext; ++e) ext += (e ? "x" : "") + pick(extents, bad_extents);
    const std::string parts[] = {op, t, ext, pick(dtypes, bad_dtypes)};
    const int n_parts = rng() % 16 ? 4 : int(rng() % 6);
    for (int p = 0; p < n_parts; ++p) list += (p ? ":" : "") + parts[p % 4];
    // A batch now and then, on GEMV too (which rejects it), now and then misspelt.
    if (n_parts == 4 && rng() % 8 == 0)
      list += (rng() % 16 ? ":batch=" : ":batches=") + pick(batches, bad_batches);
  }
  if (rng() % 16 == 0 && !list.empty()) {
    const char bytes[] = {'\0', ':', ',', 'x', '-', '9', ' ', '\xff'};
    list[rng() % list.size()] = bytes[rng() % sizeof bytes];
  }
  return list;
}

// The bytes of one case, recomputed in long double (64-bit mantissa on x86: exact below 2^64) as a
// reference for case_footprint's 64-bit arithmetic.
long double reference_bytes(const ridgeline_perf::ShapeSpec& s, double rotate_bytes, int max_sets,
                            int& sets) {
  // A, B (x) at the inputs' width, C (y) at the output's: fp16/bf16 are 2 bytes in, 4 out.
  const long double ei = s.in_bytes(), eo = s.out_bytes();
  const long double a = (long double)s.a_rows() * (long double)s.a_cols() * ei;
  const long double b = s.op == ridgeline_perf::Op::gemm
                            ? (long double)s.b_rows() * (long double)s.b_cols() * ei
                            : (long double)s.x_len() * ei;
  const long double c = s.op == ridgeline_perf::Op::gemm ? (long double)s.m * (long double)s.n * eo
                                                         : (long double)s.y_len() * eo;
  // A batch's set holds all its matrices; the check writes the whole batch and keeps a reference of
  // check_matrices (the first, a middle one and the last: min(batch, 3)), so 2 c for a single product.
  const long double set = (a + b + c) * (long double)s.batch;
  const long double want = rotate_bytes > 0 ? std::ceil((long double)rotate_bytes / set) : 1.0L;
  sets = int(std::max(1.0L, std::min((long double)std::max(1, max_sets), want)));
  const long double checked = s.batch > 2 ? 3.0L : (long double)s.batch;
  return set * sets + ((long double)s.batch + checked) * c;
}

}  // namespace

TEST(ShapeFuzz, TheIssueExamplesAreRejectedBeforeAllocating) {
  using namespace ridgeline_perf;
  const std::uint64_t mem = std::uint64_t(16) << 30;
  for (const char* text :
       {"gemm:NN:99999999999x99999999999x99999999999:fp64", "gemv:N:4294967296x4294967296:fp32"}) {
    SCOPED_TRACE(text);
    const auto shapes = parse_shapes(text);
    ASSERT_EQ(shapes.size(), 1u);
    EXPECT_TRUE(case_footprint(shapes[0], 0, 64).overflow);
    try {
      check_shapes_fit(shapes, 0, 64, mem, "test memory");
      ADD_FAILURE() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(contains(e.what(), std::string("shape '") + text + "' does not fit in test memory"))
          << e.what();
      EXPECT_TRUE(contains(e.what(), "2^64")) << e.what();
    }
  }
  // Fits in 64 bits, not in the memory: the message says by how much. 3 x 80 GB + 2 x 80 GB for the check.
  const auto big = parse_shapes("gemm:NN:100000x100000x100000:fp64,gemm:NN:512x512x512:fp32");
  try {
    check_shapes_fit(big, 0, 64, mem, "test memory");
    ADD_FAILURE() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_TRUE(contains(e.what(), "gemm:NN:100000x100000x100000:fp64")) << e.what();
    EXPECT_TRUE(contains(e.what(), "it needs 372.5 GiB")) << e.what();
    EXPECT_TRUE(contains(e.what(), "356.5 GiB more than the 16 GiB there is")) << e.what();
  }
  // Rotation counts: 512^3 fp32 is 3 MiB a set; 64 sets cover 192 MiB of rotation.
  const auto small = parse_shapes("gemm:NN:512x512x512:fp32");
  const CaseFootprint f = case_footprint(small[0], 192.0 * (1 << 20), 64);
  EXPECT_EQ(f.sets, 64);
  EXPECT_EQ(f.total_bytes, 64ull * 3 * (1 << 20) + 2ull * (1 << 20));
  EXPECT_EQ(case_footprint(small[0], 1e30, 64).sets, 64);  // clamped, no int overflow
  EXPECT_EQ(case_footprint(small[0], 1e30, 4096).sets, 4096);
  EXPECT_NO_THROW(check_shapes_fit(small, 192.0 * (1 << 20), 64, mem, "test memory"));
  EXPECT_THROW(check_shapes_fit(small, 192.0 * (1 << 20), 64, 64ull << 20, "test memory"),
               std::invalid_argument);
}

TEST(ShapeFuzz, BatchFieldCountsTheWholeBatch) {
  using namespace ridgeline_perf;
  const ShapeSpec s = parse_shape("gemm:NN:32x32x32:fp64:batch=30000");
  EXPECT_EQ(s.batch, 30000);
  EXPECT_EQ(spec_string(s), "gemm:NN:32x32x32:fp64:batch=30000");
  EXPECT_EQ(shape_string(s), "32x32x32:batch=30000");
  EXPECT_DOUBLE_EQ(s.flops(), 30000.0 * 2 * 32 * 32 * 32);
  const CaseFootprint f = case_footprint(s, 0, 64);
  EXPECT_EQ(f.set_bytes, 30000ull * 3 * 32 * 32 * 8);
  EXPECT_EQ(f.check_bytes, (30000ull + 3) * 32 * 32 * 8);
  EXPECT_EQ(check_matrices(s), (std::vector<std::int64_t>{0, 15000, 29999}));
  // batch=1 is the single product, and prints as one.
  EXPECT_EQ(spec_string(parse_shape("gemm:NN:32x32x32:fp64:batch=1")), "gemm:NN:32x32x32:fp64");
  const std::pair<const char*, const char*> bad[] = {
      {"gemv:N:32x32:fp64:batch=4", "only GEMM is measured batched"},
      {"gemm:NN:32x32x32:fp64:batch=0", "bad batch count '0'"},
      {"gemm:NN:32x32x32:fp64:batches=4", "is not batch=N"},
      {"gemm:NN:32x32x32:fp64:batch=4:x", "op:trans:extents:dtype[:batch=N]"}};
  for (const auto& [text, why] : bad) {
    SCOPED_TRACE(text);
    try {
      parse_shape(text);
      ADD_FAILURE() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_TRUE(contains(e.what(), why)) << e.what();
      EXPECT_TRUE(contains(e.what(), std::string("'") + text + "'")) << e.what();
    }
  }
  // The presets: 16 cases each, batch = round(bytes / ((mk + kn + mn) x elem bytes)).
  const auto gpu = parse_shapes("batched"), host = parse_shapes("batched-host");
  ASSERT_EQ(gpu.size(), 16u);
  ASSERT_EQ(host.size(), 16u);
  EXPECT_EQ(spec_string(gpu[0]), "gemm:NN:4x4x4:fp32:batch=5208333");
  EXPECT_EQ(spec_string(gpu[15]), "gemm:NN:32x512x32:fp64:batch=3699");
  EXPECT_EQ(spec_string(host[14]), "gemm:NN:256x256x256:fp64:batch=41");
}

TEST(ShapeFuzz, MangledShapeListsParseOrNameTheShape) {
  using namespace ridgeline_perf;
  const std::uint64_t memories[] = {std::uint64_t(1) << 30, std::uint64_t(16) << 30, UINT64_MAX};
  const double rotations[] = {0, 192.0 * (1 << 20), 1e30, -1};
  const int max_sets[] = {1, 64, 4096};
  auto state = std::make_shared<BoundedRun>();
  auto inputs = std::make_shared<std::vector<std::string>>();
  std::mt19937_64 rng(4294967296ull);
  for (int i = 0; i < 3000; ++i) inputs->push_back(random_shape_list(rng));
  state->label = [inputs](int i) { return "shapes '" + (*inputs)[std::size_t(i)] + "'"; };
  state->body = [inputs, state, memories, rotations, max_sets](int i) {
    Tally& t = state->tally;
    const std::string& text = (*inputs)[std::size_t(i)];
    const std::string label = state->label(i);
    std::vector<ShapeSpec> shapes;
    if (!returns_or_names(
            t, label, "parse_shapes", [&] { shapes = parse_shapes(text); },
            [](const std::string& m) { return contains(m, "'"); })) {
      t.count("rejected");
      return;
    }
    t.count("parsed");
    for (const auto& s : shapes) {
      // The canonical form parses back to the same case.
      const auto again = parse_shapes(spec_string(s));
      if (again.size() != 1 || spec_string(again[0]) != spec_string(s))
        t.problem(label + ": " + spec_string(s) + " does not parse back");
    }
    for (std::uint64_t mem : memories)
      for (double rot : rotations)
        for (int ms : max_sets) {
          bool fits = false;
          returns_or_names(
              t, label, "check_shapes_fit",
              [&] {
                check_shapes_fit(shapes, rot, ms, mem, "test memory");
                fits = true;
              },
              [](const std::string& m) { return contains(m, "shape '") && contains(m, "does not fit"); });
          // Against the long-double reference, away from the rounding zone at the boundaries.
          bool all_fit = true, decided = true;
          for (const auto& s : shapes) {
            int sets = 0;
            const long double ref = reference_bytes(s, rot, ms, sets);
            const CaseFootprint f = case_footprint(s, rot, ms);
            const long double limit = std::min((long double)mem, 18446744073709551615.0L);
            if (std::abs(ref / limit - 1) < 1e-12L) decided = false;
            if (ref > limit) all_fit = false;
            if (!f.overflow && ref < 1.8e19L && (f.sets != sets || (long double)f.total_bytes != ref))
              t.problem(label + ": footprint of " + spec_string(s) + " is " + std::to_string(f.total_bytes) +
                        " bytes in " + std::to_string(f.sets) + " sets; the reference has " +
                        std::to_string(double(ref)) + " in " + std::to_string(sets));
            if (f.overflow && ref < 1.8e19L)
              t.problem(label + ": " + spec_string(s) + " reported as overflowing 64 bits at " +
                        std::to_string(double(ref)) + " bytes");
            if (!all_fit) break;
          }
          if (decided && fits != all_fit)
            t.problem(label + ": check_shapes_fit says " + (fits ? "fits" : "does not fit") + " in " +
                      std::to_string(mem) + " bytes; the reference disagrees");
          t.count(fits ? "fit" : "did_not_fit");
        }
  };
  report(state, run_bounded(state, int(inputs->size())), "shape lists");
}

#if defined(RIDGELINE_PERF_PATH)
TEST(ShapeFuzz, PerfBinaryRejectsShapesThatDoNotFitWithTheUsageStatus) {
  for (const char* shapes :
       {"gemm:NN:99999999999x99999999999x99999999999:fp64", "gemv:N:4294967296x4294967296:fp32",
        "gemm:NN:512x512x512:fp32,gemm:NN:4000000x4000000x1:fp64"}) {
    SCOPED_TRACE(shapes);
    const std::string cmd = std::string("OMP_NUM_THREADS=1 '") + RIDGELINE_PERF_PATH + "' --shapes '" +
                            shapes + "' --impls ridgeline 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string output;
    char buf[512];
    while (std::fgets(buf, sizeof buf, pipe)) output += buf;
    const int status = pclose(pipe);
    ASSERT_TRUE(WIFEXITED(status)) << output;
    EXPECT_EQ(WEXITSTATUS(status), 1) << output;  // the usage-error status, as for a malformed shape
    EXPECT_TRUE(contains(output, "does not fit")) << output;
    EXPECT_FALSE(contains(output, "running ")) << output;  // nothing ran, nothing was allocated for a case
  }
}
#endif
