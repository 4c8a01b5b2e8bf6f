#include "ridgeline/tune_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "ridgeline/tune_result.hpp"

namespace ridgeline {

namespace {
using Json = nlohmann::ordered_json;
constexpr const char* kFormat = "ridgeline-tune-1";

std::string str_field(const Json& j, const char* f, const std::string& where, bool required) {
  const auto it = j.find(f);
  if (it == j.end() || it->is_null()) {
    if (required) throw std::invalid_argument(where + ": field '" + f + "' is missing");
    return "";
  }
  if (!it->is_string()) throw std::invalid_argument(where + ": field '" + f + "': expected a string");
  return it->get<std::string>();
}
double num_field(const Json& j, const char* f, const std::string& where) {
  const auto it = j.find(f);
  if (it == j.end() || it->is_null()) return 0.0;
  if (!it->is_number() || !(it->get<double>() >= 0))
    throw std::invalid_argument(where + ": field '" + f + "': expected a non-negative number");
  return it->get<double>();
}
}  // namespace

TuneCache TuneCache::parse(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument("tune cache '" + source + "': not JSON: " + e.what());
  }
  if (!j.is_object()) throw std::invalid_argument("tune cache '" + source + "': expected a JSON object");
  const std::string format = str_field(j, "format", "tune cache '" + source + "'", true);
  if (format != kFormat)
    throw std::invalid_argument("tune cache '" + source + "': format '" + format + "', this build reads '" +
                                kFormat + "'");
  const auto it = j.find("choices");
  if (it == j.end() || !it->is_array())
    throw std::invalid_argument("tune cache '" + source + "': field 'choices': expected an array");
  TuneCache cache;
  int i = 0;
  for (const Json& r : *it) {
    const std::string where = "tune cache '" + source + "', choices[" + std::to_string(i++) + "]";
    if (!r.is_object()) throw std::invalid_argument(where + ": expected an object");
    TuneRecord rec;
    rec.key.device = str_field(r, "device", where, true);
    rec.key.backend = str_field(r, "backend", where, true);
    rec.key.dtype = str_field(r, "dtype", where, true);
    rec.key.shape_class = str_field(r, "class", where, true);
    try {
      parse_shape_class(rec.key.shape_class);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ": field 'class': " + e.what());
    }
    rec.choice.entry = str_field(r, "entry", where, true);
    const auto s = r.find("slices");
    if (s != r.end() && !s->is_null()) {
      if (!s->is_number_integer() || s->get<int>() < 0 || s->get<int>() > 4096)
        throw std::invalid_argument(where + ": field 'slices': expected an integer from 0 to 4096");
      rec.choice.slices = s->get<int>();
    }
    rec.choice.builtin = str_field(r, "builtin", where, false);
    rec.choice.builtin_ms = num_field(r, "builtin_ms", where);
    rec.choice.tuned_ms = num_field(r, "tuned_ms", where);
    rec.choice.shape = str_field(r, "shape", where, false);
    rec.choice.date = str_field(r, "date", where, false);
    rec.choice.git_sha = str_field(r, "git_sha", where, false);
    cache.set(rec.key, rec.choice);
  }
  return cache;
}

TuneCache TuneCache::load(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("tune cache '" + path + "': cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path);
}

std::string TuneCache::to_json() const {
  Json j;
  j["format"] = kFormat;
  Json choices = Json::array();
  for (const TuneRecord& r : records_) {
    Json c;
    c["device"] = r.key.device;
    c["backend"] = r.key.backend;
    c["dtype"] = r.key.dtype;
    c["class"] = r.key.shape_class;
    c["entry"] = r.choice.entry;
    c["slices"] = r.choice.slices;
    c["builtin"] = r.choice.builtin;
    c["builtin_ms"] = r.choice.builtin_ms;
    c["tuned_ms"] = r.choice.tuned_ms;
    c["shape"] = r.choice.shape;
    c["date"] = r.choice.date;
    c["git_sha"] = r.choice.git_sha;
    choices.push_back(std::move(c));
  }
  j["choices"] = std::move(choices);
  return j.dump(2) + "\n";
}

void TuneCache::save(const std::string& path) const {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  // Written beside the file and renamed over it, so that a GEMM call in another process never reads
  // half a file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw std::runtime_error("tune cache '" + path + "': cannot be written");
    out << to_json();
    if (!out) throw std::runtime_error("tune cache '" + path + "': write failed");
  }
  std::filesystem::rename(tmp, p, ec);
  if (ec) throw std::runtime_error("tune cache '" + path + "': " + ec.message());
}

