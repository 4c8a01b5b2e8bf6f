#pragma once
// What ridgeline::tune_gemm (tune.hpp) is asked and what it finds, apart from the tuner itself, so that code
// that only reports outcomes (the `ridgeline` command line) need not include the GEMM dispatch.
#include <cstdint>
#include <string>
#include <vector>

#include "ridgeline/tune_cache.hpp"

namespace ridgeline {

struct TuneRequest {
  std::int64_t m = 0, n = 0, k = 0;
  char trans_a = 'N', trans_b = 'N';
  int warmup = 2, reps = 10;
  // The call's alpha and beta. Only whether beta is zero changes the class (tune_cache.hpp): tune with the
  // beta the application passes. Either way C is restored before every run, so beta != 0 never compounds.
  double alpha = 1.0, beta = 0.0;
  std::uint64_t seed = 20261204;
  // A candidate goes into the choice only when the table's plan takes this many times its median.
  double min_gain = 1.02;
  // K slice counts to try each entry at, besides its own plan's; empty: the backend's (tune_space.hpp).
  std::vector<int> slices;
  // Bytes written between the restore of C and each timed run, so that the run finds neither C nor its
  // operands in the last-level cache, as an application's call after other work would (ridgeline-perf
  // rotates operand sets for the same reason). 0: 256 MiB on a device (the H200's L2 is 50 MB), 64 MiB
  // on a host; negative: none.
  std::int64_t flush_bytes = 0;
};

struct TuneCandidateResult {
  TuneChoice choice;  // entry key and K slices; entry "builtin": the table's own plan
  std::string plan;   // what ran: entry, K slices, peel (or why it could not run)
  bool accepted = false;
  std::string rejected;  // why not, where not accepted
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  double worst_error = 0.0;  // the largest |C - reference| / tolerance over C's elements; at most 1 to pass
};

struct TuneOutcome {
  TuneKey key;
  std::string shape;                            // "3000x3000x300 NN"
  std::vector<TuneCandidateResult> candidates;  // [0]: the table's own plan
  int best = 0;                                 // the fastest accepted candidate
  // What the cache gets: the best candidate where it beats the table's plan by min_gain, else "builtin";
  // with the table's plan's description and both medians.
  TuneChoice choice;
  double gain = 1.0;  // the table plan's median over the chosen candidate's
};

// Where one run tuned several shapes of one class (2048^3 and 2500^3 are both "m2048 n2048 k2048"), the class
// gets one choice: the candidate that ran every one of them with the best geometric mean of its gains over
// the table's plan, where that mean reaches min_gain, else "builtin". Sets that choice on each outcome of the
// class (shape: the shapes, joined; builtin_ms and tuned_ms: their sums) and returns one line per merged
// class saying what was chosen from what; outcomes alone in their class are left as they are.
std::vector<std::string> merge_tune_classes(std::vector<TuneOutcome>& outcomes, double min_gain);

// One outcome's candidates as a table: each plan, its median and its speed against the table's plan, or why
// it was rejected; then the choice. What `ridgeline tune` and the tile sweep's plan mode print.
std::string format_tune_outcome(const TuneOutcome&);
// What a cache changes against the built-in table, with the measured gains (`ridgeline tune --report`).
std::string format_tune_report(const TuneCache&, const std::string& path);

}  // namespace ridgeline
