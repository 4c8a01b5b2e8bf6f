#pragma once
// The tune cache: what `ridgeline tune` (tune.hpp) measured to beat the built-in tile table, per device,
// backend, dtype and shape class, in a JSON file. ridgeline::gemm reads it when the file exists and applies
// the choice of the call's class (which table entry, how many K slices) in place of the table's; a call
// never tunes by itself. Where the file is:
//   $RIDGELINE_TUNE_CACHE if set (an empty value turns the cache off), else
//   $XDG_CACHE_HOME/ridgeline/tune.json, else $HOME/.cache/ridgeline/tune.json.
// The file is read once, on the first GEMM call that asks (reload_tune_cache() reads it again). A file that
// does not parse is an error (std::invalid_argument, naming the file and the field) at every GEMM call until
// it is fixed or removed; a choice whose entry this build's table does not hold (an older or newer build),
// or that cannot run the call's operands, is ignored, and the table's plan runs.
//
// Shape classes: the orientation of op(A) and op(B) as column-major transposes (NN: op(A) walks its rows
// contiguously, op(B) its K; TN: op(A) walks K; NT: op(B) walks its columns), whether both operands stage
// in 16-byte packets, M, N and K each rounded down to the grid 1, 2, 3, 4, 6, 8, 12, 16, ... (2^j and 3 *
// 2^(j-1)), and whether beta is zero (C written only) or not (C read too: a short-K product then moves twice
// C's bytes, and another plan may win). 3000 x 3000 x 300 with beta 0 is "NN packets m2048 n2048 k256
// beta=0", the class of every such NN product from 2048 to 3071 rows and columns and K from 256 to 383.
#include <cstdint>
#include <string>
#include <vector>

namespace ridgeline {

// One measured choice. entry: the table entry's key (detail::gemm_entry_key: role, tiles, micro-kernel);
// "builtin": the tuner found nothing faster than the table's own plan, which then runs. slices: K slices
// (0: the entry's own plan, with its split and peel; 1 or more: that many, unpeeled).
struct TuneChoice {
  std::string entry = "builtin";
  int slices = 0;
  bool is_builtin() const { return entry == "builtin"; }
  // What the choice was measured against, for reports: the built-in plan's description and both
  // medians, on the shape that was tuned.
  std::string builtin;
  double builtin_ms = 0.0, tuned_ms = 0.0;
  std::string shape;  // "3000x3000x300"
  std::string date, git_sha;
};

// "the table's plan", or the entry and its K slices: "narrow 64x128x16/8x8 simt-lds128, 4 K slices".
std::string describe(const TuneChoice&);

struct TuneKey {
  std::string device;   // "NVIDIA H200", "OpenMP x2"
  std::string backend;  // the tile table's name: "cuda", "hip", "host"
  std::string dtype;    // "fp32", "fp64", "fp16", "bf16"
  std::string shape_class;
  bool operator==(const TuneKey& o) const {
    return device == o.device && backend == o.backend && dtype == o.dtype && shape_class == o.shape_class;
  }
};

// A shape class as numbers, for the lookup every GEMM call makes when a cache is present (no string is
// built or compared but the device's, dtype's and backend's).
struct ShapeClass {
  char ta = 'N', tb = 'N';
  bool packets = false, beta_zero = true;
  std::int64_t m = 0, n = 0, k = 0;  // the lower ends of the classes (shape_class_floor)
  bool operator==(const ShapeClass& o) const {
    return ta == o.ta && tb == o.tb && packets == o.packets && beta_zero == o.beta_zero && m == o.m &&
           n == o.n && k == o.k;
  }
};

struct TuneRecord {
  TuneKey key;
  TuneChoice choice;
  ShapeClass cls;  // key.shape_class, parsed
};

class TuneCache {
 public:
  // Reads a cache file; throws std::runtime_error where it cannot be read, std::invalid_argument naming the
  // file and the field where it does not parse.
  static TuneCache load(const std::string& path);
  // Parses the JSON text of a cache (`source` names it in errors).
  static TuneCache parse(const std::string& text, const std::string& source);
  // Writes the cache as JSON (creating the folder); throws std::runtime_error where it cannot.
  void save(const std::string& path) const;
  std::string to_json() const;

  // The choice for key, or nullptr.
  const TuneChoice* find(const TuneKey& key) const;
  // The same, for a call: its device, backend and dtype names and its class as numbers.
  const TuneChoice* find(const std::string& device, const char* backend, const char* dtype,
                         const ShapeClass& cls) const;
  // Adds or replaces the choice for key.
  void set(const TuneKey& key, const TuneChoice& choice);
  const std::vector<TuneRecord>& records() const { return records_; }
  bool empty() const { return records_.empty(); }

 private:
  std::vector<TuneRecord> records_;
};

// The cache file's path as above; empty where the cache is turned off or no folder is known.
std::string tune_cache_path();

// The cache ridgeline::gemm applies: read from tune_cache_path() on first use; nullptr where there is no
// file (or it holds no choices). Throws as TuneCache::load where the file exists but does not parse.
const TuneCache* active_tune_cache();
// Forgets the cache read so far; the next GEMM call reads the file again. Not while other threads call
// GEMM (tests and the tuner call it between calls).
void reload_tune_cache();

// The class of an M x N x K product (the header says how they are formed). a_m: op(A) walks its rows
// contiguously; b_n: op(B) walks its columns contiguously; packets: both operands stage in 16-byte packets;
// beta_zero: beta is zero.
std::string gemm_shape_class(std::int64_t m, std::int64_t n, std::int64_t k, bool a_m, bool b_n, bool packets,
                             bool beta_zero);
// The lower end of x's class on the grid 1, 2, 3, 4, 6, 8, 12, ...
std::int64_t shape_class_floor(std::int64_t x);
// The class as numbers; the string form is what gemm_shape_class writes.
ShapeClass shape_class_of(std::int64_t m, std::int64_t n, std::int64_t k, bool a_m, bool b_n, bool packets,
                          bool beta_zero);
std::string to_string(const ShapeClass&);
// Parses what to_string writes; throws std::invalid_argument.
ShapeClass parse_shape_class(const std::string&);

namespace detail {
// A choice that the calling thread's GEMM calls apply instead of the cache's, while a ScopedGemmChoice
// lives: how the tuner runs each candidate through ridgeline::gemm itself.
const TuneChoice* forced_gemm_choice();
class ScopedGemmChoice {
 public:
  explicit ScopedGemmChoice(const TuneChoice& choice);
  ~ScopedGemmChoice();
  ScopedGemmChoice(const ScopedGemmChoice&) = delete;
  ScopedGemmChoice& operator=(const ScopedGemmChoice&) = delete;

 private:
  const TuneChoice* previous_;
};
}  // namespace detail

}  // namespace ridgeline
