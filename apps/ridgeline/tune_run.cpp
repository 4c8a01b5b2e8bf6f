#include "tune_run.hpp"

#include <Kokkos_Core.hpp>
#include <ostream>
#include <stdexcept>

#include "cli.hpp"
#include "ridgeline/tune.hpp"

namespace ridgeline {
namespace cli {

std::vector<TuneOutcome> run_tune(const TuneRunOptions& opt, std::ostream& log) {
  if (opt.shapes.empty()) throw std::invalid_argument("ridgeline tune: give --shapes MxNxK[,MxNxK...]");
  using Exec = Kokkos::DefaultExecutionSpace;
  std::vector<TuneOutcome> out;
  for (const std::string& s : opt.shapes) {
    const auto e = parse_extents(s, 3);
    for (const std::string& t : opt.trans) {
      if (t.size() != 2 || (t[0] != 'N' && t[0] != 'T') || (t[1] != 'N' && t[1] != 'T'))
        throw std::invalid_argument("ridgeline tune: transpose pair '" + t + "': NN, NT, TN or TT");
      for (const std::string& d : opt.dtypes) {
        TuneRequest rq;
        rq.m = e[0], rq.n = e[1], rq.k = e[2], rq.trans_a = t[0], rq.trans_b = t[1];
        rq.reps = opt.reps, rq.warmup = opt.warmup, rq.min_gain = opt.min_gain, rq.slices = opt.slices;
        rq.beta = opt.beta;
        if (d == "fp32") {
          out.push_back(tune_gemm<Exec, float>(Exec(), rq));
        } else if (d == "fp64") {
          out.push_back(tune_gemm<Exec, double>(Exec(), rq));
        } else {
          throw std::invalid_argument("ridgeline tune: dtype '" + d + "': fp32 or fp64");
        }
        log << format_tune_outcome(out.back());
        log << std::flush;
      }
    }
  }
  // Shapes of one class share its one cached choice.
  for (const std::string& note : merge_tune_classes(out, opt.min_gain)) log << note << "\n";
  return out;
}

}  // namespace cli
}  // namespace ridgeline