const TuneChoice* TuneCache::find(const TuneKey& key) const {
  for (const TuneRecord& r : records_)
    if (r.key == key) return &r.choice;
  return nullptr;
}

const TuneChoice* TuneCache::find(const std::string& device, const char* backend, const char* dtype,
                                  const ShapeClass& cls) const {
  for (const TuneRecord& r : records_)
    if (r.cls == cls && r.key.dtype == dtype && r.key.backend == backend && r.key.device == device)
      return &r.choice;
  return nullptr;
}

void TuneCache::set(const TuneKey& key, const TuneChoice& choice) {
  for (TuneRecord& r : records_) {
    if (r.key == key) {
      r.choice = choice;
      return;
    }
  }
  records_.push_back({key, choice, parse_shape_class(key.shape_class)});
}

std::string tune_cache_path() {
  if (const char* env = std::getenv("RIDGELINE_TUNE_CACHE")) return env;  // "" turns the cache off
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return (std::filesystem::path(xdg) / "ridgeline" / "tune.json").string();
  const char* home = std::getenv("HOME");
  if (!home || !*home) return "";
  return (std::filesystem::path(home) / ".cache" / "ridgeline" / "tune.json").string();
}

namespace {
// Read once under the mutex; afterwards every call takes the fast path, one atomic load.
struct ActiveCache {
  std::mutex mutex;
  std::atomic<bool> read{false};
  std::unique_ptr<TuneCache> cache;  // null: no file, or no choices
};
ActiveCache& active() {
  static ActiveCache a;
  return a;
}
}  // namespace

const TuneCache* active_tune_cache() {
  ActiveCache& a = active();
  if (a.read.load(std::memory_order_acquire)) return a.cache.get();
  std::lock_guard<std::mutex> lock(a.mutex);
  if (!a.read.load(std::memory_order_relaxed)) {
    const std::string path = tune_cache_path();
    std::error_code ec;
    if (!path.empty() && std::filesystem::exists(path, ec)) {
      auto c = std::make_unique<TuneCache>(TuneCache::load(path));  // throws: read stays false
      if (!c->empty()) a.cache = std::move(c);
    }
    a.read.store(true, std::memory_order_release);
  }
  return a.cache.get();
}

void reload_tune_cache() {
  ActiveCache& a = active();
  std::lock_guard<std::mutex> lock(a.mutex);
  a.read.store(false, std::memory_order_release);
  a.cache.reset();
}

std::int64_t shape_class_floor(std::int64_t x) {
  if (x < 1) return 0;
  std::int64_t p = 1;
  while (p <= x / 2) p *= 2;  // the largest power of two at or below x
  return (p >= 2 && x >= p + p / 2) ? p + p / 2 : p;
}

ShapeClass shape_class_of(std::int64_t m, std::int64_t n, std::int64_t k, bool a_m, bool b_n, bool packets,
                          bool beta_zero) {
  ShapeClass c;
  c.ta = a_m ? 'N' : 'T', c.tb = b_n ? 'T' : 'N';
  c.packets = packets, c.beta_zero = beta_zero;
  c.m = shape_class_floor(m), c.n = shape_class_floor(n), c.k = shape_class_floor(k);
  return c;
}

