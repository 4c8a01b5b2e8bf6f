#pragma once
// The `ridgeline` command line as a library: main() forwards to run(), and tests call run() with an
// argument list and string streams instead of spawning the program.
#include <iosfwd>
#include <ridgeline/device_spec.hpp>
#include <string>
#include <vector>

namespace ridgeline {
namespace cli {

// Exit codes beyond CLI11's own (which it uses for malformed command lines).
inline constexpr int kExitOk = 0;
inline constexpr int kExitError =
    1;  // a well-formed request that cannot be served (unknown device, bad file)

// args: the arguments after the program name.
int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int run(int argc, char** argv);

// `ridgeline perf ARGS...` runs this program with ARGS: $RIDGELINE_PERF_PROGRAM, else ridgeline-perf
// beside the running `ridgeline` (an install's bin folder), else the one this build tree made, else
// ridgeline-perf from PATH. The suite stays its own program so that the CLI links neither Kokkos
// Kernels nor OpenBLAS.
std::string perf_program();
// Runs `program args...` with the caller's stdin/stdout/stderr (so the suite sees the terminal) and
// returns its exit status (128 + signal if it was killed; kExitError if it could not be started).
int run_program(const std::string& program, const std::vector<std::string>& args, std::ostream& err);

struct TileShape {
  int bm = 0, bn = 0, bk = 0;
};
// "64x64x32" (also "64,64,32"); throws std::invalid_argument.
TileShape parse_tile_shape(const std::string&);
// "8192x8192x4096" or "4096x4096": positive extents; throws std::invalid_argument.
std::vector<std::int64_t> parse_extents(const std::string&, std::size_t count);

}  // namespace cli
}  // namespace ridgeline
