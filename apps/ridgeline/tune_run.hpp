#pragma once
// `ridgeline tune`: ridgeline::tune_gemm (ridgeline/tune.hpp) on the build's default execution space, for a
// list of shapes, dtypes and transposes, compiled in tune_run.cpp for that space.
#include <cstdint>
#include <iosfwd>
#include <ridgeline/tune_result.hpp>
#include <string>
#include <vector>

namespace ridgeline {
namespace cli {

struct TuneRunOptions {
  std::vector<std::string> shapes;          // "MxNxK"
  std::vector<std::string> dtypes{"fp32"};  // "fp32", "fp64"
  std::vector<std::string> trans{"NN"};     // "NN", "NT", "TN", "TT"
  int reps = 10, warmup = 2;
  double min_gain = 1.02;
  std::vector<int> slices;  // K slice counts per entry; empty: the backend's (tune_space.hpp)
  double beta = 0.0;        // the calls' beta: zero or not picks the class
};

// Needs Kokkos initialized. Tunes every shape x dtype x transpose pair; `log` gets each one's candidates as
// a table as it finishes. Throws std::invalid_argument for a malformed shape, dtype or transpose pair.
std::vector<TuneOutcome> run_tune(const TuneRunOptions&, std::ostream& log);

}  // namespace cli
}  // namespace ridgeline