std::string to_string(const ShapeClass& c) {
  std::string s;
  s += c.ta;
  s += c.tb;
  s += c.packets ? " packets" : " elements";
  s += " m" + std::to_string(c.m) + " n" + std::to_string(c.n) + " k" + std::to_string(c.k);
  s += c.beta_zero ? " beta=0" : " beta!=0";
  return s;
}

ShapeClass parse_shape_class(const std::string& s) {
  ShapeClass c;
  char staging[16] = {0}, beta[16] = {0};
  long long m = 0, n = 0, k = 0;
  int used = 0;
  if (std::sscanf(s.c_str(), "%c%c %15s m%lld n%lld k%lld %15s%n", &c.ta, &c.tb, staging, &m, &n, &k, beta,
                  &used) != 7 ||
      used != int(s.size()) || (c.ta != 'N' && c.ta != 'T') || (c.tb != 'N' && c.tb != 'T') ||
      (std::string(staging) != "packets" && std::string(staging) != "elements") ||
      (std::string(beta) != "beta=0" && std::string(beta) != "beta!=0") || m < 1 || n < 1 || k < 1 ||
      shape_class_floor(m) != m || shape_class_floor(n) != n || shape_class_floor(k) != k)
    throw std::invalid_argument("'" + s +
                                "' is not a shape class (e.g. \"NN packets m2048 n2048 k256 beta=0\": M, N "
                                "and K on the grid 1, 2, 3, 4, 6, 8, 12, ...)");
  c.packets = std::string(staging) == "packets";
  c.beta_zero = std::string(beta) == "beta=0";
  c.m = m, c.n = n, c.k = k;
  return c;
}

std::string gemm_shape_class(std::int64_t m, std::int64_t n, std::int64_t k, bool a_m, bool b_n, bool packets,
                             bool beta_zero) {
  return to_string(shape_class_of(m, n, k, a_m, b_n, packets, beta_zero));
}

namespace {
std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}
}  // namespace

std::string describe(const TuneChoice& c) {
  if (c.is_builtin()) return "the table's plan";
  return c.entry + (c.slices > 0 ? ", " + std::to_string(c.slices) + " K slices" : std::string());
}

namespace {
// The candidate of o that ran choice c and passed its check, or nullptr (the table's plan is candidates[0],
// whose choice is the default, builtin, one).
const TuneCandidateResult* accepted_run(const TuneOutcome& o, const TuneChoice& c) {
  for (const TuneCandidateResult& x : o.candidates)
    if (x.accepted && x.choice.entry == c.entry && x.choice.slices == c.slices) return &x;
  return nullptr;
}
}  // namespace

std::vector<std::string> merge_tune_classes(std::vector<TuneOutcome>& outcomes, double min_gain) {
  std::vector<std::string> notes;
  std::vector<bool> done(outcomes.size(), false);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (done[i]) continue;
    std::vector<std::size_t> group;
    for (std::size_t j = i; j < outcomes.size(); ++j)
      if (!done[j] && outcomes[j].key == outcomes[i].key) group.push_back(j), done[j] = true;
    if (group.size() < 2) continue;
    // Each choice that every shape of the class ran: the sum of the logs of its gains.
    TuneChoice best;  // builtin: gain 1 on every shape
    double best_log = 0.0;
    for (const TuneCandidateResult& c : outcomes[group[0]].candidates) {
      if (!c.accepted) continue;
      double sum = 0.0;
      bool everywhere = true;
      for (std::size_t g : group) {
        const TuneCandidateResult* x = accepted_run(outcomes[g], c.choice);
        if (!x) {
          everywhere = false;
          break;
        }
        sum += std::log(outcomes[g].candidates[0].median_ms / x->median_ms);
      }
      if (everywhere && sum > best_log) best = c.choice, best_log = sum;
    }
    const double gain = std::exp(best_log / double(group.size()));
    if (gain < min_gain) best = TuneChoice{};
    std::string shapes;
    double builtin_ms = 0.0, tuned_ms = 0.0;
    for (std::size_t g : group) {
      const TuneOutcome& o = outcomes[g];
      shapes += (shapes.empty() ? "" : " + ") + o.shape;
      builtin_ms += o.candidates[0].median_ms;
      tuned_ms += accepted_run(o, best)->median_ms;  // best ran on every shape (builtin: candidates[0])
    }
    for (std::size_t g : group) {
      TuneOutcome& o = outcomes[g];
      o.choice.entry = best.entry, o.choice.slices = best.slices;
      o.choice.shape = shapes, o.choice.builtin_ms = builtin_ms, o.choice.tuned_ms = tuned_ms;
      o.gain = best.is_builtin() ? 1.0 : gain;
    }
    notes.push_back("class " + outcomes[group[0]].key.shape_class + " (" + outcomes[group[0]].key.dtype +
                    "): " + std::to_string(group.size()) + " shapes (" + shapes +
                    "); one choice for all of them: " + describe(best) + ", geometric mean " +
                    fixed(gain, 3) + "x");
  }
  return notes;
}

