#pragma once
// `ridgeline ceilings`: the Kokkos kernels that measure a device's ceilings on the build's default
// execution space (ceilings_kernels.cpp), and what the tests call to check their arithmetic without
// timing anything.
#include <iosfwd>
#include <ridgeline/ceilings.hpp>
#include <ridgeline/device_spec.hpp>
#include <string>
#include <vector>

namespace ridgeline {
namespace cli {

struct CeilingsOptions {
  bool quick = false;   // seconds in all: fewer repetitions and shorter runs (the main job's)
  int reps = 0;         // timed runs per roof; 0: 10 (quick: 5)
  double target_s = 0;  // length of one timed run; 0: 50 ms on the host (quick: 10 ms), 20 ms on a GPU
  bool bandwidth = true, compute = true, matrix = true;
};

// Needs Kokkos initialized. Measures every roof of the plan for `spec` (the default execution space's
// device) and returns them with the spec's figures beside; `log` gets one line per roof as it goes.
// Record fields that only the caller knows (command, git sha, date) are left empty.
ceilings::DeviceCeilings measure_ceilings(const DeviceSpec& spec, const CeilingsOptions&, std::ostream& log);

// The FMA-chain kernel of dtype `dtype` ("fp64", "fp32"; "fp16" where the backend has it) run once,
// untimed: `threads` threads, `steps` steps; returns every chain's final value (thread-major) and the
// chains per thread in *chains. Throws std::invalid_argument for a dtype the backend has no kernel for.
std::vector<double> run_fma_chains(const std::string& dtype, std::int64_t threads, std::int64_t steps,
                                   int* chains);
// What run_fma_chains must return: fma_chain_reference for every thread and chain.
std::vector<double> fma_chains_expected(std::int64_t threads, int chains, std::int64_t steps);

// The bandwidth kernel of a level run once, untimed, with `passes` passes; returns the positions whose
// values the passes changed (every pass rewrites the values already there, so a correct kernel leaves 0).
std::int64_t run_stream_check(ceilings::StreamKernel, const ceilings::LevelPlan&, int passes);

}  // namespace cli
}  // namespace ridgeline