std::string format_tune_outcome(const TuneOutcome& o) {
  std::ostringstream os;
  os << o.key.dtype << " " << o.shape << "  (class " << o.key.shape_class << ", " << o.key.device << ", "
     << o.key.backend << ")\n";
  const double base = o.candidates.empty() ? 0.0 : o.candidates[0].median_ms;
  for (std::size_t i = 0; i < o.candidates.size(); ++i) {
    const TuneCandidateResult& c = o.candidates[i];
    char line[512];
    if (c.accepted) {
      std::snprintf(line, sizeof line, "  %2zu %-72s %9.4f ms  x%.3f%s\n", i, c.plan.c_str(), c.median_ms,
                    base / c.median_ms, int(i) == o.best ? "  fastest" : "");
    } else {
      std::snprintf(line, sizeof line, "  %2zu %-72s rejected: %s\n", i, c.plan.c_str(), c.rejected.c_str());
    }
    os << line;
  }
  if (o.choice.is_builtin()) {
    os << "  choice: the table's plan";
    if (o.best > 0)
      os << " (the fastest other ran x" << fixed(base / o.candidates[o.best].median_ms, 3)
         << ", under the gain a choice needs)";
    os << "\n";
  } else {
    os << "  choice: " << describe(o.choice) << ", " << fixed(o.gain, 3) << "x the table's plan\n";
  }
  return os.str();
}

std::string format_tune_report(const TuneCache& cache, const std::string& path) {
  std::ostringstream os;
  if (cache.empty()) {
    os << "no tuned choices in " << path << "\n";
    return os.str();
  }
  os << "tune cache " << path << ": what gemm runs in place of the built-in table\n";
  for (const TuneRecord& r : cache.records()) {
    const TuneChoice& c = r.choice;
    os << "\n"
       << r.key.device << ", " << r.key.backend << ", " << r.key.dtype << ", class " << r.key.shape_class
       << "\n  tuned on " << (c.shape.empty() ? "?" : c.shape) << (c.date.empty() ? "" : " at " + c.date)
       << (c.git_sha.empty() ? "" : ", git " + c.git_sha) << "\n  built-in: " << c.builtin << "  "
       << fixed(c.builtin_ms, 4) << " ms\n";
    if (c.is_builtin()) {
      os << "  kept: no candidate beat it by the threshold\n";
    } else {
      os << "  tuned:    " << describe(c) << "  " << fixed(c.tuned_ms, 4) << " ms  ("
         << (c.tuned_ms > 0 ? fixed(c.builtin_ms / c.tuned_ms, 3) : "?") << "x)\n";
    }
  }
  return os.str();
}

namespace detail {
namespace {
thread_local const TuneChoice* t_forced = nullptr;
}
const TuneChoice* forced_gemm_choice() {
  return t_forced;
}
ScopedGemmChoice::ScopedGemmChoice(const TuneChoice& choice) : previous_(t_forced) {
  t_forced = &choice;
}
ScopedGemmChoice::~ScopedGemmChoice() {
  t_forced = previous_;
}
}  // namespace detail

}  // namespace ridgeline
